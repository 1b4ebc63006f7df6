//! `cvt` conversions that involve a floating-point type (PTX ISA §9.7.8.20, and the
//! rounding and saturation rules of §9.7.8.20.1–2).
//!
//! * float → integer: round to an integral value with the integer rounding modifier
//!   (`.rni` nearest even, `.rzi` towards zero, `.rmi` down, `.rpi` up), then saturate to
//!   the destination range (PTX saturates every float-to-integer conversion). NaN converts
//!   to 0 from f32 to 32 bits and to the destination's sign bit from f64 or to 64 bits,
//!   as on the H100 (`CvtSpec::nan_to_int`).
//! * integer → float and float → narrower float: round with `.rn/.rz/.rm/.rp`.
//! * float → same-size float with an integer rounding modifier: round to integral.
//! * float → wider float: exact.
//! * `.ftz` flushes f32 subnormal inputs and results, `.sat` clamps float results to
//!   [0, 1], `.relu` clamps negative half results to 0.

use warpcheck_ir::Type;
use warpcheck_ir::modifiers::RoundingMode;

use super::float::{adjust32, adjust64, f64_to_f32, f64_to_half, ftz32, half_to_f64, sat32, sat64};

/// The value domain of one side of a conversion.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum CTy {
    Int { bits: u8, signed: bool },
    F16,
    Bf16,
    F32,
    F64,
}

impl CTy {
    fn of(ty: Type) -> Option<CTy> {
        Some(match ty {
            Type::F16 => CTy::F16,
            Type::Bf16 => CTy::Bf16,
            Type::F32 => CTy::F32,
            Type::F64 => CTy::F64,
            t if t.is_integer() => CTy::Int {
                bits: t.bits() as u8,
                signed: t.is_signed(),
            },
            _ => return None,
        })
    }
}

/// A decoded float conversion.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct CvtSpec {
    pub dst: CTy,
    pub src: CTy,
    /// The rounding (integer rounding modifiers are mapped to the same four modes).
    pub rnd: RoundingMode,
    /// Whether the rounding came from an integer rounding modifier (round to integral).
    pub integral: bool,
    pub ftz: bool,
    pub sat: bool,
    pub relu: bool,
}

impl CvtSpec {
    pub fn new(
        dst: Type,
        src: Type,
        rnd: Option<RoundingMode>,
        ftz: bool,
        sat: bool,
        relu: bool,
    ) -> Option<CvtSpec> {
        let (d, s) = (CTy::of(dst)?, CTy::of(src)?);
        let integral = matches!(d, CTy::Int { .. }) || (d == s && rnd.is_some());
        Some(CvtSpec {
            dst: d,
            src: s,
            rnd: rnd.unwrap_or(RoundingMode::Rn),
            integral,
            ftz,
            sat,
            relu,
        })
    }

    /// Converts one lane's bits.
    pub fn apply(&self, x: u64) -> u64 {
        match self.src {
            CTy::Int { bits, signed } => self.convert_int(x, bits, signed),
            CTy::F32 => {
                let mut v = f32::from_bits(x as u32);
                if self.ftz {
                    v = ftz32(v);
                }
                self.convert_float(v as f64, Some(v))
            }
            CTy::F64 => self.convert_float(f64::from_bits(x), None),
            CTy::F16 => self.convert_float(half_to_f64(x as u16, false), None),
            // bf16 is the upper half of f32: the GPU widens by a shift, NaN payloads and
            // signalling NaNs included.
            CTy::Bf16 if self.dst == CTy::F32 && !self.integral && !self.ftz && !self.sat => {
                (x & 0xffff) << 16
            }
            CTy::Bf16 => self.convert_float(half_to_f64(x as u16, true), None),
        }
    }

    fn convert_int(&self, x: u64, bits: u8, signed: bool) -> u64 {
        let v: i128 = if signed {
            let shift = 64 - bits as u32;
            (((x << shift) as i64) >> shift) as i128
        } else if bits >= 64 {
            x as i128
        } else {
            (x & ((1u64 << bits) - 1)) as i128
        };
        match self.dst {
            CTy::F32 => {
                let r = v as f32;
                let err = if r.is_finite() {
                    (v - r as i128).signum() as f32
                } else {
                    0.0
                };
                let mut r = adjust32(r, err, self.rnd, true);
                if self.sat {
                    r = sat32(r);
                }
                r.to_bits() as u64
            }
            CTy::F64 => {
                let r = v as f64;
                let err = (v - r as i128).signum() as f64;
                let mut r = adjust64(r, err, self.rnd, true);
                if self.sat {
                    r = sat64(r);
                }
                r.to_bits()
            }
            CTy::F16 | CTy::Bf16 => {
                // |v| < 2^64 is exact enough in f64 for the final rounding except in
                // rare double-rounding cases far outside the half range.
                let h = f64_to_half(v as f64, self.rnd, self.dst == CTy::Bf16);
                h as u64
            }
            CTy::Int { .. } => x,
        }
    }

