//! The tensor-core instructions against a real GPU, bit for bit.
//!
//! `tests/gpu-truth/tensor-cores.tsv` holds what an H100 (sm_90) computed, made by
//! `bash tools/gpu/tensor_cores.sh` on the GPU machine from `tools/gpu/tensor_cores.cu`.
//! Its `mma` rows name an instruction, an input class and a seed; the inputs come from
//! the generator in `tensor_truth/inputs.rs`, which repeats the CUDA program's, and the
//! last field is every lane's destination registers. The `ldmatrix`/`stmatrix` rows
//! give the registers (or the shared tile) after the instruction on a fixed tile. This
//! test runs each row's instruction in the emulator (one warp per test) and compares
//! every register bit for bit. The `wmma.load` rows give every lane's fragment
//! registers after loading a matrix whose element at offset `i` holds `i`, and the
//! `wmma` rows the matrix stored after `wmma.load` + `wmma.mma` + `wmma.store` on
//! generated inputs (`tensor_truth/wmma.rs`).

use crate::common;
mod inputs;
mod wmma;

use std::path::PathBuf;

use common::*;
use inputs::{Fmt, Layout};
use warpcheck_emu::{GlobalMemory, LaunchConfig, run};

/// One `mma` row: class, seed and the GPU's registers (hex).
type Row<'a> = (usize, u32, &'a str);

/// One `mma` form of the truth file.
struct Form {
    shape: (usize, usize, usize),
    fmts: (Fmt, Fmt, Fmt),
    layouts: (Layout, Layout, Layout),
    regs: (usize, usize, usize),
}

fn form(ins: &str) -> Option<Form> {
    use Fmt::*;
    use Layout::*;
    let f = |shape, fmts, layouts, regs| {
        Some(Form {
            shape,
            fmts,
            layouts,
            regs,
        })
    };
    let k16 = (AF16K16, BF16K16, C16x8);
    let k8 = (AF16K8, BF16K8, C16x8);
    let s8k32 = (AS8K32, BS8K32, C16x8);
    match ins.strip_prefix("mma.sync.aligned.")? {
        "m16n8k16.row.col.f32.f16.f16.f32" => f((16, 8, 16), (F16, F16, F32), k16, (4, 2, 4)),
        "m16n8k16.row.col.f16.f16.f16.f16" => f((16, 8, 16), (F16, F16, F16), k16, (4, 2, 2)),
        "m16n8k16.row.col.f32.bf16.bf16.f32" => f((16, 8, 16), (Bf16, Bf16, F32), k16, (4, 2, 4)),
        "m16n8k8.row.col.f32.f16.f16.f32" => f((16, 8, 8), (F16, F16, F32), k8, (2, 1, 4)),
        "m16n8k8.row.col.f16.f16.f16.f16" => f((16, 8, 8), (F16, F16, F16), k8, (2, 1, 2)),
        "m16n8k8.row.col.f32.bf16.bf16.f32" => f((16, 8, 8), (Bf16, Bf16, F32), k8, (2, 1, 4)),
        "m16n8k8.row.col.f32.tf32.tf32.f32" => f(
            (16, 8, 8),
            (Tf32, Tf32, F32),
            (ATf32K8, BTf32K8, C16x8),
            (4, 2, 4),
        ),
        "m16n8k4.row.col.f32.tf32.tf32.f32" => f(
            (16, 8, 4),
            (Tf32, Tf32, F32),
            (ATf32K4, BTf32K4, C16x8),
            (2, 1, 4),
        ),
        "m16n8k32.row.col.s32.s8.s8.s32" | "m16n8k32.row.col.satfinite.s32.s8.s8.s32" => {
            f((16, 8, 32), (S8, S8, S32), s8k32, (4, 2, 4))
        }
        "m16n8k32.row.col.s32.u8.u8.s32" => f((16, 8, 32), (U8, U8, S32), s8k32, (4, 2, 4)),
        "m16n8k32.row.col.s32.s8.u8.s32" => f((16, 8, 32), (S8, U8, S32), s8k32, (4, 2, 4)),
        "m16n8k16.row.col.s32.s8.s8.s32" => f(
            (16, 8, 16),
            (S8, S8, S32),
            (AS8K16, BS8K16, C16x8),
            (2, 1, 4),
        ),
        "m8n8k16.row.col.s32.s8.s8.s32" => f(
            (8, 8, 16),
            (S8, S8, S32),
            (AS8M8K16, BS8K16, C8x8),
            (1, 1, 2),
        ),
        "m8n8k4.row.col.f64.f64.f64.f64" => {
            f((8, 8, 4), (F64, F64, F64), (AF64, BF64, C8x8), (1, 1, 2))
        }
        _ => None,
    }
}

