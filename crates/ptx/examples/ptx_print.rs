//! Parses a PTX file and prints its errors (as `file:line:col: message`) to stderr and the
//! canonical re-printed module to stdout.
//!
//! Usage: `cargo run -p warpcheck-ptx --example ptx_print -- FILE.ptx`

use std::process::ExitCode;

fn main() -> ExitCode {
    let Some(path) = std::env::args().nth(1) else {
        eprintln!("usage: ptx_print FILE.ptx");
        return ExitCode::from(2);
    };
    let text = match std::fs::read_to_string(&path) {
        Ok(text) => text,
        Err(e) => {
            eprintln!("{path}: {e}");
            return ExitCode::from(2);
        }
    };
    let parsed = warpcheck_ptx::parse(&text);
    let index = warpcheck_ptx::LineIndex::new(&text);
    for error in &parsed.errors {
        eprintln!("{path}:{}", error.display_with(&text, &index));
    }
    print!("{}", warpcheck_ptx::print(&parsed.module));
    if parsed.errors.is_empty() {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    }
}
