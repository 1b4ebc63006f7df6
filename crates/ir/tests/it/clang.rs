//! End-to-end: CUDA compiled to PTX by clang 14 and clang 19 at -O0 and -O3 (with the
//! shim headers of `include/`), parsed and lowered without error, with the IR invariants
//! holding and the expected kernels, variables and instructions present.
//!
//! Skipped, with a note, when no clang is installed. Set `WARPCHECK_FULL_CORPUS=1` to
//! also lower every kernel of `tests/kernels/` (slow: four compilations per kernel).

use crate::common;

use std::path::{Path, PathBuf};
use std::process::Command;

use common::check_invariants;
use warpcheck_ir::{Op, Program, VarRole};

fn repo_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// The clang binaries that run (`clang` is 14 here, `clang-19` is 19).
fn clangs() -> Vec<&'static str> {
    ["clang", "clang-19"]
        .into_iter()
        .filter(|c| {
            Command::new(c)
                .arg("--version")
                .output()
                .is_ok_and(|o| o.status.success())
        })
        .collect()
}

/// Compiles `source` to PTX for sm_80 with the warpcheck prelude.
fn compile(clang: &str, source: &Path, opt: &str, out: &Path) -> Result<String, String> {
    let include = repo_root().join("include");
    let output = Command::new(clang)
        .args([
            "-x",
            "cuda",
            "--cuda-device-only",
            "-nocudainc",
            "-nocudalib",
            "--cuda-gpu-arch=sm_80",
        ])
        .args(["-Xclang", "-target-feature", "-Xclang", "+ptx70"])
        .arg(format!("-I{}", include.display()))
        .args([
            "-include",
            "warpcheck_prelude.h",
            opt,
            "-gline-tables-only",
            "-S",
            "-o",
        ])
        .arg(out)
        .arg(source)
        .output()
        .map_err(|e| format!("cannot run {clang}: {e}"))?;
    if !output.status.success() {
        return Err(format!(
            "{clang} {opt} {}: {}",
            source.display(),
            String::from_utf8_lossy(&output.stderr)
        ));
    }
    std::fs::read_to_string(out).map_err(|e| e.to_string())
}

fn lower_ptx(text: &str, what: &str) -> Program {
    let parsed = warpcheck_ptx::parse(text);
    let index = warpcheck_ptx::LineIndex::new(text);
    let parse_errors: Vec<String> = parsed
        .errors
        .iter()
        .map(|e| e.display_with(text, &index))
        .collect();
    assert!(
        parse_errors.is_empty(),
        "{what}: parse errors:\n{}",
        parse_errors.join("\n")
    );
    match warpcheck_ir::lower(&parsed.module) {
        Ok(p) => {
            check_invariants(&p);
            p
        }
        Err(errors) => {
            let msgs: Vec<String> = errors
                .iter()
                .map(|e| e.display_with(text, &index))
                .collect();
            panic!("{what}: lowering errors:\n{}", msgs.join("\n"))
        }
    }
}

fn ops_of(program: &Program, kernel: &str) -> Vec<Op> {
    let f = program
        .function_by_name(kernel)
        .unwrap_or_else(|| panic!("no kernel {kernel}"));
    program
        .function(f)
        .body
        .as_ref()
        .expect("kernel body")
        .insts
        .values()
        .map(|i| i.op)
        .collect()
}

