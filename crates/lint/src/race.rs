//! Races between barriers, decided for a launch (the semantics are those
//! of the dynamic race checker, `crates/check/src/race/mod.rs`, and of the corpus README).
//!
//! Two accesses race when they touch the same byte, come from different threads, at least
//! one writes, they are not both *strong* (atomics, `.volatile`/`.relaxed`/`.acquire`/
//! `.release` loads and stores: PTX ISA §8) and nothing orders them: threads of one block
//! are ordered only by CTA barriers (`bar.sync 0`, `bar.red`), lanes of one warp also by
//! `__syncwarp()` (`bar.warp.sync` with the full mask), and blocks not at all (global
//! memory). Lanes of a warp are not ordered by being in one warp (independent thread
//! scheduling, the dynamic checker's default).
//!
//! # Algorithm: one symbolic walk per thread
//!
//! The abstract interpretation ([`crate::analysis`]) gives every branch a condition and
//! every access an address and a guard, as expressions over the thread and block indices,
//! the launch, the kernel's scalars, loop iteration counters and geometric recurrences.
//! For a given launch all of these are numbers except memory contents. So each thread of
//! a block is *walked* through the CFG: starting at the entry, the accesses of a block
//! are evaluated in instruction order, the branch condition picks the successor, a back
//! edge advances its loop's iteration counter (and steps the loop's recurrences), entering
//! a loop resets them, and leaving one binds its trip count and final values, exactly as
//! [`crate::instantiate`] does for one warp. Barriers count: an access is stamped with the
//! number of CTA barriers its thread has passed (its *barrier interval*) and the number of
//! CTA and warp barriers (its warp interval). With every non-exited thread passing the
//! same barriers (what the `barrier-divergence` lint checks), two accesses of different
//! threads of one block are unordered exactly when their intervals are equal — the warp
//! intervals for lanes of one warp — so the race decision is a search for a byte that two
//! threads touch in one interval with at least one write. Between blocks only the byte
//! and the kinds matter (global memory).
//!
//! The enumeration is concrete (block sizes are at most 1024 threads), so a race it finds
//! is *certain* for the launch: both accesses execute, in one interval, at the same byte.
//! What cannot be evaluated is not guessed at: an address or guard that reads memory
//! leaves that access undecided, a branch that reads memory stops that thread's walk (its
//! later accesses are undecided), and both are reported in one `race-lint-incomplete`
//! note. Races are reported only when certain; "possible race" is not a severity this
//! lint has.
//!
//! # Limits
//!
//! * Grids of more than [`ALL_BLOCKS_THREADS`] threads are sampled: the first two blocks
//!   and the last (neighbouring blocks are where halo races are).
//! * A thread's walk stops after [`MAX_STEPS_PER_THREAD`] basic blocks, and the whole
//!   lint after [`MAX_TOTAL_STEPS`] (both reported as incomplete).
//! * Per byte and per instruction at most two threads (two blocks) are remembered, which
//!   is exact for pairs of distinct threads; with `__syncwarp()` in the kernel a pair that
//!   needs a third thread of one instruction can be missed (never invented).
//! * Kernels with named or counted barriers (`bar.sync 1, 64`), `bar.arrive`, guarded
//!   barriers or `__syncwarp(mask)` with a partial mask are not decided (one note says so).
//! * The accesses of called (non-inlined) functions are not walked: each call is reported
//!   in the `race-lint-incomplete` note (the coalescing lints do see callees, per call
//!   site: `crate::calls`). Accesses through pointers of unknown origin are not decided
//!   either.

use std::collections::{BTreeMap, HashMap};

use warpcheck_ir::access::AccessKind;
use warpcheck_ir::modifiers::{BarrierMode, MemOrder, MemSpace};
use warpcheck_ir::{BlockId, EntityRef, InstId, Op, Operand};
use warpcheck_report::{Code, Finding, Severity};
use warpcheck_sym::{Axis, Expr, Rational, Symbol};

use crate::analysis::{Analysis, GeoStep, Region};
use crate::fasteval::{Compiled, CompiledCond};
use crate::instantiate::Launch;
use crate::rules::location_of;
use warpcheck_report::race::Scope;

/// Grids with at most this many threads are walked block by block in full.
pub const ALL_BLOCKS_THREADS: u64 = 2_048;
/// Basic blocks one thread's walk may visit.
pub const MAX_STEPS_PER_THREAD: u64 = 1 << 16;
/// Basic blocks all walks together may visit.
pub const MAX_TOTAL_STEPS: u64 = 1 << 22;

/// What the race lint decided.
#[derive(Debug, Default)]
pub struct RaceReport {
    /// `shared-race` / `global-race` errors, one per pair of lines and kinds, and at most
    /// one `race-lint-incomplete` note.
    pub findings: Vec<Finding>,
    /// Whether every access of every walked thread was evaluated.
    pub complete: bool,
}

