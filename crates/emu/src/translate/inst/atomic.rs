//! Atomics: `atom` (with a result, `cas` with a comparand) and `red` (without one),
//! both as one executor op over the atomic's type and size.

use warpcheck_ir::modifiers::{AtomOp, MemSpace};
use warpcheck_ir::{Operand, Type};

use super::mem::space_of;
use super::{InstCx, opnd, unsupported};
use crate::fault::EmuError;
use crate::ops::*;
use crate::translate::SINK;

fn atom_type(ty: Type) -> Result<(AtomType, u8), EmuError> {
    Ok(match ty {
        Type::B16 | Type::U16 => (AtomType::U16, 2),
        Type::B32 | Type::U32 => (AtomType::U32, 4),
        Type::S32 => (AtomType::S32, 4),
        Type::B64 | Type::U64 => (AtomType::U64, 8),
        Type::S64 => (AtomType::S64, 8),
        Type::F16 => (AtomType::F16, 2),
        Type::Bf16 => (AtomType::Bf16, 2),
        Type::F16x2 => (AtomType::F16x2, 4),
        Type::Bf16x2 => (AtomType::Bf16x2, 4),
        Type::F32 => (AtomType::F32, 4),
        Type::F64 => (AtomType::F64, 8),
        other => return unsupported(format!("atomic of type .{other}")),
    })
}

impl InstCx<'_, '_> {
    /// `atom.space.op.ty d, [a], b[, c]`.
    pub(super) fn atom(
        &mut self,
        space: MemSpace,
        op: AtomOp,
        ty: Type,
        ops: &[Operand],
    ) -> Result<OpKind, EmuError> {
        let d = self.dst(&opnd(ops, 0))?;
        let (space, addr) = self.addr(&opnd(ops, 1), space_of(space))?;
        let b = self.src(&opnd(ops, 2), ty)?;
        let c = if op == AtomOp::Cas {
            self.src(&opnd(ops, 3), ty)?
        } else {
            SINK
        };
        let (aty, size) = atom_type(ty)?;
        Ok(OpKind::Atom {
            space,
            op,
            ty: aty,
            size,
            d: Some(d),
            addr,
            b,
            c,
        })
    }

    /// `red.space.op.ty [a], b`.
    pub(super) fn red(
        &mut self,
        space: MemSpace,
        op: AtomOp,
        ty: Type,
        ops: &[Operand],
    ) -> Result<OpKind, EmuError> {
        let (space, addr) = self.addr(&opnd(ops, 0), space_of(space))?;
        let b = self.src(&opnd(ops, 1), ty)?;
        let (aty, size) = atom_type(ty)?;
        Ok(OpKind::Atom {
            space,
            op,
            ty: aty,
            size,
            d: None,
            addr,
            b,
            c: SINK,
        })
    }
}