#[test]
fn small_kernels_lower_at_o0_and_o3() {
    let clangs = clangs();
    if clangs.is_empty() {
        eprintln!("note: no clang found; skipping the CUDA end-to-end test");
        return;
    }
    let source = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/cuda/kernels.cu");
    let dir = tempfile::tempdir().expect("temp dir");
    for clang in &clangs {
        for opt in ["-O0", "-O3"] {
            let what = format!("{clang} {opt}");
            let out = dir.path().join(format!("kernels-{clang}{opt}.ptx"));
            let text = compile(clang, &source, opt, &out).unwrap_or_else(|e| panic!("{e}"));
            let p = lower_ptx(&text, &what);

            // Kernels by short demangled name, with laid-out parameters.
            for k in [
                "vecAdd",
                "reduceSum",
                "warpAndDynamicShared",
                "atomicsAndMath",
                "halves",
                "switchy",
                "spinWait",
            ] {
                let f = p
                    .function_by_name(k)
                    .unwrap_or_else(|| panic!("{what}: no kernel {k}"));
                assert!(p.function(f).is_kernel(), "{what}: {k} is not a kernel");
            }
            assert_eq!(
                p.functions_named("tiled").len(),
                2,
                "{what}: two instances of tiled<N>"
            );
            let vec_add = p.function(p.function_by_name("vecAdd").unwrap());
            let offsets: Vec<u64> = vec_add
                .params
                .iter()
                .map(|&v| match p.variable(v).role {
                    VarRole::Param { offset, .. } => offset,
                    _ => panic!("not a parameter"),
                })
                .collect();
            assert_eq!(offsets, vec![0, 8, 16, 24], "{what}");
            assert_eq!(vec_add.param_space_size, 28, "{what}");

            // Variables: initialised globals, a relocated pointer, dynamic shared memory,
            // and the static shared array of reduceSum by its demangled short name.
            let table = p.variable(p.variables_named("table")[0]);
            assert_eq!(
                &table.init.as_ref().expect("table is initialised").bytes[..8],
                &[1, 0, 0, 0, 2, 0, 0, 0],
                "{what}"
            );
            let counter_ptr = p.variable(p.variables_named("counterPtr")[0]);
            assert_eq!(
                counter_ptr.init.as_ref().map(|i| i.relocations.len()),
                Some(1),
                "{what}"
            );
            assert!(
                p.dynamic_shared().count() >= 1,
                "{what}: no dynamic shared memory"
            );
            let sdata = p.variables_named("sdata");
            assert_eq!(sdata.len(), 1, "{what}");
            assert_eq!(p.variable(sdata[0]).size, Some(1024), "{what}");
            assert!(
                p.function_by_name("vprintf")
                    .is_some_and(|f| p.function(f).body.is_none()),
                "{what}"
            );

            // Instructions of interest.
            let reduce = ops_of(&p, "reduceSum");
            assert!(
                reduce.iter().any(|o| matches!(o, Op::Barrier { .. })),
                "{what}: reduceSum has no barrier"
            );
            let rs = p
                .function(p.function_by_name("reduceSum").unwrap())
                .body
                .as_ref()
                .unwrap();
            assert!(!rs.loops.loops.is_empty(), "{what}: reduceSum has no loop");
            let in_loop_barrier = rs.insts.iter().any(|(i, inst)| {
                matches!(inst.op, Op::Barrier { .. })
                    && rs
                        .loops
                        .depth(rs.inst_block[warpcheck_ir::EntityRef::index(i)])
                        > 0
            });
            assert!(in_loop_barrier, "{what}: reduceSum's loop has no barrier");
            let warp = ops_of(&p, "warpAndDynamicShared");
            assert!(
                warp.iter().any(|o| matches!(o, Op::ShflSync { .. })),
                "{what}: no shfl.sync"
            );
            assert!(
                warp.iter().any(|o| matches!(o, Op::VoteSync { .. })),
                "{what}: no vote.sync"
            );
            let atomics = ops_of(&p, "atomicsAndMath");
            assert!(
                atomics
                    .iter()
                    .filter(|o| matches!(o, Op::Atom { .. }))
                    .count()
                    >= 5,
                "{what}: atomics missing"
            );
            let spin = p
                .function(p.function_by_name("spinWait").unwrap())
                .body
                .as_ref()
                .unwrap();
            assert!(
                spin.insts.values().any(|i| matches!(
                    i.op,
                    Op::Ld {
                        order: Some(warpcheck_ir::modifiers::MemOrder::Volatile),
                        ..
                    }
                )),
                "{what}: no volatile load"
            );
            // Source locations point into the .cu file.
            let located = vec_add
                .body
                .as_ref()
                .unwrap()
                .inst_locs
                .iter()
                .flatten()
                .filter(|l| p.files.path(l.file).ends_with("kernels.cu"))
                .count();
            assert!(located > 0, "{what}: no locations in kernels.cu");
        }
    }
}

#[test]
fn corpus_kernels_lower_at_o0_and_o3() {
    let clangs = clangs();
    if clangs.is_empty() {
        eprintln!("note: no clang found; skipping the corpus test");
        return;
    }
    let corpus = repo_root().join("tests/kernels");
    let mut sources: Vec<PathBuf> = match std::fs::read_dir(&corpus) {
        Ok(d) => d
            .filter_map(|e| e.ok().map(|e| e.path()))
            .filter(|p| p.extension().is_some_and(|e| e == "cu"))
            .collect(),
        Err(_) => {
            eprintln!("note: no kernel corpus at {}; skipping", corpus.display());
            return;
        }
    };
    sources.sort();
    if std::env::var_os("WARPCHECK_FULL_CORPUS").is_none() {
        // A representative sample; the full corpus takes minutes.
        let sample = [
            "matmul_tiled.cu",
            "reduce_warp_shuffle.cu",
            "histogram_shared_atomics.cu",
            "half_precision.cu",
            "scan_blelloch.cu",
        ];
        sources.retain(|p| {
            p.file_name()
                .is_some_and(|n| sample.iter().any(|s| n == *s))
        });
        eprintln!(
            "note: lowering {} corpus kernels; set WARPCHECK_FULL_CORPUS=1 for all",
            sources.len()
        );
    }
    let dir = tempfile::tempdir().expect("temp dir");
    for source in &sources {
        for clang in &clangs {
            for opt in ["-O0", "-O3"] {
                let name = source
                    .file_stem()
                    .and_then(|s| s.to_str())
                    .unwrap_or("kernel");
                let out = dir.path().join(format!("{name}-{clang}{opt}.ptx"));
                let text = compile(clang, source, opt, &out).unwrap_or_else(|e| panic!("{e}"));
                let p = lower_ptx(&text, &format!("{name} ({clang} {opt})"));
                assert!(p.kernels().count() > 0, "{name}: no kernels");
            }
        }
    }
}