/// Why part of the kernel could not be decided.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum Gap {
    /// An access whose address or guard reads memory (or another unknown value).
    Access(InstId),
    /// A branch that reads memory: the thread's walk stops there.
    Branch(BlockId),
    /// A guarded `ret`/`exit`, or a branch through a table.
    Control(BlockId),
    /// A walk or the lint ran out of steps.
    Budget,
    /// A synchronisation this lint does not model.
    Sync(InstId),
    /// An access whose target is not known (a pointer loaded from memory).
    Target(InstId),
    /// A call of a function with a body: its accesses are not walked.
    Call(InstId),
}

/// One execution of an access by one thread.
#[derive(Clone, Copy, Debug)]
struct Instance {
    thread: u32,
    /// CTA barriers passed before it.
    interval: u32,
    /// CTA and warp barriers passed before it.
    warp_interval: u32,
    access: u32,
    addr: i128,
}

/// What one access is, for the race decision.
#[derive(Clone, Debug)]
struct Site {
    inst: InstId,
    /// Index into the region table.
    region: u32,
    shared: bool,
    write: bool,
    strong: bool,
    bytes: u32,
    addr: Compiled,
    cond: CompiledCond,
    guarded: bool,
}

/// One side of a race witness.
#[derive(Clone, Copy, Debug)]
struct Side {
    site: u32,
    thread: u32,
    block: [u32; 3],
}

#[derive(Clone, Copy, Debug)]
struct Witness {
    first: Side,
    second: Side,
    /// Byte offset in the region.
    addr: i128,
    scope: Scope,
}

/// One unit of memory touched by one execution: the race decision sorts these by
/// (region, unit) and pairs the touches of each unit.
#[derive(Clone, Copy, Debug)]
struct Touch {
    region: u32,
    /// The address divided by the region's unit (see [`units`]).
    unit: i64,
    site: u32,
    /// The thread (within a block) or the block (between blocks).
    who: u32,
    warp_interval: u32,
    thread: u32,
}

/// Per region: the largest power of two up to 16 that divides every address and size
/// of its executions, so that two executions share a byte exactly when they share a unit
/// (fewer records than bytes; exact because nothing straddles a unit).
fn units(sites: &[Site], regions: usize, instances: &[Instance]) -> Vec<i128> {
    let mut unit = vec![16i128; regions];
    for i in instances {
        let s = &sites[i.access as usize];
        let u = &mut unit[s.region as usize];
        while *u > 1 && (i.addr % *u != 0 || s.bytes as i128 % *u != 0) {
            *u /= 2;
        }
    }
    unit
}

