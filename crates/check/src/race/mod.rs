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
//! * **`mbarrier` phases** (`cuda::barrier`): an `mbarrier.arrive` publishes what its
//!   thread did before it into the barrier's current phase; a `test_wait`/`try_wait`
//!   that sees that phase complete learns all of it. `cp.async.mbarrier.arrive` makes
//!   the thread's earlier `cp.async` copies (their shared writes) part of its arrival;
//!   otherwise a copy's write counts at the `cp.async.wait_group` that completes it.
//! * **`__syncwarp(mask)`** (`bar.warp.sync`) orders the member lanes of one warp. The
//!   warp collectives (`shfl.sync`, `vote.sync`, …) exchange values but do not order
//!   memory.
//! * **Within a warp**, by the [`IntraWarp`] model: with independent thread scheduling
//!   (the default, sm_70+) lanes are unordered like any two threads; with lock-step warps
//!   a warp's instructions are ordered and only lanes of one instruction writing the same
//!   byte race.
//! * **Between blocks** nothing orders plain accesses (the kernel boundary does: races
//!   never span launches), except the grid-wide barrier of a cooperative launch
//!   (`grid_group::sync()`), after which the comparison between blocks starts again;
//!   and **release and acquire through global memory** ([`release`]): a block that
//!   writes data, executes `__threadfence()` and then writes a word atomically (or with
//!   a strong store) publishes the data to any block whose later atomic or strong read of
//!   that word, and what follows it in its block, learns it.
//!
//! # Value-based benign races
//!
//! As LD (Li et al.) defines them, a write-write race in which the later write stores the
//! bytes the earlier one stored, the value memory already holds there, changes nothing:
//! such a race is a `benign-race` warning with the value, unless `--strict-races`. The rule
//! is per location: a race (the occurrences of one pair of source lines) is benign iff in
//! every write-write occurrence grouped into it the two writes stored equal bytes at the
//! byte or word where they met; different locations may hold different values (the
//! `blockDim.z` sub-blocks of llm.c's `fused_residual_forward_kernel6` all caching the same
//! weights). The occurrences compared are the ones the checker finds: each write against
//! the unit's recorded write (the last one, whose bytes are those just before the new write
//! lands) and its kept superseded write; between blocks, the block's last write of the
//! unit against the write kept from earlier blocks. A race is an error if one occurrence
//! stores different bytes (the message shows both values for shared memory; in global
//! memory they can depend on the order in which the emulator runs the blocks) or involves
//! a write whose values the checker does not know: an atomic, an asynchronous copy, a
//! matrix store. Read-write races are never benign: the read may see either value.
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
//! `event << 5 | lane` into the log), or per byte for words that sub-word accesses split,
//! and per word the bytes its recorded writes stored (4 bytes, for the comparison by
//! value): 3 bytes of shadow per byte of memory, at most 9 where words are split or keep a
//! second read ([`Page`]).
//! Shared memory's shadow is dense; global memory's is paged and lazily allocated. Reads
//! follow FastTrack's read epochs (Flanagan and Freund, PLDI 2009), bounded: a read
//! replaces the recorded reads that happen before it (they race with no write it does not
//! race with), and when the recorded read is another thread's that nothing orders before
//! it, a whole word keeps both (the second in a slot of the page, preferring a read of
//! another warp). So a write meets an unordered read of another thread whichever thread
//! read last: every thread reading `a[0]` and then thread 255 writing it is a race, as it
//! is with thread 0 or 254 writing. What two slots cannot keep: with three or more
//! unordered readers, a synchronisation of only part of the block (`__syncwarp`, a named
//! barrier with a count) can order both kept reads before the write but not a forgotten
//! one; and a byte of a split word keeps one read.
//! A write that a thread overwrites itself in the same interval at another instruction is
//! kept in a sparse side table (flagged in the cell), so it still races with another
//! thread's later access.
//!
//! Races between blocks are found when the blocks' observers are merged (in block order):
//! at its end each block's global shadow becomes its summary (per unit one write, with the
//! bytes it stored, and one read, its references rewritten in place to name (site, kind)
//! pairs and threads, so the event log can go) and is compared with the summary of all
//! earlier blocks (preferring plain over strong accesses), kept at word granularity until
//! an access splits a word (3 to 9 bytes of shadow per byte).
//!
//! On big launches only a sample of blocks is watched (`crate::sample`: the edges of the
//! grid and pairs of neighbouring blocks, 256 by default); the other blocks run unobserved
//! by this checker and a `race-check-sampled` note says how many were watched.
//!
//! Each distinct race (memory space, pair of instructions with their access kinds) is
//! reported once with its first witness and an occurrence count (one per racing lane
//! access).

mod block;
mod clocks;
mod release;
mod report;
mod shadow;

use std::sync::Arc;
use std::sync::atomic::AtomicU64;

use rustc_hash::FxHashMap as HashMap;

use warpcheck_emu::{MemKind, ObserverFactory, RunOutcome};
use warpcheck_ir::modifiers::MemSpace;

use crate::{
    BlockSample, Check, CheckOptions, IntraWarp, LaunchCheck, LaunchInfo, RaceBlocks, ReportCx,
    Site,
};
pub use block::RaceBlock;
pub use report::Values;
use report::{Found, FoundKey, RaceKey, found_key, race_key};
use shadow::{Shadow, Witness};
use warpcheck_report::Finding;
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

    pub fn is_atomic(self) -> bool {
        self.0 & Self::ATOMIC != 0
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
    /// What the racing writes stored: equal values in every occurrence make a
    /// `benign-race` warning unless `--strict-races`.
    pub values: Values,
    /// Between blocks: one access came after an acquire that did not learn the other
    /// ([`release`]).
    pub unpublished: bool,
}

