//! `warpcheck lint` on Rodinia against our classification of its uncoalesced accesses.
//!
//! Runs only when `RODINIA_DIR` names a checkout of `yuhc/gpu-rodinia` (the directory that
//! contains `cuda/`; Rodinia is not committed here). `tools/rodinia_lint.sh` lints every
//! benchmark of GPUDrano's Table 1 with `--granularity lines` and the launches of
//! `tests/rodinia/launches.tsv`, and fails when a finding has no row in
//! `tests/rodinia/lint-classification.tsv` or a classified false positive is no longer
//! reported: a change of the lint's results on Rodinia must be inspected and recorded there.
//! The test also holds the totals of docs/COMPARISON.md: real accesses found and false
//! positives must not get worse.

use std::path::Path;
use std::process::Command;

/// Real uncoalesced accesses found and false positives, as in docs/COMPARISON.md (with
/// called device functions linted per call site: myocyte's callees add 280 real accesses,
/// dwt2d's `io.h` two false positives).
const REAL_FOUND_AT_LEAST: u32 = 403;
const FALSE_AT_MOST: u32 = 9;

#[test]
fn rodinia_findings_match_the_classification() {
    let Some(rodinia) = std::env::var_os("RODINIA_DIR") else {
        eprintln!("RODINIA_DIR not set: Rodinia lint comparison skipped");
        return;
    };
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let out = Command::new("bash")
        .arg(root.join("tools/rodinia_lint.sh"))
        .arg(&rodinia)
        .env("WARPCHECK", env!("CARGO_BIN_EXE_warpcheck"))
        .output()
        .expect("bash runs");
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        out.status.success(),
        "tools/rodinia_lint.sh failed:\n{stderr}\n{stdout}"
    );
    let total = stdout
        .lines()
        .find(|l| l.starts_with("| **total**"))
        .unwrap_or_else(|| panic!("no total row in:\n{stdout}"));
    let bold: Vec<u32> = total
        .split('|')
        .map(str::trim)
        .filter(|c| c.starts_with("**") && c != &"**total**")
        .filter_map(|c| c.trim_matches('*').parse().ok())
        .collect();
    let [real_found, false_positives, ..] = bold[..] else {
        panic!("unexpected total row: {total}");
    };
    assert!(
        real_found >= REAL_FOUND_AT_LEAST,
        "real uncoalesced accesses found fell to {real_found}: {total}"
    );
    assert!(
        false_positives <= FALSE_AT_MOST,
        "false positives rose to {false_positives}: {total}"
    );
}
