//! The integration tests of this crate, one module per topic, built as one test binary
//! (`cargo test -p warpcheck-front --test it MODULE::`): the crate and its generic code are
//! compiled once for all of them.

mod common;
mod cuda_shims;
mod errors;
mod languages;
mod nvidia_wheels;
mod signatures;