    /// The integer a NaN converts to (H100, int_ops `float2int_*`, `float2ll_*`,
    /// `double2int_*`, `double2ull_*`, every rounding mode, signed or not): 0 from f32 to
    /// 32 bits, the destination's sign bit (`0x80000000`, `0x8000000000000000`) from f64 or
    /// to 64 bits. Narrower destinations and half sources were not recorded and give 0.
    fn nan_to_int(&self, bits: u8) -> u64 {
        if bits == 64 || (bits == 32 && self.src == CTy::F64) {
            1 << (bits - 1)
        } else {
            0
        }
    }

    fn convert_float(&self, v: f64, as_f32: Option<f32>) -> u64 {
        match self.dst {
            CTy::Int { bits, signed } => {
                if v.is_nan() {
                    return self.nan_to_int(bits);
                }
                let r = round_integral(v, self.rnd);
                let (lo, hi): (i128, i128) = if signed {
                    (-(1i128 << (bits - 1)), (1i128 << (bits - 1)) - 1)
                } else {
                    (0, (1i128 << bits) - 1)
                };
                let i: i128 = if r >= hi as f64 {
                    hi
                } else if r <= lo as f64 {
                    lo
                } else {
                    r as i128
                };
                let mask = if bits >= 64 {
                    u64::MAX
                } else {
                    (1u64 << bits) - 1
                };
                (i as u64) & mask
            }
            CTy::F32 => {
                let mut r = match (self.src, as_f32) {
                    (CTy::F32, Some(f)) => {
                        if self.integral && f.is_nan() {
                            // `cvt.rni.f32.f32` and the like give the canonical NaN (H100).
                            f32::from_bits(0x7fff_ffff)
                        } else if self.integral {
                            round_integral(f as f64, self.rnd) as f32
                        } else {
                            f
                        }
                    }
                    _ if self.integral => round_integral(v, self.rnd) as f32,
                    _ => f64_to_f32(v, self.rnd),
                };
                if self.ftz {
                    r = ftz32(r);
                }
                if self.sat {
                    r = sat32(r);
                }
                r.to_bits() as u64
            }
            CTy::F64 => {
                let mut r = if self.integral {
                    round_integral(v, self.rnd)
                } else {
                    v
                };
                if self.sat {
                    r = sat64(r);
                }
                r.to_bits()
            }
            CTy::F16 | CTy::Bf16 => {
                let bf = self.dst == CTy::Bf16;
                let mut v = if self.integral {
                    round_integral(v, self.rnd)
                } else {
                    v
                };
                if self.sat {
                    v = sat64(v);
                }
                // `.relu` clamps negative values and -0 to +0; NaN stays (canonical) NaN.
                if self.relu && v.is_sign_negative() && !v.is_nan() {
                    v = 0.0;
                }
                f64_to_half(v, self.rnd, bf) as u64
            }
        }
    }
}

/// Rounds to an integral value.
pub(crate) fn round_integral(v: f64, mode: RoundingMode) -> f64 {
    match mode {
        RoundingMode::Rz => v.trunc(),
        RoundingMode::Rm => v.floor(),
        RoundingMode::Rp => v.ceil(),
        _ => v.round_ties_even(),
    }
}

