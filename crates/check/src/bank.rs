//! Shared-memory bank conflicts, counted the way Nsight Compute counts them.
//!
//! Shared memory has 32 banks of 4-byte words; word `w` (byte offset / 4) lives in bank
//! `w % 32`. A warp-level shared load or store is served in *wavefronts*: in one
//! wavefront each bank delivers one word, and every lane asking for that word gets it (a
//! broadcast). Following Boyer, Skadron and Weimer 2008 (§5) and the hardware counters:
//!
//! 1. The active lanes are split into *phases* of at most 128 bytes: the whole warp for
//!    accesses of up to 4 bytes, half-warps (lanes 0–15, 16–31) for 8-byte accesses and
//!    quarter-warps for 16-byte accesses. A phase without active lanes costs nothing.
//! 2. In each phase, every bank serves the *distinct* words its lanes ask for (a lane's
//!    8- or 16-byte access covers 2 or 4 consecutive words, so consecutive banks); the
//!    phase needs as many wavefronts as the busiest bank has distinct words (its
//!    *degree*).
//! 3. The instruction's wavefronts are the sum over phases; its bank conflicts are
//!    wavefronts − phases. Exception, measured: the two quarter-warp phases of a
//!    half-warp of a 16-byte access share one wavefront when together they put at most one
//!    word in each bank (a `float4` broadcast costs 2 wavefronts, not 4). These are `l1tex__data_pipe_lsu_wavefronts_mem_shared_op_{ld,st}`
//!    and `l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_{ld,st}` (checked on an H200:
//!    the 32×32 transpose tile gives 512 requests × 31 extra wavefronts = 15872).
//!
//! Shared-memory atomics are not counted (the hardware serves them through a different
//! path and the markers do not cover them). Generic accesses that resolve to shared
//! memory count as shared accesses.
//!
//! The components of one record that clang splits into several narrower accesses (two
//! 8-byte halves of a `float4`) are judged together, on the union of their bytes, as for
//! coalescing (see [`crate::coalesce`]); the wavefront and conflict counts stay per
//! instruction, as the hardware counts them.
//!
//! Per instruction (site) the checker keeps executions, wavefronts, conflicts, the worst
//! degree and, for the first execution with that degree, the per-bank histogram of
//! distinct words. A finding (`bank-conflict`) is reported per source line whose worst
//! degree is at least 2.

use warpcheck_emu::{MemEvent, MemKind, Observer, ObserverFactory};
use warpcheck_ir::modifiers::MemSpace;
use warpcheck_report::{Code, Finding, Location, Severity};

use crate::coalesce::{Memo, Siblings, SiteTable, idle_groups};
use crate::{
    Check, CheckOptions, KernelTotals, LaunchCheck, LaunchInfo, ReportCx, Site, same_line,
};

/// Number of shared-memory banks and lanes of a warp.
const BANKS: usize = 32;

/// What one warp-level shared access costs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct AccessCost {
    /// Phases with at least one active lane.
    pub phases: u32,
    /// Wavefronts: the sum over phases of the busiest bank's distinct words.
    pub wavefronts: u32,
    /// The wavefronts without bank conflicts: one per phase (a pair of quarter-warp
    /// phases that share a wavefront counts once).
    pub ideal: u32,
    /// The largest number of distinct words one bank serves in one phase.
    pub degree: u32,
    /// For the phase with the largest degree: the distinct words each bank serves (left
    /// zero when no bank serves two words: only conflicts are reported).
    pub histogram: [u8; BANKS],
}

impl AccessCost {
    pub fn conflicts(&self) -> u32 {
        self.wavefronts - self.ideal
    }
}

/// Lanes per phase for an access of `size` bytes per lane: phases of 128 bytes.
fn lanes_per_phase(size: u32) -> u32 {
    (128 / size.max(1)).clamp(1, 32)
}

