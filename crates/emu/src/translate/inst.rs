//! Translation of one instruction into a flat op: operands to slots (immediates
//! converted to the instruction's type, PTX ISA §4.5.1), addresses to addressing modes,
//! modifiers to the executor's operation enums, and calls to their targets.

use warpcheck_ir::modifiers::{
    BarrierMode, IntRounding, MemSpace, Mul24Mode, MulMode, RoundingMode, VoteMode,
};
use warpcheck_ir::operand::{AddressBase, Symbol};
use warpcheck_ir::{
    EntityRef, Imm, InstId, Op, Operand, Reg, SpecialOperand, SpecialReg, Type, VarId,
};

use super::{
    CARRY, FRAME_GENERIC_FLAG, NO_PC, PRED_FALSE, PRED_TRUE, SINK, Translator, VarLoc, extend,
};
use crate::calls::Native;
use crate::exec::cvt::CvtSpec;
use crate::fault::EmuError;
use crate::ops::*;

/// Translating one instruction.
pub(super) struct InstCx<'a, 'p> {
    pub(super) t: &'a mut Translator<'p>,
    pub(super) fi: u32,
    pub(super) body: &'p warpcheck_ir::Body,
    pub(super) id: InstId,
    pub(super) is_kernel: bool,
    pub(super) contractions: &'a super::contract::Contractions,
}

pub(super) fn unsupported<T>(what: impl Into<String>) -> Result<T, EmuError> {
    Err(EmuError::unsupported(what))
}

fn int_w(ty: Type) -> W {
    W::from_bits(ty.bits())
}

