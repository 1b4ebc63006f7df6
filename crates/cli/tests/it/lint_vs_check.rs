//! Static predictions against dynamic counts: for every corpus
//! kernel file, the lint's worst sectors per request (`uncoalesced-access`) and worst
//! bank-conflict degree (`bank-conflict`) per source line, instantiated with the file's
//! `warpcheck-launch:` lines, must equal what the dynamic checkers measure when the
//! launches run (`warpcheck check FILE --from-header --tool bank,coalesce`), both on
//! clang -O3's PTX: the same lines flagged, with the same numbers, and nothing flagged by
//! one and not the other. Both sides use the corpus conventions (README of
//! `tests/kernels`: an access is uncoalesced when `S ≥ 2·I` and `S ≥ I + 2`; a conflict
//! counts from 2-way).
//!
//! Where inputs matter (addresses or conditions read from memory) the two may differ by
//! design; such files, and the files where the lint has a known gap, are listed in
//! [`DIFFERENT`] with the reason, and the test checks that each listed file still
//! differs, so the list cannot go stale. Every other file must agree, flagged lines and
//! all.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;

use warpcheck_corpus::KernelFile;
use warpcheck_front::{CompileOptions, CompilerChoice};
use warpcheck_lint::{Launch, LintOptions, lint_kernel};
use warpcheck_report::Code;

/// Files whose static and dynamic counts differ, with the reason.
const DIFFERENT: &[(&str, &str)] = &[(
    "spmv_csr.cu",
    "input-dependent: vals[jj] with jj running over rowPtr[row]..rowPtr[row+1]: lanes are \
         a row length apart, and row lengths are data; the lint does not guess data-dependent \
         strides",
)];

/// (line, code) → worst degree.
type Counts = BTreeMap<(u32, String), u32>;

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../..")
        .canonicalize()
        .expect("repository root")
}

/// Records a finding's degree (the `degree` field of the JSON and of [`Finding`]).
fn record(
    counts: &mut Counts,
    file_name: &str,
    code: &str,
    file: &str,
    line: u32,
    degree: Option<u64>,
) {
    if !matches!(
        code.parse(),
        Ok(Code::UncoalescedAccess | Code::BankConflict)
    ) || !file.ends_with(file_name)
    {
        return;
    }
    let d = degree.unwrap_or(0) as u32;
    let e = counts.entry((line, code.to_string())).or_insert(d);
    *e = (*e).max(d);
}

fn dynamic(path: &Path, file_name: &str) -> Result<Counts, String> {
    let out = Command::new(env!("CARGO_BIN_EXE_warpcheck"))
        .arg("check")
        .arg(path)
        .args([
            "--from-header",
            "--tool",
            "bank,coalesce",
            "--compiler",
            "clang",
        ])
        .args(["-O", "3", "--format", "json", "--print-limit", "0"])
        .output()
        .map_err(|e| e.to_string())?;
    if !matches!(out.status.code(), Some(0 | 1)) {
        return Err(String::from_utf8_lossy(&out.stderr).into_owned());
    }
    let json: serde_json::Value = serde_json::from_slice(&out.stdout).map_err(|e| e.to_string())?;
    let mut counts = Counts::new();
    for f in json["findings"].as_array().into_iter().flatten() {
        let loc = &f["primary"]["location"];
        record(
            &mut counts,
            file_name,
            f["code"].as_str().unwrap_or_default(),
            loc["file"].as_str().unwrap_or_default(),
            loc["line"].as_u64().unwrap_or(0) as u32,
            f["degree"].as_u64(),
        );
    }
    Ok(counts)
}

fn static_counts(path: &Path, kernel_file: &KernelFile, file_name: &str) -> Result<Counts, String> {
    let options = CompileOptions {
        opt_level: 3,
        compiler: CompilerChoice::Clang,
        ..CompileOptions::default()
    };
    let compiled = warpcheck_front::compile(path, &options).map_err(|e| e.to_string())?;
    let parsed = warpcheck_ptx::parse(&compiled.ptx);
    let program = warpcheck_ir::lower(&parsed.module).map_err(|e| format!("{e:?}"))?;
    let mut counts = Counts::new();
    for l in &kernel_file.launches {
        let kernel = l.kernel_name();
        let (grid, block, scalars) = (l.grid.0, l.block.0, l.int_scalars());
        let sig = compiled
            .signatures
            .iter()
            .find(|s| s.name == kernel || s.demangled_name.starts_with(&format!("{kernel}(")));
        let mut ids = program.functions_named(kernel);
        if ids.is_empty()
            && let Some(sig) = sig
        {
            ids = program.functions_named(&sig.mangled_name);
        }
        let Some(&k) = ids.first() else {
            return Err(format!("no kernel {kernel}"));
        };
        let opts = LintOptions {
            param_names: sig
                .map(|s| s.params.iter().map(|p| p.name.clone()).collect())
                .unwrap_or_default(),
            launch: Some(Launch { grid, block }),
            scalars,
            // Sectors: what the dynamic checker and Nsight Compute count.
            granularity: warpcheck_lint::warp::Granularity::Sectors,
            data_dependent: false,
        };
        for f in lint_kernel(&program, k, &opts) {
            if let Some(p) = &f.primary {
                record(
                    &mut counts,
                    file_name,
                    f.code.name(),
                    &p.location.file,
                    p.location.line,
                    f.degree,
                );
            }
        }
    }
    Ok(counts)
}

#[test]
fn static_counts_equal_dynamic_counts() {
    let mut files: Vec<PathBuf> = std::fs::read_dir(root().join("tests/kernels"))
        .expect("tests/kernels exists")
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|e| e == "cu" || e == "cl"))
        .collect();
    files.sort();
    let mut problems = Vec::new();
    let mut compared = 0;
    let mut lines = 0;
    for path in &files {
        let name = path
            .file_name()
            .and_then(|f| f.to_str())
            .unwrap_or_default()
            .to_string();
        let kernel_file = KernelFile::read(path).unwrap_or_else(|e| panic!("{e}"));
        if kernel_file.launches.is_empty() {
            continue;
        }
        let (d, s) = match (
            dynamic(path, &name),
            static_counts(path, &kernel_file, &name),
        ) {
            (Ok(d), Ok(s)) => (d, s),
            // Compilation problems are the front end's to test; shown, not judged.
            (d, s) => {
                println!("{name}: skipped ({:?} / {:?})", d.err(), s.err());
                continue;
            }
        };
        let excluded = DIFFERENT.iter().find(|(f, _)| *f == name);
        match (d == s, excluded) {
            (true, None) => {
                compared += 1;
                lines += d.len();
            }
            (true, Some(_)) => problems.push(format!(
                "{name}: static and dynamic counts agree now: remove it from DIFFERENT"
            )),
            (false, Some((_, why))) => println!("{name}: excluded ({why})"),
            (false, None) => problems.push(format!("{name}: dynamic {d:?} but static {s:?}")),
        }
    }
    println!("{compared} files agree ({lines} flagged lines with equal counts)");
    assert!(compared >= 40, "too few files compared: {compared}");
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}
