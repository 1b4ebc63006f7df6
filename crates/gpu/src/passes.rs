//! The orchestration of LD's inter-block checking (§4.1–4.6), generic over the
//! [`Executor`]: which runs happen, and what their small results mean. The copies stay on
//! the device ([`crate::device`]) and are compared there by LD's data-parallel steps
//! ([`crate::kernels`]); the host sees counts, witness offsets and per-copy first
//! offsets, and turns the few witnesses into races with sites ([`crate::attribution`]).
//!
//! Notation (LD Fig. 3): `S` is a target buffer's contents before the launch, `P¹_b` block
//! `b`'s private copy after pass 1, `W¹_b` the bytes where `P¹_b` differs from `S` (the
//! block's writes), `U` the union: `S` with every block's writes applied in block order.
//!
//! * **Write-write**: a byte in `W¹_a` and `W¹_b` (a ≠ b) with different values is a race;
//!   with equal values it is benign (LD §4.7) and reported as a note.
//! * **Read-write**: pass 2 starts block `b` from `U` with `W¹_b` reverted to `S` (it sees
//!   every other block's writes, not its own), and expects it to end at `E_b`: `U` with
//!   `W¹_b` applied. Without write-write races `E_b = U`, LD's test `P²_b = U`; with them
//!   `E_b` keeps `b`'s own values, so a write-write race is not reported again as a
//!   read-write race. A byte where `P²_b ≠ E_b` means `b` read another block's write.
//! * **Witnesses**: the other block of a read-write race is found by bisection: block `b`
//!   reruns from `S` plus the writes of a prefix of the writing blocks, all racy blocks in
//!   one run per step (`log2` of the number of writing blocks runs). Source lines come
//!   from one or two runs of the attribution variant (site maps), only when races exist.
//! * **Deterministic execution** ([`deterministic`]): pass 1 and the merge in block order.
//!
//! All bytes of a target are compared, so checking is byte-granular (no false sharing).
//!
//! **Bounds** on what comes back: the merge keeps the first [`crate::kernels::MAX_RECORDS`]
//! witness events of each target in offset order (with counts of all); when a launch has
//! no more events than that, the witnesses kept ([`thin`]: [`OFFSETS_PER_PAIR`] per pair of
//! copies, [`MAX_PAIRS`] pairs in copy order) are exactly those of a comparison of whole
//! copies on the host.
//!
//! **Memory**: a round holds two sets of copies (pass 1's, which later runs compare with,
//! and the set a run writes), each within [`CheckOptions::max_private_bytes`], plus the
//! launch's buffers three times (before, working, after pass 1).

use std::time::{Duration, Instant};

use crate::device::{self, Pass1, Resident};
use crate::exec::{Arg, Executor, Metered, Traffic};
use crate::kernels::Seed;
use crate::{GpuError, Instrumented};
use warpcheck_emu::sample::{BlockSample, RaceBlocks};

/// One buffer of a launch: its name (for reports) and contents.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LaunchBuffer {
    pub name: String,
    pub bytes: Vec<u8>,
}

/// A launch of the original kernel: arguments refer to [`Launch::buffers`], which hold the
/// contents before the launch and, after checking, after it.
#[derive(Clone, Debug)]
pub struct Launch {
    pub grid: [u32; 3],
    pub block: [u32; 3],
    pub shared: u32,
    pub args: Vec<Arg>,
    pub buffers: Vec<LaunchBuffer>,
}

/// Limits of the checking.
#[derive(Clone, Copy, Debug)]
pub struct CheckOptions {
    /// The most bytes one set of private copies may take (a round holds two sets: see
    /// the module documentation). Fewer copies than units
    /// means memory-adaptive rounds (LD §4.5): units share copies, reshuffled between
    /// rounds.
    pub max_private_bytes: u64,
    /// The most memory-adaptive rounds spent on checking every unit: a launch that
    /// needs more watches a sample of its blocks ([`CheckOptions::blocks`], see
    /// [`unit_maps`]).
    pub max_rounds: usize,
    /// The blocks watched when the rounds exceed [`CheckOptions::max_rounds`]: the race
    /// checker's block sampling ([`warpcheck_emu::sample`]); `All` never samples.
    pub blocks: RaceBlocks,
    /// Seeds the sample's positions (the launch's index in the session, as on the CPU).
    pub seed: u64,
}

