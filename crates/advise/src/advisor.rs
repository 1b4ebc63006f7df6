//! The advisor's analyses over [`crate::facts`]: for each outermost loop, the GPU
//! friendliness test (Juravle §4.1), the kernel parameters and their accessed sections
//! (§4.2), the coalescing factor of every global access under each mapping of the loop
//! variables to `Grid.x` (§5.1), shared-memory opportunities (§5.2), and instantiation
//! with run-time values (§6).
//!
//! # Dependence test (§4.1)
//!
//! The thesis tests dependences dynamically; the advisor tests them statically, exactly
//! for the affine forms it can decide, and says "unknown" otherwise. For a loop with
//! counter `k`, two accesses to the same array, at least one a store, at byte offsets
//! `s·k + R₁` and `s·k' + R₂` (`R` free of `k`; the loop's inner counters renamed apart
//! in the second), overlap in different iterations only if `s·(k' − k) + D` meets the
//! width of the other access, `D = R₂ − R₁`. With the range `[D.lo, D.hi]` of `D` over the
//! inner loops, the accesses are independent when `D.lo ≥ w₁ − s` and `D.hi ≤ s − w₂`
//! (`s > 0`; the mirror image for `s < 0`): a Banerjee-style bound test that is exact
//! for constant `D`, where a dependence has the distance `−D/s` and its direction tells
//! RAW from WAR. Different strides fall back to the GCD test on constant differences.
//! Scalars: a `.local` cell the loop writes and reads before writing it in an iteration
//! (an upward-exposed use) carries a value between iterations — a reduction (`x += …`)
//! or a recurrence — unless it is the loop's own variable.
//!
//! # Coalescing (§5.1)
//!
//! With the loop variable `k` mapped to `Grid.x`, adjacent threads of a warp are
//! `s = f(k + 1) − f(k)` bytes apart, and a warp spans `32·s` bytes: `32·s/128` requests
//! of 128 bytes, at least 1 and at most 32 (the thesis leaves the cap implicit and counts
//! elements; the corpus files use this byte form, so that matrix addition gives
//! `min(N, 32)` where the thesis writes `N/4`). A selection gives one affine alternative
//! per branch; the factor is the largest.
//!
//! # Shared memory (§5.2)
//!
//! A thread's footprint on an array is the range of its offsets over the loops inside
//! the kernel body, as a function of the mapped counters. A footprint that does not
//! depend on them is read by every thread (stage it once per block). Otherwise adjacent
//! threads overlap when `hi(k) ≥ lo(k + 1)`; the block's tile is the footprint with the
//! mapped counters over `[0, blockDim − 1]`, reconstructed in 2-D when the offset is
//! `W·row + col` for a symbolic row width `W` (§5.2.1). Reads of one array whose
//! footprints start a constant distance apart are grouped (§5.2.2, scheme 1).

use std::collections::{BTreeMap, BTreeSet};

use warpcheck_ir::access::AccessKind;
use warpcheck_ir::{BlockId, FuncId, Program};
use warpcheck_lint::analysis::Loc;
use warpcheck_sym::{Context, Expr, Rational, Relation, Symbol};

use crate::facts::{self, Acc, Base, Facts, LoopFacts};
use crate::model::*;
use crate::range::{self, Bound, alternatives, smax, smin};
use crate::source::{self, StructLayout};

mod bound;
mod shared;

pub use bound::{
    AnalysisBudget, DEFAULT_STEPS_PER_NEST, FUNCTION_FACTOR, MAX_VALUE_NODES, TOTAL_FACTOR,
};
use bound::{Phase, Tracker};
use warpcheck_sym::budget;

/// What the advisor is told besides the program.
#[derive(Clone, Debug, Default)]
pub struct AdviseOptions {
    /// The C parameter names, by position.
    pub param_names: Vec<String>,
    /// The C parameter types (`matrix_t *`), by position.
    pub param_types: Vec<String>,
    /// The C source text (for struct layouts and loop headers).
    pub source: Option<String>,
    /// Run-time values: `n`, `in_image->width`, `blockDim.x`, and loop counts written
    /// `loop:i` (solved for the parameters, §6.1).
    pub values: BTreeMap<String, i128>,
    /// The steps the analyses may spend ([`bound`]).
    pub budget: AnalysisBudget,
}

/// Why there is no advice.
#[derive(Debug, thiserror::Error)]
pub enum AdviseError {
    #[error("function `{0}` has no body")]
    NoBody(String),
    #[error(
        "unknown name in --values: `{0}` (expected a parameter, a field path such as `img->width`, blockDim.x/y, or loop:VAR)"
    )]
    UnknownValue(String),
}

/// The block size assumed for shared bytes per block when none is given.
const DEFAULT_BLOCK_1D: i128 = 256;
const DEFAULT_BLOCK_2D: [i128; 2] = [32, 8];
/// At most this many iterations are enumerated for instantiated sections (§6.2).
const MAX_ENUMERATED: u64 = 4_000_000;
/// At most this many undecided pairs of accesses are listed per loop (then a count).
const MAX_UNDECIDED_LISTED: usize = 8;

/// Advises on every outermost loop of `func`, within `options.budget` (see [`bound`]:
/// the function's interpretation and each nest have budgets of their own, and a caller
/// that advises on several functions bounds them together with
/// [`AnalysisBudget::run`]).
pub fn advise(
    program: &Program,
    func: FuncId,
    options: &AdviseOptions,
) -> Result<FunctionAdvice, AdviseError> {
    let name = program.function(func).name.clone();
    let structs: Vec<StructLayout> = options
        .source
        .as_deref()
        .map(source::parse_structs)
        .unwrap_or_default();
    // What the run's total leaves this function (all of its own budget, or less).
    let limit = match budget::remaining() {
        _ if budget::exhausted() => 0,
        Some(rest) => rest.min(options.budget.per_function()),
        None => options.budget.per_function(),
    };
    let collected = budget::metered(options.budget.per_function(), || {
        facts::collect(
            program,
            func,
            &options.param_names,
            &options.param_types,
            &structs,
            Some(MAX_VALUE_NODES),
        )
    });
    let interpretation_steps = collected.spent;
    let facts = collected
        .value
        .ok_or_else(|| AdviseError::NoBody(name.clone()))?;
    // An interpretation cut short leaves incomplete values: no nest is analysed on them.
    let cut = collected
        .exhausted
        .then(|| bound::interpretation_reached(&facts, options.budget, limit));
    let advisor = Advisor::new(&facts, options, cut.is_none())?;
    let mut nests = Vec::new();
    for l in &facts.loops {
        if l.parent.is_none() {
            nests.push(match &cut {
                None => advisor.bounded_nest(l.index),
                Some(why) => advisor.unknown_nest(l.index, why, false),
            });
        }
    }
    let in_loops: BTreeSet<BlockId> = facts
        .loops
        .iter()
        .flat_map(|l| l.blocks.iter().copied())
        .collect();
    let mut calls_outside: Vec<String> = facts
        .calls
        .iter()
        .filter(|c| !in_loops.contains(&c.block))
        .map(|c| c.callee.clone())
        .collect();
    calls_outside.dedup();
    Ok(FunctionAdvice {
        function: name,
        nests,
        calls_outside_loops: calls_outside,
        values: advisor
            .values
            .iter()
            .map(|(k, v)| (k.clone(), *v))
            .collect(),
        solved: advisor.solved.clone(),
        interpretation_steps,
    })
}

