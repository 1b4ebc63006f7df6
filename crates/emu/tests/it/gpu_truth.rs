//! The corpus against a real GPU: every `tests/kernels/*.cu` with GPU outputs in
//! `tests/gpu-truth/` (NVIDIA H200, CUDA 13.0, nvcc -O3; see its README) is compiled with
//! clang at -O3 and -O0, its `warpcheck-launch:` lines run in the emulator with the same
//! arguments (bound as `warpcheck run` binds them, seed 0), and every buffer is compared
//! with the GPU's: integers exactly, floats within a small relative tolerance (nvcc and
//! clang order and contract float operations differently).
//!
//! Files whose header says `warpcheck-expect: findings` hold planted bugs (races, faults,
//! deadlocks); for them the test only checks that the emulator runs them without an
//! emulator error.

use crate::common;

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use common::lower_ptx;
use warpcheck_corpus::{Expect, KernelFile};
use warpcheck_emu::args::{ArgSpec, ElemType, Limits, Number, materialize, parse_arg};
use warpcheck_emu::{GlobalMemory, LaunchConfig, Scheduling, run};
use warpcheck_front::{CompileOptions, CompilerChoice};
use warpcheck_ir::symbols::VarRole;
use warpcheck_ir::{FuncId, Program};

fn find_kernel(program: &Program, name: &str) -> Option<FuncId> {
    let base = name.split('<').next().unwrap_or(name);
    let candidates: Vec<FuncId> = program
        .kernels()
        .filter(|&k| {
            let f = program.function(k);
            f.name == name
                || f.display_name() == name
                || f.demangled.as_ref().is_some_and(|d| {
                    d.full.starts_with(&format!("{name}("))
                        || d.full.starts_with(&format!("void {name}("))
                })
        })
        .collect();
    if let [one] = candidates.as_slice() {
        return Some(*one);
    }
    let by_base: Vec<FuncId> = program
        .kernels()
        .filter(|&k| program.function(k).display_name().starts_with(base))
        .collect();
    by_base.first().copied()
}

fn encode_scalar(ty: &str, size: u64, n: Number) -> Vec<u8> {
    let elem = match (ty.chars().next(), size) {
        (Some('f'), 4) => ElemType::F32,
        (Some('f'), 8) => ElemType::F64,
        (Some('f'), 2) => ElemType::F16,
        (Some('s'), 4) => ElemType::I32,
        (Some('s'), 8) => ElemType::I64,
        (_, 1) => ElemType::U8,
        (_, 2) => ElemType::U16,
        (_, 8) => ElemType::U64,
        _ => ElemType::U32,
    };
    let n = match (n, elem) {
        (Number::Int(i), ElemType::U8 | ElemType::U16 | ElemType::U32 | ElemType::U64) if i < 0 => {
            Number::Int(i.rem_euclid(1i128 << (elem.size() * 8)))
        }
        // An integer literal for a float parameter.
        (Number::Int(i), ElemType::F32 | ElemType::F64) => Number::Float(i as f64),
        _ => n,
    };
    let mut out = Vec::new();
    elem.encode(n, &mut out).unwrap();
    out
}

struct Buffer {
    elem: ElemType,
    addr: u64,
    len: usize,
}

/// Runs the file's launches; returns the buffers by name, or an error message.
fn run_file(
    path: &Path,
    opt: u8,
    scheduling: Scheduling,
    threads: usize,
) -> Result<(HashMap<String, Buffer>, GlobalMemory, String), String> {
    run_file_as(path, None, opt, scheduling, threads)
}

/// Compilations shared by the tests of this file (several run the same file at the
/// same optimisation level; clang dominates their time).
fn compiled(
    path: &Path,
    options: &CompileOptions,
) -> Result<
    (
        std::sync::Arc<warpcheck_front::CompiledModule>,
        std::sync::Arc<Program>,
    ),
    String,
> {
    type Cache = std::sync::Mutex<
        HashMap<
            (PathBuf, u8),
            (
                std::sync::Arc<warpcheck_front::CompiledModule>,
                std::sync::Arc<Program>,
            ),
        >,
    >;
    static CACHE: std::sync::OnceLock<Cache> = std::sync::OnceLock::new();
    let cache = CACHE.get_or_init(Default::default);
    let key = (path.to_path_buf(), options.opt_level);
    if let Some(hit) = cache.lock().unwrap().get(&key) {
        return Ok(hit.clone());
    }
    let module = warpcheck_front::compile(path, options).map_err(|e| format!("compile: {e}"))?;
    let program = lower_ptx(&module.ptx);
    let entry = (std::sync::Arc::new(module), std::sync::Arc::new(program));
    cache.lock().unwrap().insert(key, entry.clone());
    Ok(entry)
}

