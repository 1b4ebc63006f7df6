//! The `wmma` rows of the truth file: the fragment registers after `wmma.load` of a
//! matrix whose element at offset `i` holds `i`, and whole `wmma.load` + `wmma.mma` +
//! `wmma.store` sequences on generated inputs (`k_wmma_load` and `k_wmma_mma` of
//! `tools/gpu/tensor_cores.cu`, written here as PTX).

use super::inputs::{self, Fmt};
use super::{emulate_bytes, words};

fn fmt(name: &str) -> Fmt {
    match name {
        "f16" => Fmt::F16,
        "bf16" => Fmt::Bf16,
        "tf32" => Fmt::Tf32,
        "f32" => Fmt::F32,
        "f64" => Fmt::F64,
        "s8" => Fmt::S8,
        "u8" => Fmt::U8,
        "s32" => Fmt::S32,
        _ => panic!("type `{name}`"),
    }
}

/// Bytes of one element in memory (tf32 is stored as f32).
fn esize(f: Fmt) -> usize {
    match f {
        Fmt::F16 | Fmt::Bf16 => 2,
        Fmt::S8 | Fmt::U8 => 1,
        Fmt::F64 => 8,
        _ => 4,
    }
}

/// Registers of a fragment (the counts of PTX ISA §9.7.13.3.7).
fn regs(which: char, (m, n, k): (usize, usize, usize), f: Fmt) -> usize {
    let elems = match which {
        'a' => m * k,
        'b' => k * n,
        _ => m * n,
    } / 32;
    match f {
        Fmt::F16 if which != 'c' => 8,
        Fmt::F16 | Fmt::Bf16 => elems / 2,
        Fmt::S8 | Fmt::U8 => elems / 4,
        _ => elems,
    }
}

fn shape(s: &str) -> (usize, usize, usize) {
    let n: Vec<usize> = s[1..]
        .split(['n', 'k'])
        .map(|x| x.parse().expect("shape"))
        .collect();
    (n[0], n[1], n[2])
}

/// Element `i` of `tools/gpu/tensor_cores.cu`'s `from_index`, as bytes.
fn from_index(f: Fmt, i: usize) -> Vec<u8> {
    let bits = |x: f32| x.to_bits();
    match f {
        Fmt::F16 => {
            // Integers below 2048 are exact in f16.
            let h = if i == 0 {
                0u16
            } else {
                let e = usize::BITS - 1 - i.leading_zeros();
                ((e as u16 + 15) << 10) | (((i << 10) >> e) as u16 & 0x3ff)
            };
            h.to_le_bytes().to_vec()
        }
        Fmt::Bf16 => ((bits(i as f32) >> 16) as u16).to_le_bytes().to_vec(),
        Fmt::Tf32 | Fmt::F32 => bits(i as f32).to_le_bytes().to_vec(),
        Fmt::F64 => (i as f64).to_bits().to_le_bytes().to_vec(),
        Fmt::S8 | Fmt::U8 => vec![i as u8],
        Fmt::S32 => (i as u32).to_le_bytes().to_vec(),
    }
}

/// A fragment operand `{%{p}0, …}` and its register declaration.
fn frag(p: &str, n: usize, wide: bool) -> (String, String) {
    let t = if wide { "b64" } else { "b32" };
    let list: Vec<String> = (0..n).map(|i| format!("%{p}{i}")).collect();
    (
        format!("{{{}}}", list.join(", ")),
        format!(" .reg .{t} %{p}<{n}>;\n"),
    )
}

const HEAD: &str = ".version 8.0\n.target sm_90\n.address_size 64\n";

