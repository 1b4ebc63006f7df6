//! Identical launches are reused, not run again.
//!
//! Benchmark loops launch one kernel many times on the same inputs (NVIDIA's samples run a
//! kernel 100 or 300 times to time it, llm.c's `dev/cuda` programs 100 times). The emulator
//! is deterministic: a launch of the same kernel with the same configuration, parameter
//! bytes, constant memory, texture bindings and device memory as an earlier launch executes
//! the same instructions, so it leaves the same memory and `printf` output and has the same
//! findings. Such a launch is *reused*: the earlier launch's changes to device memory are
//! applied, its `printf` output printed again, and it counts as a launch in reports (with
//! the earlier launch's lane-instructions); the emulated clock advances by the earlier
//! launch's time.
//!
//! How a repeat is recognised: the first launch of a key (kernel, configuration, parameter
//! bytes) only notes the key. A later one hashes device memory in [`CHUNK`]-byte chunks
//! (XXH3, 128 bits) before it runs; when the key has a recorded launch whose memory hashed
//! the same, that launch is reused. Otherwise the launch runs, memory is hashed again after
//! it, and the chunks it changed become the key's recorded *effect*. After [`MAX_MISSES`]
//! misses in a row a key is tried again only after 4, 8, 16, … further launches of it,
//! memory's hashes are kept between snapshots and only the chunks that host writes changed
//! since are hashed again (a kernel that ran, or allocations that changed, mean all;
//! [`GlobalMemory::take_written`]), a reused launch's effect updates them without hashing,
//! and memory is hashed only when that is expected to cost at most a quarter of the key's
//! last run, so programs whose launches do not repeat pay almost nothing. Effects are kept up to [`MAX_EFFECT_BYTES`] in total.
//!
//! Never reused: launches that faulted (their errors must recur), launches of kernels that
//! call device `malloc` or `free` (the heap's block table is not in the hashed memory),
//! and every launch under `--rerun-identical`. Under `check` the checkers do not see a reused launch: its findings
//! are those of the launch it repeats, already reported (the initialisation checker's
//! state only grows, so a repeat cannot newly read unwritten bytes); counts (wavefronts,
//! sectors, the HTML report's heat) cover the launches that ran, and a note says how many
//! launches of which kernel were reused.

use std::collections::HashMap;
use std::time::Instant;

use warpcheck_emu::GlobalMemory;
use warpcheck_emu::texture::Textures;
use warpcheck_ir::FuncId;
use xxhash_rust::xxh3::{Xxh3, xxh3_128};

/// Bytes hashed as one unit; the effect of a launch is kept chunk by chunk.
pub const CHUNK: usize = 64 << 10;
/// Misses in a row after which a key is no longer tried.
pub const MAX_MISSES: u32 = 3;
/// The effects kept, in bytes, over all keys.
pub const MAX_EFFECT_BYTES: usize = 256 << 20;
/// Keys remembered before the table starts again.
const MAX_KEYS: usize = 1 << 16;

/// What makes two launches the same, apart from memory.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct LaunchKey {
    pub module: usize,
    pub kernel: FuncId,
    pub params: Vec<u8>,
    pub grid: [u32; 3],
    pub block: [u32; 3],
    pub shared: u32,
    pub cooperative: bool,
}

/// Device memory hashed chunk by chunk, with the state outside memory a launch reads.
pub struct Snapshot {
    /// (address, length, hash) of every chunk of every allocation, in address order.
    chunks: Vec<(u64, u32, u128)>,
    /// The module's constant bank (its `.const` initialisers) and the bound textures.
    consts: u128,
    textures: Textures,
}

impl Snapshot {
    fn same_state(&self, other: &Snapshot) -> bool {
        self.consts == other.consts
            && self.textures == other.textures
            && self.chunks == other.chunks
    }
}

/// A launch that ran and can be reused.
pub struct Recorded {
    before: Snapshot,
    /// The chunks the launch changed: address, bytes and their hash after the launch.
    effect: Vec<(u64, Vec<u8>, u128)>,
    pub printf: String,
    pub lane_instructions: u64,
    pub seconds: f64,
}

impl Recorded {
    fn effect_bytes(&self) -> usize {
        self.effect.iter().map(|(_, b, _)| b.len()).sum()
    }
}

#[derive(Default)]
struct KeyState {
    recorded: Option<Recorded>,
    /// Wall-clock seconds of the key's last run.
    last_seconds: f64,
    /// Wall-clock seconds the key ran since memory was last hashed for it: a key whose
    /// single launch is too short to pay for a hash pays for one once its runs add up
    /// (rent or buy: hashing then costs at most a quarter of the time spent running).
    unhashed_seconds: f64,
    misses: u32,
    /// Launches of the key to let run before trying again (after [`MAX_MISSES`] misses).
    skip: u64,
    /// Order of the last recording, for dropping the oldest effects.
    stamp: u64,
}

