//! Data races on shared and global memory.
//!
//! # Semantics
//!
//! Two accesses race when they touch the same byte, come from different threads, at least
//! one writes, they are not both *strong* (atomics, and `ld`/`st` that are `.volatile`,
//! `.relaxed`, `.acquire` or `.release`: PTX ISA §8 "morally strong" operations never form
//! a data race with each other), and nothing orders them:
//!
//! * **CTA barriers** (`bar.sync`/`barrier.sync`/`bar.red` with their id and thread
//!   count, `bar.arrive`): everything a thread did before arriving happens before
//!   everything the waiting threads do after the barrier releases. `bar.arrive` only
//!   publishes (its thread does not wait, so it learns nothing).
//! * **`__syncwarp(mask)`** (`bar.warp.sync`) orders the member lanes of one warp. The
//!   warp collectives (`shfl.sync`, `vote.sync`, …) exchange values but do not order
//!   memory.
//! * **Within a warp**, by the [`IntraWarp`] model: with independent thread scheduling
//!   (the default, sm_70+) lanes are unordered like any two threads; with lock-step warps
//!   a warp's instructions are ordered and only lanes of one instruction writing the same
//!   byte race.
//! * **Between blocks** nothing orders plain accesses (the kernel boundary does: races
//!   never span launches). Fences (`membar`/`fence`) are not modelled as ordering, so
//!   flag-based synchronisation between blocks (write data, `__threadfence()`, set a flag
//!   atomically; another block reads the flag, then the data) is reported as a race on
//!   the data: the policy is to trust only barriers and atomics.
//!
//! # Algorithm
//!
//! Happens-before is tracked with vector clocks at two levels, which keeps barriers cheap
//! for blocks of up to 1024 threads: each warp has a clock vector over the block's warps
//! (joined at barriers), and under independent scheduling each lane has a clock vector
//! over its warp's lanes (joined at `__syncwarp` and barriers). An access records its
//! warp's own warp-clock and its lane's own lane-clock; a later access by another warp is
//! ordered after it iff its warp's vector has caught up with the recorded warp-clock, and
//! the same for lanes of one warp.
//!
//! Each block keeps a log of its memory events (one record per warp-instruction, 24 bytes;
//! re-executions between two synchronisations reuse their record) and a shadow cell per
//! 4-byte word touched (8 bytes: the last write and the last read, as references
//! `event << 5 | lane` into the log), or per byte for words that sub-word accesses split:
//! 2 bytes of shadow per byte of memory, at most 8 where words are split ([`Page`]).
//! Shared memory's shadow is dense; global memory's is paged and lazily allocated. A read
//! replaces the recorded read (so a write races with the latest unordered read of another
//! thread; earlier readers of the same word in the same interval are not remembered, which
//! can hide a second witness but not a racing pair of instructions that keeps recurring).
//! A write that a thread overwrites itself in the same interval at another instruction is
//! kept in a sparse side table (flagged in the cell), so it still races with another
//! thread's later access.
//!
//! Races between blocks are found when the blocks' observers are merged (in block order):
//! at its end each block's global shadow becomes its summary (per unit one write and one
//! read, its references rewritten in place to name (site, kind) pairs and threads, so the
//! event log can go) and is compared with the summary of all earlier blocks (preferring
//! plain over strong accesses), kept at word granularity until an access splits a word
//! (2 to 8 bytes of shadow per byte).
//!
//! On big launches only a sample of blocks is watched (`crate::sample`: the edges of the
//! grid and pairs of neighbouring blocks, 256 by default); the other blocks run unobserved
//! by this checker and a `race-check-sampled` note says how many were watched.
//!
//! Each distinct race (memory space, pair of instructions with their access kinds) is
//! reported once with its first witness and an occurrence count (one per racing lane
//! access).

use rustc_hash::FxHashMap as HashMap;

use warpcheck_emu::{
    BarrierEvent, MemEvent, MemKind, Observer, ObserverFactory, RunOutcome, WarpSyncEvent,
};
use warpcheck_ir::modifiers::MemSpace;
use warpcheck_ir::{EntityRef, FuncId, InstId};
use warpcheck_report::{Code, Finding, Location, Severity};

use crate::{BlockSample, IntraWarp, LaunchInfo, ReportCx, Site, fmt3, shared_name};
pub use warpcheck_report::race::Scope;

/// What an access does, as bits: write, strong, atomic.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct AccessKind(u8);

impl AccessKind {
    const WRITE: u8 = 1;
    const STRONG: u8 = 2;
    const ATOMIC: u8 = 4;

    fn of(kind: MemKind, ordered: bool) -> AccessKind {
        match kind {
            MemKind::Load => AccessKind(if ordered { Self::STRONG } else { 0 }),
            MemKind::Store => AccessKind(Self::WRITE | if ordered { Self::STRONG } else { 0 }),
            MemKind::Atomic { .. } => AccessKind(Self::WRITE | Self::STRONG | Self::ATOMIC),
        }
    }

    pub fn is_write(self) -> bool {
        self.0 & Self::WRITE != 0
    }

    pub fn is_strong(self) -> bool {
        self.0 & Self::STRONG != 0
    }

    /// Whether two accesses to one byte by different unordered threads race.
    fn conflicts(self, other: AccessKind) -> bool {
        (self.is_write() || other.is_write()) && !(self.is_strong() && other.is_strong())
    }

    pub fn describe(self) -> &'static str {
        match self.0 {
            0 => "read",
            1 => "write",
            2 => "volatile read",
            3 => "volatile write",
            _ => "atomic",
        }
    }
}

/// One side of a race.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Access {
    pub site: Site,
    pub kind: AccessKind,
    pub block: [u32; 3],
    /// Linear thread index in the block.
    pub thread: u32,
}

/// A distinct race, with its first witness.
#[derive(Clone, Debug)]
pub struct Race {
    pub kernel: String,
    pub space: MemSpace,
    pub scope: Scope,
    /// The earlier access (in the emulator's execution order) and the later one.
    pub first: Access,
    pub second: Access,
    /// The address of the witness: a shared-memory offset or a global address.
    pub address: u64,
    /// The named place, e.g. "`tile` + 132 bytes" or "`out` + 4 bytes", filled at the end
    /// of the launch.
    pub target: String,
    pub block_dim: [u32; 3],
    pub occurrences: u64,
}

type RaceKey = (String, MemSpace, Scope, Site, AccessKind, Site, AccessKind);

fn race_key(kernel: &str, space: MemSpace, scope: Scope, a: &Access, b: &Access) -> RaceKey {
    let (x, y) = if (a.site, a.kind) <= (b.site, b.kind) {
        (a, b)
    } else {
        (b, a)
    };
    (
        kernel.to_string(),
        space,
        scope,
        x.site,
        x.kind,
        y.site,
        y.kind,
    )
}

