//! Real nvcc 13 output (the samples the `warpcheck-ptx` crate keeps in its test data:
//! -O3, -lineinfo, -G and -rdc builds for sm_80 and sm_90a) lowers without error.

use crate::common;

use std::path::Path;

use common::check_invariants;

#[test]
fn nvcc_samples_lower() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../ptx/tests/data/nvcc");
    let Ok(entries) = std::fs::read_dir(&dir) else {
        eprintln!("note: no nvcc samples at {}; skipping", dir.display());
        return;
    };
    let mut files: Vec<_> = entries
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|e| e == "ptx"))
        .collect();
    files.sort();
    assert!(!files.is_empty());
    let mut kernels = 0;
    for path in &files {
        let text = std::fs::read_to_string(path).expect("readable sample");
        let parsed = warpcheck_ptx::parse(&text);
        assert!(
            parsed.errors.is_empty(),
            "{}: parse errors {:?}",
            path.display(),
            parsed.errors
        );
        let index = warpcheck_ptx::LineIndex::new(&text);
        let program = match warpcheck_ir::lower(&parsed.module) {
            Ok(p) => p,
            Err(errors) => {
                let msgs: Vec<String> = errors
                    .iter()
                    .map(|e| e.display_with(&text, &index))
                    .collect();
                panic!("{}:\n{}", path.display(), msgs.join("\n"));
            }
        };
        check_invariants(&program);
        kernels += program.kernels().count();
    }
    assert!(
        kernels >= files.len(),
        "every sample has at least one kernel"
    );
}