/// Races found in a session, in order of discovery.
pub struct RaceState {
    intra_warp: IntraWarp,
    /// Which blocks of big launches are watched.
    blocks: RaceBlocks,
    races: Vec<Race>,
    index: HashMap<RaceKey, usize>,
    /// Launches in which a block's event log overflowed (checking stopped in that block).
    saturated: Vec<String>,
    /// Each kernel's shared variables, to name shared addresses.
    shared_vars: HashMap<String, Vec<warpcheck_emu::SharedVar>>,
    /// Per kernel whose launches were sampled: blocks watched and blocks run.
    sampled: Vec<(String, u64, u64)>,
    /// Same-value write-write races are errors too.
    strict: bool,
}

impl Check for RaceState {
    type Launch<'s> = RaceLaunch<'s>;
    type Block = RaceBlock;

    fn new(options: &CheckOptions) -> RaceState {
        RaceState {
            intra_warp: options.intra_warp,
            blocks: options.race_blocks,
            races: Vec::new(),
            index: HashMap::default(),
            saturated: Vec::new(),
            shared_vars: HashMap::default(),
            sampled: Vec::new(),
            strict: options.strict_races,
        }
    }

    fn launch(&mut self, info: &LaunchInfo, seq: u64) -> RaceLaunch<'_> {
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
            // Seeded by the launch's position in the session: deterministic, and repeated
            // launches of one kernel watch different blocks.
            sample: BlockSample::new(info.grid, self.blocks, seq),
            seq: Arc::new(AtomicU64::new(0)),
            sync_sets: Vec::new(),
            sync_index: HashMap::default(),
            state: self,
        }
    }

    fn findings(&self, cx: &ReportCx) -> Vec<Finding> {
        self.race_findings(cx)
    }
}

impl RaceState {
    /// The distinct races found so far, in order of discovery.
    pub fn races(&self) -> &[Race] {
        &self.races
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
            Some(&i) => {
                let r = &mut self.races[i];
                r.occurrences += race.occurrences;
                if r.values.first_differ(race.values) {
                    (r.first, r.second) = (race.first, race.second);
                    (r.address, r.target) = (race.address, race.target);
                }
                r.values = r.values.join(race.values);
                r.unpublished |= race.unpublished;
            }
            None => {
                self.index.insert(key, self.races.len());
                self.races.push(race);
            }
        }
    }
}

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
    /// The order of the launch's releases and acquires ([`release`]).
    seq: Arc<AtomicU64>,
    /// The synchronisation of witnesses (`Witness::sync`; index 0: none).
    sync_sets: Vec<release::SyncSet>,
    sync_index: HashMap<release::SyncSet, u32>,
    state: &'s mut RaceState,
}

impl RaceLaunch<'_> {
    fn witness(&self, r: u32) -> Access {
        let w = self.witnesses[(r >> 10) as usize - 1];
        Access {
            site: w.site,
            kind: w.kind,
            block: w.block,
            thread: r & 1023,
        }
    }

    /// Whether the store of reference `r` reported its values.
    fn witness_valued(&self, r: u32) -> bool {
        self.witnesses[(r >> 10) as usize - 1].valued
    }

    fn add_found(&mut self, f: Found) {
        let key = found_key(f.space, f.scope, &f.first, &f.second);
        if let Some(&i) = self.found_index.get(&key) {
            let r = &mut self.found[i];
            r.occurrences += f.occurrences;
            if r.values.first_differ(f.values) {
                (r.first, r.second, r.address) = (f.first, f.second, f.address);
            }
            r.values = r.values.join(f.values);
            r.unpublished |= f.unpublished;
            return;
        }
        self.found_index.insert(key, self.found.len());
        self.found.push(Race {
            kernel: self.kernel.clone(),
            space: f.space,
            scope: f.scope,
            first: f.first,
            second: f.second,
            address: f.address,
            target: String::new(),
            block_dim: self.block_dim,
            occurrences: f.occurrences,
            values: f.values,
            unpublished: f.unpublished,
        });
    }
}

impl LaunchCheck for RaceLaunch<'_> {
    /// Whether the race checker watches this block of the launch.
    fn watches(&self, block: [u32; 3]) -> bool {
        self.sample.watches(block)
    }

    /// Names the launch's races (global addresses by buffer) and adds them to the
    /// session's, with the sampling and saturation notes.
    fn finish(self, info: &LaunchInfo, outcome: &RunOutcome) {
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
        RaceBlock::new(block, self.intra_warp, self.warps, Arc::clone(&self.seq))
    }

    /// Keeps the observer's allocations: event log, shadows and the site table of the
    /// summary, which the launch has merged. Only the block's identity is set here; the
    /// rest is cleared when the block starts, on the host thread that runs it (see
    /// [`crate::Launch`]).
    fn recycle(&self, o: &mut RaceBlock, block: [u32; 3]) {
        o.renew(block, self.intra_warp, self.warps, &self.seq);
    }

    fn merge(&mut self, observers: &mut [([u32; 3], RaceBlock)]) {
        for (_, o) in observers {
            self.saturated |= o.saturated;
            let mut found = std::mem::take(&mut o.found);
            for f in found.drain(..) {
                self.add_found(f);
            }
            o.found = found;
            self.merge_block(o);
        }
    }

    /// The grid-wide barrier orders every block's earlier accesses before all later
    /// ones: the comparison between blocks starts again.
    fn grid_barrier(&mut self) {
        self.global.clear();
        self.witnesses.clear();
        self.sync_sets.clear();
        self.sync_index.clear();
    }
}