fn fty(ty: Type) -> Result<FTy, EmuError> {
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

fn fspec(ty: Type, rnd: Option<RoundingMode>, ftz: bool, sat: bool) -> Result<FSpec, EmuError> {
    Ok(FSpec {
        ty: fty(ty)?,
        rnd: rnd.unwrap_or(RoundingMode::Rn),
        ftz,
        sat,
    })
}

fn space_of(space: MemSpace) -> MemSpace {
    match space {
        MemSpace::SharedCluster => MemSpace::Shared,
        s => s,
    }
}

impl InstCx<'_, '_> {
    fn reg(&self, r: Reg) -> u32 {
        self.t.reg_slots[self.fi as usize][r.index()]
    }

    fn reg_ty(&self, r: Reg) -> Type {
        self.body.regs[r].ty
    }

    /// A source value of type `ty` as a slot.
    fn src(&mut self, op: &Operand, ty: Type) -> Result<Slot, EmuError> {
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

    fn special(&mut self, s: SpecialOperand) -> Result<Slot, EmuError> {
        if matches!(
            s.reg,
            SpecialReg::Clock
                | SpecialReg::ClockHi
                | SpecialReg::Clock64
                | SpecialReg::GlobalTimer
                | SpecialReg::GlobalTimerLo
                | SpecialReg::GlobalTimerHi
        ) {
            return unsupported(format!("{s} outside `mov`"));
        }
        if let Some(&slot) = self.t.specials.get(&s) {
            return Ok(slot);
        }
        let slot = self.t.nslots;
        self.t.nslots += 1;
        self.t.specials.insert(s, slot);
        Ok(slot)
    }

    fn psrc(&self, op: &Operand) -> Result<PSrc, EmuError> {
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

    fn dst(&self, op: &Operand) -> Result<Slot, EmuError> {
        match *op {
            Operand::Reg(r) if !self.reg_ty(r).is_pred() => Ok(self.reg(r)),
            Operand::Sink | Operand::Absent => Ok(SINK),
            ref other => unsupported(format!("destination {other:?}")),
        }
    }

    fn pdst(&self, op: &Operand) -> Result<Option<PSlot>, EmuError> {
        match *op {
            Operand::Reg(r) if self.reg_ty(r).is_pred() => Ok(Some(self.reg(r))),
            Operand::Sink | Operand::Absent => Ok(None),
            ref other => unsupported(format!("predicate destination {other:?}")),
        }
    }

    fn symbol_value(&mut self, symbol: Symbol, offset: i64) -> Result<SymValue, EmuError> {
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

    fn var_loc(&self, v: VarId) -> Result<VarLoc, EmuError> {
        match self.t.vars.get(&v) {
            Some(&l) => Ok(l),
            None => {
                let var = self.t.program.variable(v);
                unsupported(format!("variable `{}` in .{:?} space", var.name, var.space))
            }
        }
    }

    fn vec_dsts(&self, op: &Operand) -> Result<VecSlots, EmuError> {
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

    fn vec_srcs(&mut self, op: &Operand, ty: Type) -> Result<VecSlots, EmuError> {
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

    /// An address operand in `space`; returns the (possibly refined) space and mode.
    fn addr(&mut self, op: &Operand, space: MemSpace) -> Result<(MemSpace, Addr), EmuError> {
        let Operand::Address(a) = *op else {
            return unsupported(format!("address operand {op:?}"));
        };
        match a.base {
            AddressBase::Reg(r) => {
                let slot = self.reg(r);
                // A .func's `ld.param [%r]` addresses its frame; a kernel's, the
                // parameter block.
                let space = if space == MemSpace::Param && !self.is_kernel {
                    return unsupported("register-addressed .param access in a device function");
                } else {
                    space
                };
                Ok((
                    space,
                    Addr::Reg {
                        slot,
                        offset: a.offset,
                    },
                ))
            }
            AddressBase::Absolute => Ok((space, Addr::Abs(a.offset as u64))),
            AddressBase::Var(v) => {
                let off = a.offset as u64;
                match self.var_loc(v)? {
                    VarLoc::KernelParam(o) => Ok((MemSpace::Param, Addr::Abs(o.wrapping_add(off)))),
                    VarLoc::Frame(o) => Ok((MemSpace::Local, Addr::Frame(o.wrapping_add(off)))),
                    VarLoc::Shared(o) => Ok((
                        if space == MemSpace::Generic {
                            MemSpace::Shared
                        } else {
                            space
                        },
                        Addr::Abs(if space == MemSpace::Generic {
                            crate::memory::SHARED_WINDOW + o + off
                        } else {
                            o.wrapping_add(off)
                        }),
                    )),
                    VarLoc::Const(o) => Ok((MemSpace::Const, Addr::Abs(o.wrapping_add(off)))),
                    VarLoc::Global(g) => Ok((MemSpace::Global, Addr::Abs(g.wrapping_add(off)))),
                }
                .map(|(s, a)| match (s, a) {
                    // `[sdata]` in a generic access: we computed the generic address; keep
                    // the access generic so that it resolves through the window.
                    (MemSpace::Shared, Addr::Abs(x)) if space == MemSpace::Generic => {
                        (MemSpace::Generic, Addr::Abs(x))
                    }
                    other => other,
                })
            }
        }
    }

    pub(super) fn translate(
        &mut self,
        op: Op,
        ops: &[Operand],
        block_pc: &dyn Fn(warpcheck_ir::BlockId) -> u32,
    ) -> Result<OpKind, EmuError> {
        let o = |i: usize| ops.get(i).copied().unwrap_or(Operand::Absent);
        macro_rules! un {
            ($f:expr, $ty:expr) => {{
                let d = self.dst(&o(0))?;
                let a = self.src(&o(1), $ty)?;
                OpKind::Un { f: $f, d, a }
            }};
        }
        macro_rules! bin {
            ($f:expr, $ta:expr, $tb:expr) => {{
                let d = self.dst(&o(0))?;
                let a = self.src(&o(1), $ta)?;
                let b = self.src(&o(2), $tb)?;
                OpKind::Bin { f: $f, d, a, b }
            }};
        }
        macro_rules! tern {
            ($f:expr, $ta:expr, $tb:expr, $tc:expr) => {{
                let d = self.dst(&o(0))?;
                let a = self.src(&o(1), $ta)?;
                let b = self.src(&o(2), $tb)?;
                let c = self.src(&o(3), $tc)?;
                OpKind::Tern { f: $f, d, a, b, c }
            }};
        }
        Ok(match op {
            Op::Add {
                cc,
                rounding,
                ftz,
                sat,
                ty,
            } => {
                if cc {
                    self.carry(CarryOp::Add, ty, ops, false, true)?
                } else if let Some(fused) = self.contract(false, rounding, ftz, sat, ty, ops)? {
                    fused
                } else if ty.is_float() {
                    bin!(BinOp::FAdd(fspec(ty, rounding, ftz, sat)?), ty, ty)
                } else if sat {
                    bin!(BinOp::AddSatS32, ty, ty)
                } else {
                    bin!(BinOp::IAdd(int_w(ty)), ty, ty)
                }
            }
            Op::Sub {
                cc,
                rounding,
                ftz,
                sat,
                ty,
            } => {
                if cc {
                    self.carry(CarryOp::Sub, ty, ops, false, true)?
                } else if let Some(fused) = self.contract(true, rounding, ftz, sat, ty, ops)? {
                    fused
                } else if ty.is_float() {
                    bin!(BinOp::FSub(fspec(ty, rounding, ftz, sat)?), ty, ty)
                } else if sat {
                    bin!(BinOp::SubSatS32, ty, ty)
                } else {
                    bin!(BinOp::ISub(int_w(ty)), ty, ty)
                }
            }
            Op::AddC { cc, ty } => self.carry(CarryOp::Add, ty, ops, true, cc)?,
            Op::SubC { cc, ty } => self.carry(CarryOp::Sub, ty, ops, true, cc)?,
            Op::MadC { mode, cc, ty } => self.carry(
                if mode == Mul24Mode::Hi {
                    CarryOp::MadHi
                } else {
                    CarryOp::MadLo
                },
                ty,
                ops,
                true,
                cc,
            )?,
            Op::Mul {
                mode,
                rounding,
                ftz,
                sat,
                ty,
            } => {
                if ty.is_float() {
                    bin!(BinOp::FMul(fspec(ty, rounding, ftz, sat)?), ty, ty)
                } else {
                    let w = int_w(ty);
                    let signed = ty.is_signed();
                    match mode {
                        Some(MulMode::Hi) => bin!(BinOp::IMulHi { w, signed }, ty, ty),
                        Some(MulMode::Wide) => bin!(BinOp::IMulWide { w, signed }, ty, ty),
                        _ => bin!(BinOp::IMulLo(w), ty, ty),
                    }
                }
            }
            Op::Mad {
                mode,
                cc,
                rounding,
                ftz,
                sat,
                ty,
            } => {
                if cc {
                    let f = if mode == Some(MulMode::Hi) {
                        CarryOp::MadHi
                    } else {
                        CarryOp::MadLo
                    };
                    self.carry(f, ty, ops, false, true)?
                } else if ty.is_float() {
                    tern!(TernOp::Fma(fspec(ty, rounding, ftz, sat)?), ty, ty, ty)
                } else {
                    let w = int_w(ty);
                    let signed = ty.is_signed();
                    match mode {
                        Some(MulMode::Hi) => tern!(TernOp::IMadHi { w, signed, sat }, ty, ty, ty),
                        Some(MulMode::Wide) => {
                            let wide = wide_type(ty);
                            tern!(TernOp::IMadWide { w, signed }, ty, ty, wide)
                        }
                        _ => tern!(TernOp::IMadLo(w), ty, ty, ty),
                    }
                }
            }
            Op::Mul24 { mode, ty } => bin!(
                BinOp::Mul24 {
                    hi: mode == Mul24Mode::Hi,
                    signed: ty.is_signed()
                },
                ty,
                ty
            ),
            Op::Mad24 { mode, sat, ty } => {
                if sat {
                    return unsupported("mad24.hi.sat");
                }
                tern!(
                    TernOp::Mad24 {
                        hi: mode == Mul24Mode::Hi,
                        signed: ty.is_signed()
                    },
                    ty,
                    ty,
                    ty
                )
            }
            Op::Sad { ty } => tern!(
                TernOp::Sad {
                    w: int_w(ty),
                    signed: ty.is_signed()
                },
                ty,
                ty,
                ty
            ),
            Op::Div {
                approx,
                full,
                rounding,
                ftz,
                ty,
            } => {
                if ty.is_float() {
                    bin!(
                        BinOp::FDiv {
                            spec: fspec(ty, rounding, ftz, false)?,
                            approx: approx || full
                        },
                        ty,
                        ty
                    )
                } else {
                    bin!(
                        BinOp::IDiv {
                            w: int_w(ty),
                            signed: ty.is_signed()
                        },
                        ty,
                        ty
                    )
                }
            }
            Op::Rem { ty } => bin!(
                BinOp::IRem {
                    w: int_w(ty),
                    signed: ty.is_signed()
                },
                ty,
                ty
            ),
            Op::Abs { ftz, ty } => {
                if ty.is_float() {
                    un!(UnOp::FAbs(fspec(ty, None, ftz, false)?), ty)
                } else {
                    un!(UnOp::IAbs(int_w(ty)), ty)
                }
            }
            Op::Neg { ftz, ty } => {
                if ty.is_float() {
                    un!(UnOp::FNeg(fspec(ty, None, ftz, false)?), ty)
                } else {
                    un!(UnOp::INeg(int_w(ty)), ty)
                }
            }
            Op::Min {
                relu,
                ftz,
                nan,
                xorsign,
                ty,
                ..
            }
            | Op::Max {
                relu,
                ftz,
                nan,
                xorsign,
                ty,
                ..
            } => {
                if relu || xorsign {
                    return unsupported("min/max with .relu or .xorsign");
                }
                let is_min = matches!(op, Op::Min { .. });
                if ty.is_float() {
                    let spec = fspec(ty, None, ftz, false)?;
                    let f = if is_min {
                        BinOp::FMin { spec, nan }
                    } else {
                        BinOp::FMax { spec, nan }
                    };
                    bin!(f, ty, ty)
                } else {
                    let (w, signed) = (int_w(ty), ty.is_signed());
                    let f = if is_min {
                        BinOp::IMin { w, signed }
                    } else {
                        BinOp::IMax { w, signed }
                    };
                    bin!(f, ty, ty)
                }
            }
            Op::Popc { ty } => un!(UnOp::Popc(int_w(ty)), ty),
            Op::Clz { ty } => un!(UnOp::Clz(int_w(ty)), ty),
            Op::Brev { ty } => un!(UnOp::Brev(int_w(ty)), ty),
            Op::Bfind { shiftamt, ty } => {
                un!(
                    UnOp::Bfind {
                        w: int_w(ty),
                        signed: ty.is_signed(),
                        shiftamt
                    },
                    ty
                )
            }
            Op::Fns { .. } => tern!(TernOp::Fns, Type::B32, Type::U32, Type::S32),
            Op::Bfe { ty } => tern!(
                TernOp::Bfe {
                    w: int_w(ty),
                    signed: ty.is_signed()
                },
                ty,
                Type::U32,
                Type::U32
            ),
            Op::Bfi { ty } => {
                let d = self.dst(&o(0))?;
                let a = self.src(&o(1), ty)?;
                let b = self.src(&o(2), ty)?;
                let pos = self.src(&o(3), Type::U32)?;
                let len = self.src(&o(4), Type::U32)?;
                OpKind::Bfi {
                    w: int_w(ty),
                    d,
                    a,
                    b,
                    pos,
                    len,
                }
            }
            Op::Dp4a { atype, btype } => tern!(
                TernOp::Dp4a {
                    a_signed: atype.is_signed(),
                    b_signed: btype.is_signed()
                },
                Type::B32,
                Type::B32,
                Type::B32
            ),
            Op::Dp2a { mode, atype, btype } => tern!(
                TernOp::Dp2a {
                    hi: mode == warpcheck_ir::modifiers::Dp2aMode::Hi,
                    a_signed: atype.is_signed(),
                    b_signed: btype.is_signed()
                },
                Type::B32,
                Type::B32,
                Type::B32
            ),
            Op::Testp { op: t, ty } => {
                let d = self.pdst(&o(0))?.unwrap_or(PRED_FALSE);
                let a = self.src(&o(1), ty)?;
                OpKind::Testp {
                    op: t,
                    fty: fty(ty)?,
                    d,
                    a,
                }
            }
            Op::Copysign { ty } => bin!(BinOp::Copysign(fty(ty)?), ty, ty),
            Op::Fma {
                rounding,
                ftz,
                sat,
                relu,
                ty,
            } => {
                if relu {
                    return unsupported("fma.relu");
                }
                tern!(TernOp::Fma(fspec(ty, rounding, ftz, sat)?), ty, ty, ty)
            }
            Op::Rcp {
                approx,
                rounding,
                ftz,
                ty,
            } => {
                un!(
                    UnOp::FRcp {
                        spec: fspec(ty, rounding, ftz, false)?,
                        approx
                    },
                    ty
                )
            }
            Op::Sqrt {
                approx,
                rounding,
                ftz,
                ty,
            } => {
                un!(
                    UnOp::FSqrt {
                        spec: fspec(ty, rounding, ftz, false)?,
                        approx
                    },
                    ty
                )
            }
            Op::Rsqrt { ftz, ty, .. } => un!(UnOp::FRsqrt(fspec(ty, None, ftz, false)?), ty),
            Op::Sin { ftz, ty, .. } => un!(UnOp::FSin(fspec(ty, None, ftz, false)?), ty),
            Op::Cos { ftz, ty, .. } => un!(UnOp::FCos(fspec(ty, None, ftz, false)?), ty),
            Op::Lg2 { ftz, ty, .. } => un!(UnOp::FLg2(fspec(ty, None, ftz, false)?), ty),
            Op::Ex2 { ftz, ty, .. } => un!(UnOp::FEx2(fspec(ty, None, ftz, false)?), ty),
            Op::Tanh { ty, .. } => un!(UnOp::FTanh(fspec(ty, None, false, false)?), ty),
            Op::Setp {
                cmp,
                bool_op,
                ftz,
                ty,
            } => {
                let (p, q) = match o(0) {
                    Operand::Pair(p, q) => (p.map(|r| self.reg(r)), q.map(|r| self.reg(r))),
                    other => (self.pdst(&other)?, None),
                };
                let a = self.src(&o(1), ty)?;
                let b = self.src(&o(2), ty)?;
                let combine = match bool_op {
                    Some(bop) => Some((bop, self.psrc(&o(3))?)),
                    None => None,
                };
                OpKind::Setp {
                    cmp: self.cmp(cmp, ty, ftz)?,
                    p,
                    q,
                    a,
                    b,
                    combine,
                }
            }
            Op::Set {
                cmp,
                bool_op,
                ftz,
                dty,
                sty,
            } => {
                let d = self.dst(&o(0))?;
                let a = self.src(&o(1), sty)?;
                let b = self.src(&o(2), sty)?;
                let combine = match bool_op {
                    Some(bop) => Some((bop, self.psrc(&o(3))?)),
                    None => None,
                };
                if dty != Type::F32 && dty.is_float() {
                    return unsupported(format!("set with destination .{dty}"));
                }
                OpKind::Set {
                    cmp: self.cmp(cmp, sty, ftz)?,
                    float_dst: dty == Type::F32,
                    d,
                    a,
                    b,
                    combine,
                }
            }
            Op::Selp { ty } => {
                let d = self.dst(&o(0))?;
                let a = self.src(&o(1), ty)?;
                let b = self.src(&o(2), ty)?;
                let p = self.psrc(&o(3))?;
                OpKind::Selp { d, a, b, p }
            }
            Op::Slct { ftz, dty, cty } => {
                if cty == Type::F32 {
                    tern!(TernOp::SlctF32 { ftz }, dty, dty, cty)
                } else {
                    tern!(TernOp::SlctS32, dty, dty, cty)
                }
            }
            Op::And { ty } | Op::Or { ty } | Op::Xor { ty } => {
                if ty.is_pred() {
                    let d = self.pdst(&o(0))?.unwrap_or(PRED_FALSE);
                    let a = self.psrc(&o(1))?;
                    let b = self.psrc(&o(2))?;
                    let op = match op {
                        Op::And { .. } => PredOp::And,
                        Op::Or { .. } => PredOp::Or,
                        _ => PredOp::Xor,
                    };
                    OpKind::PredLogic { op, d, a, b }
                } else {
                    let f = match op {
                        Op::And { .. } => BinOp::And,
                        Op::Or { .. } => BinOp::Or,
                        _ => BinOp::Xor,
                    };
                    bin!(f, ty, ty)
                }
            }
            Op::Not { ty } => {
                if ty.is_pred() {
                    let d = self.pdst(&o(0))?.unwrap_or(PRED_FALSE);
                    let a = self.psrc(&o(1))?;
                    OpKind::PredLogic {
                        op: PredOp::Not,
                        d,
                        a,
                        b: a,
                    }
                } else {
                    un!(UnOp::Not(int_w(ty)), ty)
                }
            }
            Op::Cnot { ty } => un!(UnOp::Cnot(int_w(ty)), ty),
            Op::Lop3 { .. } => {
                let lut = match o(4) {
                    Operand::Imm(i) => i.bits as u8,
                    _ => return unsupported("lop3 with a non-literal table"),
                };
                tern!(TernOp::Lop3(lut), Type::B32, Type::B32, Type::B32)
            }
            Op::Shf { dir, mode, .. } => {
                tern!(TernOp::Shf { dir, mode }, Type::B32, Type::B32, Type::U32)
            }
            Op::Shl { ty } => bin!(BinOp::Shl(int_w(ty)), ty, Type::U32),
            Op::Shr { ty } => bin!(
                BinOp::Shr {
                    w: int_w(ty),
                    signed: ty.is_signed()
                },
                ty,
                Type::U32
            ),
            Op::Mov { vec, ty } => self.mov(vec.is_some(), ty, &o(0), &o(1))?,
            Op::ShflSync { mode, .. } => {
                let (d, p) = match o(0) {
                    Operand::Pair(d, p) => (
                        d.map(|r| self.reg(r)).unwrap_or(SINK),
                        p.map(|r| self.reg(r)),
                    ),
                    other => (self.dst(&other)?, None),
                };
                let a = self.src(&o(1), Type::B32)?;
                let b = self.src(&o(2), Type::B32)?;
                let c = self.src(&o(3), Type::B32)?;
                let membermask = self.src(&o(4), Type::B32)?;
                OpKind::Shfl {
                    mode,
                    d,
                    p,
                    a,
                    b,
                    c,
                    membermask,
                }
            }
            Op::Prmt { mode, .. } => tern!(TernOp::Prmt(mode), Type::B32, Type::B32, Type::B32),
            Op::Ld { space, vec, ty, .. } | Op::Ldu { space, vec, ty } => {
                let _ = vec;
                let ordered = matches!(op, Op::Ld { order: Some(o), .. } if o != warpcheck_ir::modifiers::MemOrder::Weak);
                let dsts = self.vec_dsts(&o(0))?;
                let (space, addr) = self.addr(&o(1), space_of(space))?;
                let dst_bits = match o(0) {
                    Operand::Reg(r) => self.reg_ty(r).bits(),
                    Operand::Vector(l) => match self.body.list(l).first() {
                        Some(Operand::Reg(r)) => self.reg_ty(*r).bits(),
                        _ => ty.bits(),
                    },
                    _ => ty.bits(),
                };
                let mut shape = mem_shape(space, ty, dst_bits)?;
                shape.ordered = ordered;
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
                OpKind::Ld { shape, dsts, addr }
            }
            Op::St {
                space, ty, order, ..
            } => {
                let (space, addr) = self.addr(&o(0), space_of(space))?;
                let ordered = order.is_some_and(|o| o != warpcheck_ir::modifiers::MemOrder::Weak);
                let srcs = self.vec_srcs(&o(1), ty)?;
                if space == MemSpace::Param && self.is_kernel && matches!(addr, Addr::Abs(_)) {
                    return unsupported("a store to a kernel parameter");
                }
                OpKind::St {
                    shape: MemShape {
                        ordered,
                        ..mem_shape(space, ty, ty.bits())?
                    },
                    srcs,
                    addr,
                }
            }
            Op::Prefetch { .. } | Op::Prefetchu { .. } => OpKind::Nop,
            Op::Isspacep { space } => {
                let d = self.pdst(&o(0))?.unwrap_or(PRED_FALSE);
                let a = self.src(&o(1), Type::U64)?;
                OpKind::Isspacep {
                    space: space_of(space),
                    d,
                    a,
                }
            }
            Op::Cvta { to, space, ty } => {
                // `cvta.local.u64 %SP, __local_depot0` takes a frame address.
                let d = self.dst(&o(0))?;
                let w = int_w(ty);
                if let Operand::SymbolAddress { symbol, offset } = o(1)
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
                let a = self.src(&o(1), ty)?;
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
                OpKind::Un { f, d, a }
            }
            Op::Cvt {
                irnd,
                rounding,
                ftz,
                sat,
                relu,
                satfinite,
                dty,
                sty,
            } => {
                if dty.is_packed() && sty == Type::F32 {
                    let _ = satfinite;
                    bin!(
                        BinOp::PackHalf2 {
                            bf: dty == Type::Bf16x2,
                            rnd: rounding.unwrap_or(RoundingMode::Rn),
                            relu
                        },
                        sty,
                        sty
                    )
                } else if dty.is_integer() && sty.is_integer() {
                    un!(
                        UnOp::IntCvt {
                            from: int_w(sty),
                            from_signed: sty.is_signed(),
                            to: int_w(dty),
                            to_signed: dty.is_signed(),
                            sat
                        },
                        sty
                    )
                } else {
                    let spec = CvtSpec::new(
                        dty,
                        sty,
                        irnd.map(int_rounding).or(rounding),
                        ftz,
                        sat,
                        relu,
                    )
                    .ok_or_else(|| EmuError::unsupported(format!("cvt.{dty}.{sty}")))?;
                    un!(UnOp::Cvt(spec), sty)
                }
            }
            Op::CpAsync { .. }
            | Op::CpAsyncCommitGroup {}
            | Op::CpAsyncWaitGroup {}
            | Op::CpAsyncWaitAll {} => {
                return unsupported(format!("`{}` (asynchronous copies)", op.name()));
            }
            Op::Tex { .. } | Op::Suld { .. } | Op::Sust { .. } => {
                return unsupported(format!("`{}` (textures and surfaces)", op.name()));
            }
            Op::Bra { .. } => {
                let Operand::Label(target) = o(0) else {
                    return unsupported("branch without a label");
                };
                OpKind::Bra {
                    target: block_pc(target),
                    reconverge: self.reconverge(block_pc),
                }
            }
            Op::BrxIdx { .. } => {
                let a = self.src(&o(0), Type::U32)?;
                let Operand::BranchTable(t) = o(1) else {
                    return unsupported("brx.idx without a .branchtargets list");
                };
                let table = self
                    .body
                    .branch_tables
                    .get(t as usize)
                    .ok_or_else(|| EmuError::Internal("missing branch table".into()))?;
                let targets = table.targets.iter().map(|&b| block_pc(b)).collect();
                OpKind::BrxIdx {
                    a,
                    targets,
                    reconverge: self.reconverge(block_pc),
                }
            }
            Op::Call { .. } => self.call(ops)?,
            Op::Ret { .. } => OpKind::Ret,
            Op::Exit {} => OpKind::Exit,
            Op::Trap {} | Op::Brkpt {} => OpKind::Trap,
            Op::Barrier { mode, red_op, .. } => {
                let (mut i, red) = if mode == BarrierMode::Red {
                    let p = self.psrc(&o(ops.len().saturating_sub(1)))?;
                    let op = red_op
                        .ok_or_else(|| EmuError::unsupported("bar.red without an operation"))?;
                    let d = match o(0) {
                        Operand::Reg(r) if self.reg_ty(r).is_pred() => Dst::Pred(self.reg(r)),
                        Operand::Reg(r) => Dst::Reg(self.reg(r)),
                        _ => Dst::None,
                    };
                    (1, Some((op, d, p)))
                } else {
                    (0, None)
                };
                let id = self.src(&o(i), Type::U32)?;
                i += 1;
                let count = match o(i) {
                    Operand::Absent => None,
                    Operand::Reg(r) if self.reg_ty(r).is_pred() => None,
                    Operand::NegPred(_) => None,
                    other => Some(self.src(&other, Type::U32)?),
                };
                OpKind::Barrier(BarrierOp {
                    mode,
                    id,
                    count,
                    red,
                })
            }
            Op::BarWarpSync {} => OpKind::WarpSync {
                mask: self.src(&o(0), Type::B32)?,
            },
            Op::Membar { .. } | Op::Fence { .. } | Op::FenceProxy { .. } | Op::Nanosleep { .. } => {
                OpKind::Nop
            }
            Op::Atom {
                space,
                op: aop,
                ty,
                hint,
                ..
            } => {
                let d = self.dst(&o(0))?;
                let (space, addr) = self.addr(&o(1), space_of(space))?;
                let b = self.src(&o(2), ty)?;
                let _ = hint;
                let c = if aop == warpcheck_ir::modifiers::AtomOp::Cas {
                    self.src(&o(3), ty)?
                } else {
                    SINK
                };
                let (aty, size) = atom_type(ty)?;
                OpKind::Atom {
                    space,
                    op: aop,
                    ty: aty,
                    size,
                    d: Some(d),
                    addr,
                    b,
                    c,
                }
            }
            Op::Red {
                space, op: aop, ty, ..
            } => {
                let (space, addr) = self.addr(&o(0), space_of(space))?;
                let b = self.src(&o(1), ty)?;
                let (aty, size) = atom_type(ty)?;
                OpKind::Atom {
                    space,
                    op: aop,
                    ty: aty,
                    size,
                    d: None,
                    addr,
                    b,
                    c: SINK,
                }
            }
            Op::VoteSync { mode, .. } => {
                let d = match o(0) {
                    Operand::Reg(r) if self.reg_ty(r).is_pred() => Dst::Pred(self.reg(r)),
                    Operand::Reg(r) => Dst::Reg(self.reg(r)),
                    _ => Dst::None,
                };
                let p = self.psrc(&o(1))?;
                let membermask = self.src(&o(2), Type::B32)?;
                if mode == VoteMode::Ballot && matches!(d, Dst::Pred(_)) {
                    return unsupported("vote.ballot into a predicate");
                }
                OpKind::Vote {
                    mode,
                    d,
                    p,
                    membermask,
                }
            }
            Op::MatchSync { mode, ty, .. } => {
                let (d, p) = match o(0) {
                    Operand::Pair(d, p) => (
                        d.map(|r| self.reg(r)).unwrap_or(SINK),
                        p.map(|r| self.reg(r)),
                    ),
                    other => (self.dst(&other)?, None),
                };
                let a = self.src(&o(1), ty)?;
                let membermask = self.src(&o(2), Type::B32)?;
                OpKind::Match {
                    mode,
                    wide: ty.bits() == 64,
                    d,
                    p,
                    a,
                    membermask,
                }
            }
            Op::Activemask { .. } => OpKind::Activemask {
                d: self.dst(&o(0))?,
            },
            Op::ReduxSync { op: rop, ty } => {
                let d = self.dst(&o(0))?;
                let a = self.src(&o(1), ty)?;
                let membermask = self.src(&o(2), Type::B32)?;
                OpKind::Redux {
                    op: rop,
                    signed: ty.is_signed(),
                    d,
                    a,
                    membermask,
                }
            }
        })
    }

    /// `add`/`sub` of a contractible product becomes `fma` (see `contract`).
    fn contract(
        &mut self,
        is_sub: bool,
        rounding: Option<RoundingMode>,
        ftz: bool,
        sat: bool,
        ty: Type,
        ops: &[Operand],
    ) -> Result<Option<OpKind>, EmuError> {
        if rounding.is_some() || sat || !matches!(ty, Type::F32 | Type::F64) {
            return Ok(None);
        }
        let (Some(&d), Some(&a), Some(&b)) = (ops.first(), ops.get(1), ops.get(2)) else {
            return Ok(None);
        };
        let matches = |op: &Op| matches!(*op, Op::Mul { ty: t, ftz: f, .. } if t == ty && f == ftz);
        let pa = self
            .contractions
            .product_for(self.body, self.id, &a, matches);
        let pb = self
            .contractions
            .product_for(self.body, self.id, &b, matches);
        let (product, addend, product_is_a) = match (pa, pb) {
            (Some(p), None) => (p, b, true),
            (None, Some(p)) => (p, a, false),
            _ => return Ok(None),
        };
        let spec = fspec(ty, Some(RoundingMode::Rn), ftz, false)?;
        // a + x*y, x*y + b: fma(x, y, c); a - x*y: fma(-x, y, a); x*y - b: fma(x, y, -b).
        let f = TernOp::FmaSigned {
            spec,
            neg_product: is_sub && !product_is_a,
            neg_addend: is_sub && product_is_a,
        };
        let dd = self.dst(&d)?;
        let x = self.src(&product.x, ty)?;
        let y = self.src(&product.y, ty)?;
        let c = self.src(&addend, ty)?;
        Ok(Some(OpKind::Tern {
            f,
            d: dd,
            a: x,
            b: y,
            c,
        }))
    }

    fn reconverge(&self, block_pc: &dyn Fn(warpcheck_ir::BlockId) -> u32) -> u32 {
        let block = self.body.inst_block[self.id.index()];
        match self.body.ipdom(block) {
            Some(b) => block_pc(b),
            None => NO_PC,
        }
    }

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

    fn cmp(
        &self,
        op: warpcheck_ir::modifiers::CmpOp,
        ty: Type,
        ftz: bool,
    ) -> Result<Cmp, EmuError> {
        let kind = if ty.is_float() {
            CmpKind::Float(fty(ty)?)
        } else if ty.is_signed() {
            CmpKind::Signed(int_w(ty))
        } else {
            CmpKind::Unsigned(int_w(ty))
        };
        Ok(Cmp { op, kind, ftz })
    }

    fn carry(
        &mut self,
        f: CarryOp,
        ty: Type,
        ops: &[Operand],
        cin: bool,
        cout: bool,
    ) -> Result<OpKind, EmuError> {
        let o = |i: usize| ops.get(i).copied().unwrap_or(Operand::Absent);
        let d = self.dst(&o(0))?;
        let a = self.src(&o(1), ty)?;
        let b = self.src(&o(2), ty)?;
        let c = if matches!(f, CarryOp::MadLo | CarryOp::MadHi) {
            self.src(&o(3), ty)?
        } else {
            SINK
        };
        Ok(OpKind::Carry {
            f,
            w: int_w(ty),
            d,
            a,
            b,
            c,
            cc: CARRY,
            cin,
            cout,
        })
    }

    fn mov(&mut self, vec: bool, ty: Type, d: &Operand, a: &Operand) -> Result<OpKind, EmuError> {
        if ty.is_pred() {
            let dp = self.pdst(d)?.unwrap_or(PRED_FALSE);
            let ap = self.psrc(a)?;
            return Ok(OpKind::PredLogic {
                op: PredOp::Mov,
                d: dp,
                a: ap,
                b: ap,
            });
        }
        match (*d, *a) {
            (Operand::Vector(_), Operand::Vector(_)) if vec => {
                let dsts = self.vec_dsts(d)?;
                let srcs = self.vec_srcs(a, ty)?;
                if dsts.n != srcs.n {
                    return unsupported("`mov.v*` between vectors of different lengths");
                }
                Ok(OpKind::VecMov { dsts, srcs })
            }
            (Operand::Vector(_), _) => {
                let dsts = self.vec_dsts(d)?;
                let bits = (ty.bits() / dsts.n.max(1) as u32) as u8;
                let a = self.src(a, ty)?;
                Ok(OpKind::Unpack { dsts, a, bits })
            }
            (_, Operand::Vector(_)) => {
                let dd = self.dst(d)?;
                let n = match *a {
                    Operand::Vector(l) => self.body.list(l).len() as u32,
                    _ => 1,
                };
                let bits = ty.bits() / n.max(1);
                let elem_ty = match bits {
                    8 => Type::B8,
                    16 => Type::B16,
                    32 => Type::B32,
                    _ => Type::B64,
                };
                let srcs = self.vec_srcs(a, elem_ty)?;
                Ok(OpKind::Pack {
                    d: dd,
                    srcs,
                    bits: bits as u8,
                })
            }
            (_, Operand::Special(s))
                if matches!(
                    s.reg,
                    SpecialReg::Clock
                        | SpecialReg::ClockHi
                        | SpecialReg::Clock64
                        | SpecialReg::GlobalTimer
                        | SpecialReg::GlobalTimerLo
                        | SpecialReg::GlobalTimerHi
                ) =>
            {
                Ok(OpKind::Clock {
                    d: self.dst(d)?,
                    wide: matches!(s.reg, SpecialReg::Clock64 | SpecialReg::GlobalTimer),
                })
            }
            (_, Operand::SymbolAddress { symbol, offset }) => {
                let dd = self.dst(d)?;
                match self.symbol_value(symbol, offset)? {
                    SymValue::Const(v) => {
                        let a = self.t.const_slot(v);
                        Ok(OpKind::Un {
                            f: UnOp::Mov,
                            d: dd,
                            a,
                        })
                    }
                    SymValue::Frame(off) => Ok(OpKind::FrameAddr { d: dd, offset: off }),
                }
            }
            _ => {
                let dd = self.dst(d)?;
                let a = self.src(a, ty)?;
                Ok(OpKind::Un {
                    f: UnOp::Mov,
                    d: dd,
                    a,
                })
            }
        }
    }

    fn call(&mut self, ops: &[Operand]) -> Result<OpKind, EmuError> {
        let o = |i: usize| ops.get(i).copied().unwrap_or(Operand::Absent);
        let list = |op: Operand| -> Vec<Operand> {
            match op {
                Operand::List(l) => self.body.list(l).to_vec(),
                _ => Vec::new(),
            }
        };
        let rets_ops = list(o(0));
        let args_ops = list(o(2));
        let (target, callee) = match o(1) {
            Operand::Func(f) => {
                let func = self.t.program.function(f);
                if func.body.is_some() {
                    let idx = self.t.func_index.get(&f).copied().ok_or_else(|| {
                        EmuError::Internal(format!("function `{}` was not collected", func.name))
                    })?;
                    (CallTarget::Body { func: idx }, Some(f))
                } else if matches!(func.name.as_str(), "malloc" | "free") {
                    return unsupported(format!(
                        "device-side `{}` (heap allocation in kernels)",
                        func.name
                    ));
                } else {
                    let native = Native::from_name(&func.name).ok_or_else(|| {
                        EmuError::unsupported(format!(
                            "call to the external function `{}`, which the emulator does not implement",
                            func.name
                        ))
                    })?;
                    (CallTarget::Native(native), Some(f))
                }
            }
            Operand::Reg(r) => (CallTarget::Indirect(self.reg(r)), None),
            other => return unsupported(format!("call target {other:?}")),
        };
        let mut args = Vec::new();
        for a in &args_ops {
            args.push(self.arg_src(a)?);
        }
        let mut rets = Vec::new();
        for r in &rets_ops {
            rets.push(self.arg_src(r)?);
        }
        let _ = callee;
        Ok(OpKind::Call(Box::new(CallOp { target, args, rets })))
    }

    fn arg_src(&mut self, op: &Operand) -> Result<ArgSrc, EmuError> {
        match *op {
            Operand::SymbolAddress {
                symbol: Symbol::Var(v),
                ..
            } => {
                let var = self.t.program.variable(v);
                let size = var.size.unwrap_or(0) as u32;
                match self.var_loc(v)? {
                    VarLoc::Frame(offset) => Ok(ArgSrc::Frame { offset, size }),
                    _ => unsupported("a call argument that is not a .param variable"),
                }
            }
            Operand::Reg(r) => {
                let size = self.reg_ty(r).size();
                Ok(ArgSrc::Reg {
                    slot: self.reg(r),
                    size,
                })
            }
            Operand::Imm(i) => Ok(ArgSrc::Reg {
                slot: self.t.const_slot(i.bits),
                size: 8,
            }),
            ref other => unsupported(format!("call argument {other:?}")),
        }
    }
}

enum SymValue {
    Const(u64),
    Frame(u64),
}

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

fn wide_type(ty: Type) -> Type {
    match ty {
        Type::U16 => Type::U32,
        Type::S16 => Type::S32,
        Type::U32 => Type::U64,
        Type::S32 => Type::S64,
        t => t,
    }
}

fn int_rounding(r: IntRounding) -> RoundingMode {
    match r {
        IntRounding::Rni => RoundingMode::Rn,
        IntRounding::Rzi => RoundingMode::Rz,
        IntRounding::Rmi => RoundingMode::Rm,
        IntRounding::Rpi => RoundingMode::Rp,
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

fn atom_type(ty: Type) -> Result<(AtomType, u8), EmuError> {
    Ok(match ty {
        Type::B16 | Type::U16 => (AtomType::U16, 2),
        Type::B32 | Type::U32 => (AtomType::U32, 4),
        Type::S32 => (AtomType::S32, 4),
        Type::B64 | Type::U64 => (AtomType::U64, 8),
        Type::S64 => (AtomType::S64, 8),
        Type::F16 => (AtomType::F16, 2),
        Type::F32 => (AtomType::F32, 4),
        Type::F64 => (AtomType::F64, 8),
        other => return unsupported(format!("atomic of type .{other}")),
    })
}
