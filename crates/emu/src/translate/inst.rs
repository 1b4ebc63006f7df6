//! Translation of one instruction into a flat op: operands to slots (immediates
//! converted to the instruction's type, PTX ISA §4.5.1), addresses to addressing modes,
//! modifiers to the executor's operation enums, and calls to their targets.
//!
//! [`InstCx::translate`] is one exhaustive `match` over the IR's [`Op`]: every opcode
//! of the ISA table has an arm, so a new opcode fails to compile here until it is
//! translated or rejected. Each arm hands the decoded modifiers to the translator of
//! its family:
//!
//! * [`operands`]: operands to slots, predicate sources and destinations, vectors,
//!   symbol addresses and variable locations (shared by every family);
//! * [`arith`]: integer and floating-point arithmetic (`add` … `max`), carry chains
//!   and the contraction of `mul`+`add` into `fma`;
//! * [`float`]: floating-point only instructions (`fma`, `rcp`, `sqrt`, the
//!   approximate transcendentals, `testp`, `copysign`);
//! * [`bits`]: bitwise logic, shifts and bit-field instructions (`and` … `prmt`,
//!   `popc`, `bfe`, `dp4a`, ...), on predicates as well as integers;
//! * [`compare`]: comparison and selection (`setp`, `set`, `selp`, `slct`);
//! * [`cvt`]: moves, packing and unpacking (`mov`) and conversions (`cvt`);
//! * [`mem`]: loads, stores, address conversions (`cvta`, `isspacep`) and
//!   addressing modes; kernel parameters are loaded at translation time;
//! * [`atomic`]: `atom` and `red`;
//! * [`control`]: branches, calls, returns, exits and traps;
//! * [`sync`]: barriers, `bar.warp.sync` and the memory fences (no-ops here);
//! * [`warp`]: warp collectives (`shfl`, `vote`, `match`, `activemask`, `redux`);
//! * [`special`]: special registers (`%tid`, ...) and the clocks;
//! * [`texture`]: `tex` (executed by `crate::texture`).

mod arith;
mod atomic;
mod bits;
mod compare;
mod control;
mod cvt;
mod float;
mod matrix;
mod mem;
mod operands;
mod special;
mod sync;
mod texture;
mod warp;

use warpcheck_ir::modifiers::{BmskMode, FragmentKind, MemScope, MembarLevel, Mul24Mode};
use warpcheck_ir::{InstId, Op, Operand, Type};

use crate::fault::EmuError;
use crate::ops::*;

use super::Translator;
use arith::int_w;
use float::FMods;

/// Translating one instruction.
pub(super) struct InstCx<'a, 'p> {
    pub(super) t: &'a mut Translator<'p>,
    pub(super) fi: u32,
    pub(super) body: &'p warpcheck_ir::Body,
    pub(super) id: InstId,
    pub(super) is_kernel: bool,
    pub(super) contractions: &'a super::contract::Contractions,
    pub(super) folds: &'a super::fold::SignFolds,
}

pub(super) fn unsupported<T>(what: impl Into<String>) -> Result<T, EmuError> {
    Err(EmuError::unsupported(what))
}

/// Operand `i` of an instruction, or [`Operand::Absent`] past the end.
fn opnd(ops: &[Operand], i: usize) -> Operand {
    ops.get(i).copied().unwrap_or(Operand::Absent)
}

/// How `Op::translate`'s callers map a block to its first pc.
type BlockPc<'f> = &'f dyn Fn(warpcheck_ir::BlockId) -> u32;

impl InstCx<'_, '_> {
    /// `d = f(a)`, with `a` of type `ty`.
    fn un(&mut self, f: UnOp, ops: &[Operand], ty: Type) -> Result<OpKind, EmuError> {
        let d = self.dst(&opnd(ops, 0))?;
        let a = self.src(&opnd(ops, 1), ty)?;
        Ok(OpKind::Un { f, d, a })
    }

    /// `d = f(a, b)`, with `a` of type `ta` and `b` of type `tb`.
    fn bin(&mut self, f: BinOp, ops: &[Operand], ta: Type, tb: Type) -> Result<OpKind, EmuError> {
        let d = self.dst(&opnd(ops, 0))?;
        let a = self.src(&opnd(ops, 1), ta)?;
        let b = self.src(&opnd(ops, 2), tb)?;
        Ok(OpKind::Bin { f, d, a, b })
    }

