//! GPU mode (`check --gpu`) on the corpus, with the emulator as executor (CI has no GPU):
//! for every kernel file with launch lines, the global races between blocks and between
//! warps of a block, and the shared-memory races between warps of a block, that GPU mode
//! reports must be exactly those the CPU race checker reports (the same pairs of source
//! lines), except where listed below with the reason; kernels GPU mode refuses must be
//! listed with the construct its error names. Races between lanes of one warp are not
//! compared: GPU mode cannot see lanes.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::Command;

/// Files whose inter-block races GPU mode does not report, with the reason. A listed file
/// whose results agree fails the test, so the list stays honest.
const KNOWN_DIFFERENCES: &[(&str, &str)] = &[
    (
        "counter_bug_atomic_plain_race.cu",
        "the CPU checker reports one witness per location, here the pair within warp 0 of \
     block 0 (lanes 0 and 1); GPU mode, which cannot see lanes, reports the same two lines \
     between blocks (the plain store against another block's atomic)",
    ),
    (
        "subblock_weights_benign_race.cu",
        "sub-block 1 stores 0.0 into `s_w[5]`, which held 0 before (shared memory starts zeroed \
     in the emulator): a write of the value already there, which LD's value comparison \
     cannot see (its documented false negative), so GPU mode reports only the other \
     warps' equal writes there, as a benign race",
    ),
];

/// Files GPU mode refuses, with a word of the error: kernels whose planted bug faults
/// (GPU mode needs the launch to complete; `check` without `--gpu` reports the fault).
const KNOWN_REFUSED: &[(&str, &str)] = &[
    (
        "misaligned_bug_vector_load.cu",
        "faulted in block [0, 0, 0]: misaligned",
    ),
    ("spin_wait_bug_deadlock.cu", "faulted in block [0, 0, 0]"),
    (
        "device_malloc_bug_double_free.cu",
        "faulted in block [0, 0, 0]: free of",
    ),
    (
        "device_malloc_bug_overflow.cu",
        "faulted in block [0, 0, 0]: out-of-bounds write",
    ),
    (
        "vector_add_bug_off_by_one.cu",
        "faulted in block [3, 0, 0]: out-of-bounds read",
    ),
];

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../..")
        .canonicalize()
        .expect("repository root")
}

/// Runs `warpcheck check FILE --from-header --format json` with `extra`: the race line
/// pairs (sorted within a pair) of global races between blocks (`'b'`) and between warps
/// of a block (`'w'`) and of shared-memory races between warps (`'s'`), and all finding
/// codes; or the error text.
type Races = (BTreeSet<(char, u64, u64)>, Vec<String>);

