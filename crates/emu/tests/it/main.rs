//! The integration tests of this crate, one module per topic, built as one test binary
//! (`cargo test -p warpcheck-emu --test it MODULE::`): the crate and its generic code are
//! compiled once for all of them.

mod async_copy;
mod bf16_truth;
mod common;
mod cooperative;
mod corpus;
mod faults;
mod gpu_truth;
mod heap;
mod profile;
mod robustness;
mod semantics;
mod tensor_truth;
mod texture;