/// Runs the launches of `path` on the PTX file `ptx` (nvcc's) if given, else on clang's.
fn run_file_as(
    path: &Path,
    ptx: Option<&Path>,
    opt: u8,
    scheduling: Scheduling,
    threads: usize,
) -> Result<(HashMap<String, Buffer>, GlobalMemory, String), String> {
    let launches = KernelFile::read(path)
        .unwrap_or_else(|e| panic!("{e}"))
        .launches;
    let options = CompileOptions {
        opt_level: opt,
        compiler: CompilerChoice::Clang,
        ..CompileOptions::default()
    };
    let (module, program) = compiled(ptx.unwrap_or(path), &options)?;
    let mut memory = GlobalMemory::new();
    let mut buffers: HashMap<String, Buffer> = HashMap::new();
    let mut printf = String::new();
    for l in &launches {
        let k = find_kernel(&program, l.kernel_name())
            .ok_or(format!("no kernel {}", l.kernel_name()))?;
        let sig = module
            .signatures
            .iter()
            .find(|s| s.mangled_name == program.function(k).name);
        let f = program.function(k);
        let args: Vec<_> = l.args.iter().map(|a| parse_arg(a).unwrap()).collect();
        let mut scalars = HashMap::new();
        for a in &args {
            if let ArgSpec::Scalar(n) = a.spec {
                scalars.insert(a.name.clone(), n);
            }
        }
        let mut block = vec![0u8; f.param_space_size as usize];
        for (i, &p) in f.params.iter().enumerate() {
            let var = program.variable(p);
            let VarRole::Param { offset, .. } = var.role else {
                continue;
            };
            let name = sig
                .and_then(|s| s.params.get(i))
                .map_or(format!("arg{i}"), |p| p.name.clone());
            // By name; PTX-only signatures (nvcc's PTX) name parameters argN, and the
            // launch lines give arguments in declaration order.
            let Some(arg) = args.iter().find(|a| a.name == name).or(args.get(i)) else {
                return Err(format!("no argument for parameter {name}"));
            };
            let name = arg.name.clone();
            let bytes = match &arg.spec {
                ArgSpec::Scalar(n) => encode_scalar(&var.ty.to_string(), var.size.unwrap_or(4), *n),
                ArgSpec::Buffer { elem, len, init } => {
                    let addr = match buffers.get(&name) {
                        Some(b) => b.addr,
                        None => {
                            let v = materialize(
                                &name,
                                *elem,
                                len.as_ref(),
                                init,
                                &scalars,
                                0,
                                Limits::default(),
                            )?;
                            let a = memory
                                .alloc(v.bytes.len().max(1) as u64, v.initialized)
                                .unwrap();
                            memory.write(a, &v.bytes).unwrap();
                            buffers.insert(
                                name.clone(),
                                Buffer {
                                    elem: *elem,
                                    addr: a,
                                    len: v.len,
                                },
                            );
                            a
                        }
                    };
                    addr.to_le_bytes().to_vec()
                }
            };
            let at = offset as usize;
            block[at..at + bytes.len()].copy_from_slice(&bytes);
        }
        let mut config = LaunchConfig::new(l.grid.0, l.block.0);
        config.dynamic_shared = l.shared;
        config.threads = threads;
        config.scheduling = scheduling;
        config.budget = 2_000_000;
        let out = run(&program, k, &block, &mut memory, &config).map_err(|e| format!("{e}"))?;
        printf.push_str(&out.printf);
        if let Some(fault) = out.faults.first() {
            let loc = fault.source.map(|s| s.line).unwrap_or(0);
            printf.push_str(&format!("FAULT: {} at line {loc}\n", fault.kind));
        }
    }
    Ok((buffers, memory, printf))
}

