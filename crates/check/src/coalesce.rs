//! Global-memory coalescing: requests, sectors and lines per instruction.
//!
//! The memory system moves global data in 32-byte *sectors* of 128-byte *lines*. A
//! warp-level global load or store is one *request* (Nsight Compute's
//! `l1tex__t_requests_pipe_lsu_mem_global_op_{ld,st}`, also for 8- and 16-byte
//! accesses); it costs as many sectors as the distinct 32-byte sectors its active lanes'
//! bytes fall in (`l1tex__t_sectors_pipe_lsu_mem_global_op_{ld,st}`).
//!
//! Following GPUDrano (Alur et al. 2017, §5) an access is *uncoalesced* when it needs far
//! more sectors than its data does. With S the sectors of one execution and
//! I = ceil(distinct bytes / 32) the fewest sectors that could hold the same bytes, the
//! execution is uncoalesced when S ≥ 2·I and S ≥ I + 2 (so a contiguous run shifted off
//! sector boundaries, S = I + 1, is not). A finding (`uncoalesced-access`) is reported
//! per source line with at least one uncoalesced execution; its degree is the largest S
//! over those executions.
//!
//! **Components of one record.** clang often splits a copy of a vector record into
//! several narrower accesses (a `float4` into two 8-byte loads, a `uchar4` into byte
//! loads of the components used), where nvcc emits one vector access. Each piece alone
//! touches every sector of the record with half (or a quarter) of the bytes, which by the
//! rule above looks uncoalesced although the source access is not. So the decision is
//! made per *record access*: consecutive candidate executions of one warp (same function,
//! instructions at most [`SIBLING_DISTANCE`] apart, same kind and lanes) whose every lane
//! stays in the same aligned 16-byte granule as in the first are *siblings*; they are
//! judged together on the union of their bytes, and flagged only when the union is
//! uncoalesced ([`Siblings`]) — or when the siblings come from different source lines
//! (`re[i] = z[2*i]; im[i] = z[2*i+1];` are two source accesses, each uncoalesced).
//! Counts of requests and sectors stay per instruction, as
//! the hardware counts them. Atomics are not counted (they are served by the L2's atomic
//! units, not as L1 requests). Generic accesses that resolve to global memory count as
//! global accesses.

use warpcheck_emu::{MemEvent, MemKind, Observer, ObserverFactory};
use warpcheck_ir::modifiers::MemSpace;
use warpcheck_report::{Code, Finding, Location, Severity};

use crate::{
    Check, CheckOptions, KernelTotals, LaunchCheck, LaunchInfo, ReportCx, Site, same_line,
};

/// What one warp-level global access touches.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct AccessShape {
    /// Distinct 32-byte sectors.
    pub sectors: u32,
    /// Distinct 128-byte lines.
    pub lines: u32,
    /// Distinct bytes.
    pub bytes: u32,
}

impl AccessShape {
    /// The fewest sectors that could hold the bytes: ceil(bytes / 32).
    pub fn ideal_sectors(&self) -> u32 {
        self.bytes.div_ceil(32)
    }

    /// S ≥ 2·I and S ≥ I + 2.
    pub fn is_uncoalesced(&self) -> bool {
        let ideal = self.ideal_sectors();
        self.sectors >= 2 * ideal && self.sectors >= ideal + 2
    }
}

/// Counts the sectors, lines and distinct bytes of one warp-level access.
pub fn access_shape(addresses: &[u64; 32], lanes: u32, size: u32) -> AccessShape {
    if let Some(shape) = contiguous_shape(addresses, lanes, size) {
        return shape;
    }
    let size = u64::from(size.max(1));
    // Lanes usually access ascending addresses: then one sweep over the lanes in order
    // counts everything; otherwise the lanes' starts are sorted first.
    let mut ascending = true;
    let mut previous = 0u64;
    let mut active = lanes;
    while active != 0 {
        let lane = active.trailing_zeros() as usize;
        active &= active - 1;
        if addresses[lane] < previous {
            ascending = false;
            break;
        }
        previous = addresses[lane];
    }
    if ascending {
        return sweep(Lanes(lanes).map(|l| addresses[l]), size);
    }
    let mut starts = [0u64; 32];
    let mut n = 0;
    for lane in Lanes(lanes) {
        starts[n] = addresses[lane];
        n += 1;
    }
    let starts = &mut starts[..n];
    starts.sort_unstable();
    sweep(starts.iter().copied(), size)
}

