//! The accesses of called device functions, linted per call site.
//!
//! A `.func` that the compiler did not inline (`__noinline__`, recursion, big functions
//! at `-O0`) is reached by a PTX `call`. Its accesses depend on its arguments: `f(&a[tid *
//! N])` makes every `p[i]` in `f` a strided access, `f(&a[tid])` a coalesced one. So a
//! callee is analysed once per call site reached from a kernel, with
//!
//! * its `.param` parameters bound to the abstract values the caller's analysis has for the
//!   arguments at the call ([`CallSite::args`]): expressions over the kernel's thread
//!   indices, parameters and loop counters, with their thread dependence. A parameter
//!   whose value the caller does not know is an unknown that may differ from thread to
//!   thread, so nothing the callee does with it is judged with false certainty;
//! * its accesses executed under the call site's condition (guards and branches of every
//!   caller on the way, [`CallContext::cond`]);
//! * the callers' loops around the call ([`CallContext::outer_loops`]), which
//!   instantiation with `--block`/`--grid`/`--arg` enumerates before the callee's own.
//!
//! The callee's symbols continue the callers' numbering (opaque ids and loop-iteration
//! ids), so a caller's value keeps its meaning inside the callee. Calls are followed
//! transitively up to [`MAX_DEPTH`] calls deep and [`MAX_CONTEXTS`] contexts per kernel;
//! a recursive call (a function already on the chain), calls past those limits and
//! contexts whose analysis takes longer than [`CONTEXT_TIME`] are not followed, and a
//! `call-not-linted` note at the call says so. The callee's findings are reported at
//! its own source lines with a note naming the chain (`kernel → f at line 12`);
//! contexts that give the same verdict on a line (code and message) are reported once
//! (the notes name the other chains), contexts that give different verdicts on one line
//! are reported each.
//!
//! Not modelled: values returned by a callee (they stay opaque in the caller, with the
//! dependence of the arguments), and barrier divergence caused by a divergent call site
//! (a callee's barriers are judged against the callee's own branches). The race lint
//! does not see callees' accesses.

use std::collections::{BTreeMap, BTreeSet};
use std::sync::Arc;

use warpcheck_ir::{BlockId, FuncId, InstId, VarId};
use warpcheck_report::{Finding, Severity};
use warpcheck_sym::{Cond, Symbol};

use crate::LintOptions;
use crate::analysis::{Analysis, AnalysisOptions, LoopInfo, Symbols, Val, analyze_with};

/// How many calls deep the lint follows a kernel's calls.
pub const MAX_DEPTH: usize = 8;
/// How many call-site contexts are analysed per kernel.
pub const MAX_CONTEXTS: usize = 256;
/// How long one call-site context's analysis may take. Bound arguments can make a
/// callee's values far bigger than the kernel's (dwt2d's `transform`, whose merged
/// conditions nest without bound): such a context is given up with a note rather than
/// left to exhaust time and memory.
pub const CONTEXT_TIME: std::time::Duration = std::time::Duration::from_millis(250);

/// A call of a function with a body, as the caller's analysis saw it.
#[derive(Clone, Debug)]
pub struct CallSite {
    pub inst: InstId,
    pub block: BlockId,
    pub callee: FuncId,
    /// The arguments' values: (parameter index, byte offset in the parameter) → value.
    pub args: BTreeMap<(u32, i64), Val>,
    /// When a thread executes the call, within the current iterations of its loops.
    pub cond: Cond,
    /// The caller's loops around the call, outermost first.
    pub loops: Vec<usize>,
}

/// A loop of a caller around the call site.
#[derive(Clone, Debug)]
pub struct OuterLoop {
    pub info: LoopInfo,
    /// Per exit of `info`: whether it is taken before the call in an iteration (its block
    /// dominates the call's block), which removes the lane from that iteration already.
    pub before: Vec<bool>,
}

/// What a callee analysed at one call site knows of its callers.
#[derive(Clone, Debug)]
pub struct CallContext {
    /// The kernel the chain starts from.
    pub kernel: FuncId,
    /// The functions on the chain, kernel first (for recursion).
    pub funcs: Vec<FuncId>,
    /// `kernel → f at line 12 → g at line 30`.
    pub chain: String,
    pub args: BTreeMap<(u32, i64), Val>,
    /// The condition under which a thread executes the call, in the kernel's terms.
    pub cond: Cond,
    /// Loops of the callers around the call, outermost first.
    pub outer_loops: Vec<OuterLoop>,
    /// Top-level loops of the callers that do not contain the call (their trip counts
    /// may appear in arguments; instantiation binds them when their exits are uniform).
    pub outer_top: Vec<LoopInfo>,
    /// The kernel's pointer parameters (global bases), by name.
    pub pointer_params: BTreeSet<String>,
    /// Base-address symbols of variables the callers named.
    pub base_symbols: BTreeMap<VarId, Symbol>,
    pub(crate) symbols: Symbols,
    /// The first iteration-symbol id free for the callee's loops.
    pub next_iteration: u32,
    pub depth: usize,
}

/// One finding of a callee, with the chain it was found through.
struct Found {
    finding: Finding,
    chain: String,
}

/// Lints the callees reachable from the kernel analysed in `a`.
pub(crate) fn lint_callees(a: &Analysis<'_>, options: &LintOptions) -> Vec<Finding> {
    let mut walk = Walk {
        options,
        found: Vec::new(),
        notes: Vec::new(),
        contexts: 0,
    };
    walk.visit(a);
    walk.finish()
}

struct Walk<'o> {
    options: &'o LintOptions,
    found: Vec<Found>,
    notes: Vec<Finding>,
    contexts: usize,
}