/// The cost of one warp-level shared access (see the module docs). `addresses` are byte
/// offsets in shared memory; only lanes in `lanes` count.
pub fn access_cost(addresses: &[u64; 32], lanes: u32, size: u32) -> AccessCost {
    // Fast path: accesses of up to 4 bytes (one word per lane, one phase) where every
    // bank serves one word.
    if size <= 4 && lanes != 0 {
        let mut busy = 0u32;
        let mut word_of = [0u64; BANKS];
        let mut conflict = false;
        let mut m = lanes;
        while m != 0 {
            let l = m.trailing_zeros() as usize;
            m &= m - 1;
            let first = addresses[l] / 4;
            let last = (addresses[l] + u64::from(size.max(1)) - 1) / 4;
            let b = (first % BANKS as u64) as usize;
            if first != last {
                conflict = true;
                break;
            }
            if busy & (1 << b) == 0 {
                busy |= 1 << b;
                word_of[b] = first;
            } else if word_of[b] != first {
                conflict = true;
                break;
            }
        }
        if !conflict {
            return AccessCost {
                phases: 1,
                wavefronts: 1,
                ideal: 1,
                degree: 1,
                histogram: [0; BANKS],
            };
        }
    }
    let size = u64::from(size.max(1));
    cost_of(lanes, lanes_per_phase(size as u32), |lane, words| {
        let first = addresses[lane] / 4;
        let last = (addresses[lane] + size - 1) / 4;
        for w in first..=last.min(first + 4) {
            words(w);
        }
    })
}

/// `cost`, computed for an access whose first active lane's address was `from`, for the
/// same pattern shifted so that it is `to` (a multiple of 4 bytes away, see
/// [`crate::coalesce::Pattern`]): every word moves as many banks on, so only the
/// histogram changes, rotated.
fn shifted(mut cost: AccessCost, from: u64, to: u64) -> AccessCost {
    let k = ((to / 4).wrapping_sub(from / 4) % BANKS as u64) as usize;
    if cost.degree >= 2 && k != 0 {
        cost.histogram.rotate_right(k);
    }
    cost
}

/// The cost of a group of sibling accesses (the components of one record, see
/// [`crate::coalesce`]) as if they were one access of the union of their bytes.
pub(crate) fn union_cost(g: &Siblings) -> AccessCost {
    let mut footprint = 1;
    let mut m = g.lanes;
    while m != 0 {
        let l = m.trailing_zeros() as usize;
        m &= m - 1;
        let b = g.bytes[l];
        if b != 0 {
            let span = 16 - b.leading_zeros() - b.trailing_zeros();
            footprint = footprint.max(span);
        }
    }
    let size = if footprint <= 4 {
        4
    } else if footprint <= 8 {
        8
    } else {
        16
    };
    cost_of(g.lanes, lanes_per_phase(size), |lane, words| {
        for k in 0..4 {
            if g.bytes[lane] & (0xF << (4 * k)) != 0 {
                words(g.granule[lane] / 4 + k);
            }
        }
    })
}

/// The busiest bank's distinct words among `words` (sorted in place when needed), and the
/// distinct words per bank when some bank serves two.
fn phase_degree(words: &mut [u64]) -> (u32, [u8; BANKS]) {
    let mut counts = [0u8; BANKS];
    if words.is_empty() {
        return (0, counts);
    }
    // Fast path: every bank serves one word (distinct banks, or broadcasts).
    let mut busy = 0u32;
    let mut word_of = [0u64; BANKS];
    let mut conflict = false;
    for &w in words.iter() {
        let b = (w % BANKS as u64) as usize;
        if busy & (1 << b) == 0 {
            busy |= 1 << b;
            word_of[b] = w;
        } else if word_of[b] != w {
            conflict = true;
            break;
        }
    }
    if !conflict {
        return (1, counts);
    }
    words.sort_unstable();
    let mut previous = None;
    for &w in words.iter() {
        if previous != Some(w) {
            counts[(w % BANKS as u64) as usize] += 1;
            previous = Some(w);
        }
    }
    (u32::from(counts.iter().copied().max().unwrap_or(0)), counts)
}

