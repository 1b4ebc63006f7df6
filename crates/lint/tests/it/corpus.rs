//! The corpus test: every kernel file of `tests/kernels` is compiled with clang at -O3
//! and -O0, each of its launches is linted with the launch line's grid, block and scalar
//! arguments, and the `uncoalesced-access`, `bank-conflict` and `barrier-divergence`
//! findings are compared with the file's `//~ uncoalesced(N)`, `//~ bank-conflict(N)` and
//! `//~ barrier-divergence` markers: every marker must be found on its line with its
//! degree, and no such finding may appear on another line. Markers whose stride is read
//! from memory are listed in [`DATA_DEPENDENT`]: there the lint (run with
//! `--data-dependent`) must say `uncoalesced-data-dependent` instead of a degree.
//!
//! Files that do not pass yet are listed in [`KNOWN_FAILURES`] with the reason; the test
//! checks that they still fail, so the list cannot go stale.

use std::collections::{BTreeMap, HashMap};
use std::path::{Path, PathBuf};

use warpcheck_corpus::{KernelFile, MarkerKind};
use warpcheck_front::{CompileOptions, CompilerChoice};
use warpcheck_lint::{Launch, LintOptions, lint_kernel};
use warpcheck_report::Code;

/// (file, optimisation level, why it fails).
/// FIXME: each entry is a gap of the static analysis, not of the corpus.
const KNOWN_FAILURES: &[(&str, u8, &str)] = &[];

/// `uncoalesced` markers whose stride between lanes is read from memory: no static
/// analysis can give their degree, so the lint must flag them as
/// `uncoalesced-data-dependent` (with `--data-dependent`, as the test lints) and must not
/// claim a degree for them. (file, line, why.)
const DATA_DEPENDENT: &[(&str, u32, &str)] = &[(
    "spmv_csr.cu",
    40,
    "vals[jj] with jj starting at rowPtr[row]: lanes are a row length apart, and the row \
     length is read from memory (statically it cannot be told from the coalesced \
     per-thread ranges of bfs_frontier_atomic.cu)",
)];

/// Race markers that the race lint cannot decide statically, with the reason: (file, line,
/// why). Such a marker may be missed, but only with a `race-lint-incomplete` note for the
/// file (the lint must say that it did not decide everything); where it is found anyway
/// it counts as found. The test fails when an entry is found at both optimisation levels.
const RACE_UNDECIDED: &[(&str, u32, &str)] = &[
    (
        "bfs_rodinia.cu",
        24,
        "cost[id] with id = edges[i]: the address is read from memory",
    ),
    (
        "bfs_rodinia.cu",
        25,
        "updating_mask[id] with id = edges[i]: the address is read from memory",
    ),
    (
        "bfs_rodinia.cu",
        37,
        "*over = 1 runs under if (updating_mask[tid]): which threads write depends on memory",
    ),
    (
        "counter_bug_atomic_plain_race.cu",
        16,
        "its partner is the atomicAdd of line 19, which runs under in[i] > threshold (memory)",
    ),
    (
        "counter_bug_atomic_plain_race.cu",
        19,
        "atomicAdd runs under in[i] > threshold: which threads add depends on memory",
    ),
    (
        "histogram_bug_nonatomic.cu",
        25,
        "localBins[bin] with bin computed from values[i]: the address is read from memory",
    ),
];

/// Findings or markers: (line, code) → degree.
type Found = BTreeMap<(u32, &'static str), Option<u32>>;

struct LaunchLine {
    kernel: String,
    launch: Launch,
    scalars: BTreeMap<String, i128>,
}

/// The launches of a kernel file and its markers of the kinds the lints report.
fn parse_header(path: &Path) -> (Vec<LaunchLine>, Found) {
    let file = KernelFile::read(path).unwrap_or_else(|e| panic!("{e}"));
    let launches = file
        .launches
        .iter()
        .map(|l| LaunchLine {
            kernel: l.kernel_name().to_string(),
            launch: Launch {
                grid: l.grid.0,
                block: l.block.0,
            },
            scalars: l.int_scalars(),
        })
        .collect();
    let markers = file
        .markers
        .iter()
        .filter(|m| {
            matches!(
                m.kind,
                MarkerKind::Uncoalesced
                    | MarkerKind::BankConflict
                    | MarkerKind::BarrierDivergence
                    | MarkerKind::SharedRace
                    | MarkerKind::GlobalRace
                    | MarkerKind::BenignRace
            )
        })
        // The lint does not know values: a same-value (benign) race is a race to it, on
        // shared or global memory (`describe` takes either).
        .map(|m| ((m.line, m.kind.code()), m.degree))
        .collect();
    (launches, markers)
}

fn corpus_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../tests/kernels")
        .canonicalize()
        .expect("tests/kernels")
}

