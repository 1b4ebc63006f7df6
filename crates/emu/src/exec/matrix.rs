//! Warp-level matrix instructions (PTX ISA §9.7.13.4): `mma.sync`, `ldmatrix`,
//! `stmatrix`.
//!
//! **Fragments.** Each operand of `mma` is a list of registers per lane; which matrix
//! element sits in which lane and register is fixed by the ISA's fragment layouts
//! ("Matrix fragments for mma.m16n8k16" and the sections beside it). [`position`] gives
//! the (row, column) of element `i` of a lane's fragment, with `g = lane / 4` and
//! `t = lane % 4`; 16-bit elements are packed two to a register and 8-bit elements
//! four, the lowest-numbered element in the low bits.
//!
//! **Arithmetic, as an sm_90 tensor core does it** (measured on an H100 with adversarial
//! inputs, `tools/gpu/tensor_cores.cu`, `docs/ACCURACY.md`): for f16, bf16 and tf32
//! inputs with an f32 accumulator, each element of `D` is one fused sum of the `k`
//! exact products and `C`: every term is aligned to the largest exponent among them
//! (a product's exponent is the sum of its operands' exponents, before normalising the
//! product of the significands), truncated toward zero at 25 bits below that exponent,
//! the terms are added exactly, and the sum is rounded toward zero to f32 (past the
//! largest finite value: an infinity; an exact zero: +0; any NaN, or an infinity times
//! zero, or infinities of both signs: the NaN 0x7fffffff). tf32 operands use only
//! their top 19 bits. An f16 accumulator rounds the same fixed-point sum to nearest
//! f16 (a zero result is +0). 8-bit integer products are summed exactly into the s32 accumulator, which
//! wraps (or, with `.satfinite`, saturates). f64 (`m8n8k4`) is a chain of IEEE fused
//! multiply-adds in `k` order.

use super::Lanes;
use crate::ops::MatElem;

/// The (row, column) of element `i` of lane `lane`'s fragment of operand `which`
/// (0 = A, 1 = B, 2 = C/D) of an `mma` of shape `m`x`n`x`k` with `a`-typed inputs.
pub(crate) fn position(
    which: u8,
    m: u8,
    k: u8,
    a: MatElem,
    lane: usize,
    i: usize,
) -> (usize, usize) {
    let (g, t) = (lane >> 2, lane & 3);
    match (which, a, m, k) {
        (2, _, 16, _) => (g + 8 * (i >> 1), 2 * t + (i & 1)),
        (2, _, _, _) => (g, 2 * t + i),
        (0, MatElem::F16 | MatElem::Bf16, _, 16) => {
            (g + 8 * ((i >> 1) & 1), 2 * t + (i & 1) + 8 * (i >> 2))
        }
        (0, MatElem::F16 | MatElem::Bf16, _, _) => (g + 8 * (i >> 1), 2 * t + (i & 1)),
        (1, MatElem::F16 | MatElem::Bf16, _, 16) => (2 * t + (i & 1) + 8 * (i >> 1), g),
        (1, MatElem::F16 | MatElem::Bf16, _, _) => (2 * t + i, g),
        (0, MatElem::Tf32, _, 8) => (g + 8 * (i & 1), t + 4 * (i >> 1)),
        (0, MatElem::Tf32, _, _) => (g + 8 * i, t),
        (1, MatElem::Tf32, _, 8) => (t + 4 * i, g),
        (1, MatElem::Tf32, _, _) => (t, g),
        (0, MatElem::F64, _, _) => (g, t),
        (1, MatElem::F64, _, _) => (t, g),
        (0, _, 16, 32) => (g + 8 * ((i >> 2) & 1), 4 * t + (i & 3) + 16 * (i >> 3)),
        (0, _, 16, _) => (g + 8 * (i >> 2), 4 * t + (i & 3)),
        (0, _, _, _) => (g, 4 * t + i),
        (1, _, _, 32) => (4 * t + (i & 3) + 16 * (i >> 2), g),
        (_, _, _, _) => (4 * t + i, g),
    }
}