/// The shape of the commonest access, all 32 lanes on consecutive elements, in closed
/// form (the test vectorises); `None` for any other access.
#[inline(always)]
pub fn contiguous_shape(addresses: &[u64; 32], lanes: u32, size: u32) -> Option<AccessShape> {
    let size = u64::from(size.max(1));
    if lanes != u32::MAX {
        return None;
    }
    let base = addresses[0];
    let contiguous = (0..32u64).fold(true, |ok, l| {
        ok & (addresses[l as usize] == base.wrapping_add(l * size))
    });
    let end = base.checked_add(32 * size).filter(|_| contiguous)?;
    Some(AccessShape {
        sectors: ((end - 1) / 32 - base / 32 + 1) as u32,
        lines: ((end - 1) / 128 - base / 128 + 1) as u32,
        bytes: (32 * size) as u32,
    })
}

/// The active lanes of a mask, in ascending order.
struct Lanes(u32);

impl Iterator for Lanes {
    type Item = usize;
    #[inline(always)]
    fn next(&mut self) -> Option<usize> {
        if self.0 == 0 {
            return None;
        }
        let lane = self.0.trailing_zeros() as usize;
        self.0 &= self.0 - 1;
        Some(lane)
    }
}

/// Counts sectors, lines and distinct bytes of `size`-byte ranges given by ascending
/// starts: each range counts the sectors and lines past the last one counted (ranges of
/// one size sorted by start have sorted ends, so overlaps are always with the previous
/// ranges' tail).
#[inline(always)]
fn sweep(starts: impl Iterator<Item = u64>, size: u64) -> AccessShape {
    let mut shape = AccessShape {
        sectors: 0,
        lines: 0,
        bytes: 0,
    };
    // The first sector and line not yet counted, and the end of the bytes counted.
    let (mut next_sector, mut next_line, mut covered_to) = (0u64, 0u64, 0u64);
    for start in starts {
        let end = start.saturating_add(size);
        let from = start.max(covered_to);
        if end > from {
            shape.bytes += (end - from) as u32;
            covered_to = end;
        }
        let (first, last) = ((start / 32).max(next_sector), (end - 1) / 32);
        if last >= first {
            shape.sectors += (last - first + 1) as u32;
            next_sector = last + 1;
        }
        let (first, last) = ((start / 128).max(next_line), (end - 1) / 128);
        if last >= first {
            shape.lines += (last - first + 1) as u32;
            next_line = last + 1;
        }
    }
    shape
}

/// Instructions at most this far apart (in the same function) can be components of one
/// record access.
pub const SIBLING_DISTANCE: u32 = 16;

/// Candidate executions of one warp that may be the components of one record access (see
/// the module docs): per lane the aligned 16-byte granule and a mask of its bytes touched.
pub(crate) struct Siblings {
    pub active: bool,
    func: warpcheck_ir::FuncId,
    last_inst: u32,
    pub lanes: u32,
    pub granule: [u64; 32],
    pub bytes: [u16; 32],
    /// The members: a site index of the observer and the execution's own degree.
    pub members: Vec<(usize, u32, u32)>,
}

/// Drops every pending sibling group (a block that ended early may leave some).
pub(crate) fn idle_groups(groups: &mut [Option<Box<[Siblings; 2]>>]) {
    for g in groups.iter_mut().flatten().flat_map(|g| g.iter_mut()) {
        g.active = false;
        g.members.clear();
    }
}

impl Siblings {
    pub fn new() -> Siblings {
        Siblings {
            active: false,
            func: warpcheck_ir::FuncId::from_u32(0),
            last_inst: 0,
            lanes: 0,
            granule: [0; 32],
            bytes: [0; 32],
            members: Vec::new(),
        }
    }

    /// Whether every active lane of `e` stays in one aligned 16-byte granule.
    fn lane_granules(e: &MemEvent<'_>) -> bool {
        let size = u64::from(e.size.max(1));
        let mut m = e.lanes;
        while m != 0 {
            let l = m.trailing_zeros() as usize;
            m &= m - 1;
            let a = e.addresses[l];
            if a / 16 != (a + size - 1) / 16 {
                return false;
            }
        }
        true
    }

