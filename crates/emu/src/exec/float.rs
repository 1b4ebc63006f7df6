//! IEEE-754 arithmetic with PTX's rounding modifiers, flush-to-zero and saturation
//! (PTX ISA §9.7.3 "Floating-point instructions", §9.7.4 half precision).
//!
//! The host computes in round-to-nearest-even only, which stays the fast path. Directed
//! rounding (`.rz`, `.rm`, `.rp`):
//! * f32 and f64 addition: from the round-to-nearest result `r` and the *sign of the
//!   rounding error* `exact - r`, which TwoSum (Knuth) gives exactly,
//!   `err = (a - (s - bb)) + (b - bb)` (sums of subnormals are exact too);
//! * f32 products, quotients, square roots and fma: through f64 (see [`mul32`], [`fma32`]);
//! * f64 `mul`, `div`, `fma`: exactly, with `rustc_apfloat` (LLVM's APFloat in Rust);
//! * f64 `sqrt`: from the sign of the residual `a - s² = fma(-s, s, a)`, exact once a
//!   small `a` is scaled by an even power of two (APFloat has no square root).
//!
//! Given that sign, the correctly rounded directed result is `r` or its neighbour towards
//! the error. Half-precision operations compute in f64, where sums and products of
//! halves are exact, and round once.
//!
//! An f64 operation with a NaN operand returns one of its NaN operands, quietened, with
//! its own sign and payload, whatever the rounding mode (H100, int_ops `dadd_*`,
//! `dsub_*`, `dmul_*`, `ddiv_*`, `fma_*`): a signalling NaN has no priority, and the
//! operand chosen is `b`'s, then `a`'s for `add`, `sub` (whose `-b` does not flip a NaN)
//! and `mul`; `a`'s, then `b`'s for `div`; `b`'s, then `c`'s, then `a`'s for `fma`. An
//! invalid operation on numbers gives `0xfff8000000000000`, the host's default NaN too.

use rustc_apfloat::ieee::Double;
use rustc_apfloat::{Float, Round};
use warpcheck_ir::modifiers::RoundingMode;

/// The quiet bit of an f64 NaN (the top bit of the fraction).
pub const QUIET_BIT64: u64 = 1 << 51;

/// Flushes an f32 subnormal to a zero of the same sign (`.ftz`).
#[inline(always)]
pub fn ftz32(x: f32) -> f32 {
    if x.is_subnormal() {
        0.0f32.copysign(x)
    } else {
        x
    }
}

/// Clamps to [0, 1], NaN and -0 to +0 (`.sat`; an H100 gives +0 for `-0`).
#[inline(always)]
pub fn sat32(x: f32) -> f32 {
    if x.is_nan() || x <= 0.0 {
        0.0
    } else {
        x.min(1.0)
    }
}

#[inline(always)]
pub fn sat64(x: f64) -> f64 {
    if x.is_nan() || x <= 0.0 {
        0.0
    } else {
        x.min(1.0)
    }
}

/// Adjusts a round-to-nearest result `r` to `mode`, given the sign of `exact - r`
/// (negative, zero, positive). Overflow to infinity is corrected for the directed modes
/// by `finite_inputs`.
#[inline]
pub fn adjust32(r: f32, err: f32, mode: RoundingMode, finite_inputs: bool) -> f32 {
    if r.is_infinite() && finite_inputs {
        return match mode {
            RoundingMode::Rz => f32::MAX.copysign(r),
            RoundingMode::Rm if r > 0.0 => f32::MAX,
            RoundingMode::Rp if r < 0.0 => -f32::MAX,
            _ => r,
        };
    }
    if err == 0.0 || err.is_nan() || r.is_nan() {
        return r;
    }
    match mode {
        RoundingMode::Rz => {
            if (err < 0.0) != (r < 0.0) || r == 0.0 {
                // The exact value is closer to zero than r, or r is zero already.
                if r == 0.0 {
                    r
                } else if r > 0.0 {
                    r.next_down()
                } else {
                    r.next_up()
                }
            } else {
                r
            }
        }
        RoundingMode::Rm => {
            if err < 0.0 {
                r.next_down()
            } else {
                r
            }
        }
        RoundingMode::Rp => {
            if err > 0.0 {
                r.next_up()
            } else {
                r
            }
        }
        _ => r,
    }
}

