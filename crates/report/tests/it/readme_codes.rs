//! The README's table of finding codes is the registry's: this test fails when they
//! differ, and rewrites the README's table when `WARPCHECK_BLESS=1` is set.

use std::path::PathBuf;
use warpcheck_report::Code;

const BEGIN: &str = "<!-- codes:begin -->\n";
const END: &str = "<!-- codes:end -->";

#[test]
fn readme_code_table_matches_the_registry() {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../README.md");
    let readme = std::fs::read_to_string(&path).expect("README.md is readable");
    let start = readme
        .find(BEGIN)
        .expect("README.md has `<!-- codes:begin -->`")
        + BEGIN.len();
    let end = start
        + readme[start..]
            .find(END)
            .expect("README.md has `<!-- codes:end -->` after the begin marker");
    let table = Code::markdown_table();
    if readme[start..end] == table {
        return;
    }
    if std::env::var_os("WARPCHECK_BLESS").is_some_and(|v| v == "1") {
        let updated = format!("{}{table}{}", &readme[..start], &readme[end..]);
        std::fs::write(&path, updated).expect("README.md is writable");
        return;
    }
    panic!(
        "README.md's code table differs from the registry; run \
         `WARPCHECK_BLESS=1 cargo test -p warpcheck-report --test it readme_codes::`.\n\
         expected:\n{table}\nfound:\n{}",
        &readme[start..end]
    );
}
