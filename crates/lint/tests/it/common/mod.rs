//! Helpers of the lint's file-based tests: compile a CUDA source string with clang and
//! lint its kernels.
#![allow(dead_code)]

use warpcheck_front::{CompileOptions, CompilerChoice};
use warpcheck_ir::Program;
use warpcheck_lint::warp::Granularity;
use warpcheck_lint::{LintOptions, lint_kernel};
use warpcheck_report::{Code, Finding};

/// `source` compiled by clang (written to a temporary `NAME.cu`, in a directory of its own
/// per call: tests run in parallel), parsed and lowered.
pub fn compile_source(name: &str, source: &str) -> Program {
    compile_source_at(name, source, 3)
}

/// [`compile_source`] at an optimisation level (`-O0` to `-O3`).
pub fn compile_source_at(name: &str, source: &str, opt_level: u8) -> Program {
    compile_with_names(name, source, opt_level).0
}

/// [`compile_source`], also returning each kernel's parameter names by mangled name (from
/// clang's AST), for messages that name buffers as the source does.
pub fn compile_source_with_names(name: &str, source: &str) -> (Program, ParamNames) {
    compile_with_names(name, source, 3)
}

fn compile_with_names(name: &str, source: &str, opt_level: u8) -> (Program, ParamNames) {
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
    let names = compiled
        .signatures
        .iter()
        .map(|s| {
            let params = s.params.iter().map(|p| p.name.clone()).collect();
            (s.mangled_name.clone(), params)
        })
        .collect();
    (warpcheck_ir::lower(&parsed.module).expect("lowers"), names)
}

/// Parameter names of each kernel, by mangled name.
pub type ParamNames = std::collections::HashMap<String, Vec<String>>;

/// Each kernel's `uncoalesced-access` findings, linted symbolically (no launch).
pub fn uncoalesced_by_kernel(
    program: &Program,
    granularity: Granularity,
) -> Vec<(String, Vec<Finding>)> {
    findings_by_kernel(
        program,
        &ParamNames::new(),
        granularity,
        false,
        Code::UncoalescedAccess,
    )
}

/// Each kernel's findings of code `code`, linted symbolically (no launch) with the
/// parameter names of `names` (PTX names for a kernel it lacks), with `--data-dependent`
/// when `data_dependent` is set.
pub fn findings_by_kernel(
    program: &Program,
    names: &ParamNames,
    granularity: Granularity,
    data_dependent: bool,
    code: Code,
) -> Vec<(String, Vec<Finding>)> {
    program
        .kernels()
        .map(|k| {
            let name = program.function(k).name.to_string();
            let lint = LintOptions {
                param_names: names.get(&name).cloned().unwrap_or_default(),
                launch: None,
                scalars: Default::default(),
                granularity,
                data_dependent,
            };
            let found = lint_kernel(program, k, &lint)
                .into_iter()
                .filter(|f| f.code == code)
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
