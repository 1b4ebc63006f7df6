//! Integer and floating-point arithmetic: `add`, `sub`, `mul`, `mad`, `div`, `rem`,
//! `abs`, `neg`, `min`, `max`, the 24-bit forms (`mul24`, `mad24`), `sad`, and the
//! carry chains (`add.cc`, `addc`, `sub.cc`, `subc`, `mad.cc`, `madc`). A float
//! `add`/`sub` of a contractible `mul` becomes one fused multiply-add, as `ptxas`
//! does (see `translate::contract`).

use warpcheck_ir::modifiers::{Mul24Mode, MulMode, RoundingMode};
use warpcheck_ir::{Op, Operand, Type};

use super::float::{FMods, fspec};
use super::{InstCx, opnd, unsupported};
use crate::fault::EmuError;
use crate::ops::*;
use crate::translate::{CARRY, SINK};

/// A binary instruction's operands with its two sources exchanged.
fn swap(ops: &[Operand]) -> [Operand; 3] {
    [opnd(ops, 0), opnd(ops, 2), opnd(ops, 1)]
}

pub(super) fn int_w(ty: Type) -> W {
    W::from_bits(ty.bits())
}

/// The type of `mad.wide`'s addend: twice the width of the factors.
fn wide_type(ty: Type) -> Type {
    match ty {
        Type::U16 => Type::U32,
        Type::S16 => Type::S32,
        Type::U32 => Type::U64,
        Type::S32 => Type::S64,
        t => t,
    }
}

impl InstCx<'_, '_> {
    /// `add` (`sub` when `is_sub`): a carry-out form, a contracted `fma`, a float, a
    /// saturating or a wrapping integer operation.
    pub(super) fn add_sub(
        &mut self,
        is_sub: bool,
        cc: bool,
        m: FMods,
        ty: Type,
        ops: &[Operand],
    ) -> Result<OpKind, EmuError> {
        let carry = if is_sub { CarryOp::Sub } else { CarryOp::Add };
        if cc {
            return self.carry(carry, ty, ops, false, true);
        }
        if let Some(fused) = self.contract(is_sub, m, ty, ops)? {
            return Ok(fused);
        }
        let nan_a = super::super::fold::f64_nan_prefers_a(ty, &opnd(ops, 1), &opnd(ops, 2));
        let f = match (is_sub, ty.is_float(), m.sat) {
            // a + b as b + a: the same sum, with a's NaN first (`translate::fold`).
            (false, true, _) if nan_a => {
                return self.bin(BinOp::FAdd(m.spec(ty)?), &swap(ops), ty, ty);
            }
            (false, true, _) => BinOp::FAdd(m.spec(ty)?),
            (true, true, _) if nan_a => BinOp::FSubNanA(m.spec(ty)?),
            (true, true, _) => BinOp::FSub(m.spec(ty)?),
            (false, false, true) => BinOp::AddSatS32,
            (true, false, true) => BinOp::SubSatS32,
            (false, false, false) => BinOp::IAdd(int_w(ty)),
            (true, false, false) => BinOp::ISub(int_w(ty)),
        };
        self.bin(f, ops, ty, ty)
    }

    /// `madc.lo` / `madc.hi`.
    pub(super) fn madc(
        &mut self,
        hi: bool,
        cc: bool,
        ty: Type,
        ops: &[Operand],
    ) -> Result<OpKind, EmuError> {
        let f = if hi { CarryOp::MadHi } else { CarryOp::MadLo };
        self.carry(f, ty, ops, true, cc)
    }

    /// `mul`: float, or integer `.lo`, `.hi`, `.wide`.
    pub(super) fn mul(
        &mut self,
        mode: Option<MulMode>,
        m: FMods,
        ty: Type,
        ops: &[Operand],
    ) -> Result<OpKind, EmuError> {
        if ty.is_float() {
            let f = BinOp::FMul(m.spec(ty)?);
            if super::super::fold::f64_nan_prefers_a(ty, &opnd(ops, 1), &opnd(ops, 2)) {
                return self.bin(f, &swap(ops), ty, ty);
            }
            return self.bin(f, ops, ty, ty);
        }
        let w = int_w(ty);
        let signed = ty.is_signed();
        let f = match mode {
            Some(MulMode::Hi) => BinOp::IMulHi { w, signed },
            Some(MulMode::Wide) => BinOp::IMulWide { w, signed },
            _ => BinOp::IMulLo(w),
        };
        self.bin(f, ops, ty, ty)
    }

    /// `mad`: a carry-out form, a float `fma`, or integer `.lo`, `.hi`, `.wide`.
    pub(super) fn mad(
        &mut self,
        mode: Option<MulMode>,
        cc: bool,
        m: FMods,
        ty: Type,
        ops: &[Operand],
    ) -> Result<OpKind, EmuError> {
        if cc {
            let f = if mode == Some(MulMode::Hi) {
                CarryOp::MadHi
            } else {
                CarryOp::MadLo
            };
            return self.carry(f, ty, ops, false, true);
        }
        if ty.is_float() {
            return self.tern(TernOp::Fma(m.spec(ty)?), ops, [ty; 3]);
        }
        let w = int_w(ty);
        let signed = ty.is_signed();
        match mode {
            Some(MulMode::Hi) => {
                let sat = m.sat;
                self.tern(TernOp::IMadHi { w, signed, sat }, ops, [ty; 3])
            }
            Some(MulMode::Wide) => {
                let wide = wide_type(ty);
                self.tern(TernOp::IMadWide { w, signed }, ops, [ty, ty, wide])
            }
            _ => self.tern(TernOp::IMadLo(w), ops, [ty; 3]),
        }
    }

