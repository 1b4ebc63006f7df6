//! warpcheck's static analyses: lints that need no inputs, over the typed IR.
//!
//! ```text
//! Program ──analysis──> symbolic values, thread dependence, accesses, loops, conditions,
//!                        call sites with their arguments' values
//!         ──calls─────> the same for each called function, per call-site context
//!         ──rules─────> uncoalesced-access, bank-conflict, barrier-divergence findings
//!                        (instantiated with --block/--grid/--arg when given);
//!                        uncoalesced-data-dependent with --data-dependent
//!         ──race──────> shared-race, global-race findings (only with a launch)
//! ```
//!
//! * [`analysis`]: abstract interpretation on the CFG (GPUDrano §4) with values from the
//!   symbolic engine (`warpcheck-sym`, Juravle §7–8), loop induction variables included;
//! * [`dependence`]: GPUDrano's lattices read off those values;
//! * [`warp`]: sectors per request and bank-conflict degree of one warp-level access;
//! * [`instantiate`]: evaluation for a launch (Juravle §6);
//! * `rules`: the lints and their messages;
//! * [`race`]: races between barriers, decided for a launch by walking every thread;
//! * [`calls`]: called (non-inlined) device functions, analysed once per call site
//!   reached from the kernel with their parameters bound to the arguments' abstract
//!   values, under the call site's condition and inside the callers' loops; their
//!   findings are reported at the callee's lines with the call chain. Their results stay
//!   opaque values that depend on their arguments, and the race lint does not see their
//!   accesses.

pub mod analysis;
pub mod calls;
pub mod dependence;
mod fasteval;
pub mod instantiate;
pub mod race;
pub(crate) mod rules;
mod transfer;
pub mod warp;

use std::collections::BTreeMap;
use std::time::{Duration, Instant};

use warpcheck_ir::{FuncId, Program};
use warpcheck_report::Finding;

pub use analysis::{AnalysisOptions, analyze};
pub use instantiate::Launch;

/// What the lints know about the launch.
#[derive(Clone, Debug, Default)]
pub struct LintOptions {
    /// Source names of the kernel's parameters, by position (PTX names otherwise).
    pub param_names: Vec<String>,
    /// Grid and block dimensions, when given.
    pub launch: Option<Launch>,
    /// Values of integer scalar parameters, by source name.
    pub scalars: BTreeMap<String, i128>,
    /// How global accesses are counted: 32-byte sectors (default) or GPUDrano's 128-byte
    /// lines.
    pub granularity: warp::Granularity,
    /// Also report global accesses whose address varies across a warp through values
    /// read from memory (gathers, scatters, per-thread ranges) as
    /// `uncoalesced-data-dependent` (GPUDrano's convention); off by default.
    pub data_dependent: bool,
}

/// Lints one kernel. A function without a body has nothing to lint.
pub fn lint_kernel(program: &Program, kernel: FuncId, options: &LintOptions) -> Vec<Finding> {
    lint_kernel_timed(program, kernel, options).0
}

/// Where one kernel's lint spent its time.
#[derive(Clone, Copy, Debug, Default)]
pub struct LintTimings {
    /// The abstract interpretation ([`analyze`]).
    pub analysis: Duration,
    /// The coalescing, bank-conflict and barrier-divergence lints (with instantiation).
    pub rules: Duration,
    /// The race lint (walking every thread; only with a launch).
    pub races: Duration,
}

/// [`lint_kernel`], also returning the time of each phase.
pub fn lint_kernel_timed(
    program: &Program,
    kernel: FuncId,
    options: &LintOptions,
) -> (Vec<Finding>, LintTimings) {
    let mut timings = LintTimings::default();
    let opts = AnalysisOptions {
        param_names: options.param_names.clone(),
        widen_above: None,
    };
    let start = Instant::now();
    let Some(a) = analyze(program, kernel, opts) else {
        return (Vec::new(), timings);
    };
    timings.analysis = start.elapsed();
    let start = Instant::now();
    let mut findings = rules::lint(&a, options);
    // Called functions, once per call-site context (their analyses count as rules time).
    findings.extend(calls::lint_callees(&a, options));
    timings.rules = start.elapsed();
    if let Some(launch) = options.launch {
        let start = Instant::now();
        let scalars = options
            .scalars
            .iter()
            .map(|(k, v)| (k.clone(), *v))
            .collect();
        findings.extend(race::lint_races(&a, launch, &scalars).findings);
        timings.races = start.elapsed();
    }
    (findings, timings)
}
