//! warpcheck's static analyses (issue 5): lints that need no inputs, over the typed IR.
//!
//! ```text
//! Program ──analysis──> symbolic values, thread dependence, accesses, loops, conditions
//!         ──rules─────> uncoalesced-access, bank-conflict, barrier-divergence findings
//!                        (instantiated with --block/--grid/--arg when given)
//! ```
//!
//! * [`analysis`]: abstract interpretation on the CFG (GPUDrano §4) with values from the
//!   symbolic engine (`warpcheck-sym`, Juravle §7–8), loop induction variables included;
//! * [`dependence`]: GPUDrano's lattices read off those values;
//! * [`warp`]: sectors per request and bank-conflict degree of one warp-level access;
//! * [`instantiate`]: evaluation for a launch (Juravle §6);
//! * `rules`: the lints and their messages.
//!
//! Only kernels (`.entry`) are linted; the accesses of called (non-inlined) device
//! functions are not, and their results are opaque values that depend on their
//! arguments.

pub mod analysis;
pub mod dependence;
pub mod instantiate;
mod rules;
mod transfer;
pub mod warp;

use std::collections::BTreeMap;

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
}

/// Lints one kernel. A function without a body has nothing to lint.
pub fn lint_kernel(program: &Program, kernel: FuncId, options: &LintOptions) -> Vec<Finding> {
    let opts = AnalysisOptions {
        param_names: options.param_names.clone(),
    };
    match analyze(program, kernel, opts) {
        Some(a) => rules::lint(&a, options),
        None => Vec::new(),
    }
}