struct Advisor<'f, 'a> {
    f: &'f Facts<'a>,
    source: Option<&'f str>,
    ctx: Context,
    /// Values by symbol name (parameters and field paths).
    values: BTreeMap<String, i128>,
    solved: Vec<String>,
    block: Option<[i128; 2]>,
    budget: AnalysisBudget,
    /// What the current nest's analysis is doing (for the note when its budget runs out).
    tracker: Tracker,
}

/// A normalised loop for the analyses.
struct LoopView {
    var: String,
    counter: Symbol,
}

impl<'f, 'a> Advisor<'f, 'a> {
    /// The advisor for `f`; `interpreted` is false when the function's interpretation
    /// was cut short by the budget, and then names in the values are not checked (the
    /// facts that would know them are incomplete) and loop counts are not solved.
    fn new(
        f: &'f Facts<'a>,
        options: &'f AdviseOptions,
        interpreted: bool,
    ) -> Result<Self, AdviseError> {
        let mut a = Advisor {
            f,
            source: options.source.as_deref(),
            ctx: Context::assuming_positive_params(),
            values: BTreeMap::new(),
            solved: Vec::new(),
            block: None,
            budget: options.budget,
            tracker: Tracker::default(),
        };
        let known = a.known_names();
        let mut loop_counts = Vec::new();
        let (mut bx, mut by) = (None, None);
        for (k, v) in &options.values {
            if let Some(var) = k.strip_prefix("loop:") {
                loop_counts.push((var.to_string(), *v));
            } else if k == "blockDim.x" {
                bx = Some(*v);
            } else if k == "blockDim.y" {
                by = Some(*v);
            } else if known.contains(k) || !interpreted {
                a.values.insert(k.clone(), *v);
            } else {
                return Err(AdviseError::UnknownValue(k.clone()));
            }
        }
        if bx.is_some() || by.is_some() {
            a.block = Some([bx.unwrap_or(DEFAULT_BLOCK_2D[0]), by.unwrap_or(1)]);
        }
        if !interpreted {
            return Ok(a);
        }
        for (var, count) in loop_counts {
            a.solve_loop_count(&var, count)?;
        }
        Ok(a)
    }

    /// Every name a value can be given for: parameters and named fields.
    fn known_names(&self) -> BTreeSet<String> {
        let mut names: BTreeSet<String> = self.f.param_cells.keys().cloned().collect();
        names.extend(self.f.analysis.pointer_params.iter().cloned());
        names.extend(self.f.pointers.keys().cloned());
        let mut syms = BTreeSet::new();
        for a in &self.f.accs {
            syms.extend(a.offset.symbols());
        }
        for l in &self.f.loops {
            if let Some(t) = &l.trip {
                syms.extend(t.symbols());
            }
        }
        for s in syms {
            if let Symbol::Param(n) = s {
                names.insert(n.to_string());
            }
        }
        names
    }

    /// §6.1: the loop with variable `var` ran `count` times; solve its rational trip
    /// count (`2·n/4`) for its one unknown parameter and check the exact count.
    fn solve_loop_count(&mut self, var: &str, count: i128) -> Result<(), AdviseError> {
        let unknown = || AdviseError::UnknownValue(format!("loop:{var}"));
        let l = self
            .f
            .loops
            .iter()
            .find(|l| self.loop_var(l) == var)
            .ok_or_else(unknown)?;
        let (Some(exact), Some(rational)) = (&l.trip, &l.trip_rational) else {
            return Err(unknown());
        };
        let r = self.instantiate(rational);
        let free: Vec<Symbol> = r.symbols().into_iter().collect();
        let [p] = free.as_slice() else {
            return Err(unknown());
        };
        let Symbol::Param(pname) = p else {
            return Err(unknown());
        };
        let coef = r
            .linear_coefficient(p)
            .and_then(|c| c.as_constant())
            .ok_or_else(unknown)?;
        let rest = r.without_symbol(p).as_constant().ok_or_else(unknown)?;
        let value = Rational::new(count, 1)
            .and_then(|c| c.checked_sub(rest))
            .and_then(|x| x.checked_div(coef))
            .and_then(|x| x.as_integer())
            .ok_or_else(unknown)?;
        let check = exact
            .subst(&|s| (s == p).then(|| Expr::int(value)))
            .eval(&|_| None)
            .and_then(|x| x.as_integer());
        self.solved.push(format!(
            "{pname} = {value} from {count} iterations of loop {var} ({} = {count}{})",
            rational,
            if check == Some(count) {
                ""
            } else {
                "; the exact count differs"
            }
        ));
        self.values.insert(pname.to_string(), value);
        Ok(())
    }

    fn loop_var(&self, l: &LoopFacts) -> String {
        self.source
            .and_then(|s| source::for_header(s, l.line))
            .and_then(|h| h.var)
            .unwrap_or_else(|| format!("k{}", l.index + 1))
    }

    fn view(&self, l: usize) -> LoopView {
        let lf = &self.f.loops[l];
        LoopView {
            var: self.loop_var(lf),
            counter: lf.counter.clone(),
        }
    }

    /// An expression with loop counters named after their loops: the variable itself
    /// when the loop runs it from 0 in steps of 1, `k_var` otherwise.
    fn show(&self, e: &Expr) -> Expr {
        e.subst(&|s| {
            let l = self.f.loops.iter().find(|l| l.counter == *s)?;
            let var = self.loop_var(l);
            let identity = l
                .induction
                .as_ref()
                .is_some_and(|(_, init, step)| init.is_zero() && step.as_integer() == Some(1));
            Some(Expr::sym(Symbol::var(&if identity {
                var
            } else {
                format!("k_{var}")
            })))
        })
    }

    /// Substitutes the known values.
    fn instantiate(&self, e: &Expr) -> Expr {
        if self.values.is_empty() {
            return e.clone();
        }
        e.subst(&|s| match s {
            Symbol::Param(n) => self.values.get(&**n).map(|v| Expr::int(*v)),
            _ => None,
        })
    }

    fn eval(&self, e: &Expr) -> Option<i128> {
        let x = self.instantiate(e);
        x.eval(&|_| None).map(|r| r.floor())
    }

    /// The box of loop counters for `loops` (outermost first), innermost first, with
    /// trip counts; `None` if a trip count is unknown.
    fn bounds(&self, loops: &[usize]) -> Option<Vec<Bound>> {
        let mut out = Vec::new();
        for &l in loops.iter().rev() {
            let lf = &self.f.loops[l];
            let trip = lf.trip.clone()?;
            out.push(Bound {
                symbol: lf.counter.clone(),
                lo: Expr::zero(),
                hi: trip.sub(&Expr::one()),
            });
        }
        Some(out)
    }

    fn descendants(&self, l: usize) -> Vec<usize> {
        let lf = &self.f.loops[l];
        self.f
            .loops
            .iter()
            .filter(|o| o.index != l && lf.contains(self.f.loops[o.index].blocks[0]))
            .map(|o| o.index)
            .collect()
    }

    fn children(&self, l: usize) -> Vec<usize> {
        self.f
            .loops
            .iter()
            .filter(|o| o.parent == Some(l))
            .map(|o| o.index)
            .collect()
    }