fn compare(name: &str, b: &Buffer, got: &[u8], want: &[u8]) -> Result<(), String> {
    if got.len() != want.len() {
        return Err(format!(
            "{name}: {} bytes, GPU has {}",
            got.len(),
            want.len()
        ));
    }
    let size = b.elem.size();
    let mut bad = 0;
    let mut first = String::new();
    for i in 0..b.len {
        let (g, w) = (
            &got[i * size..(i + 1) * size],
            &want[i * size..(i + 1) * size],
        );
        let ok = match b.elem {
            ElemType::F32 => {
                let (g, w) = (
                    f32::from_le_bytes(g.try_into().unwrap()),
                    f32::from_le_bytes(w.try_into().unwrap()),
                );
                g == w || (g.is_nan() && w.is_nan()) || (g - w).abs() <= 2e-4 * w.abs().max(1e-3)
            }
            ElemType::F64 => {
                let (g, w) = (
                    f64::from_le_bytes(g.try_into().unwrap()),
                    f64::from_le_bytes(w.try_into().unwrap()),
                );
                g == w || (g.is_nan() && w.is_nan()) || (g - w).abs() <= 1e-9 * w.abs().max(1e-6)
            }
            ElemType::F16 => {
                let (g, w) = (
                    half::f16::from_le_bytes(g.try_into().unwrap()).to_f32(),
                    half::f16::from_le_bytes(w.try_into().unwrap()).to_f32(),
                );
                g == w || (g - w).abs() <= 2e-3 * w.abs().max(1e-2)
            }
            _ => g == w,
        };
        if !ok {
            if bad == 0 {
                first = format!("element {i}: got {g:?}, GPU {w:?}");
            }
            bad += 1;
        }
    }
    if bad > 0 {
        Err(format!(
            "{name}: {bad} of {} elements differ ({first})",
            b.len
        ))
    } else {
        Ok(())
    }
}

fn truth_dirs() -> Vec<PathBuf> {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../tests/gpu-truth");
    let mut dirs: Vec<PathBuf> = std::fs::read_dir(&root)
        .unwrap()
        .filter_map(|e| e.ok())
        .map(|e| e.path())
        .filter(|p| p.is_dir())
        .collect();
    dirs.sort();
    dirs
}

fn check_all(opt: u8, scheduling: Scheduling) {
    check_all_as(opt, scheduling, false)
}

fn check_all_as(opt: u8, scheduling: Scheduling, nvcc: bool) {
    let only = std::env::var("WARPCHECK_ONLY").ok();
    let mut failures = Vec::new();
    let mut compared = 0;
    let mut identical = 0;
    for dir in truth_dirs() {
        let stem = dir.file_name().unwrap().to_string_lossy().to_string();
        if only.as_ref().is_some_and(|o| !stem.contains(o.as_str())) {
            continue;
        }
        let src = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
            .join("../../tests/kernels")
            .canonicalize()
            .expect("tests/kernels")
            .join(format!("{stem}.cu"));
        let clean = KernelFile::read(&src)
            .unwrap_or_else(|e| panic!("{e}"))
            .expect
            == Some(Expect::Clean);
        let status = std::fs::read_to_string(dir.join("status.txt")).unwrap_or_default();
        let ptx = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
            .join("../../tests/nvcc-ptx")
            .join(format!("{stem}.ptx"));
        let result = if nvcc {
            run_file_as(&src, Some(&ptx), opt, scheduling, 2)
        } else {
            run_file(&src, opt, scheduling, 2)
        };
        match result {
            Err(e) => failures.push(format!("{stem} -O{opt}: {e}")),
            Ok((buffers, memory, printf)) => {
                if !clean {
                    continue;
                }
                if printf.contains("FAULT:") {
                    failures.push(format!(
                        "{stem} -O{opt}: {}",
                        printf.lines().find(|l| l.contains("FAULT")).unwrap_or("")
                    ));
                    continue;
                }
                let expected_printf = status
                    .strip_suffix("ok\n")
                    .or(status.strip_suffix("ok"))
                    .unwrap_or("");
                if !expected_printf.is_empty() && printf != expected_printf {
                    failures.push(format!("{stem} -O{opt}: printf output differs:\n--- emulator\n{printf}--- GPU\n{expected_printf}"));
                }
                let list = std::fs::read_to_string(dir.join("buffers.txt")).unwrap();
                for line in list.lines() {
                    let parts: Vec<&str> = line.split_whitespace().collect();
                    let [index, name, ..] = parts.as_slice() else {
                        continue;
                    };
                    let Some(b) = buffers.get(*name) else {
                        failures.push(format!("{stem}: no buffer {name}"));
                        continue;
                    };
                    let want = std::fs::read(dir.join(format!("buffer{index}.bin"))).unwrap();
                    let got = memory.read(b.addr, (b.len * b.elem.size()) as u64).unwrap();
                    compared += 1;
                    if got == want {
                        identical += 1;
                    } else if std::env::var("WARPCHECK_SHOW_INEXACT").is_ok() {
                        eprintln!("inexact: {stem} {name}");
                    }
                    if let Err(e) = compare(name, b, &got, &want) {
                        failures.push(format!("{stem} -O{opt}: {e}"));
                    }
                }
            }
        }
    }
    eprintln!(
        "-O{opt}: {compared} buffers compared, {identical} bit-identical, {} failures",
        failures.len()
    );
    assert!(
        failures.is_empty(),
        "{} failures ({compared} buffers compared):\n{}",
        failures.len(),
        failures.join("\n")
    );
}

