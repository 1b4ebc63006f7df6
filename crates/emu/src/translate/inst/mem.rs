//! Memory access: `ld`, `ldu`, `st`, address conversions (`cvta`, `isspacep`) and the
//! addressing modes they share with the atomics. A kernel's `ld.param` of a fixed
//! offset is read from the parameter block at translation time and becomes a move of
//! a constant; `prefetch` is a no-op and needs no translation.

use warpcheck_ir::modifiers::{MemOrder, MemSpace};
use warpcheck_ir::operand::AddressBase;
use warpcheck_ir::{Operand, Type};

use super::arith::int_w;
use super::operands::SymValue;
use super::{InstCx, opnd, unsupported};
use crate::fault::EmuError;
use crate::ops::*;
use crate::translate::{FRAME_GENERIC_FLAG, PRED_FALSE, VarLoc, extend};

/// The space an access goes to: the cluster's shared window is this CTA's.
pub(super) fn space_of(space: MemSpace) -> MemSpace {
    match space {
        MemSpace::SharedCluster => MemSpace::Shared,
        s => s,
    }
}

fn mem_shape(space: MemSpace, ty: Type, dst_bits: u32) -> Result<MemShape, EmuError> {
    let size = ty.size();
    if !matches!(size, 1 | 2 | 4 | 8) {
        return unsupported(format!("memory access of type .{ty}"));
    }
    Ok(MemShape {
        space,
        size: size as u8,
        signed: ty.is_signed(),
        dst_bits: dst_bits.max(size * 8) as u8,
        ordered: false,
    })
}

/// Whether a memory order is stronger than `.weak`.
fn is_ordered(order: Option<MemOrder>) -> bool {
    order.is_some_and(|o| o != MemOrder::Weak)
}

impl InstCx<'_, '_> {
    /// `ld`/`ldu` into a register or a vector.
    pub(super) fn ld(
        &mut self,
        space: MemSpace,
        ty: Type,
        order: Option<MemOrder>,
        ops: &[Operand],
    ) -> Result<OpKind, EmuError> {
        let dsts = self.vec_dsts(&opnd(ops, 0))?;
        let (space, addr) = self.addr(&opnd(ops, 1), space_of(space))?;
        let dst_bits = match opnd(ops, 0) {
            Operand::Reg(r) => self.reg_ty(r).bits(),
            Operand::Vector(l) => match self.body.list(l).first() {
                Some(Operand::Reg(r)) => self.reg_ty(*r).bits(),
                _ => ty.bits(),
            },
            _ => ty.bits(),
        };
        let mut shape = mem_shape(space, ty, dst_bits)?;
        shape.ordered = is_ordered(order);
        // Kernel parameters are the same for every thread: load them now.
        if space == MemSpace::Param
            && let Addr::Abs(off) = addr
            && dsts.n == 1
        {
            let v = self.param_value(off, shape.size as u32)?;
            let v = extend(v, shape.size as u32 * 8, shape.signed, dst_bits);
            let a = self.t.const_slot(v);
            return Ok(OpKind::Un {
                f: UnOp::Mov,
                d: dsts.slots[0],
                a,
            });
        }
        Ok(OpKind::Ld { shape, dsts, addr })
    }

    /// `st` of a register or a vector.
    pub(super) fn st(
        &mut self,
        space: MemSpace,
        ty: Type,
        order: Option<MemOrder>,
        ops: &[Operand],
    ) -> Result<OpKind, EmuError> {
        let (space, addr) = self.addr(&opnd(ops, 0), space_of(space))?;
        let srcs = self.vec_srcs(&opnd(ops, 1), ty)?;
        if space == MemSpace::Param && self.is_kernel && matches!(addr, Addr::Abs(_)) {
            return unsupported("a store to a kernel parameter");
        }
        Ok(OpKind::St {
            shape: MemShape {
                ordered: is_ordered(order),
                ..mem_shape(space, ty, ty.bits())?
            },
            srcs,
            addr,
        })
    }

    pub(super) fn isspacep(
        &mut self,
        space: MemSpace,
        ops: &[Operand],
    ) -> Result<OpKind, EmuError> {
        let d = self.pdst(&opnd(ops, 0))?.unwrap_or(PRED_FALSE);
        let a = self.src(&opnd(ops, 1), Type::U64)?;
        Ok(OpKind::Isspacep {
            space: space_of(space),
            d,
            a,
        })
    }

    /// `cvta[.to].space.ty d, a`.
    pub(super) fn cvta(
        &mut self,
        to: bool,
        space: MemSpace,
        ty: Type,
        ops: &[Operand],
    ) -> Result<OpKind, EmuError> {
        // `cvta.local.u64 %SP, __local_depot0` takes a frame address.
        let d = self.dst(&opnd(ops, 0))?;
        let w = int_w(ty);
        if let Operand::SymbolAddress { symbol, offset } = opnd(ops, 1)
            && let SymValue::Frame(off) = self.symbol_value(symbol, offset)?
        {
            // Two ops would be needed; frame addresses in generic form are
            // produced by `FrameAddr` followed by the window offset, which we fold
            // by giving `FrameAddr` a generic flag through the offset.
            return Ok(OpKind::FrameAddr {
                d,
                offset: off | FRAME_GENERIC_FLAG,
            });
        }
        let a = self.src(&opnd(ops, 1), ty)?;
        // Global addresses are generic addresses (`cvta.global` is the identity).
        let f = if space == MemSpace::Global {
            UnOp::Mov
        } else {
            UnOp::Cvta {
                space: space_of(space),
                to,
                w,
            }
        };
        Ok(OpKind::Un { f, d, a })
    }