    fn accs_in(&self, l: usize) -> Vec<&'f Acc> {
        self.f
            .accs
            .iter()
            .filter(|a| a.loops.contains(&l))
            .collect()
    }

    // ---------------------------------------------------------------------------------
    // The nest.

    /// The advice for the nest of outer loop `outer`; `None` when the budget ran out
    /// before its verdict was decided. Run out after it, the verdict stands and the rest
    /// of the advice is left out (see [`bound`]).
    fn nest(&self, outer: usize) -> Option<NestAdvice> {
        let lf = &self.f.loops[outer];
        let mut assumptions: BTreeSet<String> = self.f.assumed.iter().cloned().collect();
        let (verdict, dims) = self.verdict(outer, &mut assumptions);
        if budget::exhausted() {
            return None;
        }
        let parallel = verdict.parallel.clone();
        let loops: Vec<LoopDesc> = dims.iter().map(|&d| self.describe_loop(d)).collect();
        let (inbound, outbound) = self.parameters(outer, &mut assumptions);
        let calls = self.calls_in(outer);
        let (coalescing, mapping) = if parallel == "no" {
            (Vec::new(), None)
        } else {
            self.coalescing(&dims, &mut assumptions)
        };
        let shared = if parallel == "no" {
            Vec::new()
        } else {
            self.shared(&dims, &mapping, &mut assumptions)
        };
        let rewrite = self.rewrites(outer, &verdict.reasons);
        if self
            .f
            .accs
            .iter()
            .any(|a| a.loops.contains(&outer) && matches!(a.base, Base::Pointer(_)))
            && self.f.pointers.len() > 1
        {
            assumptions.insert("pointer parameters do not overlap (as if restrict)".into());
        }
        let mut nest = NestAdvice {
            lines: [lf.line, lf.last_line],
            loops,
            verdict,
            inbound,
            outbound,
            calls,
            coalescing,
            mapping,
            shared,
            rewrite,
            assumptions: assumptions.into_iter().collect(),
            bound: None,
            analysis_steps: 0,
        };
        if budget::exhausted() {
            // What was computed after the budget ran out is not exact: left out (the
            // note is written by `bounded_nest`).
            nest.inbound.clear();
            nest.outbound.clear();
            nest.coalescing.clear();
            nest.mapping = None;
            nest.shared.clear();
        }
        Some(nest)
    }

    /// §4.1 for the nest of `outer`: the verdict and the loops mapped to the grid (the
    /// outer loop and, when it qualifies, its only child).
    fn verdict(&self, outer: usize, assumptions: &mut BTreeSet<String>) -> (Verdict, Vec<usize>) {
        let lf = &self.f.loops[outer];
        let outer_reasons = self.dependences(outer, assumptions);
        let mut dims = vec![outer];
        let mut sequential_inner = Vec::new();
        let kids = self.children(outer);
        if let [inner] = kids.as_slice() {
            let inner_trip_ok = self.f.loops[*inner]
                .trip
                .as_ref()
                .is_some_and(|t| !t.depends_on(&lf.counter));
            let inner_reasons = self.dependences(*inner, assumptions);
            if inner_trip_ok && inner_reasons.is_empty() {
                dims.push(*inner);
            } else {
                let v = self.view(*inner);
                let why = if !inner_trip_ok {
                    "its bounds depend on the outer loop".to_string()
                } else {
                    inner_reasons.join("; ")
                };
                sequential_inner.push(format!(
                    "loop {} (line {}): {why}",
                    v.var, self.f.loops[*inner].line
                ));
            }
        }
        for d in self.descendants(outer) {
            if dims.contains(&d) || kids.contains(&d) && dims.len() == 1 {
                continue;
            }
            let v = self.view(d);
            let reasons = self.dependences(d, &mut BTreeSet::new());
            let why = if reasons.is_empty() {
                "independent iterations, run inside each thread".to_string()
            } else {
                reasons.join("; ")
            };
            sequential_inner.push(format!(
                "loop {} (line {}): {why}",
                v.var, self.f.loops[d].line
            ));
        }
        let parallel = if outer_reasons.is_empty() {
            "yes"
        } else if outer_reasons.iter().all(|r| r.starts_with("unknown:")) {
            "unknown"
        } else {
            "no"
        };
        let verdict = Verdict {
            parallel: parallel.into(),
            dims: dims.iter().map(|&d| self.view(d).var).collect(),
            reasons: outer_reasons,
            sequential_inner,
        };
        (verdict, dims)
    }

    fn describe_loop(&self, l: usize) -> LoopDesc {
        let lf = &self.f.loops[l];
        let v = self.view(l);
        let header = self.source.and_then(|s| source::for_header(s, lf.line));
        let normalised = lf.induction.as_ref().map(|(_, init, step)| {
            let k = Expr::sym(Symbol::var(&format!("k_{}", v.var)));
            format!("{} = {}", v.var, init.add(&step.mul(&k)))
        });
        LoopDesc {
            var: v.var,
            line: header.as_ref().map_or(lf.line, |h| h.line),
            header,
            normalised,
            trip_count: lf.trip.as_ref().map(|t| t.to_string()),
            trip_value: lf
                .trip
                .as_ref()
                .and_then(|t| self.eval(t))
                .map(|t| t.max(0)),
        }
    }

    // ---------------------------------------------------------------------------------
    // §4.1: the friendliness test.

    /// Reasons why loop `l`'s iterations cannot run as independent threads; reasons the
    /// static test cannot decide start with `unknown:`.
    fn dependences(&self, l: usize, assumptions: &mut BTreeSet<String>) -> Vec<String> {
        let lf = &self.f.loops[l];
        let v = self.view(l);
        let mut reasons = Vec::new();
        if lf.trip.is_none() || lf.induction.is_none() {
            reasons.push(format!(
                "loop {} is not normalisable (no affine induction variable with a bound invariant in the loop)",
                v.var
            ));
        }
        // Calls.
        let mut bad_calls: Vec<String> = self
            .f
            .calls
            .iter()
            .filter(|c| lf.contains(c.block) && !source::gpu_available(&c.callee))
            .map(|c| format!("{}()", c.callee))
            .collect();
        bad_calls.sort();
        bad_calls.dedup();
        if !bad_calls.is_empty() {
            reasons.push(format!(
                "calls {}, which {} not on the device white-list",
                bad_calls.join(" and "),
                if bad_calls.len() == 1 { "is" } else { "are" }
            ));
        }
        if self
            .f
            .calls
            .iter()
            .any(|c| lf.contains(c.block) && c.callee == "rand")
        {
            reasons.push(
                "rand() carries hidden generator state from one iteration to the next".into(),
            );
        }
        // Globals and statics.
        let mut globals: Vec<String> = Vec::new();
        for a in self.accs_in(l) {
            if let (AccessKind::Store, Base::Global { name, is_static }) = (a.kind, &a.base) {
                let what = if *is_static {
                    format!("the static variable {name}")
                } else {
                    format!("the global {name}")
                };
                if !globals.contains(&what) {
                    globals.push(what);
                }
            }
        }
        if !globals.is_empty() {
            reasons.push(format!(
                "writes to {} in every iteration: a loop-carried dependency through them",
                globals.join(" and ")
            ));
        }
        // Values too big to keep (a macro expanding to a huge expression).
        reasons.extend(self.widened_values(l));
        // Memory.
        reasons.extend(self.memory_dependences(l, assumptions));
        // Scalars.
        let lines: Vec<String> = self
            .carried_scalars(l)
            .iter()
            .map(|x| x.to_string())
            .collect();
        if !lines.is_empty() {
            reasons.push(format!(
                "{} on line{} {} {} read by the next iteration of loop {} (a reduction or recurrence)",
                if lines.len() == 1 { "a scalar written" } else { "scalars written" },
                if lines.len() == 1 { "" } else { "s" },
                lines.join(", "),
                if lines.len() == 1 { "is" } else { "are" },
                v.var
            ));
        }
        reasons
    }

    fn memory_dependences(&self, l: usize, assumptions: &mut BTreeSet<String>) -> Vec<String> {
        let lf = &self.f.loops[l];
        let inner: Vec<usize> = self.descendants(l);
        let scope = PairLoop {
            index: l,
            var: self.loop_var(lf),
            counter: &lf.counter,
            bounds: self.pair_bounds(l, &inner),
            inner: &inner,
        };
        let accs = self.accs_in(l);
        let mut out = Vec::new();
        let mut unknown = Vec::new();
        for (i, w) in accs.iter().enumerate() {
            if w.kind != AccessKind::Store {
                continue;
            }
            for (j, y) in accs.iter().enumerate() {
                if j < i && y.kind == AccessKind::Store {
                    continue; // store pairs once
                }
                if w.base != y.base || matches!(w.base, Base::Global { .. }) {
                    continue;
                }
                let lines = [w.line, y.line];
                if !self.at(Phase::Pair {
                    loop_index: l,
                    lines,
                }) {
                    return out; // not used: the budget ran out
                }
                // A value too big to keep is reported as such (`widened_values`).
                if self.widened(&w.offset).is_some() || self.widened(&y.offset).is_some() {
                    continue;
                }
                match self.pair_test(&scope, w, y, assumptions) {
                    Pair::Independent => {}
                    Pair::Dependent(why) => out.push(why),
                    Pair::Undecided(why) => unknown.push(why),
                }
            }
        }
        out.sort();
        out.dedup();
        unknown.sort();
        unknown.dedup();
        // Many references make many undecided pairs: the first few say what they are.
        if unknown.len() > MAX_UNDECIDED_LISTED {
            let more = unknown.len() - MAX_UNDECIDED_LISTED;
            unknown.truncate(MAX_UNDECIDED_LISTED);
            unknown.push(format!(
                "unknown: {more} more pairs of accesses the static test cannot decide"
            ));
        }
        out.extend(unknown);
        out
    }

    /// The box of the counters a pair of accesses in loop `l` is tested over: each loop
    /// inside `l` twice (the second access's counters renamed apart, `k'`), and the
    /// loops around `l`.
    fn pair_bounds(&self, l: usize, inner: &[usize]) -> Vec<Bound> {
        let mut bounds: Vec<Bound> = Vec::new();
        for &i in inner {
            let Some(t) = &self.f.loops[i].trip else {
                continue;
            };
            let c = &self.f.loops[i].counter;
            bounds.push(Bound {
                symbol: c.clone(),
                lo: Expr::zero(),
                hi: t.sub(&Expr::one()),
            });
            bounds.push(Bound {
                symbol: Symbol::var(&format!("{c}'")),
                lo: Expr::zero(),
                hi: self.renamed_apart(t, inner).sub(&Expr::one()),
            });
        }
        let mut outer_chain = Vec::new();
        let mut p = self.f.loops[l].parent;
        while let Some(x) = p {
            outer_chain.push(x);
            p = self.f.loops[x].parent;
        }
        if let Some(b) = self.bounds(&outer_chain) {
            bounds.extend(b);
        }
        bounds
    }

    /// `e` with the counters of the loops `inner` renamed apart (`k` becomes `k'`).
    fn renamed_apart(&self, e: &Expr, inner: &[usize]) -> Expr {
        e.subst(&|s| {
            inner
                .iter()
                .find(|&&i| self.f.loops[i].counter == *s)
                .map(|&i| Expr::sym(Symbol::var(&format!("{}'", self.f.loops[i].counter))))
        })
    }

    /// The static test (module documentation) of store `w` against access `y` of the
    /// same array in the iterations of the loop `scope`.
    fn pair_test(
        &self,
        scope: &PairLoop<'_>,
        w: &Acc,
        y: &Acc,
        assumptions: &mut BTreeSet<String>,
    ) -> Pair {
        let (k, var) = (scope.counter, &scope.var);
        // An index read from memory (`a[idx[i]]`) may differ in every iteration.
        let opaque = |e: &Expr| e.mentions(&|s| matches!(s, Symbol::Opaque(_)));
        if opaque(&w.offset) || opaque(&y.offset) {
            return Pair::Undecided(format!(
                "unknown: {} on lines {} and {} is indexed by a value read from memory; run the dynamic test (--emit-cuda with --values)",
                w.base.name(),
                w.line,
                y.line
            ));
        }
        if w.base == Base::Unknown {
            return Pair::Undecided(format!(
                "unknown: a store on line {} through a pointer the analysis cannot name",
                w.line
            ));
        }
        let (Some(sw), Some(sy)) = (affine_in(&w.offset, k), affine_in(&y.offset, k)) else {
            return Pair::Undecided(format!(
                "unknown: {} on lines {} and {} is not indexed affinely by {var}",
                w.base.name(),
                w.line,
                y.line
            ));
        };
        let rw = w.offset.without_symbol(k);
        let d = self
            .renamed_apart(&y.offset.without_symbol(k), scope.inner)
            .sub(&rw);
        if sw == sy {
            return self.same_stride_test(scope, w, y, &sw, &d, assumptions);
        }
        // GCD test: a·k − b·k' = D has no integer solution.
        if let (Some(a), Some(b), Some(dc)) = (sw.as_integer(), sy.as_integer(), d.as_integer()) {
            let g = warpcheck_sym::gcd_i128(a, b);
            if g != 0 && dc % g != 0 && w.bytes == 1 && y.bytes == 1 {
                return Pair::Independent;
            }
        }
        Pair::Undecided(format!(
            "unknown: {} is accessed with different strides in {var} on lines {} and {}",
            w.base.name(),
            w.line,
            y.line
        ))
    }

    /// The bound test for two accesses with the same stride `s` in the loop's counter and
    /// the difference `d` of the rest (module documentation).
    fn same_stride_test(
        &self,
        scope: &PairLoop<'_>,
        w: &Acc,
        y: &Acc,
        s: &Expr,
        d: &Expr,
        assumptions: &mut BTreeSet<String>,
    ) -> Pair {
        let (k, var) = (scope.counter, &scope.var);
        let (bw, by) = (Expr::int(w.bytes as i128), Expr::int(y.bytes as i128));
        let sign = self.ctx.sign(s);
        let positive = sign.value.is_positive();
        let negative = sign.value.is_negative();
        for a in &sign.assuming {
            assumptions.insert(a.to_string());
        }
        if !positive && !negative {
            return if d.is_zero() && s.is_zero() {
                Pair::Dependent(self.dep_text(w, y, var, Some(0)))
            } else {
                Pair::Undecided(format!(
                    "unknown: the stride of {} in {var} has no known sign",
                    w.base.name()
                ))
            };
        }
        let (s_abs, d_dir) = if positive {
            (s.clone(), d.clone())
        } else {
            (s.neg(), d.neg())
        };
        if w.offset.without_symbol(k) == y.offset.without_symbol(k)
            && self.delinearised(
                &w.offset,
                scope.index,
                scope.inner,
                w.bytes.max(y.bytes),
                assumptions,
            )
        {
            return Pair::Independent;
        }
        let box_ = &scope.bounds;
        let ctx = range::with_bounds(&self.ctx, box_);
        if let Some(r) = range::range(&d_dir, box_, &self.ctx) {
            for a in &r.assuming {
                assumptions.insert(a.to_string());
            }
            let lo_ok = ctx.decide(Relation::Ge, &r.lo, &bw.sub(&s_abs)).value == Some(true);
            let hi_ok = ctx.decide(Relation::Le, &r.hi, &s_abs.sub(&by)).value == Some(true);
            if lo_ok && hi_ok {
                return Pair::Independent;
            }
            // §6.2: decided by the values where the symbols cannot be.
            let holds = |e: &Expr| self.eval(e).is_some_and(|v| v >= 0);
            if holds(&r.lo.sub(&bw.sub(&s_abs))) && holds(&s_abs.sub(&by).sub(&r.hi)) {
                assumptions.insert(format!(
                    "{} on lines {} and {}: independent iterations of {var} shown with the given values only",
                    w.base.name(), w.line, y.line
                ));
                return Pair::Independent;
            }
        }
        let width = w.bytes.max(y.bytes) as i128;
        match (d.as_integer(), s.as_integer()) {
            // A constant difference: the distance.
            (Some(dc), Some(sc)) if sc != 0 && dc % sc == 0 => {
                Pair::Dependent(self.dep_text(w, y, var, Some(-dc / sc)))
            }
            // Misaligned by more than the widths: never the same bytes.
            (Some(dc), Some(sc))
                if sc != 0
                    && dc.abs() % sc.abs() >= width
                    && sc.abs() - dc.abs() % sc.abs() >= width =>
            {
                Pair::Independent
            }
            _ => Pair::Undecided(format!(
                "unknown: {} written on line {} may be accessed on line {} by another iteration of {var}",
                w.base.name(),
                w.line,
                y.line
            )),
        }
    }

    /// Whether `offset`, one index expression accessed by every iteration of loop `l`, is
    /// a delinearised multi-dimensional index: affine in `l`'s counter and the counters of
    /// the loops inside it, with coefficients that, in some order, each exceed the whole
    /// range spanned by the smaller ones (`4·rows·j + 4·i` with `0 ≤ i < rows`: a row
    /// is longer than all of its columns). Such an index is a mixed-radix number: two
    /// iterations with different counters never touch the same bytes, so the iterations
    /// of `l` are independent even though the bound test on its stride alone fails.
    fn delinearised(
        &self,
        offset: &Expr,
        l: usize,
        inner: &[usize],
        width: u32,
        assumptions: &mut BTreeSet<String>,
    ) -> bool {
        let mut used = BTreeSet::new();
        let mut terms = Vec::new();
        let mut rest = offset.clone();
        for &loop_index in std::iter::once(&l).chain(inner) {
            let lf = &self.f.loops[loop_index];
            let (Some(coefficient), Some(trip)) = (affine_in(offset, &lf.counter), &lf.trip) else {
                return false;
            };
            if coefficient.is_zero() {
                continue;
            }
            let answer = self.ctx.sign(&coefficient);
            used.extend(answer.assuming.iter().map(|a| a.to_string()));
            let sign = answer.value;
            let magnitude = if sign.is_positive() {
                coefficient
            } else if sign.is_negative() {
                coefficient.neg()
            } else {
                return false;
            };
            rest = rest.without_symbol(&lf.counter);
            terms.push((magnitude, trip.sub(&Expr::one())));
        }
        let counters: Vec<&Symbol> = std::iter::once(&l)
            .chain(inner)
            .map(|&i| &self.f.loops[i].counter)
            .collect();
        if terms.is_empty() || terms.len() > 4 || counters.iter().any(|c| rest.depends_on(c)) {
            return false;
        }
        let shown = permutations(terms.len())
            .into_iter()
            .any(|order| self.mixed_radix(&terms, &order, width, &mut used));
        if shown {
            assumptions.extend(used);
        }
        shown
    }

    /// Each coefficient, in `order`, is at least the span of the smaller terms plus the
    /// access width: `c_m ≥ Σ_{l<m} c_l·(n_l − 1) + width`.
    fn mixed_radix(
        &self,
        terms: &[(Expr, Expr)],
        order: &[usize],
        width: u32,
        used: &mut BTreeSet<String>,
    ) -> bool {
        let mut span = Expr::int(width as i128);
        let mut assuming = Vec::new();
        for &t in order {
            let (coefficient, last) = &terms[t];
            let answer = self.ctx.decide(Relation::Ge, coefficient, &span);
            if answer.value != Some(true) {
                return false;
            }
            assuming.extend(answer.assuming.iter().map(|a| a.to_string()));
            span = span.add(&coefficient.mul(last));
        }
        used.extend(assuming);
        true
    }

    fn dep_text(&self, w: &Acc, y: &Acc, var: &str, distance: Option<i128>) -> String {
        let name = w.base.name();
        match (y.kind, distance) {
            (AccessKind::Load, Some(d)) if d > 0 => format!(
                "loop-carried RAW dependency: {name} read on line {} in iteration {var} + {d} was written on line {} in iteration {var} (distance {d})",
                y.line, w.line
            ),
            (AccessKind::Load, Some(d)) if d < 0 => format!(
                "loop-carried WAR dependency: {name} read on line {} is overwritten on line {} by a later iteration (distance {})",
                y.line, w.line, -d
            ),
            (AccessKind::Store, Some(d)) if d != 0 => format!(
                "loop-carried WAW dependency: {name} written on lines {} and {} by iterations {} apart",
                w.line,
                y.line,
                d.abs()
            ),
            _ => format!(
                "{name} written on line {} and accessed on line {} by every iteration of {var} at the same place",
                w.line, y.line
            ),
        }
    }

    /// Lines of stores to `.local` cells that loop `l` reads before writing them in an
    /// iteration (upward-exposed), other than the loop's own variable.
    fn carried_scalars(&self, l: usize) -> Vec<u32> {
        let lf = &self.f.loops[l];
        let a = &self.f.analysis;
        let body = a.body;
        if !self.at(Phase::Scalars { loop_index: l }) {
            return Vec::new();
        }
        // The cell accesses of each instruction.
        let mut by_inst: BTreeMap<
            warpcheck_ir::InstId,
            Vec<&warpcheck_lint::analysis::CellAccess>,
        > = BTreeMap::new();
        for c in &a.cell_accesses {
            by_inst.entry(c.inst).or_default().push(c);
        }
        let own: BTreeSet<Loc> = a.loops[l]
            .inductions
            .iter()
            .map(|(loc, _, _)| *loc)
            .filter(|loc| matches!(loc, Loc::Cell(..)))
            .collect();
        let header = a.loops[l].header;
        let written: BTreeSet<Loc> = a
            .cell_accesses
            .iter()
            .filter(|c| c.kind == AccessKind::Store && lf.contains(c.block))
            .map(|c| c.loc)
            .collect();
        // Must-written cells at block entry, forward over the loop without its back edges.
        let blocks = &lf.blocks;
        let mut entry: BTreeMap<BlockId, Option<BTreeSet<Loc>>> =
            blocks.iter().map(|&b| (b, None)).collect();
        entry.insert(header, Some(BTreeSet::new()));
        let per_block = |b: BlockId, mut set: BTreeSet<Loc>, exposed: &mut BTreeSet<Loc>| {
            for inst in body.blocks[b].insts() {
                for c in by_inst.get(&inst).into_iter().flatten() {
                    match c.kind {
                        AccessKind::Load if !set.contains(&c.loc) => {
                            exposed.insert(c.loc);
                        }
                        AccessKind::Store => {
                            set.insert(c.loc);
                        }
                        _ => {}
                    }
                }
            }
            set
        };
        let mut exposed = BTreeSet::new();
        for _ in 0..blocks.len() + 2 {
            let mut changed = false;
            for &b in blocks {
                let Some(Some(set)) = entry.get(&b).cloned() else {
                    continue;
                };
                // A step per cell the block's entry set holds.
                if !budget::charge(1 + set.len() as u64) {
                    return Vec::new(); // not used: the budget ran out
                }
                let out = per_block(b, set, &mut BTreeSet::new());
                for &s in body.cfg.succs(b) {
                    if s == header || !lf.contains(s) {
                        continue;
                    }
                    let cur = entry.get(&s).cloned().flatten();
                    let new = match cur {
                        None => out.clone(),
                        Some(c) => c.intersection(&out).copied().collect(),
                    };
                    if entry.get(&s).cloned().flatten().as_ref() != Some(&new) {
                        entry.insert(s, Some(new));
                        changed = true;
                    }
                }
            }
            if !changed {
                break;
            }
        }
        for &b in blocks {
            if let Some(Some(set)) = entry.get(&b).cloned() {
                per_block(b, set, &mut exposed);
            }
        }
        let mut lines: Vec<u32> = a
            .cell_accesses
            .iter()
            .filter(|c| {
                c.kind == AccessKind::Store
                    && lf.contains(c.block)
                    && exposed.contains(&c.loc)
                    && written.contains(&c.loc)
                    && !own.contains(&c.loc)
            })
            .map(|c| a.line_of(c.inst))
            .filter(|&x| x > 0)
            .collect();
        lines.sort_unstable();
        lines.dedup();
        lines
    }

    fn rewrites(&self, l: usize, reasons: &[String]) -> Vec<String> {
        let mut out = Vec::new();
        if reasons
            .iter()
            .any(|r| r.contains("RAW dependency") && r.contains("distance 1"))
        {
            out.push("none as written; a recurrence x[i] = f(x[i - 1], ...) with an associative f is a scan: use a parallel scan (Hillis-Steele, or a Blelloch work-efficient scan per block plus a scan of block sums)".into());
        }
        if reasons.iter().any(|r| r.contains("writes to the"))
            || reasons.iter().any(|r| r.contains("(a reduction"))
        {
            out.push("rewrite as a sum reduction (per-block partial sums in shared memory, then atomics or a second pass); a counter incremented in every iteration is the trip count after the loop".into());
        }
        let lf = &self.f.loops[l];
        let mut repl: Vec<String> = self
            .f
            .calls
            .iter()
            .filter(|c| lf.contains(c.block))
            .filter_map(|c| {
                source::gpu_replacement(&c.callee).map(|r| format!("{}: {r}", c.callee))
            })
            .collect();
        repl.dedup();
        if !repl.is_empty() {
            out.push(format!("none as written; replace {}", repl.join("; ")));
        }
        out
    }

    // ---------------------------------------------------------------------------------
    // §4.2: kernel parameters.

    fn parameters(&self, l: usize, assumptions: &mut BTreeSet<String>) -> (Vec<Param>, Vec<Param>) {
        let lf = &self.f.loops[l];
        let accs = self.accs_in(l);
        let mut inbound: Vec<Param> = Vec::new();
        let mut outbound: Vec<Param> = Vec::new();
        let mut bases: BTreeMap<(Base, bool), Vec<&Acc>> = BTreeMap::new();
        for a in &accs {
            bases
                .entry((a.base.clone(), a.kind == AccessKind::Store))
                .or_default()
                .push(a);
        }
        let mut roots_used: BTreeSet<String> = BTreeSet::new();
        for ((base, is_store), list) in &bases {
            let p = match base {
                Base::Pointer(name) => {
                    let info = &self.f.pointers[name];
                    if info.nested {
                        roots_used.insert(info.root.clone());
                    }
                    // A pointer read only to load other pointers or fields is a scalar input.
                    if !is_store
                        && self
                            .f
                            .pointers
                            .values()
                            .any(|o| o.nested && o.root == *name)
                        && list.iter().all(|a| a.offset.as_integer().is_some())
                    {
                        inbound.push(Param {
                            name: name.clone(),
                            kind: "pointer".into(),
                            nested_in: None,
                            section: None,
                            section_note: None,
                            instantiated: None,
                            runs: Vec::new(),
                        });
                        continue;
                    }
                    let mut p = self.section(name, list, l, assumptions);
                    p.nested_in = info.nested.then(|| info.root.clone());
                    p
                }
                Base::Global { name, is_static } => Param {
                    name: name.clone(),
                    kind: if *is_static { "static" } else { "global" }.into(),
                    nested_in: None,
                    section: None,
                    section_note: None,
                    instantiated: None,
                    runs: Vec::new(),
                },
                Base::Unknown => continue,
            };
            if *is_store {
                outbound.push(p);
            } else {
                inbound.push(p);
            }
        }
        // Globals written are also read (x += ...): inbound too when loaded.
        // Scalars: parameters whose cells the loop reads.
        let read_cells: BTreeSet<Loc> = self
            .f
            .analysis
            .cell_accesses
            .iter()
            .filter(|c| c.kind == AccessKind::Load && lf.contains(c.block))
            .map(|c| c.loc)
            .collect();
        for (name, cell) in &self.f.param_cells {
            if !read_cells.contains(cell) {
                continue;
            }
            if inbound.iter().any(|p| p.name == *name) || outbound.iter().any(|p| p.name == *name) {
                continue;
            }
            let is_pointer = self.f.pointers.contains_key(name);
            inbound.push(Param {
                name: name.clone(),
                kind: if is_pointer { "pointer" } else { "scalar" }.into(),
                nested_in: None,
                section: None,
                section_note: None,
                instantiated: None,
                runs: Vec::new(),
            });
        }
        let order = |p: &Param| {
            self.f
                .param_cells
                .keys()
                .position(|k| *k == p.name)
                .unwrap_or(usize::MAX)
        };
        inbound.sort_by_key(|p| (p.kind == "scalar", order(p)));
        let _ = roots_used;
        (inbound, outbound)
    }

    fn section(
        &self,
        name: &str,
        list: &[&Acc],
        l: usize,
        assumptions: &mut BTreeSet<String>,
    ) -> Param {
        let mut lo: Option<Expr> = None;
        let mut hi: Option<Expr> = None;
        let mut failed = false;
        for a in list {
            if !self.at(Phase::Section { line: a.line }) {
                break; // not used: the budget ran out
            }
            let loops: Vec<usize> = a.loops.iter().copied().skip_while(|&x| x != l).collect();
            let Some(b) = self.bounds(&loops) else {
                failed = true;
                continue;
            };
            // The access's guard narrows the counters (`if (n > 0) … src[n - 1]`).
            let Some(b) = range::narrow(&b, &a.cond, &self.ctx) else {
                continue; // never executed
            };
            match range::range(&a.offset, &b, &self.ctx) {
                Some(r) => {
                    for x in &r.assuming {
                        assumptions.insert(x.to_string());
                    }
                    lo = Some(match lo {
                        None => r.lo,
                        Some(x) => smin(&x, &r.lo, &self.ctx),
                    });
                    hi = Some(match hi {
                        None => r.hi,
                        Some(x) => smax(&x, &r.hi, &self.ctx),
                    });
                }
                None => failed = true,
            }
        }
        let data_dependent_index = list
            .iter()
            .any(|a| a.offset.mentions(&|s| matches!(s, Symbol::Opaque(_))));
        let exact = !failed
            && !data_dependent_index
            && lo.as_ref().is_some_and(|x| !range::has_min_max(x))
            && hi.as_ref().is_some_and(|x| !range::has_min_max(x));
        let section = (!failed)
            .then(|| lo.clone().zip(hi.clone()))
            .flatten()
            .map(|(a, b)| [a.to_string(), b.to_string()]);
        let data_dependent = list
            .iter()
            .any(|a| a.offset.mentions(&|s| matches!(s, Symbol::Opaque(_))));
        let widened = list.iter().any(|a| self.widened(&a.offset).is_some());
        let section_note = (!exact).then(|| {
            if widened {
                format!("static bounds unknown: an index has more than {MAX_VALUE_NODES} nodes")
            } else if data_dependent {
                "static bounds unknown: an index is loaded from memory".to_string()
            } else if failed {
                "static bounds unknown (an index is not monotonic in the loop variables)".to_string()
            } else {
                "static bounds not comparable: the section keeps min/max of incomparable expressions".to_string()
            }
        });
        // Instantiation.
        let mut instantiated = None;
        let mut runs = Vec::new();
        if !self.values.is_empty() {
            if exact {
                if let (Some(a), Some(b)) = (
                    lo.as_ref().and_then(|x| self.eval(x)),
                    hi.as_ref().and_then(|x| self.eval(x)),
                ) {
                    instantiated = Some([a, b]);
                }
            } else if let Some(found) = self.enumerate(list, l) {
                instantiated = found.first().zip(found.last()).map(|(a, b)| [a[0], b[1]]);
                runs = found;
            }
        }
        Param {
            name: name.to_string(),
            kind: "pointer".into(),
            nested_in: None,
            section,
            section_note,
            instantiated,
            runs,
        }
    }

    /// §6.2: with the values, the byte offsets (element starts) the accesses touch, by
    /// running the loops' counters over their instantiated trip counts; contiguous runs
    /// (elements at most one width apart) merged. `None` if the space is too large or a
    /// trip count or offset cannot be evaluated.
    fn enumerate(&self, list: &[&Acc], l: usize) -> Option<Vec<[i128; 2]>> {
        let mut offsets: Vec<(i128, i128)> = Vec::new();
        for a in list {
            let loops: Vec<usize> = a.loops.iter().copied().skip_while(|&x| x != l).collect();
            let mut trips = Vec::new();
            let mut total: u64 = 1;
            for &x in &loops {
                let t = self.f.loops[x].trip.as_ref()?;
                trips.push((self.f.loops[x].counter.clone(), self.instantiate(t)));
            }
            // Trip counts may depend on outer counters; bound the total by the maxima.
            for (_, t) in &trips {
                let max = t.eval(&|_| None).map(|r| r.floor()).unwrap_or(1 << 20);
                total = total.saturating_mul(max.max(1) as u64);
            }
            // The points are paid for before they are visited, and the enumeration is
            // skipped (the section stays symbolic) when the budget cannot pay for them.
            if total > MAX_ENUMERATED
                || !self.at(Phase::Enumerating { line: a.line })
                || !budget::try_charge(total)
            {
                return None;
            }
            let offset = self.instantiate(&a.offset);
            let cond = {
                let c = &a.cond;
                c.subst(&|s| match s {
                    Symbol::Param(n) => self.values.get(&**n).map(|v| Expr::int(*v)),
                    _ => None,
                })
            };
            let mut env: Vec<(Symbol, i128)> = Vec::new();
            self.walk(&trips, 0, &mut env, &mut |env| {
                let look = |s: &Symbol| {
                    env.iter()
                        .find(|(x, _)| x == s)
                        .and_then(|(_, v)| Rational::new(*v, 1))
                };
                if cond.eval(&look) == Some(false) {
                    return true;
                }
                match offset.eval(&look) {
                    Some(v) => {
                        offsets.push((v.floor(), a.bytes as i128));
                        true
                    }
                    None => false,
                }
            })?;
        }
        offsets.sort_unstable();
        let mut runs: Vec<[i128; 2]> = Vec::new();
        for (o, w) in offsets {
            match runs.last_mut() {
                Some(r) if o <= r[1] + w => r[1] = r[1].max(o),
                _ => runs.push([o, o]),
            }
        }
        Some(runs)
    }

    fn walk(
        &self,
        trips: &[(Symbol, Expr)],
        depth: usize,
        env: &mut Vec<(Symbol, i128)>,
        visit: &mut Visit<'_>,
    ) -> Option<()> {
        let Some((k, t)) = trips.get(depth) else {
            return visit(env).then_some(());
        };
        let look = |s: &Symbol| {
            env.iter()
                .find(|(x, _)| x == s)
                .and_then(|(_, v)| Rational::new(*v, 1))
        };
        let n = t.eval(&look)?.floor();
        for i in 0..n.max(0) {
            env.push((k.clone(), i));
            let r = self.walk(trips, depth + 1, env, visit);
            env.pop();
            r?;
        }
        Some(())
    }

    /// Whether `e > 0` may hold: not provably `≤ 0`, and true with the values when
    /// they decide it.
    fn may_be_positive(&self, e: &Expr) -> bool {
        if let Some(v) = self.eval(e) {
            return v > 0;
        }
        self.ctx.decide(Relation::Le, e, &Expr::zero()).value != Some(true)
    }

    // ---------------------------------------------------------------------------------
    // §5.1: coalescing.

    fn mappings(&self, dims: &[usize]) -> Vec<(String, Symbol, Option<Symbol>)> {
        let v: Vec<LoopView> = dims.iter().map(|&d| self.view(d)).collect();
        match v.as_slice() {
            [a] => vec![(format!("{} -> Grid.x", a.var), a.counter.clone(), None)],
            [a, b] => vec![
                (
                    format!("{} -> Grid.x, {} -> Grid.y", a.var, b.var),
                    a.counter.clone(),
                    Some(b.counter.clone()),
                ),
                (
                    format!("{} -> Grid.x, {} -> Grid.y", b.var, a.var),
                    b.counter.clone(),
                    Some(a.counter.clone()),
                ),
            ],
            _ => Vec::new(),
        }
    }

    fn coalescing(
        &self,
        dims: &[usize],
        assumptions: &mut BTreeSet<String>,
    ) -> (Vec<CoalescingRow>, Option<Mapping>) {
        let mappings = self.mappings(dims);
        let outer = dims[0];
        let mut rows = Vec::new();
        let mut cost = vec![0i128; mappings.len()];
        for a in self.accs_in(outer) {
            if !matches!(a.base, Base::Pointer(_)) {
                continue;
            }
            if !self.at(Phase::Coalescing { line: a.line }) {
                break; // not used: the budget ran out
            }
            // Loads of the pointers themselves (c->data) are per-kernel constants.
            if a.offset.as_integer().is_some()
                && self
                    .f
                    .pointers
                    .values()
                    .any(|p| p.nested && p.root == a.base.name())
            {
                continue;
            }
            let mut factors = Vec::new();
            for (m, (name, x, _)) in mappings.iter().enumerate() {
                let mut worst: Option<(Expr, Expr)> = None; // (stride, factor)
                let mut affine = true;
                for alt in alternatives(&a.offset) {
                    // An index read from memory: adjacent threads may be anywhere.
                    if alt.mentions(&|s| matches!(s, Symbol::Opaque(_))) {
                        affine = false;
                        break;
                    }
                    let Some(s) = affine_in(&alt, x) else {
                        affine = false;
                        break;
                    };
                    let sign = self.ctx.sign(&s);
                    for x in &sign.assuming {
                        assumptions.insert(x.to_string());
                    }
                    let s_abs = if sign.value.is_negative() {
                        s.neg()
                    } else {
                        s.clone()
                    };
                    let f = request_factor(&s_abs);
                    worst = Some(match worst {
                        None => (s_abs, f),
                        Some((ps, pf)) => {
                            if self.ctx.compare(&f, &pf).value == Some(std::cmp::Ordering::Greater)
                            {
                                (s_abs, f)
                            } else {
                                (ps, pf)
                            }
                        }
                    });
                }
                let (stride, factor) = match (affine, worst) {
                    (true, Some((s, f))) => (Some(s.to_string()), f),
                    _ => (None, Expr::int(32)),
                };
                let value = self.eval(&factor);
                cost[m] += value.unwrap_or_else(|| {
                    if factor.as_integer() == Some(1) {
                        1
                    } else {
                        32
                    }
                });
                factors.push(MappingFactor {
                    mapping: name.clone(),
                    stride,
                    factor: factor.to_string(),
                    value,
                });
            }
            rows.push(CoalescingRow {
                line: a.line,
                kind: if a.kind == AccessKind::Store {
                    "store"
                } else {
                    "load"
                }
                .into(),
                access: format!("{}[{}]", a.base.name(), self.show(&a.offset)),
                base: a.base.name(),
                factors,
            });
        }
        if mappings.is_empty() {
            return (rows, None);
        }
        let best = (0..mappings.len())
            .min_by_key(|&m| (cost[m], m))
            .unwrap_or(0);
        let trips: Option<i128> = dims
            .iter()
            .map(|&d| self.f.loops[d].trip.as_ref().and_then(|t| self.eval(t)))
            .try_fold(1i128, |acc, t| t.map(|t| acc * t.max(0)));
        let all_one = rows.iter().all(|r| r.factors[best].factor == "1");
        let reason = if best == 0 && mappings.len() == 1 {
            if all_one {
                "adjacent iterations access adjacent elements: 1 request per warp".to_string()
            } else {
                let worst = rows
                    .iter()
                    .map(|r| r.factors[0].factor.clone())
                    .find(|f| f != "1")
                    .unwrap_or_default();
                format!(
                    "adjacent iterations are a stride apart ({worst} requests per warp instead of 1): compact the data or have each thread handle consecutive elements to coalesce"
                )
            }
        } else if best == 0 {
            "the direct mapping is already the best".to_string()
        } else {
            format!(
                "reverse the loops: {} gives {} requests per warp for every access",
                mappings[best].0,
                if all_one {
                    "1".to_string()
                } else {
                    "fewer".to_string()
                }
            )
        };
        (
            rows,
            Some(Mapping {
                recommended: mappings[best].0.clone(),
                is_direct: best == 0,
                reason,
                work_items: trips,
            }),
        )
    }
}