#[test]
fn corpus_matches_gpu_at_o3() {
    check_all(3, Scheduling::LockStep);
}

#[test]
fn corpus_matches_gpu_at_o0() {
    check_all(0, Scheduling::LockStep);
}

/// nvcc's own PTX (`tests/nvcc-ptx`, nvcc 13.0 -O3 sm_80: what the GPU ran, before
/// ptxas) gives the GPU's outputs too.
#[test]
fn nvcc_ptx_matches_gpu() {
    check_all_as(3, Scheduling::LockStep, true);
    check_all_as(3, Scheduling::Independent { seed: 5 }, true);
}

/// Correct kernels give the GPU's output under any interleaving of warps and divergent
/// paths.
#[test]
fn corpus_matches_gpu_with_independent_scheduling() {
    check_all(3, Scheduling::Independent { seed: 7 });
}

/// The same seed gives the same outputs, printf text and faults with one or two host
/// threads, for the racy kernels too (their races are within blocks).
#[test]
fn runs_are_deterministic_across_host_threads_and_repeatable_per_seed() {
    let files = [
        "histogram_bug_nonatomic",
        "reduce_shared_bug_missing_sync",
        "printf_debug",
        "scan_hillis_steele_bug_in_place",
        "reduce_warp_sync_bug_no_syncwarp",
    ];
    for stem in files {
        let src = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
            .join("../../tests/kernels")
            .join(format!("{stem}.cu"));
        for scheduling in [Scheduling::LockStep, Scheduling::Independent { seed: 3 }] {
            let snapshot = |threads| {
                let (buffers, memory, printf) = run_file(&src, 3, scheduling, threads).unwrap();
                let mut names: Vec<&String> = buffers.keys().collect();
                names.sort();
                let bytes: Vec<Vec<u8>> = names
                    .iter()
                    .map(|n| {
                        let b = &buffers[*n];
                        memory.read(b.addr, (b.len * b.elem.size()) as u64).unwrap()
                    })
                    .collect();
                (bytes, printf)
            };
            let one = snapshot(1);
            assert_eq!(
                one,
                snapshot(2),
                "{stem} {scheduling:?}: 1 vs 2 host threads"
            );
            assert_eq!(one, snapshot(2), "{stem} {scheduling:?}: repeated run");
        }
    }
}

/// The OpenCL kernels (no GPU outputs: nvcc does not compile OpenCL) run without faults,
/// and the vector addition adds.
#[test]
fn opencl_kernels_run_cleanly() {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../tests/kernels");
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap()
        .filter_map(|e| e.ok())
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|x| x == "cl"))
        .collect();
    files.sort();
    assert!(files.len() >= 5);
    for file in files {
        for opt in [0, 3] {
            let (buffers, memory, printf) = run_file(&file, opt, Scheduling::LockStep, 2)
                .unwrap_or_else(|e| panic!("{}: {e}", file.display()));
            assert!(
                !printf.contains("FAULT"),
                "{} -O{opt}: {printf}",
                file.display()
            );
            if file.ends_with("vector_add.cl") {
                let read = |n: &str| {
                    let b = &buffers[n];
                    memory
                        .read(b.addr, (b.len * 4) as u64)
                        .unwrap()
                        .chunks(4)
                        .map(|c| f32::from_le_bytes(c.try_into().unwrap()))
                        .collect::<Vec<f32>>()
                };
                let names: Vec<&String> = buffers.keys().collect();
                assert_eq!(names.len(), 3, "{names:?}");
                let (a, b, c) = (read("a"), read("b"), read("c"));
                for i in 0..a.len() {
                    assert_eq!(c[i], a[i] + b[i]);
                }
            }
        }
    }
}
