//! Expectation files for the corpus (`tests/kernels`, `tests/check-cases`): the text
//! output of `warpcheck check FILE --from-header` (and of each `warpcheck-variant`) and of
//! `warpcheck lint` (once per launch line, with its kernel, grid, block and arguments;
//! plain when the file has none), normalised by
//! [`warpcheck_corpus::expectations::normalise`], must equal the checked-in
//! `FILE.check.stderr`, `FILE.VARIANT.check.stderr` and `FILE.lint.stderr` next to the
//! kernel (FILE is the file name with its extension, so `vector_add.cu` and
//! `vector_add.cl` have their own). A mismatch fails with a unified diff per file;
//! `WARPCHECK_BLESS=1 cargo test --release -p warpcheck --test it expectations::` rewrites them
//! and deletes those of removed kernels. tests/kernels/README.md describes the harness.
//!
//! Each `check` run also writes its findings with `--report FILE.json`, and they must be
//! exactly the file's `//~` markers ([`super::markers`]): the coarse, semantic check, on
//! the same run. The expectation files pin down everything else a user sees: messages,
//! labels, notes, help, summaries.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::{Arc, Mutex};

use super::markers::{differences, expected, found};

use warpcheck_corpus::expectations::{Job, Mode, normalise, run_jobs, settle};
use warpcheck_corpus::{CORPUS_DIRS, KernelFile, LaunchLine, Variant, kernel_files};

/// Where marker disagreements are collected, one line each.
type Failures = Arc<Mutex<Vec<String>>>;

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../..")
        .canonicalize()
        .expect("repository root")
}

/// Runs `warpcheck ARGS` in the repository root: stdout, then stderr, then the exit
/// status, normalised.
fn warpcheck(args: &[String]) -> String {
    let root = root();
    let out = Command::new(env!("CARGO_BIN_EXE_warpcheck"))
        .args(args)
        .current_dir(&root)
        .env("NO_COLOR", "1")
        .output()
        .expect("warpcheck runs");
    let mut text = String::from_utf8_lossy(&out.stdout).into_owned();
    text.push_str(&String::from_utf8_lossy(&out.stderr));
    if !text.is_empty() && !text.ends_with('\n') {
        text.push('\n');
    }
    match out.status.code() {
        Some(c) => text.push_str(&format!("exit status: {c}\n")),
        None => text.push_str("killed by a signal\n"),
    }
    normalise(&text, &root)
}

/// `lint`'s options for one launch line.
fn lint_args(rel: &str, l: &LaunchLine) -> Vec<String> {
    let mut a = vec!["lint".to_string(), rel.to_string()];
    if let Some(k) = &l.kernel {
        a.extend(["--kernel".into(), k.clone()]);
    }
    let dim = |d: warpcheck_corpus::Dim3| format!("{},{},{}", d.0[0], d.0[1], d.0[2]);
    a.extend(["--grid".into(), dim(l.grid), "--block".into(), dim(l.block)]);
    for arg in &l.args {
        a.extend(["--arg".into(), arg.clone()]);
    }
    a
}

/// The lint output for every launch of a file, each after the command that made it.
fn lint_all(rel: &str, file: &KernelFile) -> String {
    if file.launches.is_empty() {
        return warpcheck(&["lint".into(), rel.into()]);
    }
    let mut out = String::new();
    for l in &file.launches {
        let args = lint_args(rel, l);
        out.push_str(&format!("== warpcheck {}\n", args[1..].join(" ")));
        out.push_str(&warpcheck(&args));
    }
    out
}

/// `warpcheck check REL --from-header [FLAG]` with a JSON report: its text output, and a
/// line in `failures` when the report's findings are not the markers of `file` (with
/// `variant`).
fn check_job(
    rel: &str,
    file: &Arc<KernelFile>,
    variant: Option<usize>,
    failures: &Failures,
) -> Box<dyn Fn() -> String + Send + Sync> {
    let (file, failures) = (Arc::clone(file), Arc::clone(failures));
    let v: Option<Variant> = variant.map(|i| file.variants[i].clone());
    let name = file.file_name();
    let label = match &v {
        Some(v) => format!("{name} {}", v.define),
        None => name.clone(),
    };
    let json = Path::new(env!("CARGO_TARGET_TMPDIR"))
        .join("expectations")
        .join(format!("{}.json", label.replace([' ', '='], "_")));
    let mut args = vec!["check".to_string(), rel.to_string(), "--from-header".into()];
    args.extend(v.as_ref().map(|v| v.define.clone()));
    args.extend(["--report".to_string(), json.display().to_string()]);
    Box::new(move || {
        std::fs::create_dir_all(json.parent().expect("a directory")).expect("temp directory");
        let _ = std::fs::remove_file(&json);
        let text = warpcheck(&args);
        let want = expected(&file, v.as_ref(), &label, &[]);
        let got = std::fs::read(&json)
            .map_err(|e| e.to_string())
            .and_then(|b| serde_json::from_slice(&b).map_err(|e| e.to_string()))
            .map(|j| found(&j, &name));
        let failure = match got {
            Ok(got) => differences(&label, &want, &got),
            Err(e) => Some(format!("{label}: no JSON report ({e})")),
        };
        failures.lock().expect("lock").extend(failure);
        text
    })
}

/// The jobs of one kernel file.
fn jobs_of(path: &Path, failures: &Failures) -> Vec<Job<'static>> {
    let file = Arc::new(KernelFile::read(path).unwrap_or_else(|e| panic!("{e}")));
    let root = root();
    let rel = path
        .strip_prefix(&root)
        .unwrap_or(path)
        .display()
        .to_string();
    let dir = path.parent().expect("a directory").to_path_buf();
    let name = file.file_name();
    let mut jobs = Vec::new();
    if !file.launches.is_empty() {
        jobs.push(Job {
            expected: dir.join(format!("{name}.check.stderr")),
            produce: check_job(&rel, &file, None, failures),
        });
        for (i, v) in file.variants.iter().enumerate() {
            jobs.push(Job {
                expected: dir.join(format!("{name}.{}.check.stderr", v.name())),
                produce: check_job(&rel, &file, Some(i), failures),
            });
        }
    }
    jobs.push(Job {
        expected: dir.join(format!("{name}.lint.stderr")),
        produce: Box::new(move || lint_all(&rel, &file)),
    });
    jobs
}

#[test]
fn corpus_output_matches_the_expectation_files() {
    let root = root();
    let dirs: Vec<PathBuf> = CORPUS_DIRS.iter().map(|d| root.join(d)).collect();
    let failures = Failures::default();
    let mut jobs = Vec::new();
    for d in &dirs {
        for path in kernel_files(d).expect("corpus directory") {
            jobs.extend(jobs_of(&path, &failures));
        }
    }
    // The slowest jobs first, so that they do not end up alone at the end.
    jobs.sort_by_key(|j| !j.expected.to_string_lossy().contains("deadlock"));
    assert!(jobs.len() >= 170, "only {} jobs", jobs.len());
    let actual = run_jobs(&jobs);
    let outcome = settle(&actual, &dirs, Mode::from_env()).expect("expectation files");
    for p in &outcome.blessed {
        println!("blessed {}", p.display());
    }
    let failures = failures.lock().expect("lock");
    assert!(
        failures.is_empty(),
        "{} check runs differ from the markers:\n{}",
        failures.len(),
        failures.join("\n")
    );
    assert!(outcome.is_ok(), "{}", outcome.report());
}
