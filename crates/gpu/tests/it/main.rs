//! The integration tests of this crate, one module per topic, built as one test binary
//! (`cargo test -p warpcheck-gpu --test it MODULE::`): the crate and its generic code are
//! compiled once for all of them.

mod compare_kernels;
mod shared;
mod traffic;
mod two_pass;
