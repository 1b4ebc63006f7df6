//! Floating-point only instructions: `fma`, `rcp`, `sqrt`, the approximate
//! transcendentals (`rsqrt`, `sin`, `cos`, `lg2`, `ex2`, `tanh`), `testp` and
//! `copysign`; and the floating-point types and modifiers every family shares.

use warpcheck_ir::modifiers::{RoundingMode, TestpOp};
use warpcheck_ir::{Operand, Type};

use super::{InstCx, opnd, unsupported};
use crate::fault::EmuError;
use crate::ops::*;
use crate::translate::PRED_FALSE;

/// The floating-point modifiers of an instruction, before its type is known to be a
/// floating-point one (integer forms of `add`, `mul`, ... carry them too).
#[derive(Clone, Copy)]
pub(super) struct FMods {
    pub(super) rnd: Option<RoundingMode>,
    pub(super) ftz: bool,
    pub(super) sat: bool,
}

impl FMods {
    pub(super) fn new(rnd: Option<RoundingMode>, ftz: bool, sat: bool) -> FMods {
        FMods { rnd, ftz, sat }
    }

    /// The executor's spec of these modifiers on type `ty`.
    pub(super) fn spec(self, ty: Type) -> Result<FSpec, EmuError> {
        fspec(ty, self.rnd, self.ftz, self.sat)
    }
}

pub(super) fn fty(ty: Type) -> Result<FTy, EmuError> {
    Ok(match ty {
        Type::F16 => FTy::F16,
        Type::Bf16 => FTy::Bf16,
        Type::F32 => FTy::F32,
        Type::F64 => FTy::F64,
        Type::F16x2 => FTy::F16x2,
        Type::Bf16x2 => FTy::Bf16x2,
        other => return unsupported(format!("floating-point type .{other}")),
    })
}

pub(super) fn fspec(
    ty: Type,
    rnd: Option<RoundingMode>,
    ftz: bool,
    sat: bool,
) -> Result<FSpec, EmuError> {
    Ok(FSpec {
        ty: fty(ty)?,
        rnd: rnd.unwrap_or(RoundingMode::Rn),
        ftz,
        sat,
    })
}

impl InstCx<'_, '_> {
    /// `testp.op.ty p, a`.
    pub(super) fn testp(
        &mut self,
        op: TestpOp,
        ty: Type,
        ops: &[Operand],
    ) -> Result<OpKind, EmuError> {
        let d = self.pdst(&opnd(ops, 0))?.unwrap_or(PRED_FALSE);
        let a = self.src(&opnd(ops, 1), ty)?;
        Ok(OpKind::Testp {
            op,
            fty: fty(ty)?,
            d,
            a,
        })
    }

    /// `copysign.ty d, a, b`.
    pub(super) fn copysign(&mut self, ty: Type, ops: &[Operand]) -> Result<OpKind, EmuError> {
        self.bin(BinOp::Copysign(fty(ty)?), ops, ty, ty)
    }

    /// `fma.rnd.ty d, a, b, c` (`.relu` is not supported).
    pub(super) fn fma(
        &mut self,
        relu: bool,
        m: FMods,
        ty: Type,
        ops: &[Operand],
    ) -> Result<OpKind, EmuError> {
        if relu {
            return unsupported("fma.relu");
        }
        self.tern(TernOp::Fma(m.spec(ty)?), ops, [ty; 3])
    }

    /// `rcp` (`sqrt` when `is_sqrt`), rounded or `.approx`.
    pub(super) fn rcp_sqrt(
        &mut self,
        is_sqrt: bool,
        approx: bool,
        m: FMods,
        ty: Type,
        ops: &[Operand],
    ) -> Result<OpKind, EmuError> {
        let spec = m.spec(ty)?;
        let f = if is_sqrt {
            UnOp::FSqrt { spec, approx }
        } else {
            UnOp::FRcp { spec, approx }
        };
        self.un(f, ops, ty)
    }

    /// An approximate unary function (`rsqrt`, `sin`, `cos`, `lg2`, `ex2`, `tanh`).
    pub(super) fn approx(
        &mut self,
        f: fn(FSpec) -> UnOp,
        ftz: bool,
        ty: Type,
        ops: &[Operand],
    ) -> Result<OpKind, EmuError> {
        self.un(f(fspec(ty, None, ftz, false)?), ops, ty)
    }
}
