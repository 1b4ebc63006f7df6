//! The integration tests of this crate, one module per topic, built as one test binary
//! (`cargo test -p warpcheck-corpus --test it MODULE::`): the crate and its generic code are
//! compiled once for all of them.

mod harness;
mod parse;
