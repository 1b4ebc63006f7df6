//! Synchronisation: `barrier`/`bar` in all modes (`.sync`, `.arrive`, `.red` with
//! its reduction into a predicate or register) and `bar.warp.sync`. The memory
//! fences (`membar`, `fence`, `fence.proxy`) and `nanosleep` order nothing in the
//! emulator, which executes memory operations in program order, and translate to
//! no-ops in the dispatch.

use warpcheck_ir::modifiers::{BarrierMode, BarrierRedOp};
use warpcheck_ir::{Operand, Type};

use super::{InstCx, opnd};
use crate::fault::EmuError;
use crate::ops::*;

impl InstCx<'_, '_> {
    /// `barrier[.mode][.red.op] [d,] id[, count][, p]`.
    pub(super) fn barrier(
        &mut self,
        mode: BarrierMode,
        red_op: Option<BarrierRedOp>,
        ops: &[Operand],
    ) -> Result<OpKind, EmuError> {
        let (mut i, red) = if mode == BarrierMode::Red {
            let p = self.psrc(&opnd(ops, ops.len().saturating_sub(1)))?;
            let op = red_op.ok_or_else(|| EmuError::unsupported("bar.red without an operation"))?;
            (1, Some((op, self.value_or_pred_dst(&opnd(ops, 0)), p)))
        } else {
            (0, None)
        };
        let id = self.src(&opnd(ops, i), Type::U32)?;
        i += 1;
        let count = match opnd(ops, i) {
            Operand::Absent => None,
            Operand::Reg(r) if self.reg_ty(r).is_pred() => None,
            Operand::NegPred(_) => None,
            other => Some(self.src(&other, Type::U32)?),
        };
        Ok(OpKind::Barrier(BarrierOp {
            mode,
            id,
            count,
            red,
        }))
    }

    /// `bar.warp.sync membermask`.
    pub(super) fn warp_sync(&mut self, ops: &[Operand]) -> Result<OpKind, EmuError> {
        Ok(OpKind::WarpSync {
            mask: self.src(&opnd(ops, 0), Type::B32)?,
        })
    }
}