impl CheckOptions {
    /// The default bound on rounds: launches of a few hundred thousand warps check
    /// every unit in at most four rounds with a few dozen copies.
    pub const DEFAULT_MAX_ROUNDS: usize = 4;
}

impl Default for CheckOptions {
    fn default() -> CheckOptions {
        CheckOptions {
            max_private_bytes: 4 << 30,
            max_rounds: CheckOptions::DEFAULT_MAX_ROUNDS,
            blocks: RaceBlocks::default(),
            seed: 0,
        }
    }
}

/// A launch whose units were sampled: checking every unit would have taken more than
/// [`CheckOptions::max_rounds`] rounds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Sampled {
    /// Blocks watched and blocks in the launch.
    pub blocks: u64,
    pub total_blocks: u64,
    /// Units watched (the units of the watched blocks); every other unit shares one
    /// copy, the rest copy.
    pub units: usize,
    /// The rounds that checking every unit would have taken.
    pub full_rounds: usize,
}

/// The kind of a race between units.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum RaceKind {
    /// Two units write one byte with different values.
    WriteWrite,
    /// Two units write one byte with the same value (benign by value, LD §4.7).
    BenignWriteWrite,
    /// A unit read a byte another unit wrote (found by its writes changing in pass 2).
    ReadWrite,
    /// A plain write to a byte that atomics also changed (the first side is the atomic).
    AtomicWrite,
    /// A plain read of a byte that atomics changed: the reading unit's writes change when
    /// it starts from the atomics' results (the first side is the atomic).
    AtomicRead,
}

/// The copy index standing for the atomics (which act on the real buffer) in raw races
/// and partners.
pub(crate) const ATOMIC: u32 = crate::kernels::ATOMIC;

/// One side of a race: a block, its warp when units are warps, and, when attributed, the
/// site that accessed the byte.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Side {
    /// Linear block index.
    pub block: u32,
    /// The warp within the block, when units are warps.
    pub warp: Option<u32>,
    /// Index into [`crate::Plan::sites`].
    pub site: Option<usize>,
    pub write: bool,
}

/// A race between two units on a target buffer.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Race {
    pub kind: RaceKind,
    /// Index into [`crate::Plan::targets`].
    pub target: usize,
    pub buffer: String,
    /// The witness byte's offset in the buffer.
    pub offset: u64,
    /// The earlier unit (writer), then the later one.
    pub first: Side,
    pub second: Side,
}

/// One memory-adaptive round (LD §4.5).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct RoundInfo {
    /// Private copies the units were spread over.
    pub copies: usize,
    /// LD's Equation (1): the probability that a race between two units placed at random
    /// has been found by the end of this round.
    pub probability: f64,
    /// Races this round found.
    pub races: usize,
}

/// What checking one launch found.
#[derive(Clone, Debug, Default)]
pub struct Verdict {
    pub races: Vec<Race>,
    /// Executor runs made: 2 passes per round, plus bisection and attribution runs on
    /// races.
    pub runs: usize,
    /// Units checked against each other: blocks, or warps when `per_warp`.
    pub units: usize,
    /// Whether a unit is a warp (kernels without block barriers) or a block.
    pub per_warp: bool,
    pub rounds: Vec<RoundInfo>,
    /// Set when only a sample of the blocks was watched ([`unit_maps`]).
    pub sampled: Option<Sampled>,
    /// Races between warps of a block on shared memory ([`crate::shared`]).
    pub shared: crate::shared_run::SharedOutcome,
    /// Where the time went, and what crossed between host and device.
    pub profile: Profile,
}