/// Bits of one element.
pub(crate) fn bits(e: MatElem) -> usize {
    match e {
        MatElem::F16 | MatElem::Bf16 => 16,
        MatElem::S8 | MatElem::U8 => 8,
        MatElem::F64 => 64,
        _ => 32,
    }
}

/// Unpacks a fragment (`regs[r][lane]`) into a `rows`x`cols` matrix of raw elements.
pub(crate) fn gather(
    regs: &[&Lanes],
    (which, m, k, a): (u8, u8, u8, MatElem),
    e: MatElem,
    cols: usize,
    out: &mut [u64],
) {
    let b = bits(e);
    let per = if b >= 32 { 1 } else { 32 / b };
    let mask = if b >= 64 { u64::MAX } else { (1u64 << b) - 1 };
    for lane in 0..32 {
        for i in 0..regs.len() * per {
            let (r, c) = position(which, m, k, a, lane, i);
            let word = regs[i / per][lane];
            out[r * cols + c] = (word >> (b * (i % per))) & mask;
        }
    }
}

/// Packs matrix `v` into fragment registers `out[r][lane]` (for the lanes of `mask`).
pub(crate) fn scatter(
    v: &[u64],
    (which, m, k, a): (u8, u8, u8, MatElem),
    e: MatElem,
    cols: usize,
    out: &mut [Lanes],
    mask: u32,
) {
    let b = bits(e);
    let per = if b >= 32 { 1 } else { 32 / b };
    for lane in 0..32 {
        if mask >> lane & 1 == 0 {
            continue;
        }
        for reg in out.iter_mut() {
            reg[lane] = 0;
        }
        for i in 0..out.len() * per {
            let (r, c) = position(which, m, k, a, lane, i);
            out[i / per][lane] |= v[r * cols + c] << (b * (i % per));
        }
    }
}

/// A finite value as `(negative, significand, exponent of its last bit, exponent of
/// its leading bit position as the format encodes it)`, or `Err` with the class.
enum Num {
    Finite {
        neg: bool,
        sig: u64,
        lsb: i32,
        exp: i32,
    },
    Inf(bool),
    NaN,
}

/// Decodes an element of a binary float format with `e` exponent and `m` mantissa bits.
fn decode(x: u64, e: u32, m: u32) -> Num {
    let neg = x >> (e + m) & 1 == 1;
    let be = (x >> m) & ((1 << e) - 1);
    let frac = x & ((1 << m) - 1);
    let bias = (1i32 << (e - 1)) - 1;
    if be == (1 << e) - 1 {
        return if frac == 0 { Num::Inf(neg) } else { Num::NaN };
    }
    let (sig, exp) = if be == 0 {
        (frac, 1 - bias)
    } else {
        (frac | 1 << m, be as i32 - bias)
    };
    Num::Finite {
        neg,
        sig,
        lsb: exp - m as i32,
        exp,
    }
}

fn decode_elem(x: u64, t: MatElem) -> Num {
    match t {
        MatElem::F16 => decode(x, 5, 10),
        MatElem::Bf16 => decode(x, 8, 7),
        MatElem::Tf32 => decode(x >> 13, 8, 10),
        _ => decode(x, 8, 23),
    }
}