impl KeyState {
    /// Whether this launch of the key is worth hashing memory for.
    fn try_now(&mut self, hash_seconds: f64) -> bool {
        if self.misses >= MAX_MISSES && self.skip > 0 {
            self.skip -= 1;
            return false;
        }
        hash_seconds <= self.last_seconds.max(self.unhashed_seconds) / 4.0
    }

    /// A launch of the key ran for `seconds`, with memory hashed before it or not.
    fn ran(&mut self, seconds: f64, hashed: bool) {
        self.last_seconds = seconds;
        self.unhashed_seconds = if hashed {
            0.0
        } else {
            self.unhashed_seconds + seconds
        };
    }

    /// A recorded launch did not match this one.
    fn missed(&mut self) {
        self.misses += 1;
        if self.misses >= MAX_MISSES {
            self.skip = 1 << (self.misses - MAX_MISSES + 2).min(20);
        }
    }
}

/// The launches that can be reused (which launches were is in their records,
/// [`crate::state::LaunchRecord::reused`]).
#[derive(Default)]
pub struct Identical {
    keys: HashMap<LaunchKey, KeyState>,
    effect_bytes: usize,
    stamp: u64,
    hasher: Hasher,
}

/// Hashes memory and measures how fast it does. It keeps the chunk hashes of its last
/// snapshot and, when memory says which ranges host writes changed since
/// ([`GlobalMemory::take_written`]), hashes only the chunks they touch.
#[derive(Default)]
struct Hasher {
    bytes: f64,
    seconds: f64,
    cached: Option<Vec<(u64, u32, u128)>>,
}

/// What to do before a launch runs.
pub enum Before {
    /// Run it; nothing to record.
    Run,
    /// Run it and record it against this snapshot of memory.
    Record(Snapshot),
    /// Reuse this recorded launch (its effect is already applied).
    Reuse {
        printf: String,
        lane_instructions: u64,
        seconds: f64,
    },
}

/// The module's constant bank: every `.const` variable's initial bytes.
fn consts_hash(program: &warpcheck_ir::Program) -> u128 {
    let mut h = Xxh3::new();
    for &v in &program.globals {
        let var = program.variable(v);
        if var.space == warpcheck_ptx::ast::StateSpace::Const {
            h.update(var.name.as_bytes());
            if let Some(init) = &var.init {
                h.update(&(init.bytes.len() as u64).to_le_bytes());
                h.update(&init.bytes);
            }
        }
    }
    h.digest128()
}

impl Hasher {
    /// Bytes per second of hashing: measured, or a conservative first guess.
    fn rate(&self) -> f64 {
        if self.seconds > 0.01 {
            self.bytes / self.seconds
        } else {
            4e9
        }
    }

    fn snapshot(&mut self, memory: &mut GlobalMemory, program: &warpcheck_ir::Program) -> Snapshot {
        let start = Instant::now();
        let written = memory.take_written();
        let (chunks, bytes) = match (self.cached.take(), written) {
            (Some(cached), Some(ranges)) => rehash(cached, &ranges, memory),
            _ => hash_all(memory),
        };
        self.cached = Some(chunks.clone());
        self.bytes += bytes as f64;
        self.seconds += start.elapsed().as_secs_f64();
        Snapshot {
            chunks,
            consts: consts_hash(program),
            textures: memory.textures().clone(),
        }
    }

    /// Seconds a snapshot of `memory` is expected to take now.
    fn cost(&self, memory: &GlobalMemory) -> f64 {
        let bytes = match (&self.cached, memory.written_bytes()) {
            (Some(_), Some(written)) => written as usize,
            _ => memory.allocations().iter().map(|a| a.size() as usize).sum(),
        };
        bytes as f64 / self.rate()
    }

    /// After `effect` (whose chunks hash to `hashes`) was written over the memory of the
    /// last snapshot: the cached hashes become the effect's, without hashing.
    fn applied(&mut self, memory: &mut GlobalMemory, effect: &[(u64, Vec<u8>, u128)]) {
        let (Some(cached), Some(_)) = (&mut self.cached, memory.take_written()) else {
            self.cached = None;
            return;
        };
        for (address, _, hash) in effect {
            match cached.binary_search_by_key(address, |c| c.0) {
                Ok(i) => cached[i].2 = *hash,
                Err(_) => {
                    self.cached = None;
                    return;
                }
            }
        }
    }
}

