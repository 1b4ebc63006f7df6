//! Instantiation with launch dimensions and scalar arguments (Juravle §6): the symbolic
//! address of an access is evaluated for the lanes of each warp, in each iteration of its
//! loops, and the warp-level cost ([`crate::warp`]) of every such execution is computed.
//!
//! Thread blocks are split into warps of 32 consecutive linear thread ids
//! (`x + X·(y + Y·z)`). Loops are enumerated iteration by iteration: the iteration counter
//! is bound, geometric recurrences are stepped from their initial value, and each lane
//! stays in the loop until one of the loop's exit conditions holds for it (an exit
//! before the access in the iteration removes the lane from that iteration already).
//! Conditions that cannot be evaluated (they read memory) keep the lane active, which
//! makes the result an upper bound; the outcome says so.
//!
//! Base addresses are 0: pointer parameters point to 256-byte aligned buffers (as
//! `cudaMalloc` returns them) and shared variables start on a 128-byte boundary, so
//! sectors and banks are those of the offsets. Two blocks are sampled (the first and the
//! last), each loop runs at most [`MAX_ITERATIONS`] iterations, and at most
//! [`MAX_WARP_EVALUATIONS`] warp executions are evaluated per access.

use std::collections::HashMap;

use rustc_hash::FxHashMap;

use warpcheck_sym::{Axis, Expr, Rational, Symbol};

use warpcheck_ir::BlockId;

use crate::analysis::{Access, Analysis, GeoStep, LoopInfo};
use crate::fasteval::{Compiled, CompiledCond};
use crate::warp;

pub const MAX_ITERATIONS: i128 = 256;
pub const MAX_WARP_EVALUATIONS: u64 = 4096;

/// Launch dimensions.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Launch {
    pub grid: [u32; 3],
    pub block: [u32; 3],
}

/// What is measured per warp execution.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Metric {
    Sectors,
    Banks,
}

/// The worst execution found.
#[derive(Clone, Debug)]
pub struct Worst {
    /// Sectors touched, or the bank-conflict degree.
    pub degree: u32,
    /// For sectors: the fewest sectors the bytes need.
    pub ideal: u32,
    pub block: [i128; 3],
    pub warp: u32,
    /// Iteration counters of the enclosing loops.
    pub iterations: Vec<i128>,
    pub active_lanes: u32,
    /// Byte stride between the first two active lanes.
    pub lane_stride: Option<i128>,
}

/// The result of instantiating one access.
#[derive(Clone, Debug)]
pub enum Outcome {
    Evaluated {
        /// The worst execution that counts (for sectors: the worst uncoalesced one).
        worst: Option<Worst>,
        executions: u64,
        /// Some condition could not be evaluated, or a limit cut the enumeration.
        approximate: bool,
    },
    /// The address needs values the launch does not give (memory contents, missing
    /// arguments).
    Unevaluable,
}

pub struct Instance<'x, 'a> {
    pub analysis: &'x Analysis<'a>,
    pub launch: Launch,
    pub scalars: &'x HashMap<String, i128>,
    /// How global accesses are counted.
    pub granularity: warp::Granularity,
}

struct Env {
    map: FxHashMap<Symbol, Rational>,
}

impl<'x, 'a> Instance<'x, 'a> {
    fn base_env(&self) -> Env {
        let mut map = FxHashMap::default();
        for a in Axis::ALL {
            map.insert(
                Symbol::BlockDim(a),
                Rational::int(self.launch.block[a.index()] as i128),
            );
            map.insert(
                Symbol::GridDim(a),
                Rational::int(self.launch.grid[a.index()] as i128),
            );
        }
        for (name, v) in self.scalars {
            map.insert(Symbol::param(name), Rational::int(*v));
        }
        for name in &self.analysis.pointer_params {
            map.insert(Symbol::param(name), Rational::ZERO);
        }
        for sym in self.analysis.base_symbols.values() {
            map.insert(sym.clone(), Rational::ZERO);
        }
        Env { map }
    }

    /// Evaluates the access over the sampled blocks, warps and loop iterations.
    pub fn run(&self, access: &Access, metric: Metric) -> Outcome {
        self.run_record(access, &[(0, access.bytes)], metric)
    }