/// What the static dependence test says of a pair of accesses.
enum Pair {
    Independent,
    /// A dependence, described.
    Dependent(String),
    /// Undecided, with why (`unknown: …`).
    Undecided(String),
}

/// The loop a pair of accesses is tested in.
struct PairLoop<'l> {
    index: usize,
    var: String,
    counter: &'l Symbol,
    /// The loops inside it.
    inner: &'l [usize],
    /// Their counters' box, twice (renamed apart), and the outer loops' ([`Advisor::pair_bounds`]).
    bounds: Vec<Bound>,
}

/// A visitor of one point of an iteration space (counter values); `false` stops.
type Visit<'v> = dyn FnMut(&[(Symbol, i128)]) -> bool + 'v;

/// `e = s·k + r` with `r` free of `k`: the stride `s` (possibly 0).
/// Every ordering of `0..n` (n ≤ 4 here).
fn permutations(n: usize) -> Vec<Vec<usize>> {
    if n == 0 {
        return vec![Vec::new()];
    }
    let mut out = Vec::new();
    for smaller in permutations(n - 1) {
        for at in 0..=smaller.len() {
            let mut p = smaller.clone();
            p.insert(at, n - 1);
            out.push(p);
        }
    }
    out
}

fn affine_in(e: &Expr, k: &Symbol) -> Option<Expr> {
    if !e.depends_on(k) {
        return Some(Expr::zero());
    }
    let s = e.linear_coefficient(k)?;
    if s.depends_on(k) || e.without_symbol(k).depends_on(k) {
        return None;
    }
    Some(s)
}