/// Runs the race lint of one analysed kernel for a launch.
pub fn lint_races(a: &Analysis<'_>, launch: Launch, scalars: &HashMap<String, i128>) -> RaceReport {
    let mut gaps: BTreeMap<Gap, u64> = BTreeMap::new();
    // Callees' accesses are linted for coalescing per call site (`crate::calls`) but not
    // walked here: a race with them is not decided, and the note says so.
    for site in &a.calls {
        gaps.insert(Gap::Call(site.inst), 1);
    }
    let Some(walker) = Walker::new(a, launch, scalars, &mut gaps) else {
        return finish(a, launch, Vec::new(), &gaps, 0);
    };
    if walker.sites.is_empty() && !a.calls.is_empty() {
        return finish(a, launch, Vec::new(), &gaps, 0);
    }
    if walker.sites.is_empty() {
        return RaceReport {
            findings: Vec::new(),
            complete: gaps.is_empty(),
        };
    }
    let [gx, gy, gz] = launch.grid.map(|v| v.max(1));
    let block_count = gx as u64 * gy as u64 * gz as u64;
    let threads = walker.threads;
    let blocks: Vec<u64> = if block_count * threads as u64 <= ALL_BLOCKS_THREADS || block_count <= 3
    {
        (0..block_count).collect()
    } else {
        let mut b = vec![0, 1.min(block_count - 1), block_count - 1];
        b.dedup();
        b
    };
    let sampled = blocks.len() as u64 != block_count;
    let mut witnesses: BTreeMap<(u32, u32), Witness> = BTreeMap::new();
    let mut between_blocks: Vec<Touch> = Vec::new();
    let mut steps_left = MAX_TOTAL_STEPS;
    let mut walked_blocks = 0;
    let mut instances = Vec::new();
    let mut touches = Vec::new();
    let mut written: Vec<(u32, i64)> = Vec::new();
    let mut unit: Option<Vec<i128>> = None;
    'blocks: for &linear in &blocks {
        let block = [
            (linear % gx as u64) as u32,
            ((linear / gx as u64) % gy as u64) as u32,
            (linear / (gx as u64 * gy as u64)) as u32,
        ];
        instances.clear();
        for t in 0..threads {
            if steps_left == 0 {
                *gaps.entry(Gap::Budget).or_default() += 1;
                break 'blocks;
            }
            walker.walk(block, t, &mut instances, &mut gaps, &mut steps_left);
        }
        walked_blocks += 1;
        // The units come from the first block; a later block that breaks them (a
        // misaligned access there) refines them for itself and for the comparison
        // between blocks.
        let mine = units(&walker.sites, walker.regions.len(), &instances);
        let unit = unit.get_or_insert_with(|| mine.clone());
        for (u, m) in unit.iter_mut().zip(&mine) {
            *u = (*u).min(*m);
        }
        // Within the block: group by barrier interval (a counting sort: each thread's
        // instances come in interval order, and intervals are small numbers).
        let intervals = instances
            .iter()
            .map(|i| i.interval)
            .max()
            .map_or(0, |m| m + 1);
        let mut by_interval: Vec<Vec<Instance>> = vec![Vec::new(); intervals as usize];
        for i in &instances {
            by_interval[i.interval as usize].push(*i);
        }
        for group in &by_interval {
            // Only units that some thread writes in the interval can race: reads of
            // other units are left out before sorting (most reads, in most kernels).
            written.clear();
            for i in group {
                let s = &walker.sites[i.access as usize];
                if s.write {
                    let u = mine[s.region as usize];
                    for k in 0..(s.bytes.max(1) as i128 / u).max(1) {
                        written.push((s.region, (i.addr.div_euclid(u) + k) as i64));
                    }
                }
            }
            if written.is_empty() {
                continue;
            }
            written.sort_unstable();
            written.dedup();
            touches.clear();
            for i in group {
                let s = &walker.sites[i.access as usize];
                let u = mine[s.region as usize];
                for k in 0..(s.bytes.max(1) as i128 / u).max(1) {
                    let unit = (i.addr.div_euclid(u) + k) as i64;
                    if !s.write && written.binary_search(&(s.region, unit)).is_err() {
                        continue;
                    }
                    touches.push(Touch {
                        region: s.region,
                        unit,
                        site: i.access,
                        who: i.thread,
                        warp_interval: i.warp_interval,
                        thread: i.thread,
                    });
                }
            }
            collect(
                &walker.sites,
                &mut touches,
                &mine,
                block,
                false,
                &mut witnesses,
            );
        }
        // Between blocks: global accesses of every interval, at byte granularity here
        // and coarsened once all blocks are in.
        if block_count > 1 {
            for i in &instances {
                let s = &walker.sites[i.access as usize];
                if s.shared {
                    continue;
                }
                between_blocks.push(Touch {
                    region: s.region,
                    unit: i.addr as i64,
                    site: i.access,
                    who: linear as u32,
                    warp_interval: 0,
                    thread: i.thread,
                });
            }
        }
    }
    let [gx64, gy64] = [gx as u64, gy as u64];
    let block_of = |linear: u32| {
        let l = linear as u64;
        [
            (l % gx64) as u32,
            ((l / gx64) % gy64) as u32,
            (l / (gx64 * gy64)) as u32,
        ]
    };
    if let Some(unit) = &unit {
        let units_of = |t: &Touch| {
            let s = &walker.sites[t.site as usize];
            let u = unit[s.region as usize];
            let first = (t.unit as i128).div_euclid(u) as i64;
            (
                s.write,
                first..first + (s.bytes.max(1) as i128 / u).max(1) as i64,
            )
        };
        written.clear();
        for t in &between_blocks {
            if let (true, range) = units_of(t) {
                written.extend(range.map(|x| (t.region, x)));
            }
        }
        written.sort_unstable();
        written.dedup();
        let mut expanded = Vec::new();
        for t in &between_blocks {
            let (write, range) = units_of(t);
            for x in range {
                if write || written.binary_search(&(t.region, x)).is_ok() {
                    expanded.push(Touch { unit: x, ..*t });
                }
            }
        }
        let mut inter: BTreeMap<(u32, u32), Witness> = BTreeMap::new();
        collect(&walker.sites, &mut expanded, unit, [0; 3], true, &mut inter);
        for (key, mut w) in inter {
            // `collect` put block indices in the sides' `block` fields.
            w.first.block = block_of(w.first.block[0]);
            w.second.block = block_of(w.second.block[0]);
            witnesses.entry(key).or_insert(w);
        }
    }
    let mut report = finish(
        a,
        launch,
        render(a, &walker, launch, witnesses, sampled, walked_blocks),
        &gaps,
        walked_blocks,
    );
    if sampled {
        report.complete = false;
    }
    report
}

