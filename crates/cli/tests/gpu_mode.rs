//! GPU mode (`check --gpu`) on the corpus, with the emulator as executor (CI has no GPU):
//! for every kernel file with launch lines, the inter-block global races GPU mode reports
//! must be exactly those the CPU race checker reports (the same pairs of source lines),
//! except where listed below with the reason; kernels GPU mode refuses must be listed
//! with the construct its error names.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::Command;

/// Files whose inter-block races GPU mode does not report, with the reason. A listed file
/// whose results agree fails the test, so the list stays honest.
const KNOWN_DIFFERENCES: &[(&str, &str)] = &[(
    "counter_bug_atomic_plain_race.cu",
    "the race is between a plain store and atomics; atomics act on the real buffer and are not compared (gpu-atomics-unchecked)",
)];

/// Files GPU mode refuses, with a word of the error.
const KNOWN_REFUSED: &[(&str, &str)] = &[];

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// Runs `warpcheck check FILE --from-header --format json` with `extra`; the inter-block
/// global-race line pairs (sorted within a pair), the finding codes, or the error text.
fn races(file: &Path, extra: &[&str]) -> Result<(BTreeSet<(u64, u64)>, Vec<String>), String> {
    let out = Command::new(env!("CARGO_BIN_EXE_warpcheck"))
        .arg("check")
        .arg(file)
        .args(["--from-header", "--format", "json", "--print-limit", "0"])
        .args(extra)
        .output()
        .map_err(|e| e.to_string())?;
    if !matches!(out.status.code(), Some(0 | 1)) {
        return Err(String::from_utf8_lossy(&out.stderr).to_string());
    }
    let json: serde_json::Value = serde_json::from_slice(&out.stdout).map_err(|e| e.to_string())?;
    let mut pairs = BTreeSet::new();
    let mut codes = Vec::new();
    for f in json["findings"].as_array().into_iter().flatten() {
        let code = f["code"].as_str().unwrap_or_default();
        codes.push(code.to_string());
        let message = f["message"].as_str().unwrap_or_default();
        if code != "global-race" || !message.contains("between blocks") {
            continue;
        }
        let line = |l: &serde_json::Value| l["location"]["line"].as_u64().unwrap_or(0);
        let a = line(&f["primary"]);
        let b = f["related"]
            .as_array()
            .and_then(|r| r.first())
            .map_or(a, line);
        pairs.insert((a.min(b), a.max(b)));
    }
    Ok((pairs, codes))
}

fn corpus() -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(root().join("tests/kernels"))
        .expect("corpus")
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().and_then(|e| e.to_str()) == Some("cu"))
        .filter(|p| std::fs::read_to_string(p).is_ok_and(|s| s.contains("// warpcheck-launch:")))
        .collect();
    files.sort();
    files
}

#[test]
fn gpu_mode_finds_the_inter_block_races_the_cpu_checker_finds() {
    let mut failures = Vec::new();
    let mut racy = 0;
    for file in corpus() {
        let name = file.file_name().unwrap().to_string_lossy().to_string();
        let known = KNOWN_DIFFERENCES.iter().find(|k| k.0 == name);
        let refused = KNOWN_REFUSED.iter().find(|k| k.0 == name);
        let gpu = races(&file, &["--gpu", "--gpu-executor", "emu"]);
        let (gpu, codes) = match (gpu, refused) {
            (Err(e), Some((_, word))) if e.contains(word) => continue,
            (Err(e), _) => {
                failures.push(format!("{name}: GPU mode failed: {e}"));
                continue;
            }
            (Ok(_), Some(_)) => {
                failures.push(format!("{name}: listed as refused but GPU mode checked it"));
                continue;
            }
            (Ok(r), None) => r,
        };
        let cpu = match races(&file, &["--tool", "race", "--race-blocks", "all"]) {
            Ok((p, _)) => p,
            Err(e) => {
                failures.push(format!("{name}: CPU checker failed: {e}"));
                continue;
            }
        };
        racy += usize::from(!cpu.is_empty());
        match (gpu == cpu, known) {
            (true, None) => {}
            (true, Some(_)) => {
                failures.push(format!("{name}: listed as a known difference but agrees"))
            }
            (false, Some((_, why))) => {
                if name.starts_with("counter_bug") {
                    assert!(
                        codes.iter().any(|c| c == "gpu-atomics-unchecked"),
                        "{name}: {why}"
                    );
                }
            }
            (false, None) => {
                failures.push(format!("{name}: GPU mode {gpu:?}, CPU checker {cpu:?}"))
            }
        }
    }
    assert!(racy >= 3, "the corpus has kernels with inter-block races");
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn halo_race_is_reported_with_both_lines_and_the_block_pair() {
    let file = root().join("tests/kernels/halo_bug_neighbour_block_race.cu");
    let out = Command::new(env!("CARGO_BIN_EXE_warpcheck"))
        .arg("check")
        .arg(&file)
        .args(["--from-header", "--gpu", "--gpu-executor", "emu"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains(
            "data race on global memory (write-after-write) at `out` + 1020 bytes, between blocks"
        ),
        "{text}"
    );
    assert!(text.contains("(1) write by block (0,0,0)"), "{text}");
    assert!(text.contains("(2) write by block (1,0,0)"), "{text}");
}

#[test]
fn without_a_gpu_the_cuda_executor_says_so_and_exits_2() {
    if std::path::Path::new("/dev/nvidiactl").exists() {
        return; // A machine with a GPU: the CUDA executor would run.
    }
    let file = root().join("tests/kernels/halo_bug_neighbour_block_race.cu");
    let out = Command::new(env!("CARGO_BIN_EXE_warpcheck"))
        .arg("check")
        .arg(&file)
        .args(["--from-header", "--gpu"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("no CUDA driver/GPU found"));
}
