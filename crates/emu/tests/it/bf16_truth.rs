//! The bf16 and FP8 conversions and the bf16 arithmetic against a real GPU, bit for bit.
//!
//! `tests/gpu-truth/new-instructions.tsv` holds what an sm_90 GPU computed (made by
//! `bash tools/gpu/new_instructions.sh` on the GPU machine from
//! `tools/gpu/new_instructions.cu`). Each row is
//! `op <TAB> signature <TAB> a <TAB> b <TAB> c <TAB> d`: the PTX instruction, its operand
//! widths (`D:S,S,...`, `h` = 16-bit, `r` = 32-bit), the source bit patterns (`-` when
//! unused) and the GPU's result, in hex. The test runs every row's instruction in the
//! emulator (one thread per row, one kernel per instruction) and compares the results bit
//! for bit. Without the file the test says so and passes.

use crate::common;

use std::collections::BTreeMap;
use std::path::PathBuf;

use common::*;
use warpcheck_emu::{GlobalMemory, LaunchConfig, run};

/// The rows of one instruction.
#[derive(Default)]
struct Rows {
    signature: String,
    src: [Vec<u32>; 3],
    want: Vec<u32>,
}

fn hex(s: &str) -> u32 {
    if s == "-" {
        0
    } else {
        u32::from_str_radix(s, 16).unwrap_or_else(|e| panic!("bad hex `{s}`: {e}"))
    }
}

fn parse(text: &str) -> BTreeMap<String, Rows> {
    let mut by_op: BTreeMap<String, Rows> = BTreeMap::new();
    for line in text
        .lines()
        .filter(|l| !l.starts_with('#') && !l.is_empty())
    {
        let f: Vec<&str> = line.split('\t').collect();
        assert_eq!(f.len(), 6, "row `{line}`");
        let rows = by_op.entry(f[0].to_string()).or_default();
        rows.signature = f[1].to_string();
        for i in 0..3 {
            rows.src[i].push(hex(f[2 + i]));
        }
        rows.want.push(hex(f[5]));
    }
    by_op
}

/// A kernel `k(a, b, c, d, n)` whose thread `i` loads `a[i]`, `b[i]`, `c[i]` (u32), runs
/// `op` on them with the operand widths of `signature`, and stores the result to `d[i]`.
fn kernel_ptx(op: &str, signature: &str) -> String {
    let (dst, srcs) = signature.split_once(':').expect("signature D:S,...");
    let srcs: Vec<&str> = srcs.split(',').collect();
    let mut body = String::new();
    let mut args = Vec::new();
    for (i, kind) in srcs.iter().enumerate() {
        body += &format!(
            " add.s64 %rd{r}, %rd{p}, %rd9;\n ld.global.u32 %r{v}, [%rd{r}];\n",
            r = 10 + i,
            p = 1 + i,
            v = 10 + i
        );
        if *kind == "h" {
            body += &format!(" cvt.u16.u32 %h{i}, %r{};\n", 10 + i);
            args.push(format!("%h{i}"));
        } else {
            args.push(format!("%r{}", 10 + i));
        }
    }
    let (d, widen) = if dst == "h" {
        ("%h7", " cvt.u32.u16 %r20, %h7;\n")
    } else {
        ("%r20", "")
    };
    format!(
        ".version 8.0\n.target sm_90\n.address_size 64\n\
         .visible .entry k(.param .u64 pa, .param .u64 pb, .param .u64 pc, .param .u64 pd, .param .u32 n) {{\n\
         .reg .pred %p<2>;\n .reg .b16 %h<8>;\n .reg .b32 %r<24>;\n .reg .b64 %rd<16>;\n\
         ld.param.u64 %rd1, [pa];\n ld.param.u64 %rd2, [pb];\n ld.param.u64 %rd3, [pc];\n ld.param.u64 %rd4, [pd];\n\
         ld.param.u32 %r1, [n];\n mov.u32 %r2, %ctaid.x;\n mov.u32 %r3, %ntid.x;\n mov.u32 %r4, %tid.x;\n\
         mad.lo.s32 %r5, %r2, %r3, %r4;\n setp.ge.u32 %p1, %r5, %r1;\n @%p1 bra DONE;\n\
         mul.wide.u32 %rd9, %r5, 4;\n{body} {op} {d}, {args};\n{widen}\
         add.s64 %rd15, %rd4, %rd9;\n st.global.u32 [%rd15], %r20;\nDONE:\n ret;\n}}\n",
        args = args.join(", ")
    )
}