#[inline]
pub fn adjust64(r: f64, err: f64, mode: RoundingMode, finite_inputs: bool) -> f64 {
    if r.is_infinite() && finite_inputs {
        return match mode {
            RoundingMode::Rz => f64::MAX.copysign(r),
            RoundingMode::Rm if r > 0.0 => f64::MAX,
            RoundingMode::Rp if r < 0.0 => -f64::MAX,
            _ => r,
        };
    }
    if err == 0.0 || err.is_nan() || r.is_nan() {
        return r;
    }
    match mode {
        RoundingMode::Rz => {
            if (err < 0.0) != (r < 0.0) && r != 0.0 {
                if r > 0.0 { r.next_down() } else { r.next_up() }
            } else {
                r
            }
        }
        RoundingMode::Rm => {
            if err < 0.0 {
                r.next_down()
            } else {
                r
            }
        }
        RoundingMode::Rp => {
            if err > 0.0 {
                r.next_up()
            } else {
                r
            }
        }
        _ => r,
    }
}

/// The sign of an exactly zero sum under `mode` (§4.2 of IEEE 754: `x + (-x)` is `-0`
/// when rounding towards negative infinity, `+0` otherwise).
#[inline]
fn zero_sum_sign32(s: f32, a: f32, b: f32, mode: RoundingMode) -> f32 {
    if mode == RoundingMode::Rm
        && !(a == 0.0 && b == 0.0 && a.is_sign_positive() && b.is_sign_positive())
    {
        -0.0
    } else {
        s
    }
}

pub fn add32(a: f32, b: f32, mode: RoundingMode) -> f32 {
    let s = a + b;
    if mode == RoundingMode::Rn {
        return s;
    }
    if s == 0.0 {
        return zero_sum_sign32(s, a, b, mode);
    }
    let bb = s - a;
    let err = (a - (s - bb)) + (b - bb);
    adjust32(s, err, mode, a.is_finite() && b.is_finite())
}

/// `x` with its quiet bit set.
#[inline(always)]
fn quiet64(x: f64) -> f64 {
    f64::from_bits(x.to_bits() | QUIET_BIT64)
}

/// The NaN an f64 operation returns: the first NaN of `operands` (in the order of
/// precedence given in the module docs), quietened; `r` when none is a NaN.
#[cold]
#[inline(never)]
fn nan_operand64(r: f64, operands: &[f64]) -> f64 {
    operands
        .iter()
        .find(|x| x.is_nan())
        .map_or(r, |&x| quiet64(x))
}

/// A round-to-nearest f64 sum with the H100's NaN (the hot path: one rarely taken branch).
#[inline(always)]
pub fn add64_rn(a: f64, b: f64) -> f64 {
    let s = a + b;
    if s.is_nan() {
        nan_operand64(s, &[b, a])
    } else {
        s
    }
}

/// A round-to-nearest f64 product with the H100's NaN.
#[inline(always)]
pub fn mul64_rn(a: f64, b: f64) -> f64 {
    let p = a * b;
    if p.is_nan() {
        nan_operand64(p, &[b, a])
    } else {
        p
    }
}

/// A round-to-nearest f64 fma with the H100's NaN.
#[inline(always)]
pub fn fma64_rn(a: f64, b: f64, c: f64) -> f64 {
    let r = a.mul_add(b, c);
    if r.is_nan() {
        nan_operand64(r, &[b, c, a])
    } else {
        r
    }
}

/// `mode` as APFloat's rounding direction.
fn apfloat_round(mode: RoundingMode) -> Round {
    match mode {
        RoundingMode::Rz => Round::TowardZero,
        RoundingMode::Rm => Round::TowardNegative,
        RoundingMode::Rp => Round::TowardPositive,
        RoundingMode::Rna => Round::NearestTiesToAway,
        _ => Round::NearestTiesToEven,
    }
}

#[inline]
fn to_ap(x: f64) -> Double {
    Double::from_bits(x.to_bits() as u128)
}

#[inline]
fn from_ap(x: Double) -> f64 {
    f64::from_bits(x.to_bits() as u64)
}

pub fn add64(a: f64, b: f64, mode: RoundingMode) -> f64 {
    let s = add64_rn(a, b);
    if mode == RoundingMode::Rn || s.is_nan() {
        return s;
    }
    if s == 0.0 {
        return if mode == RoundingMode::Rm
            && !(a == 0.0 && b == 0.0 && a.is_sign_positive() && b.is_sign_positive())
        {
            -0.0
        } else {
            s
        };
    }
    let bb = s - a;
    let err = (a - (s - bb)) + (b - bb);
    adjust64(s, err, mode, a.is_finite() && b.is_finite())
}