/// A kernel `k(a, b, c, d)`: warp `ctaid.x` loads its lanes' fragments (lane-major
/// words), runs `ins` and stores the destination fragment.
fn mma_kernel(ins: &str, regs: (usize, usize, usize), wide: bool) -> String {
    let (na, nb, nc) = regs;
    let (w, t) = if wide { (8, "b64") } else { (4, "b32") };
    let mut body = String::new();
    let mut frag = |name: &str, base: usize, n: usize, load: bool| {
        body += &format!(
            " mul.wide.u32 %rd9, %r3, {};\n add.s64 %rd10, %rd{base}, %rd9;\n",
            n * w
        );
        let regs: Vec<String> = (0..n).map(|i| format!("%{name}{i}")).collect();
        for (i, r) in regs.iter().enumerate() {
            body += &if load {
                format!(" ld.global.{t} {r}, [%rd10+{}];\n", i * w)
            } else {
                format!(" st.global.{t} [%rd10+{}], {r};\n", i * w)
            };
        }
        format!("{{{}}}", regs.join(", "))
    };
    let a = frag("a", 1, na, true);
    let b = frag("b", 2, nb, true);
    let c = frag("c", 3, nc, true);
    let mut tail = String::new();
    let d = {
        let mut f2 = |name: &str, base: usize, n: usize| {
            tail += &format!(
                " mul.wide.u32 %rd9, %r3, {};\n add.s64 %rd10, %rd{base}, %rd9;\n",
                n * w
            );
            let regs: Vec<String> = (0..n).map(|i| format!("%{name}{i}")).collect();
            for (i, r) in regs.iter().enumerate() {
                tail += &format!(" st.global.{t} [%rd10+{}], {r};\n", i * w);
            }
            format!("{{{}}}", regs.join(", "))
        };
        f2("d", 4, nc)
    };
    format!(
        ".version 8.0\n.target sm_90\n.address_size 64\n\
         .visible .entry k(.param .u64 pa, .param .u64 pb, .param .u64 pc, .param .u64 pd) {{\n\
         .reg .b32 %r<8>;\n .reg .b64 %rd<16>;\n .reg .{t} %a<4>;\n .reg .{t} %b<4>;\n .reg .{t} %c<4>;\n .reg .{t} %d<4>;\n\
         ld.param.u64 %rd1, [pa];\n ld.param.u64 %rd2, [pb];\n ld.param.u64 %rd3, [pc];\n ld.param.u64 %rd4, [pd];\n\
         mov.u32 %r1, %ctaid.x;\n mov.u32 %r2, %tid.x;\n mad.lo.s32 %r3, %r1, 32, %r2;\n\
         {body} {ins} {d}, {a}, {b}, {c};\n{tail} ret;\n}}\n"
    )
}

fn words(hex: &str, wide: bool) -> Vec<u32> {
    let n = if wide { 16 } else { 8 };
    let mut out = Vec::new();
    for i in (0..hex.len()).step_by(n) {
        let v = u64::from_str_radix(&hex[i..i + n], 16).expect("hex");
        out.push(v as u32);
        if wide {
            out.push((v >> 32) as u32);
        }
    }
    out
}

/// Runs kernel `ptx` over the byte buffers `inputs` with `grid` warps and returns the
/// output buffer (`out_bytes` bytes).
fn emulate_bytes(ptx: &str, inputs: &[&[u8]], grid: u32, out_bytes: usize) -> Vec<u8> {
    let p = lower_ptx(ptx);
    let k = kernel(&p, "k");
    let mut m = GlobalMemory::new();
    let mut args: Vec<A> = inputs
        .iter()
        .map(|v| A::Ptr(buf_bytes(&mut m, v)))
        .collect();
    let d = buf_bytes(&mut m, &vec![0; out_bytes]);
    args.push(A::Ptr(d));
    let c = LaunchConfig::new([grid, 1, 1], [32, 1, 1]);
    let o = run(&p, k, &params(&p, k, &args), &mut m, &c).unwrap_or_else(|e| panic!("{e}"));
    assert!(o.faults.is_empty(), "faults: {:?}", o.faults);
    m.read(d, out_bytes as u64).unwrap()
}

/// Runs kernel `ptx` over the word buffers `inputs` with `grid` warps and returns the
/// output buffer (`out_words` words).
fn emulate(ptx: &str, inputs: &[&[u32]], grid: u32, out_words: usize) -> Vec<u32> {
    let p = lower_ptx(ptx);
    let k = kernel(&p, "k");
    let mut m = GlobalMemory::new();
    let mut args: Vec<A> = inputs.iter().map(|v| A::Ptr(buf_u32(&mut m, v))).collect();
    let d = buf_u32(&mut m, &vec![0; out_words]);
    args.push(A::Ptr(d));
    let c = LaunchConfig::new([grid, 1, 1], [32, 1, 1]);
    let o = run(&p, k, &params(&p, k, &args), &mut m, &c).unwrap_or_else(|e| panic!("{e}"));
    assert!(o.faults.is_empty(), "faults: {:?}", o.faults);
    read_u32(&m, d, out_words)
}