/// Runs the rows of `op` in the emulator and returns its results.
fn emulate(op: &str, rows: &Rows) -> Vec<u32> {
    let p = lower_ptx(&kernel_ptx(op, &rows.signature));
    let k = kernel(&p, "k");
    let n = rows.want.len();
    let mut m = GlobalMemory::new();
    let bufs: Vec<u64> = rows.src.iter().map(|v| buf_u32(&mut m, v)).collect();
    let d = buf_u32(&mut m, &vec![0; n]);
    let args = [
        A::Ptr(bufs[0]),
        A::Ptr(bufs[1]),
        A::Ptr(bufs[2]),
        A::Ptr(d),
        A::U32(n as u32),
    ];
    let c = LaunchConfig::new([n.div_ceil(128) as u32, 1, 1], [128, 1, 1]);
    let o = run(&p, k, &params(&p, k, &args), &mut m, &c).unwrap_or_else(|e| panic!("`{op}`: {e}"));
    assert!(o.faults.is_empty(), "`{op}`: faults");
    read_u32(&m, d, n)
}

/// Every mismatch of `op`, as readable lines.
fn mismatches(op: &str, rows: &Rows) -> Vec<String> {
    let got = emulate(op, rows);
    let mut out = Vec::new();
    for (i, (&g, &w)) in got.iter().zip(&rows.want).enumerate() {
        if g != w {
            out.push(format!(
                "{op} a={:08x} b={:08x} c={:08x}: emulator {g:08x}, GPU {w:08x}",
                rows.src[0][i], rows.src[1][i], rows.src[2][i]
            ));
        }
    }
    out
}

fn check(text: &str) -> (usize, Vec<String>) {
    let by_op = parse(text);
    let mut bad = Vec::new();
    let mut total = 0;
    for (op, rows) in &by_op {
        total += rows.want.len();
        bad.extend(mismatches(op, rows));
    }
    (total, bad)
}

#[test]
fn emulator_matches_the_gpu_bit_for_bit() {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../../tests/gpu-truth/new-instructions.tsv");
    let Ok(text) = std::fs::read_to_string(&path) else {
        eprintln!(
            "skipped: {} does not exist (make it with tools/gpu/new_instructions.sh on a GPU machine)",
            path.display()
        );
        return;
    };
    let (total, bad) = check(&text);
    assert!(total > 0, "no rows in {}", path.display());
    assert!(
        bad.is_empty(),
        "{} of {total} results differ from the GPU's:\n{}",
        bad.len(),
        bad.iter().take(40).cloned().collect::<Vec<_>>().join("\n")
    );
}

/// The harness itself, on hand-computed rows: the conversions of 1.0, a bf16 rounding tie,
/// FP8 saturation and NaN, and a wrong expectation that must be reported.
#[test]
fn harness_reports_matches_and_mismatches() {
    let text = "# hand-made\n\
        cvt.rn.bf16.f32\th:r\t3f800000\t-\t-\t00003f80\n\
        cvt.rn.bf16.f32\th:r\t3f818000\t-\t-\t00003f82\n\
        cvt.rn.satfinite.e4m3x2.f32\th:r,r\t7f800000\t7fc00000\t-\t00007e7f\n\
        cvt.rn.f16x2.e5m2x2\tr:h\t00003cc0\t-\t-\t3c00c000\n\
        fma.rn.bf16\th:h,h,h\t3f80\t4000\t3f80\t00004040\n\
        add.rn.bf16x2\tr:r,r\t3f804000\t3f803f80\t-\t40004040\n\
        mul.rn.bf16\th:h,h\t4000\t4000\t-\t00004000\n";
    let (total, bad) = check(text);
    assert_eq!(total, 7);
    assert_eq!(bad.len(), 1, "{bad:?}");
    assert!(bad[0].starts_with("mul.rn.bf16 a=00004000"), "{bad:?}");
    assert!(bad[0].contains("emulator 00004080"), "{bad:?}");
}