/// Phases of `per_phase` lanes; `lane_words(lane, add)` calls `add` with each 4-byte word
/// the lane touches. For 16-byte accesses (quarter-warp phases) the two quarters of a
/// half-warp share one wavefront when together they put at most one word in each bank:
/// Nsight Compute counts 2 wavefronts, not 4, for a `ld.shared.v4` that every lane reads
/// from the same address (`nbody_float4.cu` on an H200).
fn cost_of(
    lanes: u32,
    per_phase: u32,
    lane_words: impl Fn(usize, &mut dyn FnMut(u64)),
) -> AccessCost {
    let mut cost = AccessCost {
        phases: 0,
        wavefronts: 0,
        ideal: 0,
        degree: 0,
        histogram: [0; BANKS],
    };
    // At most 128 bytes per phase for aligned accesses; room for stragglers.
    let mut words = [0u64; 512];
    let mut n = 0;
    // Per phase: its words' range in `words` and its degree.
    let mut phase_words = [(0usize, 0usize); 32];
    let mut phase_degrees = [0u32; 32];
    let phases = (32 / per_phase) as usize;
    for p in 0..phases {
        let first = p as u32 * per_phase;
        let phase_mask = if per_phase == 32 {
            u32::MAX
        } else {
            ((1u32 << per_phase) - 1) << first
        };
        let start = n;
        let mut active = lanes & phase_mask;
        while active != 0 {
            let lane = active.trailing_zeros() as usize;
            active &= active - 1;
            lane_words(lane, &mut |w| {
                if n < words.len() {
                    words[n] = w;
                    n += 1;
                }
            });
        }
        phase_words[p] = (start, n);
        if n == start {
            continue;
        }
        let (degree, counts) = phase_degree(&mut words[start..n]);
        phase_degrees[p] = degree;
        cost.phases += 1;
        cost.wavefronts += degree;
        cost.ideal += 1;
        if degree > cost.degree {
            cost.degree = degree;
            cost.histogram = counts;
        }
    }
    if per_phase == 8 {
        for half in 0..2 {
            let (a, b) = (2 * half, 2 * half + 1);
            if phase_degrees[a] != 1 || phase_degrees[b] != 1 {
                continue;
            }
            let (from, _) = phase_words[a];
            let (_, to) = phase_words[b];
            let mut both = [0u64; 256];
            let len = (to - from).min(both.len());
            both[..len].copy_from_slice(&words[from..from + len]);
            if phase_degree(&mut both[..len]).0 == 1 {
                cost.wavefronts -= 1;
                cost.ideal -= 1;
            }
        }
    }
    cost
}

/// Statistics of one shared load or store instruction.
#[derive(Clone, Debug, Default)]
pub struct SiteStats {
    pub is_store: bool,
    /// Bytes per lane of the access.
    pub size: u32,
    /// Warp-level executions (requests).
    pub executions: u64,
    pub wavefronts: u64,
    pub conflicts: u64,
    /// The largest degree of any execution.
    pub worst_degree: u32,
    /// The distinct words per bank of the first execution with the worst degree.
    pub worst_histogram: [u8; BANKS],
    /// Executions whose degree was at least 2.
    pub conflicted_executions: u64,
    /// Executions that conflicted alone but not together with their siblings (the
    /// components of one record), the worst of them, and the sibling instructions: they
    /// count when no sibling is on the same source line (decided in the report).
    pub cleared_executions: u64,
    pub cleared_degree: u32,
    pub cleared_histogram: [u8; BANKS],
    pub partners: Vec<Site>,
}

impl SiteStats {
    /// Zero counts for the next block, keeping the instruction's kind and width.
    fn reset(&mut self) {
        let mut partners = std::mem::take(&mut self.partners);
        partners.clear();
        *self = SiteStats {
            is_store: self.is_store,
            size: self.size,
            partners,
            ..SiteStats::default()
        };
    }

    fn count(&mut self, cost: &AccessCost) {
        self.executions += 1;
        self.wavefronts += u64::from(cost.wavefronts);
        self.conflicts += u64::from(cost.conflicts());
    }

    fn flag(&mut self, degree: u32, histogram: &[u8; BANKS]) {
        self.conflicted_executions += 1;
        if degree > self.worst_degree {
            self.worst_degree = degree;
            self.worst_histogram = *histogram;
        }
    }