    /// Whether `e` is a sibling of the group.
    pub fn joins(&self, e: &MemEvent<'_>) -> bool {
        if !self.active
            || e.func != self.func
            || e.lanes != self.lanes
            || e.inst.as_u32().abs_diff(self.last_inst) > SIBLING_DISTANCE
            || !Siblings::lane_granules(e)
        {
            return false;
        }
        let mut m = e.lanes;
        while m != 0 {
            let l = m.trailing_zeros() as usize;
            m &= m - 1;
            if e.addresses[l] / 16 * 16 != self.granule[l] {
                return false;
            }
        }
        true
    }

    /// Starts a group with `e`; `false` (and no group) when `e` crosses granules.
    pub fn start(&mut self, e: &MemEvent<'_>) -> bool {
        self.members.clear();
        self.active = Siblings::lane_granules(e);
        if !self.active {
            return false;
        }
        self.func = e.func;
        self.lanes = e.lanes;
        self.bytes = [0; 32];
        let mut m = e.lanes;
        while m != 0 {
            let l = m.trailing_zeros() as usize;
            m &= m - 1;
            self.granule[l] = e.addresses[l] / 16 * 16;
        }
        self.add(e);
        true
    }

    /// Adds a sibling's bytes.
    pub fn add(&mut self, e: &MemEvent<'_>) {
        self.last_inst = e.inst.as_u32();
        let size = e.size.clamp(1, 16);
        let mask = if size == 16 {
            u16::MAX
        } else {
            (1u16 << size) - 1
        };
        let mut m = e.lanes;
        while m != 0 {
            let l = m.trailing_zeros() as usize;
            m &= m - 1;
            self.bytes[l] |= mask << (e.addresses[l] % 16);
        }
    }

    /// The shape of the union of the members' bytes.
    pub fn union_shape(&self) -> AccessShape {
        let mut g = [(0u64, 0u16); 32];
        let mut n = 0;
        let mut m = self.lanes;
        while m != 0 {
            let l = m.trailing_zeros() as usize;
            m &= m - 1;
            g[n] = (self.granule[l], self.bytes[l]);
            n += 1;
        }
        let g = &mut g[..n];
        g.sort_unstable_by_key(|x| x.0);
        let mut shape = AccessShape {
            sectors: 0,
            lines: 0,
            bytes: 0,
        };
        let (mut last_sector, mut last_line) = (None, None);
        let mut i = 0;
        while i < g.len() {
            let base = g[i].0;
            let mut mask = 0u16;
            while i < g.len() && g[i].0 == base {
                mask |= g[i].1;
                i += 1;
            }
            if mask == 0 {
                continue;
            }
            shape.bytes += mask.count_ones();
            if last_sector != Some(base / 32) {
                shape.sectors += 1;
                last_sector = Some(base / 32);
            }
            if last_line != Some(base / 128) {
                shape.lines += 1;
                last_line = Some(base / 128);
            }
        }
        shape
    }
}

/// A warp access's address pattern up to a shift by a multiple of `period` bytes: the
/// active lanes, the width, the first active lane's address modulo `period` and every
/// active lane's offset from it. Sectors and lines (32 and 128 bytes) are the same for
/// two accesses whose patterns are equal with a period of 128; bank conflicts (4-byte
/// words modulo 32 banks) with a period of 4, since a shift by `4k` bytes moves every
/// word `k` banks on and so only permutes the banks. A site's results can then be reused
/// when its pattern recurs (a loop walking a tile; Park, Sen, Iancu §4.1 cache per-site
/// results the same way).
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) struct Pattern {
    lanes: u32,
    size: u32,
    phase: u64,
    offsets: [u64; 32],
}

impl Pattern {
    #[inline(always)]
    pub fn of(addresses: &[u64; 32], lanes: u32, size: u32, period: u64) -> Pattern {
        let base = addresses[lanes.trailing_zeros() as usize & 31];
        let mut offsets = [0u64; 32];
        for (l, o) in offsets.iter_mut().enumerate() {
            // Branch-free so that it vectorises; inactive lanes are 0.
            let active = 0u64.wrapping_sub(u64::from(lanes & LANE_BIT[l] != 0));
            *o = addresses[l].wrapping_sub(base) & active;
        }
        Pattern {
            lanes,
            size,
            phase: base % period,
            offsets,
        }
    }