/// Races found in a session, in order of discovery.
pub struct RaceState {
    intra_warp: IntraWarp,
    races: Vec<Race>,
    index: HashMap<RaceKey, usize>,
    /// Launches in which a block's event log overflowed (checking stopped in that block).
    saturated: Vec<String>,
    /// Each kernel's shared variables, to name shared addresses.
    shared_vars: HashMap<String, Vec<warpcheck_emu::SharedVar>>,
    /// Per kernel whose launches were sampled: blocks watched and blocks run.
    sampled: Vec<(String, u64, u64)>,
}

impl RaceState {
    pub fn new(intra_warp: IntraWarp) -> RaceState {
        RaceState {
            intra_warp,
            races: Vec::new(),
            index: HashMap::default(),
            saturated: Vec::new(),
            shared_vars: HashMap::default(),
            sampled: Vec::new(),
        }
    }

    pub fn races(&self) -> &[Race] {
        &self.races
    }

    pub fn launch(&mut self, info: &LaunchInfo, sample: BlockSample) -> RaceLaunch<'_> {
        let threads = info.block[0] * info.block[1] * info.block[2];
        RaceLaunch {
            intra_warp: self.intra_warp,
            warps: threads.div_ceil(32),
            block_dim: info.block,
            kernel: info.kernel_name.clone(),
            global: Shadow::default(),
            witnesses: Vec::new(),
            found: Vec::new(),
            found_index: HashMap::default(),
            saturated: false,
            sample,
            state: self,
        }
    }

    fn add(&mut self, race: Race) {
        let key = race_key(
            &race.kernel,
            race.space,
            race.scope,
            &race.first,
            &race.second,
        );
        match self.index.get(&key) {
            Some(&i) => self.races[i].occurrences += race.occurrences,
            None => {
                self.index.insert(key, self.races.len());
                self.races.push(race);
            }
        }
    }

    pub fn findings(&self, cx: &ReportCx) -> Vec<Finding> {
        // Races of different instructions on the same pair of source lines (unrolled
        // loops, vector halves) are one finding.
        type LineKey = (
            String,
            MemSpace,
            Option<Location>,
            AccessKind,
            Option<Location>,
            AccessKind,
        );
        let mut groups: Vec<(usize, u64)> = Vec::new();
        let mut by_lines: HashMap<LineKey, usize> = HashMap::default();
        for (i, r) in self.races.iter().enumerate() {
            let a = (cx.locate(r.first.site), r.first.kind);
            let b = (cx.locate(r.second.site), r.second.kind);
            let (x, y) = if a <= b { (a, b) } else { (b, a) };
            let key = (r.kernel.clone(), r.space, x.0, x.1, y.0, y.1);
            match by_lines.get(&key) {
                Some(&g) => {
                    groups[g].1 += r.occurrences;
                    // The widest scope names the finding (and its fix): a race that also
                    // happens between warps needs a barrier, not a __syncwarp.
                    if r.scope > self.races[groups[g].0].scope {
                        groups[g].0 = i;
                    }
                }
                None => {
                    by_lines.insert(key, groups.len());
                    groups.push((i, r.occurrences));
                }
            }
        }
        let mut out = Vec::new();
        for (i, occurrences) in groups {
            let r = &self.races[i];
            let code = match r.space {
                MemSpace::Shared => Code::SharedRace,
                _ => Code::GlobalRace,
            };
            let hazard =
                warpcheck_report::race::hazard(r.first.kind.is_write(), r.second.kind.is_write());
            let space = match r.space {
                MemSpace::Shared => "shared",
                _ => "global",
            };
            let who = |a: &Access| {
                format!(
                    "thread {} of block {}",
                    fmt3(thread_index(r.block_dim, a.thread)),
                    fmt3(a.block)
                )
            };
            let target = match r.space {
                MemSpace::Shared => shared_name(
                    cx.program,
                    self.shared_vars
                        .get(&r.kernel)
                        .map_or(&[], |v| v.as_slice()),
                    r.address,
                ),
                _ => r.target.clone(),
            };
            let mut f = Finding::new(
                code,
                Severity::Error,
                format!(
                    "data race on {space} memory ({hazard}) at {target}, {}",
                    r.scope.describe()
                ),
            )
            .kernel(r.kernel.clone());
            let second = format!("(2) {} by {}", r.second.kind.describe(), who(&r.second));
            let first = format!("(1) {} by {}", r.first.kind.describe(), who(&r.first));
            match (cx.locate(r.second.site), cx.locate(r.first.site)) {
                (Some(l2), Some(l1)) => {
                    f = f.at(l2, second).related(l1, first);
                }
                (Some(l2), None) => f = f.at(l2, second).note(first),
                (None, Some(l1)) => f = f.at(l1, first).note(second),
                (None, None) => f = f.note(first).note(second),
            }
            f.occurrences = occurrences;
            f = f.help(r.scope.help());
            out.push(f);
        }
        for (k, watched, total) in &self.sampled {
            out.push(
                Finding::new(
                    Code::RaceCheckSampled,
                    Severity::Note,
                    format!(
                        "the race checker watched {watched} of the {total} blocks run (the first and last blocks along each grid dimension and pairs of neighbouring blocks); races confined to other blocks were not checked"
                    ),
                )
                .kernel(k.clone())
                .help("`--race-blocks all` watches every block (slower); `--race-blocks N` watches up to N"),
            );
        }
        for k in &self.saturated {
            out.push(
                Finding::new(
                    Code::RaceCheckIncomplete,
                    Severity::Note,
                    "a block executed more memory instructions than the race checker records (2^26 per block); races after that point were not checked",
                )
                .kernel(k.clone()),
            );
        }
        out
    }
}

fn thread_index(block: [u32; 3], linear: u32) -> [u32; 3] {
    let [bx, by, _] = block;
    [linear % bx, (linear / bx) % by, linear / (bx * by)]
}

/// A shadow word: the last write and the last read of one byte, as references into the
/// block's event log (`(event + 1) << 5 | lane`, 0 = none).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
struct Cell {
    write: u32,
    read: u32,
}

/// One warp-instruction's memory event as the race checker remembers it.
#[derive(Clone, Copy, PartialEq, Eq)]
struct EventRecord {
    func: FuncId,
    inst: InstId,
    /// The warp's own warp-clock at the access.
    warp_clock: u32,
    /// The index of the snapshot of the warp's lane-clocks (independent scheduling).
    lane_snapshot: u32,
    warp: u16,
    kind: AccessKind,
}

/// Event references are `(event + 1) << 5 | lane` below 2^31; `SUPERSEDED` (bit 31) marks a
/// write slot whose unit also has a superseded write (see `RaceBlock::superseded`).
const MAX_EVENTS: usize = (1 << 26) - 2;
const SUPERSEDED: u32 = 1 << 31;
/// Recent events remembered per warp for reuse (direct-mapped by instruction).
const RECENT: usize = 8;