/// (thread or block, warp interval, thread) of one touch.
type Who = (u32, u32, u32);

/// Pairs of sites that race at some unit of the touches, with a witness each. Per unit
/// and site, two distinct threads (blocks) are enough to find a pair of distinct ones.
fn collect(
    sites: &[Site],
    touches: &mut [Touch],
    unit: &[i128],
    block: [u32; 3],
    between_blocks: bool,
    out: &mut BTreeMap<(u32, u32), Witness>,
) {
    touches.sort_unstable_by_key(|t| (t.region, t.unit, t.site));
    let mut per_site: Vec<(u32, [Option<Who>; 2])> = Vec::new();
    for run in touches.chunk_by(|x, y| x.region == y.region && x.unit == y.unit) {
        if !run.iter().any(|t| sites[t.site as usize].write) {
            continue;
        }
        per_site.clear();
        for t in run {
            let who = (t.who, t.warp_interval, t.thread);
            match per_site.last_mut() {
                Some((s, slots)) if *s == t.site => {
                    if let [Some(first), second @ None] = slots
                        && first.0 != t.who
                    {
                        *second = Some(who);
                    }
                }
                _ => per_site.push((t.site, [Some(who), None])),
            }
        }
        let byte = run[0].unit as i128 * unit[run[0].region as usize];
        for (i, x) in per_site.iter().enumerate() {
            for y in &per_site[i..] {
                let (sx, sy) = (&sites[x.0 as usize], &sites[y.0 as usize]);
                if !(sx.write || sy.write) || (sx.strong && sy.strong) {
                    continue;
                }
                let key = (x.0.min(y.0), x.0.max(y.0));
                if out.contains_key(&key) {
                    continue;
                }
                let pair = x.1.iter().flatten().find_map(|&(p, pw, pt)| {
                    y.1.iter().flatten().find_map(|&(q, qw, qt)| {
                        let ordered_in_warp = !between_blocks && pt / 32 == qt / 32 && pw != qw;
                        (p != q && !ordered_in_warp).then_some(((p, pt), (q, qt)))
                    })
                });
                let Some(((p, pt), (q, qt))) = pair else {
                    continue;
                };
                let scope = if between_blocks {
                    Scope::InterBlock
                } else if pt / 32 == qt / 32 {
                    Scope::IntraWarp
                } else {
                    Scope::InterWarp
                };
                let side = |site: u32, who: u32, thread: u32| Side {
                    site,
                    thread,
                    block: if between_blocks { [who, 0, 0] } else { block },
                };
                let (a, b) = (side(x.0, p, pt), side(y.0, q, qt));
                // The earlier instruction first, as a reader expects.
                let (first, second) = if sites[a.site as usize].inst <= sites[b.site as usize].inst
                {
                    (a, b)
                } else {
                    (b, a)
                };
                out.insert(
                    key,
                    Witness {
                        first,
                        second,
                        addr: byte,
                        scope,
                    },
                );
            }
        }
    }
}

/// The walker: the kernel's branch conditions and accesses with the launch folded in.
struct Walker<'x, 'a> {
    a: &'x Analysis<'a>,
    launch: Launch,
    threads: u32,
    sites: Vec<Site>,
    regions: Vec<Region>,
    /// Per block: its sites and synchronisations, in instruction order.
    block_roles: Vec<Vec<Role>>,
    /// Per block: the taken-edge condition of its conditional branch.
    branch: Vec<Option<CompiledCond>>,
    /// Per block: the loop it is the header of.
    header_of: Vec<Option<usize>>,
    /// Per loop: the initial values of its recurrences, folded.
    rec_init: Vec<Vec<Expr>>,
    /// Blocks that end in a guarded `ret`/`exit` or an indirect branch.
    opaque_exit: Vec<bool>,
    reaches_site: Vec<bool>,
}

#[derive(Clone, Copy, Debug)]
enum Role {
    Site(u32),
    CtaBarrier,
    WarpBarrier,
}