    /// [`Instance::run`] for a record access: each lane touches `pieces` (byte offset from
    /// the address of `access`, bytes), the components of one record that the compiler
    /// split into several accesses of one line (see `rules`). An execution counts when the
    /// record access is uncoalesced or conflicting; its degree is the worst piece's own
    /// ([`warp::judge_sectors`], [`warp::judge_banks`]).
    pub fn run_record(&self, access: &Access, pieces: &[(i128, u32)], metric: Metric) -> Outcome {
        // The same address for every thread: one sector, no conflict.
        if !access.addr.deps().varies_in_block() {
            return Outcome::Evaluated {
                worst: None,
                executions: 0,
                approximate: false,
            };
        }
        let mut env = self.base_env();
        // Fold the launch constants into the expressions once.
        let constants = |s: &Symbol| match s {
            Symbol::BlockDim(_) | Symbol::GridDim(_) | Symbol::Param(_) => {
                env.map.get(s).map(|v| Expr::constant(*v))
            }
            Symbol::Opaque(_) if self.analysis.base_var(s).is_some() => Some(Expr::zero()),
            _ => None,
        };
        let addr = Compiled::new(&access.addr.subst(&constants));
        let cond = CompiledCond::new(&access.cond.subst(&constants));
        // The loops around the access, outermost first: in a called function, the
        // callers' loops around the call come first (see `crate::calls`).
        let level = |info: &LoopInfo, before: &dyn Fn(usize, BlockId) -> bool| Level {
            counter: info.counter.clone(),
            recurrences: info
                .recurrences
                .iter()
                .map(|r| (r.symbol.clone(), r.init.clone(), r.step))
                .collect(),
            exits: info
                .exits
                .iter()
                .enumerate()
                .map(|(i, e)| {
                    let c = e.cond.subst(&constants);
                    (
                        CompiledCond::new(&c),
                        !c.deps().varies_in_block(),
                        before(i, e.block),
                    )
                })
                .collect(),
        };
        let mut levels = Vec::new();
        if let Some(context) = &self.analysis.context {
            for outer in &context.outer_loops {
                levels.push(level(&outer.info, &|i, _| outer.before[i]));
            }
        }
        for &l in &access.loops {
            let dominators = &self.analysis.body.dominators;
            levels.push(level(&self.analysis.loops[l], &|_, block| {
                dominators.dominates(block, access.block) && block != access.block
            }));
        }
        let [bx, by, bz] = self.launch.block.map(|v| v.max(1) as i128);
        let threads = bx * by * bz;
        let warps = (threads + 31) / 32;
        let [gx, gy, gz] = self.launch.grid.map(|v| v.max(1) as i128);
        let mut blocks = vec![[0, 0, 0]];
        if gx * gy * gz > 1 {
            blocks.push([gx - 1, gy - 1, gz - 1]);
        }
        let mut run = Run {
            pieces,
            widest: pieces.iter().map(|p| p.1).max().unwrap_or(access.bytes),
            addr,
            cond,
            levels,
            metric,
            worst: None,
            executions: 0,
            approximate: false,
            unevaluable: false,
            budget: MAX_WARP_EVALUATIONS,
        };
        for blk in blocks {
            if run.saturated() {
                break;
            }
            for a in Axis::ALL {
                env.map
                    .insert(Symbol::BlockIdx(a), Rational::int(blk[a.index()]));
            }
            self.bind_loop_exits(&mut env);
            for w in 0..warps {
                let lanes: Vec<[i128; 3]> = (0..32)
                    .map(|l| w * 32 + l)
                    .filter(|&t| t < threads)
                    .map(|t| [t % bx, (t / bx) % by, t / (bx * by)])
                    .collect();
                let alive: u32 = if lanes.len() == 32 {
                    u32::MAX
                } else {
                    (1u32 << lanes.len()) - 1
                };
                let mut iters = Vec::new();
                self.enumerate(
                    &mut run, &mut env, &lanes, alive, 0, &mut iters, blk, w as u32,
                );
                if run.unevaluable {
                    return Outcome::Unevaluable;
                }
                if run.saturated() {
                    break;
                }
                if run.budget == 0 {
                    run.approximate = true;
                    break;
                }
            }
        }
        Outcome::Evaluated {
            worst: run.worst,
            executions: run.executions,
            approximate: run.approximate,
        }
    }