/// Happens-before clocks of one block.
struct Clocks {
    warps: usize,
    /// `warp_vc[w * warps + v]`: what warp `w` knows of warp `v`'s clock.
    warp_vc: Vec<u32>,
    /// Per warp, `lane_vc[l][k]`: what lane `l` knows of lane `k`'s clock (independent
    /// scheduling only; allocated at the warp's first synchronisation).
    lane_vc: Vec<Option<Box<[[u32; 32]; 32]>>>,
    /// Per warp, the snapshot index of its lanes' own clocks.
    lane_snapshot: Vec<u32>,
    /// Per warp, the snapshot created by its last synchronisation of all its live lanes:
    /// accesses of the warp recorded with an older snapshot are ordered before every
    /// later access of the warp.
    full_sync: Vec<u32>,
    /// Per warp, its lanes that exist and have not exited.
    live: Vec<u32>,
    /// Snapshots of lanes' own clocks (`[l] = lane_vc[l][l]`).
    snapshots: Vec<[u32; 32]>,
    /// Per barrier id: the join of the arrived warps' clocks, and who arrived.
    pending: Vec<Pending>,
}

#[derive(Default, Clone)]
struct Pending {
    join: Vec<u32>,
    /// (warp, lanes, waits): `bar.arrive` lanes do not wait.
    arrived: Vec<(u32, u32, bool)>,
}

impl Clocks {
    fn new(warps: usize, independent: bool) -> Clocks {
        let mut warp_vc = vec![0u32; warps * warps];
        for w in 0..warps {
            warp_vc[w * warps + w] = 1;
        }
        Clocks {
            warps,
            warp_vc,
            lane_vc: if independent {
                (0..warps).map(|_| None).collect()
            } else {
                Vec::new()
            },
            lane_snapshot: vec![0; warps],
            full_sync: vec![0; warps],
            live: vec![u32::MAX; warps],
            snapshots: vec![[1; 32]],
            pending: vec![Pending::default(); 16],
        }
    }

    fn own(&self, w: usize) -> u32 {
        self.warp_vc[w * self.warps + w]
    }

    fn knows_warp(&self, w: usize, v: usize) -> u32 {
        self.warp_vc[w * self.warps + v]
    }

    /// What lane `l` of warp `w` knows of lane `k`'s clock.
    fn knows_lane(&self, w: usize, l: usize, k: usize) -> u32 {
        match self.lane_vc.get(w).and_then(|m| m.as_ref()) {
            Some(m) => m[l][k],
            None => u32::from(l == k),
        }
    }

    fn lanes_of(&mut self, w: usize) -> &mut [[u32; 32]; 32] {
        self.lane_vc[w].get_or_insert_with(|| {
            let mut m = Box::new([[0u32; 32]; 32]);
            for (l, row) in m.iter_mut().enumerate() {
                row[l] = 1;
            }
            m
        })
    }

    /// Joins the clocks of `lanes` of warp `w` and advances each lane's own clock.
    fn sync_lanes(&mut self, w: usize, lanes: u32) {
        #[cfg(target_arch = "x86_64")]
        if std::arch::is_x86_feature_detected!("avx2") {
            // SAFETY: the CPU has AVX2, checked just above.
            unsafe { self.sync_lanes_avx2(w, lanes) };
            return;
        }
        self.sync_lanes_portable(w, lanes);
    }

    /// [`Clocks::sync_lanes_portable`] compiled for AVX2: the 32×32 join is unsigned
    /// 32-bit maxima, which the x86-64 baseline (SSE2) lacks and does lane by lane.
    ///
    /// # Safety
    /// The CPU must support AVX2.
    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx2")]
    unsafe fn sync_lanes_avx2(&mut self, w: usize, lanes: u32) {
        self.sync_lanes_portable(w, lanes)
    }

    #[inline(always)]
    fn sync_lanes_portable(&mut self, w: usize, lanes: u32) {
        if self.lane_vc.is_empty() || lanes == 0 {
            return;
        }
        let m = self.lanes_of(w);
        let mut join = [0u32; 32];
        for (l, row) in m.iter().enumerate() {
            if lanes >> l & 1 == 1 {
                for (j, &c) in join.iter_mut().zip(row) {
                    *j = (*j).max(c);
                }
            }
        }
        let mut own = [0u32; 32];
        for l in 0..32 {
            if lanes >> l & 1 == 1 {
                m[l] = join;
                m[l][l] += 1;
            }
            own[l] = m[l][l];
        }
        self.lane_snapshot[w] = self.snapshots.len() as u32;
        if lanes & self.live[w] == self.live[w] {
            self.full_sync[w] = self.lane_snapshot[w];
        }
        self.snapshots.push(own);
    }

    fn arrive(&mut self, e: &BarrierEvent, waits: bool) {
        let w = e.warp as usize;
        let p = &mut self.pending[e.id as usize & 15];
        if p.join.is_empty() {
            p.join = vec![0; self.warps];
        }
        let row = &self.warp_vc[w * self.warps..(w + 1) * self.warps];
        for (j, &c) in p.join.iter_mut().zip(row) {
            *j = (*j).max(c);
        }
        p.arrived.push((e.warp, e.lanes, waits));
        if !waits {
            self.warp_vc[w * self.warps + w] += 1;
        }
    }

    fn release(&mut self, id: u32) {
        let p = std::mem::take(&mut self.pending[id as usize & 15]);
        let mut lanes_by_warp: Vec<(usize, u32)> = Vec::new();
        for &(w, lanes, waits) in &p.arrived {
            let w = w as usize;
            if waits {
                let row = &mut self.warp_vc[w * self.warps..(w + 1) * self.warps];
                for (c, &j) in row.iter_mut().zip(&p.join) {
                    *c = (*c).max(j);
                }
            }
            match lanes_by_warp.iter_mut().find(|(x, _)| *x == w) {
                Some((_, m)) => *m |= lanes,
                None => lanes_by_warp.push((w, lanes)),
            }
        }
        for &(w, lanes) in &lanes_by_warp {
            if p.arrived
                .iter()
                .any(|&(x, _, waits)| x as usize == w && waits)
            {
                self.warp_vc[w * self.warps + w] += 1;
            }
            self.sync_lanes(w, lanes);
        }
    }
}

const PAGE_WORDS: usize = 64;

/// The shadow of 64 words (256 bytes) of memory: a [`Cell`] per word, or per byte for
/// words that sub-word accesses split (different bytes of one word never race). A split
/// word keeps byte 0's history in its word cell and bytes 1–3 in the page's byte cells,
/// allocated when the page's first word splits. So shadow takes 8 bytes per word touched
/// only whole (2 per byte), and at most 8 bytes per byte on pages with split words, plus
/// 16 bytes of bookkeeping per page.
#[derive(Clone)]
struct Page {
    cells: [Cell; PAGE_WORDS],
    /// Bit `k`: word `k` is split.
    split: u64,
    bytes: Option<Box<[[Cell; 3]; PAGE_WORDS]>>,
}

impl Default for Page {
    fn default() -> Self {
        Page {
            cells: [Cell::default(); PAGE_WORDS],
            split: 0,
            bytes: None,
        }
    }
}