impl<'x, 'a> Walker<'x, 'a> {
    fn new(
        a: &'x Analysis<'a>,
        launch: Launch,
        scalars: &HashMap<String, i128>,
        gaps: &mut BTreeMap<Gap, u64>,
    ) -> Option<Self> {
        let mut base = HashMap::new();
        for ax in Axis::ALL {
            base.insert(
                Symbol::BlockDim(ax),
                Rational::int(launch.block[ax.index()].max(1) as i128),
            );
            base.insert(
                Symbol::GridDim(ax),
                Rational::int(launch.grid[ax.index()].max(1) as i128),
            );
        }
        for (name, v) in scalars {
            base.insert(Symbol::param(name), Rational::int(*v));
        }
        // Every region's base is 0: accesses are compared within their region.
        for name in &a.pointer_params {
            base.insert(Symbol::param(name), Rational::ZERO);
        }
        for sym in a.base_symbols.values() {
            base.insert(sym.clone(), Rational::ZERO);
        }
        let fold = |s: &Symbol| match s {
            Symbol::BlockDim(_) | Symbol::GridDim(_) | Symbol::Param(_) => {
                base.get(s).map(|v| Expr::constant(*v))
            }
            Symbol::Opaque(_) if a.base_var(s).is_some() => Some(Expr::zero()),
            _ => None,
        };
        let body = a.body;
        let mut role = HashMap::new();
        let mut unsupported = false;
        for b in body.blocks.keys() {
            for i in body.blocks[b].insts() {
                let inst = body.inst(i);
                let ops = body.operands_of(i);
                let r = match inst.op {
                    Op::Barrier { mode, .. } => {
                        // `bar.sync a{, b}`, `bar.red d, a{, b}, p`: barrier 0, no count.
                        let (id, count) = match mode {
                            BarrierMode::Red => (ops.get(1), ops.get(2)),
                            _ => (ops.first(), ops.get(1)),
                        };
                        let id_zero = matches!(id, Some(Operand::Imm(imm)) if imm.bits == 0);
                        let no_count =
                            matches!(count, None | Some(Operand::Sink | Operand::Absent));
                        let full = mode != BarrierMode::Arrive
                            && id_zero
                            && no_count
                            && inst.guard.is_none();
                        if !full {
                            gaps.insert(Gap::Sync(i), 1);
                            unsupported = true;
                        }
                        Role::CtaBarrier
                    }
                    Op::BarWarpSync { .. } => {
                        let full = matches!(ops.first(), Some(Operand::Imm(imm)) if imm.bits as u32 == u32::MAX)
                            && inst.guard.is_none();
                        if !full {
                            gaps.insert(Gap::Sync(i), 1);
                            unsupported = true;
                        }
                        Role::WarpBarrier
                    }
                    _ => continue,
                };
                role.insert(i, r);
            }
        }
        if unsupported {
            return None;
        }
        let mut regions: Vec<Region> = Vec::new();
        let mut sites = Vec::new();
        for acc in &a.accesses {
            let write = match acc.kind {
                AccessKind::Load => false,
                AccessKind::Store | AccessKind::Atomic(_) | AccessKind::Reduction(_) => true,
                AccessKind::Prefetch | AccessKind::AsyncCopy => continue,
            };
            let shared = match acc.space {
                MemSpace::Shared => true,
                MemSpace::Global => false,
                _ => continue,
            };
            let usable = match &acc.region {
                Region::Global(_) | Region::Shared(_) => true,
                Region::Variable(_, sp) => *sp == warpcheck_ptx::ast::StateSpace::Global,
                Region::Unknown => false,
                _ => continue,
            };
            if !usable {
                gaps.insert(Gap::Target(acc.inst), 1);
                continue;
            }
            let inst = body.inst(acc.inst);
            let strong = matches!(acc.kind, AccessKind::Atomic(_) | AccessKind::Reduction(_))
                || inst
                    .op
                    .memory_access()
                    .is_some_and(|m| m.order.is_some_and(|o| o != MemOrder::Weak));
            let region = match regions.iter().position(|r| *r == acc.region) {
                Some(r) => r as u32,
                None => {
                    regions.push(acc.region.clone());
                    regions.len() as u32 - 1
                }
            };
            role.insert(acc.inst, Role::Site(sites.len() as u32));
            sites.push(Site {
                inst: acc.inst,
                region,
                shared,
                write,
                strong,
                bytes: acc.bytes,
                addr: Compiled::new(&acc.addr.subst(&fold)),
                cond: CompiledCond::new(&acc.cond.subst(&fold)),
                guarded: inst.guard.is_some(),
            });
        }
        // A region that no site writes cannot race: its accesses need not be walked.
        let written: Vec<bool> = (0..regions.len() as u32)
            .map(|r| sites.iter().any(|s: &Site| s.region == r && s.write))
            .collect();
        let mut kept = Vec::new();
        for s in sites {
            if written[s.region as usize] {
                role.insert(s.inst, Role::Site(kept.len() as u32));
                kept.push(s);
            } else {
                role.remove(&s.inst);
            }
        }
        let sites = kept;
        let n = body.blocks.len();
        // Blocks from which a site can still be reached: a walk that leaves them has no
        // more accesses to record.
        let mut reaches_site = vec![false; n];
        let mut stack: Vec<BlockId> = sites
            .iter()
            .map(|s| body.inst_block[s.inst.index()])
            .collect();
        while let Some(b) = stack.pop() {
            if std::mem::replace(&mut reaches_site[b.index()], true) {
                continue;
            }
            stack.extend(body.cfg.preds(b).iter().copied());
        }
        let mut block_roles = vec![Vec::new(); n];
        for b in body.blocks.keys() {
            block_roles[b.index()] = body.blocks[b]
                .insts()
                .filter_map(|i| role.get(&i).copied())
                .collect();
        }
        let mut header_of = vec![None; n];
        for (l, info) in a.loops.iter().enumerate() {
            header_of[info.header.index()].get_or_insert(l);
        }
        let mut opaque_exit = vec![false; n];
        for b in body.blocks.keys() {
            if let Some(t) = body.terminator(b) {
                let inst = body.inst(t);
                let guarded_exit =
                    matches!(inst.op, Op::Ret { .. } | Op::Exit {}) && inst.guard.is_some();
                let indirect = matches!(inst.op, Op::BrxIdx { .. });
                opaque_exit[b.index()] = guarded_exit || indirect;
            }
        }
        let [bx, by, bz] = launch.block.map(|v| v.max(1));
        Some(Walker {
            a,
            launch,
            threads: bx * by * bz,
            sites,
            regions,
            block_roles,
            branch: a
                .branch_cond
                .iter()
                .map(|c| c.as_ref().map(|c| CompiledCond::new(&c.subst(&fold))))
                .collect(),
            header_of,
            rec_init: a
                .loops
                .iter()
                .map(|l| l.recurrences.iter().map(|r| r.init.subst(&fold)).collect())
                .collect(),
            opaque_exit,
            reaches_site,
        })
    }

