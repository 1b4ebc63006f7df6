//! `--capture DIR` in program mode: every launch is written as a kernel-mode launch file
//! with its input buffers as `.npy`, and replaying one launch in kernel mode
//! (`check FILE.cu --launches DIR/NNN-KERNEL.toml`) gives the program's findings and
//! outputs.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use serde_json::Value;

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../..")
        .canonicalize()
        .expect("repository root")
}

fn warpcheck(args: &[&std::ffi::OsStr], cwd: &Path) -> Output {
    Command::new(env!("CARGO_BIN_EXE_warpcheck"))
        .args(args)
        .current_dir(cwd)
        .output()
        .unwrap()
}

/// (code, primary line, degree) of each finding of a JSON report.
fn findings(report: &Value) -> Vec<(String, u64, Option<u64>)> {
    let mut v: Vec<_> = report["findings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| {
            (
                f["code"].as_str().unwrap().to_string(),
                f["primary"]["location"]["line"].as_u64().unwrap_or(0),
                f["degree"].as_u64(),
            )
        })
        .collect();
    v.sort();
    v
}

fn json(path: &Path) -> Value {
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

/// The element bytes of a `.npy` file (after its header).
fn npy_data(path: &Path) -> Vec<u8> {
    let data = std::fs::read(path).unwrap();
    let header = u16::from_le_bytes([data[8], data[9]]) as usize;
    data[10 + header..].to_vec()
}

#[test]
fn a_captured_launch_replays_with_the_same_findings_and_outputs() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    let program = repo().join("tests/programs/transpose_bank.cu");
    let out = warpcheck(
        &[
            "check".as_ref(),
            program.as_os_str(),
            "--capture".as_ref(),
            "cap".as_ref(),
            "--format".as_ref(),
            "json".as_ref(),
            "--output".as_ref(),
            "program.json".as_ref(),
        ],
        dir,
    );
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let mut files: Vec<String> = std::fs::read_dir(dir.join("cap"))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().to_string())
        .collect();
    files.sort();
    assert_eq!(
        files,
        [
            "001-transpose-in.npy",
            "001-transpose-out.npy",
            "001-transpose.toml",
            "002-transpose-in.npy",
            "002-transpose-out.npy",
            "002-transpose.toml",
        ]
    );
    let toml = std::fs::read_to_string(dir.join("cap/001-transpose.toml")).unwrap();
    assert!(toml.contains("# Launch 1 of `transpose`"), "{toml}");
    assert!(toml.contains("transpose_bank.cu:36"), "{toml}");
    assert!(toml.contains(
        "args = [\"in=f32[]:file(001-transpose-in.npy)\", \"out=f32[]:file(001-transpose-out.npy)\", \"n=128\"]"
    ), "{toml}");
    assert!(!toml.contains("Not replayable"), "{toml}");
    // The input is the program's matrix: element i holds i.
    let input = npy_data(&dir.join("cap/001-transpose-in.npy"));
    let values: Vec<f32> = input
        .chunks(4)
        .map(|c| f32::from_le_bytes(c.try_into().unwrap()))
        .collect();
    assert_eq!(values.len(), 128 * 128);
    assert!(values.iter().enumerate().all(|(i, &v)| v == i as f32));

    // Replayed alone in kernel mode with the file's own replay command: the program's
    // finding (code, line, degree).
    let command = toml
        .lines()
        .find_map(|l| l.strip_prefix("# Replay: warpcheck "))
        .expect("a replay command");
    assert!(
        command.contains(" --compiler clang --arch sm_"),
        "{command}"
    );
    assert!(
        command.ends_with(" -O3 --launches cap/001-transpose.toml"),
        "{command}"
    );
    let mut words: Vec<&std::ffi::OsStr> = command.split(' ').map(|w| w.as_ref()).collect();
    words.extend([
        std::ffi::OsStr::new("--format"),
        std::ffi::OsStr::new("json"),
    ]);
    let replay = warpcheck(&words, dir);
    assert_eq!(
        replay.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&replay.stderr)
    );
    let replayed: Value = serde_json::from_slice(&replay.stdout).unwrap();
    let original = findings(&json(&dir.join("program.json")));
    assert_eq!(original, [("bank-conflict".to_string(), 23, Some(32))]);
    assert_eq!(findings(&replayed), original);

    // And the program's output: launch 2 reads what launch 1 wrote.
    let run = warpcheck(
        &[
            "run".as_ref(),
            program.as_os_str(),
            "--launches".as_ref(),
            "cap/001-transpose.toml".as_ref(),
            "--dump".as_ref(),
            "out=replayed.npy".as_ref(),
        ],
        dir,
    );
    assert_eq!(
        run.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&run.stderr)
    );
    assert_eq!(
        npy_data(&dir.join("replayed.npy")),
        npy_data(&dir.join("cap/002-transpose-in.npy"))
    );
}

#[test]
fn what_a_launch_file_cannot_hold_is_said() {
    let tmp = tempfile::tempdir().unwrap();
    let program = repo().join("tests/programs/constant_symbol.cu");
    let out = warpcheck(
        &[
            "run".as_ref(),
            program.as_os_str(),
            "--capture".as_ref(),
            "cap".as_ref(),
        ],
        tmp.path(),
    );
    assert_eq!(out.status.code(), Some(0));
    let toml = std::fs::read_to_string(tmp.path().join("cap/001-poly.toml")).unwrap();
    let why = "Not replayable exactly: the module's variables (coeff, evaluated) start from \
               their initialisers in kernel mode";
    assert!(toml.contains(why), "{toml}");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("warpcheck: capture: launch 1 of `poly` cannot be replayed exactly"),
        "{stderr}"
    );
}
