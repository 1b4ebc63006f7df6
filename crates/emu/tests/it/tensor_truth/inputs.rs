//! The input generator of `tools/gpu/tensor_cores.cu`, repeated exactly: the truth file
//! names each test's class and seed, and these functions rebuild its matrices and
//! fragments bit for bit (xorshift32, four draws per element).

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Fmt {
    F16,
    Bf16,
    Tf32,
    F32,
    F64,
    S8,
    U8,
    S32,
}

pub const CLASSES: [&str; 10] = [
    "normal", "spread", "cancel", "bigc", "ties", "denorm", "special", "zeros", "rand", "extreme",
];
const NORMAL: usize = 0;
const SPREAD: usize = 1;
const CANCEL: usize = 2;
const BIGC: usize = 3;
const TIES: usize = 4;
const DENORM: usize = 5;
const SPECIAL: usize = 6;
const ZEROS: usize = 7;
const EXTREME: usize = 9;

struct Rng(u32);

impl Rng {
    fn new(seed: u32) -> Rng {
        let s = seed.wrapping_mul(0x9E37_79B1).wrapping_add(0x7F4A_7C15);
        Rng(if s == 0 { 1 } else { s })
    }
    fn next(&mut self) -> u32 {
        let mut x = self.0;
        x ^= x << 13;
        x ^= x >> 17;
        x ^= x << 5;
        self.0 = x;
        x
    }
}

/// (exponent bits, mantissa bits, shift of the mantissa in the stored word).
fn info(f: Fmt) -> (u32, u32, u32) {
    match f {
        Fmt::F16 => (5, 10, 0),
        Fmt::Bf16 => (8, 7, 0),
        Fmt::Tf32 => (8, 10, 13),
        Fmt::F32 => (8, 23, 0),
        _ => (11, 52, 0),
    }
}

fn bias(f: Fmt) -> i32 {
    (1 << (info(f).0 - 1)) - 1
}

fn encode(f: Fmt, sign: u32, e: i32, mant: u64) -> u64 {
    let (eb, mb, sh) = info(f);
    let b = (e + bias(f)).clamp(0, (1 << eb) - 2) as u64;
    let m = mant & ((1u64 << mb) - 1);
    let width = 1 + eb + mb;
    ((((sign & 1) as u64) << (width - 1)) | b << mb | m) << sh
}

fn special(f: Fmt, which: u32) -> u64 {
    let (eb, mb, sh) = info(f);
    let width = 1 + eb + mb;
    let emax = ((1u64 << eb) - 1) << mb;
    let sign = 1u64 << (width - 1);
    let v = match which % 7 {
        0 => emax,
        1 => emax | sign,
        2 => emax | 1 << (mb - 1),
        3 => sign | emax | 1 << (mb - 1) | 5,
        4 => 0,
        5 => sign,
        _ => emax - 1,
    };
    v << sh
}

fn element(f: Fmt, c: usize, role: u32, dfmt: Fmt, rng: &mut Rng) -> u64 {
    let (r0, r1, r2, r3) = (rng.next(), rng.next(), rng.next(), rng.next());
    if matches!(f, Fmt::S8 | Fmt::U8) {
        const X: [u64; 5] = [0x80, 0x7f, 0xff, 0x00, 0x81];
        return if c == EXTREME {
            X[(r0 % 5) as usize]
        } else {
            (r0 & 0xff) as u64
        };
    }
    if f == Fmt::S32 {
        if c == EXTREME {
            return match r0 % 3 {
                0 => (0x7fff_ffff - (r1 % 65536)) as u64,
                1 => (0x8000_0000u32 + (r1 % 65536)) as u64,
                _ => 0,
            };
        }
        return ((r0 as i32) >> (r1 % 24)) as u32 as u64;
    }
    let m = (r3 as u64) << 32 | r2 as u64;
    let s = r0 & 1;
    let mut normal = encode(f, s, (r1 % 8) as i32 - 4, m);
    if f == Fmt::Tf32 && c == NORMAL && r0 & 2 != 0 {
        normal |= (r3 & 0x1fff) as u64;
    }
    match c {
        NORMAL | CANCEL => normal,
        SPREAD => {
            let range: u32 = match f {
                Fmt::F16 => 31,
                Fmt::F64 => 201,
                _ => 81,
            };
            encode(f, s, (r1 % range) as i32 - (range / 2) as i32, m)
        }
        BIGC if role < 2 => normal,
        BIGC => {
            let e = if r0 & 2 != 0 {
                14 + (r1 % 8) as i32
            } else {
                -24 - (r1 % 8) as i32
            };
            encode(f, s, e, m)
        }
        TIES if role == 2 => encode(f, s, 4, m),
        TIES => {
            let base = match dfmt {
                Fmt::F16 => -3,
                Fmt::F64 => -27,
                _ => -10,
            };
            encode(f, s, base - (r1 % 4) as i32, 0)
        }
        DENORM => {
            let b = bias(f);
            match role {
                0 => encode(f, s, (r1 % 3) as i32 - b, m),
                1 if f == Fmt::F16 => encode(f, s, (r1 % 3) as i32 - b, m),
                1 => encode(f, s, (r1 % 5) as i32 - 2, m),
                _ => encode(f, s, (r1 % 2) as i32 - b, m),
            }
        }
        SPECIAL if r3 % 8 == 0 => special(f, r3 / 8),
        SPECIAL => normal,
        ZEROS if role < 2 && r3 % 4 == 0 => normal,
        ZEROS => encode(f, s, -bias(f), 0),
        _ => 0,
    }
}

