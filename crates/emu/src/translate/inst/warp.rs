//! Warp collectives: `shfl.sync` (with its optional in-range predicate),
//! `vote.sync`, `match.sync`, `activemask` and `redux.sync`. Each reads a member
//! mask that the executor checks against the converged lanes.

use warpcheck_ir::modifiers::{MatchMode, ReduxOp, ShflMode, VoteMode};
use warpcheck_ir::{Operand, Type};

use super::{InstCx, opnd, unsupported};
use crate::fault::EmuError;
use crate::ops::*;
use crate::translate::SINK;

impl InstCx<'_, '_> {
    /// A value destination that may come with a predicate: `d|p`, or just `d`.
    fn dst_and_pred(&self, op: &Operand) -> Result<(Slot, Option<PSlot>), EmuError> {
        match *op {
            Operand::Pair(d, p) => Ok((
                d.map(|r| self.reg(r)).unwrap_or(SINK),
                p.map(|r| self.reg(r)),
            )),
            other => Ok((self.dst(&other)?, None)),
        }
    }

    /// `shfl.sync.mode.b32 d[|p], a, b, c, membermask`.
    pub(super) fn shfl(&mut self, mode: ShflMode, ops: &[Operand]) -> Result<OpKind, EmuError> {
        let (d, p) = self.dst_and_pred(&opnd(ops, 0))?;
        let a = self.src(&opnd(ops, 1), Type::B32)?;
        let b = self.src(&opnd(ops, 2), Type::B32)?;
        let c = self.src(&opnd(ops, 3), Type::B32)?;
        let membermask = self.src(&opnd(ops, 4), Type::B32)?;
        Ok(OpKind::Shfl {
            mode,
            d,
            p,
            a,
            b,
            c,
            membermask,
        })
    }

    /// `vote.sync.mode d, p, membermask`: `.ballot` into a register, the others into
    /// a predicate.
    pub(super) fn vote(&mut self, mode: VoteMode, ops: &[Operand]) -> Result<OpKind, EmuError> {
        let d = self.value_or_pred_dst(&opnd(ops, 0));
        let p = self.psrc(&opnd(ops, 1))?;
        let membermask = self.src(&opnd(ops, 2), Type::B32)?;
        if mode == VoteMode::Ballot && matches!(d, Dst::Pred(_)) {
            return unsupported("vote.ballot into a predicate");
        }
        Ok(OpKind::Vote {
            mode,
            d,
            p,
            membermask,
        })
    }

    /// `match.sync.mode.ty d[|p], a, membermask`.
    pub(super) fn match_sync(
        &mut self,
        mode: MatchMode,
        ty: Type,
        ops: &[Operand],
    ) -> Result<OpKind, EmuError> {
        let (d, p) = self.dst_and_pred(&opnd(ops, 0))?;
        let a = self.src(&opnd(ops, 1), ty)?;
        let membermask = self.src(&opnd(ops, 2), Type::B32)?;
        Ok(OpKind::Match {
            mode,
            wide: ty.bits() == 64,
            d,
            p,
            a,
            membermask,
        })
    }

    pub(super) fn activemask(&mut self, ops: &[Operand]) -> Result<OpKind, EmuError> {
        Ok(OpKind::Activemask {
            d: self.dst(&opnd(ops, 0))?,
        })
    }

    /// `redux.sync.op.ty d, a, membermask`.
    pub(super) fn redux(
        &mut self,
        op: ReduxOp,
        ty: Type,
        ops: &[Operand],
    ) -> Result<OpKind, EmuError> {
        let d = self.dst(&opnd(ops, 0))?;
        let a = self.src(&opnd(ops, 1), ty)?;
        let membermask = self.src(&opnd(ops, 2), Type::B32)?;
        Ok(OpKind::Redux {
            op,
            signed: ty.is_signed(),
            d,
            a,
            membermask,
        })
    }
}