    /// `d = f(a, b, c)`, with the sources of types `tys`.
    fn tern(&mut self, f: TernOp, ops: &[Operand], tys: [Type; 3]) -> Result<OpKind, EmuError> {
        let d = self.dst(&opnd(ops, 0))?;
        let a = self.src(&opnd(ops, 1), tys[0])?;
        let b = self.src(&opnd(ops, 2), tys[1])?;
        let c = self.src(&opnd(ops, 3), tys[2])?;
        Ok(OpKind::Tern { f, d, a, b, c })
    }

    /// Translates one instruction: the dispatch over every opcode, one arm each, laid
    /// out as a table (hence unformatted).
    #[rustfmt::skip]
    pub(super) fn translate(
        &mut self,
        op: Op,
        ops: &[Operand],
        block_pc: BlockPc<'_>,
    ) -> Result<OpKind, EmuError> {
        let b32 = [Type::B32; 3];
        match op {
            Op::Add { cc, rounding, ftz, sat, ty } => self.add_sub(false, cc, FMods::new(rounding, ftz, sat), ty, ops),
            Op::Sub { cc, rounding, ftz, sat, ty } => self.add_sub(true, cc, FMods::new(rounding, ftz, sat), ty, ops),
            Op::AddC { cc, ty } => self.carry(CarryOp::Add, ty, ops, true, cc),
            Op::SubC { cc, ty } => self.carry(CarryOp::Sub, ty, ops, true, cc),
            Op::MadC { mode, cc, ty } => self.madc(mode == Mul24Mode::Hi, cc, ty, ops),
            Op::Mul { mode, rounding, ftz, sat, ty } => self.mul(mode, FMods::new(rounding, ftz, sat), ty, ops),
            Op::Mad { mode, cc, rounding, ftz, sat, ty } => self.mad(mode, cc, FMods::new(rounding, ftz, sat), ty, ops),
            Op::Mul24 { mode, ty } => self.mul24(mode, ty, ops),
            Op::Mad24 { mode, sat, ty } => self.mad24(mode, sat, ty, ops),
            Op::Sad { ty } => self.sad(ty, ops),
            Op::Div { approx, full, rounding, ftz, ty } => self.div(approx || full, FMods::new(rounding, ftz, false), ty, ops),
            Op::Rem { ty } => self.rem(ty, ops),
            Op::Abs { ftz, ty } => self.abs_neg(false, ftz, ty, ops),
            Op::Neg { ftz, ty } => self.abs_neg(true, ftz, ty, ops),
            Op::Min { relu, ftz, nan, xorsign, ty, .. } => self.min_max(true, relu || xorsign, ftz, nan, ty, ops),
            Op::Max { relu, ftz, nan, xorsign, ty, .. } => self.min_max(false, relu || xorsign, ftz, nan, ty, ops),
            Op::Popc { ty } => self.un(UnOp::Popc(int_w(ty)), ops, ty),
            Op::Clz { ty } => self.un(UnOp::Clz(int_w(ty)), ops, ty),
            Op::Brev { ty } => self.un(UnOp::Brev(int_w(ty)), ops, ty),
            Op::Bfind { shiftamt, ty } => self.bfind(shiftamt, ty, ops),
            Op::Fns { .. } => self.tern(TernOp::Fns, ops, [Type::B32, Type::U32, Type::S32]),
            Op::Bfe { ty } => self.bfe(ty, ops),
            Op::Bmsk { mode, ty } => {
                let f = BinOp::Bmsk {
                    clamp: mode == BmskMode::Clamp,
                };
                self.bin(f, ops, ty, ty)
            }
            Op::Bfi { ty } => self.bfi(ty, ops),
            Op::Dp4a { atype, btype } => self.dp4a(atype, btype, ops),
            Op::Dp2a { mode, atype, btype } => self.dp2a(mode, atype, btype, ops),
            Op::Testp { op: t, ty } => self.testp(t, ty, ops),
            Op::Copysign { ty } => self.copysign(ty, ops),
            Op::Fma { rounding, ftz, sat, relu, ty } => self.fma(relu, FMods::new(rounding, ftz, sat), ty, ops),
            Op::Rcp { approx, rounding, ftz, ty } => self.rcp_sqrt(false, approx, FMods::new(rounding, ftz, false), ty, ops),
            Op::Sqrt { approx, rounding, ftz, ty } => self.rcp_sqrt(true, approx, FMods::new(rounding, ftz, false), ty, ops),
            Op::Rsqrt { ftz, ty, .. } => self.approx(UnOp::FRsqrt, ftz, ty, ops),
            Op::Sin { ftz, ty, .. } => self.approx(UnOp::FSin, ftz, ty, ops),
            Op::Cos { ftz, ty, .. } => self.approx(UnOp::FCos, ftz, ty, ops),
            Op::Lg2 { ftz, ty, .. } => self.approx(UnOp::FLg2, ftz, ty, ops),
            Op::Ex2 { ftz, ty, .. } => self.approx(UnOp::FEx2, ftz, ty, ops),
            Op::Tanh { ty, .. } => self.approx(UnOp::FTanh, false, ty, ops),
            Op::Setp { cmp, bool_op, ftz, ty } => self.setp(cmp, bool_op, ftz, ty, ops),
            Op::Set { cmp, bool_op, ftz, dty, sty } => self.set(cmp, bool_op, ftz, dty, sty, ops),
            Op::Selp { ty } => self.selp(ty, ops),
            Op::Slct { ftz, dty, cty } => self.slct(ftz, dty, cty, ops),
            Op::And { ty } => self.logic(PredOp::And, BinOp::And, ty, ops),
            Op::Or { ty } => self.logic(PredOp::Or, BinOp::Or, ty, ops),
            Op::Xor { ty } => self.logic(PredOp::Xor, BinOp::Xor, ty, ops),
            Op::Not { ty } => self.not(ty, ops),
            Op::Cnot { ty } => self.un(UnOp::Cnot(int_w(ty)), ops, ty),
            Op::Lop3 { .. } => self.lop3(ops),
            Op::Shf { dir, mode, .. } => self.tern(TernOp::Shf { dir, mode }, ops, [Type::B32, Type::B32, Type::U32]),
            Op::Shl { ty } => self.bin(BinOp::Shl(int_w(ty)), ops, ty, Type::U32),
            Op::Shr { ty } => self.shr(ty, ops),
            Op::Prmt { mode, .. } => self.tern(TernOp::Prmt(mode), ops, b32),
            Op::Mov { vec, ty } => self.mov(vec.is_some(), ty, &opnd(ops, 0), &opnd(ops, 1)),
            Op::Cvt { irnd, rounding, ftz, sat, relu, dty, sty, .. } => self.cvt(irnd, rounding, ftz, sat, relu, dty, sty, ops),
            Op::Ld { space, ty, order, .. } => self.ld(space, ty, order, ops),
            Op::Ldu { space, ty, .. } => self.ld(space, ty, None, ops),
            Op::St { space, ty, order, .. } => self.st(space, ty, order, ops),
            Op::Prefetch { .. } | Op::Prefetchu { .. } => Ok(OpKind::Nop),
            Op::Isspacep { space } => self.isspacep(space, ops),
            Op::Cvta { to, space, ty } => self.cvta(to, space, ty, ops),
            Op::CpAsync { hint, .. } => self.cp_async(hint, ops),
            Op::CpAsyncCommitGroup {} => Ok(OpKind::CpAsyncCommit),
            Op::CpAsyncWaitGroup {} => self.cp_async_wait(ops),
            Op::CpAsyncWaitAll {} => Ok(OpKind::CpAsyncWait { keep_newest: None }),
            Op::Tex { mode, geom, cty, .. } => self.tex(mode, geom, cty, ops),
            Op::Suld { .. } | Op::Sust { .. } => unsupported(format!("`{}` (surfaces)", op.name())),
            Op::Atom { space, op: aop, ty, .. } => self.atom(space, aop, ty, ops),
            Op::Red { space, op: aop, ty, .. } => self.red(space, aop, ty, ops),
            Op::Bra { .. } => self.bra(ops, block_pc),
            Op::BrxIdx { .. } => self.brx_idx(ops, block_pc),
            Op::Call { .. } => self.call(ops),
            Op::Ret { .. } => Ok(OpKind::Ret),
            Op::Exit {} => Ok(OpKind::Exit),
            Op::Trap {} | Op::Brkpt {} => Ok(OpKind::Trap),
            Op::Barrier { mode, red_op, .. } => self.barrier(mode, red_op, ops),
            Op::BarWarpSync {} => self.warp_sync(ops),
            Op::Membar { level } => Ok(OpKind::Fence {
                device: !matches!(level, MembarLevel::Cta),
            }),
            Op::Fence { scope, .. } => Ok(OpKind::Fence {
                device: matches!(scope, MemScope::Gpu | MemScope::Sys),
            }),
            Op::FenceProxy { .. } | Op::Nanosleep { .. } => Ok(OpKind::Nop),
            // Launches run one after the other to completion: a grid's prerequisites
            // have completed before it starts, and its dependents start after it ends.
            Op::Griddepcontrol { .. } => Ok(OpKind::Nop),
            Op::ShflSync { mode, .. } => self.shfl(mode, ops),
            Op::VoteSync { mode, .. } => self.vote(mode, ops),
            Op::MatchSync { mode, ty, .. } => self.match_sync(mode, ty, ops),
            Op::Activemask { .. } => self.activemask(ops),
            Op::ReduxSync { op: rop, ty } => self.redux(rop, ty, ops),
            Op::Mma { shape, alayout, blayout, satfinite, dty, aty, bty, cty, .. } => {
                self.mma(shape, (alayout, blayout), satfinite, [dty, aty, bty, cty], ops)
            }
            Op::Ldmatrix { num, trans, space, .. } => self.ldst_matrix(true, num, trans, space, ops),
            Op::Stmatrix { num, trans, space, .. } => self.ldst_matrix(false, num, trans, space, ops),
            Op::WmmaLoad { frag, layout, shape, space, ty, .. } => {
                let which = match frag {
                    FragmentKind::A => 0,
                    FragmentKind::B => 1,
                    FragmentKind::C => 2,
                };
                self.wmma_access(Some(which), layout, shape, space, ty, ops)
            }
            Op::WmmaStore { layout, shape, space, ty, .. } => {
                self.wmma_access(None, layout, shape, space, ty, ops)
            }
            Op::WmmaMma { shape, dty, t2, t3, t4, rounding, satfinite, .. } => {
                self.wmma_mma(shape, [dty, t2], t3.zip(t4), rounding, satfinite, ops)
            }
            Op::MbarrierInit { space, .. } => self.mbarrier(MbarrierKind::Init, space, false, ops),
            Op::MbarrierInval { space, .. } => self.mbarrier(MbarrierKind::Inval, space, false, ops),
            Op::MbarrierArrive { expect_tx, no_complete, space, .. } => {
                let kind = MbarrierKind::Arrive { drop: false, expect_tx, no_complete };
                self.mbarrier(kind, space, true, ops)
            }
            Op::MbarrierArriveDrop { expect_tx, no_complete, space, .. } => {
                let kind = MbarrierKind::Arrive { drop: true, expect_tx, no_complete };
                self.mbarrier(kind, space, true, ops)
            }
            Op::MbarrierExpectTx { space, .. } => self.mbarrier(MbarrierKind::ExpectTx, space, false, ops),
            Op::MbarrierCompleteTx { space, .. } => self.mbarrier(MbarrierKind::CompleteTx, space, false, ops),
            Op::MbarrierTestWait { parity, space, .. } => {
                self.mbarrier(MbarrierKind::Wait { parity, blocking: false }, space, true, ops)
            }
            Op::MbarrierTryWait { parity, space, .. } => {
                self.mbarrier(MbarrierKind::Wait { parity, blocking: true }, space, true, ops)
            }
            Op::MbarrierPendingCount { .. } => self.mbarrier_pending_count(ops),
            Op::CpAsyncMbarrierArrive { noinc, space, .. } => {
                self.mbarrier(MbarrierKind::CpAsyncArrive { noinc }, space, false, ops)
            }
        }
    }
}