    /// Whether `Pattern::of(addresses, lanes, size, period) == *self`, in one
    /// branch-free pass over the lanes without building the other pattern (`base` is the
    /// first active lane's address).
    #[inline(always)]
    fn matches(
        &self,
        addresses: &[u64; 32],
        lanes: u32,
        size: u32,
        base: u64,
        period: u64,
    ) -> bool {
        if self.lanes != lanes || self.size != size || self.phase != base % period {
            return false;
        }
        let mut difference = 0u64;
        for (l, (&a, &o)) in addresses.iter().zip(self.offsets.iter()).enumerate() {
            let active = 0u64.wrapping_sub(u64::from(lanes & LANE_BIT[l] != 0));
            difference |= (a.wrapping_sub(base) & active) ^ o;
        }
        difference == 0
    }
}

/// Bit `l` for lane `l`: testing `lanes & LANE_BIT[l]` instead of shifting `lanes` by
/// the lane number keeps the lane loops free of per-lane variable shifts, which SSE2
/// (the baseline x86-64 target) lacks, so they vectorise.
pub(crate) const LANE_BIT: [u32; 32] = {
    let mut bits = [0u32; 32];
    let mut l = 0;
    while l < 32 {
        bits[l] = 1 << l;
        l += 1;
    }
    bits
};

/// Per site entry, the last few patterns seen (up to a shift by a multiple of `PERIOD`
/// bytes, see [`Pattern`]) with their results and the first active lane's address of
/// the access that computed each. Several per site, because a loop may cycle through a
/// few patterns (a tree reduction halves its stride every level); the search starts
/// after the last hit, where the next pattern of such a cycle is.
///
/// The results are pure functions of the pattern, so one memo can serve every block a
/// host thread runs, whatever kernel or observer: each host thread keeps one (see
/// [`Memo::swap_with`]) and lends it to the observer of the block it runs. Keeping it in the
/// observers instead left it cold: a chunk's hundreds of observers each had their own,
/// last touched hundreds of blocks earlier, and the probes stalled on cache misses (13%
/// of the scan benchmark's checked run).
pub(crate) struct Memo<V, const PERIOD: u64> {
    slots: Vec<Ways<V>>,
}

/// The remembered patterns of one site.
struct Ways<V> {
    entries: Vec<(Pattern, V, u64)>,
    /// The entry of the last hit or insertion.
    last: usize,
}

/// Patterns remembered per site.
const WAYS: usize = 16;

impl<V, const PERIOD: u64> Default for Memo<V, PERIOD> {
    fn default() -> Self {
        Memo::new()
    }
}

impl<V, const PERIOD: u64> Memo<V, PERIOD> {
    pub const fn new() -> Self {
        Memo { slots: Vec::new() }
    }

    /// Swaps the host thread's memo in `home` with `self`: at a block's start the
    /// observer borrows the thread's memo (leaving its own, empty one), at the block's end
    /// it gives it back the same way. A block runs on one host thread from start to end,
    /// so the memo returns where it came from; a block that never reaches its end keeps
    /// the memo, and the thread starts a fresh one (only speed is lost).
    pub fn swap_with(&mut self, home: &'static std::thread::LocalKey<std::cell::Cell<Self>>) {
        home.with(|m| {
            let theirs = m.take();
            m.set(std::mem::replace(self, theirs));
        });
    }
    /// The result for the access pattern of `addresses`, `lanes` and `size` at site entry
    /// `i`, and the first active lane's address of the access it was computed for: a
    /// remembered one if the pattern is among the site's, else `compute()` (remembered,
    /// in place of the oldest when the site has [`WAYS`]).
    #[inline(always)]
    pub fn get(
        &mut self,
        i: usize,
        (addresses, lanes, size): (&[u64; 32], u32, u32),
        compute: impl FnOnce() -> V,
    ) -> (&V, u64) {
        if self.slots.len() <= i {
            self.slots.resize_with(i + 1, || Ways {
                entries: Vec::new(),
                last: 0,
            });
        }
        let base = addresses[lanes.trailing_zeros() as usize & 31];
        let ways = &mut self.slots[i];
        let n = ways.entries.len();
        // The last hit first (a pattern that repeats), then its successor (a cycle of
        // patterns), then the rest in order.
        let mut j = ways.last;
        let mut hit = None;
        for _ in 0..n {
            let (pattern, _, _) = &ways.entries[j];
            if pattern.matches(addresses, lanes, size, base, PERIOD) {
                hit = Some(j);
                break;
            }
            j += 1;
            if j == n {
                j = 0;
            }
        }
        if let Some(j) = hit {
            ways.last = j;
            let (_, v, at) = &ways.entries[j];
            return (v, *at);
        }
        let v = compute();
        let entry = (Pattern::of(addresses, lanes, size, PERIOD), v, base);
        let j = if n < WAYS {
            ways.entries.push(entry);
            n
        } else {
            let j = if ways.last + 1 == n { 0 } else { ways.last + 1 };
            ways.entries[j] = entry;
            j
        };
        ways.last = j;
        (&ways.entries[j].1, base)
    }
}