/// f32 products, quotients and square roots in the directed modes go through f64: the
/// product of two f32 is exact there, and a quotient or square root rounded to f64 lies
/// on the same side of every f32 as the exact value (53 >= 2 * 24 + 2), so rounding it
/// to f32 with `mode` is correct, subnormal results included (an error term computed in
/// f32 underflows there).
pub fn mul32(a: f32, b: f32, mode: RoundingMode) -> f32 {
    if mode == RoundingMode::Rn {
        return a * b;
    }
    f64_to_f32(a as f64 * b as f64, mode)
}

/// `a - b`: the sum with `-b`, except that a NaN `b` keeps its sign.
pub fn sub64(a: f64, b: f64, mode: RoundingMode) -> f64 {
    if b.is_nan() {
        return quiet64(b);
    }
    add64(a, -b, mode)
}

/// f64 products: directed modes exactly with APFloat (subnormal results included);
/// infinite and NaN operands need no rounding and take the native path.
pub fn mul64(a: f64, b: f64, mode: RoundingMode) -> f64 {
    if mode == RoundingMode::Rn || !(a.is_finite() && b.is_finite()) {
        return mul64_rn(a, b);
    }
    from_ap(to_ap(a).mul_r(to_ap(b), apfloat_round(mode)).value)
}

pub fn div32(a: f32, b: f32, mode: RoundingMode) -> f32 {
    if mode == RoundingMode::Rn {
        return a / b;
    }
    f64_to_f32(a as f64 / b as f64, mode)
}

/// f64 quotients: directed modes exactly with APFloat; division by zero and infinite or
/// NaN operands take the native path (exact results or NaN).
pub fn div64(a: f64, b: f64, mode: RoundingMode) -> f64 {
    if mode == RoundingMode::Rn || !(a.is_finite() && b.is_finite()) || b == 0.0 {
        let q = a / b;
        return if q.is_nan() {
            nan_operand64(q, &[a, b])
        } else {
            q
        };
    }
    from_ap(to_ap(a).div_r(to_ap(b), apfloat_round(mode)).value)
}

pub fn sqrt32(a: f32, mode: RoundingMode) -> f32 {
    if mode == RoundingMode::Rn {
        return a.sqrt();
    }
    f64_to_f32((a as f64).sqrt(), mode)
}

/// f64 square roots. In the directed modes the residual `a - s²` of the round-to-nearest
/// root `s` must be exact, which it is not when `a` is small (it falls below the subnormal
/// quantum): such an `a` is scaled by `2^200`, whose root `2^100` scales the result
/// exactly (roots are never subnormal).
pub fn sqrt64(a: f64, mode: RoundingMode) -> f64 {
    if a.is_nan() {
        return quiet64(a);
    }
    let s = a.sqrt();
    if mode == RoundingMode::Rn || !s.is_finite() || s == 0.0 {
        return s;
    }
    let small = a < pow2(-900);
    let (a, s, unscale) = if small {
        let a = a * pow2(200);
        (a, a.sqrt(), pow2(-100))
    } else {
        (a, s, 1.0)
    };
    adjust64(s, (-s).mul_add(s, a), mode, true) * unscale
}

/// f32 fused multiply-add with any rounding mode (see the module docs).
pub fn fma32(a: f32, b: f32, c: f32, mode: RoundingMode) -> f32 {
    if mode == RoundingMode::Rn {
        return a.mul_add(b, c);
    }
    let p = a as f64 * b as f64;
    let s = p + c as f64;
    if !s.is_finite() {
        return a.mul_add(b, c);
    }
    if s == 0.0 {
        // An exact zero: `p` and `c` cancel, or both are zeros. `p` is exact, and when it
        // cancels `c` it is an f32 value, so `p as f32` keeps its sign and whether it is 0.
        return zero_sum_sign32(a.mul_add(b, c), p as f32, c, mode);
    }
    let bb = s - p;
    let e = (p - (s - bb)) + (c as f64 - bb);
    let r = s as f32;
    let d = s - r as f64;
    let err = if d != 0.0 { d } else { e };
    adjust32(
        r,
        sign_of(err),
        mode,
        a.is_finite() && b.is_finite() && c.is_finite(),
    )
}

