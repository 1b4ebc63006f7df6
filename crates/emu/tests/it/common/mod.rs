//! Test helpers: compile a corpus kernel with clang, lower it, lay out its parameters,
//! and move buffers in and out of the emulator's memory.
#![allow(dead_code)]

use std::path::PathBuf;

use warpcheck_emu::{GlobalMemory, LaunchConfig, RunOutcome, run};
use warpcheck_front::{CompileOptions, CompilerChoice};
use warpcheck_ir::symbols::VarRole;
use warpcheck_ir::{FuncId, Program};

pub fn corpus(file: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../../tests/kernels")
        .canonicalize()
        .expect("tests/kernels")
        .join(file)
}

/// Compiles a corpus file (or any path) at the given optimisation level and lowers it.
pub fn compile(file: &str, opt: u8) -> Program {
    compile_with(file, opt, &[])
}

pub fn compile_with(file: &str, opt: u8, defines: &[&str]) -> Program {
    let path = if file.contains('/') {
        PathBuf::from(file)
    } else {
        corpus(file)
    };
    let options = CompileOptions {
        opt_level: opt,
        compiler: CompilerChoice::Clang,
        defines: defines.iter().map(|d| d.to_string()).collect(),
        ..CompileOptions::default()
    };
    let module = warpcheck_front::compile(&path, &options)
        .unwrap_or_else(|e| panic!("compiling {file}: {e}"));
    lower_ptx(&module.ptx)
}

pub fn lower_ptx(ptx: &str) -> Program {
    let parsed = warpcheck_ptx::parse(ptx);
    assert!(
        parsed.errors.is_empty(),
        "parse errors: {:?}",
        parsed.errors
    );
    warpcheck_ir::lower(&parsed.module).unwrap_or_else(|e| panic!("lowering: {e:?}"))
}

pub fn kernel(program: &Program, name: &str) -> FuncId {
    program
        .kernels()
        .find(|&k| {
            let f = program.function(k);
            f.name == name || f.display_name() == name
        })
        .unwrap_or_else(|| panic!("no kernel {name}"))
}

/// A kernel argument.
#[derive(Clone, Copy, Debug)]
pub enum A {
    Ptr(u64),
    I32(i32),
    U32(u32),
    F32(f32),
    F64(f64),
    I64(i64),
}

/// The parameter block: each argument at its parameter's offset.
pub fn params(program: &Program, k: FuncId, args: &[A]) -> Vec<u8> {
    let f = program.function(k);
    assert_eq!(f.params.len(), args.len(), "argument count of {}", f.name);
    let mut out = vec![0u8; f.param_space_size as usize];
    for (&p, a) in f.params.iter().zip(args) {
        let VarRole::Param { offset, .. } = program.variable(p).role else {
            panic!()
        };
        let bytes: Vec<u8> = match *a {
            A::Ptr(x) => x.to_le_bytes().to_vec(),
            A::I32(x) => x.to_le_bytes().to_vec(),
            A::U32(x) => x.to_le_bytes().to_vec(),
            A::F32(x) => x.to_le_bytes().to_vec(),
            A::F64(x) => x.to_le_bytes().to_vec(),
            A::I64(x) => x.to_le_bytes().to_vec(),
        };
        out[offset as usize..offset as usize + bytes.len()].copy_from_slice(&bytes);
    }
    out
}

pub fn buf_f32(m: &mut GlobalMemory, v: &[f32]) -> u64 {
    let a = m.alloc((v.len() * 4).max(1) as u64, true).unwrap();
    let bytes: Vec<u8> = v.iter().flat_map(|x| x.to_le_bytes()).collect();
    m.write(a, &bytes).unwrap();
    a
}

pub fn buf_u32(m: &mut GlobalMemory, v: &[u32]) -> u64 {
    let a = m.alloc((v.len() * 4).max(1) as u64, true).unwrap();
    let bytes: Vec<u8> = v.iter().flat_map(|x| x.to_le_bytes()).collect();
    m.write(a, &bytes).unwrap();
    a
}

pub fn buf_bytes(m: &mut GlobalMemory, v: &[u8]) -> u64 {
    let a = m.alloc(v.len().max(1) as u64, true).unwrap();
    m.write(a, v).unwrap();
    a
}

pub fn read_f32(m: &GlobalMemory, a: u64, n: usize) -> Vec<f32> {
    m.read(a, n as u64 * 4)
        .unwrap()
        .chunks(4)
        .map(|c| f32::from_le_bytes(c.try_into().unwrap()))
        .collect()
}

pub fn read_u32(m: &GlobalMemory, a: u64, n: usize) -> Vec<u32> {
    m.read(a, n as u64 * 4)
        .unwrap()
        .chunks(4)
        .map(|c| u32::from_le_bytes(c.try_into().unwrap()))
        .collect()
}

pub fn read_f64(m: &GlobalMemory, a: u64, n: usize) -> Vec<f64> {
    m.read(a, n as u64 * 8)
        .unwrap()
        .chunks(8)
        .map(|c| f64::from_le_bytes(c.try_into().unwrap()))
        .collect()
}

/// Deterministic pseudo-random floats in [0, 1).
pub fn rand_f32(n: usize, seed: u64) -> Vec<f32> {
    let mut s = seed.wrapping_mul(0x9e37_79b9_7f4a_7c15) | 1;
    (0..n)
        .map(|_| {
            s ^= s << 13;
            s ^= s >> 7;
            s ^= s << 17;
            (s >> 40) as f32 / (1u64 << 24) as f32
        })
        .collect()
}

pub fn config(grid: [u32; 3], block: [u32; 3]) -> LaunchConfig {
    LaunchConfig::new(grid, block)
}

/// Runs and asserts that no fault happened.
pub fn run_clean(
    p: &Program,
    k: FuncId,
    params: &[u8],
    m: &mut GlobalMemory,
    c: &LaunchConfig,
) -> RunOutcome {
    let out = run(p, k, params, m, c).unwrap_or_else(|e| panic!("run failed: {e}"));
    assert!(
        out.faults.is_empty(),
        "faults: {:?}",
        out.faults
            .iter()
            .map(|f| f.kind.to_string())
            .collect::<Vec<_>>()
    );
    out
}

/// Asserts that two float slices agree within a relative tolerance.
pub fn assert_close(got: &[f32], want: &[f32], rel: f32) {
    assert_eq!(got.len(), want.len());
    for (i, (g, w)) in got.iter().zip(want).enumerate() {
        let tol = rel * w.abs().max(1.0);
        assert!((g - w).abs() <= tol, "element {i}: got {g}, want {w}");
    }
}
