//! Integer functions the engine does not expand into polynomials but can evaluate once
//! their arguments are numbers: bitwise operations, shifts by a variable amount, the high
//! half of a product, truncating division, bit counts.
//!
//! They keep their arguments, so an expression that uses them still says what it depends
//! on (`threadIdx.x ^ 16` depends on `threadIdx.x`), and instantiation evaluates them.
//! Arguments are taken as two's-complement values of the function's width; results are
//! read back as signed values of that width, except for the bit counts.

use std::fmt;

/// What the function computes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum FuncKind {
    And,
    Or,
    Xor,
    /// Bitwise complement (one argument).
    Not,
    /// `a << b` with `b` not a known number.
    Shl,
    /// `a >> b` (arithmetic when signed) with `b` not a known number.
    Shr {
        signed: bool,
    },
    /// The high half of the double-width product (`mul.hi`, `__umulhi`).
    MulHi {
        signed: bool,
    },
    /// C division, rounding towards zero (`div.s32` of a value of unknown sign).
    TruncDiv,
    /// C remainder, with the sign of the dividend.
    TruncRem,
    /// Number of set bits.
    Popc,
    /// Leading zero bits.
    Clz,
    /// Bit reversal.
    Brev,
}

/// A function and the width in bits of its operands.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Func {
    pub kind: FuncKind,
    pub width: u8,
}

impl Func {
    pub fn new(kind: FuncKind, width: u8) -> Func {
        Func {
            kind,
            width: width.clamp(1, 64),
        }
    }

    /// How many arguments it takes.
    pub fn arity(self) -> usize {
        match self.kind {
            FuncKind::Not | FuncKind::Popc | FuncKind::Clz | FuncKind::Brev => 1,
            _ => 2,
        }
    }

    fn mask(self) -> u128 {
        if self.width >= 64 {
            u64::MAX as u128
        } else {
            (1u128 << self.width) - 1
        }
    }

    /// The two's-complement bits of `v` at this width.
    fn bits(self, v: i128) -> u128 {
        (v as u128) & self.mask()
    }

    /// Bits read back as a signed value of this width.
    fn signed(self, bits: u128) -> i128 {
        let w = self.width as u32;
        let bits = bits & self.mask();
        if w < 128 && bits >> (w - 1) & 1 == 1 {
            bits as i128 - (1i128 << w)
        } else {
            bits as i128
        }
    }

    fn unsigned(self, v: i128) -> i128 {
        self.bits(v) as i128
    }

    /// Evaluates the function; `None` for a wrong number of arguments or division by 0.
    pub fn eval(self, args: &[i128]) -> Option<i128> {
        if args.len() != self.arity() {
            return None;
        }
        let w = self.width as u32;
        let a = args[0];
        let b = args.get(1).copied().unwrap_or(0);
        Some(match self.kind {
            FuncKind::And => self.signed(self.bits(a) & self.bits(b)),
            FuncKind::Or => self.signed(self.bits(a) | self.bits(b)),
            FuncKind::Xor => self.signed(self.bits(a) ^ self.bits(b)),
            FuncKind::Not => self.signed(!self.bits(a)),
            FuncKind::Shl => {
                let s = self.unsigned(b);
                if s >= w as i128 {
                    0
                } else {
                    self.signed(self.bits(a) << s)
                }
            }
            FuncKind::Shr { signed } => {
                let s = self.unsigned(b).min(w as i128) as u32;
                if signed {
                    let v = self.signed(self.bits(a));
                    if s >= w {
                        if v < 0 { -1 } else { 0 }
                    } else {
                        v >> s
                    }
                } else if s >= w {
                    0
                } else {
                    (self.bits(a) >> s) as i128
                }
            }
            FuncKind::MulHi { signed } => {
                if signed {
                    let p = self
                        .signed(self.bits(a))
                        .checked_mul(self.signed(self.bits(b)))?;
                    p >> w
                } else {
                    let p = self.bits(a).checked_mul(self.bits(b))?;
                    (p >> w) as i128
                }
            }
            FuncKind::TruncDiv => {
                if b == 0 {
                    return None;
                }
                a.checked_div(b)?
            }
            FuncKind::TruncRem => {
                if b == 0 {
                    return None;
                }
                a.checked_rem(b)?
            }
            FuncKind::Popc => self.bits(a).count_ones() as i128,
            FuncKind::Clz => {
                let bits = self.bits(a);
                (bits.leading_zeros() - (128 - w)) as i128
            }
            FuncKind::Brev => {
                let bits = self.bits(a);
                let rev = bits.reverse_bits() >> (128 - w);
                self.signed(rev)
            }
        })
    }

    /// The C operator, for the infix functions.
    pub fn operator(self) -> Option<&'static str> {
        Some(match self.kind {
            FuncKind::And => "&",
            FuncKind::Or => "|",
            FuncKind::Xor => "^",
            FuncKind::Shl => "<<",
            FuncKind::Shr { .. } => ">>",
            FuncKind::TruncDiv => "/",
            FuncKind::TruncRem => "%",
            _ => return None,
        })
    }

    /// The name, for the functions printed as calls.
    pub fn name(self) -> &'static str {
        match self.kind {
            FuncKind::And => "and",
            FuncKind::Or => "or",
            FuncKind::Xor => "xor",
            FuncKind::Not => "~",
            FuncKind::Shl => "shl",
            FuncKind::Shr { .. } => "shr",
            FuncKind::MulHi { .. } => "mulhi",
            FuncKind::TruncDiv => "div",
            FuncKind::TruncRem => "rem",
            FuncKind::Popc => "popc",
            FuncKind::Clz => "clz",
            FuncKind::Brev => "brev",
        }
    }
}

impl fmt::Display for Func {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn evaluates_at_width() {
        let f = |k| Func::new(k, 32);
        assert_eq!(f(FuncKind::Xor).eval(&[5, 16]), Some(21));
        assert_eq!(f(FuncKind::And).eval(&[-1, 255]), Some(255));
        assert_eq!(f(FuncKind::Not).eval(&[0]), Some(-1));
        assert_eq!(f(FuncKind::Shr { signed: false }).eval(&[-1, 28]), Some(15));
        assert_eq!(f(FuncKind::Shr { signed: true }).eval(&[-16, 2]), Some(-4));
        assert_eq!(
            f(FuncKind::MulHi { signed: false }).eval(&[7, 0xAAAA_AAAB]),
            Some(4)
        );
        assert_eq!(f(FuncKind::TruncDiv).eval(&[-7, 2]), Some(-3));
        assert_eq!(f(FuncKind::TruncRem).eval(&[-7, 2]), Some(-1));
        assert_eq!(f(FuncKind::TruncDiv).eval(&[1, 0]), None);
        assert_eq!(f(FuncKind::Popc).eval(&[0xff]), Some(8));
        assert_eq!(f(FuncKind::Clz).eval(&[1]), Some(31));
        assert_eq!(f(FuncKind::Brev).eval(&[1]), Some(i32::MIN as i128));
    }
}
