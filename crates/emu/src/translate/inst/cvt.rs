//! Moves and conversions: `mov` (registers, predicates, vectors packed into or
//! unpacked from one register, symbol addresses, the clocks) and `cvt` (integer
//! widening and narrowing, float rounding, packing two floats into a half pair).

use warpcheck_ir::modifiers::{IntRounding, RoundingMode};
use warpcheck_ir::{Operand, Type};

use super::arith::int_w;
use super::operands::SymValue;
use super::{InstCx, unsupported};
use crate::exec::cvt::CvtSpec;
use crate::exec::fp8::Fp8;
use crate::fault::EmuError;
use crate::ops::*;
use crate::translate::PRED_FALSE;

fn int_rounding(r: IntRounding) -> RoundingMode {
    match r {
        IntRounding::Rni => RoundingMode::Rn,
        IntRounding::Rzi => RoundingMode::Rz,
        IntRounding::Rmi => RoundingMode::Rm,
        IntRounding::Rpi => RoundingMode::Rp,
    }
}

impl InstCx<'_, '_> {
    /// `mov[.v*].ty d, a`.
    pub(super) fn mov(
        &mut self,
        vec: bool,
        ty: Type,
        d: &Operand,
        a: &Operand,
    ) -> Result<OpKind, EmuError> {
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
            (_, Operand::Vector(l)) => self.pack(ty, d, a, self.body.list(l).len() as u32),
            (_, Operand::Special(s)) if Self::is_clock(s) => self.clock(s, d),
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

    /// `mov.bN d, {a, b, ...}`: `n` elements packed into one register.
    fn pack(&mut self, ty: Type, d: &Operand, a: &Operand, n: u32) -> Result<OpKind, EmuError> {
        let dd = self.dst(d)?;
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

    /// `cvt.frnd.irnd.sat.relu.dty.sty d, a[, b]`.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn cvt(
        &mut self,
        irnd: Option<IntRounding>,
        rounding: Option<RoundingMode>,
        ftz: bool,
        sat: bool,
        relu: bool,
        dty: Type,
        sty: Type,
        ops: &[Operand],
    ) -> Result<OpKind, EmuError> {
        if dty.is_fp8x2() || sty.is_fp8x2() {
            return self.cvt_fp8(relu, dty, sty, ops);
        }
        if dty.is_packed() && sty == Type::F32 {
            let f = BinOp::PackHalf2 {
                bf: dty == Type::Bf16x2,
                rnd: rounding.unwrap_or(RoundingMode::Rn),
                relu,
            };
            return self.bin(f, ops, sty, sty);
        }
        if dty.is_integer() && sty.is_integer() {
            let f = UnOp::IntCvt {
                from: int_w(sty),
                from_signed: sty.is_signed(),
                to: int_w(dty),
                to_signed: dty.is_signed(),
                sat,
            };
            return self.un(f, ops, sty);
        }
        let rnd = irnd.map(int_rounding).or(rounding);
        let spec = CvtSpec::new(dty, sty, rnd, ftz, sat, relu)
            .ok_or_else(|| EmuError::unsupported(format!("cvt.{dty}.{sty}")))?;
        self.un(UnOp::Cvt(spec), ops, sty)
    }

    /// The FP8 forms of `cvt` (the decoder has checked `.rn` and `.satfinite`).
    fn cvt_fp8(
        &mut self,
        relu: bool,
        dty: Type,
        sty: Type,
        ops: &[Operand],
    ) -> Result<OpKind, EmuError> {
        let fmt = |t: Type| {
            if t == Type::E4m3x2 {
                Fp8::E4m3
            } else {
                Fp8::E5m2
            }
        };
        match (dty, sty) {
            (d, Type::F32) if d.is_fp8x2() => {
                self.bin(BinOp::PackFp8 { fmt: fmt(d), relu }, ops, sty, sty)
            }
            (d, Type::F16x2) if d.is_fp8x2() => {
                let f = UnOp::Fp8 {
                    fmt: fmt(d),
                    to_fp8: true,
                    relu,
                };
                self.un(f, ops, sty)
            }
            (Type::F16x2, s) => {
                let f = UnOp::Fp8 {
                    fmt: fmt(s),
                    to_fp8: false,
                    relu,
                };
                self.un(f, ops, Type::B16)
            }
            _ => unsupported(format!("cvt.{dty}.{sty}")),
        }
    }
}
