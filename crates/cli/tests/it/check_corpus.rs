//! The dynamic checkers against the corpus markers with nvcc's PTX: when nvcc is there
//! (NVIDIA's wheels from `tools/setup.sh`, or the CUDA toolkit), every CUDA file in the
//! corpus with launch lines is checked with `warpcheck check FILE --compiler nvcc
//! --from-header` (and each `warpcheck-variant`), and the findings must be exactly the
//! `//~` markers of the file ([`super::markers`]). The same comparison with clang's PTX,
//! which the expectation files are made with, runs in `expectations.rs` on the JSON
//! report of the run whose text it compares.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::Command;

use super::markers::{Mark, Misses, differences, expected};
use warpcheck_corpus::{KernelFile, kernel_files};
use warpcheck_report::Code;

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../..")
        .canonicalize()
        .expect("repository root")
}

/// The findings of `warpcheck check --compiler COMPILER` as marks, lines in `file` only.
fn found(file: &Path, compiler: &str, extra: &[&str]) -> Result<BTreeSet<Mark>, String> {
    let out = Command::new(env!("CARGO_BIN_EXE_warpcheck"))
        .arg("check")
        .arg(file)
        .args(["--compiler", compiler])
        .args(["--from-header", "--format", "json", "--print-limit", "0"])
        .args(extra)
        .output()
        .map_err(|e| e.to_string())?;
    let code = out.status.code().unwrap_or(-1);
    if code == 2 || code < 0 {
        return Err(format!(
            "exit {code}: {}",
            String::from_utf8_lossy(&out.stderr)
        ));
    }
    let json: serde_json::Value =
        serde_json::from_slice(&out.stdout).map_err(|e| format!("bad JSON: {e}"))?;
    let name = file.file_name().unwrap_or_default().to_string_lossy();
    Ok(super::markers::found(&json, &name))
}

/// Markers that nvcc's PTX gives differently, each with the reason: (file and flags,
/// missing mark). None: code inlined from NVIDIA's headers (`atomicAdd`, `atomicInc`) is
/// reported at the user's call, the `.loc`'s `inlined_at`.
const NVCC_MISSES: Misses<'static> = &[];

#[test]
fn checkers_find_exactly_the_marked_bugs_in_nvccs_ptx() {
    if warpcheck_front::NvidiaTree::from_env().is_none() && !has_system_nvcc() {
        eprintln!("skipped: no nvcc (run tools/setup.sh to install NVIDIA's wheels)");
        return;
    }
    check_the_corpus("nvcc", &["cu"], NVCC_MISSES);
}

fn has_system_nvcc() -> bool {
    Command::new("nvcc").arg("--version").output().is_ok()
}

/// Checks every kernel file with one of `extensions` with `compiler`, against its markers
/// less `misses`.
fn check_the_corpus(compiler: &str, extensions: &[&str], misses: Misses<'_>) {
    let files: Vec<PathBuf> = warpcheck_corpus::CORPUS_DIRS
        .iter()
        .flat_map(|d| kernel_files(&root().join(d)).expect("kernel directory"))
        .filter(|p| {
            p.extension()
                .and_then(|e| e.to_str())
                .is_some_and(|e| extensions.contains(&e))
        })
        .collect();
    let mut jobs: Vec<(PathBuf, Vec<String>, BTreeSet<Mark>)> = Vec::new();
    for f in &files {
        let kernel = KernelFile::read(f).unwrap_or_else(|e| panic!("{e}"));
        if kernel.launches.is_empty() {
            continue;
        }
        let name = kernel.file_name();
        for v in &kernel.variants {
            let label = format!("{name} {}", v.define);
            let want = expected(&kernel, Some(v), &label, misses);
            jobs.push((f.clone(), vec![v.define.clone()], want));
        }
        jobs.push((
            f.clone(),
            Vec::new(),
            expected(&kernel, None, &name, misses),
        ));
    }
    let next = std::sync::atomic::AtomicUsize::new(0);
    let failures = std::sync::Mutex::new(Vec::new());
    std::thread::scope(|s| {
        for _ in 0..2 {
            s.spawn(|| {
                while let Some((file, flags, want)) =
                    jobs.get(next.fetch_add(1, std::sync::atomic::Ordering::Relaxed))
                {
                    let flags: Vec<&str> = flags.iter().map(String::as_str).collect();
                    let label = format!(
                        "{} {}",
                        file.file_name().unwrap_or_default().to_string_lossy(),
                        flags.join(" ")
                    );
                    let result = match found(file, compiler, &flags) {
                        Err(e) => Some(format!("{label}: {e}")),
                        Ok(got) => differences(&label, want, &got),
                    };
                    if let Some(r) = result {
                        failures.lock().expect("lock").push(r);
                    }
                }
            });
        }
    });
    let failures = failures.into_inner().expect("lock");
    assert!(
        failures.is_empty(),
        "{} of {} checks with {compiler} differ from the markers:\n{}",
        failures.len(),
        jobs.len(),
        failures.join("\n")
    );
}

