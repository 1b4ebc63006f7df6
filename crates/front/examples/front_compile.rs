//! Compiles one file and prints what the front end learnt: compiler, notes, signatures, and
//! the PTX size. `cargo run -p warpcheck-front --example front_compile -- FILE [clang]`
use std::path::Path;
use warpcheck_front::{compile, compile_with, CompileOptions, Compiler};

fn main() {
    let mut args = std::env::args().skip(1);
    let Some(file) = args.next() else {
        eprintln!("usage: front_compile FILE [CLANG]");
        std::process::exit(2);
    };
    let options = CompileOptions::default();
    let started = std::time::Instant::now();
    let result = match args.next() {
        Some(clang) => Compiler::clang_at(clang).and_then(|c| compile_with(&c, Path::new(&file), &options)),
        None => compile(Path::new(&file), &options),
    };
    match result {
        Ok(module) => {
            println!("compiler: {} ({} bytes of PTX, {:?})", module.compiler, module.ptx.len(), started.elapsed());
            for note in &module.notes {
                println!("note: {note}");
            }
            match serde_json::to_string_pretty(&module.signatures) {
                Ok(json) => println!("{json}"),
                Err(error) => eprintln!("{error}"),
            }
        }
        Err(error) => {
            eprintln!("error: {error}");
            std::process::exit(1);
        }
    }
}
