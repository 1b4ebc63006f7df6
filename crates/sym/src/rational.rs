//! Exact rational numbers over `i128`, always in lowest terms with a positive denominator.
//!
//! Every operation is checked: an overflow gives `None` instead of a wrong value, and the
//! expression layer turns it into an unknown value ([`crate::Expr::unknown`]). Index
//! arithmetic in kernels stays far below 2^127, so overflow is a guard, not a regime.

use std::cmp::Ordering;
use std::fmt;

/// A rational number `num / den` with `den > 0` and `gcd(num, den) = 1`.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub struct Rational {
    num: i128,
    den: i128,
}

fn gcd(mut a: i128, mut b: i128) -> i128 {
    // `unsigned_abs` keeps i128::MIN from overflowing; a gcd of i128::MIN with 0 is not
    // representable, which `new` rejects.
    a = a.checked_abs().unwrap_or(0);
    b = b.checked_abs().unwrap_or(0);
    while b != 0 {
        let t = a % b;
        a = b;
        b = t;
    }
    a
}

/// The greatest common divisor of two integers (0 when both are 0).
pub fn gcd_i128(a: i128, b: i128) -> i128 {
    gcd(a, b)
}

impl Rational {
    pub const ZERO: Rational = Rational { num: 0, den: 1 };
    pub const ONE: Rational = Rational { num: 1, den: 1 };
    pub const MINUS_ONE: Rational = Rational { num: -1, den: 1 };

    /// An integer.
    pub const fn int(value: i128) -> Rational {
        Rational { num: value, den: 1 }
    }

    /// `num / den` in lowest terms; `None` when `den` is 0 or the values cannot be
    /// normalised without overflow (`i128::MIN`).
    pub fn new(num: i128, den: i128) -> Option<Rational> {
        if den == 0 || num == i128::MIN || den == i128::MIN {
            return None;
        }
        let g = gcd(num, den).max(1);
        let (mut n, mut d) = (num / g, den / g);
        if d < 0 {
            n = -n;
            d = -d;
        }
        Some(Rational { num: n, den: d })
    }

    pub fn numer(self) -> i128 {
        self.num
    }

    pub fn denom(self) -> i128 {
        self.den
    }

    pub fn is_zero(self) -> bool {
        self.num == 0
    }

    pub fn is_one(self) -> bool {
        self.num == 1 && self.den == 1
    }

    pub fn is_integer(self) -> bool {
        self.den == 1
    }

    /// The value as an integer, if it is one.
    pub fn as_integer(self) -> Option<i128> {
        self.is_integer().then_some(self.num)
    }

    /// -1, 0 or 1.
    pub fn signum(self) -> i32 {
        self.num.signum() as i32
    }

    pub fn is_positive(self) -> bool {
        self.num > 0
    }

    pub fn is_negative(self) -> bool {
        self.num < 0
    }

    /// ⌊self⌋.
    pub fn floor(self) -> i128 {
        self.num.div_euclid(self.den)
    }

    /// ⌈self⌉.
    pub fn ceil(self) -> i128 {
        -((-self.num).div_euclid(self.den))
    }

    pub fn checked_neg(self) -> Option<Rational> {
        Some(Rational {
            num: self.num.checked_neg()?,
            den: self.den,
        })
    }

    pub fn checked_add(self, other: Rational) -> Option<Rational> {
        if self.den == 1 && other.den == 1 {
            return Some(Rational::int(self.num.checked_add(other.num)?));
        }
        let g = gcd(self.den, other.den).max(1);
        let l = (self.den / g).checked_mul(other.den)?;
        let a = self.num.checked_mul(l / self.den)?;
        let b = other.num.checked_mul(l / other.den)?;
        Rational::new(a.checked_add(b)?, l)
    }

    pub fn checked_sub(self, other: Rational) -> Option<Rational> {
        self.checked_add(other.checked_neg()?)
    }

    pub fn checked_mul(self, other: Rational) -> Option<Rational> {
        if self.den == 1 && other.den == 1 {
            return Some(Rational::int(self.num.checked_mul(other.num)?));
        }
        // Cross-reduce first to keep the intermediate products small.
        let g1 = gcd(self.num, other.den).max(1);
        let g2 = gcd(other.num, self.den).max(1);
        let n = (self.num / g1).checked_mul(other.num / g2)?;
        let d = (self.den / g2).checked_mul(other.den / g1)?;
        Rational::new(n, d)
    }

    /// `None` for division by zero or overflow.
    pub fn checked_div(self, other: Rational) -> Option<Rational> {
        if other.num == 0 {
            return None;
        }
        self.checked_mul(Rational::new(other.den, other.num)?)
    }

    /// `self^exp`.
    pub fn checked_pow(self, exp: u32) -> Option<Rational> {
        Some(Rational {
            num: self.num.checked_pow(exp)?,
            den: self.den.checked_pow(exp)?,
        })
    }

    pub fn abs(self) -> Rational {
        Rational {
            num: self.num.checked_abs().unwrap_or(i128::MAX),
            den: self.den,
        }
    }

    /// An approximation, for comparisons that would overflow.
    pub fn to_f64(self) -> f64 {
        self.num as f64 / self.den as f64
    }
}

impl From<i64> for Rational {
    fn from(v: i64) -> Rational {
        Rational::int(v as i128)
    }
}

impl From<i32> for Rational {
    fn from(v: i32) -> Rational {
        Rational::int(v as i128)
    }
}

impl PartialOrd for Rational {
    fn partial_cmp(&self, other: &Rational) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

/// Numeric order. Cross-multiplication that would overflow falls back to comparing
/// integer parts and then floating-point approximations of the fractions.
impl Ord for Rational {
    fn cmp(&self, other: &Rational) -> Ordering {
        if self.den == other.den {
            return self.num.cmp(&other.num);
        }
        match (
            self.num.checked_mul(other.den),
            other.num.checked_mul(self.den),
        ) {
            (Some(a), Some(b)) => a.cmp(&b),
            _ => self.floor().cmp(&other.floor()).then_with(|| {
                let fa = self.num.rem_euclid(self.den) as f64 / self.den as f64;
                let fb = other.num.rem_euclid(other.den) as f64 / other.den as f64;
                fa.partial_cmp(&fb).unwrap_or(Ordering::Equal)
            }),
        }
    }
}

impl fmt::Display for Rational {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.den == 1 {
            write!(f, "{}", self.num)
        } else {
            write!(f, "{}/{}", self.num, self.den)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn r(n: i128, d: i128) -> Rational {
        Rational::new(n, d).unwrap()
    }

    #[test]
    fn normalises_and_orders() {
        assert_eq!(r(2, -4), r(-1, 2));
        assert_eq!(r(6, 3), Rational::int(2));
        assert!(r(1, 3) < r(1, 2));
        assert!(r(-1, 2) < Rational::ZERO);
        assert_eq!(r(-1, 2).floor(), -1);
        assert_eq!(r(-1, 2).ceil(), 0);
        assert_eq!(r(7, 2).floor(), 3);
        assert_eq!(Rational::new(1, 0), None);
    }

    #[test]
    fn arithmetic_is_exact() {
        assert_eq!(r(1, 2).checked_add(r(1, 3)), Some(r(5, 6)));
        assert_eq!(r(1, 2).checked_mul(r(2, 3)), Some(r(1, 3)));
        assert_eq!(r(1, 2).checked_div(r(1, 4)), Some(Rational::int(2)));
        assert_eq!(Rational::int(i128::MAX).checked_add(Rational::ONE), None);
        assert_eq!(Rational::ONE.checked_div(Rational::ZERO), None);
    }
}