fn races(file: &Path, extra: &[&str]) -> Result<Races, String> {
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
        let scope = match (code, message) {
            ("global-race", m) if m.contains("between blocks") => 'b',
            ("global-race", m) if m.contains("between warps") => 'w',
            ("shared-race", m) if m.contains("between warps") => 's',
            _ => continue,
        };
        let line = |l: &serde_json::Value| l["location"]["line"].as_u64().unwrap_or(0);
        let a = line(&f["primary"]);
        let b = f["related"]
            .as_array()
            .and_then(|r| r.first())
            .map_or(a, line);
        pairs.insert((scope, a.min(b), a.max(b)));
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

/// Compares GPU mode with the CPU checker on one file; a failure message, or `None`.
/// Also returns the scopes of the races the CPU checker found.
fn compare(file: &Path) -> (Option<String>, BTreeSet<char>) {
    let name = file.file_name().unwrap().to_string_lossy().to_string();
    let known = KNOWN_DIFFERENCES.iter().find(|k| k.0 == name);
    let refused = KNOWN_REFUSED.iter().find(|k| k.0 == name);
    let gpu = match (races(file, &["--gpu", "--gpu-executor", "emu"]), refused) {
        (Err(e), Some((_, word))) if e.contains(word) => return (None, BTreeSet::new()),
        (Err(e), _) => {
            return (
                Some(format!("{name}: GPU mode failed: {e}")),
                BTreeSet::new(),
            );
        }
        (Ok(_), Some(_)) => {
            return (
                Some(format!("{name}: listed as refused but checked")),
                BTreeSet::new(),
            );
        }
        (Ok((gpu, _)), None) => gpu,
    };
    let cpu = match races(file, &["--tool", "race", "--race-blocks", "all"]) {
        Ok((p, _)) => p,
        Err(e) => {
            return (
                Some(format!("{name}: CPU checker failed: {e}")),
                BTreeSet::new(),
            );
        }
    };
    let racy = cpu.iter().map(|p| p.0).collect();
    let failure = match (gpu == cpu, known) {
        (true, None) | (false, Some(_)) => None,
        (true, Some(_)) => Some(format!("{name}: listed as a known difference but agrees")),
        (false, None) => Some(format!("{name}: GPU mode {gpu:?}, CPU checker {cpu:?}")),
    };
    (failure, racy)
}

#[test]
fn gpu_mode_finds_the_global_and_shared_races_the_cpu_checker_finds() {
    let files = corpus();
    let next = std::sync::atomic::AtomicUsize::new(0);
    let results = std::sync::Mutex::new(Vec::new());
    std::thread::scope(|s| {
        for _ in 0..2 {
            s.spawn(|| {
                while let Some(f) =
                    files.get(next.fetch_add(1, std::sync::atomic::Ordering::Relaxed))
                {
                    let r = compare(f);
                    results.lock().unwrap().push(r);
                }
            });
        }
    });
    let results = results.into_inner().unwrap();
    let failures: Vec<String> = results.iter().filter_map(|r| r.0.clone()).collect();
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    let with = |scopes: &[char]| {
        results
            .iter()
            .filter(|r| scopes.iter().any(|s| r.1.contains(s)))
            .count()
    };
    assert!(
        with(&['b', 'w']) >= 2,
        "the corpus has kernels with global races ({} found)",
        with(&['b', 'w'])
    );
    assert!(
        with(&['s']) >= 7,
        "the corpus has kernels with shared races between warps ({} found)",
        with(&['s'])
    );
}

#[test]
fn an_atomic_and_a_plain_store_to_one_counter_are_a_race_with_both_lines() {
    let file = root().join("tests/kernels/counter_bug_atomic_plain_race.cu");
    let out = Command::new(env!("CARGO_BIN_EXE_warpcheck"))
        .arg("check")
        .arg(&file)
        .args(["--from-header", "--gpu", "--gpu-executor", "emu"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains("data race on global memory (write-after-write) at `count` + 0 bytes"),
        "{text}"
    );
    assert!(
        text.contains("counter_bug_atomic_plain_race.cu:16"),
        "{text}"
    );
    assert!(text.contains("(1) atomic by block"), "{text}");
    assert!(text.contains("(2) write by block (0,0,0) warp 0"), "{text}");
    assert_eq!(
        text.matches("error[global-race]").count(),
        1,
        "one finding for the pair of lines: {text}"
    );
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
fn a_missing_barrier_in_a_shared_reduction_is_a_shared_race_between_warps_at_its_line() {
    let file = root().join("tests/kernels/reduce_shared_bug_missing_sync.cu");
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
            "error[shared-race]: data race on shared memory (read-after-write) at `sdata` + "
        ),
        "{text}"
    );
    assert!(
        text.contains("between warps of one block in the kernel's last region"),
        "{text}"
    );
    assert!(
        text.contains("reduce_shared_bug_missing_sync.cu:32"),
        "{text}"
    );
    assert!(text.contains("(1) write by block (0,0,0) warp"), "{text}");
    assert!(
        !text.contains("nor on shared memory"),
        "shared memory is checked: {text}"
    );
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

#[test]
fn with_two_copies_the_pair_race_is_found_in_the_last_of_four_rounds() {
    let file = root().join("tests/gpu-mode/pair_race.cu");
    let out = Command::new(env!("CARGO_BIN_EXE_warpcheck"))
        .arg("check")
        .arg(&file)
        .args(["--from-header", "--gpu", "--gpu-executor", "emu"])
        .args(["--gpu-memory", "3K"])
        // Blocks in order: two blocks sharing a copy then always write in the same order
        // in both passes. With parallel blocks the order can differ between the passes,
        // and the race (a real one) can show in an earlier round by its values.
        .args(["--threads", "1"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let text = String::from_utf8_lossy(&out.stdout);
    let rounds: Vec<&str> = text.lines().filter(|l| l.contains("round:")).collect();
    assert_eq!(rounds.len(), 4, "{text}");
    assert!(
        rounds.iter().all(|r| r.contains("2 private copies")),
        "{text}"
    );
    assert!(rounds[..3].iter().all(|r| r.contains(" 0 races")), "{text}");
    assert!(!rounds[3].contains(" 0 races"), "{text}");
    assert!(
        rounds[0].contains("= 0.533"),
        "LD Eq. 1, N = 16, M = 2: {text}"
    );
    assert!(rounds[3].contains("= 1.000"), "{text}");
    assert!(text.contains("pair_race.cu:13"), "{text}");
    // The same line pair as the CPU checker and as full privatisation.
    let gpu = races(
        &file,
        &["--gpu", "--gpu-executor", "emu", "--gpu-memory", "3K"],
    )
    .unwrap();
    let full = races(&file, &["--gpu", "--gpu-executor", "emu"]).unwrap();
    let cpu = races(&file, &["--tool", "race"]).unwrap();
    assert_eq!(gpu.0, BTreeSet::from([('b', 13, 13)]));
    assert_eq!(full.0, gpu.0);
    assert_eq!(cpu.0, gpu.0);
}

/// `warpcheck check tests/gpu-mode/neighbour_race.cu --gpu` in the emulator with two
/// private copies (10 rounds for every unit), block `k` racing with block `k + 1`; `extra`
/// after. Returns the exit code, stdout and the JSON findings.
fn neighbour_race(k: u32, extra: &[&str]) -> (Option<i32>, serde_json::Value) {
    let file = root().join("tests/gpu-mode/neighbour_race.cu");
    let out = Command::new(env!("CARGO_BIN_EXE_warpcheck"))
        .arg("check")
        .arg(&file)
        .args([
            "--kernel",
            "neighbourRace",
            "--grid",
            "512",
            "--block",
            "64",
        ])
        .args(["--arg", "out=u32[512]:zeros", "--arg", &format!("k={k}")])
        .args(["--gpu", "--gpu-executor", "emu", "--gpu-memory", "5K"])
        .args(["--format", "json", "--print-limit", "0"])
        // Blocks in order: unwatched blocks share a copy (see `pair_race`'s test).
        .args(["--threads", "1"])
        .args(extra)
        .output()
        .unwrap();
    let json = serde_json::from_slice(&out.stdout)
        .unwrap_or_else(|e| panic!("{e}: {}", String::from_utf8_lossy(&out.stderr)));
    (out.status.code(), json)
}

/// The messages of findings with `code`.
fn messages(json: &serde_json::Value, code: &str) -> Vec<String> {
    json["findings"]
        .as_array()
        .into_iter()
        .flatten()
        .filter(|f| f["code"] == code)
        .map(|f| f["message"].as_str().unwrap_or_default().to_string())
        .collect()
}

/// The (primary, related) lines of the `global-race` findings.
fn race_lines(json: &serde_json::Value) -> Vec<(u64, u64)> {
    let line = |l: &serde_json::Value| l["location"]["line"].as_u64().unwrap_or(0);
    json["findings"]
        .as_array()
        .into_iter()
        .flatten()
        .filter(|f| f["code"] == "global-race")
        .map(|f| (line(&f["primary"]), f["related"].get(0).map_or(0, line)))
        .collect()
}

#[test]
fn a_launch_needing_too_many_rounds_watches_a_sample_that_finds_a_race_of_neighbours() {
    // 1,024 warps in two copies: 10 rounds, over `--gpu-rounds` 4. The sample of 16
    // blocks (their 32 warps and one copy for the rest: 33 units, 6 rounds) keeps blocks
    // 0 and 1, the edge pair that races.
    let (code, json) = neighbour_race(0, &["--race-blocks", "16"]);
    assert_eq!(code, Some(1), "{json:#}");
    assert_eq!(race_lines(&json), [(18, 20)], "{json:#}");
    let notes = messages(&json, "race-check-sampled");
    assert_eq!(notes.len(), 1, "{json:#}");
    for part in [
        "GPU mode watched 16 of the 512 blocks",
        "their 32 warps had private copies",
        "checking all 1024 warps would have taken 10 memory-adaptive rounds, the sample took 6",
        "races between two of them were not checked",
    ] {
        assert!(notes[0].contains(part), "{part}: {}", notes[0]);
    }
    // With enough rounds allowed, every unit is checked and nothing is said.
    let (code, json) = neighbour_race(0, &["--race-blocks", "16", "--gpu-rounds", "10"]);
    assert_eq!(code, Some(1));
    assert_eq!(race_lines(&json), [(18, 20)]);
    assert!(messages(&json, "race-check-sampled").is_empty(), "{json:#}");
}

#[test]
fn a_race_between_two_unwatched_blocks_is_said_to_be_unchecked_and_all_blocks_find_it() {
    // Blocks k and k + 1 both outside the sample the launch watches (seeded by the launch's
    // position, 0).
    use warpcheck_emu::sample::{BlockSample, RaceBlocks};
    let sample = BlockSample::new([512, 1, 1], RaceBlocks::Sample(16), 0);
    let k = (2..510)
        .find(|&k| !sample.watches([k, 0, 0]) && !sample.watches([k + 1, 0, 0]))
        .expect("an unwatched pair");
    let (_, json) = neighbour_race(k, &["--race-blocks", "16"]);
    let notes = messages(&json, "race-check-sampled");
    assert_eq!(notes.len(), 1, "{json:#}");
    assert!(
        notes[0].contains("the other blocks shared one private copy, so races between two of them were not checked"),
        "{}",
        notes[0]
    );
    // `--race-blocks all` turns sampling off: every unit in 10 rounds, the race found.
    let (code, json) = neighbour_race(k, &["--race-blocks", "all"]);
    assert_eq!(code, Some(1), "{json:#}");
    assert_eq!(race_lines(&json), [(18, 20)], "{json:#}");
    assert!(messages(&json, "race-check-sampled").is_empty(), "{json:#}");
    let blocks = format!("block ({},0,0)", k + 1);
    assert!(json.to_string().contains(&blocks), "{json:#}");
}

/// `out`'s summary line of `warpcheck run FILE --from-header` with `extra`.
fn out_line(file: &Path, extra: &[&str]) -> String {
    let out = Command::new(env!("CARGO_BIN_EXE_warpcheck"))
        .arg("run")
        .arg(file)
        .arg("--from-header")
        .args(extra)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    let text = String::from_utf8_lossy(&out.stdout).to_string();
    text.lines()
        .find(|l| l.trim_start().starts_with("out u32[4]"))
        .unwrap_or_else(|| panic!("no summary of `out`: {text}"))
        .trim()
        .to_string()
}

#[test]
fn deterministic_runs_of_a_racy_kernel_agree_twenty_times_and_merge_in_unit_order() {
    let file = root().join("tests/gpu-mode/lost_updates.cu");
    let mut with = BTreeSet::new();
    for i in 0..20 {
        let seed = i.to_string();
        let threads = (1 + i % 2).to_string();
        with.insert(out_line(
            &file,
            &[
                "--gpu",
                "--gpu-executor",
                "emu",
                "--deterministic",
                "--seed",
                &seed,
                "--threads",
                &threads,
            ],
        ));
    }
    assert_eq!(with.len(), 1, "{with:?}");
    // Every warp adds to its own copy of the zeroed counters; merged in warp and block
    // order, the last warp (block 7, warp 3: i = 1020..1023) wins each counter.
    let line = with.into_iter().next().unwrap();
    assert!(line.contains("[1020, 1021, 1022, 1023]"), "{line}");
    // Without --deterministic the emulator interleaves the read-modify-writes, and the
    // sums are not the merge's (on a GPU they change from run to run:
    // tests/gpu-mode/determinism.tsv).
    let without = out_line(&file, &["--independent-scheduling"]);
    assert!(!without.contains("[1020, 1021, 1022, 1023]"), "{without}");
}

#[test]
fn run_gpu_without_deterministic_is_refused() {
    let file = root().join("tests/gpu-mode/lost_updates.cu");
    let out = Command::new(env!("CARGO_BIN_EXE_warpcheck"))
        .arg("run")
        .arg(&file)
        .args(["--from-header", "--gpu", "--gpu-executor", "emu"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("needs --deterministic"));
}

/// The race line pairs of a JSON report as `tools/gpu/gpu_mode.sh` writes them:
/// `b:L1-L2` (global, between blocks), `w:` (global, between warps), `sw:` (shared, between
/// warps), `sl:` (shared, within a warp); each finding's primary and related lines sorted,
/// the set sorted and comma-joined, or `none`.
fn pairs_as_recorded(json: &serde_json::Value) -> String {
    let mut out = BTreeSet::new();
    for f in json["findings"].as_array().into_iter().flatten() {
        let message = f["message"].as_str().unwrap_or_default();
        let scope = match f["code"].as_str().unwrap_or_default() {
            "global-race" if message.contains("between blocks") => "b",
            "global-race" if message.contains("between warps") => "w",
            "shared-race" if message.contains("between warps") => "sw",
            "shared-race" => "sl",
            _ => continue,
        };
        let line = |l: &serde_json::Value| l["location"]["line"].as_u64().unwrap_or(0);
        let mut lines: Vec<u64> = std::iter::once(line(&f["primary"]))
            .chain(f["related"].as_array().into_iter().flatten().map(line))
            .collect();
        lines.sort_unstable();
        let lines: Vec<String> = lines.iter().map(u64::to_string).collect();
        out.insert(format!("{scope}:{}", lines.join("-")));
    }
    if out.is_empty() {
        return "none".into();
    }
    out.into_iter().collect::<Vec<_>>().join(",")
}

/// CI has no GPU: the instrumented PTX of every corpus kernel that `gpu_mode.sh` ran on an
/// H100 (`tests/gpu-mode/gpu_mode.tsv`, its `gpu_pairs` column) runs here in the emulator
/// and must report the same races at the same lines as it did on the GPU.
#[test]
fn the_instrumented_kernels_report_in_the_emulator_what_they_reported_on_the_h100() {
    let tsv = std::fs::read_to_string(root().join("tests/gpu-mode/gpu_mode.tsv")).expect("tsv");
    let header: Vec<&str> = tsv.lines().next().expect("header").split('\t').collect();
    let column = |name: &str| header.iter().position(|c| *c == name).expect("column");
    let (emu_col, gpu_col) = (column("gpu_emu_s"), column("gpu_pairs"));
    let mut compared = 0;
    let mut failures = Vec::new();
    for row in tsv.lines().skip(1) {
        let cells: Vec<&str> = row.split('\t').collect();
        // Corpus rows only (the big launches have no emulator run).
        if cells.get(emu_col) == Some(&"-") {
            continue;
        }
        let stem = cells[0];
        let file = ["tests/kernels", "tests/gpu-mode"]
            .iter()
            .map(|d| root().join(d).join(format!("{stem}.cu")))
            .find(|p| p.exists())
            .unwrap_or_else(|| panic!("{stem}.cu"));
        let out = Command::new(env!("CARGO_BIN_EXE_warpcheck"))
            .arg("check")
            .arg(&file)
            .args(["--from-header", "--gpu", "--gpu-executor", "emu"])
            .args(["--format", "json", "--print-limit", "0"])
            .output()
            .expect("warpcheck runs");
        let json: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap_or_default();
        let here = pairs_as_recorded(&json);
        if here != cells[gpu_col] {
            failures.push(format!("{stem}: H100 {}, emulator {here}", cells[gpu_col]));
        }
        compared += 1;
    }
    assert!(
        compared >= 20,
        "only {compared} corpus rows in gpu_mode.tsv"
    );
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
