//! Differential testing of warpcheck against a GPU and against its own checkers.
//!
//! From a seed, [`generate`] writes a CUDA program of random kernels (integer and float
//! arithmetic with exact results, if/else on thread index and data, bounded loops, early
//! returns, shared-memory phases with `__syncthreads()`, global loads and stores, warp
//! collectives, order-independent atomics) and a `main` that prints one hash of the
//! outputs per kernel. The kernels are race-free by construction (`kernel`); the racy
//! variant of a program has the same kernels with one planted race each, at a pair of
//! lines the generator records (`plant`).
//!
//! The race-free program's hashes are compared between a GPU and `warpcheck run`; both
//! programs are checked with `warpcheck check --format json`, and [`verdict`] holds the
//! findings to the construction: none for race-free kernels, exactly the planted pair for
//! racy ones. The generator does no I/O; `warpcheck-difftest` (the binary) writes files.

pub mod expr;
pub mod kernel;
pub mod plant;
pub mod program;
pub mod rng;
pub mod verdict;

/// The version of what the generator writes: bumped whenever a seed's programs change, so
/// that hashes recorded on a GPU with another version are recognised as stale.
pub const GENERATOR_VERSION: u32 = 1;

/// The generator's name and version, as `warpcheck-difftest version` prints it and as the
/// first line of a hash file records it.
pub fn version_line() -> String {
    format!("warpcheck-difftest generator {GENERATOR_VERSION}")
}

pub use program::{KernelInfo, Program, Variant, generate, generate_range};