/// Every mismatch of the `mma` rows of `ins`, as readable lines.
fn check_mma(ins: &str, rows: &[Row]) -> Vec<String> {
    let f = form(ins).unwrap_or_else(|| panic!("no form for `{ins}`"));
    let wide = f.fmts.0 == Fmt::F64;
    let ww = if wide { 2 } else { 1 };
    let (mut a, mut b, mut c) = (Vec::new(), Vec::new(), Vec::new());
    let (m, n, k) = f.shape;
    for &(class, seed, _) in rows {
        let x = inputs::generate(f.shape, f.fmts, class, seed);
        let bf = if ins.contains(".s8.u8.") {
            Fmt::U8
        } else {
            f.fmts.0
        };
        a.extend(inputs::pack(&x.a, k, f.fmts.0, f.layouts.0, f.regs.0));
        b.extend(inputs::pack(&x.b, n, bf, f.layouts.1, f.regs.1));
        c.extend(inputs::pack(&x.c, n, f.fmts.2, f.layouts.2, f.regs.2));
    }
    let _ = m;
    let per = 32 * f.regs.2 * ww;
    let got = emulate(
        &mma_kernel(ins, f.regs, wide),
        &[&a, &b, &c],
        rows.len() as u32,
        rows.len() * per,
    );
    let mut bad = Vec::new();
    for (t, &(class, seed, hex)) in rows.iter().enumerate() {
        let want = words(hex, wide);
        let g = &got[t * per..(t + 1) * per];
        for (i, (&x, &y)) in g.iter().zip(&want).enumerate() {
            if x != y {
                bad.push(format!(
                    "{ins} {} seed {seed}: lane {} word {}: emulator {x:08x}, GPU {y:08x}",
                    inputs::CLASSES[class],
                    i / (f.regs.2 * ww),
                    i % (f.regs.2 * ww)
                ));
            }
        }
    }
    bad
}

/// The `ldmatrix`/`stmatrix` probe of `tools/gpu/tensor_cores.cu`: 32 rows of 8 halves
/// in shared memory, lane `l` giving the address of row `(5l + 3) mod 32`.
fn matrix_kernel(ins: &str) -> (String, usize) {
    let n = ["x1", "x2", "x4"]
        .iter()
        .position(|x| ins.contains(&format!(".{x}.")))
        .map_or(4, |i| 1 << i);
    let regs: Vec<String> = (0..n).map(|i| format!("%v{i}")).collect();
    let frag = format!("{{{}}}", regs.join(", "));
    let load = ins.starts_with("ldmatrix");
    let fill = if load {
        "cvt.u16.u32 %h1, %r4;"
    } else {
        "mov.u16 %h1, 0xffff;"
    };
    let mut op = String::new();
    if load {
        op += &format!(" {ins} {frag}, [%r6];\n");
        for (i, r) in regs.iter().enumerate() {
            op += &format!(" st.global.b32 [%rd3+{}], {r};\n", 4 * i);
        }
    } else {
        for (i, r) in regs.iter().enumerate() {
            op += &format!(
                " shl.b32 %r8, %r2, 3;\n add.s32 %r8, %r8, {};\n add.s32 %r9, %r8, 1;\n shl.b32 %r9, %r9, 16;\n or.b32 {r}, %r8, %r9;\n",
                2 * i
            );
        }
        op += &format!(" {ins} [%r6], {frag};\n bar.warp.sync -1;\n");
        op += " shl.b32 %r10, %r2, 2;\n mov.u32 %r11, tile;\n add.s32 %r11, %r11, %r10;\n";
        op += " ld.shared.b32 %r12, [%r11];\n ld.shared.b32 %r13, [%r11+128];\n ld.shared.b32 %r14, [%r11+256];\n ld.shared.b32 %r15, [%r11+384];\n";
        op += " mul.wide.u32 %rd4, %r2, 4;\n add.s64 %rd5, %rd1, %rd4;\n";
        op += " st.global.b32 [%rd5], %r12;\n st.global.b32 [%rd5+128], %r13;\n st.global.b32 [%rd5+256], %r14;\n st.global.b32 [%rd5+384], %r15;\n";
    }
    let ptx = format!(
        ".version 8.0\n.target sm_90\n.address_size 64\n\
         .visible .entry k(.param .u64 pd) {{\n .reg .pred %p<2>;\n .reg .b16 %h<2>;\n .reg .b32 %r<16>;\n .reg .b32 %v<4>;\n .reg .b64 %rd<8>;\n\
         .shared .align 16 .b8 tile[512];\n\
         ld.param.u64 %rd1, [pd];\n mov.u32 %r2, %tid.x;\n mov.u32 %r3, tile;\n mov.u32 %r4, %r2;\n\
         FILL:\n {fill}\n shl.b32 %r5, %r4, 1;\n add.s32 %r5, %r5, %r3;\n st.shared.b16 [%r5], %h1;\n add.s32 %r4, %r4, 32;\n setp.lt.u32 %p1, %r4, 256;\n @%p1 bra FILL;\n\
         bar.warp.sync -1;\n\
         mul.lo.s32 %r6, %r2, 5;\n add.s32 %r6, %r6, 3;\n rem.u32 %r6, %r6, 32;\n shl.b32 %r6, %r6, 4;\n add.s32 %r6, %r6, %r3;\n\
         mul.wide.u32 %rd2, %r2, 16;\n add.s64 %rd3, %rd1, %rd2;\n{op} ret;\n}}\n"
    );
    (ptx, n)
}