/// Per-instruction entries of one block observer, found without hashing: instructions
/// of the first function seen (the kernel, almost always) through a dense index by
/// instruction number, others by a linear search.
pub(crate) struct SiteTable<T> {
    pub entries: Vec<(Site, T)>,
    dense_func: Option<warpcheck_ir::FuncId>,
    /// Entry index + 1 per instruction number of `dense_func`; 0 for none.
    dense: Vec<u32>,
}

impl<T> Default for SiteTable<T> {
    fn default() -> Self {
        SiteTable {
            entries: Vec::new(),
            dense_func: None,
            dense: Vec::new(),
        }
    }
}

impl<T> SiteTable<T> {
    /// The entry of `site`, created with `make` when new. Called for every event: the
    /// look-up of a known kernel instruction is inlined, the rest is not.
    #[inline(always)]
    pub fn index(&mut self, site: Site, make: impl FnOnce() -> T) -> usize {
        if self.dense_func == Some(site.0)
            && let Some(&e) = self.dense.get(site.1.as_u32() as usize)
            && e != 0
        {
            return e as usize - 1;
        }
        self.index_slow(site, make)
    }

    /// [`SiteTable::index`] for a new site, or one outside the dense function.
    #[cold]
    #[inline(never)]
    fn index_slow(&mut self, site: Site, make: impl FnOnce() -> T) -> usize {
        let func = *self.dense_func.get_or_insert(site.0);
        if func == site.0 {
            let i = site.1.as_u32() as usize;
            if let Some(&e) = self.dense.get(i)
                && e != 0
            {
                return e as usize - 1;
            }
            if self.dense.len() <= i {
                self.dense.resize(i + 1, 0);
            }
            self.entries.push((site, make()));
            self.dense[i] = self.entries.len() as u32;
            return self.entries.len() - 1;
        }
        match self.entries.iter().position(|(s, _)| *s == site) {
            Some(i) => i,
            None => {
                self.entries.push((site, make()));
                self.entries.len() - 1
            }
        }
    }
}

/// Statistics of one global load or store instruction.
#[derive(Clone, Debug, Default)]
pub struct SiteStats {
    pub is_store: bool,
    /// Bytes per lane.
    pub size: u32,
    pub requests: u64,
    pub sectors: u64,
    /// Sum over requests of ceil(distinct bytes / 32).
    pub ideal_sectors: u64,
    pub lines: u64,
    pub uncoalesced_requests: u64,
    /// The largest S of an uncoalesced execution (0 if none), and that execution's I.
    pub worst_sectors: u32,
    pub worst_ideal: u32,
    /// The active lanes of the worst execution.
    pub worst_lanes: u32,
    /// Executions that were uncoalesced alone but not together with their siblings, the
    /// worst of them (sectors, ideal, lanes), and the sibling instructions: they count as
    /// uncoalesced when no sibling is on the same source line (decided in the report).
    pub cleared_requests: u64,
    pub cleared_worst: (u32, u32, u32),
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

    fn count(&mut self, shape: &AccessShape) {
        self.requests += 1;
        self.sectors += u64::from(shape.sectors);
        self.ideal_sectors += u64::from(shape.ideal_sectors());
        self.lines += u64::from(shape.lines);
    }

    fn flag(&mut self, sectors: u32, ideal: u32, lanes: u32) {
        self.uncoalesced_requests += 1;
        if sectors > self.worst_sectors {
            self.worst_sectors = sectors;
            self.worst_ideal = ideal;
            self.worst_lanes = lanes.count_ones();
        }
    }

    fn clear(
        &mut self,
        sectors: u32,
        ideal: u32,
        lanes: u32,
        partners: impl Iterator<Item = Site>,
    ) {
        self.cleared_requests += 1;
        if sectors > self.cleared_worst.0 {
            self.cleared_worst = (sectors, ideal, lanes.count_ones());
        }
        for p in partners {
            if !self.partners.contains(&p) {
                self.partners.push(p);
            }
        }
    }