/// Wall time per phase of the checking, and the host-device traffic.
#[derive(Clone, Debug, Default)]
pub struct Profile {
    /// Phases in first-use order with their summed time.
    pub phases: Vec<(&'static str, Duration)>,
    pub traffic: Traffic,
}

impl Profile {
    /// Runs `f`, adding its time to phase `name`.
    pub fn time<T>(&mut self, name: &'static str, f: impl FnOnce() -> T) -> T {
        let start = Instant::now();
        let out = f();
        let spent = start.elapsed();
        match self.phases.iter_mut().find(|p| p.0 == name) {
            Some(p) => p.1 += spent,
            None => self.phases.push((name, spent)),
        }
        out
    }

    /// `phase 0.123, phase 0.004, ...` in seconds, then the traffic.
    pub fn summary(&self) -> String {
        let phases: Vec<String> = self
            .phases
            .iter()
            .map(|(n, d)| format!("{n} {:.3}", d.as_secs_f64()))
            .collect();
        format!(
            "phases (s): {}; {} launches, {} bytes up, {} bytes down",
            phases.join(", "),
            self.traffic.launches,
            self.traffic.uploaded,
            self.traffic.downloaded
        )
    }
}

/// Witness offsets kept per (kind, target, pair of copies).
pub(crate) const OFFSETS_PER_PAIR: usize = 4;
/// Distinct (kind, target, pair of copies) kept in all.
const MAX_PAIRS: usize = 256;

/// Bytes after each private copy that a correct kernel never writes.
const GUARD: usize = 256;

/// Where a target's copies are.
pub(crate) struct TargetLayout {
    /// Index into [`Launch::buffers`].
    pub(crate) buffer: usize,
    /// The buffer's name, for reports.
    pub(crate) name: String,
    pub(crate) size: usize,
    pub(crate) stride: usize,
}

/// The units of a launch and its targets' copy sizes.
pub(crate) struct Layout {
    /// Units per block: 1 (units are blocks) or the warps per block.
    pub(crate) upb: usize,
    pub(crate) units: usize,
    pub(crate) targets: Vec<TargetLayout>,
}

impl Layout {
    /// Bytes of one private copy of every target.
    fn copy_bytes(&self) -> u64 {
        self.targets.iter().map(|t| t.stride as u64).sum()
    }

