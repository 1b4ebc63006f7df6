//! Operands to slots, shared by every family: registers to their slots, immediates
//! to constant slots (converted to the instruction's type, PTX ISA §4.5.1), special
//! registers, predicate sources (possibly negated) and destinations, vectors of up
//! to four elements, and the values of symbol addresses.

use warpcheck_ir::operand::Symbol;
use warpcheck_ir::{EntityRef, Imm, Operand, Reg, Type, VarId};

use super::{InstCx, unsupported};
use crate::fault::EmuError;
use crate::ops::*;
use crate::translate::{PRED_FALSE, PRED_TRUE, SINK, VarLoc};

/// The value of a symbol's address: a constant, or an offset into the frame.
pub(super) enum SymValue {
    Const(u64),
    Frame(u64),
}

/// The bits of immediate `imm` as a value of type `ty`.
fn imm_bits(imm: Imm, ty: Type) -> u64 {
    match ty {
        Type::F16 | Type::Bf16 => {
            // Half literals are written as their bits (0xHHHH) in PTX; float literals are
            // converted.
            match imm.ty {
                Type::F32 => {
                    let f = f32::from_bits(imm.bits as u32);
                    if ty == Type::F16 {
                        half::f16::from_f32(f).to_bits() as u64
                    } else {
                        half::bf16::from_f32(f).to_bits() as u64
                    }
                }
                Type::F64 => {
                    let f = f64::from_bits(imm.bits);
                    if ty == Type::F16 {
                        half::f16::from_f64(f).to_bits() as u64
                    } else {
                        half::bf16::from_f64(f).to_bits() as u64
                    }
                }
                _ => imm.bits & 0xffff,
            }
        }
        Type::F16x2 | Type::Bf16x2 => imm.bits & 0xffff_ffff,
        _ => imm.bits_as(ty),
    }
}

impl InstCx<'_, '_> {
    pub(super) fn reg(&self, r: Reg) -> u32 {
        self.t.reg_slots[self.fi as usize][r.index()]
    }

    pub(super) fn reg_ty(&self, r: Reg) -> Type {
        self.body.regs[r].ty
    }

    /// A source value of type `ty` as a slot.
    pub(super) fn src(&mut self, op: &Operand, ty: Type) -> Result<Slot, EmuError> {
        match *op {
            Operand::Reg(r) => {
                if self.reg_ty(r).is_pred() {
                    return unsupported("a predicate register used as a value");
                }
                Ok(self.reg(r))
            }
            Operand::Imm(imm) => Ok(self.t.const_slot(imm_bits(imm, ty))),
            Operand::Special(s) => self.special(s),
            Operand::SymbolAddress { symbol, offset } => {
                match self.symbol_value(symbol, offset)? {
                    SymValue::Const(v) => Ok(self.t.const_slot(v)),
                    SymValue::Frame(_) => {
                        unsupported("the address of a .local or .param variable outside `mov`")
                    }
                }
            }
            ref other => unsupported(format!("operand {other:?} as a value")),
        }
    }

    pub(super) fn psrc(&self, op: &Operand) -> Result<PSrc, EmuError> {
        match *op {
            Operand::Reg(r) if self.reg_ty(r).is_pred() => Ok(PSrc {
                slot: self.reg(r),
                neg: false,
            }),
            Operand::NegPred(r) => Ok(PSrc {
                slot: self.reg(r),
                neg: true,
            }),
            Operand::Imm(i) => Ok(PSrc {
                slot: if i.bits != 0 { PRED_TRUE } else { PRED_FALSE },
                neg: false,
            }),
            ref other => unsupported(format!("operand {other:?} as a predicate")),
        }
    }

    pub(super) fn dst(&self, op: &Operand) -> Result<Slot, EmuError> {
        match *op {
            Operand::Reg(r) if !self.reg_ty(r).is_pred() => Ok(self.reg(r)),
            Operand::Sink | Operand::Absent => Ok(SINK),
            ref other => unsupported(format!("destination {other:?}")),
        }
    }

    pub(super) fn pdst(&self, op: &Operand) -> Result<Option<PSlot>, EmuError> {
        match *op {
            Operand::Reg(r) if self.reg_ty(r).is_pred() => Ok(Some(self.reg(r))),
            Operand::Sink | Operand::Absent => Ok(None),
            ref other => unsupported(format!("predicate destination {other:?}")),
        }
    }

    /// A destination that is a predicate or a value register by its type, or none.
    pub(super) fn value_or_pred_dst(&self, op: &Operand) -> Dst {
        match *op {
            Operand::Reg(r) if self.reg_ty(r).is_pred() => Dst::Pred(self.reg(r)),
            Operand::Reg(r) => Dst::Reg(self.reg(r)),
            _ => Dst::None,
        }
    }

    pub(super) fn symbol_value(
        &mut self,
        symbol: Symbol,
        offset: i64,
    ) -> Result<SymValue, EmuError> {
        let off = offset as u64;
        match symbol {
            Symbol::Func(f) => Ok(SymValue::Const(
                crate::exec::control::FUNC_ADDR_BASE + f.index() as u64 + off,
            )),
            Symbol::Var(v) => match self.var_loc(v)? {
                VarLoc::KernelParam(o) => Ok(SymValue::Const(o.wrapping_add(off))),
                VarLoc::Frame(o) => Ok(SymValue::Frame(o.wrapping_add(off))),
                VarLoc::Shared(o) | VarLoc::Const(o) => Ok(SymValue::Const(o.wrapping_add(off))),
                VarLoc::Global(a) => Ok(SymValue::Const(a.wrapping_add(off))),
            },
        }
    }

    pub(super) fn var_loc(&self, v: VarId) -> Result<VarLoc, EmuError> {
        match self.t.vars.get(&v) {
            Some(&l) => Ok(l),
            None => {
                let var = self.t.program.variable(v);
                unsupported(format!("variable `{}` in .{:?} space", var.name, var.space))
            }
        }
    }

    /// Destinations: a vector's elements, or one register.
    pub(super) fn vec_dsts(&self, op: &Operand) -> Result<VecSlots, EmuError> {
        let mut v = VecSlots {
            n: 0,
            slots: [SINK; 4],
        };
        match *op {
            Operand::Vector(list) => {
                let elems = self.body.list(list);
                if elems.len() > 4 {
                    return unsupported("vectors of more than 4 elements");
                }
                for (i, e) in elems.iter().enumerate() {
                    v.slots[i] = self.dst(e)?;
                }
                v.n = elems.len() as u8;
            }
            ref o => {
                v.slots[0] = self.dst(o)?;
                v.n = 1;
            }
        }
        Ok(v)
    }

    /// Sources of type `ty`: a vector's elements, or one value.
    pub(super) fn vec_srcs(&mut self, op: &Operand, ty: Type) -> Result<VecSlots, EmuError> {
        let mut v = VecSlots {
            n: 0,
            slots: [SINK; 4],
        };
        match *op {
            Operand::Vector(list) => {
                let elems = self.body.list(list);
                if elems.len() > 4 {
                    return unsupported("vectors of more than 4 elements");
                }
                for (i, e) in elems.iter().enumerate() {
                    v.slots[i] = self.src(e, ty)?;
                }
                v.n = elems.len() as u8;
            }
            ref o => {
                v.slots[0] = self.src(o, ty)?;
                v.n = 1;
            }
        }
        Ok(v)
    }
}