    /// These statistics with the cleared executions counted as uncoalesced.
    fn with_cleared(&self) -> SiteStats {
        let mut s = self.clone();
        s.uncoalesced_requests += s.cleared_requests;
        let (sectors, ideal, lanes) = s.cleared_worst;
        if sectors > s.worst_sectors {
            s.worst_sectors = sectors;
            s.worst_ideal = ideal;
            s.worst_lanes = lanes;
        }
        s.cleared_requests = 0;
        s
    }

    fn merge(&mut self, o: &SiteStats) {
        self.is_store = o.is_store;
        self.size = o.size;
        self.cleared_requests += o.cleared_requests;
        if o.cleared_worst.0 > self.cleared_worst.0 {
            self.cleared_worst = o.cleared_worst;
        }
        for p in &o.partners {
            if !self.partners.contains(p) {
                self.partners.push(*p);
            }
        }
        self.requests += o.requests;
        self.sectors += o.sectors;
        self.ideal_sectors += o.ideal_sectors;
        self.lines += o.lines;
        self.uncoalesced_requests += o.uncoalesced_requests;
        if o.worst_sectors > self.worst_sectors {
            self.worst_sectors = o.worst_sectors;
            self.worst_ideal = o.worst_ideal;
            self.worst_lanes = o.worst_lanes;
        }
    }

    fn per_request(&self, n: u64) -> f64 {
        if self.requests == 0 {
            0.0
        } else {
            n as f64 / self.requests as f64
        }
    }

    pub fn sectors_per_request(&self) -> f64 {
        self.per_request(self.sectors)
    }

    pub fn ideal_per_request(&self) -> f64 {
        self.per_request(self.ideal_sectors)
    }

    pub fn lines_per_request(&self) -> f64 {
        self.per_request(self.lines)
    }
}

#[derive(Clone, Copy, Debug, Default)]
pub struct Totals {
    load_requests: u64,
    store_requests: u64,
    load_sectors: u64,
    store_sectors: u64,
}

/// Coalescing statistics of a session, per kernel and instruction.
pub type CoalesceState = crate::PerSite<Totals, SiteStats>;

impl Check for CoalesceState {
    type Launch<'s> = CoalesceLaunch<'s>;
    type Block = CoalesceBlock;

    fn new(_options: &CheckOptions) -> CoalesceState {
        CoalesceState::default()
    }

    fn launch(&mut self, info: &LaunchInfo, _seq: u64) -> CoalesceLaunch<'_> {
        let kernel = self.kernel_index(&info.kernel_name);
        CoalesceLaunch {
            state: self,
            kernel,
        }
    }

    /// One `uncoalesced-access` warning per kernel and source line with an uncoalesced
    /// execution.
    fn findings(&self, cx: &ReportCx) -> Vec<Finding> {
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
                let s = if s.cleared_requests > 0 && !sibling_here {
                    s.with_cleared()
                } else {
                    s.clone()
                };
                (key, s)
            })
            .filter(|(_, s)| s.uncoalesced_requests > 0)
            .collect();
        sites.sort_by_key(|((k, site), _)| (*k, *site));
        let mut lines: Vec<(u32, Option<Location>, Vec<SiteStats>)> = Vec::new();
        for ((kernel, site), stats) in sites {
            let loc = cx.locate(*site);
            match lines
                .iter_mut()
                .find(|(k, l, _)| *k == *kernel && same_line(l, &loc))
            {
                Some((_, _, group)) => group.push(stats),
                None => lines.push((*kernel, loc, vec![stats])),
            }
        }
        let mut out = Vec::new();
        for (kernel, loc, group) in lines {
            let Some(worst) = group.iter().max_by_key(|s| s.worst_sectors) else {
                continue;
            };
            let what = if worst.is_store { "store" } else { "load" };
            let mut f = Finding::new(
                Code::UncoalescedAccess,
                Severity::Warning,
                format!(
                    "uncoalesced global {what}: a warp touches {} sectors where {} would do",
                    worst.worst_sectors, worst.worst_ideal
                ),
            )
            .degree(worst.worst_sectors)
            .kernel(self.kernels[kernel as usize].clone());
            if let Some(loc) = loc {
                f = f.at(
                    loc,
                    format!(
                        "{} active lanes touch {} 32-byte sectors",
                        worst.worst_lanes, worst.worst_sectors
                    ),
                );
            }
            // One note per kind of access on the line (an unrolled loop has several
            // instructions of one kind).
            let mut kinds: Vec<(SiteStats, usize)> = Vec::new();
            for s in &group {
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
                let what = if *n > 1 {
                    format!("{what} ({n} instructions)")
                } else {
                    what.to_string()
                };
                let ratio = if s.ideal_sectors == 0 {
                    0.0
                } else {
                    s.sectors as f64 / s.ideal_sectors as f64
                };
                f = f.note(format!(
                    "{what} of {} bytes per lane: {} requests, {:.2} sectors per request \
                     (ideal {:.2}, {ratio:.1}x), {:.2} 128-byte lines per request; \
                     {} of {} requests uncoalesced",
                    s.size,
                    s.requests,
                    s.sectors_per_request(),
                    s.ideal_per_request(),
                    s.lines_per_request(),
                    s.uncoalesced_requests,
                    s.requests
                ));
            }
            f.occurrences = group.iter().map(|s| s.uncoalesced_requests).sum();
            f = f.help(
                "let consecutive lanes (threadIdx.x) access consecutive addresses: swap the \
                 index roles, use a structure of arrays, or stage the data through shared \
                 memory",
            );
            out.push(f);
        }
        out
    }

    /// Adds this checker's counts for `k.kernel` to `k`.
    fn add_totals(&self, k: &mut KernelTotals) {
        if let Some(i) = self.kernels.iter().position(|n| *n == k.kernel) {
            let t = self.totals[i];
            k.global_load_requests += t.load_requests;
            k.global_store_requests += t.store_requests;
            k.global_load_sectors += t.load_sectors;
            k.global_store_sectors += t.store_sectors;
        }
    }
}