/// f64 fused multiply-add: round to nearest natively, the directed modes exactly with
/// APFloat (cancellation, tiny products and the sign of an exact zero included);
/// infinite and NaN operands take the native path.
pub fn fma64(a: f64, b: f64, c: f64, mode: RoundingMode) -> f64 {
    if mode == RoundingMode::Rn || !(a.is_finite() && b.is_finite() && c.is_finite()) {
        return fma64_rn(a, b, c);
    }
    from_ap(
        to_ap(a)
            .mul_add_r(to_ap(b), to_ap(c), apfloat_round(mode))
            .value,
    )
}

/// The sign of an f64 error as an f32 (-1, 0, 1), so that tiny errors do not vanish.
#[inline]
fn sign_of(err: f64) -> f32 {
    if err > 0.0 {
        1.0
    } else if err < 0.0 {
        -1.0
    } else {
        0.0
    }
}

/// Rounds an f64 to f32 with `mode`.
pub fn f64_to_f32(x: f64, mode: RoundingMode) -> f32 {
    let r = x as f32;
    if mode == RoundingMode::Rn || x.is_nan() {
        return r;
    }
    let err = if r.is_infinite() { 0.0 } else { x - r as f64 };
    adjust32(r, sign_of(err), mode, x.is_finite())
}

/// The canonical NaN that NVIDIA GPUs produce for f16 and bf16 results (and conversions).
pub const HALF_NAN: u16 = 0x7fff;

/// Rounds an f64 to half precision (f16 or bf16 bits) with `mode`, exactly: the value is
/// scaled to units of its binade's last place (never below the subnormal quantum, so
/// underflow is gradual), rounded to an integer with `mode`, and re-encoded. Overflow
/// gives infinity or the largest finite value as IEEE 754 says for each mode; NaN gives
/// the canonical NaN `0x7fff`, as the GPU does.
pub fn f64_to_half(x: f64, mode: RoundingMode, bf: bool) -> u16 {
    // (mantissa bits, minimum normal exponent, maximum exponent)
    let (m, emin, emax): (i32, i32, i32) = if bf { (7, -126, 127) } else { (10, -14, 15) };
    if x.is_nan() {
        return HALF_NAN;
    }
    let sign: u16 = if x.is_sign_negative() { 0x8000 } else { 0 };
    let inf = sign | (((emax - emin + 2) as u16) << m);
    let max = inf - 1;
    let a = x.abs();
    if a.is_infinite() {
        return inf;
    }
    if a == 0.0 {
        return sign;
    }
    let q = exponent_of(a).max(emin) - m;
    let units = a * pow2(-q);
    let toward_inf = match mode {
        RoundingMode::Rz => false,
        RoundingMode::Rm => sign != 0,
        RoundingMode::Rp => sign == 0,
        _ => true,
    };
    let n = match mode {
        RoundingMode::Rn | RoundingMode::Rna => {
            let r = units.round();
            if (r - units).abs() == 0.5 && r % 2.0 != 0.0 {
                r - 1.0
            } else {
                r
            }
        }
        _ if toward_inf => units.ceil(),
        _ => units.floor(),
    };
    let r = n * pow2(q);
    if r >= pow2(emax + 1) {
        return if toward_inf { inf } else { max };
    }
    if r == 0.0 {
        return sign;
    }
    let e = exponent_of(r);
    if e < emin {
        sign | (r * pow2(m - emin)) as u16
    } else {
        let mant = (r * pow2(m - e)) as u16 - (1 << m);
        sign | (((e - emin + 1) as u16) << m) | mant
    }
}

/// The unbiased binary exponent of a positive finite f64 (`floor(log2(a))`).
fn exponent_of(a: f64) -> i32 {
    let bits = a.to_bits();
    let field = ((bits >> 52) & 0x7ff) as i32;
    if field == 0 {
        -1011 - (bits & ((1 << 52) - 1)).leading_zeros() as i32
    } else {
        field - 1023
    }
}

/// `2^e` for `-1022 <= e <= 1023`.
fn pow2(e: i32) -> f64 {
    f64::from_bits(((e + 1023) as u64) << 52)
}

/// Half bits to f64.
#[inline]
pub fn half_to_f64(h: u16, bf: bool) -> f64 {
    if bf {
        half::bf16::from_bits(h).to_f64()
    } else {
        half::f16::from_bits(h).to_f64()
    }
}

/// Flushes a half subnormal to zero.
#[inline]
pub fn ftz_half(h: u16, bf: bool) -> u16 {
    let exp_mask = if bf { 0x7f80 } else { 0x7c00 };
    if h & exp_mask == 0 { h & 0x8000 } else { h }
}

