//! FP8 conversions of `cvt` (PTX ISA §9.7.8.20, formats of §5.2.5.1):
//!
//! * `cvt.rn.satfinite{.relu}.e4m3x2.f32 d, a, b` / `.e5m2x2.f32`: two f32 values to two
//!   FP8 values packed in 16 bits, `a` in the upper byte;
//! * `cvt.rn.satfinite{.relu}.e4m3x2.f16x2 d, a`: the two halves of `a`, the upper half
//!   to the upper byte;
//! * `cvt.rn{.relu}.f16x2.e4m3x2 d, a`: back to two halves (exact: every FP8 value is an
//!   f16 value).
//!
//! Rounding is to nearest, ties to even, with gradual underflow into the FP8 subnormals.
//! `.satfinite` (mandatory towards FP8) clamps values, infinities included, whose rounded
//! magnitude exceeds the format's largest finite value `MAX_NORM` to `±MAX_NORM`; NaN
//! converts to the canonical NaN `0x7f`. `.relu` turns negative results (and `-0`) into
//! `+0` and keeps NaN as the canonical NaN.
//!
//! The conversions work on f64: every f32 and f16 input is exact there, and scaling by a
//! power of two is exact, so the only rounding is the final one to the FP8 grid.

/// An FP8 format.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Fp8 {
    /// 4 exponent bits (bias 7), 3 mantissa bits; no infinities, NaN is `S.1111.111`,
    /// `MAX_NORM` is 448.
    E4m3,
    /// 5 exponent bits (bias 15), 2 mantissa bits; IEEE-style infinities and NaNs,
    /// `MAX_NORM` is 57344.
    E5m2,
}

/// The canonical FP8 NaN of both formats.
const NAN8: u8 = 0x7f;
/// The canonical f16 NaN.
const NAN16: u16 = 0x7fff;

impl Fp8 {
    fn mant_bits(self) -> i32 {
        match self {
            Fp8::E4m3 => 3,
            Fp8::E5m2 => 2,
        }
    }

    fn bias(self) -> i32 {
        match self {
            Fp8::E4m3 => 7,
            Fp8::E5m2 => 15,
        }
    }

    /// The largest finite magnitude.
    pub(crate) fn max_norm(self) -> f64 {
        match self {
            Fp8::E4m3 => 448.0,
            Fp8::E5m2 => 57344.0,
        }
    }

    /// Whether `bits` (sign ignored) encodes NaN.
    fn is_nan(self, bits: u8) -> bool {
        match self {
            Fp8::E4m3 => bits & 0x7f == 0x7f,
            Fp8::E5m2 => bits & 0x7f > 0x7c,
        }
    }

    /// `x` rounded to nearest even on this format's grid, with `.satfinite` and optional
    /// `.relu`, encoded.
    pub(crate) fn encode(self, x: f64, relu: bool) -> u8 {
        if x.is_nan() {
            return NAN8;
        }
        if relu && x.is_sign_negative() {
            return 0;
        }
        let sign = if x.is_sign_negative() { 0x80u8 } else { 0 };
        let a = x.abs();
        if a == 0.0 {
            return sign;
        }
        let m = self.mant_bits();
        let emin = 1 - self.bias();
        // The quantum (value of one unit in the last place) at `a`'s binade, never below
        // the subnormal quantum.
        let e = if a.is_finite() { exponent(a) } else { 1024 };
        let q = e.max(emin) - m;
        let units = if a.is_finite() {
            round_half_even(a * pow2(-q))
        } else {
            f64::INFINITY
        };
        let r = units * pow2(q);
        if r > self.max_norm() {
            return sign | self.encode_magnitude(self.max_norm());
        }
        sign | self.encode_magnitude(r)
    }

    /// Encodes a non-negative finite value that lies on the format's grid.
    fn encode_magnitude(self, r: f64) -> u8 {
        if r == 0.0 {
            return 0;
        }
        let m = self.mant_bits();
        let emin = 1 - self.bias();
        let e = exponent(r);
        if e < emin {
            // Subnormal: exponent field 0, the value in units of 2^(emin - m).
            (r * pow2(m - emin)) as u8
        } else {
            let field = (e + self.bias()) as u8;
            let mant = (r * pow2(m - e)) as u8 - (1u8 << m);
            (field << m) | mant
        }
    }

    /// The value of `bits` as an f16 bit pattern (exact; NaN becomes the canonical f16
    /// NaN; `.relu` turns negative values into `+0`).
    pub(crate) fn to_f16(self, bits: u8, relu: bool) -> u16 {
        if self.is_nan(bits) {
            return NAN16;
        }
        let neg = bits & 0x80 != 0;
        if relu && neg {
            return 0;
        }
        let v = self.decode(bits & 0x7f);
        let h = half::f16::from_f64(v).to_bits();
        if neg { h | 0x8000 } else { h }
    }

    /// The value of a non-negative, non-NaN encoding.
    fn decode(self, bits: u8) -> f64 {
        let m = self.mant_bits();
        let field = (bits >> m) as i32;
        let mant = (bits & ((1 << m) - 1)) as f64;
        if self == Fp8::E5m2 && field == 31 {
            return f64::INFINITY;
        }
        if field == 0 {
            mant * pow2(1 - self.bias() - m)
        } else {
            (mant + pow2(m)) * pow2(field - self.bias() - m)
        }
    }
}

/// The unbiased binary exponent of a positive finite f64 (`floor(log2(a))`).
fn exponent(a: f64) -> i32 {
    let bits = a.to_bits();
    let field = ((bits >> 52) & 0x7ff) as i32;
    if field == 0 {
        // f64 subnormal: never reached from f32/f16 inputs, but stay correct.
        -1074 + (63 - (bits & ((1 << 52) - 1)).leading_zeros() as i32)
    } else {
        field - 1023
    }
}