/// Lints every launch of a file; `Err` explains a compile or lookup failure. Also returns
/// the longest time one kernel's lint took (measured, reported, not asserted: timings
/// on a shared machine are not test material).
fn lint_file(path: &Path, opt_level: u8) -> Result<Linted, String> {
    let (launches, _) = parse_header(path);
    let options = CompileOptions {
        opt_level,
        compiler: CompilerChoice::Clang,
        ..CompileOptions::default()
    };
    let compiled = warpcheck_front::compile(path, &options).map_err(|e| e.to_string())?;
    let parsed = warpcheck_ptx::parse(&compiled.ptx);
    let program =
        warpcheck_ir::lower(&parsed.module).map_err(|e| format!("{} lowering errors", e.len()))?;
    let file_name = path
        .file_name()
        .and_then(|f| f.to_str())
        .unwrap_or_default()
        .to_string();
    let mut found: Found = BTreeMap::new();
    let mut slowest = std::time::Duration::ZERO;
    let mut undecided = false;
    for launch in &launches {
        let mut ids = program.functions_named(&launch.kernel);
        if ids.is_empty() {
            let sig = compiled.signatures.iter().find(|s| {
                s.name == launch.kernel
                    || s.demangled_name.starts_with(&format!("{}(", launch.kernel))
            });
            if let Some(sig) = sig {
                ids = program.functions_named(&sig.mangled_name);
            }
        }
        let Some(&kernel) = ids.first() else {
            return Err(format!("no kernel `{}`", launch.kernel));
        };
        let mangled = &program.function(kernel).name;
        let param_names = compiled
            .signatures
            .iter()
            .find(|s| &s.mangled_name == mangled)
            .map(|s| s.params.iter().map(|p| p.name.clone()).collect())
            .unwrap_or_default();
        let opts = LintOptions {
            param_names,
            launch: Some(launch.launch),
            scalars: launch.scalars.clone(),
            granularity: Default::default(),
            data_dependent: true,
        };
        let start = std::time::Instant::now();
        let findings = lint_kernel(&program, kernel, &opts);
        slowest = slowest.max(start.elapsed());
        for f in findings {
            let Some(p) = &f.primary else { continue };
            if !p.location.file.ends_with(&file_name) {
                continue;
            }
            let code: &'static str = match f.code {
                Code::UncoalescedAccess
                | Code::BankConflict
                | Code::BarrierDivergence
                | Code::SharedRace
                | Code::GlobalRace => f.code.name(),
                Code::RaceLintIncomplete => {
                    undecided = true;
                    continue;
                }
                // Opt-in warnings; judged only where a marker is listed in DATA_DEPENDENT.
                Code::UncoalescedDataDependent
                    if DATA_DEPENDENT
                        .iter()
                        .any(|&(f, l, _)| f == file_name && l == p.location.line) =>
                {
                    f.code.name()
                }
                _ => continue,
            };
            if code.ends_with("-race") {
                // A race names both lines of its pair; both carry the marker.
                for l in &f.related {
                    if l.location.file.ends_with(&file_name) {
                        found.insert((l.location.line, code), None);
                    }
                }
                found.insert((p.location.line, code), None);
                continue;
            }
            let degree = if code == Code::BarrierDivergence.name() {
                None
            } else {
                f.degree.map(|d| d as u32)
            };
            let e = found.entry((p.location.line, code)).or_insert(degree);
            if degree > *e {
                *e = degree;
            }
        }
    }
    Ok(Linted {
        found,
        slowest,
        undecided,
    })
}

/// What linting one file gave.
struct Linted {
    found: Found,
    /// The longest time one kernel's lint took.
    slowest: std::time::Duration,
    /// Whether the race lint said it could not decide everything (`race-lint-incomplete`).
    undecided: bool,
}

fn describe(
    expected: &BTreeMap<(u32, &str), Option<u32>>,
    found: &BTreeMap<(u32, &str), Option<u32>>,
) -> Option<String> {
    let mut problems = Vec::new();
    // A benign-race marker is met by a shared or a global race at its line.
    let benign = Code::BenignRace.name();
    let race_at = |line: u32| {
        [Code::SharedRace.name(), Code::GlobalRace.name()]
            .into_iter()
            .find(|c| found.contains_key(&(line, *c)))
    };
    let expected: BTreeMap<(u32, &str), Option<u32>> = expected
        .iter()
        .map(|(&(line, code), &d)| match race_at(line) {
            Some(race) if code == benign => ((line, race), d),
            _ => ((line, code), d),
        })
        .collect();
    for (k, d) in &expected {
        match found.get(k) {
            None => problems.push(format!("missed {}@{}", k.1, k.0)),
            Some(f) if f != d => {
                problems.push(format!("{}@{}: degree {:?}, want {:?}", k.1, k.0, f, d))
            }
            _ => {}
        }
    }
    for (k, d) in found {
        if !expected.contains_key(k) {
            problems.push(format!(
                "extra {}({})@{}",
                k.1,
                d.map_or("-".into(), |d| d.to_string()),
                k.0
            ));
        }
    }
    (!problems.is_empty()).then(|| problems.join("; "))
}