/// 128-byte requests per warp for adjacent threads `s ≥ 0` bytes apart:
/// `min(32, max(1, 32·s/128))`.
fn request_factor(s: &Expr) -> Expr {
    if s.is_zero() {
        return Expr::one();
    }
    let f = s.scale(Rational::new(1, 4).unwrap_or(Rational::ONE));
    if let Some(c) = f.as_constant() {
        let v = c.ceil().clamp(1, 32);
        return Expr::int(v);
    }
    Expr::int(32).minimum(&f)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn request_factor_follows_the_byte_span_of_a_warp() {
        assert_eq!(request_factor(&Expr::zero()), Expr::one());
        assert_eq!(request_factor(&Expr::int(4)), Expr::one());
        assert_eq!(request_factor(&Expr::int(16)), Expr::int(4));
        assert_eq!(request_factor(&Expr::int(4096)), Expr::int(32));
        let n = Expr::sym(Symbol::param("N"));
        assert_eq!(
            request_factor(&n.mul(&Expr::int(4))).to_string(),
            "min(N, 32)"
        );
    }

    #[test]
    fn affine_strides() {
        let k = Symbol::var("k");
        let n = Expr::sym(Symbol::param("n"));
        let e = Expr::sym(k.clone()).mul(&n).add(&Expr::int(3));
        assert_eq!(affine_in(&e, &k), Some(n.clone()));
        assert_eq!(affine_in(&n, &k), Some(Expr::zero()));
        let sq = Expr::sym(k.clone()).mul(&Expr::sym(k.clone()));
        assert_eq!(affine_in(&sq, &k), None);
    }
}