/// Mismatches of one `wmma.load` row: `ins` is `wmma.load.X.sync.aligned.L.SHAPE.T`.
pub fn check_load(ins: &str, hex: &str) -> Vec<String> {
    let parts: Vec<&str> = ins.split('.').collect();
    let (which, sh, f) = (
        parts[2].chars().next().unwrap(),
        shape(parts[6]),
        fmt(parts[7]),
    );
    // The element counts and strides of `run_wmma_loads` (a stride wider than the tile).
    let (elems, ld) = match (parts[2], parts[6], parts[7]) {
        ("a", "m16n16k16", "f16") | ("b", "m16n16k16", "f16") => (16 * 24, 24),
        ("a", "m32n8k16", _) | ("b", "m8n32k16", _) => (32 * 24, 24),
        ("b", "m32n8k16", _) | ("a", "m8n32k16", _) => (8 * 24, 24),
        ("a" | "b", _, "bf16" | "s8" | "u8") => (16 * 16, 16),
        ("a" | "b", _, "tf32") => (16 * 12, 12),
        ("a" | "b", _, "f64") => (8 * 4, 4),
        ("c", "m16n16k16", "f32" | "f16") => (16 * 20, 20),
        ("c", "m32n8k16", _) => (32 * 8, 8),
        ("c", "m8n32k16", _) => (8 * 32, 32),
        ("c", _, "s32") => (16 * 16, 16),
        ("c", _, "f64") => (8 * 8, 8),
        _ => panic!("no stride for `{ins}`"),
    };
    let wide = f == Fmt::F64;
    let n = regs(which, sh, f);
    let (list, decl) = frag("v", n, wide);
    let w = if wide { 8 } else { 4 };
    let (t, per_lane) = (if wide { "b64" } else { "b32" }, n * w);
    let stores: String = (0..n)
        .map(|i| format!(" st.global.{t} [%rd4+{}], %v{i};\n", i * w))
        .collect();
    let ptx = format!(
        "{HEAD}.visible .entry k(.param .u64 ps, .param .u64 pd) {{\n .reg .b32 %r<8>;\n .reg .b64 %rd<8>;\n{decl}\
         ld.param.u64 %rd1, [ps];\n ld.param.u64 %rd2, [pd];\n mov.u32 %r1, %tid.x;\n mov.u32 %r2, {ld};\n\
         {ins} {list}, [%rd1], %r2;\n mul.wide.u32 %rd3, %r1, {per_lane};\n add.s64 %rd4, %rd2, %rd3;\n{stores} ret;\n}}\n"
    );
    let src: Vec<u8> = (0..elems).flat_map(|i| from_index(f, i)).collect();
    let got = emulate_bytes(&ptx, &[&src], 1, 32 * per_lane);
    let got: Vec<u32> = got
        .chunks(4)
        .map(|c| u32::from_le_bytes(c.try_into().unwrap()))
        .collect();
    let want = words(hex, false);
    assert_eq!(want.len(), got.len(), "{ins}: words");
    let wpl = per_lane / 4;
    got.iter()
        .zip(&want)
        .enumerate()
        .filter(|(_, (g, w))| g != w)
        .map(|(i, (g, w))| {
            format!(
                "{ins}: lane {} word {}: emulator {g:08x}, GPU {w:08x}",
                i / wpl,
                i % wpl
            )
        })
        .collect()
}