#[cfg(test)]
mod tests {
    use super::*;
    use RoundingMode::*;

    #[test]
    fn directed_addition() {
        let a = 1.0f32;
        let b = f32::EPSILON / 4.0; // below half an ulp of 1
        assert_eq!(add32(a, b, Rn), 1.0);
        assert_eq!(add32(a, b, Rz), 1.0);
        assert_eq!(add32(a, b, Rm), 1.0);
        assert_eq!(add32(a, b, Rp), 1.0f32.next_up());
        assert_eq!(add32(-a, -b, Rz), -1.0);
        assert_eq!(add32(-a, -b, Rm), (-1.0f32).next_down());
        assert!(add32(1.0, -1.0, Rm).is_sign_negative());
        assert!(add32(1.0, -1.0, Rn).is_sign_positive());
        assert_eq!(add32(f32::MAX, f32::MAX, Rz), f32::MAX);
        assert_eq!(add32(f32::MAX, f32::MAX, Rn), f32::INFINITY);
    }

    #[test]
    fn directed_multiplication_division_sqrt() {
        let third_rn = 1.0f32 / 3.0;
        assert_eq!(div32(1.0, 3.0, Rn), third_rn);
        // 1/3 rounded to nearest is below 1/3 (0x3eaaaaab is above): check consistency.
        let up = div32(1.0, 3.0, Rp);
        let down = div32(1.0, 3.0, Rm);
        assert_eq!(up.to_bits() - down.to_bits(), 1);
        assert_eq!(div32(1.0, 3.0, Rz), down);
        assert_eq!(sqrt32(2.0, Rp).to_bits() - sqrt32(2.0, Rm).to_bits(), 1);
        assert_eq!(sqrt32(4.0, Rp), 2.0);
        let x = 1.0f32 + f32::EPSILON;
        assert_eq!(mul32(x, x, Rp).to_bits() - mul32(x, x, Rm).to_bits(), 1);
        assert_eq!(mul64(3.0, 1.0 / 3.0, Rz), mul64(3.0, 1.0 / 3.0, Rm));
    }

    #[test]
    fn fma_directed() {
        let a = 1.0f32 + f32::EPSILON;
        let r = fma32(a, a, -1.0, Rn);
        assert_eq!(r, a.mul_add(a, -1.0));
        assert_eq!(fma32(1.0, 1.0, f32::EPSILON / 4.0, Rp), 1.0f32.next_up());
        assert_eq!(fma32(1.0, 1.0, f32::EPSILON / 4.0, Rz), 1.0);
        // An exact zero is -0 rounding down, +0 otherwise, unless both terms are zeros of
        // one sign (IEEE 754 §6.3; the H100 in differential tests).
        let bits = |x: f32| x.to_bits();
        assert_eq!(bits(fma32(1.0, 1.0, -1.0, Rm)), bits(-0.0));
        assert_eq!(bits(fma32(1.0, 1.0, -1.0, Rp)), bits(0.0));
        assert_eq!(bits(fma32(1.0, 1.0, -1.0, Rz)), bits(0.0));
        assert_eq!(bits(fma32(0.0, 5.0, -0.0, Rm)), bits(-0.0));
        assert_eq!(bits(fma32(0.0, 5.0, 0.0, Rm)), bits(0.0));
        assert_eq!(bits(fma32(-0.0, 5.0, -0.0, Rp)), bits(-0.0));
    }

