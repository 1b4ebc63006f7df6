//! Helpers shared by the integration tests.
#![allow(dead_code)]

use std::collections::BTreeSet;
use std::path::PathBuf;
use warpcheck_front::{CompileOptions, CompiledModule, Compiler, compile_with};

/// Every clang from 14 on that is installed. Fails when there is none; says which of the
/// versions the project promises to support (14 and 19) are missing.
pub fn clangs() -> Vec<Compiler> {
    let found = Compiler::all_clangs();
    assert!(
        !found.is_empty(),
        "no clang 14 or later found on PATH: the front-end tests need one (apt-get install clang)"
    );
    for wanted in [14, 19] {
        if !found.iter().any(|c| c.version.major == wanted) {
            eprintln!("note: clang {wanted} is not installed; its tests are skipped");
        }
    }
    found
}

pub fn fixture(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures")
        .join(name)
}

pub fn options(opt_level: u8) -> CompileOptions {
    CompileOptions {
        opt_level,
        ..CompileOptions::default()
    }
}

/// Compiles a fixture, panicking with the compiler's message on failure.
pub fn compile_fixture(clang: &Compiler, name: &str, options: &CompileOptions) -> CompiledModule {
    match compile_with(clang, &fixture(name), options) {
        Ok(module) => module,
        Err(error) => panic!("{clang} -O{} {name}: {error}", options.opt_level),
    }
}

/// The opcodes of the PTX's instructions, with state spaces and cache operators removed
/// (`atom.global.add.f32` and `atom.add.f32` are the same operation at -O3 and -O0).
pub fn opcodes(ptx: &str) -> BTreeSet<String> {
    ptx.lines()
        .filter_map(|line| {
            let line = line.trim_start();
            let line = line
                .strip_prefix('@')
                .map(|l| {
                    l.split_once(char::is_whitespace)
                        .map_or("", |(_, rest)| rest.trim_start())
                })
                .unwrap_or(line);
            let token = line.split(|c: char| c.is_whitespace() || c == ';').next()?;
            if token.is_empty()
                || token.starts_with(['.', '/', '{', '}', '$', '%'])
                || token.ends_with(':')
            {
                return None;
            }
            let parts: Vec<&str> = token
                .split('.')
                .filter(|part| {
                    !["global", "shared", "generic", "local", "const", "param"].contains(part)
                })
                .collect();
            Some(parts.join("."))
        })
        .collect()
}

/// Asserts that the PTX has at least one of `alternatives` among its opcodes.
pub fn assert_has_opcode(
    module: &CompiledModule,
    what: &str,
    alternatives: &[&str],
    context: &str,
) {
    let found = opcodes(&module.ptx);
    assert!(
        alternatives.iter().any(|a| found.contains(*a)),
        "{context}: {what} should compile to {alternatives:?}; opcodes are {found:?}"
    );
}

/// The names of the `.extern .func` declarations of the PTX (calls the module leaves to
/// its runtime).
pub fn external_functions(ptx: &str) -> Vec<String> {
    ptx.lines()
        .filter(|line| line.starts_with(".extern .func"))
        .filter_map(|line| {
            let rest = line.trim_start_matches(".extern .func").trim();
            let rest = if rest.starts_with('(') {
                rest.split_once(')').map(|(_, r)| r.trim()).unwrap_or("")
            } else {
                rest
            };
            rest.split(|c: char| c == '(' || c.is_whitespace())
                .next()
                .map(str::to_string)
        })
        .filter(|name| !name.is_empty())
        .collect()
}