    /// `cp.async.{ca,cg}.shared.global[.L2::cache_hint] [dst], [src], size[, src_size][,
    /// policy]`: the copy size is an immediate 4, 8 or 16; the optional source size a
    /// register or an immediate.
    pub(super) fn cp_async(&mut self, hint: bool, ops: &[Operand]) -> Result<OpKind, EmuError> {
        let (dst_space, dst) = self.addr(&opnd(ops, 0), MemSpace::Shared)?;
        let (src_space, src) = self.addr(&opnd(ops, 1), MemSpace::Global)?;
        if dst_space != MemSpace::Shared || src_space != MemSpace::Global {
            return unsupported("`cp.async` whose operands are not shared and global addresses");
        }
        let size = match opnd(ops, 2) {
            Operand::Imm(i) if matches!(i.bits, 4 | 8 | 16) => i.bits as u8,
            other => return unsupported(format!("`cp.async` copy size {other:?}")),
        };
        // With a cache policy and no source size, the policy is the fourth operand.
        let has_src_size = (!hint || ops.len() >= 5) && !matches!(opnd(ops, 3), Operand::Absent);
        let src_size = if has_src_size {
            Some(self.src(&opnd(ops, 3), Type::U32)?)
        } else {
            None
        };
        Ok(OpKind::CpAsync {
            dst,
            src,
            size,
            src_size,
        })
    }

    /// `cp.async.wait_group n`.
    pub(super) fn cp_async_wait(&mut self, ops: &[Operand]) -> Result<OpKind, EmuError> {
        match opnd(ops, 0) {
            Operand::Imm(i) => Ok(OpKind::CpAsyncWait {
                keep_newest: Some(i.bits as u32),
            }),
            other => unsupported(format!("`cp.async.wait_group` count {other:?}")),
        }
    }

    /// An address operand in `space`; returns the (possibly refined) space and mode.
    pub(super) fn addr(
        &mut self,
        op: &Operand,
        space: MemSpace,
    ) -> Result<(MemSpace, Addr), EmuError> {
        let Operand::Address(a) = *op else {
            return unsupported(format!("address operand {op:?}"));
        };
        match a.base {
            AddressBase::Reg(r) => {
                let slot = self.reg(r);
                // A .func's `ld.param [%r]` addresses its frame; a kernel's, the
                // parameter block.
                if space == MemSpace::Param && !self.is_kernel {
                    return unsupported("register-addressed .param access in a device function");
                }
                let offset = a.offset;
                Ok((space, Addr::Reg { slot, offset }))
            }
            AddressBase::Absolute => Ok((space, Addr::Abs(a.offset as u64))),
            AddressBase::Var(v) => Ok(Self::var_addr(self.var_loc(v)?, a.offset as u64, space)),
        }
    }

    /// The address of variable location `loc` plus `off`, accessed in `space`.
    fn var_addr(loc: VarLoc, off: u64, space: MemSpace) -> (MemSpace, Addr) {
        match loc {
            VarLoc::KernelParam(o) => (MemSpace::Param, Addr::Abs(o.wrapping_add(off))),
            VarLoc::Frame(o) => (MemSpace::Local, Addr::Frame(o.wrapping_add(off))),
            // `[sdata]` in a generic access: compute the generic address and keep the
            // access generic so that it resolves through the window.
            VarLoc::Shared(o) if space == MemSpace::Generic => (
                MemSpace::Generic,
                Addr::Abs(crate::memory::SHARED_WINDOW + o + off),
            ),
            VarLoc::Shared(o) => (space, Addr::Abs(o.wrapping_add(off))),
            VarLoc::Const(o) => (MemSpace::Const, Addr::Abs(o.wrapping_add(off))),
            VarLoc::Global(g) => (MemSpace::Global, Addr::Abs(g.wrapping_add(off))),
        }
    }

    /// `size` bytes of the kernel's parameter block at `off`, little-endian.
    fn param_value(&self, off: u64, size: u32) -> Result<u64, EmuError> {
        let bytes = self
            .t
            .params
            .get(off as usize..(off + size as u64) as usize)
            .ok_or_else(|| {
                EmuError::InvalidLaunch(format!(
                    "the kernel reads parameter bytes {off}..{} but the parameter block has {} bytes",
                    off + size as u64,
                    self.t.params.len()
                ))
            })?;
        let mut buf = [0u8; 8];
        buf[..bytes.len()].copy_from_slice(bytes);
        Ok(u64::from_le_bytes(buf))
    }
}