    fn clear(
        &mut self,
        degree: u32,
        histogram: &[u8; BANKS],
        partners: impl Iterator<Item = Site>,
    ) {
        self.cleared_executions += 1;
        if degree > self.cleared_degree {
            self.cleared_degree = degree;
            self.cleared_histogram = *histogram;
        }
        for p in partners {
            if !self.partners.contains(&p) {
                self.partners.push(p);
            }
        }
    }

    /// These statistics with the cleared executions counted as conflicted.
    fn with_cleared(&self) -> SiteStats {
        let mut s = self.clone();
        s.conflicted_executions += s.cleared_executions;
        if s.cleared_degree > s.worst_degree {
            s.worst_degree = s.cleared_degree;
            s.worst_histogram = s.cleared_histogram;
        }
        s.cleared_executions = 0;
        s
    }

    fn merge(&mut self, other: &SiteStats) {
        self.cleared_executions += other.cleared_executions;
        if other.cleared_degree > self.cleared_degree {
            self.cleared_degree = other.cleared_degree;
            self.cleared_histogram = other.cleared_histogram;
        }
        for p in &other.partners {
            if !self.partners.contains(p) {
                self.partners.push(*p);
            }
        }
        self.is_store = other.is_store;
        self.size = other.size;
        self.executions += other.executions;
        self.wavefronts += other.wavefronts;
        self.conflicts += other.conflicts;
        self.conflicted_executions += other.conflicted_executions;
        if other.worst_degree > self.worst_degree {
            self.worst_degree = other.worst_degree;
            self.worst_histogram = other.worst_histogram;
        }
    }

    /// Average wavefronts per phase-free request: wavefronts / executions.
    pub fn average_wavefronts(&self) -> f64 {
        if self.executions == 0 {
            0.0
        } else {
            self.wavefronts as f64 / self.executions as f64
        }
    }
}

/// Kernel-wide counts of one kernel (by name).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Totals {
    load_wavefronts: u64,
    store_wavefronts: u64,
    load_conflicts: u64,
    store_conflicts: u64,
}

/// Bank-conflict statistics of a session, per kernel and instruction.
pub type BankState = crate::PerSite<Totals, SiteStats>;

impl Check for BankState {
    type Launch<'s> = BankLaunch<'s>;
    type Block = BankBlock;

    fn new(_options: &CheckOptions) -> BankState {
        BankState::default()
    }

