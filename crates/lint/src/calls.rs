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
//! contexts in which a value grows past [`MAX_VALUE_SIZE`] nodes are not followed, and a
//! `call-not-linted` note at the call says so, with the reason. Every limit is a count,
//! never a time, so the findings do not depend on the host. The callee's findings are
//! reported at its own source lines with a note naming the chain (`kernel → f at line
//! 12`); contexts that give the same verdict on a line (code and message) are reported
//! once (the notes name the other chains), contexts that give different verdicts on one
//! line are reported each.
//!
//! Not modelled: values returned by a callee (they stay opaque in the caller, with the
//! dependence of the arguments), and barrier divergence caused by a divergent call site
//! (a callee's barriers are judged against the callee's own branches). The race lint
//! does not see callees' accesses.

use std::collections::{BTreeMap, BTreeSet};
use std::sync::Arc;

use warpcheck_ir::{BlockId, FuncId, InstId, VarId};
use warpcheck_report::{Code, Finding, Location, Severity};
use warpcheck_sym::{Cond, Symbol};

use crate::LintOptions;
use crate::analysis::{Analysis, AnalysisOptions, LoopInfo, Oversized, Symbols, Val, analyze_with};

/// How many calls deep the lint follows a kernel's calls.
pub const MAX_DEPTH: usize = 8;
/// How many call-site contexts are analysed per kernel.
pub const MAX_CONTEXTS: usize = 256;
/// The largest value, in nodes ([`warpcheck_sym::Expr::size`], conditions of selects
/// counted), that the analysis of a call-site context may compute before the context is
/// given up.
///
/// Bound arguments can make a callee's values grow without bound where the kernel's stay
/// small: in dwt2d's `transform`, every unrolled `loadFrom` (`last += stride; if (last
/// == end) { last -= 2 * stride; stride = -stride; }`) selects between two values that
/// both contain the previous `last` and `stride`, so the size doubles per pixel (over
/// 100 000 nodes and 14 GB without a bound). The bound is a size, not a time, so that
/// the findings do not depend on the host's speed; it is checked where an instruction
/// writes its result, so a runaway context costs a few doublings past the bound. 1024 is
/// six times the largest value of any Rodinia kernel or callee context that settles
/// (dwt2d's linted `transform<false, *>` contexts: 165 nodes; heartwall's kernel: 157;
/// myocyte's contexts: under 20), and a doubling value crosses it within ten steps.
pub const MAX_VALUE_SIZE: usize = 1024;

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
        for site in &caller.calls {
            self.visit_site(caller, site);
        }
    }

    /// Lints the callee of `site` in its context and follows its own calls, or notes
    /// why the call is not followed.
    fn visit_site(&mut self, caller: &Analysis<'_>, site: &CallSite) {
        let program = caller.program;
        let name = program.function(site.callee).instance_name().to_string();
        let location = crate::rules::location_of(caller, site.inst);
        let at = match &location {
            Some(l) => format!("{name} at line {}", l.line),
            None => name.clone(),
        };
        let (funcs, chain, depth) = match &caller.context {
            Some(c) => (c.funcs.clone(), format!("{} → {at}", c.chain), c.depth + 1),
            None => {
                let kernel = program.function(caller.func).instance_name();
                (vec![caller.func], format!("{kernel} → {at}"), 1)
            }
        };
        if let Some(why) = self.refusal(&name, &chain, &funcs, site.callee, depth) {
            self.note(caller, location, why);
            return;
        }
        self.contexts += 1;
        let context = context_for(caller, site, funcs, chain.clone(), depth);
        let Some(callee) = analyze_with(
            program,
            site.callee,
            AnalysisOptions::default(),
            Some(Arc::new(context)),
        ) else {
            return;
        };
        if let Some(big) = callee.gave_up {
            let why = oversized_note(&callee, &name, &chain, big);
            self.note(caller, location, why);
            return;
        }
        for finding in crate::rules::lint(&callee, self.options) {
            self.found.push(Found {
                finding,
                chain: chain.clone(),
            });
        }
        self.visit(&callee);
    }

    /// Why a call is not followed before its callee is analysed: recursion, depth, or
    /// the kernel's budget of contexts.
    fn refusal(
        &self,
        name: &str,
        chain: &str,
        funcs: &[FuncId],
        callee: FuncId,
        depth: usize,
    ) -> Option<String> {
        if funcs.contains(&callee) {
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
        }
    }

    /// A `call-not-linted` note at the call (kept once per message, see `finish`).
    fn note(&mut self, caller: &Analysis<'_>, location: Option<Location>, why: String) {
        let mut f =
            Finding::new(Code::CallNotLinted, Severity::Note, why).kernel(kernel_name(caller));
        if let Some(l) = location {
            f = f.at(l, "this call is not followed");
        }
        self.notes.push(f);
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
                    f.notes
                        .push(format!("and in {} more calls", chains.len() - SHOWN - 1));
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

/// The reason a context whose values outgrew [`MAX_VALUE_SIZE`] is given up, naming
/// where in the callee the value was computed.
fn oversized_note(callee: &Analysis<'_>, name: &str, chain: &str, big: Oversized) -> String {
    let place = match crate::rules::location_of(callee, big.inst) {
        Some(l) => format!(" computed at {}:{}", l.file, l.line),
        None => String::new(),
    };
    format!(
        "the symbolic values of `{name}` at this call ({chain}) grow past {MAX_VALUE_SIZE} nodes (a value{place} has {}): its accesses are not linted in this context",
        big.size
    )
}

fn kernel_name(a: &Analysis<'_>) -> String {
    a.program.function(a.kernel()).instance_name().to_string()
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
            .map(|e| e.block != site.block && caller.body.dominators.dominates(e.block, site.block))
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
