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
//! Each block keeps a log of its memory events (one record per warp-instruction, 24 bytes)
//! and a shadow word per byte touched (8 bytes: the last write and the last read, as
//! references `event << 5 | lane` into the log). Shared memory's shadow is dense; global
//! memory's is paged and lazily allocated. A read replaces the recorded read (so a write
//! races with the latest unordered read of another thread; earlier readers of the same
//! byte in the same interval are not remembered, which can hide a second witness but not
//! a racing pair of instructions that keeps recurring).
//!
//! Races between blocks are found when the blocks' observers are merged (in block order):
//! each block's global shadow is summarised (per byte: one write and one read, preferring
//! plain over strong accesses) and compared with the summary of all earlier blocks, kept
//! at word granularity until an access splits a word (2 to 8 bytes of shadow per byte).
//!
//! Each distinct race (memory space, pair of instructions with their access kinds) is
//! reported once with its first witness and an occurrence count (one per racing lane
//! access).

use std::collections::HashMap;

use warpcheck_emu::{
    BarrierEvent, MemEvent, MemKind, Observer, ObserverFactory, RunOutcome, WarpSyncEvent,
};
use warpcheck_ir::modifiers::MemSpace;
use warpcheck_ir::{EntityRef, FuncId, InstId};
use warpcheck_report::{Finding, Location, Severity};

use crate::{IntraWarp, LaunchInfo, ReportCx, Site, fmt3, shared_name};

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

/// Where a race happens.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Scope {
    /// Two lanes of one warp.
    IntraWarp,
    /// Two warps of one block.
    InterWarp,
    /// Two blocks.
    InterBlock,
}