/// Integer-to-integer conversion with optional saturation (`cvt.sat.u8.s32` …).
#[inline(always)]
pub(crate) fn int_cvt(
    x: u64,
    from: u32,
    from_signed: bool,
    to: u32,
    to_signed: bool,
    sat: bool,
) -> u64 {
    let v: i128 = if from_signed {
        let shift = 64 - from;
        (((x << shift) as i64) >> shift) as i128
    } else if from >= 64 {
        x as i128
    } else {
        (x & ((1u64 << from) - 1)) as i128
    };
    let v = if sat {
        let (lo, hi): (i128, i128) = if to_signed {
            (-(1i128 << (to - 1)), (1i128 << (to - 1)) - 1)
        } else {
            (0, (1i128 << to) - 1)
        };
        v.clamp(lo, hi)
    } else {
        v
    };
    let mask = if to >= 64 { u64::MAX } else { (1u64 << to) - 1 };
    (v as u64) & mask
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cvt(dst: Type, src: Type, rnd: Option<RoundingMode>, x: u64) -> u64 {
        CvtSpec::new(dst, src, rnd, false, false, false)
            .unwrap()
            .apply(x)
    }

    /// H100 rows (int_ops op and index): NaN to 32 bits from f32 is 0, from f64 and to
    /// 64 bits it is the destination's sign bit.
    #[test]
    fn nan_to_int_follows_the_h100() {
        use RoundingMode::*;
        let qnan32 = 0x7fc0_0000u64;
        let qnan64 = 0x7ff8_0000_0000_0000u64;
        for rnd in [Rn, Rz, Rm, Rp] {
            assert_eq!(cvt(Type::U32, Type::F32, Some(rnd), qnan32), 0); // float2uint_* 128
            assert_eq!(cvt(Type::S64, Type::F32, Some(rnd), qnan32), 1 << 63); // float2ll_* 128
            assert_eq!(cvt(Type::U64, Type::F32, Some(rnd), 0x7f80_0001), 1 << 63);
            assert_eq!(cvt(Type::S32, Type::F64, Some(rnd), qnan64), 1 << 31); // double2int_* 128
            assert_eq!(cvt(Type::U32, Type::F64, Some(rnd), qnan64), 1 << 31); // double2uint_* 128
            assert_eq!(cvt(Type::U64, Type::F64, Some(rnd), qnan64), 1 << 63); // double2ull_* 128
        }
    }

    #[test]
    fn float_to_int_saturates_and_maps_nan_to_zero() {
        use RoundingMode::*;
        let f = |x: f32| x.to_bits() as u64;
        assert_eq!(cvt(Type::S32, Type::F32, Some(Rz), f(f32::NAN)), 0);
        assert_eq!(cvt(Type::S32, Type::F32, Some(Rz), f(3e9)), i32::MAX as u64);
        assert_eq!(
            cvt(Type::S32, Type::F32, Some(Rz), f(-3e9)),
            i32::MIN as u32 as u64
        );
        assert_eq!(cvt(Type::U32, Type::F32, Some(Rz), f(-5.0)), 0);
        assert_eq!(cvt(Type::S32, Type::F32, Some(Rn), f(2.5)), 2);
        assert_eq!(cvt(Type::S32, Type::F32, Some(Rn), f(3.5)), 4);
        assert_eq!(
            cvt(Type::S32, Type::F32, Some(Rm), f(-2.5)),
            (-3i32) as u32 as u64
        );
        assert_eq!(cvt(Type::S32, Type::F32, Some(Rp), f(2.1)), 3);
        assert_eq!(cvt(Type::U8, Type::F32, Some(Rn), f(300.0)), 255);
        assert_eq!(
            cvt(Type::S64, Type::F64, Some(Rz), 1e300f64.to_bits()),
            i64::MAX as u64
        );
    }

    #[test]
    fn int_to_float_rounding() {
        use RoundingMode::*;
        let big = (1u64 << 24) + 1;
        assert_eq!(
            cvt(Type::F32, Type::U32, Some(Rn), big),
            (16777216.0f32).to_bits() as u64
        );
        assert_eq!(
            cvt(Type::F32, Type::U32, Some(Rp), big),
            (16777218.0f32).to_bits() as u64
        );
        assert_eq!(
            cvt(
                Type::F32,
                Type::S32,
                Some(Rm),
                (-(big as i64)) as u64 & 0xffff_ffff
            ),
            (-16777218.0f32).to_bits() as u64
        );
        assert_eq!(
            cvt(Type::F16, Type::F32, Some(Rn), 1.0f32.to_bits() as u64),
            0x3c00
        );
        assert_eq!(
            cvt(Type::F32, Type::F16, None, 0x3c00),
            1.0f32.to_bits() as u64
        );
        assert_eq!(
            cvt(Type::F32, Type::F32, Some(Rm), (-1.5f32).to_bits() as u64),
            (-2.0f32).to_bits() as u64
        );
    }

    #[test]
    fn integer_conversions() {
        assert_eq!(int_cvt(0xffff_ffff, 32, true, 64, true, false), u64::MAX);
        assert_eq!(
            int_cvt(0xffff_ffff, 32, false, 64, false, false),
            0xffff_ffff
        );
        assert_eq!(int_cvt(300, 32, true, 8, false, true), 255);
        assert_eq!(int_cvt((-5i32) as u32 as u64, 32, true, 8, false, true), 0);
        assert_eq!(
            int_cvt(0x1_2345_6789, 64, false, 32, false, false),
            0x2345_6789
        );
    }
}
