//! The advisor's bound on its own work: every input finishes with an answer or an
//! `unknown` that says which bound was reached, while what.
//!
//! # What is bounded
//!
//! The analyses are exact where they can be, and exactness has inputs that cost without
//! limit: pairwise dependence tests over many references (quadratic in them), ranges of
//! selections nested in selections (exponential in the depth), products of sums from
//! macros (the product of their sizes), long chains of `if`/`else` joined at every
//! merge, functions of thousands of statements. So the advisor meters its symbolic work
//! with [`warpcheck_sym::budget`]: steps, each roughly one term of an expression visited
//! or built, counted and never timed, so that a report does not depend on the host.
//!
//! * **Per function**: interpreting the function (the abstract interpretation of
//!   `warpcheck-lint` and naming its accesses) may spend [`FUNCTION_FACTOR`] times the
//!   per-nest budget. When it runs out, the values are incomplete, and every nest of the
//!   function is `unknown` with the line the interpretation reached.
//! * **Per loop nest**: deciding a nest's verdict and then its sections, coalescing and
//!   shared-memory advice may spend the per-nest budget ([`DEFAULT_STEPS_PER_NEST`],
//!   `warpcheck advise --analysis-budget N`). Run out while deciding the verdict, the
//!   nest is `unknown`, with the test that was running (the pair of lines, the loop);
//!   run out after it, the verdict stands and the rest of the nest's advice is left out,
//!   with the same kind of note. Either way the other nests are analysed with their own
//!   budgets.
//! * **Per run**: all functions and nests together may spend [`TOTAL_FACTOR`] times the
//!   per-nest budget; nests reached after that are `unknown` without being analysed.
//! * **Memory**: a value the interpretation computes with more than [`MAX_VALUE_NODES`]
//!   nodes (a macro expanding to a huge polynomial) is replaced where it is computed by
//!   an opaque value (`big@LINE`), and a nest whose accesses or loop bounds use one is
//!   `unknown` with that reason; a product that the remaining steps cannot pay for is
//!   never built ([`warpcheck_sym::budget`]), so memory grows at most with the steps.
//!   Enumerating an iteration space with `--values` (§6.2) reserves its points from the
//!   nest's budget first and is skipped when they are not there.
//!
//! The budgets are far above what the corpus and the Rodinia loops need (their largest
//! nest spends 12 % of the default, enumerating SRAD's iteration space with values, the
//! others under 0.5 %; their largest interpretation 1 % of a function's); a run that
//! reaches one says so, and a larger `--analysis-budget` is the remedy when the input is
//! worth it (`docs/ADVISE.md`, "Bounds", has measurements).

use std::cell::Cell;
use std::fmt;

use warpcheck_ir::EntityRef;
use warpcheck_sym::{Expr, budget};

use super::Advisor;
use crate::facts::Facts;
use crate::model::{NestAdvice, Verdict};

/// Steps one loop nest's analysis may spend by default (see the module documentation).
pub const DEFAULT_STEPS_PER_NEST: u64 = 4_000_000;
/// Interpreting one function may spend this many times the per-nest budget.
pub const FUNCTION_FACTOR: u64 = 4;
/// A whole run may spend this many times the per-nest budget.
pub const TOTAL_FACTOR: u64 = 16;
/// The largest value, in nodes ([`warpcheck_sym::Expr::size`]), the interpretation keeps.
pub const MAX_VALUE_NODES: usize = 2048;

/// How many steps the advisor may spend.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct AnalysisBudget {
    /// Steps per loop nest; a function's interpretation and the whole run get
    /// [`FUNCTION_FACTOR`] and [`TOTAL_FACTOR`] times as many.
    pub per_nest: u64,
}

impl Default for AnalysisBudget {
    fn default() -> Self {
        AnalysisBudget {
            per_nest: DEFAULT_STEPS_PER_NEST,
        }
    }
}

impl AnalysisBudget {
    pub fn per_function(self) -> u64 {
        self.per_nest.saturating_mul(FUNCTION_FACTOR)
    }

    pub fn total(self) -> u64 {
        self.per_nest.saturating_mul(TOTAL_FACTOR)
    }

    /// Runs `f` (the advice on every function of a run) within the run's total.
    pub fn run<T>(self, f: impl FnOnce() -> T) -> T {
        budget::metered(self.total(), f).value
    }
}