    /// Runs the outermost loops whose exits are the same for all threads, in program
    /// order, and binds their last iteration and the final values of their recurrences,
    /// so that code after them (a second loop that starts where the first ended) can be
    /// evaluated.
    fn bind_loop_exits(&self, env: &mut Env) {
        let mut order: Vec<usize> = (0..self.analysis.loops.len())
            .filter(|&l| self.analysis.loops[l].parent.is_none())
            .collect();
        order.sort_by_key(|&l| self.analysis.loops[l].header);
        // In a called function, the callers' loops before the call come first.
        let mut infos: Vec<&LoopInfo> = match &self.analysis.context {
            Some(c) => c.outer_top.iter().collect(),
            None => Vec::new(),
        };
        infos.extend(order.into_iter().map(|l| &self.analysis.loops[l]));
        let lane0 = [0i128; 3];
        for info in infos {
            if !info.exit_deps.is_empty() || info.exits.is_empty() {
                continue;
            }
            let mut geo: Vec<(Symbol, Option<Rational>, GeoStep)> = info
                .recurrences
                .iter()
                .map(|r| {
                    (
                        r.symbol.clone(),
                        r.init.eval(&|s| lookup(env, &lane0, s)),
                        r.step,
                    )
                })
                .collect();
            let mut k = 0;
            while k < MAX_ITERATIONS * 16 {
                env.map.insert(info.counter.clone(), Rational::int(k));
                for (sym, v, _) in &geo {
                    match v {
                        Some(v) => env.map.insert(sym.clone(), *v),
                        None => env.map.remove(sym),
                    };
                }
                let fired = info
                    .exits
                    .iter()
                    .map(|e| e.cond.eval(&|s| lookup(env, &lane0, s)))
                    .collect::<Vec<_>>();
                if fired.iter().any(|f| f.is_none()) {
                    break;
                }
                if fired.contains(&Some(true)) {
                    if let Some(t) = &info.trip {
                        env.map.insert(t.clone(), Rational::int(k));
                    }
                    for (out, inner) in &info.finals {
                        if let Some(v) = env.map.get(inner).copied() {
                            env.map.insert(out.clone(), v);
                        }
                    }
                    break;
                }
                for (_, v, step) in geo.iter_mut() {
                    *v = v.and_then(|x| match step {
                        GeoStep::Mul(c) => x.checked_mul(Rational::int(*c)),
                        GeoStep::Div(c) => {
                            Some(Rational::int(x.checked_div(Rational::int(*c))?.floor()))
                        }
                    });
                }
                k += 1;
            }
            env.map.remove(&info.counter);
            for (sym, _, _) in &geo {
                env.map.remove(sym);
            }
        }
    }

    #[allow(clippy::too_many_arguments)]
    fn enumerate(
        &self,
        run: &mut Run<'_>,
        env: &mut Env,
        lanes: &[[i128; 3]],
        alive: u32,
        level: usize,
        iters: &mut Vec<i128>,
        blk: [i128; 3],
        warp: u32,
    ) {
        if run.unevaluable || run.budget == 0 {
            return;
        }
        if level == run.levels.len() {
            self.execute(run, env, lanes, alive, iters, blk, warp);
            return;
        }
        let counter = run.levels[level].counter.clone();
        // Geometric recurrences: current values, stepped every iteration.
        let mut geo: Vec<(Symbol, Option<Rational>, GeoStep)> = Vec::new();
        for (symbol, init, step) in &run.levels[level].recurrences {
            let v = init.eval(&|s| lookup(env, &lanes[0], s));
            geo.push((symbol.clone(), v, *step));
        }
        let mut alive_l = alive;
        let mut k: i128 = 0;
        loop {
            if k >= MAX_ITERATIONS {
                run.approximate = true;
                break;
            }
            env.map.insert(counter.clone(), Rational::int(k));
            for (sym, v, _) in &geo {
                match v {
                    Some(v) => env.map.insert(sym.clone(), *v),
                    None => env.map.remove(sym),
                };
            }
            // Exits before the access in this iteration, and all exits.
            let mut before = 0u32;
            let mut any = 0u32;
            let exits = std::mem::take(&mut run.levels[level].exits);
            for (cond, uniform, is_before) in &exits {
                let fired = self.lanes_where(run, env, lanes, alive_l, cond, *uniform);
                any |= fired;
                if *is_before {
                    before |= fired;
                }
            }
            // Put them back (taken to evaluate them while `run` is borrowed mutably).
            run.levels[level].exits = exits;
            let active = alive_l & !before;
            if active != 0 {
                iters.push(k);
                self.enumerate(run, env, lanes, active, level + 1, iters, blk, warp);
                iters.pop();
            }
            alive_l &= !any;
            if alive_l == 0 || run.unevaluable || run.budget == 0 || run.saturated() {
                break;
            }
            for (_, v, step) in geo.iter_mut() {
                *v = v.and_then(|x| match step {
                    GeoStep::Mul(c) => x.checked_mul(Rational::int(*c)),
                    GeoStep::Div(c) => {
                        Some(Rational::int(x.checked_div(Rational::int(*c))?.floor()))
                    }
                });
            }
            k += 1;
        }
        env.map.remove(&counter);
    }