impl Page {
    /// The cell of byte `b` (0–3) of split word `k`.
    #[inline(always)]
    fn byte(&mut self, k: usize, b: usize) -> &mut Cell {
        match (b, &mut self.bytes) {
            (1..=3, Some(bytes)) => &mut bytes[k][b - 1],
            _ => &mut self.cells[k],
        }
    }

    /// The cell of byte `b` (0–3) of split word `k`, by value.
    fn byte_cell(&self, k: usize, b: usize) -> Cell {
        match (b, &self.bytes) {
            (1..=3, Some(bytes)) => bytes[k][b - 1],
            _ => self.cells[k],
        }
    }

    /// Calls `f(address, len, cell)` for every unit of page number `n` with a recorded
    /// access, in address order.
    fn for_each_recorded(&self, n: u64, mut f: impl FnMut(u64, u64, Cell)) {
        for k in 0..PAGE_WORDS {
            let w = n * PAGE_WORDS as u64 + k as u64;
            if self.split >> k & 1 == 0 {
                if self.cells[k] != Cell::default() {
                    f(w * 4, 4, self.cells[k]);
                }
                continue;
            }
            for b in 0..4 {
                let c = self.byte_cell(k, b);
                if c != Cell::default() {
                    f(w * 4 + b as u64, 1, c);
                }
            }
        }
    }

    /// Splits word `k`: every byte starts with the word's history.
    fn split_word(&mut self, k: usize) {
        let word = self.cells[k];
        let bytes = self
            .bytes
            .get_or_insert_with(|| Box::new([[Cell::default(); 3]; PAGE_WORDS]));
        bytes[k] = [word; 3];
        self.split |= 1 << k;
    }
}

/// Shadow memory: [`Page`]s of cells for the memory touched. Dense for shared memory (page
/// `n` at index `n`), found through a map with a small direct-mapped cache for global
/// memory (allocated on first touch).
#[derive(Default)]
struct Shadow {
    is_dense: bool,
    pages: Vec<Page>,
    page_index: HashMap<u64, u32>,
    /// Recently used pages, direct-mapped by page number: (page number + 1, index).
    recent: [(u64, u32); 16],
}

impl Shadow {
    fn dense() -> Shadow {
        Shadow {
            is_dense: true,
            ..Shadow::default()
        }
    }

    #[inline(always)]
    fn page(&mut self, page: u64) -> &mut Page {
        let i = self.page_slot(page);
        &mut self.pages[i]
    }

    /// The index in `pages` of page number `page`, allocated on first touch.
    #[inline(always)]
    fn page_slot(&mut self, page: u64) -> usize {
        if self.is_dense {
            let i = page as usize;
            if i >= self.pages.len() {
                self.pages.resize(i + 1, Page::default());
            }
            return i;
        }
        let slot = page as usize % 16;
        if self.recent[slot].0 == page + 1 {
            self.recent[slot].1 as usize
        } else {
            let next = self.pages.len() as u32;
            let i = *self.page_index.entry(page).or_insert(next);
            if i == next {
                self.pages.push(Page::default());
            }
            self.recent[slot] = (page + 1, i);
            i as usize
        }
    }

    /// Calls `f(address, len, cell)` for each unit (a word, or a byte of a split word)
    /// of the `size` bytes from `address`; a sub-word access splits the words it touches.
    #[inline(always)]
    fn for_each_unit(&mut self, address: u64, size: u64, mut f: impl FnMut(u64, u64, &mut Cell)) {
        if address.is_multiple_of(4) && size.is_multiple_of(4) {
            for w in address / 4..(address + size) / 4 {
                let p = self.page(w / PAGE_WORDS as u64);
                let k = (w % PAGE_WORDS as u64) as usize;
                if p.split >> k & 1 == 0 {
                    f(w * 4, 4, &mut p.cells[k]);
                } else {
                    for b in 0..4 {
                        f(w * 4 + b as u64, 1, p.byte(k, b));
                    }
                }
            }
            return;
        }
        for a in address..address + size {
            let w = a / 4;
            let p = self.page(w / PAGE_WORDS as u64);
            let k = (w % PAGE_WORDS as u64) as usize;
            if p.split >> k & 1 == 0 {
                p.split_word(k);
            }
            f(a, 1, p.byte(k, (a % 4) as usize));
        }
    }

    /// Every unit with a recorded access, in address order: (address, len, cell).
    #[cfg(test)]
    fn units(&self) -> Vec<(u64, u64, Cell)> {
        let mut out = Vec::new();
        self.for_each_recorded(|a, len, c| out.push((a, len, c)));
        out
    }

    /// Forgets every access, keeping the allocations (observers are recycled from block
    /// to block).
    fn clear(&mut self) {
        self.pages.clear();
        self.page_index.clear();
        self.recent = Default::default();
    }

    /// Calls `f(cell)` for every cell (recorded or not), in no particular order.
    fn for_each_cell_mut(&mut self, mut f: impl FnMut(&mut Cell)) {
        for page in &mut self.pages {
            page.cells.iter_mut().for_each(&mut f);
            if let Some(bytes) = &mut page.bytes {
                bytes.iter_mut().flatten().for_each(&mut f);
            }
        }
    }

    /// Calls `f(address, len, cell)` for every unit with a recorded access, in address
    /// order.
    #[cfg(test)]
    fn for_each_recorded(&self, mut f: impl FnMut(u64, u64, Cell)) {
        self.for_each_page(|n, page| page.for_each_recorded(n, &mut f));
    }

    /// Calls `f(page number, page)` for every page, in address order.
    fn for_each_page(&self, mut f: impl FnMut(u64, &Page)) {
        let mut order: Vec<(u64, usize)> = if self.is_dense {
            (0..self.pages.len()).map(|i| (i as u64, i)).collect()
        } else {
            self.page_index
                .iter()
                .map(|(&p, &i)| (p, i as usize))
                .collect()
        };
        order.sort_unstable();
        for (n, i) in order {
            f(n, &self.pages[i]);
        }
    }
}

/// A race seen in a block, before naming.
struct Found {
    space: MemSpace,
    scope: Scope,
    first: Access,
    second: Access,
    address: u64,
    occurrences: u64,
}

