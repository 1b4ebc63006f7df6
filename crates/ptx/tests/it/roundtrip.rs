//! File tests: every PTX sample under `tests/data/` parses without errors, and printing the
//! tree and parsing the result gives the same tree (spans aside).
//!
//! `tests/data/clang/` holds clang 14 and clang 19 output for the CUDA snippets in
//! `tests/data/cuda/` (regenerate with `sh tests/data/cuda/gen.sh tests/data/clang`);
//! `tests/data/nvcc/` holds nvcc 13.0 output (-O3, -lineinfo, -G, -rdc) for kernels of the
//! workspace's `tests/kernels/` (regenerate with `tests/data/nvcc/gen.sh` where nvcc is
//! installed). `tests/data/handwritten/` holds PTX in the style of nvcc with constructs
//! neither compiler emitted for our kernels (jump tables, call prototypes, textures, …).
//!
//! On the device machine, ptxas 13.0 assembled every sample's printed form wherever it
//! assembled the sample itself (`examples/ptx_check.rs --out DIR` writes the printed forms).
//!
//! To check a larger corpus the same way (e.g. PTX compiled from `tests/kernels/`), point
//! `WARPCHECK_PTX_SAMPLES` at a directory of `.ptx` files:
//! `WARPCHECK_PTX_SAMPLES=/tmp/ptx cargo test -p warpcheck-ptx --test it roundtrip::`.

use std::path::{Path, PathBuf};

use warpcheck_ptx::{LineIndex, parse, print, without_spans};

fn sample_files() -> Vec<PathBuf> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data");
    let mut dirs = vec![
        root.join("clang"),
        root.join("nvcc"),
        root.join("handwritten"),
    ];
    if let Some(extra) = std::env::var_os("WARPCHECK_PTX_SAMPLES") {
        dirs.push(PathBuf::from(extra));
    }
    let mut files = Vec::new();
    for dir in dirs {
        let entries = std::fs::read_dir(&dir).expect("test data directory exists");
        for entry in entries {
            let path = entry.expect("readable directory entry").path();
            if path.extension().is_some_and(|e| e == "ptx") {
                files.push(path);
            }
        }
    }
    files.sort();
    files
}

fn errors_text(text: &str, errors: &[warpcheck_ptx::ParseError]) -> String {
    let index = LineIndex::new(text);
    errors
        .iter()
        .map(|e| e.display_with(text, &index))
        .collect::<Vec<_>>()
        .join("\n")
}

#[test]
fn samples_parse_without_errors_and_round_trip() {
    let files = sample_files();
    assert!(
        files.len() >= 83,
        "expected 40 clang, 40 nvcc and 3 handwritten samples, found {}",
        files.len()
    );
    for path in files {
        let text = std::fs::read_to_string(&path).expect("sample is UTF-8");
        let parsed = parse(&text);
        assert!(
            parsed.errors.is_empty(),
            "{}:\n{}",
            path.display(),
            errors_text(&text, &parsed.errors)
        );
        assert!(
            !parsed.module.items.is_empty(),
            "{}: no items",
            path.display()
        );

        let printed = print(&parsed.module);
        let reparsed = parse(&printed);
        assert!(
            reparsed.errors.is_empty(),
            "{}: printed text does not parse:\n{}\n--- printed ---\n{printed}",
            path.display(),
            errors_text(&printed, &reparsed.errors)
        );
        let (a, b) = (
            without_spans(&parsed.module),
            without_spans(&reparsed.module),
        );
        if a != b {
            for (x, y) in a.items.iter().zip(&b.items) {
                assert_eq!(
                    x,
                    y,
                    "{}: first differing item after round trip",
                    path.display()
                );
            }
            panic!("{}: item count differs after round trip", path.display());
        }
        // Printing is a fixpoint after one round.
        assert_eq!(print(&reparsed.module), printed, "{}", path.display());
    }
}