    fn launch(&mut self, info: &LaunchInfo, _seq: u64) -> BankLaunch<'_> {
        let kernel = self.kernel_index(&info.kernel_name);
        BankLaunch {
            state: self,
            kernel,
        }
    }

    /// One `bank-conflict` warning per kernel and source line whose worst degree is at
    /// least 2 (several instructions on one line are merged; the worst one names it).
    fn findings(&self, cx: &ReportCx) -> Vec<Finding> {
        // (kernel, line, the instructions on it)
        type Line = (u32, Option<Location>, Vec<(Site, SiteStats)>);
        let mut lines: Vec<Line> = Vec::new();
        let mut sites: Vec<(&(u32, Site), SiteStats)> = self
            .sites
            .iter()
            .map(|(key, s)| {
                // Cleared executions count when no sibling is on this source line.
                let own = cx.locate(key.1);
                // (Without line information the siblings are taken as one access.)
                let sibling_here = s.partners.iter().any(|p| {
                    let theirs = cx.locate(*p);
                    same_line(&theirs, &own) || (theirs.is_none() && own.is_none())
                });
                let s = if s.cleared_executions > 0 && !sibling_here {
                    s.with_cleared()
                } else {
                    s.clone()
                };
                (key, s)
            })
            .filter(|(_, s)| s.worst_degree >= 2)
            .collect();
        sites.sort_by_key(|((k, site), _)| (*k, *site));
        for ((kernel, site), stats) in sites {
            let loc = cx.locate(*site);
            match lines
                .iter_mut()
                .find(|(k, l, _)| *k == *kernel && same_line(l, &loc))
            {
                Some((_, _, group)) => group.push((*site, stats)),
                None => lines.push((*kernel, loc, vec![(*site, stats)])),
            }
        }
        let mut out = Vec::new();
        for (kernel, loc, group) in lines {
            let Some((_, worst)) = group.iter().max_by_key(|(_, s)| s.worst_degree) else {
                continue;
            };
            let what = if worst.is_store { "store" } else { "load" };
            let mut f = Finding::new(
                Code::BankConflict,
                Severity::Warning,
                format!(
                    "shared {what} with {}-way bank conflict",
                    worst.worst_degree
                ),
            )
            .degree(worst.worst_degree)
            .kernel(self.kernels[kernel as usize].clone());
            if let Some(loc) = loc {
                f = f.at(
                    loc,
                    format!(
                        "{}-byte shared {what}: up to {} wavefronts per phase",
                        worst.size, worst.worst_degree
                    ),
                );
            }
            // One note per kind of access on the line (an unrolled loop has several
            // instructions of one kind).
            let mut kinds: Vec<(SiteStats, usize)> = Vec::new();
            for (_, s) in &group {
                match kinds
                    .iter_mut()
                    .find(|(k, _)| k.is_store == s.is_store && k.size == s.size)
                {
                    Some((k, n)) => {
                        k.merge(s);
                        *n += 1;
                    }
                    None => kinds.push((s.clone(), 1)),
                }
            }
            for (s, n) in &kinds {
                let what = if s.is_store { "store" } else { "load" };
                let instructions = if *n > 1 {
                    format!(" ({n} instructions)")
                } else {
                    String::new()
                };
                f = f.note(format!(
                    "{what} of {} bytes per lane{instructions}: {} requests, {} wavefronts ({:.2} per request), \
                     {} bank conflicts; {} requests conflicted, worst {}-way",
                    s.size,
                    s.executions,
                    s.wavefronts,
                    s.average_wavefronts(),
                    s.conflicts,
                    s.conflicted_executions,
                    s.worst_degree
                ));
            }
            f = f.note(format!(
                "distinct words per bank in the worst phase: {}",
                histogram_text(&worst.worst_histogram)
            ));
            f.occurrences = group.iter().map(|(_, s)| s.conflicted_executions).sum();
            f = f.help(
                "make the lanes of a warp touch different banks: pad shared arrays \
                 (e.g. `[32][33]` instead of `[32][32]`), or change the indexing so that \
                 consecutive lanes access consecutive words",
            );
            out.push(f);
        }
        out
    }

    /// Adds this checker's counts for `k.kernel` to `k`.
    fn add_totals(&self, k: &mut KernelTotals) {
        if let Some(i) = self.kernels.iter().position(|n| *n == k.kernel) {
            let t = self.totals[i];
            k.shared_load_wavefronts += t.load_wavefronts;
            k.shared_store_wavefronts += t.store_wavefronts;
            k.shared_load_bank_conflicts += t.load_conflicts;
            k.shared_store_bank_conflicts += t.store_conflicts;
        }
    }
}

/// "bank 0: 32 words, others: 0", or the busy banks in order when several are busy.
pub fn histogram_text(h: &[u8; BANKS]) -> String {
    let mut busy: Vec<(usize, u8)> = h
        .iter()
        .enumerate()
        .filter(|(_, n)| **n > 0)
        .map(|(b, &n)| (b, n))
        .collect();
    if busy.is_empty() {
        return "none".into();
    }
    let idle = BANKS - busy.len();
    // Group banks with the same count: "banks 0, 2, 4: 2 words".
    busy.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(&b.0)));
    let mut parts = Vec::new();
    let mut i = 0;
    while i < busy.len() {
        let n = busy[i].1;
        let banks: Vec<usize> = busy[i..]
            .iter()
            .take_while(|(_, c)| *c == n)
            .map(|(b, _)| *b)
            .collect();
        i += banks.len();
        let words = if n == 1 { "word" } else { "words" };
        if banks.len() == 1 {
            parts.push(format!("bank {}: {n} {words}", banks[0]));
        } else {
            parts.push(format!("banks {}: {n} {words} each", bank_list(&banks)));
        }
    }
    if idle > 0 {
        parts.push("others: 0".into());
    }
    parts.join(", ")
}