/// compute-sanitizer's findings on an H200 (`tests/gpu-anchors/sanitizer.tsv`) are all
/// among the markers, which this test and `expectations.rs` hold warpcheck to: so warpcheck finds
/// everything racecheck, memcheck, synccheck and initcheck find on the corpus. (The
/// reverse does not hold: racecheck sees shared memory only, initcheck global memory
/// only.)
#[test]
fn sanitizer_findings_are_all_marked() {
    let table = std::fs::read_to_string(root().join("tests/gpu-anchors/sanitizer.tsv"))
        .expect("tests/gpu-anchors/sanitizer.tsv");
    let mut checked = 0;
    let mut failures = Vec::new();
    for row in table.lines().skip(1) {
        let f: Vec<&str> = row.split('\t').collect();
        let [stem, tool, kind, detail, location, other, ..] = f[..] else {
            continue;
        };
        let marker = match (tool, kind) {
            ("racecheck", "Race reported") => Code::SharedRace,
            ("memcheck", k) if k.starts_with("Invalid") => {
                if stem.contains("misaligned") {
                    Code::Misaligned
                } else {
                    Code::OutOfBounds
                }
            }
            ("synccheck", k) if k.starts_with("Barrier error") => Code::BarrierDivergence,
            ("initcheck", k) if k.starts_with("Uninitialized") => Code::UninitRead,
            _ => continue,
        }
        .name();
        let _ = detail;
        let (base, variant) = match stem.split_once('.') {
            Some((b, v)) => (b, Some(v.replace("REMOVE_BARRIER_", "-DREMOVE_BARRIER="))),
            None => (stem, None),
        };
        let kernel = KernelFile::read(root().join("tests/kernels").join(format!("{base}.cu")))
            .unwrap_or_else(|e| panic!("{e}"));
        let variant = variant.map(|v| {
            kernel
                .variant(&v)
                .unwrap_or_else(|| panic!("{stem}: no variant {v}"))
        });
        let marks = expected(&kernel, variant, stem, &[]);
        for loc in [location, other] {
            let Some((_, line)) = loc.rsplit_once(':') else {
                continue;
            };
            let line: u32 = line.parse().expect("line number");
            checked += 1;
            if !marks.iter().any(|(k, l, _)| k == marker && *l == line) {
                failures.push(format!(
                    "{stem}: {tool} reports {kind} at line {line}, no {marker} marker"
                ));
            }
        }
    }
    assert!(checked >= 40, "only {checked} sanitizer locations read");
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// With lock-step warps (`--intra-warp lockstep`) a warp's instructions are ordered, so the
/// exchange without `__syncwarp()` is no race; under the default it is.
#[test]
fn lockstep_model_orders_a_warp() {
    let file = root().join("tests/check-cases/syncwarp_orders_lanes.cu");
    let its = found(&file, "clang", &["--tool", "race"]).expect("check");
    assert_eq!(its.len(), 2, "{its:?}");
    let lockstep = found(
        &file,
        "clang",
        &["--tool", "race", "--intra-warp", "lockstep"],
    )
    .expect("check");
    assert!(lockstep.is_empty(), "{lockstep:?}");
}

/// Big launches: the race checker watches a sample of blocks (the edges and neighbouring
/// pairs) and says so; `--race-blocks all` watches every block and finds the same race.
#[test]
fn big_grids_sample_the_race_checker() {
    let file = root().join("tests/check-cases/sampled_grid_edge_race.cu");
    let run = |extra: &[&str]| {
        let out = Command::new(env!("CARGO_BIN_EXE_warpcheck"))
            .arg("check")
            .arg(&file)
            .args(["--from-header", "--tool", "race", "--format", "json"])
            .args(extra)
            .output()
            .expect("warpcheck runs");
        assert_eq!(
            out.status.code(),
            Some(1),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        let json: serde_json::Value = serde_json::from_slice(&out.stdout).expect("JSON");
        json["findings"]
            .as_array()
            .expect("findings")
            .iter()
            .map(|f| {
                (
                    f["code"].as_str().unwrap_or_default().to_string(),
                    f["message"].as_str().unwrap_or_default().to_string(),
                )
            })
            .collect::<Vec<_>>()
    };
    let sampled = run(&[]);
    // Named by the kernel parameter and the offset of the last element of block 4094.
    assert!(
        sampled
            .iter()
            .any(|(c, m)| c == Code::GlobalRace.name() && m.contains("at `out` + 1048316 bytes")),
        "{sampled:?}"
    );
    let note = sampled
        .iter()
        .find(|(c, _)| c == Code::RaceCheckSampled.name())
        .expect("a note says the launch was sampled");
    assert!(
        note.1.contains("watched 256 of the 4096 blocks"),
        "{}",
        note.1
    );
    let full = run(&["--race-blocks", "all"]);
    assert!(
        full.iter().any(|(c, _)| c == Code::GlobalRace.name()),
        "{full:?}"
    );
    assert!(
        !full.iter().any(|(c, _)| c == Code::RaceCheckSampled.name()),
        "{full:?}"
    );
}
