//! Bitwise logic, shifts and bit-field instructions: `and`, `or`, `xor`, `not` (on
//! predicates as well as integers), `cnot`, `lop3`, `shl`, `shr`, `shf`, `prmt`,
//! `bfind`, `bfe`, `bfi` and the dot products `dp4a`/`dp2a`. `popc`, `clz`, `brev`
//! and `fns` need no more than the dispatch's generic shapes.

use warpcheck_ir::modifiers::Dp2aMode;
use warpcheck_ir::{Operand, Type};

use super::arith::int_w;
use super::{InstCx, opnd, unsupported};
use crate::fault::EmuError;
use crate::ops::*;
use crate::translate::PRED_FALSE;

impl InstCx<'_, '_> {
    pub(super) fn bfind(
        &mut self,
        shiftamt: bool,
        ty: Type,
        ops: &[Operand],
    ) -> Result<OpKind, EmuError> {
        let f = UnOp::Bfind {
            w: int_w(ty),
            signed: ty.is_signed(),
            shiftamt,
        };
        self.un(f, ops, ty)
    }

    pub(super) fn bfe(&mut self, ty: Type, ops: &[Operand]) -> Result<OpKind, EmuError> {
        let f = TernOp::Bfe {
            w: int_w(ty),
            signed: ty.is_signed(),
        };
        self.tern(f, ops, [ty, Type::U32, Type::U32])
    }

    /// `bfi.ty d, a, b, pos, len`: the one five-operand integer instruction.
    pub(super) fn bfi(&mut self, ty: Type, ops: &[Operand]) -> Result<OpKind, EmuError> {
        let d = self.dst(&opnd(ops, 0))?;
        let a = self.src(&opnd(ops, 1), ty)?;
        let b = self.src(&opnd(ops, 2), ty)?;
        let pos = self.src(&opnd(ops, 3), Type::U32)?;
        let len = self.src(&opnd(ops, 4), Type::U32)?;
        Ok(OpKind::Bfi {
            w: int_w(ty),
            d,
            a,
            b,
            pos,
            len,
        })
    }

    pub(super) fn dp4a(
        &mut self,
        atype: Type,
        btype: Type,
        ops: &[Operand],
    ) -> Result<OpKind, EmuError> {
        let f = TernOp::Dp4a {
            a_signed: atype.is_signed(),
            b_signed: btype.is_signed(),
        };
        self.tern(f, ops, [Type::B32; 3])
    }

    pub(super) fn dp2a(
        &mut self,
        mode: Dp2aMode,
        atype: Type,
        btype: Type,
        ops: &[Operand],
    ) -> Result<OpKind, EmuError> {
        let f = TernOp::Dp2a {
            hi: mode == Dp2aMode::Hi,
            a_signed: atype.is_signed(),
            b_signed: btype.is_signed(),
        };
        self.tern(f, ops, [Type::B32; 3])
    }

    /// `and`/`or`/`xor`: `pred` on predicates, `int` on integers.
    pub(super) fn logic(
        &mut self,
        pred: PredOp,
        int: BinOp,
        ty: Type,
        ops: &[Operand],
    ) -> Result<OpKind, EmuError> {
        if !ty.is_pred() {
            return self.bin(int, ops, ty, ty);
        }
        let d = self.pdst(&opnd(ops, 0))?.unwrap_or(PRED_FALSE);
        let a = self.psrc(&opnd(ops, 1))?;
        let b = self.psrc(&opnd(ops, 2))?;
        Ok(OpKind::PredLogic { op: pred, d, a, b })
    }

    pub(super) fn not(&mut self, ty: Type, ops: &[Operand]) -> Result<OpKind, EmuError> {
        if !ty.is_pred() {
            return self.un(UnOp::Not(int_w(ty)), ops, ty);
        }
        let d = self.pdst(&opnd(ops, 0))?.unwrap_or(PRED_FALSE);
        let a = self.psrc(&opnd(ops, 1))?;
        Ok(OpKind::PredLogic {
            op: PredOp::Not,
            d,
            a,
            b: a,
        })
    }

    /// `lop3.b32 d, a, b, c, lut`: the table must be a literal.
    pub(super) fn lop3(&mut self, ops: &[Operand]) -> Result<OpKind, EmuError> {
        let lut = match opnd(ops, 4) {
            Operand::Imm(i) => i.bits as u8,
            _ => return unsupported("lop3 with a non-literal table"),
        };
        self.tern(TernOp::Lop3(lut), ops, [Type::B32; 3])
    }

    pub(super) fn shr(&mut self, ty: Type, ops: &[Operand]) -> Result<OpKind, EmuError> {
        let f = BinOp::Shr {
            w: int_w(ty),
            signed: ty.is_signed(),
        };
        self.bin(f, ops, ty, Type::U32)
    }
}