    /// Rows of the H100's record (`tools/gpu/int_ops.cu`: op, index, operands, result).
    fn h100_rows() -> Vec<(&'static str, usize, Vec<u64>, u64)> {
        vec![
            (
                "dadd_rz",
                133,
                vec![0x7ff8000000000000, 0xfff8000000000123],
                0xfff8000000000123,
            ),
            (
                "dadd_rz",
                134,
                vec![0x7ff8000000000000, 0x7ff0000000000001],
                0x7ff8000000000001,
            ),
            (
                "dadd_rz",
                135,
                vec![0x7ff8000000000000, 0x7ff00000deadbeef],
                0x7ff80000deadbeef,
            ),
            (
                "dsub_rn",
                5,
                vec![0, 0xfff8000000000123],
                0xfff8000000000123,
            ),
            (
                "dsub_rn",
                6,
                vec![0, 0x7ff0000000000001],
                0x7ff8000000000001,
            ),
            (
                "dmul_rd",
                265,
                vec![0x1, 0x800fffffffffffff],
                0x8000000000000001,
            ),
            (
                "dmul_rd",
                270,
                vec![0x1, 0xc004000000000000],
                0x8000000000000003,
            ),
            (
                "dmul_rd",
                272,
                vec![0x1, 0x41dfffffffe00000],
                0x000000007fffffff,
            ),
            ("dmul_ru", 264, vec![0x1, 0x1], 0x1),
            (
                "dmul_rz",
                301,
                vec![0x800fffffffffffff, 0x3fe0000000000000],
                0x8007ffffffffffff,
            ),
            (
                "dmul_rz",
                302,
                vec![0x800fffffffffffff, 0xc004000000000000],
                0x0023fffffffffffe,
            ),
            (
                "ddiv_rz",
                287,
                vec![0x1, 0x380fffffffffffff],
                0x04b0000000000000,
            ),
            (
                "ddiv_rz",
                319,
                vec![0x800fffffffffffff, 0x380fffffffffffff],
                0x87effffffffffffe,
            ),
            (
                "ddiv_ru",
                1169,
                vec![0x8007c90bb3dba5e5, 0xbf5851ca87987819],
                0x00947cf7385ef2e5,
            ),
            (
                "ddiv_rd",
                329,
                vec![0x0010000000000000, 0x800fffffffffffff],
                0xbff0000000000002,
            ),
            (
                "dsqrt_rz",
                1026,
                vec![0x00005ed085431261],
                0x1fd3797c2b582979,
            ),
            (
                "dsqrt_rd",
                1092,
                vec![0x000919bc2172ab98],
                0x1ff82237c7fcc129,
            ),
            (
                "dsqrt_ru",
                1094,
                vec![0x000634d02e9139c9],
                0x1ff3ee11da8b7b91,
            ),
            (
                "fma_rn",
                128,
                vec![0x7ff8000000000000, 0, 0xfff8000000000123],
                0xfff8000000000123,
            ),
            (
                "fma_rn",
                138,
                vec![0x7ff8000000000000, 0x0010000000000000, 0x7ff00000deadbeef],
                0x7ff80000deadbeef,
            ),
            (
                "fma_rd",
                44,
                vec![0x8000000000000000, 0xbff0000000000000, 0x8000000000000000],
                0x8000000000000000,
            ),
            (
                "fma_rd",
                265,
                vec![0x1, 0x800fffffffffffff, 0x43efffffffffffff],
                0x43effffffffffffe,
            ),
            (
                "fma_ru",
                264,
                vec![0x1, 0x1, 0x3fe0000000000000],
                0x3fe0000000000001,
            ),
            (
                "fma_rz",
                269,
                vec![0x1, 0x3fe0000000000000, 0xc004000000000000],
                0xc003ffffffffffff,
            ),
        ]
    }

    #[test]
    fn f64_results_match_the_h100() {
        for (op, index, x, expected) in h100_rows() {
            let (name, mode) = op.split_once('_').unwrap();
            let mode = match mode {
                "rn" => Rn,
                "rz" => Rz,
                "rd" => Rm,
                _ => Rp,
            };
            let f = |i: usize| f64::from_bits(x[i]);
            let r = match name {
                "dadd" => add64(f(0), f(1), mode),
                "dsub" => sub64(f(0), f(1), mode),
                "dmul" => mul64(f(0), f(1), mode),
                "ddiv" => div64(f(0), f(1), mode),
                "dsqrt" => sqrt64(f(0), mode),
                "fma" => fma64(f(0), f(1), f(2), mode),
                _ => unreachable!(),
            };
            assert_eq!(r.to_bits(), expected, "{op} {index}");
        }
    }

    #[test]
    fn narrowing() {
        let x = 1.0f64 + f64::EPSILON;
        assert_eq!(f64_to_f32(x, Rn), 1.0);
        assert_eq!(f64_to_f32(x, Rp), 1.0f32.next_up());
        assert_eq!(f64_to_f32(-x, Rm), (-1.0f32).next_down());
        assert_eq!(f64_to_half(1.0 + 1e-4, Rn, false), 0x3c00);
        assert_eq!(f64_to_half(1.0 + 1e-4, Rp, false), 0x3c01);
        assert_eq!(f64_to_half(1e6, Rz, false), 0x7bff);
        assert_eq!(f64_to_half(1e6, Rn, false), 0x7c00);
        assert_eq!(ftz32(f32::MIN_POSITIVE / 2.0), 0.0);
        assert_eq!(sat32(f32::NAN), 0.0);
        assert_eq!(sat32(2.0), 1.0);
    }
}
