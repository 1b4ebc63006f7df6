//! The emulator never panics: every kernel of nvcc's PTX of the corpus runs with made-up
//! arguments (null pointers; or every pointer aimed at one zeroed buffer and every
//! integer small) and must end with a result, faults included, or an emulator error.

use crate::common;

use std::path::PathBuf;

use common::lower_ptx;
use warpcheck_emu::{GlobalMemory, LaunchConfig, Scheduling, run};
use warpcheck_ir::symbols::VarRole;

#[test]
fn made_up_arguments_never_panic() {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../tests/nvcc-ptx");
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap()
        .filter_map(|e| e.ok())
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|x| x == "ptx"))
        .collect();
    files.sort();
    assert!(files.len() > 50);
    let mut runs = 0;
    for file in files {
        let text = std::fs::read_to_string(&file).unwrap();
        let program = lower_ptx(&text);
        for k in program.kernels().collect::<Vec<_>>() {
            let f = program.function(k);
            for aimed in [false, true] {
                let mut memory = GlobalMemory::new();
                let buffer = memory.alloc(1 << 20, true).unwrap();
                let mut params = vec![0u8; f.param_space_size as usize];
                if aimed {
                    for &p in &f.params {
                        let var = program.variable(p);
                        let VarRole::Param { offset, .. } = var.role else {
                            continue;
                        };
                        let size = var.size.unwrap_or(0) as usize;
                        let value: u64 = if size == 8 { buffer } else { 16 };
                        let at = offset as usize;
                        let n = size.min(8);
                        params[at..at + n].copy_from_slice(&value.to_le_bytes()[..n]);
                    }
                }
                for scheduling in [Scheduling::LockStep, Scheduling::Independent { seed: 1 }] {
                    let mut config = LaunchConfig::new([2, 1, 1], [64, 1, 1]);
                    config.budget = 200_000;
                    config.scheduling = scheduling;
                    config.dynamic_shared = 4096;
                    let _ = run(&program, k, &params, &mut memory, &config);
                    runs += 1;
                }
            }
        }
    }
    assert!(runs > 300, "{runs} runs");
}
