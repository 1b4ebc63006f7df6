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
    /// The most bytes all blocks' private copies may take (memory-adaptive rounds, LD
    /// §4.5, are not implemented: a bigger launch is refused).
    pub max_private_bytes: u64,
}

impl Default for CheckOptions {
    fn default() -> CheckOptions {
        CheckOptions {
            max_private_bytes: 4 << 30,
        }
    }
}

/// The kind of an inter-block race.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum RaceKind {
    /// Two blocks write one byte with different values.
    WriteWrite,
    /// Two blocks write one byte with the same value (benign by value, LD §4.7).
    BenignWriteWrite,
    /// A block read a byte another block wrote (found by its writes changing in pass 2).
    ReadWrite,
}

/// One side of a race: a block and, when attributed, the site that accessed the byte.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Side {
    /// Linear block index.
    pub block: u32,
    /// Index into [`crate::Plan::sites`].
    pub site: Option<usize>,
    pub write: bool,
}

/// An inter-block race on a target buffer.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Race {
    pub kind: RaceKind,
    /// Index into [`crate::Plan::targets`].
    pub target: usize,
    pub buffer: String,
    /// The witness byte's offset in the buffer.
    pub offset: u64,
    /// The earlier block (writer), then the later one.
    pub first: Side,
    pub second: Side,
}

/// What checking one launch found.
#[derive(Clone, Debug, Default)]
pub struct Verdict {
    pub races: Vec<Race>,
    /// Executor runs made: 2 passes, plus bisection and attribution runs on races.
    pub runs: usize,
}

/// Witness offsets kept per (kind, target, pair of blocks).
const OFFSETS_PER_PAIR: usize = 4;
/// Distinct (kind, target, pair of blocks) kept in all.
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

struct Layout {
    blocks: usize,
    targets: Vec<TargetLayout>,
}

fn layout(inst: &Instrumented, launch: &Launch, opts: CheckOptions) -> Result<Layout, GpuError> {
    let blocks = launch.grid.iter().map(|&g| g as usize).product::<usize>();
    let mut targets = Vec::new();
    let mut total = 0u64;
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
        total += (stride * blocks) as u64;
        targets.push(TargetLayout {
            buffer: *buffer,
            name: launch.buffers[*buffer].name.clone(),
            size,
            stride,
        });
    }
    if total > opts.max_private_bytes {
        return Err(GpuError::Launch(format!(
            "the private copies of {blocks} blocks need {total} bytes, over the limit of {}; memory-adaptive rounds (LD §4.5) are not implemented yet",
            opts.max_private_bytes
        )));
    }
    Ok(Layout { blocks, targets })
}

/// The write and read site maps of one target (attribution variant).
type SiteMaps = [Vec<u8>; 2];

/// Runs one variant with the given private copies; returns the real buffers after it and
/// the site maps (write, read per target) for the attribution variant.
fn run_variant(
    exec: &mut dyn Executor,
    inst: &Instrumented,
    launch: &Launch,
    layout: &Layout,
    variant: Variant,
    privs: &mut [Vec<u8>],
) -> Result<(Vec<Vec<u8>>, Vec<SiteMaps>), GpuError> {
    let mut buffers: Vec<Vec<u8>> = launch.buffers.iter().map(|b| b.bytes.clone()).collect();
    let mut args = launch.args.clone();
    let real = buffers.len();
    for (t, l) in layout.targets.iter().enumerate() {
        args.push(Arg::Buffer(buffers.len()));
        buffers.push(std::mem::take(&mut privs[t]));
        args.push(Arg::Bytes((l.stride as u64).to_le_bytes().to_vec()));
        if variant == Variant::Attribution {
            for _ in 0..2 {
                args.push(Arg::Buffer(buffers.len()));
                buffers.push(vec![0u8; l.stride * layout.blocks * 4]);
            }
        }
    }
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
            ]);
        }
    }
    Ok((buffers, maps))
}

/// Every block's copy of every target initialised to the buffer's contents.
fn stale_copies(launch: &Launch, layout: &Layout) -> Vec<Vec<u8>> {
    layout
        .targets
        .iter()
        .map(|l| {
            let s = &launch.buffers[l.buffer].bytes;
            let mut v = vec![0u8; l.stride * layout.blocks];
            for b in 0..layout.blocks {
                v[b * l.stride..b * l.stride + l.size].copy_from_slice(s);
            }
            v
        })
        .collect()
}