/// The race checker's observer for one block.
pub struct RaceBlock {
    block: [u32; 3],
    intra_warp: IntraWarp,
    clocks: Option<Clocks>,
    warps: u32,
    events: Vec<EventRecord>,
    /// Per warp, the last events of a few instructions (`RECENT` slots), for reuse.
    recent: Vec<u32>,
    /// Writes superseded by a later write of the same thread in the same synchronisation
    /// interval at another instruction, by (shared?, unit address); `SUPERSEDED` in the
    /// unit's write slot says an entry is current. Sparse: one per such unit.
    superseded: HashMap<(bool, u64), u32>,
    /// Per warp, the last few events found ordered before every lane of the warp (by a
    /// barrier or a whole-warp synchronisation). Clocks only grow, so an event once
    /// ordered before the warp stays ordered before all its later accesses: later lanes
    /// and later events of the warp skip the comparison with it.
    safe: Vec<[u32; 4]>,
    /// Boxed so that taking them out for an event moves a pointer.
    shared: Option<Box<Shadow>>,
    global: Option<Box<Shadow>>,
    found: Vec<Found>,
    found_index: HashMap<FoundKey, usize>,
    saturated: bool,
    /// After the block ended, its global shadow's references name `(site, kind)` pairs
    /// of this table (`(index + 1) << 10 | thread`), not the event log, which is cleared:
    /// the shadow is then the block's summary for the comparison between blocks, per unit
    /// one write and one read, kept until the launch merges it.
    sites: Vec<(Site, AccessKind)>,
    site_index: HashMap<(Site, AccessKind), u32>,
    /// Recycled for a block that has not started: cleared when it starts, on the host
    /// thread that runs it (see [`crate::Launch`]).
    stale: bool,
}

/// Whether the recorded access `r` cannot race with the current access `me`: none, this
/// very access, or of an event found ordered before the whole warp (`safe`). A flagged
/// write (`SUPERSEDED` set) is never quiet: `r >> 5` is then above any event.
#[inline(always)]
fn is_quiet(r: u32, me: u32, safe: [u32; 4]) -> bool {
    let e = r >> 5;
    // Most likely first: the event the warp's previous lanes were ordered after.
    e == safe[0] || r == me || r == 0 || e == safe[1] || e == safe[2] || e == safe[3]
}

impl RaceBlock {
    fn decode(&self, r: u32) -> (&EventRecord, u32) {
        (&self.events[(r >> 5) as usize - 1], r & 31)
    }

    /// Whether the access recorded as `r` happens before the current access by lane `l`
    /// of warp `w` (whose event is `current`).
    fn ordered(&self, r: u32, w: usize, l: usize, current: u32) -> bool {
        let (e, k) = self.decode(r);
        let Some(clocks) = &self.clocks else {
            return true;
        };
        let v = e.warp as usize;
        if v != w {
            return e.warp_clock <= clocks.knows_warp(w, v);
        }
        match self.intra_warp {
            IntraWarp::LockStep => (r >> 5) != current,
            IntraWarp::Independent => {
                if e.lane_snapshot < clocks.full_sync[w] {
                    return true;
                }
                let lane_clock = clocks.snapshots[e.lane_snapshot as usize][k as usize];
                lane_clock <= clocks.knows_lane(w, l, k as usize)
            }
        }
    }

    fn access_of(&self, r: u32) -> Access {
        let (e, k) = self.decode(r);
        Access {
            site: (e.func, e.inst),
            kind: e.kind,
            block: self.block,
            thread: e.warp as u32 * 32 + k,
        }
    }

    fn report(&mut self, space: MemSpace, prev: u32, cur: u32, address: u64) {
        let first = self.access_of(prev);
        let second = self.access_of(cur);
        let scope = if first.thread / 32 == second.thread / 32 {
            Scope::IntraWarp
        } else {
            Scope::InterWarp
        };
        let key = found_key(space, scope, &first, &second);
        match self.found_index.get(&key) {
            Some(&i) => self.found[i].occurrences += 1,
            None => {
                self.found_index.insert(key, self.found.len());
                self.found.push(Found {
                    space,
                    scope,
                    first,
                    second,
                    address,
                    occurrences: 1,
                });
            }
        }
    }

    /// [`visit`](Self::visit)'s outcome when nothing can race, decided inline: the
    /// recorded accesses the current one would be compared with are none, its own, or of
    /// an event already found ordered before its whole warp (`safe`), and
    /// no superseded write is kept for the unit. Then the access only takes its place in
    /// the cell, exactly as `visit` would leave it. Most accesses of a race-free kernel
    /// end here (a warp's second and later lanes once the first found the earlier event
    /// ordered), without the call and the event-log look-ups of `visit`.
    #[inline(always)]
    fn visit_quiet(cell: &mut Cell, me: u32, safe: [u32; 4], write: bool) -> bool {
        let quiet = |r: u32| is_quiet(r, me, safe);
        if write {
            // `visit` keeps an overwritten write as superseded only if it is the same
            // thread's in the same synchronisation interval, never one ordered before the
            // whole warp.
            if quiet(cell.write) && quiet(cell.read) {
                cell.write = me;
                return true;
            }
        } else if quiet(cell.write) {
            cell.read = me;
            return true;
        }
        false
    }

    /// [`visit`](Self::visit)'s outcome for a strong access (an atomic, a volatile or
    /// relaxed access) over another thread's strong write, decided with one look-up of the
    /// recorded write's kind: strong accesses never race with each other, so unless a
    /// read recorded for the unit may race with it, the access only takes its place in
    /// the cell, as `visit` would leave it (no superseded write is kept for another
    /// thread's write). Contended atomics (a histogram's shared bins) end here instead
    /// of in `visit` for every lane.
    #[inline(always)]
    #[allow(clippy::too_many_arguments)]
    fn visit_strong_quiet(
        events: &[EventRecord],
        cell: &mut Cell,
        me: u32,
        safe: [u32; 4],
        w: usize,
        l: usize,
        kind: AccessKind,
    ) -> bool {
        let r = cell.write;
        if r & SUPERSEDED != 0 || r == 0 {
            return false;
        }
        let Some(e) = events.get((r >> 5) as usize - 1) else {
            return false;
        };
        if e.kind.conflicts(kind) || (e.warp as usize == w && (r & 31) as usize == l) {
            return false;
        }
        if !kind.is_write() {
            cell.read = me;
            return true;
        }
        if is_quiet(cell.read, me, safe) {
            cell.write = me;
            return true;
        }
        false
    }

    /// Checks the current access against a unit's recorded write and (for writes) read,
    /// then records it.
    #[allow(clippy::too_many_arguments)]
    #[inline(never)]
    fn visit(
        &mut self,
        space: MemSpace,
        cell: &mut Cell,
        me: u32,
        w: usize,
        l: usize,
        event: u32,
        kind: AccessKind,
        address: u64,
    ) {
        // Cheap filters first: nothing recorded, this very access, or kinds that cannot
        // race (two reads, two strong accesses).
        let may_race = |r: u32, this: &Self| {
            r != 0
                && r != me
                && !this.safe.get(w).is_some_and(|s| s.contains(&(r >> 5)))
                && this.events[(r >> 5) as usize - 1].kind.conflicts(kind)
        };
        let flagged = cell.write & SUPERSEDED != 0;
        let last_write = cell.write & !SUPERSEDED;
        let mut raced = may_race(last_write, self)
            && self.check(space, last_write, me, w, l, event, kind, address);
        let key = (space == MemSpace::Shared, address);
        if flagged
            && let Some(&old) = self.superseded.get(&key)
            && may_race(old, self)
        {
            raced |= self.check(space, old, me, w, l, event, kind, address);
        }
        if kind.is_write() {
            if !raced && may_race(cell.read, self) {
                self.check(space, cell.read, me, w, l, event, kind, address);
            }
            // A thread overwriting its own write of the same interval at another
            // instruction: keep the first write too, it may race with another thread's
            // later access (the root clear of a Blelloch scan, then its own down-sweep).
            let mut flag = 0;
            if last_write != 0 && last_write != me {
                let (old, k) = self.decode(last_write);
                let cur = &self.events[event as usize - 1];
                let same_thread = old.warp as usize == w && k as usize == l;
                if same_thread
                    && (old.func, old.inst) != (cur.func, cur.inst)
                    && old.warp_clock == cur.warp_clock
                    && old.lane_snapshot == cur.lane_snapshot
                {
                    // Keep the latest superseded write (one per unit).
                    self.superseded.insert(key, last_write);
                    flag = SUPERSEDED;
                } else if same_thread && flagged {
                    flag = SUPERSEDED;
                }
            }
            cell.write = me | flag;
        } else {
            cell.read = me;
        }
    }

