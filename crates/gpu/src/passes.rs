//! The host side of LD's inter-block checking (§4.1–4.4, §4.6), generic over the
//! [`Executor`].
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

use crate::exec::{Arg, Executor, KernelRun};
use crate::rewrite::Variant;
use crate::{GpuError, Instrumented, SiteKind};

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
    /// The most bytes the private copies of one run may take. Fewer copies than units
    /// means memory-adaptive rounds (LD §4.5): units share copies, reshuffled between
    /// rounds.
    pub max_private_bytes: u64,
}

impl Default for CheckOptions {
    fn default() -> CheckOptions {
        CheckOptions {
            max_private_bytes: 4 << 30,
        }
    }
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
const ATOMIC: u32 = u32::MAX;

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
}

/// Witness offsets kept per (kind, target, pair of copies).
const OFFSETS_PER_PAIR: usize = 4;
/// Distinct (kind, target, pair of copies) kept in all.
const MAX_PAIRS: usize = 256;

/// Bytes after each private copy that a correct kernel never writes.
const GUARD: usize = 256;

/// Where a target's copies are.
struct TargetLayout {
    /// Index into [`Launch::buffers`].
    buffer: usize,
    /// The buffer's name, for reports.
    name: String,
    size: usize,
    stride: usize,
}

/// The units of a launch and its targets' copy sizes.
struct Layout {
    /// Units per block: 1 (units are blocks) or the warps per block.
    upb: usize,
    units: usize,
    targets: Vec<TargetLayout>,
}

impl Layout {
    /// Bytes of one private copy of every target.
    fn copy_bytes(&self) -> u64 {
        self.targets.iter().map(|t| t.stride as u64).sum()
    }