/// The union of every block's writes over `S`, in block order (later blocks win), and the
/// write-write races met on the way.
fn merge(
    stale: &[u8],
    p1: &[u8],
    l: &TargetLayout,
    blocks: usize,
    target: usize,
) -> (Vec<u8>, Vec<RawRace>) {
    let mut u = stale.to_vec();
    let mut writer = vec![u32::MAX; l.size];
    let mut races = Vec::new();
    for b in 0..blocks {
        let copy = &p1[b * l.stride..b * l.stride + l.size];
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
                    second: b as u32,
                });
            }
            u[o] = v;
            writer[o] = b as u32;
        }
    }
    (u, races)
}

/// A race before attribution.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct RawRace {
    kind: RaceKind,
    target: usize,
    offset: usize,
    first: u32,
    second: u32,
}

/// Keeps at most [`OFFSETS_PER_PAIR`] offsets per (kind, target, blocks) and
/// [`MAX_PAIRS`] such groups.
/// A pair of blocks with a real write-write race has no benign bytes reported as well
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

/// Pass-1 state shared by checking and deterministic execution.
struct Pass1 {
    layout: Layout,
    p1: Vec<Vec<u8>>,
    unions: Vec<Vec<u8>>,
    real: Vec<Vec<u8>>,
    races: Vec<RawRace>,
}

fn pass1(
    exec: &mut dyn Executor,
    inst: &Instrumented,
    launch: &Launch,
    opts: CheckOptions,
) -> Result<Pass1, GpuError> {
    let layout = layout(inst, launch, opts)?;
    let mut p1 = stale_copies(launch, &layout);
    let (real, _) = run_variant(exec, inst, launch, &layout, Variant::Plain, &mut p1)?;
    check_guards(&layout, &p1)?;
    let mut unions = Vec::new();
    let mut races = Vec::new();
    for (t, l) in layout.targets.iter().enumerate() {
        let (u, r) = merge(&launch.buffers[l.buffer].bytes, &p1[t], l, layout.blocks, t);
        unions.push(u);
        races.extend(r);
    }
    Ok(Pass1 {
        layout,
        p1,
        unions,
        real,
        races: thin(races),
    })
}

