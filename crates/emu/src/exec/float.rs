//! IEEE-754 arithmetic with PTX's rounding modifiers, flush-to-zero and saturation
//! (PTX ISA §9.7.3 "Floating-point instructions", §9.7.4 half precision).
//!
//! The host computes in round-to-nearest-even only. Directed rounding (`.rz`, `.rm`,
//! `.rp`) is derived from the round-to-nearest result `r` and the *sign of the rounding
//! error* `exact - r`, which error-free transformations give exactly:
//! * addition: TwoSum (Knuth), `err = (a - (s - bb)) + (b - bb)`;
//! * multiplication: `err = fma(a, b, -p)`;
//! * division: the residual `a - q·b = fma(-q, b, a)`, whose sign times the sign of `b`
//!   is the sign of the error;
//! * square root: the residual `a - s² = fma(-s, s, a)`;
//! * f32 fma: the product is exact in f64, TwoSum in f64 gives the exact sum as `s + e`.
//!
//! Given that sign, the correctly rounded directed result is `r` or its neighbour towards
//! the error. The error terms are exact unless the result underflows into the subnormal
//! range (then directed rounding of products may be off by one ulp; documented in the
//! crate docs). Half-precision operations compute in f64, where sums and products of
//! halves are exact, and round once.

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

pub fn add64(a: f64, b: f64, mode: RoundingMode) -> f64 {
    let s = a + b;
    if mode == RoundingMode::Rn {
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

pub fn mul64(a: f64, b: f64, mode: RoundingMode) -> f64 {
    let p = a * b;
    if mode == RoundingMode::Rn {
        return p;
    }
    let err = a.mul_add(b, -p);
    adjust64(p, err, mode, a.is_finite() && b.is_finite())
}

pub fn div32(a: f32, b: f32, mode: RoundingMode) -> f32 {
    if mode == RoundingMode::Rn {
        return a / b;
    }
    f64_to_f32(a as f64 / b as f64, mode)
}

pub fn div64(a: f64, b: f64, mode: RoundingMode) -> f64 {
    let q = a / b;
    let overflow = q.is_infinite() && a.is_finite() && b != 0.0;
    if mode == RoundingMode::Rn || (!q.is_finite() && !overflow) {
        return q;
    }
    let residual = (-q).mul_add(b, a);
    let err = if b < 0.0 { -residual } else { residual };
    adjust64(q, err, mode, a.is_finite() && b.is_finite() && b != 0.0)
}

pub fn sqrt32(a: f32, mode: RoundingMode) -> f32 {
    if mode == RoundingMode::Rn {
        return a.sqrt();
    }
    f64_to_f32((a as f64).sqrt(), mode)
}

pub fn sqrt64(a: f64, mode: RoundingMode) -> f64 {
    let s = a.sqrt();
    if mode == RoundingMode::Rn || !s.is_finite() || s == 0.0 {
        return s;
    }
    adjust64(s, (-s).mul_add(s, a), mode, true)
}

/// f32 fused multiply-add with any rounding mode (see the module docs).
pub fn fma32(a: f32, b: f32, c: f32, mode: RoundingMode) -> f32 {
    if mode == RoundingMode::Rn {
        return a.mul_add(b, c);
    }
    let p = a as f64 * b as f64;
    let s = p + c as f64;
    if !s.is_finite() || s == 0.0 {
        return a.mul_add(b, c);
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

/// f64 fused multiply-add. Directed rounding of f64 fma would need wider arithmetic;
/// the emulator rounds it from the round-to-nearest result and the sign of the
/// two-product error, which is exact unless `c` cancels the product (documented).
pub fn fma64(a: f64, b: f64, c: f64, mode: RoundingMode) -> f64 {
    let r = a.mul_add(b, c);
    if mode == RoundingMode::Rn || !r.is_finite() {
        return r;
    }
    // exact = a*b + c = (p + pe) + c; r ≈ exact. err = (p - r) + c + pe.
    let p = a * b;
    let pe = a.mul_add(b, -p);
    let err = ((p - r) + c) + pe;
    adjust64(
        r,
        err,
        mode,
        a.is_finite() && b.is_finite() && c.is_finite(),
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
