//! Integer arithmetic, exact over the integers: `add`, `sub`, `mul` (`.hi` as an
//! evaluable function), `mad`, `mul24`, `mad24`, `neg`, `abs`, `min`, `max`, and
//! `div`/`rem` as floor division where the operands' signs allow it (truncating
//! functions otherwise). Floating-point forms and carry chains are opaque.

use warpcheck_ir::modifiers::MulMode;
use warpcheck_ir::{Op, Type};
use warpcheck_sym::{Expr, Func, FuncKind};

use super::step::StepCx;
use super::wide_type;
use crate::analysis::{Analysis, State, Val};

/// `mul.hi` of `x` and `y`. By a constant `M` (the multiply-high of a division by a
/// constant that compilers emit for `/` and `%`) it is the exact floor division
/// `⌊M·x / 2^w⌋` (the high half of the double-width product), with `M` read as the
/// instruction's signedness and, unsigned, `x` known non-negative; the symbolic engine
/// then folds the following shift and recognises `⌊c·x / 2^k⌋` as `⌊x / d⌋`
/// ([`Expr::floor_div`]), so that messages print `i / 7`. Otherwise an evaluable function.
fn mul_hi(ty: Type, x: Expr, y: Expr) -> Expr {
    let bits = ty.bits();
    if bits <= 32 {
        let modulus = 1i128 << bits;
        let read = |c: i128| {
            let u = c.rem_euclid(modulus);
            if ty.is_signed() && u >= modulus / 2 {
                u - modulus
            } else {
                u
            }
        };
        let nonneg = |e: &Expr| {
            warpcheck_sym::sign::builtin_range(e)
                .lo
                .is_some_and(|lo| !lo.is_negative())
        };
        let by_constant = match (x.as_integer(), y.as_integer()) {
            (Some(m), None) => Some((read(m), &y)),
            (None, Some(m)) => Some((read(m), &x)),
            _ => None,
        };
        if let Some((m, v)) = by_constant
            && (ty.is_signed() || nonneg(v))
        {
            return v
                .scale(warpcheck_sym::Rational::int(m))
                .floor_div(&Expr::int(modulus));
        }
    }
    let kind = FuncKind::MulHi {
        signed: ty.is_signed(),
    };
    Expr::func(Func::new(kind, ty.bits() as u8), vec![x, y])
}

impl<'a> Analysis<'a> {
    /// The integer arithmetic family; other forms are opaque.
    pub(super) fn step_arith(&mut self, state: &mut State, cx: &StepCx, op: Op) {
        let v = match op {
            Op::Add { ty, cc: false, .. } | Op::Sub { ty, cc: false, .. } if ty.is_integer() => {
                let (x, y) = self.int_pair(state, cx, ty);
                if matches!(op, Op::Add { .. }) {
                    x.add(&y)
                } else {
                    x.sub(&y)
                }
            }
            Op::Mul { ty, mode, .. } if ty.is_integer() => {
                let (x, y) = self.int_pair(state, cx, ty);
                match mode {
                    Some(MulMode::Hi) => mul_hi(ty, x, y),
                    _ => x.mul(&y),
                }
            }
            Op::Mad {
                ty,
                mode,
                cc: false,
                ..
            } if ty.is_integer() => self.mad(state, cx, ty, mode),
            Op::Mul24 { ty, .. } => {
                let (x, y) = self.int_pair(state, cx, ty);
                x.mul(&y)
            }
            Op::Mad24 { ty, .. } => {
                let (x, y) = self.int_pair(state, cx, ty);
                let z = self.int_at(state, cx, 3, ty);
                x.mul(&y).add(&z)
            }
            Op::Neg { ty, .. } if ty.is_integer() => self.int_at(state, cx, 1, ty).neg(),
            Op::Abs { ty, .. } if ty.is_integer() => {
                let x = self.int_at(state, cx, 1, ty);
                x.maximum(&x.neg())
            }
            Op::Min { ty, .. } | Op::Max { ty, .. } if ty.is_integer() => {
                let (x, y) = self.int_pair(state, cx, ty);
                if matches!(op, Op::Min { .. }) {
                    x.minimum(&y)
                } else {
                    x.maximum(&y)
                }
            }
            Op::Div { ty, .. } | Op::Rem { ty, .. } if ty.is_integer() => {
                let (x, y) = self.int_pair(state, cx, ty);
                div_rem(matches!(op, Op::Div { .. }), ty, x, y)
            }
            // Floating-point forms and carry-chain forms.
            _ => return self.step_opaque(state, cx),
        };
        self.def_dst(state, cx, Val::Int(v));
    }

    /// Operands 1 and 2 as integers of type `ty`.
    fn int_pair(&mut self, state: &State, cx: &StepCx, ty: Type) -> (Expr, Expr) {
        (self.int_at(state, cx, 1, ty), self.int_at(state, cx, 2, ty))
    }

    /// Integer `mad.lo`/`.hi`/`.wide`: the product plus the addend (of the wide type
    /// for `.wide`).
    fn mad(&mut self, state: &State, cx: &StepCx, ty: Type, mode: Option<MulMode>) -> Expr {
        let (x, y, z) = (
            self.int_at(state, cx, 1, ty),
            self.int_at(state, cx, 2, ty),
            self.int_at(state, cx, 3, ty),
        );
        let prod = match mode {
            Some(MulMode::Hi) => mul_hi(ty, x, y),
            _ => x.mul(&y),
        };
        let wide = if matches!(mode, Some(MulMode::Wide)) {
            wide_type(ty)
        } else {
            ty
        };
        let z = if wide != ty {
            self.int_at(state, cx, 3, wide)
        } else {
            z
        };
        prod.add(&z)
    }
}

/// `div` (or `rem`): floor division when unsigned or when the dividend is provably
/// non-negative and the divisor positive; truncating functions otherwise.
fn div_rem(is_div: bool, ty: Type, x: Expr, y: Expr) -> Expr {
    let floor_ok = !ty.is_signed()
        || (warpcheck_sym::sign::builtin_range(&x)
            .lo
            .is_some_and(|l| !l.is_negative())
            && warpcheck_sym::sign::builtin_range(&y)
                .lo
                .is_some_and(|l| l.is_positive()));
    match (floor_ok, is_div) {
        (true, true) => x.floor_div(&y),
        (true, false) => x.modulo(&y),
        (false, true) => Expr::func(Func::new(FuncKind::TruncDiv, ty.bits() as u8), vec![x, y]),
        (false, false) => Expr::func(Func::new(FuncKind::TruncRem, ty.bits() as u8), vec![x, y]),
    }
}