    /// Walks thread `t` (linear id) of `block`, appending its access instances.
    fn walk(
        &self,
        block: [u32; 3],
        t: u32,
        out: &mut Vec<Instance>,
        gaps: &mut BTreeMap<Gap, u64>,
        steps_left: &mut u64,
    ) {
        let [bx, by, _] = self.launch.block.map(|v| v.max(1));
        let mut env = Env {
            tid: [t % bx, (t / bx) % by, t / (bx * by)].map(|v| v as i128),
            block: block.map(|v| v as i128),
            counters: vec![None; self.a.loops.len()],
            opaque: Vec::new(),
        };
        let lookup = |env: &Env, s: &Symbol| env.get(s);
        let a = self.a;
        let body = a.body;
        let (mut interval, mut warp_interval) = (0u32, 0u32);
        let mut counters: Vec<i128> = vec![0; a.loops.len()];
        let mut b = body.entry();
        let mut steps = 0u64;
        loop {
            if !self.reaches_site[b.index()] {
                return;
            }
            steps += 1;
            if steps > MAX_STEPS_PER_THREAD || *steps_left == 0 {
                *gaps.entry(Gap::Budget).or_default() += 1;
                return;
            }
            *steps_left -= 1;
            for role in &self.block_roles[b.index()] {
                match role {
                    Role::CtaBarrier => {
                        interval += 1;
                        warp_interval += 1;
                    }
                    Role::WarpBarrier => warp_interval += 1,
                    Role::Site(s) => {
                        let site = &self.sites[*s as usize];
                        let f = |s: &Symbol| lookup(&env, s);
                        match site.cond.eval(&f) {
                            Some(false) => continue,
                            Some(true) => {}
                            // The block's part of the condition holds (the walk is in
                            // it); only a guard can still be unknown.
                            None if !site.guarded => {}
                            None => {
                                *gaps.entry(Gap::Access(site.inst)).or_default() += 1;
                                continue;
                            }
                        }
                        match site.addr.eval_int(&f) {
                            Some(addr) => out.push(Instance {
                                thread: t,
                                interval,
                                warp_interval,
                                access: *s,
                                addr,
                            }),
                            None => {
                                *gaps.entry(Gap::Access(site.inst)).or_default() += 1;
                            }
                        }
                    }
                }
            }
            if self.opaque_exit[b.index()] {
                *gaps.entry(Gap::Control(b)).or_default() += 1;
                return;
            }
            let succs = body.cfg.succs(b);
            let next = match succs {
                [] => return,
                [s] => *s,
                [taken, fall] => {
                    let Some(c) = &self.branch[b.index()] else {
                        *gaps.entry(Gap::Control(b)).or_default() += 1;
                        return;
                    };
                    match c.eval(&|s| lookup(&env, s)) {
                        Some(true) => *taken,
                        Some(false) => *fall,
                        None => {
                            *gaps.entry(Gap::Branch(b)).or_default() += 1;
                            return;
                        }
                    }
                }
                _ => {
                    *gaps.entry(Gap::Control(b)).or_default() += 1;
                    return;
                }
            };
            // Leaving loops, innermost first: the trip count and final values.
            let mut l = a.innermost_loop[b.index()];
            while let Some(li) = l {
                let info = &a.loops[li];
                if info.contains(next) {
                    break;
                }
                if let Some(trip) = &info.trip {
                    env.set(trip, Some(Rational::int(counters[li])));
                }
                for (out_sym, inner) in &info.finals {
                    let v = env.get(inner);
                    env.set(out_sym, v);
                }
                l = info.parent;
            }
            if let Some(li) = self.header_of[next.index()] {
                let info = &a.loops[li];
                let back = info.contains(b);
                counters[li] = if back { counters[li] + 1 } else { 0 };
                env.set(&info.counter, Some(Rational::int(counters[li])));
                for (r, init) in info.recurrences.iter().zip(&self.rec_init[li]) {
                    let v = if back {
                        env.get(&r.symbol).and_then(|x| match r.step {
                            GeoStep::Mul(c) => x.checked_mul(Rational::int(c)),
                            GeoStep::Div(c) => {
                                Some(Rational::int(x.checked_div(Rational::int(c))?.floor()))
                            }
                        })
                    } else {
                        init.eval(&|s| lookup(&env, s))
                    };
                    env.set(&r.symbol, v);
                }
            }
            b = next;
        }
    }
}