/// "0-15" for consecutive banks, "0, 2, 4" otherwise.
fn bank_list(banks: &[usize]) -> String {
    let consecutive = banks.windows(2).all(|w| w[1] == w[0] + 1);
    if consecutive && banks.len() > 2 {
        format!("{}-{}", banks[0], banks[banks.len() - 1])
    } else {
        banks
            .iter()
            .map(|b| b.to_string())
            .collect::<Vec<_>>()
            .join(", ")
    }
}

pub struct BankLaunch<'s> {
    state: &'s mut BankState,
    kernel: u32,
}

impl LaunchCheck for BankLaunch<'_> {}

thread_local! {
    /// The host thread's bank-conflict memo (see [`Memo`]).
    static MEMO: std::cell::Cell<Memo<AccessCost, 4>> = const { std::cell::Cell::new(Memo::new()) };
}

/// One block's per-instruction statistics (sites are few, so a small vector searched
/// from the last hit is cheaper than hashing), the host thread's memo while the block
/// runs, and per warp the pending sibling groups of
/// loads and stores (see [`crate::coalesce`]: the components of one record are judged
/// together).
#[derive(Default)]
pub struct BankBlock {
    sites: SiteTable<SiteStats>,
    memo: Memo<AccessCost, 4>,
    groups: Vec<Option<Box<[Siblings; 2]>>>,
    /// The histograms of the pending members (parallel to each group's members).
    histograms: Vec<Vec<[u8; BANKS]>>,
    /// Recycled for a block that has not started: the counts are zeroed when it starts,
    /// on the host thread that runs it (see [`crate::Launch`]).
    stale: bool,
}

impl BankBlock {
    /// Ready for the next block: counts zeroed, sites kept (see
    /// [`ObserverFactory::recycle`]).
    fn recycle(&mut self) {
        for (_, stats) in &mut self.sites.entries {
            stats.reset();
        }
        idle_groups(&mut self.groups);
        for h in &mut self.histograms {
            h.clear();
        }
    }

    #[inline(always)]
    fn site_index(&mut self, site: Site, is_store: bool, size: u32) -> usize {
        self.sites.index(site, || SiteStats {
            is_store,
            size,
            ..SiteStats::default()
        })
    }

    fn flush(sites: &mut [(Site, SiteStats)], g: &mut Siblings, histograms: &mut Vec<[u8; BANKS]>) {
        if !g.active {
            return;
        }
        g.active = false;
        if g.members.len() == 1 || union_cost(g).degree >= 2 {
            for (&(i, degree, _), h) in g.members.iter().zip(histograms.iter()) {
                sites[i].1.flag(degree, h);
            }
        } else {
            for (k, (&(i, degree, _), h)) in g.members.iter().zip(histograms.iter()).enumerate() {
                let partners: Vec<Site> = g
                    .members
                    .iter()
                    .enumerate()
                    .filter(|(j, m)| *j != k && m.0 != i)
                    .map(|(_, m)| sites[m.0].0)
                    .collect();
                sites[i].1.clear(degree, h, partners.into_iter());
            }
        }
        g.members.clear();
        histograms.clear();
    }
}

impl Observer for BankBlock {
    fn on_block_start(&mut self, _block: [u32; 3], _threads: u32) {
        if std::mem::take(&mut self.stale) {
            self.recycle();
        }
        self.memo.swap_with(&MEMO);
    }

