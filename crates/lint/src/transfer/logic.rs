//! Logic, shifts and comparisons: `shl` by a constant multiplies, `shr` by one
//! floor-divides; `and`/`or`/`xor`/`not` on predicates are conditions and on
//! integers masks and disjoint bits are arithmetic (evaluable functions otherwise);
//! `popc`/`clz`/`brev` are evaluable functions; `selp` is a select and `setp` of
//! integers a comparison (floating-point ones are opaque conditions).

use warpcheck_ir::modifiers::{BoolOp, CmpOp as PtxCmp};
use warpcheck_ir::{Op, Type};
use warpcheck_sym::{Cond, Expr, Func, FuncKind, Relation};

use super::step::StepCx;
use super::{is_neg_pow2, is_pow2_minus_1, relation};
use crate::analysis::{Analysis, Key, State, Val};

impl<'a> Analysis<'a> {
    /// `shl`: by a constant, a multiplication.
    pub(super) fn step_shl(&mut self, state: &mut State, cx: &StepCx, ty: Type) {
        let x = self.int_at(state, cx, 1, ty);
        let y = self.int_at(state, cx, 2, Type::U32);
        let v = match y.as_integer() {
            Some(s) if (0..64).contains(&s) => x.mul(&Expr::int(1i128 << s)),
            _ => Expr::func(Func::new(FuncKind::Shl, ty.bits() as u8), vec![x, y]),
        };
        self.def_dst(state, cx, Val::Int(v));
    }

    /// `shr`: by a constant, floor division (or the sign bit).
    pub(super) fn step_shr(&mut self, state: &mut State, cx: &StepCx, ty: Type) {
        let x = self.int_at(state, cx, 1, ty);
        let y = self.int_at(state, cx, 2, Type::U32);
        let w = ty.bits() as i128;
        let nonneg = warpcheck_sym::sign::builtin_range(&x)
            .lo
            .is_some_and(|l| !l.is_negative());
        let v = match y.as_integer() {
            // The sign bit of a value that may be negative (`x >> 31` in the
            // rounding of signed division by a power of two).
            Some(s) if s == w - 1 && !ty.is_signed() && !nonneg => Expr::select(
                Cond::compare(Relation::Lt, &x, &Expr::zero()),
                Expr::one(),
                Expr::zero(),
            ),
            Some(s) if (0..64).contains(&s) && (ty.is_signed() || nonneg || s == 0) => {
                x.floor_div(&Expr::int(1i128 << s))
            }
            Some(s) if (0..64).contains(&s) => {
                // An unsigned shift of a value whose sign is unknown: the value is
                // taken as non-negative, as unsigned arithmetic without wrap-around.
                x.floor_div(&Expr::int(1i128 << s))
            }
            _ => Expr::func(
                Func::new(
                    FuncKind::Shr {
                        signed: ty.is_signed(),
                    },
                    ty.bits() as u8,
                ),
                vec![x, y],
            ),
        };
        self.def_dst(state, cx, Val::Int(v));
    }

    /// `and`/`or`/`xor` (`op`) of predicates or integers.
    pub(super) fn step_logic(&mut self, state: &mut State, cx: &StepCx, op: Op, ty: Type) {
        if ty.is_pred() {
            let (x, y) = (self.pred_at(state, cx, 1), self.pred_at(state, cx, 2));
            let v = match op {
                Op::And { .. } => x.and(&y),
                Op::Or { .. } => x.or(&y),
                _ => x.and(&y.not()).or(&x.not().and(&y)),
            };
            self.def_dst(state, cx, Val::Pred(v));
        } else {
            let x = self.int_at(state, cx, 1, ty);
            let y = self.int_at(state, cx, 2, ty);
            let v = self.bitwise(op, ty, x, y);
            self.def_dst(state, cx, Val::Int(v));
        }
    }

    /// `not` of a predicate or an integer (`-x - 1`).
    pub(super) fn step_not(&mut self, state: &mut State, cx: &StepCx, ty: Type) {
        if ty.is_pred() {
            let x = self.pred_at(state, cx, 1);
            self.def_dst(state, cx, Val::Pred(x.not()));
        } else {
            let x = self.int_at(state, cx, 1, ty);
            self.def_dst(state, cx, Val::Int(x.neg().sub(&Expr::one())));
        }
    }