/// Rounds `total * 2^lsb` to a float with `e` exponent and `m` mantissa bits, toward
/// zero or (`nearest`) to nearest even; subnormals are kept and a result past the
/// largest finite value is an infinity (what the tensor core gives in both modes).
fn round_fixed(total: i128, lsb: i32, e: u32, m: u32, nearest: bool) -> u64 {
    let neg = total < 0;
    let sign = (neg as u64) << (e + m);
    let mag = total.unsigned_abs();
    if mag == 0 {
        return sign;
    }
    let bias = (1i32 << (e - 1)) - 1;
    let lead = 127 - mag.leading_zeros() as i32 + lsb; // exponent of the leading bit
    let mut exp = lead.max(1 - bias);
    let ulp = exp - m as i32;
    let mut q = if ulp > lsb {
        let s = (ulp - lsb) as u32;
        let q = if s >= 128 { 0 } else { mag >> s };
        let rem = if s >= 128 { mag } else { mag - (q << s) };
        let half = if s > 128 { u128::MAX } else { 1u128 << (s - 1) };
        if nearest && (rem > half || (rem == half && q & 1 == 1)) {
            q + 1
        } else {
            q
        }
    } else {
        mag << (lsb - ulp) as u32
    } as u64;
    if q >= 2 << m {
        q >>= 1;
        exp += 1;
    }
    if exp > bias {
        return sign | ((1u64 << e) - 1) << m;
    }
    if q < 1 << m {
        return sign | q;
    }
    sign | ((exp + bias) as u64) << m | (q & ((1 << m) - 1))
}

/// `D = A * B + C` over raw elements (`a`: `m`x`k`, `b`: `k`x`n`, `c`: `m`x`n`, row by
/// row) with element types `(A, B, D)` (`C` has `D`'s type), element by element as
/// [`dot_float`], [`dot_int`] and [`dot_f64`] compute it.
pub(crate) fn multiply(
    am: &[u64],
    bm: &[u64],
    cm: &[u64],
    (mu, nu, ku): (usize, usize, usize),
    (a, b, d): (MatElem, MatElem, MatElem),
    satfinite: bool,
) -> Vec<u64> {
    let mut dm = vec![0u64; mu * nu];
    let mut col = vec![0u64; ku];
    for j in 0..nu {
        for (kk, x) in col.iter_mut().enumerate() {
            *x = bm[kk * nu + j];
        }
        for i in 0..mu {
            let row = &am[i * ku..(i + 1) * ku];
            let cv = cm[i * nu + j];
            dm[i * nu + j] = match a {
                MatElem::S8 | MatElem::U8 => dot_int(
                    row,
                    &col,
                    (a == MatElem::S8, b == MatElem::S8),
                    cv,
                    satfinite,
                ),
                MatElem::F64 => dot_f64(row, &col, cv),
                _ => dot_float(row, &col, a, cv, d == MatElem::F16),
            };
        }
    }
    dm
}

/// One element of `D` for float inputs: `c + sum(a[i] * b[i])` as the tensor core
/// computes it (module docs). `c` and the result are f32 bits (`d16`: f16 bits).
pub(crate) fn dot_float(a: &[u64], b: &[u64], t: MatElem, c: u64, d16: bool) -> u64 {
    let (ce, cm) = if d16 { (5, 10) } else { (8, 23) };
    let nan = if d16 { 0x7fff } else { 0x7fff_ffff };
    let inf = |neg: bool| ((neg as u64) << (ce + cm)) | (((1u64 << ce) - 1) << cm);
    // Terms: (negative, significand, lsb exponent, alignment exponent).
    let mut terms: [(bool, u64, i32, i32); 33] = [(false, 0, 0, 0); 33];
    let mut n = 0;
    let mut infs = (false, false);
    for (&x, &y) in a.iter().zip(b) {
        match (decode_elem(x, t), decode_elem(y, t)) {
            (Num::NaN, _) | (_, Num::NaN) => return nan,
            (Num::Inf(p), Num::Inf(q)) => {
                if p != q {
                    infs.1 = true
                } else {
                    infs.0 = true
                }
            }
            (Num::Inf(p), Num::Finite { neg, sig, .. })
            | (Num::Finite { neg, sig, .. }, Num::Inf(p)) => {
                if sig == 0 {
                    return nan;
                }
                if p != neg {
                    infs.1 = true
                } else {
                    infs.0 = true
                }
            }
            (
                Num::Finite {
                    neg: n1,
                    sig: s1,
                    lsb: l1,
                    exp: e1,
                },
                Num::Finite {
                    neg: n2,
                    sig: s2,
                    lsb: l2,
                    exp: e2,
                },
            ) => {
                terms[n] = (n1 != n2, s1 * s2, l1 + l2, e1 + e2);
                n += 1;
            }
        }
    }
    match decode(c, ce, cm) {
        Num::NaN => return nan,
        Num::Inf(neg) => {
            if neg {
                infs.1 = true
            } else {
                infs.0 = true
            }
        }
        Num::Finite { neg, sig, lsb, exp } => {
            terms[n] = (neg, sig, lsb, exp);
            n += 1;
        }
    }
    match infs {
        (true, true) => return nan,
        (true, false) => return inf(false),
        (false, true) => return inf(true),
        _ => {}
    }
    let terms = &terms[..n];
    let Some(emax) = terms.iter().filter(|t| t.1 != 0).map(|t| t.3).max() else {
        // Every term is zero: the fixed-point sum is +0, whatever the signs.
        return 0;
    };
    let lsb = emax - 25;
    let mut total: i128 = 0;
    for &(neg, sig, l, _) in terms {
        let v = if l >= lsb {
            (sig as i128) << (l - lsb) as u32
        } else {
            let s = (lsb - l) as u32;
            if s >= 64 { 0 } else { (sig >> s) as i128 }
        };
        total += if neg { -v } else { v };
    }
    if total == 0 {
        return 0;
    }
    if d16 {
        // An f16 accumulator rounds the same sum to nearest; a zero result is +0.
        let h = round_fixed(total, lsb, 5, 10, true);
        return if h == 0x8000 { 0 } else { h };
    }
    round_fixed(total, lsb, 8, 23, false)
}

