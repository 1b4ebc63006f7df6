//! `warpcheck lint --arg`: scalars by name or by position (`arg3`, as `run` takes them),
//! and a clear error (exit 2) for a name no linted kernel has — PTX carries no parameter
//! names, so `--arg N=…` on nvcc's or clang's PTX must not be dropped silently.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn warpcheck(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_warpcheck"))
        .args(args)
        .output()
        .expect("warpcheck runs")
}

fn kernel() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../tests/kernels/copy_bug_uncoalesced_strides.cu")
}

fn ptx(dir: &Path) -> PathBuf {
    let out = warpcheck(&["ptx", kernel().to_str().unwrap()]);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let path = dir.join("copy_bug_uncoalesced_strides.ptx");
    std::fs::write(&path, &out.stdout).unwrap();
    path
}

const LAUNCH: [&str; 6] = ["--kernel", "extractColumn", "--block", "128", "--grid", "2"];

fn lint(file: &Path, args: &[&str]) -> Output {
    let mut all = vec!["lint", file.to_str().unwrap(), "--format", "json"];
    all.extend(LAUNCH);
    all.extend(args);
    warpcheck(&all)
}

/// (code, message without the buffer's name, which PTX does not have) of each finding of
/// a JSON report.
fn findings(o: &Output) -> Vec<(String, String)> {
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).expect("JSON output");
    v["findings"]
        .as_array()
        .expect("a findings array")
        .iter()
        .map(|f| {
            (
                f["code"].as_str().unwrap_or_default().to_string(),
                f["message"]
                    .as_str()
                    .unwrap_or_default()
                    .replace("`m`", "`arg0`"),
            )
        })
        .collect()
}

#[test]
fn unknown_argument_name_is_an_error() {
    let dir = tempfile::tempdir().unwrap();
    let ptx = ptx(dir.path());
    // PTX has no names: `cols` is unknown there.
    let out = lint(&ptx, &["--arg", "cols=32"]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(
        stderr.contains("--arg cols") && stderr.contains("arg3"),
        "{stderr}"
    );
    // A misspelt name in CUDA source: the error lists the parameters with their positions.
    let out = lint(&kernel(), &["--arg", "colls=32"]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(stderr.contains("cols (arg3)"), "{stderr}");
}

#[test]
fn positional_argument_equals_named_one() {
    let dir = tempfile::tempdir().unwrap();
    let ptx = ptx(dir.path());
    for cols in ["1", "32"] {
        let named = lint(
            &kernel(),
            &[
                "--arg",
                "rows=256",
                "--arg",
                &format!("cols={cols}"),
                "--arg",
                "c=0",
            ],
        );
        let by_position = [
            "--arg".to_string(),
            "arg2=256".into(),
            "--arg".into(),
            format!("arg3={cols}"),
            "--arg".into(),
            "arg4=0".into(),
        ];
        let by_position: Vec<&str> = by_position.iter().map(String::as_str).collect();
        let positional = lint(&ptx, &by_position);
        let source = lint(&kernel(), &by_position);
        assert_eq!(named.status.code(), positional.status.code());
        assert_eq!(findings(&named), findings(&positional), "cols={cols}");
        assert_eq!(findings(&named), findings(&source), "cols={cols}");
        let expected = if cols == "32" { 1 } else { 0 };
        assert_eq!(
            findings(&named).len(),
            expected,
            "cols={cols}: {:?}",
            findings(&named)
        );
    }
}

/// `lint --block` takes the launches `run` and `check` take, and rejects the others the
/// same way (exit 2): a block of 1025 threads is no launch.
#[test]
fn lint_rejects_a_block_that_run_rejects() {
    let file = kernel();
    let file = file.to_str().unwrap();
    for (command, block) in [("lint", "1025"), ("run", "1025"), ("lint", "32,32,2")] {
        let out = warpcheck(&[command, file, "--kernel", "extractColumn", "--block", block]);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(
            out.status.code(),
            Some(2),
            "{command} --block {block}: {stderr}"
        );
        assert!(stderr.contains("exceeds the"), "{command}: {stderr}");
    }
    let ok = warpcheck(&["lint", file, "--kernel", "extractColumn", "--block", "1024"]);
    assert_ne!(
        ok.status.code(),
        Some(2),
        "{}",
        String::from_utf8_lossy(&ok.stderr)
    );
}