/// Mismatches of the `wmma` rows of `name` (`SHAPE.CTYPE.ATYPE`): class, seed and the
/// stored `D` (hex, element by element).
pub fn check_mma(name: &str, rows: &[(usize, u32, &str)]) -> Vec<String> {
    let parts: Vec<&str> = name.split('.').collect();
    let (sh, cf, af) = (shape(parts[0]), fmt(parts[1]), fmt(parts[2]));
    let (m, n, k) = sh;
    let (ea, ec) = (esize(af), esize(cf));
    let (mut a, mut b, mut c) = (Vec::new(), Vec::new(), Vec::new());
    let bytes = |v: u64, s: usize| v.to_le_bytes()[..s].to_vec();
    for &(class, seed, _) in rows {
        let x = inputs::generate(sh, (af, af, cf), class, seed);
        a.extend(x.a.iter().flat_map(|&v| bytes(v, ea)));
        // B column-major: element (kk, j) at j * k + kk.
        for j in 0..n {
            for kk in 0..k {
                b.extend(bytes(x.b[kk * n + j], ea));
            }
        }
        c.extend(x.c.iter().flat_map(|&v| bytes(v, ec)));
    }
    let (at, ct) = (parts[2], parts[1]);
    let types = match af {
        Fmt::F16 => format!("{ct}.{ct}"),
        _ => format!("{ct}.{at}.{at}.{ct}"),
    };
    let (fa, da) = frag("a", regs('a', sh, af), af == Fmt::F64);
    let (fb, db) = frag("b", regs('b', sh, af), af == Fmt::F64);
    let (fc, dc) = frag("c", regs('c', sh, cf), cf == Fmt::F64);
    let (fd, dd) = frag("d", regs('c', sh, cf), cf == Fmt::F64);
    let s = parts[0];
    let ptx = format!(
        "{HEAD}.visible .entry k(.param .u64 pa, .param .u64 pb, .param .u64 pc, .param .u64 pd) {{\n\
         .reg .b32 %r<8>;\n .reg .b64 %rd<16>;\n{da}{db}{dc}{dd}\
         ld.param.u64 %rd1, [pa];\n ld.param.u64 %rd2, [pb];\n ld.param.u64 %rd3, [pc];\n ld.param.u64 %rd4, [pd];\n\
         mov.u32 %r1, %ctaid.x;\n\
         mul.wide.u32 %rd5, %r1, {};\n add.s64 %rd1, %rd1, %rd5;\n\
         mul.wide.u32 %rd7, %r1, {};\n add.s64 %rd2, %rd2, %rd7;\n\
         mul.wide.u32 %rd6, %r1, {};\n add.s64 %rd3, %rd3, %rd6;\n add.s64 %rd4, %rd4, %rd6;\n\
         wmma.load.a.sync.aligned.row.{s}.global.{at} {fa}, [%rd1], {k};\n\
         wmma.load.b.sync.aligned.col.{s}.global.{at} {fb}, [%rd2], {k};\n\
         wmma.load.c.sync.aligned.row.{s}.global.{ct} {fc}, [%rd3], {n};\n\
         wmma.mma.sync.aligned.row.col.{s}.{types} {fd}, {fa}, {fb}, {fc};\n\
         wmma.store.d.sync.aligned.row.{s}.global.{ct} [%rd4], {fd}, {n};\n ret;\n}}\n",
        m * k * ea,
        k * n * ea,
        m * n * ec,
    );
    let per = m * n * ec;
    let got = emulate_bytes(&ptx, &[&a, &b, &c], rows.len() as u32, rows.len() * per);
    let mut bad = Vec::new();
    for (t, &(class, seed, hex)) in rows.iter().enumerate() {
        let digits = 2 * ec;
        for i in 0..m * n {
            let g = &got[t * per + i * ec..t * per + (i + 1) * ec];
            let mut buf = [0u8; 8];
            buf[..ec].copy_from_slice(g);
            let g = u64::from_le_bytes(buf);
            let w = u64::from_str_radix(&hex[i * digits..(i + 1) * digits], 16).expect("hex");
            if g != w {
                bad.push(format!(
                    "wmma {name} {} seed {seed}: D[{}][{}]: emulator {g:0digits$x}, GPU {w:0digits$x}",
                    inputs::CLASSES[class],
                    i / n,
                    i % n
                ));
            }
        }
    }
    bad
}

/// Forms whose H100 fragments were not dumped are refused, naming the instruction.
#[test]
fn undumped_wmma_forms_are_refused_by_name() {
    use crate::common::*;
    use warpcheck_emu::{GlobalMemory, LaunchConfig, run};
    for (ins, regs) in [
        ("wmma.load.a.sync.aligned.row.m32n8k16.bf16", 8),
        ("wmma.load.b.sync.aligned.col.m8n32k16.s8", 4),
    ] {
        let (list, decl) = frag("v", regs, false);
        let ptx = format!(
            "{HEAD}.visible .entry k(.param .u64 ps) {{\n .reg .b64 %rd<2>;\n{decl}\
             ld.param.u64 %rd1, [ps];\n {ins} {list}, [%rd1], 16;\n ret;\n}}\n"
        );
        let p = lower_ptx(&ptx);
        let k = kernel(&p, "k");
        let mut m = GlobalMemory::new();
        let a = buf_bytes(&mut m, &[0; 1024]);
        let c = LaunchConfig::new([1, 1, 1], [32, 1, 1]);
        let err = run(&p, k, &params(&p, k, &[A::Ptr(a)]), &mut m, &c)
            .err()
            .unwrap_or_else(|| panic!("`{ins}` ran"))
            .to_string();
        let shape = ins.split('.').nth(6).unwrap();
        assert!(
            err.contains(shape) && err.contains("not known to warpcheck"),
            "{err}"
        );
    }
}
