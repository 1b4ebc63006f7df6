//! Compiles one file through the front end and prints what it learnt: the compiler, notes,
//! and the kernel signatures as JSON (or, with `--ptx`, the PTX). Used by
//! `tools/rodinia_survey.sh` and for trying the shims by hand:
//!
//! ```text
//! cargo run --release -p warpcheck-front --example front -- \
//!     [--clang PROGRAM] [--arch sm_XX] [-O N] [-I DIR]... [-D NAME[=VALUE]]... [--ptx | --summary] FILE
//! ```
//!
//! `--summary` prints only the first line (`ok: …` or `error: …`) and notes.
use std::path::{Path, PathBuf};
use warpcheck_front::{CompileOptions, Compiler, compile, compile_with};

fn main() {
    let mut options = CompileOptions::default();
    let mut clang: Option<String> = None;
    let mut print_ptx = false;
    let mut summary_only = false;
    let mut file: Option<PathBuf> = None;
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        let mut value = |name: &str| {
            args.next().unwrap_or_else(|| {
                eprintln!("error: {name} needs a value");
                std::process::exit(2)
            })
        };
        match arg.as_str() {
            "--clang" => clang = Some(value("--clang")),
            "--arch" => options.arch = value("--arch"),
            "--ptx" => print_ptx = true,
            "--summary" => summary_only = true,
            "-O" => options.opt_level = value("-O").parse().unwrap_or(3),
            "-I" => options.include_dirs.push(value("-I").into()),
            "-D" => options.defines.push(value("-D")),
            other if other.starts_with("-O") => options.opt_level = other[2..].parse().unwrap_or(3),
            other if other.starts_with("-I") => options.include_dirs.push(other[2..].into()),
            other if other.starts_with("-D") => options.defines.push(other[2..].to_string()),
            other if other.starts_with('-') => options.extra_args.push(other.to_string()),
            other => file = Some(other.into()),
        }
    }
    let Some(file) = file else {
        eprintln!(
            "usage: front [--clang PROGRAM] [--arch sm_XX] [-O N] [-I DIR] [-D DEF] [--ptx] FILE"
        );
        std::process::exit(2);
    };
    let started = std::time::Instant::now();
    let result = match clang {
        Some(program) => {
            Compiler::clang_at(program).and_then(|c| compile_with(&c, Path::new(&file), &options))
        }
        None => compile(&file, &options),
    };
    match result {
        Ok(module) => {
            if print_ptx {
                print!("{}", module.ptx);
                return;
            }
            println!(
                "ok: {} compiled {} kernel(s) into {} bytes of PTX in {:.2?}",
                module.compiler,
                module.signatures.len(),
                module.ptx.len(),
                started.elapsed()
            );
            for note in &module.notes {
                println!("note: {note}");
            }
            if summary_only {
                return;
            }
            match serde_json::to_string_pretty(&module.signatures) {
                Ok(json) => println!("{json}"),
                Err(error) => eprintln!("{error}"),
            }
        }
        Err(error) => {
            println!("error: {error}");
            std::process::exit(1);
        }
    }
}