    /// `popc`, `clz`, `brev` (`op`): evaluable functions.
    pub(super) fn step_bit_count(&mut self, state: &mut State, cx: &StepCx, op: Op, ty: Type) {
        let x = self.int_at(state, cx, 1, ty);
        let kind = match op {
            Op::Popc { .. } => FuncKind::Popc,
            Op::Clz { .. } => FuncKind::Clz,
            _ => FuncKind::Brev,
        };
        let v = Expr::func(Func::new(kind, ty.bits() as u8), vec![x]);
        self.def_dst(state, cx, Val::Int(v));
    }

    /// `selp` of integers: a select (of floats: opaque).
    pub(super) fn step_selp(&mut self, state: &mut State, cx: &StepCx, ty: Type) {
        if ty.is_float() {
            return self.step_opaque(state, cx);
        }
        let x = self.int_at(state, cx, 1, ty);
        let y = self.int_at(state, cx, 2, ty);
        let c = self.pred_at(state, cx, 3);
        self.def_dst(state, cx, Val::Int(Expr::select(c, x, y)));
    }

    /// `setp`: an integer comparison, or an opaque condition; combined with the
    /// optional predicate operand.
    pub(super) fn step_setp(
        &mut self,
        state: &mut State,
        cx: &StepCx,
        cmp: PtxCmp,
        bool_op: Option<BoolOp>,
        ty: Type,
    ) {
        let (inst, b) = (cx.inst, cx.b);
        let c = if ty.is_integer() {
            let x = self.int_at(state, cx, 1, ty);
            let y = self.int_at(state, cx, 2, ty);
            match relation(cmp) {
                Some(rel) => Cond::compare(rel, &x, &y),
                None => self.opaque_cond(
                    Key::Value(inst, 0),
                    x.deps().union(y.deps()),
                    "p".into(),
                    Some(b),
                ),
            }
        } else {
            let d = self.use_deps(state, inst, b);
            let line = self.line_of(inst);
            self.opaque_cond(Key::Value(inst, 0), d, format!("cmp@{line}"), Some(b))
        };
        let c = match (bool_op, cx.ops.get(3)) {
            (Some(op), Some(p)) => {
                let q = self.pred_of(state, p, inst, b);
                match op {
                    BoolOp::And => c.and(&q),
                    BoolOp::Or => c.or(&q),
                    BoolOp::Xor => c.and(&q.not()).or(&c.not().and(&q)),
                }
            }
            _ => c,
        };
        self.def_dst(state, cx, Val::Pred(c));
    }
    /// `and`/`or`/`xor` of integers: masks and disjoint bits are arithmetic.
    fn bitwise(&self, op: Op, ty: Type, x: Expr, y: Expr) -> Expr {
        let (x, y) = match (x.as_integer(), y.as_integer()) {
            (Some(_), None) => (y, x),
            _ => (x, y),
        };
        let w = ty.bits() as u8;
        if let Some(c) = y.as_integer() {
            match op {
                Op::And { .. } => {
                    if let Some(k) = is_pow2_minus_1(c) {
                        return x.modulo(&Expr::int(1i128 << k));
                    }
                    if let Some(k) = is_neg_pow2(c) {
                        return x.sub(&x.modulo(&Expr::int(1i128 << k)));
                    }
                }
                Op::Or { .. } | Op::Xor { .. } => {
                    // Bits of c below the known zero bits of x: an addition.
                    let content = x.content();
                    if c >= 0 && content != 0 {
                        let zeros = content.trailing_zeros();
                        if zeros < 64 && c < (1i128 << zeros) {
                            return x.add(&y);
                        }
                    }
                }
                _ => {}
            }
        }
        let kind = match op {
            Op::And { .. } => FuncKind::And,
            Op::Or { .. } => FuncKind::Or,
            _ => FuncKind::Xor,
        };
        Expr::func(Func::new(kind, w), vec![x, y])
    }
}
