//! The integration tests of this crate, one module per topic, built as one test binary
//! (`cargo test -p warpcheck-ir --test it MODULE::`): the crate and its generic code are
//! compiled once for all of them.

mod cfg;
mod clang;
mod common;
mod decode;
mod defuse;
mod errors;
mod function_length;
mod fuzz;
mod nvcc;
mod print;
mod source_map;
mod symbols;
