//! Emulator throughput: vector add over 16M floats and a tiled matmul, in lane-instructions
//! (one PTX instruction executed by one active thread) per second.
//!
//! ```text
//! cargo run --release -p warpcheck-emu --example bench [-- --threads N --size N --opt N --nvcc]
//! ```

use std::path::PathBuf;
use std::time::Instant;

use warpcheck_emu::{GlobalMemory, LaunchConfig, run};
use warpcheck_front::{CompileOptions, CompilerChoice};
use warpcheck_ir::symbols::VarRole;
use warpcheck_ir::{FuncId, Program};

/// Compiles a corpus kernel with clang, or takes nvcc's PTX of it (`--nvcc`).
fn compile(file: &str, opt: u8, nvcc: bool) -> Program {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..");
    let path = if nvcc {
        root.join("tests/nvcc-ptx")
            .join(file.replace(".cu", ".ptx"))
    } else {
        root.join("tests/kernels").join(file)
    };
    let options = CompileOptions {
        opt_level: opt,
        compiler: CompilerChoice::Clang,
        ..CompileOptions::default()
    };
    let module = warpcheck_front::compile(&path, &options).expect("compile");
    let parsed = warpcheck_ptx::parse(&module.ptx);
    warpcheck_ir::lower(&parsed.module).expect("lower")
}

fn kernel(p: &Program, name: &str) -> FuncId {
    p.kernels()
        .find(|&k| p.function(k).display_name() == name)
        .expect("kernel")
}

fn params(p: &Program, k: FuncId, args: &[u64]) -> Vec<u8> {
    let f = p.function(k);
    let mut out = vec![0u8; f.param_space_size as usize];
    for (&v, a) in f.params.iter().zip(args) {
        let var = p.variable(v);
        let VarRole::Param { offset, .. } = var.role else {
            continue;
        };
        let n = var.size.unwrap_or(8) as usize;
        out[offset as usize..offset as usize + n].copy_from_slice(&a.to_le_bytes()[..n]);
    }
    out
}

/// CPU time of the process (user + system) in seconds, from `/proc/self/stat` (Linux),
/// so that a loaded machine does not distort per-core throughput.
fn cpu_seconds() -> Option<f64> {
    let stat = std::fs::read_to_string("/proc/self/stat").ok()?;
    let after = stat.rsplit(')').next()?;
    let fields: Vec<&str> = after.split_whitespace().collect();
    let utime: f64 = fields.get(11)?.parse().ok()?;
    let stime: f64 = fields.get(12)?.parse().ok()?;
    Some((utime + stime) / 100.0)
}

fn report(name: &str, lanes: u64, secs: f64, cpu: Option<f64>) {
    print!(
        "{name:<28} {lanes:>12} lane-instructions in {secs:>6.3} s wall = {:>9.3e}/s",
        lanes as f64 / secs
    );
    if let Some(c) = cpu {
        print!(
            " ({c:.2} CPU s = {:.3e}/s per core)",
            lanes as f64 / c.max(0.01)
        );
    }
    println!();
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let get = |flag: &str, default: u64| -> u64 {
        args.iter()
            .position(|a| a == flag)
            .and_then(|i| args.get(i + 1))
            .and_then(|v| v.parse().ok())
            .unwrap_or(default)
    };
    let threads = get("--threads", 0) as usize;
    let size = get("--size", 512) as u32;
    let opt = get("--opt", 3) as u8;
    let n: u32 = get("--n", 16 << 20) as u32;
    let nvcc = args.iter().any(|a| a == "--nvcc");
    let tag = if nvcc {
        "nvcc".to_string()
    } else {
        format!("-O{opt}")
    };

    // Vector add.
    let p = compile("vector_add.cu", opt, nvcc);
    let k = kernel(&p, "vecAdd");
    let mut m = GlobalMemory::new();
    let bytes = n as u64 * 4;
    let a = m.alloc(bytes, true).unwrap();
    let b = m.alloc(bytes, true).unwrap();
    let c = m.alloc(bytes, true).unwrap();
    let input: Vec<u8> = (0..n).flat_map(|i| (i as f32).to_le_bytes()).collect();
    m.write(a, &input).unwrap();
    m.write(b, &input).unwrap();
    let prm = params(&p, k, &[a, b, c, n as u64]);
    let mut config = LaunchConfig::new([n.div_ceil(256), 1, 1], [256, 1, 1]);
    config.threads = threads;
    let (t, c0) = (Instant::now(), cpu_seconds());
    let out = run(&p, k, &prm, &mut m, &config).expect("run");
    let secs = t.elapsed().as_secs_f64();
    let cpu = c0.and_then(|c| Some(cpu_seconds()? - c));
    assert!(out.faults.is_empty());
    let check = m.read(c + 4 * 12345, 4).unwrap();
    assert_eq!(f32::from_le_bytes(check.try_into().unwrap()), 24690.0);
    report(
        &format!("vector add n={n} {tag}"),
        out.stats.lane_instructions,
        secs,
        cpu,
    );

    // Tiled matmul.
    let p = compile("matmul_tiled.cu", opt, nvcc);
    let k = kernel(&p, "matmulTiled");
    let mut m = GlobalMemory::new();
    let elems = size as u64 * size as u64;
    let ma = m.alloc(elems * 4, true).unwrap();
    let mb = m.alloc(elems * 4, true).unwrap();
    let mc = m.alloc(elems * 4, true).unwrap();
    let ones: Vec<u8> = (0..elems).flat_map(|_| 1.0f32.to_le_bytes()).collect();
    m.write(ma, &ones).unwrap();
    m.write(mb, &ones).unwrap();
    let prm = params(&p, k, &[ma, mb, mc, size as u64]);
    let mut config = LaunchConfig::new([size / 16, size / 16, 1], [16, 16, 1]);
    config.threads = threads;
    let (t, c0) = (Instant::now(), cpu_seconds());
    let out = run(&p, k, &prm, &mut m, &config).expect("run");
    let secs = t.elapsed().as_secs_f64();
    let cpu = c0.and_then(|c| Some(cpu_seconds()? - c));
    assert!(out.faults.is_empty(), "{:?}", out.faults);
    let check = m.read(mc, 4).unwrap();
    assert_eq!(f32::from_le_bytes(check.try_into().unwrap()), size as f32);
    report(
        &format!("tiled matmul {size}^3 {tag}"),
        out.stats.lane_instructions,
        secs,
        cpu,
    );
}
