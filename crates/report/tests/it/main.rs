//! The integration tests of this crate, one module per topic, built as one test binary
//! (`cargo test -p warpcheck-report --test it MODULE::`): the crate and its generic code are
//! compiled once for all of them.

mod html;
mod readme_codes;
mod sarif_schema;
