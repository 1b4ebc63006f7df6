//! The corpus test: every kernel under `tests/kernels/` compiles to PTX with every clang
//! installed (14 and later) at -O0 and -O3, and the PTX parses without errors, lowers into
//! the IR without errors, and round-trips through the printer (parse(print(parse(x))) ==
//! parse(x), spans aside). nvcc's PTX for the corpus, produced on the GPU machine and
//! committed under `tests/nvcc-ptx/`, must do the same.

use std::path::{Path, PathBuf};
use std::sync::Mutex;
use warpcheck_front::{CompileOptions, Compiler, CompilerChoice, compile_with};

fn workspace_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../..")
        .canonicalize()
        .expect("repository root")
}

fn files_with_extensions(dir: &Path, exts: &[&str]) -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("cannot read {}: {e}", dir.display()))
        .map(|e| e.expect("directory entry").path())
        .filter(|p| p.extension().is_some_and(|e| exts.iter().any(|x| e == *x)))
        .collect();
    files.sort();
    files
}

/// Parses, lowers and round-trips one PTX text; returns a description of what failed.
fn check_ptx(label: &str, ptx: &str) -> Result<(), String> {
    let parsed = warpcheck_ptx::parse(ptx);
    if !parsed.errors.is_empty() {
        let index = warpcheck_ptx::LineIndex::new(ptx);
        let errs: Vec<String> = parsed
            .errors
            .iter()
            .take(5)
            .map(|e| e.display_with(ptx, &index))
            .collect();
        return Err(format!("{label}: parse errors:\n  {}", errs.join("\n  ")));
    }
    let printed = warpcheck_ptx::print(&parsed.module);
    let reparsed = warpcheck_ptx::parse(&printed);
    if !reparsed.errors.is_empty() {
        return Err(format!(
            "{label}: the printed PTX does not parse: {:?}",
            reparsed.errors[0]
        ));
    }
    if warpcheck_ptx::without_spans(&reparsed.module)
        != warpcheck_ptx::without_spans(&parsed.module)
    {
        return Err(format!(
            "{label}: parse(print(parse(x))) differs from parse(x)"
        ));
    }
    if let Err(errors) = warpcheck_ir::lower(&parsed.module) {
        let index = warpcheck_ptx::LineIndex::new(ptx);
        let errs: Vec<String> = errors
            .iter()
            .take(5)
            .map(|e| format!("{}: {}", index.line_col(ptx, e.span.start), e.message))
            .collect();
        return Err(format!(
            "{label}: lowering errors:\n  {}",
            errs.join("\n  ")
        ));
    }
    Ok(())
}

/// Runs `job` over `items` on all cores, collecting failures.
fn parallel<T: Sync>(items: &[T], job: impl Fn(&T) -> Result<(), String> + Sync) -> Vec<String> {
    let failures = Mutex::new(Vec::new());
    let next = std::sync::atomic::AtomicUsize::new(0);
    let workers = std::thread::available_parallelism().map_or(2, |n| n.get());
    std::thread::scope(|s| {
        for _ in 0..workers {
            s.spawn(|| {
                loop {
                    let i = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                    let Some(item) = items.get(i) else { break };
                    if let Err(e) = job(item) {
                        failures.lock().expect("no poisoned lock").push(e);
                    }
                }
            });
        }
    });
    let mut f = failures.into_inner().expect("no poisoned lock");
    f.sort();
    f
}

#[test]
fn corpus_compiles_parses_lowers_and_round_trips_with_every_clang() {
    let clangs = Compiler::all_clangs();
    assert!(
        !clangs.is_empty(),
        "no clang >= 14 found: install one (apt-get install clang)"
    );
    let files = files_with_extensions(&workspace_root().join("tests/kernels"), &["cu", "cl", "c"]);
    assert!(
        files.len() >= 60,
        "the corpus should hold at least 60 kernels, found {}",
        files.len()
    );
    let mut jobs = Vec::new();
    for clang in &clangs {
        for file in &files {
            for opt_level in [0u8, 3] {
                jobs.push((clang, file, opt_level));
            }
        }
    }
    let failures = parallel(&jobs, |(clang, file, opt_level)| {
        let options = CompileOptions {
            opt_level: *opt_level,
            compiler: CompilerChoice::Clang,
            ..CompileOptions::default()
        };
        let label = format!(
            "{} (clang {}, -O{opt_level})",
            file.file_name().unwrap_or_default().to_string_lossy(),
            clang.version
        );
        let compiled = compile_with(clang, file, &options).map_err(|e| format!("{label}: {e}"))?;
        check_ptx(&label, &compiled.ptx)
    });
    eprintln!(
        "corpus: {} files x {} clang(s) x 2 optimisation levels = {} compilations",
        files.len(),
        clangs.len(),
        jobs.len()
    );
    assert!(
        failures.is_empty(),
        "{} of {} failed:\n{}",
        failures.len(),
        jobs.len(),
        failures.join("\n")
    );
}

#[test]
fn nvcc_ptx_of_the_corpus_parses_lowers_and_round_trips() {
    let dir = workspace_root().join("tests/nvcc-ptx");
    let files = files_with_extensions(&dir, &["ptx"]);
    assert!(
        files.len() >= 60,
        "expected nvcc PTX for the corpus in {}, found {}",
        dir.display(),
        files.len()
    );
    let failures = parallel(&files, |file| {
        let text = std::fs::read_to_string(file).map_err(|e| format!("{}: {e}", file.display()))?;
        check_ptx(
            &file.file_name().unwrap_or_default().to_string_lossy(),
            &text,
        )
    });
    assert!(
        failures.is_empty(),
        "{} of {} failed:\n{}",
        failures.len(),
        files.len(),
        failures.join("\n")
    );
}