    /// Reports a race between the recorded access `prev` and the current one if they
    /// conflict and are unordered.
    #[allow(clippy::too_many_arguments)]
    fn check(
        &mut self,
        space: MemSpace,
        prev: u32,
        me: u32,
        w: usize,
        l: usize,
        event: u32,
        kind: AccessKind,
        address: u64,
    ) -> bool {
        let (e, k) = self.decode(prev);
        let other_warp = e.warp as usize != w;
        let same_thread = !other_warp && k as usize == l;
        if !same_thread && !e.kind.conflicts(kind) {
            return false;
        }
        // A thread's own earlier access never races with it, but may still be ordered
        // before the whole warp, which spares the other lanes the comparison.
        if same_thread || self.ordered(prev, w, l, event) {
            let whole_warp = other_warp
                || self
                    .clocks
                    .as_ref()
                    .is_some_and(|c| e.lane_snapshot < c.full_sync[w]);
            if whole_warp {
                // Every lane of the current warp is ordered after that event, now and from
                // now on (clocks only grow): remember it for the other lanes and events.
                if let Some(s) = self.safe.get_mut(w) {
                    *s = [prev >> 5, s[0], s[1], s[2]];
                }
            }
            return false;
        }
        self.report(space, prev, me, address);
        true
    }

    /// Ends the block: the global shadow's references are rewritten in place to name
    /// `(site, kind)` pairs of `sites` and threads (the summary the launch compares between
    /// blocks, without copying it), and the rest is cleared, kept allocated for recycling.
    fn summarise(&mut self) {
        self.sites.clear();
        self.site_index.clear();
        if let Some(mut global) = self.global.take() {
            let mut last: Option<((Site, AccessKind), u32)> = None;
            global.for_each_cell_mut(|cell| {
                for r in [&mut cell.write, &mut cell.read] {
                    if *r == 0 {
                        continue;
                    }
                    let (e, lane) = self.decode(*r & !SUPERSEDED);
                    let key = ((e.func, e.inst), e.kind);
                    let thread = e.warp as u32 * 32 + lane;
                    let index = match last {
                        Some((k, i)) if k == key => i,
                        _ => {
                            let next = self.sites.len() as u32;
                            let i = *self.site_index.entry(key).or_insert(next);
                            if i == next {
                                self.sites.push(key);
                            }
                            last = Some((key, i));
                            i
                        }
                    };
                    *r = (index + 1) << 10 | thread;
                }
            });
            self.global = Some(global);
        }
        if let Some(shared) = &mut self.shared {
            shared.clear();
        }
        self.events.clear();
        self.recent.clear();
        self.superseded.clear();
    }

    /// The access a summarised global-shadow reference names.
    fn summarised(&self, r: u32) -> Option<Access> {
        (r != 0).then(|| {
            let (site, kind) = self.sites[(r >> 10) as usize - 1];
            Access {
                site,
                kind,
                block: self.block,
                thread: r & 1023,
            }
        })
    }
}

impl Observer for RaceBlock {
    fn on_block_start(&mut self, _block: [u32; 3], threads: u32) {
        if std::mem::take(&mut self.stale) {
            self.events.clear();
            self.superseded.clear();
            for (shadow, dense) in [(&mut self.shared, true), (&mut self.global, false)] {
                match shadow {
                    Some(s) => s.clear(),
                    None if dense => *shadow = Some(Box::new(Shadow::dense())),
                    None => *shadow = Some(Box::default()),
                }
            }
            self.found.clear();
            self.found_index.clear();
            self.saturated = false;
            self.sites.clear();
            self.site_index.clear();
        }
        self.warps = threads.div_ceil(32);
        self.recent.clear();
        self.recent.resize(self.warps as usize * RECENT, 0);
        self.safe.clear();
        self.safe.resize(self.warps as usize, [0; 4]);
        let mut clocks = Clocks::new(
            self.warps as usize,
            self.intra_warp == IntraWarp::Independent,
        );
        if !threads.is_multiple_of(32)
            && let Some(last) = clocks.live.last_mut()
        {
            *last = (1u32 << (threads % 32)) - 1;
        }
        self.clocks = Some(clocks);
    }