/// Logical matrices: A (m x k, row-major), B (k x n, k-major), C (m x n, row-major).
pub struct Mats {
    pub a: Vec<u64>,
    pub b: Vec<u64>,
    pub c: Vec<u64>,
}

pub fn generate(
    shape: (usize, usize, usize),
    fmts: (Fmt, Fmt, Fmt),
    class: usize,
    seed: u32,
) -> Mats {
    let ((m, n, k), (af, bf, cf)) = (shape, fmts);
    let mut rng = Rng::new(seed);
    let base = if class == CANCEL { NORMAL } else { class };
    let a: Vec<u64> = (0..m * k)
        .map(|_| element(af, base, 0, cf, &mut rng))
        .collect();
    let b: Vec<u64> = (0..k * n)
        .map(|_| element(bf, base, 1, cf, &mut rng))
        .collect();
    let c: Vec<u64> = (0..m * n)
        .map(|_| element(cf, base, 2, cf, &mut rng))
        .collect();
    let mut x = Mats { a, b, c };
    if class == CANCEL {
        let (eb, mb, sh) = info(bf);
        let bsign = 1u64 << (eb + mb + sh);
        for i in 0..m {
            for kk in (1..k).step_by(2) {
                x.a[i * k + kk] = x.a[i * k + kk - 1];
            }
        }
        for kk in (1..k).step_by(2) {
            for j in 0..n {
                x.b[kk * n + j] = x.b[(kk - 1) * n + j] ^ bsign;
            }
        }
        for (v, f) in [(&mut x.a, af), (&mut x.b, bf)] {
            let (eb, mb, sh) = info(f);
            let emask = (((1u64 << eb) - 1) << mb) << sh;
            for e in v.iter_mut() {
                let r = rng.next();
                if r.is_multiple_of(4) {
                    let be = (bias(f) - 8 - ((r >> 2) % 4) as i32) as u64;
                    *e = (*e & !emask) | ((be << mb) << sh);
                }
            }
        }
    }
    x
}

/// Layouts of `tools/gpu/tensor_cores.cu` (`pos`), written from the PTX ISA's figures
/// independently of the emulator's.
#[derive(Clone, Copy)]
pub enum Layout {
    AF16K16,
    AF16K8,
    BF16K16,
    BF16K8,
    ATf32K8,
    ATf32K4,
    BTf32K8,
    BTf32K4,
    AS8K32,
    AS8K16,
    AS8M8K16,
    BS8K32,
    BS8K16,
    AF64,
    BF64,
    C16x8,
    C8x8,
}

fn pos(l: Layout, lane: usize, i: usize) -> (usize, usize) {
    let (g, t) = (lane >> 2, lane & 3);
    use Layout::*;
    match l {
        AF16K16 => (g + 8 * ((i >> 1) & 1), 2 * t + (i & 1) + 8 * (i >> 2)),
        AF16K8 => (g + 8 * (i >> 1), 2 * t + (i & 1)),
        BF16K16 => (2 * t + (i & 1) + 8 * (i >> 1), g),
        BF16K8 => (2 * t + i, g),
        ATf32K8 => (g + 8 * (i & 1), t + 4 * (i >> 1)),
        ATf32K4 => (g + 8 * i, t),
        BTf32K8 => (t + 4 * i, g),
        BTf32K4 => (t, g),
        AS8K32 => (g + 8 * ((i >> 2) & 1), 4 * t + (i & 3) + 16 * (i >> 3)),
        AS8K16 => (g + 8 * (i >> 2), 4 * t + (i & 3)),
        AS8M8K16 => (g, 4 * t + i),
        BS8K32 => (4 * t + (i & 3) + 16 * (i >> 2), g),
        BS8K16 => (4 * t + i, g),
        AF64 => (g, t),
        BF64 => (t, g),
        C16x8 => (g + 8 * (i >> 1), 2 * t + (i & 1)),
        C8x8 => (g, 2 * t + i),
    }
}

pub fn bits_of(f: Fmt) -> usize {
    match f {
        Fmt::F16 | Fmt::Bf16 => 16,
        Fmt::S8 | Fmt::U8 => 8,
        Fmt::F64 => 64,
        _ => 32,
    }
}

/// Packs `v` (`cols` columns) into `nregs` registers per lane, lane-major, as 32-bit
/// words (64-bit registers as two words, low first).
pub fn pack(v: &[u64], cols: usize, f: Fmt, l: Layout, nregs: usize) -> Vec<u32> {
    let bits = bits_of(f);
    let per = if bits >= 32 { 1 } else { 32 / bits };
    let words = if bits == 64 { 2 } else { 1 };
    let mut out = vec![0u32; 32 * nregs * words];
    for lane in 0..32 {
        let o = &mut out[lane * nregs * words..(lane + 1) * nregs * words];
        for i in 0..nregs * per {
            let (r, c) = pos(l, lane, i);
            let e = v[r * cols + c];
            if bits == 64 {
                o[2 * i] = e as u32;
                o[2 * i + 1] = (e >> 32) as u32;
            } else {
                let mask = if bits == 32 {
                    u32::MAX
                } else {
                    (1 << bits) - 1
                };
                o[i / per] |= (e as u32 & mask) << (bits * (i % per));
            }
        }
    }
    out
}
