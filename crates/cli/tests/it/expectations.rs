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
//! The `//~` markers stay the coarse, semantic check (`check_corpus.rs`); these files pin
//! down everything else a user sees: messages, labels, notes, help, summaries.

use std::path::{Path, PathBuf};
use std::process::Command;

use warpcheck_corpus::expectations::{Job, Mode, normalise, run_jobs, settle};
use warpcheck_corpus::{CORPUS_DIRS, KernelFile, LaunchLine, kernel_files};

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

/// The jobs of one kernel file.
fn jobs_of(path: &Path) -> Vec<Job<'static>> {
    let file = KernelFile::read(path).unwrap_or_else(|e| panic!("{e}"));
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
        let check = vec!["check".to_string(), rel.clone(), "--from-header".into()];
        jobs.push(Job {
            expected: dir.join(format!("{name}.check.stderr")),
            produce: Box::new({
                let a = check.clone();
                move || warpcheck(&a)
            }),
        });
        for v in &file.variants {
            let mut a = check.clone();
            a.push(v.define.clone());
            jobs.push(Job {
                expected: dir.join(format!("{name}.{}.check.stderr", v.name())),
                produce: Box::new(move || warpcheck(&a)),
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
    let mut jobs = Vec::new();
    for d in &dirs {
        for path in kernel_files(d).expect("corpus directory") {
            jobs.extend(jobs_of(&path));
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
    assert!(outcome.is_ok(), "{}", outcome.report());
}
