//! The integration tests of this crate, one module per topic, built as one test binary
//! (`cargo test -p warpcheck --test it MODULE::`): the crate and its generic code are
//! compiled once for all of them.

mod advise_corpus;
mod capture;
mod check_corpus;
mod compile_cache;
mod compiler_timeout;
mod corpus;
mod difftest;
mod expectations;
mod explain;
mod float_ops;
mod gpu_mode;
mod gpu_truth;
mod html_report;
mod int_ops;
mod launch_limits;
mod lint_args;
mod lint_vs_check;
mod made_up;
mod markers;
mod ncu_totals;
mod nvidia_wheels;
mod op_truth;
mod program_truth;
mod programs;
mod rodinia_lint;
mod run_dump;
