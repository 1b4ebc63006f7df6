//! The integration tests of this crate, one module per topic, built as one test binary
//! (`cargo test -p warpcheck-lint --test it MODULE::`): the crate and its generic code are
//! compiled once for all of them.

mod calls;
mod common;
mod corpus;
mod data_dependent;
mod granularity;
mod read_pointers;
mod record_access;
mod record_padding;
mod unknown_values;