    #[inline(always)]
    fn on_memory(&mut self, e: &MemEvent<'_>) {
        if e.space != MemSpace::Shared || e.lanes == 0 {
            return;
        }
        let is_store = match e.kind {
            MemKind::Load => false,
            MemKind::Store => true,
            MemKind::Atomic { .. } => return,
        };
        let i = self.site_index((e.func, e.inst), is_store, e.size);
        // By reference: copying the cost (its histogram is 32 bytes) out of the memo for
        // every event was a third of the bank checker's time; only conflicts need it.
        let (cost, computed_at) = self.memo.get(i, (e.addresses, e.lanes, e.size), || {
            access_cost(e.addresses, e.lanes, e.size)
        });
        self.sites.entries[i].1.count(cost);
        if cost.degree < 2 {
            return;
        }
        let base = e.addresses[e.lanes.trailing_zeros() as usize & 31];
        let cost = shifted(*cost, computed_at, base);
        let w = e.warp as usize;
        if self.groups.len() <= w {
            self.groups.resize_with(w + 1, || None);
            self.histograms.resize_with(2 * (w + 1), Vec::new);
        }
        let groups =
            self.groups[w].get_or_insert_with(|| Box::new([Siblings::new(), Siblings::new()]));
        let g = &mut groups[is_store as usize];
        let hist = &mut self.histograms[2 * w + is_store as usize];
        let member = (i, cost.degree, 0);
        if g.joins(e) {
            g.add(e);
            g.members.push(member);
            hist.push(cost.histogram);
            return;
        }
        BankBlock::flush(&mut self.sites.entries, g, hist);
        if g.start(e) {
            g.members.push(member);
            hist.push(cost.histogram);
        } else {
            self.sites.entries[i].1.flag(cost.degree, &cost.histogram);
        }
    }

    fn on_block_end(&mut self, _block: [u32; 3]) {
        for (w, groups) in self.groups.iter_mut().enumerate() {
            if let Some(groups) = groups {
                for (k, g) in groups.iter_mut().enumerate() {
                    BankBlock::flush(&mut self.sites.entries, g, &mut self.histograms[2 * w + k]);
                }
            }
        }
        self.memo.swap_with(&MEMO);
    }
}

impl ObserverFactory for BankLaunch<'_> {
    type Observer = BankBlock;
    fn create(&self, _block: [u32; 3]) -> BankBlock {
        BankBlock::default()
    }
    fn recycle(&self, o: &mut BankBlock, _block: [u32; 3]) {
        o.stale = true;
    }

    fn merge(&mut self, observers: &mut [([u32; 3], BankBlock)]) {
        let k = self.kernel;
        for (_, block) in observers {
            for (site, stats) in &block.sites.entries {
                if stats.executions == 0 {
                    // Kept from an earlier block of a recycled observer.
                    continue;
                }
                let totals = &mut self.state.totals[k as usize];
                if stats.is_store {
                    totals.store_wavefronts += stats.wavefronts;
                    totals.store_conflicts += stats.conflicts;
                } else {
                    totals.load_wavefronts += stats.wavefronts;
                    totals.load_conflicts += stats.conflicts;
                }
                self.state.sites.entry((k, *site)).or_default().merge(stats);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        /// The memo's answers (reused up to a shift by a multiple of 4 bytes, the
        /// histogram rotated by the shift) equal the direct computation, for a site that
        /// sees one pattern at many shifts and cycles through several strides.
        #[test]
        fn memoised_costs_equal_direct_ones(
            shifts in proptest::collection::vec(0u64..512, 1..40),
            strides in proptest::collection::vec(0u64..70, 1..6),
            lanes in prop_oneof![Just(u32::MAX), any::<u32>().prop_filter("some lane", |l| *l != 0)],
            size in prop_oneof![Just(1u32), Just(4), Just(8), Just(16)],
        ) {
            let mut memo: Memo<AccessCost, 4> = Memo::default();
            for (n, &shift) in shifts.iter().enumerate() {
                let stride = strides[n % strides.len()];
                let unit = u64::from(size.max(4));
                let mut addresses = [0u64; 32];
                for (l, a) in addresses.iter_mut().enumerate() {
                    *a = (shift * 4 + stride * unit * l as u64) / u64::from(size) * u64::from(size);
                }
                let (cost, at) = memo.get(0, (&addresses, lanes, size), || {
                    access_cost(&addresses, lanes, size)
                });
                let cost = shifted(*cost, at, addresses[lanes.trailing_zeros() as usize]);
                prop_assert_eq!(cost, access_cost(&addresses, lanes, size));
            }
        }
    }
}