impl Scope {
    fn describe(self) -> &'static str {
        match self {
            Scope::IntraWarp => "between lanes of one warp",
            Scope::InterWarp => "between warps of one block",
            Scope::InterBlock => "between blocks",
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

type RaceKey = (String, MemSpace, Site, AccessKind, Site, AccessKind);

fn race_key(kernel: &str, space: MemSpace, a: &Access, b: &Access) -> RaceKey {
    let (x, y) = if (a.site, a.kind) <= (b.site, b.kind) {
        (a, b)
    } else {
        (b, a)
    };
    (kernel.to_string(), space, x.site, x.kind, y.site, y.kind)
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
}

impl RaceState {
    pub fn new(intra_warp: IntraWarp) -> RaceState {
        RaceState {
            intra_warp,
            races: Vec::new(),
            index: HashMap::new(),
            saturated: Vec::new(),
            shared_vars: HashMap::new(),
        }
    }

    pub fn races(&self) -> &[Race] {
        &self.races
    }

    pub fn launch(&mut self, info: &LaunchInfo) -> RaceLaunch<'_> {
        let threads = info.block[0] * info.block[1] * info.block[2];
        RaceLaunch {
            intra_warp: self.intra_warp,
            warps: threads.div_ceil(32),
            block_dim: info.block,
            grid: info.grid,
            kernel: info.kernel_name.clone(),
            global: WordShadow::default(),
            witnesses: Vec::new(),
            found: Vec::new(),
            found_index: HashMap::new(),
            saturated: false,
            state: self,
        }
    }

    fn add(&mut self, race: Race) {
        let key = race_key(&race.kernel, race.space, &race.first, &race.second);
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
        type LineKey = (String, MemSpace, Option<Location>, AccessKind, Option<Location>, AccessKind);
        let mut groups: Vec<(usize, u64)> = Vec::new();
        let mut by_lines: HashMap<LineKey, usize> = HashMap::new();
        for (i, r) in self.races.iter().enumerate() {
            let a = (cx.locate(r.first.site), r.first.kind);
            let b = (cx.locate(r.second.site), r.second.kind);
            let (x, y) = if a <= b { (a, b) } else { (b, a) };
            let key = (r.kernel.clone(), r.space, x.0, x.1, y.0, y.1);
            match by_lines.get(&key) {
                Some(&g) => groups[g].1 += r.occurrences,
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
                MemSpace::Shared => "shared-race",
                _ => "global-race",
            };
            let hazard = match (r.first.kind.is_write(), r.second.kind.is_write()) {
                (true, false) => "read-after-write",
                (false, true) => "write-after-read",
                _ => "write-after-write",
            };
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
                    self.shared_vars.get(&r.kernel).map_or(&[], |v| v.as_slice()),
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
            f = f.help(match (r.space, r.scope) {
                (MemSpace::Shared, Scope::IntraWarp) | (_, Scope::IntraWarp) => {
                    "lanes of a warp are not ordered under independent thread scheduling: put a `__syncwarp()` between the accesses"
                }
                (_, Scope::InterBlock) => {
                    "blocks are not ordered within a launch: give each block its own part of the buffer, use atomics, or split the kernel"
                }
                _ => "put a `__syncthreads()` between the two accesses",
            });
            out.push(f);
        }
        for k in &self.saturated {
            out.push(
                Finding::new(
                    "race-check-incomplete",
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
#[derive(Clone, Copy, Default, PartialEq, Eq)]
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

const MAX_EVENTS: usize = 1 << 26;
/// Recent events remembered per warp for reuse (direct-mapped by instruction).
const RECENT: usize = 8;
const PAGE: u64 = 256;

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
        if self.lane_vc.is_empty() || lanes == 0 {
            return;
        }
        let m = self.lanes_of(w);
        let mut join = [0u32; 32];
        for l in 0..32 {
            if lanes >> l & 1 == 1 {
                for k in 0..32 {
                    join[k] = join[k].max(m[l][k]);
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
            if p.arrived.iter().any(|&(x, _, waits)| x as usize == w && waits) {
                self.warp_vc[w * self.warps + w] += 1;
            }
            self.sync_lanes(w, lanes);
        }
    }
}

/// Dense (shared) or paged (global) per-byte shadow of one block.
#[derive(Default)]
struct BlockShadow {
    dense: Vec<Cell>,
    page_index: HashMap<u64, usize>,
    pages: Vec<Box<[Cell; PAGE as usize]>>,
    /// The last page looked up: (page number + 1, index), 0 = none.
    last: (u64, usize),
}

impl BlockShadow {
    /// The cells of `len` bytes from `address`, when they are contiguous in the shadow
    /// (always for shared memory; for global memory unless the access crosses a page).
    #[inline]
    fn cells(&mut self, dense: bool, address: u64, len: u64) -> Option<&mut [Cell]> {
        if dense {
            let (i, end) = (address as usize, (address + len) as usize);
            if end > self.dense.len() {
                self.dense
                    .resize(end.next_power_of_two().max(256), Cell::default());
            }
            return Some(&mut self.dense[i..end]);
        }
        let (page, off) = (address / PAGE, address % PAGE);
        if off + len > PAGE {
            return None;
        }
        let index = if self.last.0 == page + 1 {
            self.last.1
        } else {
            let next = self.pages.len();
            let i = *self.page_index.entry(page).or_insert(next);
            if i == next {
                self.pages.push(Box::new([Cell::default(); PAGE as usize]));
            }
            self.last = (page + 1, i);
            i
        };
        Some(&mut self.pages[index][off as usize..(off + len) as usize])
    }

    /// Every page with its number, in address order.
    fn sorted_pages(&self) -> Vec<(u64, &[Cell; PAGE as usize])> {
        let mut v: Vec<(u64, &[Cell; PAGE as usize])> = self
            .page_index
            .iter()
            .map(|(&p, &i)| (p, &*self.pages[i]))
            .collect();
        v.sort_by_key(|(p, _)| *p);
        v
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
    block_dim: [u32; 3],
    intra_warp: IntraWarp,
    clocks: Option<Clocks>,
    warps: u32,
    events: Vec<EventRecord>,
    /// Per warp, the last events of a few instructions (`RECENT` slots), for reuse.
    recent: Vec<u32>,
    shared: BlockShadow,
    global: BlockShadow,
    found: Vec<Found>,
    found_index: HashMap<FoundKey, usize>,
    saturated: bool,
    /// The block's global accesses for the comparison between blocks: per byte, one
    /// write and one read.
    summary: Vec<(u64, Option<Access>, Option<Access>)>,
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
        let key = found_key(space, &first, &second);
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

    /// Checks and records one lane's access of `size` bytes at `address`.
    #[allow(clippy::too_many_arguments)]
    fn access(
        &mut self,
        space: MemSpace,
        address: u64,
        size: u32,
        w: usize,
        l: usize,
        event: u32,
        kind: AccessKind,
    ) {
        let dense = space == MemSpace::Shared;
        let me = event << 5 | l as u32;
        // Fast path: the bytes of one access usually share their history; check once.
        let uniform = self
            .shadow(dense)
            .cells(dense, address, size as u64)
            .and_then(|cells| cells.iter().all(|c| *c == cells[0]).then_some(cells[0]));
        if let Some(cell) = uniform {
            self.check_cell(space, cell, me, w, l, event, kind, address);
            if let Some(cells) = self.shadow(dense).cells(dense, address, size as u64) {
                for c in cells {
                    if kind.is_write() {
                        c.write = me;
                    } else {
                        c.read = me;
                    }
                }
            }
            return;
        }
        let mut previous: Option<Cell> = None;
        for b in 0..size as u64 {
            let a = address + b;
            let Some(cell) = self.shadow(dense).cells(dense, a, 1).map(|c| c[0]) else {
                continue;
            };
            if previous != Some(cell) {
                previous = Some(cell);
                self.check_cell(space, cell, me, w, l, event, kind, a);
            }
            if let Some(c) = self.shadow(dense).cells(dense, a, 1) {
                if kind.is_write() {
                    c[0].write = me;
                } else {
                    c[0].read = me;
                }
            }
        }
    }

    /// Checks the current access against a byte's recorded write and (for writes) read.
    #[allow(clippy::too_many_arguments)]
    #[inline]
    fn check_cell(
        &mut self,
        space: MemSpace,
        cell: Cell,
        me: u32,
        w: usize,
        l: usize,
        event: u32,
        kind: AccessKind,
        address: u64,
    ) {
        let raced = cell.write != 0
            && cell.write != me
            && self.check(space, cell.write, me, w, l, event, kind, address);
        if kind.is_write() && cell.read != 0 && cell.read != me && !raced {
            self.check(space, cell.read, me, w, l, event, kind, address);
        }
    }

    fn shadow(&mut self, dense: bool) -> &mut BlockShadow {
        if dense { &mut self.shared } else { &mut self.global }
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
        let same_thread = e.warp as usize == w && k as usize == l;
        if same_thread || !e.kind.conflicts(kind) || self.ordered(prev, w, l, event) {
            return false;
        }
        self.report(space, prev, me, address);
        true
    }

    fn summarise(&mut self) {
        let mut summary = Vec::new();
        for (p, cells) in self.global.sorted_pages() {
            for (i, c) in cells.iter().enumerate() {
                if c.write == 0 && c.read == 0 {
                    continue;
                }
                let w = (c.write != 0).then(|| self.access_of(c.write));
                let r = (c.read != 0).then(|| self.access_of(c.read));
                summary.push((p * PAGE + i as u64, w, r));
            }
        }
        self.summary = summary;
        self.global = BlockShadow::default();
        self.shared = BlockShadow::default();
        self.events = Vec::new();
        self.recent = Vec::new();
    }
}

impl Observer for RaceBlock {
    fn on_block_start(&mut self, _block: [u32; 3], threads: u32) {
        self.warps = threads.div_ceil(32);
        self.recent = vec![0; self.warps as usize * RECENT];
        self.clocks = Some(Clocks::new(
            self.warps as usize,
            self.intra_warp == IntraWarp::Independent,
        ));
    }

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
            Some(r) if r != 0 && self.intra_warp == IntraWarp::Independent && self.events[r as usize - 1] == record => r,
            _ => {
                self.events.push(record);
                let r = self.events.len() as u32;
                if let Some(x) = self.recent.get_mut(slot) {
                    *x = r;
                }
                r
            }
        };
        let mut lanes = e.lanes;
        while lanes != 0 {
            let l = lanes.trailing_zeros() as usize;
            lanes &= lanes - 1;
            self.access(e.space, e.addresses[l], e.size, w, l, event, kind);
        }
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

    fn on_block_end(&mut self, _block: [u32; 3]) {
        self.summarise();
    }
}

/// Shadow of the launch's global memory for the comparison between blocks: per byte, the
/// first write and the first read of earlier blocks (plain ones preferred over strong
/// ones), as references into the launch's witness table. Kept per 4-byte word while the
/// bytes of a word share their history.
#[derive(Default)]
struct WordShadow {
    pages: HashMap<u64, ShadowPage>,
}

enum ShadowPage {
    Words(Box<[Cell; (PAGE / 4) as usize]>),
    Bytes(Box<[Cell; PAGE as usize]>),
}

impl WordShadow {
    fn get(&self, address: u64) -> Cell {
        match self.pages.get(&(address / PAGE)) {
            None => Cell::default(),
            Some(ShadowPage::Words(w)) => w[(address % PAGE / 4) as usize],
            Some(ShadowPage::Bytes(b)) => b[(address % PAGE) as usize],
        }
    }

    /// Sets the cells of `len` bytes from `address` (within one page) to `cell`.
    fn set(&mut self, address: u64, len: u64, cell: Cell) {
        let page = self
            .pages
            .entry(address / PAGE)
            .or_insert_with(|| ShadowPage::Words(Box::new([Cell::default(); (PAGE / 4) as usize])));
        let off = address % PAGE;
        if let ShadowPage::Words(words) = page {
            if off % 4 == 0 && len % 4 == 0 {
                for c in &mut words[(off / 4) as usize..((off + len) / 4) as usize] {
                    *c = cell;
                }
                return;
            }
            let mut bytes = Box::new([Cell::default(); PAGE as usize]);
            for (i, b) in bytes.iter_mut().enumerate() {
                *b = words[i / 4];
            }
            *page = ShadowPage::Bytes(bytes);
        }
        if let ShadowPage::Bytes(bytes) = page {
            for c in &mut bytes[off as usize..(off + len) as usize] {
                *c = cell;
            }
        }
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

const MAX_WITNESSES: usize = 1 << 22;

/// The race checker of one launch.
pub struct RaceLaunch<'s> {
    intra_warp: IntraWarp,
    warps: u32,
    block_dim: [u32; 3],
    #[allow(dead_code)]
    grid: [u32; 3],
    kernel: String,
    global: WordShadow,
    witnesses: Vec<Witness>,
    found: Vec<Race>,
    found_index: HashMap<FoundKey, usize>,
    saturated: bool,
    state: &'s mut RaceState,
}

type FoundKey = (MemSpace, Site, AccessKind, Site, AccessKind);

fn found_key(space: MemSpace, a: &Access, b: &Access) -> FoundKey {
    let (x, y) = if (a.site, a.kind) <= (b.site, b.kind) {
        (a, b)
    } else {
        (b, a)
    };
    (space, x.site, x.kind, y.site, y.kind)
}

impl RaceLaunch<'_> {
    fn witness_ref(&mut self, table: &mut HashMap<Witness, u32>, a: &Access) -> u32 {
        let w = Witness {
            block: a.block,
            site: a.site,
            kind: a.kind,
        };
        let index = *table.entry(w).or_insert_with(|| {
            self.witnesses.push(w);
            self.witnesses.len() as u32
        });
        index << 10 | a.thread
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

    fn add_found(&mut self, space: MemSpace, scope: Scope, first: Access, second: Access, address: u64, n: u64) {
        let key = found_key(space, &first, &second);
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

    /// Compares one block's global accesses with earlier blocks', then adds them.
    fn merge_block(&mut self, summary: &[(u64, Option<Access>, Option<Access>)]) {
        let mut table: HashMap<Witness, u32> = HashMap::new();
        let mut i = 0;
        while i < summary.len() {
            // A run of bytes with the same accesses, within one page.
            let (a0, w0, r0) = summary[i];
            let mut j = i + 1;
            while j < summary.len()
                && summary[j].0 == a0 + (j - i) as u64
                && summary[j].0 % PAGE != 0
                && summary[j].1 == w0
                && summary[j].2 == r0
            {
                j += 1;
            }
            let len = (j - i) as u64;
            // Check against earlier blocks, byte by byte where the earlier shadow differs.
            let mut last = None;
            for b in 0..len {
                let old = self.global.get(a0 + b);
                if last == Some(old) {
                    continue;
                }
                last = Some(old);
                let prior_w = (old.write != 0).then(|| self.witness(old.write));
                let prior_r = (old.read != 0).then(|| self.witness(old.read));
                let pairs = [(prior_w, w0), (prior_w, r0), (prior_r, w0)];
                for (p, c) in pairs {
                    if let (Some(p), Some(c)) = (p, c)
                        && p.kind.conflicts(c.kind)
                    {
                        self.add_found(MemSpace::Global, Scope::InterBlock, p, c, a0 + b, 1);
                        break;
                    }
                }
            }
            // Record this block's accesses, preferring plain ones over strong ones.
            if self.witnesses.len() < MAX_WITNESSES {
                let w_ref = w0.map(|a| self.witness_ref(&mut table, &a));
                let r_ref = r0.map(|a| self.witness_ref(&mut table, &a));
                let mut b = 0;
                while b < len {
                    let old = self.global.get(a0 + b);
                    let mut run = 1;
                    while b + run < len && self.global.get(a0 + b + run) == old {
                        run += 1;
                    }
                    let keep = |old: u32, new: Option<u32>, this: &Self| -> u32 {
                        match new {
                            None => old,
                            Some(n) if old == 0 => n,
                            Some(n) => {
                                if this.witness(old).kind.is_strong() && !this.witness(n).kind.is_strong() {
                                    n
                                } else {
                                    old
                                }
                            }
                        }
                    };
                    let cell = Cell {
                        write: keep(old.write, w_ref, self),
                        read: keep(old.read, r_ref, self),
                    };
                    if cell != old {
                        self.global.set(a0 + b, run, cell);
                    }
                    b += run;
                }
            } else {
                self.saturated = true;
            }
            i = j;
        }
    }

    pub fn finish(self, info: &LaunchInfo, outcome: &RunOutcome) {
        let RaceLaunch {
            found,
            saturated,
            state,
            kernel,
            ..
        } = self;
        for mut r in found {
            if r.space != MemSpace::Shared {
                r.target = match info.buffer_at(r.address) {
                    Some((b, off)) => format!("`{}` + {off} bytes", b.name),
                    None => format!("global address {:#x}", r.address),
                };
            }
            state.add(r);
        }
        state.shared_vars.insert(kernel.clone(), outcome.shared_vars.clone());
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
            block_dim: self.block_dim,
            intra_warp: self.intra_warp,
            clocks: None,
            warps: self.warps,
            events: Vec::new(),
            recent: Vec::new(),
            shared: BlockShadow::default(),
            global: BlockShadow::default(),
            found: Vec::new(),
            found_index: HashMap::new(),
            saturated: false,
            summary: Vec::new(),
        }
    }

    fn merge(&mut self, observers: Vec<([u32; 3], RaceBlock)>) {
        for (_, o) in observers {
            self.saturated |= o.saturated;
            for f in o.found {
                self.add_found(f.space, f.scope, f.first, f.second, f.address, f.occurrences);
            }
            self.merge_block(&o.summary);
        }
    }
}