/// The values of one thread's walk: its indices, the iteration counters of the loops it
/// is in, and the opaque symbols bound so far (recurrences, trip counts, final values).
struct Env {
    tid: [i128; 3],
    block: [i128; 3],
    counters: Vec<Option<i128>>,
    opaque: Vec<Option<Rational>>,
}

impl Env {
    fn get(&self, s: &Symbol) -> Option<Rational> {
        match s {
            Symbol::ThreadIdx(ax) => Some(Rational::int(self.tid[ax.index()])),
            Symbol::BlockIdx(ax) => Some(Rational::int(self.block[ax.index()])),
            Symbol::Iteration { id, .. } => self
                .counters
                .get(*id as usize)
                .copied()
                .flatten()
                .map(Rational::int),
            Symbol::Opaque(o) => self.opaque.get(o.id as usize).copied().flatten(),
            // Launch dimensions and scalars are folded in; what is left is unknown.
            _ => None,
        }
    }

    fn set(&mut self, s: &Symbol, v: Option<Rational>) {
        match s {
            Symbol::Iteration { id, .. } => {
                let id = *id as usize;
                if id >= self.counters.len() {
                    self.counters.resize(id + 1, None);
                }
                self.counters[id] = v.and_then(|v| v.as_integer());
            }
            Symbol::Opaque(o) => {
                let id = o.id as usize;
                if id >= self.opaque.len() {
                    self.opaque.resize(id + 1, None);
                }
                self.opaque[id] = v;
            }
            _ => {}
        }
    }
}

fn thread_index(block: [u32; 3], linear: u32) -> [u32; 3] {
    let [bx, by, _] = block.map(|v| v.max(1));
    [linear % bx, (linear / bx) % by, linear / (bx * by)]
}

fn fmt3(v: [u32; 3]) -> String {
    format!("({},{},{})", v[0], v[1], v[2])
}