/// One element of `D` for 8-bit integer inputs (`a_signed`, `b_signed`).
pub(crate) fn dot_int(a: &[u64], b: &[u64], signs: (bool, bool), c: u64, satfinite: bool) -> u64 {
    let val = |x: u64, s: bool| {
        if s {
            x as u8 as i8 as i64
        } else {
            x as u8 as i64
        }
    };
    let sum: i64 = a
        .iter()
        .zip(b)
        .map(|(&x, &y)| val(x, signs.0) * val(y, signs.1))
        .sum::<i64>()
        + c as u32 as i32 as i64;
    let r = if satfinite {
        sum.clamp(i32::MIN as i64, i32::MAX as i64)
    } else {
        sum
    };
    r as i32 as u32 as u64
}

/// One element of `D` for f64 (`m8n8k4`): fused multiply-adds in `k` order.
pub(crate) fn dot_f64(a: &[u64], b: &[u64], c: u64) -> u64 {
    let mut acc = f64::from_bits(c);
    for (&x, &y) in a.iter().zip(b) {
        acc = f64::from_bits(x).mul_add(f64::from_bits(y), acc);
    }
    acc.to_bits()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rounding_truncates_and_keeps_subnormals() {
        // 1 + 2^-24 truncates to 1.
        assert_eq!(round_fixed((1 << 24) + 1, -24, 8, 23, false), 0x3f80_0000);
        assert_eq!(
            round_fixed(-((1 << 24) + 1), -24, 8, 23, false),
            0xbf80_0000
        );
        // 2^-149 is the smallest subnormal; 3 * 2^-150 truncates to it.
        assert_eq!(round_fixed(3, -150, 8, 23, false), 1);
    }

    #[test]
    fn small_terms_are_truncated_at_25_bits_below_the_largest() {
        // c = 1.0 (f32), one product 2^-26 (f16 2^-13 * 2^-13): below the 25 kept bits.
        let one_f32 = 0x3f80_0000;
        let p = 0x0800; // f16 2^-13
        assert_eq!(dot_float(&[p], &[p], MatElem::F16, one_f32, false), one_f32);
        // 2^-24 * 2 products survive alignment but the sum truncates to f32: 1.0.
        let q = 0x1000; // f16 2^-11... product 2^-22: kept, 1 + 2^-22 is representable.
        assert_eq!(
            dot_float(&[q], &[q], MatElem::F16, one_f32, false),
            0x3f80_0002
        );
    }
}