pub struct CoalesceLaunch<'s> {
    state: &'s mut CoalesceState,
    kernel: u32,
}

impl LaunchCheck for CoalesceLaunch<'_> {}

thread_local! {
    /// The host thread's coalescing memo (see [`Memo`]).
    static MEMO: std::cell::Cell<Memo<AccessShape, 128>> = const { std::cell::Cell::new(Memo::new()) };
}

/// One block's per-instruction statistics (a small vector searched from the last hit),
/// the host thread's memo while the block runs, and per warp the pending sibling groups
/// of loads and stores.
#[derive(Default)]
pub struct CoalesceBlock {
    sites: SiteTable<SiteStats>,
    memo: Memo<AccessShape, 128>,
    groups: Vec<Option<Box<[Siblings; 2]>>>,
    /// Recycled for a block that has not started: the counts are zeroed when it starts,
    /// on the host thread that runs it (see [`crate::Launch`]).
    stale: bool,
}

impl CoalesceBlock {
    /// Ready for the next block: counts zeroed, sites kept (see
    /// [`ObserverFactory::recycle`]).
    fn recycle(&mut self) {
        for (_, stats) in &mut self.sites.entries {
            stats.reset();
        }
        idle_groups(&mut self.groups);
    }

    #[inline(always)]
    fn site_index(&mut self, site: Site, is_store: bool, size: u32) -> usize {
        self.sites.index(site, || SiteStats {
            is_store,
            size,
            ..SiteStats::default()
        })
    }

    /// Judges a finished sibling group on the union of its bytes.
    fn flush(sites: &mut [(Site, SiteStats)], g: &mut Siblings) {
        if !g.active {
            return;
        }
        g.active = false;
        let union = g.union_shape();
        if union.is_uncoalesced() || g.members.len() == 1 {
            for &(i, sectors, ideal) in &g.members {
                sites[i].1.flag(sectors, ideal, g.lanes);
            }
        } else {
            for (k, &(i, sectors, ideal)) in g.members.iter().enumerate() {
                let partners: Vec<Site> = g
                    .members
                    .iter()
                    .enumerate()
                    .filter(|(j, m)| *j != k && m.0 != i)
                    .map(|(_, m)| sites[m.0].0)
                    .collect();
                sites[i]
                    .1
                    .clear(sectors, ideal, g.lanes, partners.into_iter());
            }
        }
        g.members.clear();
    }
}

impl Observer for CoalesceBlock {
    fn on_block_start(&mut self, _block: [u32; 3], _threads: u32) {
        if std::mem::take(&mut self.stale) {
            self.recycle();
        }
        self.memo.swap_with(&MEMO);
    }