fn check_matrix(ins: &str, hex: &str) -> Vec<String> {
    let (ptx, _) = matrix_kernel(ins);
    let got = emulate(&ptx, &[], 1, 128);
    let want = words(hex, false);
    got.iter()
        .zip(&want)
        .enumerate()
        .filter(|(_, (g, w))| g != w)
        .map(|(i, (g, w))| format!("{ins}: word {i}: emulator {g:08x}, GPU {w:08x}"))
        .collect()
}

#[test]
fn emulator_matches_the_gpu_bit_for_bit() {
    // WARPCHECK_TENSOR_TRUTH names another file of the same format (for instance the
    // output of `tools/gpu/tensor_cores.sh OUT 8`, eight times as many mma tests).
    let path = std::env::var_os("WARPCHECK_TENSOR_TRUTH").map_or_else(
        || PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../tests/gpu-truth/tensor-cores.tsv"),
        PathBuf::from,
    );
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let mut by_ins: Vec<(String, Vec<Row>)> = Vec::new();
    let mut bad = Vec::new();
    let mut wmma_rows: Vec<(String, Vec<Row>)> = Vec::new();
    let (mut total, mut loads) = (0, 0);
    for line in text
        .lines()
        .filter(|l| !l.starts_with('#') && !l.is_empty())
    {
        let f: Vec<&str> = line.split('\t').collect();
        assert_eq!(f.len(), 5, "row `{line}`");
        match f[0] {
            "mma" => {
                let class = inputs::CLASSES
                    .iter()
                    .position(|c| *c == f[2])
                    .expect("class");
                let seed: u32 = f[3].parse().expect("seed");
                match by_ins.iter_mut().find(|(i, _)| i == f[1]) {
                    Some((_, v)) => v.push((class, seed, f[4])),
                    None => by_ins.push((f[1].to_string(), vec![(class, seed, f[4])])),
                }
                total += 1;
            }
            "ldmatrix" | "stmatrix" => {
                bad.extend(check_matrix(f[1], f[4]));
                total += 1;
            }
            "wmma.load" => {
                bad.extend(wmma::check_load(f[1], f[4]));
                loads += 1;
            }
            "wmma" => {
                let class = inputs::CLASSES
                    .iter()
                    .position(|c| *c == f[2])
                    .expect("class");
                let seed: u32 = f[3].parse().expect("seed");
                match wmma_rows.iter_mut().find(|(i, _)| i == f[1]) {
                    Some((_, v)) => v.push((class, seed, f[4])),
                    None => wmma_rows.push((f[1].to_string(), vec![(class, seed, f[4])])),
                }
            }
            kind => panic!("row of unknown kind `{kind}`"),
        }
    }
    for (ins, rows) in &by_ins {
        bad.extend(check_mma(ins, rows));
    }
    for (name, rows) in &wmma_rows {
        bad.extend(wmma::check_mma(name, rows));
    }
    let wmma_total: usize = wmma_rows.iter().map(|(_, r)| r.len()).sum();
    eprintln!(
        "{total} mma/ldmatrix/stmatrix rows checked ({} mma forms), {loads} wmma.load rows, \
         {wmma_total} wmma rows ({} forms)",
        by_ins.len(),
        wmma_rows.len()
    );
    assert!(total > 300, "only {total} rows");
    assert_eq!(by_ins.len(), 15, "mma forms");
    assert_eq!(loads, 24, "wmma.load rows");
    assert_eq!(wmma_rows.len(), 9, "wmma forms");
    assert!(
        bad.is_empty(),
        "{} mismatches:\n{}",
        bad.len(),
        bad[..bad.len().min(40)].join("\n")
    );
}