/// `2^e` for the exponents used here (well inside f64's normal range).
fn pow2(e: i32) -> f64 {
    f64::from_bits(((e + 1023) as u64) << 52)
}

/// Rounds a non-negative value to an integer, ties to even.
fn round_half_even(x: f64) -> f64 {
    let r = x.round(); // ties away from zero
    if (r - x).abs() == 0.5 && r % 2.0 != 0.0 {
        r - 1.0
    } else {
        r
    }
}

/// `cvt.rn.satfinite{.relu}.f8x2.f32 d, a, b`: `a` to the upper byte, `b` to the lower.
pub(crate) fn pack_f32(fmt: Fp8, relu: bool, a: f32, b: f32) -> u16 {
    ((fmt.encode(a as f64, relu) as u16) << 8) | fmt.encode(b as f64, relu) as u16
}

/// `cvt.rn.satfinite{.relu}.f8x2.f16x2 d, a`.
pub(crate) fn pack_f16x2(fmt: Fp8, relu: bool, a: u32) -> u16 {
    let conv = |h: u16| fmt.encode(half::f16::from_bits(h).to_f64(), relu) as u16;
    (conv((a >> 16) as u16) << 8) | conv(a as u16)
}

/// `cvt.rn{.relu}.f16x2.f8x2 d, a`.
pub(crate) fn unpack_f16x2(fmt: Fp8, relu: bool, a: u16) -> u32 {
    ((fmt.to_f16((a >> 8) as u8, relu) as u32) << 16) | fmt.to_f16(a as u8, relu) as u32
}

#[cfg(test)]
mod tests {
    use super::Fp8::*;
    use super::*;

    #[test]
    fn exact_values_encode_exactly() {
        assert_eq!(E4m3.encode(1.0, false), 0x38);
        assert_eq!(E4m3.encode(-2.0, false), 0xc0);
        assert_eq!(E4m3.encode(448.0, false), 0x7e);
        assert_eq!(E4m3.encode(2f64.powi(-9), false), 0x01); // smallest subnormal
        assert_eq!(E4m3.encode(2f64.powi(-6), false), 0x08); // smallest normal
        assert_eq!(E5m2.encode(1.0, false), 0x3c);
        assert_eq!(E5m2.encode(57344.0, false), 0x7b);
        assert_eq!(E5m2.encode(2f64.powi(-16), false), 0x01);
        // E5M2 is the upper byte of f16.
        for h in [0x3c00u16, 0x4100, 0x0100, 0x7b00, 0xc400] {
            let v = half::f16::from_bits(h).to_f64();
            assert_eq!(E5m2.encode(v, false) as u16, h >> 8);
        }
    }

    #[test]
    fn ties_round_to_even() {
        // Between 1.0 (0x38) and 1.125 (0x39): the midpoint goes to the even 1.0 ...
        assert_eq!(E4m3.encode(1.0625, false), 0x38);
        // ... and between 1.125 and 1.25 (0x3a) to the even 1.25.
        assert_eq!(E4m3.encode(1.1875, false), 0x3a);
        // Just above the midpoint rounds up.
        assert_eq!(E4m3.encode(1.0625 + 1e-6, false), 0x39);
        // Subnormal ties: 1.5 units of 2^-9 goes to 2 units, 0.5 units to 0.
        assert_eq!(E4m3.encode(1.5 * 2f64.powi(-9), false), 0x02);
        assert_eq!(E4m3.encode(0.5 * 2f64.powi(-9), false), 0x00);
        assert_eq!(E4m3.encode(-0.5 * 2f64.powi(-9), false), 0x80);
        // Rounding up out of the subnormals into the smallest normal.
        assert_eq!(E4m3.encode(7.5 * 2f64.powi(-9), false), 0x08);
    }

    #[test]
    fn satfinite_clamps_and_nan_is_canonical() {
        assert_eq!(E4m3.encode(464.0, false), 0x7e); // rounds to 448 (tie to even)
        assert_eq!(E4m3.encode(1e6, false), 0x7e);
        assert_eq!(E4m3.encode(f64::INFINITY, false), 0x7e);
        assert_eq!(E4m3.encode(f64::NEG_INFINITY, false), 0xfe);
        assert_eq!(E5m2.encode(f64::INFINITY, false), 0x7b);
        assert_eq!(E5m2.encode(-1e9, false), 0xfb);
        assert_eq!(E4m3.encode(f64::NAN, false), 0x7f);
        assert_eq!(E5m2.encode(-f64::NAN, true), 0x7f);
    }

    #[test]
    fn relu_clamps_negatives() {
        assert_eq!(E4m3.encode(-3.0, true), 0x00);
        assert_eq!(E4m3.encode(-0.0, true), 0x00);
        assert_eq!(E4m3.encode(3.0, true), 0x44);
    }

    #[test]
    fn round_trip_through_f16_is_exact() {
        for fmt in [E4m3, E5m2] {
            for b in 0..=255u8 {
                let h = fmt.to_f16(b, false);
                if fmt.is_nan(b) {
                    assert_eq!(h, NAN16);
                    continue;
                }
                let v = half::f16::from_bits(h).to_f64();
                if v.is_infinite() {
                    assert_eq!(fmt, E5m2);
                    continue;
                }
                assert_eq!(fmt.encode(v, false), b, "{fmt:?} {b:#04x} -> {v}");
            }
        }
    }

    #[test]
    fn packing_order() {
        assert_eq!(pack_f32(E4m3, false, 1.0, -2.0), 0x38c0);
        assert_eq!(unpack_f16x2(E4m3, false, 0x38c0), 0x3c00_c000);
        assert_eq!(pack_f16x2(E5m2, false, 0x3c00_c000), 0x3cc0);
    }
}