/// What the advisor is doing, for the note when the budget runs out there.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Phase {
    /// Not started: the run's total was spent before this nest.
    Waiting,
    /// Deciding the verdict of a loop, before any of its tests.
    Verdict { loop_index: usize },
    /// The dependence test of a loop on a pair of accesses (loop, lines).
    Pair { loop_index: usize, lines: [u32; 2] },
    /// The scalars a loop carries between iterations.
    Scalars { loop_index: usize },
    /// The accessed section of an array (line of the access).
    Section { line: u32 },
    /// Enumerating the iteration space with the values (line of the access).
    Enumerating { line: u32 },
    /// The coalescing of an access (line).
    Coalescing { line: u32 },
    /// The shared-memory footprint of a read (line).
    Footprint { line: u32 },
}

/// Where the budget ran out, ready to be written in a reason.
struct Reached<'v> {
    phase: Phase,
    var: &'v dyn Fn(usize) -> String,
    /// Which bound: the nest's own, or the run's total that left the nest less.
    bound: String,
}

impl fmt::Display for Reached<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let bound = &self.bound;
        match self.phase {
            Phase::Waiting => write!(f, "{bound} was reached before this nest was analysed"),
            Phase::Verdict { loop_index } => write!(
                f,
                "{bound} was reached deciding the verdict of loop {}",
                (self.var)(loop_index)
            ),
            Phase::Pair { loop_index, lines } => write!(
                f,
                "{bound} was reached testing the dependences of loop {} between lines {} and {}",
                (self.var)(loop_index),
                lines[0],
                lines[1]
            ),
            Phase::Scalars { loop_index } => write!(
                f,
                "{bound} was reached finding the scalars loop {} carries between iterations",
                (self.var)(loop_index)
            ),
            Phase::Section { line } => write!(
                f,
                "{bound} was reached bounding the section of the access on line {line}"
            ),
            Phase::Enumerating { line } => write!(
                f,
                "{bound} was reached enumerating the accesses of line {line} with the values"
            ),
            Phase::Coalescing { line } => write!(
                f,
                "{bound} was reached computing the coalescing of the access on line {line}"
            ),
            Phase::Footprint { line } => write!(
                f,
                "{bound} was reached computing the shared-memory footprint of line {line}"
            ),
        }
    }
}

/// The phase of the nest being analysed; set only while the budget lasts, so that it
/// names where the budget ran out.
#[derive(Debug)]
pub(super) struct Tracker {
    phase: Cell<Phase>,
}

impl Default for Tracker {
    fn default() -> Self {
        Tracker {
            phase: Cell::new(Phase::Waiting),
        }
    }
}

impl Tracker {
    /// Enters `phase`; `false` when the budget has run out (stop the work: what it would
    /// compute is not used).
    pub(super) fn at(&self, phase: Phase) -> bool {
        if budget::exhausted() {
            return false;
        }
        self.phase.set(phase);
        true
    }

    pub(super) fn phase(&self) -> Phase {
        self.phase.get()
    }

    pub(super) fn reset(&self) {
        self.phase.set(Phase::Waiting);
    }
}

impl Advisor<'_, '_> {
    /// Enters `phase` of the current nest; `false` once the budget has run out.
    pub(super) fn at(&self, phase: Phase) -> bool {
        self.tracker.at(phase)
    }

    /// Why the budget ran out in the current nest, as a sentence; `limit` is the steps
    /// the nest had.
    fn reached(&self, limit: u64) -> String {
        let var = |l: usize| self.view(l).var;
        let bound = if limit < self.budget.per_nest {
            format!(
                "the run's total analysis bound ({} steps)",
                self.budget.total()
            )
        } else {
            format!(
                "the analysis bound ({} steps per nest)",
                self.budget.per_nest
            )
        };
        Reached {
            phase: self.tracker.phase(),
            var: &var,
            bound,
        }
        .to_string()
    }

    /// Analyses the nest of outer loop `outer` within its budget.
    pub(super) fn bounded_nest(&self, outer: usize) -> NestAdvice {
        self.tracker.reset();
        let limit =
            budget::remaining().map_or(self.budget.per_nest, |r| r.min(self.budget.per_nest));
        let run = budget::metered(self.budget.per_nest, || {
            self.at(Phase::Verdict { loop_index: outer });
            let nest = self.nest(outer);
            // Worded inside the scope, where the phase is still the one that ran out.
            let why = budget::exhausted().then(|| self.reached(limit));
            (nest, why)
        });
        let (nest, why) = run.value;
        let mut nest = match (nest, why) {
            (Some(mut nest), Some(why)) => {
                nest.bound = Some(format!(
                    "{why}; the verdict was decided before it, the sections, coalescing and shared-memory advice are left out"
                ));
                nest
            }
            (Some(nest), None) => nest,
            (None, why) => {
                let why = why.unwrap_or_else(|| self.reached(limit));
                self.unknown_nest(outer, &why, true)
            }
        };
        nest.analysis_steps = run.spent;
        nest
    }

