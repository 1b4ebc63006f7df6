//! The integration tests of this crate, one module per topic, built as one test binary
//! (`cargo test -p warpcheck-check --test it MODULE::`): the crate and its generic code are
//! compiled once for all of them.

mod async_copy;
mod bank;
mod benign_race;
mod coalesce;
mod common;
mod dead_stores;
mod faulting_block;
mod init;
mod many_blocks;
mod mbarrier;
mod race_help;
mod read_history;
mod sync;