    /// The linear block and warp of unit `u`.
    pub(crate) fn side(&self, u: u32, site: Option<usize>, write: bool) -> Side {
        Side {
            block: u / self.upb as u32,
            warp: (self.upb > 1).then_some(u % self.upb as u32),
            site,
            write,
        }
    }
}

fn layout(inst: &Instrumented, launch: &Launch) -> Result<Layout, GpuError> {
    let blocks = launch.grid.iter().map(|&g| g as usize).product::<usize>();
    let threads = launch.block.iter().map(|&g| g as usize).product::<usize>();
    // Without block barriers warps never legitimately see each other's plain writes
    // before the kernel ends, so each warp gets its own copy (LD §4: inter-warp).
    let upb = if inst.plan.has_barriers {
        1
    } else {
        threads.div_ceil(32).max(1)
    };
    let mut targets = Vec::new();
    for t in &inst.plan.targets {
        let Some(Arg::Buffer(buffer)) = launch.args.get(t.param) else {
            return Err(GpuError::Launch(format!(
                "GPU mode needs a buffer for pointer parameter `{}`",
                t.ptx_name
            )));
        };
        let size = launch.buffers[*buffer].bytes.len();
        // At least `GUARD` bytes after each copy, to catch writes past the buffer's end.
        let stride = (size + GUARD).div_ceil(256) * 256;
        targets.push(TargetLayout {
            buffer: *buffer,
            name: launch.buffers[*buffer].name.clone(),
            size,
            stride,
        });
    }
    Ok(Layout {
        upb,
        units: blocks * upb,
        targets,
    })
}

/// LD's Equation (1): the probability of having found a race between two of `n` units
/// placed at random after `k` rounds of `m` copies.
pub fn probability(n: usize, m: usize, k: usize) -> f64 {
    if n < 2 {
        return 1.0;
    }
    let n = n as f64;
    let p = n * (1.0 - (m as f64).powi(-(k as i32))) / (n - 1.0);
    p.min(1.0)
}

/// The unit-to-copy maps of the rounds: one round of one copy per unit when `max_copies`
/// allows, else `K = ceil(log_M units)` rounds of `M = max_copies` copies, unit `u` using
/// copy `digit_k(u)` (base `M`, most significant first) in round `k`: units separated in
/// round `k` stay in groups that round `k + 1` splits again (LD's warp reshuffling). Two
/// units differ in some digit, so every pair is in different copies in some round.
pub fn rounds(units: usize, max_copies: usize) -> Vec<Vec<u32>> {
    if units <= max_copies {
        return vec![(0..units as u32).collect()];
    }
    let m = max_copies.max(2);
    let mut k = 0;
    let mut span = 1usize;
    while span < units {
        span = span.saturating_mul(m);
        k += 1;
    }
    (1..=k)
        .map(|r| {
            let div = m.pow((k - r) as u32);
            (0..units).map(|u| ((u / div) % m) as u32).collect()
        })
        .collect()
}

/// The unit-to-copy maps of a launch's rounds, and whether its units were sampled.
///
/// Checking every unit takes `ceil(log_M N)` rounds ([`rounds`]). When that is more than
/// [`CheckOptions::max_rounds`] and the grid has more blocks than the sampling budget,
/// the units of a sample of blocks are watched: the race checker's policy
/// ([`BlockSample`]: the first and last blocks along each grid dimension, pairs of
/// neighbouring blocks; Park, Sen, Iancu, ICS 2013). The watched units and one more,
/// the *rest*, are placed by [`rounds`] as if they were the launch's only units; every
/// unwatched unit uses the rest's copy. So each watched unit is in a copy of its own,
/// apart from every other watched unit and from the rest, in some round: races between
/// two watched units and between a watched and an unwatched unit are found as in
/// unsampled rounds. Unwatched units share one copy in every round, as units sharing a
/// copy within a round do: races between two unwatched units are not checked. (On a GPU,
/// such a race can still change the shared copy's result between the passes, so that the
/// copy is reported in a read-write race whose partner is uncertain, as with rounds.)
pub fn unit_maps(
    units: usize,
    upb: usize,
    grid: [u32; 3],
    max_copies: usize,
    opts: CheckOptions,
) -> (Vec<Vec<u32>>, Option<Sampled>) {
    let full = rounds(units, fewest_copies(units, max_copies));
    if full.len() <= opts.max_rounds.max(1) {
        return (full, None);
    }
    let sample = BlockSample::new(grid, opts.blocks, opts.seed);
    if sample.is_complete() {
        return (full, None);
    }
    let [gx, gy, _] = grid.map(|g| g.max(1) as usize);
    let mut watched = 0u32;
    let virtual_unit: Vec<Option<u32>> = (0..units)
        .map(|u| {
            let b = u / upb;
            let block = [b % gx, (b / gx) % gy, b / (gx * gy)].map(|c| c as u32);
            sample.watches(block).then(|| {
                watched += 1;
                watched - 1
            })
        })
        .collect();
    let rest = watched;
    let n = watched as usize + 1;
    let maps = rounds(n, fewest_copies(n, max_copies))
        .into_iter()
        .map(|m| {
            virtual_unit
                .iter()
                .map(|v| m[v.unwrap_or(rest) as usize])
                .collect()
        })
        .collect();
    let (blocks, total_blocks) = sample.counts();
    let sampled = Sampled {
        blocks,
        total_blocks,
        units: watched as usize,
        full_rounds: full.len(),
    };
    (maps, Some(sampled))
}

/// A race between two copies, before attribution.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct RawRace {
    pub(crate) kind: RaceKind,
    pub(crate) target: usize,
    pub(crate) offset: usize,
    pub(crate) first: u32,
    pub(crate) second: u32,
}