    /// The functions called in loop nest `outer`, sorted, each once.
    pub(super) fn calls_in(&self, outer: usize) -> Vec<String> {
        let lf = &self.f.loops[outer];
        let mut calls: Vec<String> = self
            .f
            .calls
            .iter()
            .filter(|c| lf.contains(c.block))
            .map(|c| c.callee.clone())
            .collect();
        calls.sort();
        calls.dedup();
        calls
    }

    /// The advice for a nest whose verdict could not be decided within the budget:
    /// `unknown` with `why`, and nothing else that needs the analysis. `interpreted`:
    /// whether the function's interpretation finished (its loops' trip counts are exact).
    pub(super) fn unknown_nest(&self, outer: usize, why: &str, interpreted: bool) -> NestAdvice {
        let lf = &self.f.loops[outer];
        let calls = self.calls_in(outer);
        let mut description = self.describe_loop(outer);
        if !interpreted {
            description.normalised = None;
            description.trip_count = None;
            description.trip_value = None;
        }
        NestAdvice {
            lines: [lf.line, lf.last_line],
            verdict: Verdict {
                parallel: "unknown".into(),
                dims: vec![description.var.clone()],
                reasons: vec![format!("unknown: {why}")],
                sequential_inner: Vec::new(),
            },
            loops: vec![description],
            inbound: Vec::new(),
            outbound: Vec::new(),
            calls,
            coalescing: Vec::new(),
            mapping: None,
            shared: Vec::new(),
            rewrite: Vec::new(),
            assumptions: Vec::new(),
            bound: Some(why.to_string()),
            analysis_steps: 0,
        }
    }

    /// The widened value (too big to keep, [`MAX_VALUE_NODES`]) `e` mentions: the line
    /// that computed it and its size in nodes.
    pub(super) fn widened(&self, e: &Expr) -> Option<(u32, usize)> {
        let a = &self.f.analysis;
        e.symbols()
            .iter()
            .filter_map(|s| a.widened(s))
            .map(|(inst, size)| (a.line_of(inst), size))
            .max_by_key(|&(_, size)| size)
    }

    /// Reasons for loop `l`: the accesses whose index, and the loop whose bounds, are
    /// values too big to keep.
    pub(super) fn widened_values(&self, l: usize) -> Vec<String> {
        let too_big = |(line, size): (u32, usize)| {
            format!(
                "an expression of {size} nodes (computed on line {line}), more than the {MAX_VALUE_NODES} the analysis keeps"
            )
        };
        let mut out = Vec::new();
        let lf = &self.f.loops[l];
        let bounds = lf
            .trip
            .iter()
            .chain(lf.induction.iter().map(|(_, init, _)| init));
        if let Some(w) = bounds.filter_map(|e| self.widened(e)).max() {
            out.push(format!(
                "unknown: the bounds of loop {} are {}",
                self.view(l).var,
                too_big(w)
            ));
        }
        for a in self.accs_in(l) {
            if let Some(w) = self.widened(&a.offset) {
                out.push(format!(
                    "unknown: the index of {} on line {} is {}",
                    a.base.name(),
                    a.line,
                    too_big(w)
                ));
            }
        }
        out.dedup();
        out
    }
}

/// Why a function's interpretation stopped: its budget ran out, or the run's total, which
/// had left it `limit` steps (none: spent before it started).
pub(super) fn interpretation_reached(
    facts: &Facts<'_>,
    steps: AnalysisBudget,
    limit: u64,
) -> String {
    let total = format!("the run's total analysis bound ({} steps)", steps.total());
    if limit == 0 {
        return format!("{total} was reached before this function was analysed");
    }
    let bound = if limit < steps.per_function() {
        total
    } else {
        format!(
            "the analysis bound ({} steps per function)",
            steps.per_function()
        )
    };
    let a = &facts.analysis;
    // The line of the instruction the interpretation stopped at, or of the nearest one
    // before it that has a line.
    let line = a.out_of_budget.and_then(|inst| {
        a.body
            .inst_locs
            .iter()
            .take(inst.index() + 1)
            .rev()
            .flatten()
            .map(|l| l.line)
            .find(|&l| l > 0)
    });
    let at = match (a.out_of_budget, line) {
        (Some(_), Some(line)) => format!(" at line {line}"),
        (Some(_), None) => String::new(),
        (None, _) => " naming its accesses".into(),
    };
    format!("{bound} was reached interpreting the function{at}")
}
