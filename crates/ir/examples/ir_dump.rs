//! Lowers a PTX file and prints every function (or the errors), for inspection:
//! `cargo run -p warpcheck-ir --example ir_dump -- FILE.ptx [FUNCTION]`.

use std::process::ExitCode;

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let Some(path) = args.first() else {
        eprintln!("usage: ir_dump FILE.ptx [FUNCTION]");
        return ExitCode::from(2);
    };
    let text = match std::fs::read_to_string(path) {
        Ok(t) => t,
        Err(e) => {
            eprintln!("{path}: {e}");
            return ExitCode::from(2);
        }
    };
    let parsed = warpcheck_ptx::parse(&text);
    let index = warpcheck_ptx::LineIndex::new(&text);
    for e in &parsed.errors {
        eprintln!("{path}:{}", e.display_with(&text, &index));
    }
    match warpcheck_ir::lower(&parsed.module) {
        Ok(program) => {
            print!("{}", warpcheck_ir::print_globals(&program));
            for (id, f) in program.functions.iter() {
                if args.get(1).is_some_and(|want| {
                    program.functions_named(want).first() != Some(&id) && &f.name != want
                }) {
                    continue;
                }
                println!("{}", warpcheck_ir::print_function(&program, id));
            }
            ExitCode::SUCCESS
        }
        Err(errors) => {
            for e in &errors {
                eprintln!("{path}:{}", e.display_with(&text, &index));
            }
            ExitCode::from(1)
        }
    }
}