    #[inline(always)]
    fn on_memory(&mut self, e: &MemEvent<'_>) {
        if self.saturated || !matches!(e.space, MemSpace::Shared | MemSpace::Global) {
            return;
        }
        let Some(clocks) = &self.clocks else { return };
        if self.events.len() + 1 >= MAX_EVENTS {
            self.saturated = true;
            return;
        }
        let w = e.warp as usize;
        let kind = AccessKind::of(e.kind, e.ordered);
        let record = EventRecord {
            func: e.func,
            inst: e.inst,
            warp_clock: clocks.own(w),
            lane_snapshot: clocks.lane_snapshot.get(w).copied().unwrap_or(0),
            warp: e.warp as u16,
            kind,
        };
        // Under independent scheduling an event is only its site, warp, kind and clocks,
        // so a loop re-executing an instruction between two synchronisations reuses the
        // record (lock-step needs distinct executions: lanes of one execution race).
        let slot = w * RECENT + e.inst.index() % RECENT;
        let event = match self.recent.get(slot).copied() {
            Some(r)
                if r != 0
                    && self.intra_warp == IntraWarp::Independent
                    && self.events[r as usize - 1] == record =>
            {
                r
            }
            _ => {
                self.events.push(record);
                let r = self.events.len() as u32;
                if let Some(x) = self.recent.get_mut(slot) {
                    *x = r;
                }
                r
            }
        };
        let shared = e.space == MemSpace::Shared;
        let Some(mut shadow) = (if shared {
            self.shared.take()
        } else {
            self.global.take()
        }) else {
            return;
        };
        let me_base = event << 5;
        let write = kind.is_write();
        let strong = kind.is_strong();
        let mut lanes = e.lanes;
        // The page of the previous lane's word: a warp's lanes mostly share a few pages.
        let mut current = (u64::MAX, 0usize);
        // The warp's safe events, re-read when `visit` may have added one.
        let mut safe = self.safe.get(w).copied().unwrap_or_default();
        while lanes != 0 {
            let l = lanes.trailing_zeros() as usize;
            lanes &= lanes - 1;
            let me = me_base | l as u32;
            let address = e.addresses[l];
            // The common case, one aligned whole word, without `for_each_unit`'s loop.
            if e.size == 4 && address.is_multiple_of(4) {
                let word = address / 4;
                let number = word / PAGE_WORDS as u64;
                if number != current.0 {
                    current = (number, shadow.page_slot(number));
                }
                let page = &mut shadow.pages[current.1];
                let k = (word % PAGE_WORDS as u64) as usize;
                if page.split >> k & 1 == 0 {
                    let cell = &mut page.cells[k];
                    let quiet = Self::visit_quiet(cell, me, safe, write)
                        || (strong
                            && Self::visit_strong_quiet(&self.events, cell, me, safe, w, l, kind));
                    if !quiet {
                        self.visit(e.space, cell, me, w, l, event, kind, address);
                        safe = self.safe.get(w).copied().unwrap_or_default();
                    }
                    continue;
                }
            }
            shadow.for_each_unit(address, e.size as u64, |a, _, cell| {
                let quiet = Self::visit_quiet(cell, me, safe, write)
                    || (strong
                        && Self::visit_strong_quiet(&self.events, cell, me, safe, w, l, kind));
                if !quiet {
                    self.visit(e.space, cell, me, w, l, event, kind, a);
                    safe = self.safe.get(w).copied().unwrap_or_default();
                }
            });
        }
        *(if shared {
            &mut self.shared
        } else {
            &mut self.global
        }) = Some(shadow);
    }

    fn on_barrier_arrive(&mut self, e: &BarrierEvent) {
        if let Some(c) = &mut self.clocks {
            c.arrive(e, e.waits);
        }
    }

    fn on_barrier_release(&mut self, _block: [u32; 3], id: u32) {
        if let Some(c) = &mut self.clocks {
            c.release(id);
        }
    }

    fn on_warp_sync(&mut self, e: &WarpSyncEvent) {
        if !e.orders_memory {
            return;
        }
        if let Some(c) = &mut self.clocks {
            c.sync_lanes(e.warp as usize, e.member_mask & e.lanes | e.lanes);
        }
    }

    fn on_exit(&mut self, warp: u32, lanes: u32) {
        if let Some(c) = &mut self.clocks
            && let Some(live) = c.live.get_mut(warp as usize)
        {
            *live &= !lanes;
        }
    }

    fn on_block_end(&mut self, _block: [u32; 3]) {
        self.summarise();
    }
}

/// A witness of earlier blocks: (block, site, kind); the thread is packed into the
/// shadow reference.
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
struct Witness {
    block: [u32; 3],
    site: Site,
    kind: AccessKind,
}

/// Witness references (`witness << 10 | thread`) must fit in 32 bits.
const MAX_WITNESSES: usize = (1 << 22) - 2;

/// The race checker of one launch.
pub struct RaceLaunch<'s> {
    intra_warp: IntraWarp,
    warps: u32,
    block_dim: [u32; 3],
    kernel: String,
    /// The launch's global memory for the comparison between blocks: per unit, a write
    /// and a read of earlier blocks (plain ones preferred over strong ones), as references
    /// `witness << 10 | thread` into `witnesses`.
    global: Shadow,
    witnesses: Vec<Witness>,
    found: Vec<Race>,
    found_index: HashMap<FoundKey, usize>,
    saturated: bool,
    sample: BlockSample,
    state: &'s mut RaceState,
}

type FoundKey = (MemSpace, Scope, Site, AccessKind, Site, AccessKind);

fn found_key(space: MemSpace, scope: Scope, a: &Access, b: &Access) -> FoundKey {
    let (x, y) = if (a.site, a.kind) <= (b.site, b.kind) {
        (a, b)
    } else {
        (b, a)
    };
    (space, scope, x.site, x.kind, y.site, y.kind)
}