/// Keeps at most [`OFFSETS_PER_PAIR`] offsets per (kind, target, copies) and
/// [`MAX_PAIRS`] such groups.
/// A pair of copies with a real write-write race has no benign bytes reported as well
/// (equal bytes of unequal words are not a benign race).
pub(crate) fn thin(mut races: Vec<RawRace>) -> Vec<RawRace> {
    let racy: std::collections::HashSet<(usize, u32, u32)> = races
        .iter()
        .filter(|r| r.kind == RaceKind::WriteWrite)
        .map(|r| (r.target, r.first, r.second))
        .collect();
    races.retain(|r| {
        r.kind != RaceKind::BenignWriteWrite || !racy.contains(&(r.target, r.first, r.second))
    });
    let mut counts: std::collections::HashMap<(RaceKind, usize, u32, u32), usize> =
        Default::default();
    let mut out = Vec::new();
    for r in races {
        let key = (r.kind, r.target, r.first, r.second);
        let known = counts.len();
        let n = counts.entry(key).or_insert(0);
        if *n < OFFSETS_PER_PAIR && (*n > 0 || known < MAX_PAIRS) {
            *n += 1;
            out.push(r);
        }
    }
    out
}

/// The fewest copies per round that need no more rounds than `max_copies` copies do:
/// each round's comparisons read every copy, so with `K` rounds `ceil(units^(1/K))`
/// copies do the same checking with less device work (LD's `M^K >= N`).
pub fn fewest_copies(units: usize, max_copies: usize) -> usize {
    if units <= max_copies {
        return max_copies;
    }
    let k = rounds(units, max_copies).len() as u32;
    let covers = |m: usize| m.checked_pow(k).is_none_or(|p| p >= units);
    let mut m = ((units as f64).powf(1.0 / k as f64).floor() as usize).max(2);
    while m > 2 && covers(m - 1) {
        m -= 1;
    }
    while !covers(m) {
        m += 1;
    }
    m.min(max_copies.max(2))
}

/// The most private copies of every target that fit `opts`.
fn max_copies(layout: &Layout, opts: CheckOptions) -> usize {
    let per = layout.copy_bytes().max(1);
    (opts.max_private_bytes / per).min(usize::MAX as u64) as usize
}

/// Deterministic execution (LD §4.6): runs the launch with one private copy per unit
/// and merges the units' writes in unit order (warp-id, then block-id order), so racing
/// writes resolve the same way every time: the unit with the highest index wins. Leaves
/// the result in `launch.buffers`. Needs a copy per unit within the memory limit (one
/// pass, no reshuffling).
pub fn deterministic(
    exec: &mut dyn Executor,
    inst: &Instrumented,
    launch: &mut Launch,
    opts: CheckOptions,
) -> Result<(), GpuError> {
    let layout = layout(inst, launch)?;
    if layout.units > max_copies(&layout, opts) {
        return Err(GpuError::Launch(format!(
            "deterministic execution needs one private copy per unit: {} copies of {} bytes, over the limit of {} bytes (--gpu-memory)",
            layout.units,
            layout.copy_bytes(),
            opts.max_private_bytes
        )));
    }
    let mut profile = Profile::default();
    let res = Resident::upload(exec, launch)?;
    let map = (0..layout.units as u32).collect();
    let out =
        device::pass1(exec, inst, launch, &res, &layout, map, &mut profile).and_then(|state| {
            let out = device::write_back(exec, launch, &res, &layout, &state);
            state.allocs.free(exec);
            out
        });
    res.allocs.free(exec);
    out
}