/// Every chunk of every allocation, hashed; and the bytes hashed.
fn hash_all(memory: &mut GlobalMemory) -> (Vec<(u64, u32, u128)>, usize) {
    let mut chunks = Vec::new();
    let mut bytes = 0usize;
    for (base, data) in memory.contents() {
        bytes += data.len();
        for (i, c) in data.chunks(CHUNK).enumerate() {
            chunks.push((base + (i * CHUNK) as u64, c.len() as u32, xxh3_128(c)));
        }
    }
    (chunks, bytes)
}

/// `cached` with the chunks that `ranges` overlap hashed again; and the bytes hashed.
fn rehash(
    mut cached: Vec<(u64, u32, u128)>,
    ranges: &[(u64, u64)],
    memory: &mut GlobalMemory,
) -> (Vec<(u64, u32, u128)>, usize) {
    let allocations: Vec<(u64, &[u8])> = memory.contents().collect();
    let mut bytes = 0usize;
    for &(start, len) in ranges {
        let first = cached.partition_point(|c| c.0 + u64::from(c.1) <= start);
        for chunk in cached[first..].iter_mut().take_while(|c| c.0 < start + len) {
            let i = allocations.partition_point(|a| a.0 <= chunk.0) - 1;
            let (base, data) = allocations[i];
            let at = (chunk.0 - base) as usize;
            chunk.2 = xxh3_128(&data[at..at + chunk.1 as usize]);
            bytes += chunk.1 as usize;
        }
    }
    (cached, bytes)
}

impl Identical {
    /// Decides, before `key` runs, whether to reuse a recorded launch (applying its
    /// effect to `memory`), to record this one, or just to run it.
    pub fn before(
        &mut self,
        key: &LaunchKey,
        memory: &mut GlobalMemory,
        program: &warpcheck_ir::Program,
    ) -> Before {
        if self.keys.len() >= MAX_KEYS && !self.keys.contains_key(key) {
            self.keys.clear();
            self.effect_bytes = 0;
        }
        let hash_seconds = self.hasher.cost(memory);
        let Some(state) = self.keys.get_mut(key) else {
            self.keys.insert(key.clone(), KeyState::default());
            return Before::Run;
        };
        if !state.try_now(hash_seconds) {
            return Before::Run;
        }
        let now = self.hasher.snapshot(memory, program);
        match &state.recorded {
            Some(r) if r.before.same_state(&now) => {
                for (address, bytes, _) in &r.effect {
                    // The chunks lie in allocations of the same layout (the snapshot
                    // matched), so the writes cannot fail.
                    let _ = memory.write(*address, bytes);
                }
                self.hasher.applied(memory, &r.effect);
                state.misses = 0;
                Before::Reuse {
                    printf: r.printf.clone(),
                    lane_instructions: r.lane_instructions,
                    seconds: r.seconds,
                }
            }
            _ => Before::Record(now),
        }
    }

    /// After a launch of `key` ran (`seconds` of wall clock): notes its time, and records
    /// it against `before` when it may be reused.
    pub fn after(
        &mut self,
        key: &LaunchKey,
        before: Option<Snapshot>,
        memory: &mut GlobalMemory,
        program: &warpcheck_ir::Program,
        outcome: Option<&warpcheck_emu::RunOutcome>,
        seconds: f64,
    ) {
        let reusable = outcome.filter(|o| o.faults.is_empty() && o.fault_count == 0);
        let hashed = before.is_some();
        let recording = match (before, reusable) {
            (Some(b), Some(o)) => Some(self.recording(b, memory, program, o, seconds)),
            _ => None,
        };
        self.stamp += 1;
        let stamp = self.stamp;
        let Some(state) = self.keys.get_mut(key) else {
            return;
        };
        state.ran(seconds, hashed);
        if reusable.is_none() {
            state.misses = MAX_MISSES;
            state.skip = u64::MAX;
        }
        let Some(recorded) = recording.flatten() else {
            return;
        };
        if state.recorded.is_some() {
            state.missed();
        }
        if let Some(old) = state.recorded.take() {
            self.effect_bytes -= old.effect_bytes();
        }
        self.effect_bytes += recorded.effect_bytes();
        state.recorded = Some(recorded);
        state.stamp = stamp;
        self.evict();
    }