impl Walk<'_> {
    fn visit(&mut self, caller: &Analysis<'_>) {
        let program = caller.program;
        for site in &caller.calls {
            let name = program.function(site.callee).display_name().to_string();
            let location = crate::rules::location_of(caller, site.inst);
            let at = match &location {
                Some(l) => format!("{name} at line {}", l.line),
                None => name.clone(),
            };
            let (funcs, chain, depth) = match &caller.context {
                Some(c) => (c.funcs.clone(), format!("{} → {at}", c.chain), c.depth + 1),
                None => {
                    let kernel = program.function(caller.func).display_name();
                    (vec![caller.func], format!("{kernel} → {at}"), 1)
                }
            };
            let why = if funcs.contains(&site.callee) {
                Some(format!(
                    "recursive call of `{name}` ({chain}): its accesses are not linted again in this context"
                ))
            } else if depth > MAX_DEPTH {
                Some(format!(
                    "call of `{name}` more than {MAX_DEPTH} calls deep ({chain}): its accesses are not linted"
                ))
            } else if self.contexts >= MAX_CONTEXTS {
                Some(format!(
                    "call of `{name}` past {MAX_CONTEXTS} call-site contexts in this kernel ({chain}): its accesses are not linted"
                ))
            } else {
                None
            };
            if let Some(why) = why {
                let mut f = Finding::new("call-not-linted", Severity::Note, why)
                    .kernel(kernel_name(caller));
                if let Some(l) = location {
                    f = f.at(l, "this call is not followed");
                }
                self.notes.push(f);
                continue;
            }
            self.contexts += 1;
            let context = context_for(caller, site, funcs, chain.clone(), depth);
            let Some(callee) = analyze_with(
                program,
                site.callee,
                AnalysisOptions::default(),
                Some(Arc::new(context)),
            ) else {
                continue;
            };
            if callee.out_of_time {
                let mut f = Finding::new(
                    "call-not-linted",
                    Severity::Note,
                    format!(
                        "the analysis of `{name}` at this call ({chain}) took longer than {} ms and was given up: its accesses are not linted in this context",
                        CONTEXT_TIME.as_millis()
                    ),
                )
                .kernel(kernel_name(caller));
                if let Some(l) = location {
                    f = f.at(l, "this call is not followed");
                }
                self.notes.push(f);
                continue;
            }
            for finding in crate::rules::lint(&callee, self.options) {
                self.found.push(Found {
                    finding,
                    chain: chain.clone(),
                });
            }
            self.visit(&callee);
        }
    }

    /// Findings of several contexts with the same verdict (code, line and message: the
    /// buffer, the kind of access and its degree) become one, the first context's, whose
    /// notes name every chain; different verdicts on one line are kept apart.
    fn finish(self) -> Vec<Finding> {
        let same = |a: &Finding, b: &Finding| {
            a.code == b.code
                && a.severity == b.severity
                && a.message == b.message
                && a.primary.as_ref().map(|p| &p.location)
                    == b.primary.as_ref().map(|p| &p.location)
        };
        let mut order: Vec<(Finding, Vec<String>)> = Vec::new();
        for Found { finding, chain } in self.found {
            match order.iter_mut().find(|(f, _)| same(f, &finding)) {
                Some((_, chains)) => {
                    if !chains.contains(&chain) {
                        chains.push(chain);
                    }
                }
                None => order.push((finding, vec![chain])),
            }
        }
        let mut out: Vec<Finding> = order
            .into_iter()
            .map(|(mut f, chains)| {
                f.notes.push(format!("in a called function: {}", chains[0]));
                const SHOWN: usize = 3;
                for c in chains.iter().skip(1).take(SHOWN) {
                    f.notes.push(format!("the same in another call: {c}"));
                }
                if chains.len() > SHOWN + 1 {
                    f.notes.push(format!(
                        "and in {} more calls",
                        chains.len() - SHOWN - 1
                    ));
                }
                f
            })
            .collect();
        let mut seen = BTreeSet::new();
        for n in self.notes {
            if seen.insert(n.message.clone()) {
                out.push(n);
            }
        }
        out
    }
}

fn kernel_name(a: &Analysis<'_>) -> String {
    a.program.function(a.kernel()).display_name().to_string()
}

/// The context of `site` for its callee: the caller's argument values and condition,
/// its loops around the call added to its own context's.
fn context_for(
    caller: &Analysis<'_>,
    site: &CallSite,
    funcs: Vec<FuncId>,
    chain: String,
    depth: usize,
) -> CallContext {
    let mut funcs = funcs;
    funcs.push(site.callee);
    let (mut outer_loops, mut outer_top, cond, kernel) = match &caller.context {
        Some(c) => (
            c.outer_loops.clone(),
            c.outer_top.clone(),
            c.cond.and(&site.cond),
            c.kernel,
        ),
        None => (Vec::new(), Vec::new(), site.cond.clone(), caller.func),
    };
    for &l in &site.loops {
        let info = caller.loops[l].clone();
        let before = info
            .exits
            .iter()
            .map(|e| {
                e.block != site.block && caller.body.dominators.dominates(e.block, site.block)
            })
            .collect();
        outer_loops.push(OuterLoop { info, before });
    }
    for info in &caller.loops {
        if info.parent.is_none() && !info.contains(site.block) {
            outer_top.push(info.clone());
        }
    }
    CallContext {
        kernel,
        funcs,
        chain,
        args: site.args.clone(),
        cond,
        outer_loops,
        outer_top,
        pointer_params: caller.pointer_params.clone(),
        base_symbols: caller.base_symbols.clone(),
        symbols: caller.syms.for_callee(),
        next_iteration: caller.iteration_offset + caller.loops.len() as u32,
        depth,
    }
}