/// Checks one launch for races between units (blocks, or warps of barrier-free
/// kernels), in memory-adaptive rounds when a copy per unit does not fit; leaves the
/// launch's result (as the last round's merge computes it) in `launch.buffers`.
/// `progress` is told about each round as it ends.
pub fn check(
    exec: &mut dyn Executor,
    inst: &Instrumented,
    launch: &mut Launch,
    opts: CheckOptions,
) -> Result<Verdict, GpuError> {
    check_with(exec, inst, launch, opts, &mut |_| {})
}

/// [`check`], calling `progress` after each round.
pub fn check_with(
    exec: &mut dyn Executor,
    inst: &Instrumented,
    launch: &mut Launch,
    opts: CheckOptions,
    progress: &mut dyn FnMut(&RoundInfo),
) -> Result<Verdict, GpuError> {
    let layout = layout(inst, launch)?;
    let m = max_copies(&layout, opts);
    if m < 2 && layout.units > 1 {
        return Err(GpuError::Launch(format!(
            "two private copies of the written buffers ({} bytes each) do not fit the limit of {} bytes (--gpu-memory); GPU mode needs at least two",
            layout.copy_bytes(),
            opts.max_private_bytes
        )));
    }
    let (maps, sampled) = unit_maps(layout.units, layout.upb, launch.grid, m, opts);
    let mut verdict = Verdict {
        units: layout.units,
        per_warp: layout.upb > 1,
        sampled,
        ..Verdict::default()
    };
    let mut exec = Metered::new(exec);
    let mut profile = Profile::default();
    let res = profile.time("upload", || Resident::upload(&mut exec, launch))?;
    match profile.time("shared", || {
        crate::shared_run::check(&mut exec, inst, launch, &res, opts)
    }) {
        Ok(s) => verdict.shared = s,
        Err(e) => {
            res.allocs.free(&mut exec);
            return Err(e);
        }
    }
    let cx = Cx {
        inst,
        layout: &layout,
        res: &res,
    };
    let out = check_rounds(
        &mut exec,
        &cx,
        launch,
        maps,
        progress,
        &mut verdict,
        &mut profile,
    );
    res.allocs.free(&mut exec);
    out?;
    profile.traffic = exec.traffic;
    verdict.profile = profile;
    Ok(verdict)
}

/// What every run of one launch's checking shares.
pub(crate) struct Cx<'a> {
    pub(crate) inst: &'a Instrumented,
    pub(crate) layout: &'a Layout,
    pub(crate) res: &'a Resident,
}

/// The rounds of [`check_with`]; the last one's merge is written back to `launch`.
fn check_rounds(
    exec: &mut dyn Executor,
    cx: &Cx<'_>,
    launch: &mut Launch,
    maps: Vec<Vec<u32>>,
    progress: &mut dyn FnMut(&RoundInfo),
    verdict: &mut Verdict,
    profile: &mut Profile,
) -> Result<(), GpuError> {
    let last = maps.len().saturating_sub(1);
    for (k, map) in maps.into_iter().enumerate() {
        let mut state = device::pass1(exec, cx.inst, launch, cx.res, cx.layout, map, profile)?;
        state.races = thin(std::mem::take(&mut state.races));
        let out = round(exec, cx, launch, &state, profile).and_then(|found| {
            if k == last {
                profile.time("write-back", || {
                    device::write_back(exec, launch, cx.res, cx.layout, &state)
                })?;
            }
            Ok(found)
        });
        let copies = state.copies;
        state.allocs.free(exec);
        let (races, runs) = out?;
        verdict.runs += runs;
        // Over the units placed: the watched ones and the rest when sampled.
        let placed = verdict.sampled.map_or(cx.layout.units, |s| s.units + 1);
        let info = RoundInfo {
            copies,
            probability: probability(placed, copies.max(2), k + 1),
            races: races.len(),
        };
        progress(&info);
        verdict.rounds.push(info);
        for r in races {
            let same = |a: &Race| {
                a.kind == r.kind
                    && a.target == r.target
                    && a.offset == r.offset
                    && a.first.block == r.first.block
                    && a.second.block == r.second.block
                    && a.first.warp == r.first.warp
                    && a.second.warp == r.second.warp
            };
            if !verdict.races.iter().any(same) {
                verdict.races.push(r);
            }
        }
    }
    Ok(())
}