/// Refuses a launch in which a block wrote past the end of its copy of a buffer (which
/// would land in the next block's copy): that is a memory error, not a race.
fn check_guards(layout: &Layout, copies: &[Vec<u8>]) -> Result<(), GpuError> {
    for (l, c) in layout.targets.iter().zip(copies) {
        for b in 0..layout.blocks {
            let guard = &c[b * l.stride + l.size..(b + 1) * l.stride];
            if let Some(o) = guard.iter().position(|&x| x != 0) {
                return Err(GpuError::Launch(format!(
                    "block {b} wrote past the end of buffer `{}` ({} bytes, written at byte {}); GPU mode checks races, not memory errors: run `warpcheck check` without --gpu",
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
/// block's plain writes applied in block order.
fn write_back(launch: &mut Launch, state: &Pass1) {
    let stale: Vec<Vec<u8>> = state
        .layout
        .targets
        .iter()
        .map(|l| launch.buffers[l.buffer].bytes.clone())
        .collect();
    for (b, real) in launch.buffers.iter_mut().zip(&state.real) {
        b.bytes.clone_from(real);
    }
    for (t, l) in state.layout.targets.iter().enumerate() {
        let out = &mut launch.buffers[l.buffer].bytes;
        for o in 0..l.size {
            if state.unions[t][o] != stale[t][o] {
                out[o] = state.unions[t][o];
            }
        }
    }
}

/// Deterministic execution (LD §4.6): runs the launch privatised and merges the blocks'
/// writes in block order, so racing writes resolve the same way every time: the block
/// with the highest index wins. Leaves the result in `launch.buffers`.
pub fn deterministic(
    exec: &mut dyn Executor,
    inst: &Instrumented,
    launch: &mut Launch,
    opts: CheckOptions,
) -> Result<(), GpuError> {
    let state = pass1(exec, inst, launch, opts)?;
    write_back(launch, &state);
    Ok(())
}

/// Checks one launch for inter-block races; leaves the launch's result (as
/// [`deterministic`] computes it) in `launch.buffers`.
pub fn check(
    exec: &mut dyn Executor,
    inst: &Instrumented,
    launch: &mut Launch,
    opts: CheckOptions,
) -> Result<Verdict, GpuError> {
    let state = pass1(exec, inst, launch, opts)?;
    let mut runs = 1;
    let mismatches = pass2(exec, inst, launch, &state)?;
    runs += 1;
    let mut raw = state.races.clone();
    let partners = if mismatches.is_empty() {
        Vec::new()
    } else {
        let (p, n) = bisect(exec, inst, launch, &state, &mismatches)?;
        runs += n;
        p
    };
    let mut races = Vec::new();
    if !raw.is_empty() || !partners.is_empty() {
        let mut copies = stale_copies(launch, &state.layout);
        let (_, maps1) = run_variant(
            exec,
            inst,
            launch,
            &state.layout,
            Variant::Attribution,
            &mut copies,
        )?;
        runs += 1;
        let attr = Attribution {
            inst,
            layout: &state.layout,
        };
        races.extend(raw.drain(..).map(|r| attr.write_write(r, &maps1)));
        if !partners.is_empty() {
            let mut copies = seeded_copies(launch, &state, &partners);
            let (_, maps2) = run_variant(
                exec,
                inst,
                launch,
                &state.layout,
                Variant::Attribution,
                &mut copies,
            )?;
            runs += 1;
            for &(i, j) in &partners {
                races.extend(attr.read_write(launch, &state, i, j, &maps1, &maps2, &mismatches));
            }
        }
    }
    write_back(launch, &state);
    Ok(Verdict { races, runs })
}

/// Pass 2: each block from `U` less its own writes; returns, per block with a mismatch,
/// its first mismatching (target, offset).
fn pass2(
    exec: &mut dyn Executor,
    inst: &Instrumented,
    launch: &Launch,
    state: &Pass1,
) -> Result<Vec<(u32, usize, usize)>, GpuError> {
    let layout = &state.layout;
    let mut p2: Vec<Vec<u8>> = Vec::new();
    for (t, l) in layout.targets.iter().enumerate() {
        let s = &launch.buffers[l.buffer].bytes;
        let mut v = vec![0u8; l.stride * layout.blocks];
        for b in 0..layout.blocks {
            let own = &state.p1[t][b * l.stride..b * l.stride + l.size];
            let copy = &mut v[b * l.stride..b * l.stride + l.size];
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
    run_variant(exec, inst, launch, layout, Variant::Plain, &mut p2)?;
    let mut out = Vec::new();
    for b in 0..layout.blocks {
        'targets: for (t, l) in layout.targets.iter().enumerate() {
            let s = &launch.buffers[l.buffer].bytes;
            for o in 0..l.size {
                let own = state.p1[t][b * l.stride + o];
                let expected = if own != s[o] { own } else { state.unions[t][o] };
                if p2[t][b * l.stride + o] != expected {
                    out.push((b as u32, t, o));
                    break 'targets;
                }
            }
        }
    }
    Ok(out)
}

/// Blocks with at least one write in pass 1, in block order.
fn writers(state: &Pass1, launch: &Launch) -> Vec<u32> {
    (0..state.layout.blocks)
        .filter(|&b| {
            state.layout.targets.iter().enumerate().any(|(t, l)| {
                let s = &launch.buffers[l.buffer].bytes;
                state.p1[t][b * l.stride..b * l.stride + l.size] != s[..]
            })
        })
        .map(|b| b as u32)
        .collect()
}

/// Copies where block `i` of each `(i, j)` starts from `S` plus block `j`'s pass-1 writes
/// (or the writes of several blocks, `seed`), and every other block from `S`.
fn seeded_copies(launch: &Launch, state: &Pass1, partners: &[(u32, u32)]) -> Vec<Vec<u8>> {
    let seeds: Vec<(u32, Vec<u32>)> = partners.iter().map(|&(i, j)| (i, vec![j])).collect();
    seeded(launch, state, &seeds)
}

fn seeded(launch: &Launch, state: &Pass1, seeds: &[(u32, Vec<u32>)]) -> Vec<Vec<u8>> {
    let mut copies = stale_copies(launch, &state.layout);
    for (t, l) in state.layout.targets.iter().enumerate() {
        let s = &launch.buffers[l.buffer].bytes;
        for (i, from) in seeds {
            let i = *i as usize;
            for &j in from {
                let j = j as usize;
                for o in 0..l.size {
                    let v = state.p1[t][j * l.stride + o];
                    if v != s[o] {
                        copies[t][i * l.stride + o] = v;
                    }
                }
            }
        }
    }
    copies
}

/// Finds, for each block with a pass-2 mismatch, a writing block whose writes alone
/// change its result: bisection over prefixes of the writers, all blocks at once.
/// Returns (block, partner) pairs and the number of runs.
fn bisect(
    exec: &mut dyn Executor,
    inst: &Instrumented,
    launch: &Launch,
    state: &Pass1,
    mismatches: &[(u32, usize, usize)],
) -> Result<(Vec<(u32, u32)>, usize), GpuError> {
    let all = writers(state, launch);
    // (block, candidates, lo, hi): the prefix of length `hi` changes the block's result,
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
        let mut copies = seeded(launch, state, &seeds);
        let initial = copies.clone();
        run_variant(
            exec,
            inst,
            launch,
            &state.layout,
            Variant::Plain,
            &mut copies,
        )?;
        runs += 1;
        for (b, _, lo, hi) in &mut search {
            if *hi - *lo <= 1 {
                continue;
            }
            let mid = (*lo + *hi) / 2;
            if differs(launch, state, *b as usize, &initial, &copies) {
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

/// Whether block `b`, started from `initial`, ended other than with its pass-1 writes
/// over its start.
fn differs(
    launch: &Launch,
    state: &Pass1,
    b: usize,
    initial: &[Vec<u8>],
    after: &[Vec<u8>],
) -> bool {
    state.layout.targets.iter().enumerate().any(|(t, l)| {
        let s = &launch.buffers[l.buffer].bytes;
        (0..l.size).any(|o| {
            let k = b * l.stride + o;
            let own = state.p1[t][k];
            let expected = if own != s[o] { own } else { initial[t][k] };
            after[t][k] != expected
        })
    })
}

/// Source attribution from site maps.
struct Attribution<'a> {
    inst: &'a Instrumented,
    layout: &'a Layout,
}

impl Attribution<'_> {
    /// The site whose access covers byte `o` of block `b`'s copy of target `t` in `map`.
    fn site(&self, map: &[u8], t: usize, b: u32, o: usize, kind: SiteKind) -> Option<usize> {
        let l = &self.layout.targets[t];
        let base = b as usize * l.stride;
        (0..16.min(o + 1)).find_map(|d| {
            let k = (base + o - d) * 4;
            let id = u32::from_le_bytes(map.get(k..k + 4)?.try_into().ok()?) as usize;
            let site = self.inst.plan.sites.get(id.checked_sub(1)?)?;
            (site.kind == kind && site.bytes as usize > d).then_some(id - 1)
        })
    }

    fn write_write(&self, r: RawRace, maps: &[[Vec<u8>; 2]]) -> Race {
        let w = &maps[r.target][0];
        Race {
            kind: r.kind,
            target: r.target,
            buffer: self.layout.targets[r.target].name.clone(),
            offset: r.offset as u64,
            first: Side {
                block: r.first,
                site: self.site(w, r.target, r.first, r.offset, SiteKind::Store),
                write: true,
            },
            second: Side {
                block: r.second,
                site: self.site(w, r.target, r.second, r.offset, SiteKind::Store),
                write: true,
            },
        }
    }

    /// Block `i` read block `j`'s writes: witnesses at bytes `j` wrote that `i` read when
    /// started from `S` plus `j`'s writes; else at `i`'s first mismatching byte.
    #[allow(clippy::too_many_arguments)]
    fn read_write(
        &self,
        launch: &Launch,
        state: &Pass1,
        i: u32,
        j: u32,
        maps1: &[[Vec<u8>; 2]],
        maps2: &[[Vec<u8>; 2]],
        mismatches: &[(u32, usize, usize)],
    ) -> Vec<Race> {
        let mut out: Vec<Race> = Vec::new();
        for (t, l) in self.layout.targets.iter().enumerate() {
            let s = &launch.buffers[l.buffer].bytes;
            let copy = &state.p1[t][j as usize * l.stride..j as usize * l.stride + l.size];
            for (o, (&v, &stale)) in copy.iter().zip(s).enumerate() {
                if out.len() >= OFFSETS_PER_PAIR {
                    return out;
                }
                if v == stale {
                    continue;
                }
                let Some(read) = self.site(&maps2[t][1], t, i, o, SiteKind::Load) else {
                    continue;
                };
                out.push(Race {
                    kind: RaceKind::ReadWrite,
                    target: t,
                    buffer: l.name.clone(),
                    offset: o as u64,
                    first: Side {
                        block: j,
                        site: self.site(&maps1[t][0], t, j, o, SiteKind::Store),
                        write: true,
                    },
                    second: Side {
                        block: i,
                        site: Some(read),
                        write: false,
                    },
                });
            }
        }
        if out.is_empty()
            && let Some(&(_, t, o)) = mismatches.iter().find(|m| m.0 == i)
        {
            out.push(Race {
                kind: RaceKind::ReadWrite,
                target: t,
                buffer: self.layout.targets[t].name.clone(),
                offset: o as u64,
                first: Side {
                    block: j,
                    site: None,
                    write: true,
                },
                second: Side {
                    block: i,
                    site: self.site(&maps2[t][0], t, i, o, SiteKind::Store),
                    write: true,
                },
            });
        }
        out
    }
}
