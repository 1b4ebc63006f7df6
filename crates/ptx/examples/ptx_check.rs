//! Checks PTX files against the crate's guarantees: each parses without errors, and its
//! printed form parses back to the same tree. With `--out DIR`, writes each printed form to
//! `DIR/<file name>` (so that an assembler such as `ptxas` can check the printer's output).
//!
//! Usage: `cargo run -p warpcheck-ptx --example ptx_check -- [--out DIR] FILE.ptx...`
//! Prints one line per failing file and a summary; exits with 1 if any file failed.

use std::path::PathBuf;
use std::process::ExitCode;

use warpcheck_ptx::{LineIndex, parse, print, without_spans};

fn main() -> ExitCode {
    let mut args = std::env::args().skip(1).peekable();
    let mut out_dir: Option<PathBuf> = None;
    if args.peek().is_some_and(|a| a == "--out") {
        args.next();
        out_dir = args.next().map(PathBuf::from);
    }
    let (mut checked, mut failed) = (0usize, 0usize);
    for path in args {
        checked += 1;
        let text = match std::fs::read_to_string(&path) {
            Ok(text) => text,
            Err(e) => {
                println!("{path}: cannot read: {e}");
                failed += 1;
                continue;
            }
        };
        let parsed = parse(&text);
        let index = LineIndex::new(&text);
        if let Some(error) = parsed.errors.first() {
            println!(
                "{path}:{} ({} errors)",
                error.display_with(&text, &index),
                parsed.errors.len()
            );
            failed += 1;
        }
        let printed = print(&parsed.module);
        let reparsed = parse(&printed);
        if !reparsed.errors.is_empty() {
            println!("{path}: printed form has {} errors", reparsed.errors.len());
            failed += 1;
        } else if without_spans(&reparsed.module) != without_spans(&parsed.module) {
            println!("{path}: printed form parses to a different tree");
            failed += 1;
        }
        if let Some(dir) = &out_dir {
            let name = PathBuf::from(&path)
                .file_name()
                .map(|n| n.to_owned())
                .unwrap_or_default();
            if let Err(e) = std::fs::write(dir.join(name), &printed) {
                println!("{path}: cannot write printed form: {e}");
                failed += 1;
            }
        }
    }
    println!("checked {checked} files, {failed} failures");
    if failed == 0 {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    }
}
