//! Comparison and selection: `setp` (into one or two predicates, optionally combined
//! with a third), `set` (into an integer or `f32` mask), `selp` and `slct`.

use warpcheck_ir::modifiers::{BoolOp, CmpOp};
use warpcheck_ir::{Operand, Type};

use super::arith::int_w;
use super::float::fty;
use super::{InstCx, opnd, unsupported};
use crate::fault::EmuError;
use crate::ops::*;

impl InstCx<'_, '_> {
    /// The executor's comparison `op` on type `ty`.
    fn cmp(&self, op: CmpOp, ty: Type, ftz: bool) -> Result<Cmp, EmuError> {
        let kind = if ty.is_float() {
            CmpKind::Float(fty(ty)?)
        } else if ty.is_signed() {
            CmpKind::Signed(int_w(ty))
        } else {
            CmpKind::Unsigned(int_w(ty))
        };
        Ok(Cmp { op, kind, ftz })
    }

    /// The optional `.and`/`.or`/`.xor` with the predicate in operand 3.
    fn combine(
        &self,
        bool_op: Option<BoolOp>,
        ops: &[Operand],
    ) -> Result<Option<(BoolOp, PSrc)>, EmuError> {
        match bool_op {
            Some(bop) => Ok(Some((bop, self.psrc(&opnd(ops, 3))?))),
            None => Ok(None),
        }
    }

    /// `setp.cmp[.bop].ty p[|q], a, b[, c]`.
    pub(super) fn setp(
        &mut self,
        cmp: CmpOp,
        bool_op: Option<BoolOp>,
        ftz: bool,
        ty: Type,
        ops: &[Operand],
    ) -> Result<OpKind, EmuError> {
        let (p, q) = match opnd(ops, 0) {
            Operand::Pair(p, q) => (p.map(|r| self.reg(r)), q.map(|r| self.reg(r))),
            other => (self.pdst(&other)?, None),
        };
        let a = self.src(&opnd(ops, 1), ty)?;
        let b = self.src(&opnd(ops, 2), ty)?;
        let combine = self.combine(bool_op, ops)?;
        Ok(OpKind::Setp {
            cmp: self.cmp(cmp, ty, ftz)?,
            p,
            q,
            a,
            b,
            combine,
        })
    }

    /// `set.cmp[.bop].dty.sty d, a, b[, c]`; `dty` is an integer or `f32`.
    pub(super) fn set(
        &mut self,
        cmp: CmpOp,
        bool_op: Option<BoolOp>,
        ftz: bool,
        dty: Type,
        sty: Type,
        ops: &[Operand],
    ) -> Result<OpKind, EmuError> {
        let d = self.dst(&opnd(ops, 0))?;
        let a = self.src(&opnd(ops, 1), sty)?;
        let b = self.src(&opnd(ops, 2), sty)?;
        let combine = self.combine(bool_op, ops)?;
        if dty != Type::F32 && dty.is_float() {
            return unsupported(format!("set with destination .{dty}"));
        }
        Ok(OpKind::Set {
            cmp: self.cmp(cmp, sty, ftz)?,
            float_dst: dty == Type::F32,
            d,
            a,
            b,
            combine,
        })
    }

    pub(super) fn selp(&mut self, ty: Type, ops: &[Operand]) -> Result<OpKind, EmuError> {
        let d = self.dst(&opnd(ops, 0))?;
        let a = self.src(&opnd(ops, 1), ty)?;
        let b = self.src(&opnd(ops, 2), ty)?;
        let p = self.psrc(&opnd(ops, 3))?;
        Ok(OpKind::Selp { d, a, b, p })
    }

    pub(super) fn slct(
        &mut self,
        ftz: bool,
        dty: Type,
        cty: Type,
        ops: &[Operand],
    ) -> Result<OpKind, EmuError> {
        let f = if cty == Type::F32 {
            TernOp::SlctF32 { ftz }
        } else {
            TernOp::SlctS32
        };
        self.tern(f, ops, [dty, dty, cty])
    }
}