    /// The lanes (of `mask`) for which the condition holds; unknown counts as false and
    /// makes the result approximate.
    fn lanes_where(
        &self,
        run: &mut Run<'_>,
        env: &Env,
        lanes: &[[i128; 3]],
        mask: u32,
        cond: &CompiledCond,
        uniform: bool,
    ) -> u32 {
        let mut out = 0;
        let mut first: Option<Option<bool>> = None;
        for (i, lane) in lanes.iter().enumerate() {
            if mask & (1 << i) == 0 {
                continue;
            }
            let v = if uniform {
                *first.get_or_insert_with(|| cond.eval(&|s| lookup(env, lane, s)))
            } else {
                cond.eval(&|s| lookup(env, lane, s))
            };
            match v {
                Some(true) => out |= 1 << i,
                Some(false) => {}
                None => run.approximate = true,
            }
        }
        out
    }

    #[allow(clippy::too_many_arguments)]
    fn execute(
        &self,
        run: &mut Run<'_>,
        env: &Env,
        lanes: &[[i128; 3]],
        alive: u32,
        iters: &[i128],
        blk: [i128; 3],
        warp: u32,
    ) {
        run.budget = run.budget.saturating_sub(1);
        // Active lanes: the access condition; unknown keeps the lane (upper bound).
        let mut addrs: Vec<(u32, i128)> = Vec::new();
        for (i, lane) in lanes.iter().enumerate() {
            if alive & (1 << i) == 0 {
                continue;
            }
            let f = |s: &Symbol| lookup(env, lane, s);
            match run.cond.eval(&f) {
                Some(false) => continue,
                Some(true) => {}
                None => run.approximate = true,
            }
            match run.addr.eval_int(&f) {
                Some(a) => addrs.push((i as u32, a)),
                None => {
                    run.unevaluable = true;
                    return;
                }
            }
        }
        if addrs.is_empty() {
            return;
        }
        run.executions += 1;
        let (degree, ideal) = match run.metric {
            Metric::Sectors => match warp::judge_sectors(&addrs, run.pieces, self.granularity) {
                Some(s) => (s.touched, s.ideal),
                None => return,
            },
            Metric::Banks => match warp::judge_banks(&addrs, run.pieces) {
                Some(d) => (d, 1),
                None => return,
            },
        };
        if run.worst.as_ref().is_none_or(|w| degree > w.degree) {
            run.worst = Some(Worst {
                degree,
                ideal,
                block: blk,
                warp,
                iterations: iters.to_vec(),
                active_lanes: addrs.len() as u32,
                lane_stride: (addrs.len() >= 2).then(|| addrs[1].1 - addrs[0].1),
            });
        }
    }
}

/// A loop exit: its condition, whether that is the same for every thread of a block,
/// and whether it is taken before the access in an iteration.
type Exit = (CompiledCond, bool, bool);

/// One loop around an access: its iteration counter, geometric recurrences (symbol,
/// initial value, step) and exits.
struct Level {
    counter: Symbol,
    recurrences: Vec<(Symbol, Expr, GeoStep)>,
    exits: Vec<Exit>,
}

struct Run<'x> {
    /// What each lane touches relative to the access's address (one piece `(0, bytes)`
    /// unless the access is a record split into several).
    pieces: &'x [(i128, u32)],
    /// The widest piece.
    widest: u32,
    /// The address and condition with the launch constants folded in.
    addr: Compiled,
    cond: CompiledCond,
    /// The loops around the access, outermost first.
    levels: Vec<Level>,
    metric: Metric,
    worst: Option<Worst>,
    executions: u64,
    approximate: bool,
    unevaluable: bool,
    budget: u64,
}

impl Run<'_> {
    /// Whether no execution can be worse than the worst found: 32 lanes in 32 sectors
    /// (or 64 for accesses that straddle two), or a 32-way conflict.
    fn saturated(&self) -> bool {
        self.widest <= 4 && self.worst.as_ref().is_some_and(|w| w.degree >= 32)
    }
}

fn lookup(env: &Env, lane: &[i128; 3], s: &Symbol) -> Option<Rational> {
    match s {
        Symbol::ThreadIdx(a) => Some(Rational::int(lane[a.index()])),
        _ => env.map.get(s).copied(),
    }
}

/// `threadIdx` of a linear thread id — for tests and witnesses.
pub fn thread_of(linear: i128, block: [u32; 3]) -> [i128; 3] {
    let bx = block[0].max(1) as i128;
    let by = block[1].max(1) as i128;
    [linear % bx, (linear / bx) % by, linear / (bx * by)]
}

/// The uniform part of an expression evaluated: used to print strides for a launch.
pub fn eval_uniform(e: &Expr, inst: &Instance<'_, '_>) -> Option<i128> {
    let env = inst.base_env();
    e.eval(&|s| env.map.get(s).copied())?.as_integer()
}