#[test]
fn corpus_markers_match_lints() {
    let mut files: Vec<PathBuf> = std::fs::read_dir(corpus_dir())
        .expect("tests/kernels exists")
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|e| e == "cu" || e == "cl"))
        .collect();
    files.sort();
    let jobs: Vec<(PathBuf, u8)> = files
        .iter()
        .flat_map(|f| [(f.clone(), 3u8), (f.clone(), 0u8)])
        .collect();
    type Outcome = Result<(Option<String>, std::time::Duration), String>;
    let results: std::sync::Mutex<HashMap<(String, u8), Outcome>> = Default::default();
    let next = std::sync::atomic::AtomicUsize::new(0);
    let decided_now: std::sync::Mutex<Vec<String>> = Default::default();
    std::thread::scope(|s| {
        for _ in 0..2 {
            s.spawn(|| {
                loop {
                    let i = next.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
                    let Some((path, o)) = jobs.get(i) else { break };
                    let (_, mut expected) = parse_header(path);
                    let name = path
                        .file_name()
                        .and_then(|f| f.to_str())
                        .unwrap_or_default()
                        .to_string();
                    let r = lint_file(path, *o).map(|linted| {
                        let mut problems = Vec::new();
                        for &(file, line, _) in DATA_DEPENDENT {
                            if file != name {
                                continue;
                            }
                            if expected.remove(&(line, Code::UncoalescedAccess.name())).is_none() {
                                problems.push(format!("DATA_DEPENDENT lists line {line}, which has no uncoalesced marker"));
                            }
                            expected.insert((line, Code::UncoalescedDataDependent.name()), None);
                        }
                        for &(file, line, _) in RACE_UNDECIDED {
                            if file != name {
                                continue;
                            }
                            let code = expected
                                .keys()
                                .find(|k| k.0 == line && k.1.ends_with("-race"))
                                .map(|k| k.1);
                            let Some(code) = code else {
                                problems.push(format!("RACE_UNDECIDED lists line {line}, which has no race marker"));
                                continue;
                            };
                            if linted.found.contains_key(&(line, code)) {
                                decided_now.lock().unwrap().push(format!("{name}:{line} -O{o}"));
                            } else if !linted.undecided {
                                problems.push(format!(
                                    "{code}@{line} is listed as undecidable but the lint gave no race-lint-incomplete note"
                                ));
                            }
                            expected.remove(&(line, code));
                        }
                        let mut p = describe(&expected, &linted.found);
                        if !problems.is_empty() {
                            problems.extend(p);
                            p = Some(problems.join("; "));
                        }
                        (p, linted.slowest)
                    });
                    results.lock().unwrap().insert((name, *o), r);
                }
            });
        }
    });
    let results = results.into_inner().unwrap();
    let mut table = String::new();
    let mut slowest = std::time::Duration::ZERO;
    let mut unexpected = Vec::new();
    for f in &files {
        let name = f
            .file_name()
            .and_then(|f| f.to_str())
            .unwrap_or_default()
            .to_string();
        let mut row = format!("{name:<44}");
        for o in [3u8, 0u8] {
            let known = KNOWN_FAILURES
                .iter()
                .find(|(n, lvl, _)| *n == name && *lvl == o);
            let cell = match results.get(&(name.clone(), o)) {
                Some(Ok((None, t))) => {
                    if known.is_some() {
                        unexpected.push(format!(
                            "{name} -O{o} passes now: remove it from KNOWN_FAILURES"
                        ));
                    }
                    slowest = slowest.max(*t);
                    format!("ok {:.1} ms", t.as_secs_f64() * 1e3)
                }
                Some(Ok((Some(p), t))) => {
                    if known.is_none() {
                        unexpected.push(format!("{name} -O{o}: {p}"));
                    }
                    slowest = slowest.max(*t);
                    format!("FAIL {p} ({:.1} ms)", t.as_secs_f64() * 1e3)
                }
                Some(Err(e)) => {
                    // Compilation problems are the front end's to test (clang 14's
                    // OpenCL -O0 back end, for instance); they are shown, not judged.
                    format!("skip ({e})")
                }
                None => "?".to_string(),
            };
            row.push_str(&format!(" | -O{o}: {cell}"));
        }
        table.push_str(&row);
        table.push('\n');
    }
    println!("{table}");
    println!("slowest kernel lint: {:.1} ms", slowest.as_secs_f64() * 1e3);
    let decided_now = decided_now.into_inner().unwrap();
    for &(file, line, _) in RACE_UNDECIDED {
        let both = [3u8, 0u8]
            .iter()
            .all(|o| decided_now.contains(&format!("{file}:{line} -O{o}")));
        if both {
            unexpected.push(format!(
                "{file}:{line} is decided now at -O3 and -O0: remove it from RACE_UNDECIDED"
            ));
        }
    }
    assert!(unexpected.is_empty(), "{}", unexpected.join("\n"));
}