    pub(super) fn mul24(
        &mut self,
        mode: Mul24Mode,
        ty: Type,
        ops: &[Operand],
    ) -> Result<OpKind, EmuError> {
        let f = BinOp::Mul24 {
            hi: mode == Mul24Mode::Hi,
            signed: ty.is_signed(),
        };
        self.bin(f, ops, ty, ty)
    }

    pub(super) fn mad24(
        &mut self,
        mode: Mul24Mode,
        sat: bool,
        ty: Type,
        ops: &[Operand],
    ) -> Result<OpKind, EmuError> {
        if sat {
            return unsupported("mad24.hi.sat");
        }
        let f = TernOp::Mad24 {
            hi: mode == Mul24Mode::Hi,
            signed: ty.is_signed(),
        };
        self.tern(f, ops, [ty; 3])
    }

    pub(super) fn sad(&mut self, ty: Type, ops: &[Operand]) -> Result<OpKind, EmuError> {
        let f = TernOp::Sad {
            w: int_w(ty),
            signed: ty.is_signed(),
        };
        self.tern(f, ops, [ty; 3])
    }

    /// `div`: float (rounded or approximate) or integer.
    pub(super) fn div(
        &mut self,
        approx: bool,
        m: FMods,
        ty: Type,
        ops: &[Operand],
    ) -> Result<OpKind, EmuError> {
        let f = if ty.is_float() {
            BinOp::FDiv {
                spec: m.spec(ty)?,
                approx,
            }
        } else {
            BinOp::IDiv {
                w: int_w(ty),
                signed: ty.is_signed(),
            }
        };
        self.bin(f, ops, ty, ty)
    }

    pub(super) fn rem(&mut self, ty: Type, ops: &[Operand]) -> Result<OpKind, EmuError> {
        let f = BinOp::IRem {
            w: int_w(ty),
            signed: ty.is_signed(),
        };
        self.bin(f, ops, ty, ty)
    }

    /// `abs` (`neg` when `is_neg`), float or integer.
    pub(super) fn abs_neg(
        &mut self,
        is_neg: bool,
        ftz: bool,
        ty: Type,
        ops: &[Operand],
    ) -> Result<OpKind, EmuError> {
        if let Some(fold) = self.folds.at(self.id) {
            let keep_nan = fold == super::super::fold::SignFold::Widen;
            return self.un(
                UnOp::FSignFolded {
                    neg: is_neg,
                    keep_nan,
                },
                ops,
                ty,
            );
        }
        let f = match (is_neg, ty.is_float()) {
            (false, true) => UnOp::FAbs(fspec(ty, None, ftz, false)?),
            (true, true) => UnOp::FNeg(fspec(ty, None, ftz, false)?),
            (false, false) => UnOp::IAbs(int_w(ty)),
            (true, false) => UnOp::INeg(int_w(ty)),
        };
        self.un(f, ops, ty)
    }

    /// `min` (`max` when not `is_min`); `.relu` and `.xorsign` are not supported.
    pub(super) fn min_max(
        &mut self,
        is_min: bool,
        relu_or_xorsign: bool,
        ftz: bool,
        nan: bool,
        ty: Type,
        ops: &[Operand],
    ) -> Result<OpKind, EmuError> {
        if relu_or_xorsign {
            return unsupported("min/max with .relu or .xorsign");
        }
        let f = if ty.is_float() {
            let spec = fspec(ty, None, ftz, false)?;
            if is_min {
                BinOp::FMin { spec, nan }
            } else {
                BinOp::FMax { spec, nan }
            }
        } else {
            let (w, signed) = (int_w(ty), ty.is_signed());
            if is_min {
                BinOp::IMin { w, signed }
            } else {
                BinOp::IMax { w, signed }
            }
        };
        self.bin(f, ops, ty, ty)
    }

    /// `add`/`sub` of a contractible product becomes `fma` (see `contract`).
    fn contract(
        &mut self,
        is_sub: bool,
        m: FMods,
        ty: Type,
        ops: &[Operand],
    ) -> Result<Option<OpKind>, EmuError> {
        if m.rnd.is_some() || m.sat || !matches!(ty, Type::F32 | Type::F64) {
            return Ok(None);
        }
        let (Some(&d), Some(&a), Some(&b)) = (ops.first(), ops.get(1), ops.get(2)) else {
            return Ok(None);
        };
        let ftz = m.ftz;
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

    /// A carry-chain operation: `cin` reads the carry flag, `cout` writes it.
    pub(super) fn carry(
        &mut self,
        f: CarryOp,
        ty: Type,
        ops: &[Operand],
        cin: bool,
        cout: bool,
    ) -> Result<OpKind, EmuError> {
        let d = self.dst(&opnd(ops, 0))?;
        let a = self.src(&opnd(ops, 1), ty)?;
        let b = self.src(&opnd(ops, 2), ty)?;
        let c = if matches!(f, CarryOp::MadLo | CarryOp::MadHi) {
            self.src(&opnd(ops, 3), ty)?
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
}