/// The race findings, grouped like the dynamic checker's: one per pair of lines and
/// access kinds.
fn render(
    a: &Analysis<'_>,
    walker: &Walker<'_, '_>,
    launch: Launch,
    witnesses: BTreeMap<(u32, u32), Witness>,
    sampled: bool,
    walked_blocks: u64,
) -> Vec<Finding> {
    let kernel = a.program.function(a.func).instance_name().to_string();
    let describe = |s: &Site| match (s.write, s.strong) {
        (false, false) => "read",
        (true, false) => "write",
        (false, true) => "volatile read",
        (true, true) => {
            if matches!(
                a.body.inst(s.inst).op.memory_access().map(|m| m.kind),
                Some(AccessKind::Atomic(_) | AccessKind::Reduction(_))
            ) {
                "atomic"
            } else {
                "volatile write"
            }
        }
    };
    type Key = (Code, u32, &'static str, u32, &'static str);
    let mut groups: BTreeMap<Key, (Witness, u64)> = BTreeMap::new();
    for w in witnesses.values() {
        let (s1, s2) = (
            &walker.sites[w.first.site as usize],
            &walker.sites[w.second.site as usize],
        );
        let (Some(l1), Some(l2)) = (location_of(a, s1.inst), location_of(a, s2.inst)) else {
            continue;
        };
        let code = if s1.shared {
            Code::SharedRace
        } else {
            Code::GlobalRace
        };
        let key = (code, l1.line, describe(s1), l2.line, describe(s2));
        let e = groups.entry(key).or_insert((*w, 0));
        e.1 += 1;
        if w.scope > e.0.scope {
            e.0 = *w;
        }
    }
    let mut out = Vec::new();
    for ((code, _, _, _, _), (w, n)) in groups {
        let (s1, s2) = (
            &walker.sites[w.first.site as usize],
            &walker.sites[w.second.site as usize],
        );
        let (Some(l1), Some(l2)) = (location_of(a, s1.inst), location_of(a, s2.inst)) else {
            continue;
        };
        let hazard = warpcheck_report::race::hazard(s1.write, s2.write);
        let space = if s1.shared { "shared" } else { "global" };
        let target = match &walker.regions[s1.region as usize] {
            Region::Global(name) => format!("`{name}` + {} bytes", w.addr),
            Region::Shared(v) | Region::Variable(v, _) => {
                format!(
                    "`{}` + {} bytes",
                    a.program.variable(*v).display_name(),
                    w.addr
                )
            }
            _ => format!("offset {}", w.addr),
        };
        let who = |s: &Side| {
            format!(
                "thread {} of block {}",
                fmt3(thread_index(launch.block, s.thread)),
                fmt3(s.block)
            )
        };
        let mut f = Finding::new(
            code,
            Severity::Error,
            format!(
                "data race on {space} memory ({hazard}) at {target}, {}",
                w.scope.describe()
            ),
        )
        .kernel(kernel.clone())
        .at(l2, format!("(2) {} by {}", describe(s2), who(&w.second)))
        .related(l1, format!("(1) {} by {}", describe(s1), who(&w.first)));
        f = f.note(format!(
            "decided statically for block {} and grid {}: both accesses execute between the same two barriers{}",
            fmt3(launch.block),
            fmt3(launch.grid),
            if w.scope == Scope::InterBlock {
                " (blocks are never ordered)"
            } else {
                ""
            }
        ));
        if n > 1 {
            f = f.note(format!("{n} instruction pairs on these lines race"));
        }
        if sampled {
            f = f.note(format!(
                "{walked_blocks} blocks of the grid were walked (the first two and the last)"
            ));
        }
        f = f.help(w.scope.help());
        out.push(f);
    }
    out
}

/// Adds the note on what was not decided.
fn finish(
    a: &Analysis<'_>,
    launch: Launch,
    findings: Vec<Finding>,
    gaps: &BTreeMap<Gap, u64>,
    walked_blocks: u64,
) -> RaceReport {
    let mut report = RaceReport {
        findings,
        complete: gaps.is_empty(),
    };
    if gaps.is_empty() {
        return report;
    }
    let kernel = a.program.function(a.func).instance_name().to_string();
    let line_of_block = |b: BlockId| a.body.terminator(b).and_then(|t| location_of(a, t));
    let mut reasons: Vec<String> = Vec::new();
    let mut primary = None;
    for (gap, count) in gaps {
        let (loc, why) = match gap {
            Gap::Access(i) => (
                location_of(a, *i),
                format!("an access whose address or guard reads memory ({count} executions)"),
            ),
            Gap::Branch(b) => (
                line_of_block(*b),
                format!(
                    "a branch on memory contents: {count} thread walks stop there, their later accesses are not decided"
                ),
            ),
            Gap::Control(b) => (
                line_of_block(*b),
                "a guarded return or an indirect branch: walks stop there".to_string(),
            ),
            Gap::Budget => (
                None,
                format!(
                    "the enumeration limits ({MAX_STEPS_PER_THREAD} basic blocks per thread, {MAX_TOTAL_STEPS} in all) cut {count} walks short"
                ),
            ),
            Gap::Sync(i) => (
                location_of(a, *i),
                "a named, counted, guarded or partial-mask barrier, which this lint does not model: no race is decided for the kernel".to_string(),
            ),
            Gap::Target(i) => (
                location_of(a, *i),
                "an access through a pointer of unknown origin".to_string(),
            ),
            Gap::Call(i) => (
                location_of(a, *i),
                "a call of a device function, whose accesses this lint does not walk: races with them are not decided".to_string(),
            ),
        };
        let at = loc
            .as_ref()
            .map_or(String::new(), |l| format!("line {}: ", l.line));
        reasons.push(format!("{at}{why}"));
        if primary.is_none() {
            primary = loc;
        }
    }
    let mut f = Finding::new(
        Code::RaceLintIncomplete,
        Severity::Note,
        format!(
            "races were not decided for every access of the launch (block {}, {} blocks walked)",
            fmt3(launch.block),
            walked_blocks
        ),
    )
    .kernel(kernel);
    if let Some(l) = primary {
        f = f.at(l, "not decided from here");
    }
    for r in reasons {
        f = f.note(r);
    }
    report.findings.push(f);
    report
}