    /// The recorded launch: what changed between `before` and memory now; `None` when the
    /// effect alone is over the limit or the allocations changed.
    fn recording(
        &mut self,
        before: Snapshot,
        memory: &mut GlobalMemory,
        program: &warpcheck_ir::Program,
        outcome: &warpcheck_emu::RunOutcome,
        seconds: f64,
    ) -> Option<Recorded> {
        let after = self.hasher.snapshot(memory, program);
        let same_layout = before.chunks.len() == after.chunks.len()
            && before
                .chunks
                .iter()
                .zip(&after.chunks)
                .all(|(a, b)| a.0 == b.0 && a.1 == b.1);
        if !same_layout {
            return None;
        }
        let mut effect = Vec::new();
        let mut bytes = 0usize;
        for (b, a) in before.chunks.iter().zip(&after.chunks) {
            if b.2 != a.2 {
                bytes += a.1 as usize;
                if bytes > MAX_EFFECT_BYTES / 4 {
                    return None;
                }
                effect.push((a.0, memory.read(a.0, a.1 as u64).ok()?, a.2));
            }
        }
        Some(Recorded {
            before,
            effect,
            printf: outcome.printf.clone(),
            lane_instructions: outcome.stats.lane_instructions,
            seconds,
        })
    }

    /// Drops the oldest recorded effects until the total is under the limit.
    fn evict(&mut self) {
        while self.effect_bytes > MAX_EFFECT_BYTES {
            let oldest = self
                .keys
                .values_mut()
                .filter(|s| s.recorded.as_ref().is_some_and(|r| !r.effect.is_empty()))
                .min_by_key(|s| s.stamp);
            let Some(state) = oldest else { return };
            if let Some(r) = state.recorded.take() {
                self.effect_bytes -= r.effect_bytes();
            }
        }
    }
}

impl crate::state::Runtime {
    /// The key of a launch, `None` when launches are never reused.
    pub(crate) fn identical_key(
        &self,
        (module, kernel): (usize, FuncId),
        params: &[u8],
        config: &warpcheck_emu::LaunchConfig,
    ) -> Option<LaunchKey> {
        // A kernel that calls `malloc` or `free` changes the device heap's block table,
        // which the memory hashes do not see: it always runs.
        let program = &self.modules[module].program;
        let heap = warpcheck_emu::heap::uses_heap(program, kernel);
        (!self.config.rerun_identical && !heap).then(|| LaunchKey {
            module,
            kernel,
            params: params.to_vec(),
            grid: config.grid,
            block: config.block,
            shared: config.dynamic_shared,
            cooperative: config.cooperative,
        })
    }

    /// Before launch `index` of `key` runs: reuses an identical earlier launch (filling in
    /// the launch's record and printing its output; `Ok`), or returns what to record
    /// after the run (`Err`).
    pub(crate) fn reuse_identical(
        &mut self,
        key: Option<&LaunchKey>,
        index: usize,
    ) -> Result<(), Option<Snapshot>> {
        let Some(key) = key else { return Err(None) };
        let program = &self.modules[key.module].program;
        match self.identical.before(key, &mut self.memory, program) {
            Before::Run => Err(None),
            Before::Record(s) => Err(Some(s)),
            Before::Reuse {
                printf,
                lane_instructions,
                seconds,
            } => {
                let record = &mut self.launches[index];
                record.lane_instructions = lane_instructions;
                record.reused = true;
                self.clock_ms += seconds * 1e3;
                crate::printf::write_stdout(&printf);
                Ok(())
            }
        }
    }

    /// After a launch of `key` ran: records it for reuse when `before` was taken.
    pub(crate) fn record_identical(
        &mut self,
        key: Option<&LaunchKey>,
        before: Option<Snapshot>,
        outcome: Option<&warpcheck_emu::RunOutcome>,
        seconds: f64,
    ) {
        let Some(key) = key else { return };
        let program = &self.modules[key.module].program;
        self.identical
            .after(key, before, &mut self.memory, program, outcome, seconds);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A launch much shorter than hashing memory is not worth a hash by itself, but once
    /// the key's unhashed runs add up to four times the hash, it is (and the count
    /// starts again after a hash).
    #[test]
    fn short_launches_pay_for_a_hash_once_their_runs_add_up() {
        let mut k = KeyState::default();
        let hash = 0.4;
        k.ran(0.015, false);
        assert!(
            !k.try_now(hash),
            "one 15 ms run does not pay for a 0.4 s hash"
        );
        for _ in 0..105 {
            k.ran(0.015, false);
        }
        assert!(
            !k.try_now(hash),
            "1.59 s of runs: not yet four times the hash"
        );
        k.ran(0.015, false);
        assert!(
            k.try_now(hash),
            "1.605 s of runs: the hash costs a quarter of them"
        );
        k.ran(0.015, true);
        assert!(!k.try_now(hash), "hashed: the count starts again");
        assert!(
            k.try_now(0.003),
            "a hash within a quarter of one run is always worth it"
        );
    }
}