    #[inline(always)]
    fn on_memory(&mut self, e: &MemEvent<'_>) {
        if e.space != MemSpace::Global || e.lanes == 0 {
            return;
        }
        let is_store = match e.kind {
            MemKind::Load => false,
            MemKind::Store => true,
            MemKind::Atomic { .. } => return,
        };
        let i = self.site_index((e.func, e.inst), is_store, e.size);
        // Contiguous warps are counted in closed form; other shapes are remembered.
        let shape = match contiguous_shape(e.addresses, e.lanes, e.size) {
            Some(shape) => shape,
            None => {
                *self
                    .memo
                    .get(i, (e.addresses, e.lanes, e.size), || {
                        access_shape(e.addresses, e.lanes, e.size)
                    })
                    .0
            }
        };
        self.sites.entries[i].1.count(&shape);
        if !shape.is_uncoalesced() {
            return;
        }
        let w = e.warp as usize;
        if self.groups.len() <= w {
            self.groups.resize_with(w + 1, || None);
        }
        let groups =
            self.groups[w].get_or_insert_with(|| Box::new([Siblings::new(), Siblings::new()]));
        let g = &mut groups[is_store as usize];
        let member = (i, shape.sectors, shape.ideal_sectors());
        if g.joins(e) {
            g.add(e);
            g.members.push(member);
            return;
        }
        CoalesceBlock::flush(&mut self.sites.entries, g);
        if g.start(e) {
            g.members.push(member);
        } else {
            self.sites.entries[i]
                .1
                .flag(shape.sectors, shape.ideal_sectors(), e.lanes);
        }
    }

    fn on_block_end(&mut self, _block: [u32; 3]) {
        for groups in self.groups.iter_mut().flatten() {
            for g in groups.iter_mut() {
                CoalesceBlock::flush(&mut self.sites.entries, g);
            }
        }
        self.memo.swap_with(&MEMO);
    }
}

impl ObserverFactory for CoalesceLaunch<'_> {
    type Observer = CoalesceBlock;
    fn create(&self, _block: [u32; 3]) -> CoalesceBlock {
        CoalesceBlock::default()
    }
    fn recycle(&self, o: &mut CoalesceBlock, _block: [u32; 3]) {
        o.stale = true;
    }

    fn merge(&mut self, observers: &mut [([u32; 3], CoalesceBlock)]) {
        let k = self.kernel;
        for (_, block) in observers {
            for (site, stats) in &block.sites.entries {
                if stats.requests == 0 {
                    // Kept from an earlier block of a recycled observer.
                    continue;
                }
                let totals = &mut self.state.totals[k as usize];
                if stats.is_store {
                    totals.store_requests += stats.requests;
                    totals.store_sectors += stats.sectors;
                } else {
                    totals.load_requests += stats.requests;
                    totals.load_sectors += stats.sectors;
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

    /// Sectors, lines and bytes counted one byte at a time.
    fn naive(addresses: &[u64; 32], lanes: u32, size: u32) -> AccessShape {
        let mut bytes = std::collections::BTreeSet::new();
        for (l, &a) in addresses.iter().enumerate() {
            if lanes >> l & 1 == 1 {
                for b in 0..u64::from(size.max(1)) {
                    bytes.insert(a + b);
                }
            }
        }
        let sectors: std::collections::BTreeSet<u64> = bytes.iter().map(|b| b / 32).collect();
        let lines: std::collections::BTreeSet<u64> = bytes.iter().map(|b| b / 128).collect();
        AccessShape {
            sectors: sectors.len() as u32,
            lines: lines.len() as u32,
            bytes: bytes.len() as u32,
        }
    }

    proptest! {
        #[test]
        fn shape_counts_like_byte_sets(
            base in 0u64..4096,
            stride in 0u64..300,
            jitter in proptest::collection::vec(0u64..64, 32),
            shuffle in any::<bool>(),
            lanes in prop_oneof![Just(u32::MAX), any::<u32>()],
            size in prop_oneof![Just(1u32), Just(2), Just(4), Just(8), Just(16)],
        ) {
            let mut addresses = [0u64; 32];
            for (l, a) in addresses.iter_mut().enumerate() {
                let l = if shuffle { (l * 7) % 32 } else { l };
                *a = base + stride * l as u64 + jitter[l] * u64::from(stride == 0);
            }
            let a = access_shape(&addresses, lanes, size);
            let b = naive(&addresses, lanes, size);
            prop_assert_eq!((a.sectors, a.lines, a.bytes), (b.sectors, b.lines, b.bytes));
        }
    }
}