    /// The linear block and warp of unit `u`.
    fn side(&self, u: u32, site: Option<usize>, write: bool) -> Side {
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

/// The write, read and atomic site maps of one target (attribution variant): per byte of
/// every copy (of the real buffer for atomics), the site + 1 and the unit that last
/// accessed it there.
type SiteMaps = [Vec<u8>; 3];

/// Runs one variant with the given private copies (`map`: unit to copy); returns the real
/// buffers after it and the site maps (write, read per target) for the attribution
/// variant.
fn run_variant(
    exec: &mut dyn Executor,
    inst: &Instrumented,
    launch: &Launch,
    layout: &Layout,
    map: &[u32],
    variant: Variant,
    privs: &mut [Vec<u8>],
) -> Result<(Vec<Vec<u8>>, Vec<SiteMaps>), GpuError> {
    let mut buffers: Vec<Vec<u8>> = launch.buffers.iter().map(|b| b.bytes.clone()).collect();
    let mut args = launch.args.clone();
    let real = buffers.len();
    for (t, l) in layout.targets.iter().enumerate() {
        let copies = privs[t].len() / l.stride;
        args.push(Arg::Buffer(buffers.len()));
        buffers.push(std::mem::take(&mut privs[t]));
        args.push(Arg::Bytes((l.stride as u64).to_le_bytes().to_vec()));
        if variant == Variant::Attribution {
            for n in [copies, copies, 1] {
                args.push(Arg::Buffer(buffers.len()));
                buffers.push(vec![0u8; l.stride * n * 8]);
            }
        }
    }
    args.push(Arg::Buffer(buffers.len()));
    buffers.push(map.iter().flat_map(|c| c.to_le_bytes()).collect());
    args.push(Arg::Bytes((layout.upb as u32).to_le_bytes().to_vec()));
    let ptx = match variant {
        Variant::Plain => &inst.plain,
        Variant::Attribution => &inst.attribution,
    };
    exec.run(KernelRun {
        ptx,
        kernel: &inst.kernel,
        grid: launch.grid,
        block: launch.block,
        shared: launch.shared,
        args: &args,
        buffers: &mut buffers,
    })?;
    let mut rest = buffers.split_off(real).into_iter();
    let mut maps = Vec::new();
    for p in privs.iter_mut() {
        *p = rest.next().unwrap_or_default();
        if variant == Variant::Attribution {
            maps.push([
                rest.next().unwrap_or_default(),
                rest.next().unwrap_or_default(),
                rest.next().unwrap_or_default(),
            ]);
        }
    }
    Ok((buffers, maps))
}

/// `copies` copies of every target, each initialised to the buffer's contents.
fn stale_copies(launch: &Launch, layout: &Layout, copies: usize) -> Vec<Vec<u8>> {
    layout
        .targets
        .iter()
        .map(|l| {
            let s = &launch.buffers[l.buffer].bytes;
            let mut v = vec![0u8; l.stride * copies];
            for c in 0..copies {
                v[c * l.stride..c * l.stride + l.size].copy_from_slice(s);
            }
            v
        })
        .collect()
}

/// The union of every copy's writes over `S`, in copy order (later copies win), and the
/// write-write races met on the way.
fn merge(
    stale: &[u8],
    p1: &[u8],
    l: &TargetLayout,
    copies: usize,
    target: usize,
) -> (Vec<u8>, Vec<RawRace>) {
    let mut u = stale.to_vec();
    let mut writer = vec![u32::MAX; l.size];
    let mut races = Vec::new();
    for c in 0..copies {
        let copy = &p1[c * l.stride..c * l.stride + l.size];
        for o in 0..l.size {
            let v = copy[o];
            if v == stale[o] {
                continue;
            }
            if writer[o] != u32::MAX {
                let kind = if u[o] != v {
                    RaceKind::WriteWrite
                } else {
                    RaceKind::BenignWriteWrite
                };
                races.push(RawRace {
                    kind,
                    target,
                    offset: o,
                    first: writer[o],
                    second: c as u32,
                });
            }
            u[o] = v;
            writer[o] = c as u32;
        }
    }
    (u, races)
}

/// A race between two copies, before attribution.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct RawRace {
    kind: RaceKind,
    target: usize,
    offset: usize,
    first: u32,
    second: u32,
}

/// Keeps at most [`OFFSETS_PER_PAIR`] offsets per (kind, target, copies) and
/// [`MAX_PAIRS`] such groups.
/// A pair of copies with a real write-write race has no benign bytes reported as well
/// (equal bytes of unequal words are not a benign race).
fn thin(mut races: Vec<RawRace>) -> Vec<RawRace> {
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

/// Pass-1 state of one round, shared by checking and deterministic execution.
struct Pass1 {
    /// Unit to copy.
    map: Vec<u32>,
    copies: usize,
    p1: Vec<Vec<u8>>,
    unions: Vec<Vec<u8>>,
    real: Vec<Vec<u8>>,
    /// Per target, the offsets where atomics changed the real buffer.
    atomic: Vec<Vec<usize>>,
    races: Vec<RawRace>,
}

impl Pass1 {
    /// The first unit using copy `c`: the witness when no site map names one.
    fn unit_of(&self, c: u32) -> u32 {
        self.map.iter().position(|&m| m == c).unwrap_or(0) as u32
    }
}

fn pass1(
    exec: &mut dyn Executor,
    inst: &Instrumented,
    launch: &Launch,
    layout: &Layout,
    map: Vec<u32>,
) -> Result<Pass1, GpuError> {
    let copies = map.iter().max().map_or(1, |&m| m as usize + 1);
    let mut p1 = stale_copies(launch, layout, copies);
    let (real, _) = run_variant(exec, inst, launch, layout, &map, Variant::Plain, &mut p1)?;
    let state0 = Pass1 {
        map,
        copies,
        p1,
        unions: Vec::new(),
        real,
        atomic: Vec::new(),
        races: Vec::new(),
    };
    check_guards(layout, &state0)?;
    let mut unions = Vec::new();
    let mut atomic = Vec::new();
    let mut races = Vec::new();
    for (t, l) in layout.targets.iter().enumerate() {
        let s = &launch.buffers[l.buffer].bytes;
        let (u, r) = merge(s, &state0.p1[t], l, copies, t);
        unions.push(u);
        races.extend(r);
        let real = &state0.real[l.buffer];
        let changed: Vec<usize> = (0..l.size).filter(|&o| real[o] != s[o]).collect();
        // A plain write by any copy to a byte the atomics changed.
        for &o in &changed {
            for c in 0..copies {
                if state0.p1[t][c * l.stride + o] != s[o] {
                    races.push(RawRace {
                        kind: RaceKind::AtomicWrite,
                        target: t,
                        offset: o,
                        first: ATOMIC,
                        second: c as u32,
                    });
                }
            }
        }
        atomic.push(changed);
    }
    Ok(Pass1 {
        unions,
        atomic,
        races: thin(races),
        ..state0
    })
}

/// Refuses a launch in which a unit wrote past the end of its copy of a buffer (which
/// would land in the next copy): that is a memory error, not a race.
fn check_guards(layout: &Layout, state: &Pass1) -> Result<(), GpuError> {
    for (l, c) in layout.targets.iter().zip(&state.p1) {
        for copy in 0..state.copies {
            let guard = &c[copy * l.stride + l.size..(copy + 1) * l.stride];
            if let Some(o) = guard.iter().position(|&x| x != 0) {
                let side = layout.side(state.unit_of(copy as u32), None, true);
                let who = match side.warp {
                    Some(w) => format!("block {} (warp {w})", side.block),
                    None => format!("block {}", side.block),
                };
                return Err(GpuError::Launch(format!(
                    "{who} wrote past the end of buffer `{}` ({} bytes, written at byte {}); GPU mode checks races, not memory errors: run `warpcheck check` without --gpu",
                    l.name,
                    l.size,
                    l.size + o
                )));
            }
        }
    }
    Ok(())
}

/// The launch's buffers after it: pass 1's real buffers (atomics applied) with every
/// copy's plain writes applied in copy order.
fn write_back(launch: &mut Launch, layout: &Layout, state: &Pass1) {
    let stale: Vec<Vec<u8>> = layout
        .targets
        .iter()
        .map(|l| launch.buffers[l.buffer].bytes.clone())
        .collect();
    for (b, real) in launch.buffers.iter_mut().zip(&state.real) {
        b.bytes.clone_from(real);
    }
    for (t, l) in layout.targets.iter().enumerate() {
        let out = &mut launch.buffers[l.buffer].bytes;
        for o in 0..l.size {
            if state.unions[t][o] != stale[t][o] {
                out[o] = state.unions[t][o];
            }
        }
    }
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
    let state = pass1(
        exec,
        inst,
        launch,
        &layout,
        (0..layout.units as u32).collect(),
    )?;
    write_back(launch, &layout, &state);
    Ok(())
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
    let maps = rounds(layout.units, m);
    let mut verdict = Verdict {
        units: layout.units,
        per_warp: layout.upb > 1,
        ..Verdict::default()
    };
    let mut last = None;
    for (k, map) in maps.into_iter().enumerate() {
        let state = pass1(exec, inst, launch, &layout, map)?;
        let (races, runs) = round(exec, inst, launch, &layout, &state)?;
        verdict.runs += runs;
        let info = RoundInfo {
            copies: state.copies,
            probability: probability(layout.units, state.copies.max(2), k + 1),
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
        last = Some(state);
    }
    if let Some(state) = last {
        write_back(launch, &layout, &state);
    }
    Ok(verdict)
}

/// The second pass, bisection and attribution of one round; its races and runs (pass 1
/// included).
fn round(
    exec: &mut dyn Executor,
    inst: &Instrumented,
    launch: &Launch,
    layout: &Layout,
    state: &Pass1,
) -> Result<(Vec<Race>, usize), GpuError> {
    let mut runs = 2;
    let mismatches = pass2(exec, inst, launch, layout, state)?;
    let mut partners = if mismatches.is_empty() {
        Vec::new()
    } else {
        let (p, n) = bisect(exec, inst, launch, layout, state, &mismatches)?;
        runs += n;
        p
    };
    let mut mismatches = mismatches;
    if state.atomic.iter().any(|a| !a.is_empty()) {
        let mut found = atomic_reads(exec, inst, launch, layout, state)?;
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
    // The attribution runs give the racing copies their units and every other unit one
    // spare copy, whose maps are not read.
    let mut involved: Vec<u32> = state
        .races
        .iter()
        .flat_map(|r| [r.first, r.second])
        .collect();
    involved.extend(partners.iter().flat_map(|&(i, j)| [i, j]));
    involved.retain(|&c| c != ATOMIC);
    involved.sort_unstable();
    involved.dedup();
    let spare = involved.len() as u32;
    let renumber = |c: u32| involved.binary_search(&c).map_or(spare, |i| i as u32);
    let amap: Vec<u32> = state.map.iter().map(|&c| renumber(c)).collect();
    let mut copies = stale_copies(launch, layout, spare as usize + 1);
    let (_, maps1) = run_variant(
        exec,
        inst,
        launch,
        layout,
        &amap,
        Variant::Attribution,
        &mut copies,
    )?;
    runs += 1;
    let attr = Attribution {
        inst,
        layout,
        state,
        renumber: &renumber,
    };
    let mut races: Vec<Race> = state
        .races
        .iter()
        .map(|&r| attr.write_write(r, &maps1))
        .collect();
    if !partners.is_empty() {
        let seeds: Vec<(u32, Vec<u32>)> = involved
            .iter()
            .map(|&c| {
                let from = partners
                    .iter()
                    .filter(|p| p.0 == c)
                    .map(|p| p.1)
                    .take(1)
                    .collect();
                (renumber(c), from)
            })
            .collect();
        let mut copies = seeded(launch, layout, state, &seeds, spare as usize + 1);
        let (_, maps2) = run_variant(
            exec,
            inst,
            launch,
            layout,
            &amap,
            Variant::Attribution,
            &mut copies,
        )?;
        runs += 1;
        for &(i, j) in &partners {
            races.extend(attr.read_write(launch, i, j, &maps1, &maps2, &mismatches));
        }
    }
    Ok((races, runs))
}

/// The atomic-read run: every copy starts from `S` with the atomics' results applied; a
/// copy whose writes change read a byte the atomics changed. Returns, per such copy, its
/// first mismatching (target, offset).
fn atomic_reads(
    exec: &mut dyn Executor,
    inst: &Instrumented,
    launch: &Launch,
    layout: &Layout,
    state: &Pass1,
) -> Result<Vec<(u32, usize, usize)>, GpuError> {
    let seeds: Vec<(u32, Vec<u32>)> = (0..state.copies as u32)
        .map(|c| (c, vec![ATOMIC]))
        .collect();
    let mut copies = seeded(launch, layout, state, &seeds, state.copies);
    let initial = copies.clone();
    run_variant(
        exec,
        inst,
        launch,
        layout,
        &state.map,
        Variant::Plain,
        &mut copies,
    )?;
    let mut out = Vec::new();
    for c in 0..state.copies {
        if differs(launch, layout, state, c, &initial, &copies) {
            let first = layout.targets.iter().enumerate().find_map(|(t, l)| {
                (0..l.size)
                    .find(|&o| copies[t][c * l.stride + o] != initial[t][c * l.stride + o])
                    .map(|o| (t, o))
            });
            let (t, o) = first.unwrap_or((0, 0));
            out.push((c as u32, t, o));
        }
    }
    Ok(out)
}

/// Pass 2: each copy from `U` less its own writes; returns, per copy with a mismatch,
/// its first mismatching (target, offset).
fn pass2(
    exec: &mut dyn Executor,
    inst: &Instrumented,
    launch: &Launch,
    layout: &Layout,
    state: &Pass1,
) -> Result<Vec<(u32, usize, usize)>, GpuError> {
    let mut p2: Vec<Vec<u8>> = Vec::new();
    for (t, l) in layout.targets.iter().enumerate() {
        let s = &launch.buffers[l.buffer].bytes;
        let mut v = vec![0u8; l.stride * state.copies];
        for c in 0..state.copies {
            let own = &state.p1[t][c * l.stride..c * l.stride + l.size];
            let copy = &mut v[c * l.stride..c * l.stride + l.size];
            for o in 0..l.size {
                copy[o] = if own[o] != s[o] {
                    s[o]
                } else {
                    state.unions[t][o]
                };
            }
        }
        p2.push(v);
    }
    run_variant(
        exec,
        inst,
        launch,
        layout,
        &state.map,
        Variant::Plain,
        &mut p2,
    )?;
    let mut out = Vec::new();
    for c in 0..state.copies {
        'targets: for (t, l) in layout.targets.iter().enumerate() {
            let s = &launch.buffers[l.buffer].bytes;
            for o in 0..l.size {
                let own = state.p1[t][c * l.stride + o];
                let expected = if own != s[o] { own } else { state.unions[t][o] };
                if p2[t][c * l.stride + o] != expected {
                    out.push((c as u32, t, o));
                    break 'targets;
                }
            }
        }
    }
    Ok(out)
}

/// Copies with at least one write in pass 1, in copy order.
fn writers(layout: &Layout, state: &Pass1, launch: &Launch) -> Vec<u32> {
    (0..state.copies)
        .filter(|&c| {
            layout.targets.iter().enumerate().any(|(t, l)| {
                let s = &launch.buffers[l.buffer].bytes;
                state.p1[t][c * l.stride..c * l.stride + l.size] != s[..]
            })
        })
        .map(|c| c as u32)
        .collect()
}

/// `copies` copies from `S`; for each `(c, from)` of `seeds`, copy `c` gets the pass-1
/// writes of the round's copies `from` applied.
fn seeded(
    launch: &Launch,
    layout: &Layout,
    state: &Pass1,
    seeds: &[(u32, Vec<u32>)],
    copies: usize,
) -> Vec<Vec<u8>> {
    let mut out = stale_copies(launch, layout, copies);
    for (t, l) in layout.targets.iter().enumerate() {
        let s = &launch.buffers[l.buffer].bytes;
        for (c, from) in seeds {
            let dest = *c as usize;
            for &j in from {
                if j == ATOMIC {
                    let real = &state.real[l.buffer];
                    for &o in &state.atomic[t] {
                        out[t][dest * l.stride + o] = real[o];
                    }
                    continue;
                }
                let j = j as usize;
                for o in 0..l.size {
                    let v = state.p1[t][j * l.stride + o];
                    if v != s[o] {
                        out[t][dest * l.stride + o] = v;
                    }
                }
            }
        }
    }
    out
}

/// Finds, for each copy with a pass-2 mismatch, a writing copy whose writes alone change
/// its result: bisection over prefixes of the writers, all copies at once. Returns
/// (copy, partner) pairs and the number of runs.
fn bisect(
    exec: &mut dyn Executor,
    inst: &Instrumented,
    launch: &Launch,
    layout: &Layout,
    state: &Pass1,
    mismatches: &[(u32, usize, usize)],
) -> Result<(Vec<(u32, u32)>, usize), GpuError> {
    let all = writers(layout, state, launch);
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
        let seeds: Vec<(u32, Vec<u32>)> = search
            .iter()
            .map(|(b, c, lo, hi)| (*b, c[..(lo + hi) / 2].to_vec()))
            .collect();
        let mut copies = seeded(launch, layout, state, &seeds, state.copies);
        let initial = copies.clone();
        run_variant(
            exec,
            inst,
            launch,
            layout,
            &state.map,
            Variant::Plain,
            &mut copies,
        )?;
        runs += 1;
        for (b, _, lo, hi) in &mut search {
            if *hi - *lo <= 1 {
                continue;
            }
            let mid = (*lo + *hi) / 2;
            if differs(launch, layout, state, *b as usize, &initial, &copies) {
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

/// Whether copy `b`, started from `initial`, ended other than with its pass-1 writes
/// over its start.
fn differs(
    launch: &Launch,
    layout: &Layout,
    state: &Pass1,
    b: usize,
    initial: &[Vec<u8>],
    after: &[Vec<u8>],
) -> bool {
    layout.targets.iter().enumerate().any(|(t, l)| {
        let s = &launch.buffers[l.buffer].bytes;
        (0..l.size).any(|o| {
            let k = b * l.stride + o;
            let own = state.p1[t][k];
            let expected = if own != s[o] { own } else { initial[t][k] };
            after[t][k] != expected
        })
    })
}

/// Source attribution from site maps of the attribution runs, whose copies are the
/// round's involved copies renumbered (`renumber`).
struct Attribution<'a> {
    inst: &'a Instrumented,
    layout: &'a Layout,
    state: &'a Pass1,
    renumber: &'a dyn Fn(u32) -> u32,
}

impl Attribution<'_> {
    /// The site and unit whose access covers byte `o` of copy `c`'s copy of target `t`
    /// in `map` (of the real buffer when `c` is [`ATOMIC`]).
    fn site(&self, map: &[u8], t: usize, c: u32, o: usize, kind: SiteKind) -> Option<(usize, u32)> {
        let l = &self.layout.targets[t];
        let base = if c == ATOMIC {
            0
        } else {
            (self.renumber)(c) as usize * l.stride
        };
        let word = |k: usize| -> Option<u32> {
            Some(u32::from_le_bytes(map.get(k..k + 4)?.try_into().ok()?))
        };
        (0..16.min(o + 1)).find_map(|d| {
            let k = (base + o - d) * 8;
            let id = word(k)? as usize;
            let site = self.inst.plan.sites.get(id.checked_sub(1)?)?;
            (site.kind == kind && site.bytes as usize > d).then_some((id - 1, word(k + 4)?))
        })
    }

    /// The side of copy `c` at byte `o` of target `t`, attributed from `maps` (the write,
    /// read or atomic map by `kind`; the atomic map when `c` is [`ATOMIC`]).
    fn side(&self, maps: &[SiteMaps], t: usize, c: u32, o: usize, kind: SiteKind) -> Side {
        let kind = if c == ATOMIC { SiteKind::Atomic } else { kind };
        let map = match kind {
            SiteKind::Store => &maps[t][0],
            SiteKind::Load => &maps[t][1],
            SiteKind::Atomic => &maps[t][2],
        };
        let found = self.site(map, t, c, o, kind);
        let unit = found.map_or_else(
            || {
                if c == ATOMIC {
                    0
                } else {
                    self.state.unit_of(c)
                }
            },
            |f| f.1,
        );
        self.layout
            .side(unit, found.map(|f| f.0), kind != SiteKind::Load)
    }

    fn write_write(&self, r: RawRace, maps: &[SiteMaps]) -> Race {
        Race {
            kind: r.kind,
            target: r.target,
            buffer: self.layout.targets[r.target].name.clone(),
            offset: r.offset as u64,
            first: self.side(maps, r.target, r.first, r.offset, SiteKind::Store),
            second: self.side(maps, r.target, r.second, r.offset, SiteKind::Store),
        }
    }

    /// Copy `i` read copy `j`'s writes (the atomics' when `j` is [`ATOMIC`]): witnesses at
    /// bytes `j` wrote that `i` read when started from `S` plus `j`'s writes; else at
    /// `i`'s first mismatching byte.
    fn read_write(
        &self,
        launch: &Launch,
        i: u32,
        j: u32,
        maps1: &[SiteMaps],
        maps2: &[SiteMaps],
        mismatches: &[(u32, usize, usize)],
    ) -> Vec<Race> {
        let kind = if j == ATOMIC {
            RaceKind::AtomicRead
        } else {
            RaceKind::ReadWrite
        };
        let mut out: Vec<Race> = Vec::new();
        for (t, l) in self.layout.targets.iter().enumerate() {
            let written: Vec<usize> = if j == ATOMIC {
                self.state.atomic[t].clone()
            } else {
                let s = &launch.buffers[l.buffer].bytes;
                let copy = &self.state.p1[t][j as usize * l.stride..j as usize * l.stride + l.size];
                (0..l.size).filter(|&o| copy[o] != s[o]).collect()
            };
            for o in written {
                if out.len() >= OFFSETS_PER_PAIR {
                    return out;
                }
                if self.site(&maps2[t][1], t, i, o, SiteKind::Load).is_none() {
                    continue;
                }
                out.push(Race {
                    kind,
                    target: t,
                    buffer: l.name.clone(),
                    offset: o as u64,
                    first: self.side(maps1, t, j, o, SiteKind::Store),
                    second: self.side(maps2, t, i, o, SiteKind::Load),
                });
            }
        }
        if out.is_empty()
            && let Some(&(_, t, o)) = mismatches.iter().find(|m| m.0 == i)
        {
            let second = self.side(maps2, t, i, o, SiteKind::Store);
            let mut first = self.side(maps1, t, j, o, SiteKind::Store);
            first.site = None;
            out.push(Race {
                kind,
                target: t,
                buffer: self.layout.targets[t].name.clone(),
                offset: o as u64,
                first,
                second,
            });
        }
        out
    }
}