impl RaceLaunch<'_> {
    /// Whether the race checker watches this block of the launch.
    pub fn watches(&self, block: [u32; 3]) -> bool {
        self.sample.watches(block)
    }

    fn witness(&self, r: u32) -> Access {
        let w = self.witnesses[(r >> 10) as usize - 1];
        Access {
            site: w.site,
            kind: w.kind,
            block: w.block,
            thread: r & 1023,
        }
    }

    fn add_found(
        &mut self,
        space: MemSpace,
        scope: Scope,
        first: Access,
        second: Access,
        address: u64,
        n: u64,
    ) {
        let key = found_key(space, scope, &first, &second);
        if let Some(&i) = self.found_index.get(&key) {
            self.found[i].occurrences += n;
            return;
        }
        self.found_index.insert(key, self.found.len());
        self.found.push(Race {
            kernel: self.kernel.clone(),
            space,
            scope,
            first,
            second,
            address,
            target: String::new(),
            block_dim: self.block_dim,
            occurrences: n,
        });
    }

    /// Compares one block's global accesses (its summarised shadow) with earlier
    /// blocks', then adds them.
    fn merge_block(&mut self, o: &RaceBlock) {
        let Some(summary) = &o.global else { return };
        // The launch's witness of each of the block's (site, kind) pairs.
        let full = self.witnesses.len() + o.sites.len() > MAX_WITNESSES;
        self.saturated |= full;
        let refs: Vec<u32> = if full {
            Vec::new()
        } else {
            o.sites
                .iter()
                .map(|&(site, kind)| {
                    self.witnesses.push(Witness {
                        block: o.block,
                        site,
                        kind,
                    });
                    self.witnesses.len() as u32
                })
                .collect()
        };
        let launch_ref = |r: u32| {
            (r != 0)
                .then(|| refs.get((r >> 10) as usize - 1).map(|w| w << 10 | r & 1023))
                .flatten()
        };
        let mut shadow = std::mem::take(&mut self.global);
        // One unit of the block's summary (`c`) into the launch's cell for it, when
        // both only read (inputs read by every block): decided from the references
        // alone, small enough to be inlined into the loops below. `false` for the rest.
        let merge_reads = |this: &Self, cell: &mut Cell, c: Cell| {
            if c.write != 0 || cell.write != 0 {
                return false;
            }
            if let Some(r) = launch_ref(c.read)
                && (cell.read == 0
                    || (!o.sites[(c.read >> 10) as usize - 1].1.is_strong()
                        && this.witness(cell.read).kind.is_strong()))
            {
                cell.read = r;
            }
            true
        };
        // Any other unit.
        let merge_unit = |this: &mut Self, cell: &mut Cell, a: u64, c: Cell| {
            let u_write = o.summarised(c.write);
            let u_read = o.summarised(c.read);
            let (w_ref, r_ref) = (launch_ref(c.write), launch_ref(c.read));
            let prior_w = (cell.write != 0).then(|| this.witness(cell.write));
            let prior_r = (cell.read != 0).then(|| this.witness(cell.read));
            for (p, c) in [(prior_w, u_write), (prior_w, u_read), (prior_r, u_write)] {
                if let (Some(p), Some(c)) = (p, c)
                    && p.kind.conflicts(c.kind)
                {
                    this.add_found(MemSpace::Global, Scope::InterBlock, p, c, a, 1);
                    break;
                }
            }
            // Keep the first access, unless a plain one replaces a strong one (plain
            // accesses race with more).
            let keep = |old: u32, new: Option<u32>, this: &Self| match new {
                None => old,
                Some(n) if old == 0 => n,
                Some(n) => {
                    if this.witness(old).kind.is_strong() && !this.witness(n).kind.is_strong() {
                        n
                    } else {
                        old
                    }
                }
            };
            cell.write = keep(cell.write, w_ref, this);
            cell.read = keep(cell.read, r_ref, this);
        };
        summary.for_each_page(|n, page| {
            // Pages whose words are all whole, in the block's summary and in the launch's
            // shadow (the common case): cell by cell, with one look-up of the launch's
            // page, not one per word.
            if page.split == 0 {
                let i = shadow.page_slot(n);
                if shadow.pages[i].split == 0 {
                    for (k, &c) in page.cells.iter().enumerate() {
                        let cell = &mut shadow.pages[i].cells[k];
                        if c != Cell::default() && !merge_reads(self, cell, c) {
                            let a = (n * PAGE_WORDS as u64 + k as u64) * 4;
                            merge_unit(self, cell, a, c);
                        }
                    }
                    return;
                }
            }
            page.for_each_recorded(n, |address, len, c| {
                shadow.for_each_unit(address, len, |a, _, cell| {
                    if !merge_reads(self, cell, c) {
                        merge_unit(self, cell, a, c);
                    }
                });
            });
        });
        self.global = shadow;
    }

    pub fn finish(self, info: &LaunchInfo, outcome: &RunOutcome) {
        let RaceLaunch {
            found,
            saturated,
            state,
            kernel,
            sample,
            ..
        } = self;
        if !sample.is_complete() {
            let (watched, total) = sample.counts();
            match state.sampled.iter_mut().find(|s| s.0 == kernel) {
                Some(s) => {
                    s.1 += watched;
                    s.2 += total;
                }
                None => state.sampled.push((kernel.clone(), watched, total)),
            }
        }
        for mut r in found {
            if r.space != MemSpace::Shared {
                r.target = match info.buffer_at(r.address) {
                    Some((b, off)) => format!("`{}` + {off} bytes", b.name),
                    None => format!("global address {:#x}", r.address),
                };
            }
            state.add(r);
        }
        state
            .shared_vars
            .insert(kernel.clone(), outcome.shared_vars.clone());
        if saturated && !state.saturated.contains(&kernel) {
            state.saturated.push(kernel);
        }
    }
}

impl ObserverFactory for RaceLaunch<'_> {
    type Observer = RaceBlock;

    fn create(&self, block: [u32; 3]) -> RaceBlock {
        RaceBlock {
            block,
            intra_warp: self.intra_warp,
            clocks: None,
            warps: self.warps,
            events: Vec::new(),
            recent: Vec::new(),
            superseded: HashMap::default(),
            safe: Vec::new(),
            shared: Some(Box::new(Shadow::dense())),
            global: Some(Box::new(Shadow::default())),
            found: Vec::new(),
            found_index: HashMap::default(),
            saturated: false,
            sites: Vec::new(),
            site_index: HashMap::default(),
            stale: false,
        }
    }

    /// Keeps the observer's allocations: event log, shadows and the site table of the
    /// summary, which the launch has merged. Only the block's identity is set here; the
    /// rest is cleared when the block starts, on the host thread that runs it (see
    /// [`crate::Launch`]).
    fn recycle(&self, o: &mut RaceBlock, block: [u32; 3]) {
        o.block = block;
        o.intra_warp = self.intra_warp;
        o.warps = self.warps;
        o.stale = true;
    }

    fn merge(&mut self, observers: &mut [([u32; 3], RaceBlock)]) {
        for (_, o) in observers {
            self.saturated |= o.saturated;
            for f in o.found.drain(..) {
                self.add_found(
                    f.space,
                    f.scope,
                    f.first,
                    f.second,
                    f.address,
                    f.occurrences,
                );
            }
            self.merge_block(o);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cell(write: u32, read: u32) -> Cell {
        Cell { write, read }
    }

    #[test]
    fn sub_word_accesses_split_a_word_and_keep_its_history_per_byte() {
        let mut s = Shadow::default();
        // A word written whole, then byte 2 read: bytes 0, 1, 3 keep the word's write.
        s.for_each_unit(0x1000, 4, |_, _, c| *c = cell(7, 0));
        let mut seen = Vec::new();
        s.for_each_unit(0x1002, 1, |a, len, c| {
            seen.push((a, len, *c));
            c.read = 9;
        });
        assert_eq!(seen, vec![(0x1002, 1, cell(7, 0))]);
        assert_eq!(
            s.units(),
            vec![
                (0x1000, 1, cell(7, 0)),
                (0x1001, 1, cell(7, 0)),
                (0x1002, 1, cell(7, 9)),
                (0x1003, 1, cell(7, 0)),
            ]
        );
        // A whole-word access to a split word visits its four bytes.
        let mut n = 0;
        s.for_each_unit(0x1000, 4, |_, len, _| {
            assert_eq!(len, 1);
            n += 1;
        });
        assert_eq!(n, 4);
    }

    #[test]
    fn units_come_in_address_order_across_pages() {
        for dense in [false, true] {
            let mut s = if dense {
                Shadow::dense()
            } else {
                Shadow::default()
            };
            for a in [0x2000u64, 0x10, 0x900, 0x4] {
                s.for_each_unit(a, 4, |_, _, c| c.write = a as u32);
            }
            let addresses: Vec<u64> = s.units().iter().map(|u| u.0).collect();
            assert_eq!(addresses, vec![0x4, 0x10, 0x900, 0x2000]);
        }
    }

    #[test]
    fn shadow_takes_at_most_8_bytes_per_byte_plus_page_bookkeeping() {
        let page_bytes = (PAGE_WORDS * 4) as f64;
        let whole = std::mem::size_of::<[Cell; PAGE_WORDS]>() as f64;
        let split = whole + std::mem::size_of::<[[Cell; 3]; PAGE_WORDS]>() as f64;
        assert_eq!(whole / page_bytes, 2.0);
        assert_eq!(split / page_bytes, 8.0);
        // The rest of a page: the split bitmap and the byte cells' pointer.
        assert_eq!(std::mem::size_of::<Page>() as f64 - whole, 16.0);
    }
}
