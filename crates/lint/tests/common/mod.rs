//! Helpers of the lint's file-based tests: compile a CUDA source string with clang and
//! lint its kernels.
#![allow(dead_code)]

use warpcheck_front::{CompileOptions, CompilerChoice};
use warpcheck_ir::Program;
use warpcheck_lint::warp::Granularity;
use warpcheck_lint::{LintOptions, lint_kernel};
use warpcheck_report::Finding;

/// `source` compiled by clang (written to a temporary `NAME.cu`, in a directory of its own
/// per call: tests run in parallel), parsed and lowered.
pub fn compile_source(name: &str, source: &str) -> Program {
    compile_source_at(name, source, 3)
}

/// [`compile_source`] at an optimisation level (`-O0` to `-O3`).
pub fn compile_source_at(name: &str, source: &str, opt_level: u8) -> Program {
    static CALLS: std::sync::atomic::AtomicU32 = std::sync::atomic::AtomicU32::new(0);
    let call = CALLS.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let dir = std::env::temp_dir().join(format!(
        "warpcheck-lint-{name}-{}-{call}",
        std::process::id()
    ));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let path = dir.join(format!("{name}.cu"));
    std::fs::write(&path, source).expect("write kernel");
    let options = CompileOptions {
        compiler: CompilerChoice::Clang,
        opt_level,
        ..CompileOptions::default()
    };
    let compiled = warpcheck_front::compile(&path, &options).expect("clang compiles the kernels");
    let _ = std::fs::remove_dir_all(&dir);
    let parsed = warpcheck_ptx::parse(&compiled.ptx);
    warpcheck_ir::lower(&parsed.module).expect("lowers")
}

/// Each kernel's `uncoalesced-access` findings, linted symbolically (no launch).
pub fn uncoalesced_by_kernel(
    program: &Program,
    granularity: Granularity,
) -> Vec<(String, Vec<Finding>)> {
    let lint = LintOptions {
        param_names: vec![],
        launch: None,
        scalars: Default::default(),
        granularity,
    };
    program
        .kernels()
        .map(|k| {
            let name = program.function(k).name.to_string();
            let found = lint_kernel(program, k, &lint)
                .into_iter()
                .filter(|f| f.code == "uncoalesced-access")
                .collect();
            (name, found)
        })
        .collect()
}

/// The findings of the kernel whose (mangled) name contains `kernel`.
pub fn of<'a>(all: &'a [(String, Vec<Finding>)], kernel: &str) -> &'a [Finding] {
    &all.iter()
        .find(|(n, _)| n.contains(kernel))
        .unwrap_or_else(|| panic!("kernel {kernel} not found"))
        .1
}