/// The second pass, bisection and attribution of one round; its races and runs (pass 1
/// included).
fn round(
    exec: &mut dyn Executor,
    cx: &Cx<'_>,
    launch: &Launch,
    state: &Pass1,
    profile: &mut Profile,
) -> Result<(Vec<Race>, usize), GpuError> {
    let (inst, res, layout) = (cx.inst, cx.res, cx.layout);
    let mut runs = 2;
    let mut mismatches = profile.time("pass 2", || {
        device::pass2(exec, inst, launch, res, layout, state)
    })?;
    let mut partners = if mismatches.is_empty() {
        Vec::new()
    } else {
        let (p, n) = profile.time("bisect", || bisect(exec, cx, launch, state, &mismatches))?;
        runs += n;
        p
    };
    if state.atomic_bytes.iter().any(|&a| a > 0) {
        let mut found = profile.time("atomic reads", || {
            device::atomic_reads(exec, inst, launch, res, layout, state)
        })?;
        runs += 1;
        // A copy whose plain write already races with the atomics changes in this run
        // for that reason alone.
        found.retain(|m| {
            !state
                .races
                .iter()
                .any(|r| r.kind == RaceKind::AtomicWrite && r.second == m.0)
        });
        partners.extend(found.iter().map(|m| (m.0, ATOMIC)));
        mismatches.extend(found);
    }
    if state.races.is_empty() && partners.is_empty() {
        return Ok((Vec::new(), runs));
    }
    let (races, n) = profile.time("attribution", || {
        crate::attribution::attribute(exec, cx, launch, state, &partners, &mismatches)
    })?;
    Ok((races, runs + n))
}

/// Finds, for each copy with a pass-2 mismatch, a writing copy whose writes alone change
/// its result: bisection over prefixes of the writers, all copies at once. Returns
/// (copy, partner) pairs and the number of runs.
fn bisect(
    exec: &mut dyn Executor,
    cx: &Cx<'_>,
    launch: &Launch,
    state: &Pass1,
    mismatches: &[(u32, usize, usize)],
) -> Result<(Vec<(u32, u32)>, usize), GpuError> {
    let all = device::writers(exec, state)?;
    // (copy, candidates, lo, hi): the prefix of length `hi` changes the copy's result,
    // the one of length `lo` is assumed not to.
    let mut search: Vec<(u32, Vec<u32>, usize, usize)> = mismatches
        .iter()
        .map(|&(b, _, _)| {
            let c: Vec<u32> = all.iter().copied().filter(|&w| w != b).collect();
            let n = c.len();
            (b, c, 0, n)
        })
        .filter(|s| s.3 > 0)
        .collect();
    let mut runs = 0;
    while search.iter().any(|s| s.3 - s.2 > 1) {
        let mut seeds = vec![Seed::default(); state.copies];
        for (b, c, lo, hi) in &search {
            seeds[*b as usize] = Seed {
                from: c[..(lo + hi) / 2].to_vec(),
            };
        }
        let out = device::seeded_run(exec, cx.inst, launch, cx.res, cx.layout, state, &seeds)?;
        runs += 1;
        for (b, _, lo, hi) in &mut search {
            if *hi - *lo <= 1 {
                continue;
            }
            let mid = (*lo + *hi) / 2;
            if out[*b as usize].0.is_some() {
                *hi = mid;
            } else {
                *lo = mid;
            }
        }
    }
    Ok((
        search.iter().map(|(b, c, _, hi)| (*b, c[hi - 1])).collect(),
        runs,
    ))
}
