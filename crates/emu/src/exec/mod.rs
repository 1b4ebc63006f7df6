//! Executing ops over a warp's lane arrays.
//!
//! Every arithmetic op computes all 32 lanes and blends the results into the destination
//! under the active mask (`d[l] = mask[l] ? f(a[l], b[l]) : d[l]`). Computing inactive
//! lanes is harmless (every lane function is total: division by zero, oversized shifts
//! and float-to-integer overflow have defined results and never panic) and lets the
//! compiler vectorise the loops; with a full mask the blend disappears.

pub(crate) mod control;
pub(crate) mod cvt;
pub(crate) mod float;
pub(crate) mod fp8;
pub(crate) mod matrix;
pub(crate) mod mbarrier;
pub(crate) mod mem;
pub(crate) mod warp_matrix;
pub(crate) mod warp_ops;
pub(crate) mod wmma;

use warpcheck_ir::modifiers::{
    BoolOp, CmpOp, PrmtMode, RoundingMode, ShfDirection, ShfMode, TestpOp,
};

use crate::ops::*;
use float::*;

/// One register: a value per lane.
pub(crate) type Lanes = [u64; 32];

pub(crate) const FULL: u32 = u32::MAX;

#[inline(always)]
fn un_lanes(regs: &mut [Lanes], d: Slot, a: Slot, mask: u32, f: impl Fn(u64) -> u64) {
    let av = &regs[a as usize];
    let mut out = [0u64; 32];
    for l in 0..32 {
        out[l] = f(av[l]);
    }
    blend(&mut regs[d as usize], &out, mask);
}

#[inline(always)]
fn bin_lanes(
    regs: &mut [Lanes],
    d: Slot,
    a: Slot,
    b: Slot,
    mask: u32,
    f: impl Fn(u64, u64) -> u64,
) {
    let av = &regs[a as usize];
    let bv = &regs[b as usize];
    let mut out = [0u64; 32];
    for l in 0..32 {
        out[l] = f(av[l], bv[l]);
    }
    blend(&mut regs[d as usize], &out, mask);
}

#[inline(always)]
fn tern_lanes(
    regs: &mut [Lanes],
    d: Slot,
    a: Slot,
    b: Slot,
    c: Slot,
    mask: u32,
    f: impl Fn(u64, u64, u64) -> u64,
) {
    let av = &regs[a as usize];
    let bv = &regs[b as usize];
    let cv = &regs[c as usize];
    let mut out = [0u64; 32];
    for l in 0..32 {
        out[l] = f(av[l], bv[l], cv[l]);
    }
    blend(&mut regs[d as usize], &out, mask);
}

#[inline(always)]
fn blend(dst: &mut Lanes, src: &Lanes, mask: u32) {
    if mask == FULL {
        *dst = *src;
    } else {
        for l in 0..32 {
            if (mask >> l) & 1 != 0 {
                dst[l] = src[l];
            }
        }
    }
}

#[inline(always)]
fn f32_of(x: u64) -> f32 {
    f32::from_bits(x as u32)
}
#[inline(always)]
fn f64_of(x: u64) -> f64 {
    f64::from_bits(x)
}
/// The bits of an f32 arithmetic result. A NaN result is the canonical NaN `0x7fffffff`
/// whatever the operands' NaNs were, as on NVIDIA GPUs (the host's default NaN differs:
/// `0xffc00000` on x86-64); conversions and moves keep payloads and do not come here.
#[inline(always)]
fn bits32(x: f32) -> u64 {
    if x.is_nan() {
        0x7fff_ffff
    } else {
        x.to_bits() as u64
    }
}

#[inline(always)]
fn sext(x: u64, w: W) -> i64 {
    match w {
        W::W8 => x as u8 as i8 as i64,
        W::W16 => x as u16 as i16 as i64,
        W::W32 => x as u32 as i32 as i64,
        W::W64 => x as i64,
    }
}

#[inline(always)]
fn zext(x: u64, w: W) -> u64 {
    x & w.mask()
}

/// Applies a float spec's input handling and the operation to f32 or f64 (and the half
/// types via f64), then the output handling.
#[inline(always)]
fn float_bin(
    spec: FSpec,
    a: u64,
    b: u64,
    f32op: impl Fn(f32, f32, RoundingMode) -> f32,
    f64op: impl Fn(f64, f64, RoundingMode) -> f64,
) -> u64 {
    match spec.ty {
        FTy::F32 => {
            let (mut x, mut y) = (f32_of(a), f32_of(b));
            if spec.ftz {
                x = ftz32(x);
                y = ftz32(y);
            }
            let mut r = f32op(x, y, spec.rnd);
            if spec.ftz {
                r = ftz32(r);
            }
            if spec.sat {
                r = sat32(r);
            }
            bits32(r)
        }
        FTy::F64 => {
            let r = f64op(f64_of(a), f64_of(b), spec.rnd);
            if spec.sat {
                sat64(r).to_bits()
            } else {
                r.to_bits()
            }
        }
        FTy::F16 | FTy::Bf16 => half_bin(spec, a as u16, b as u16, &f64op) as u64,
        FTy::F16x2 | FTy::Bf16x2 => {
            let lo = half_bin(spec, a as u16, b as u16, &f64op) as u64;
            let hi = half_bin(spec, (a >> 16) as u16, (b >> 16) as u16, &f64op) as u64;
            lo | (hi << 16)
        }
    }
}

fn half_bin(spec: FSpec, a: u16, b: u16, f64op: &impl Fn(f64, f64, RoundingMode) -> f64) -> u16 {
    let bf = matches!(spec.ty, FTy::Bf16 | FTy::Bf16x2);
    let (a, b) = if spec.ftz {
        (ftz_half(a, bf), ftz_half(b, bf))
    } else {
        (a, b)
    };
    // Sums and products of halves are exact in f64; round once.
    let mut r = f64op(half_to_f64(a, bf), half_to_f64(b, bf), RoundingMode::Rn);
    if spec.sat {
        r = sat64(r);
    }
    let h = f64_to_half(r, spec.rnd, bf);
    if spec.ftz { ftz_half(h, bf) } else { h }
}

fn float_un(spec: FSpec, a: u64, f32op: impl Fn(f32) -> f32, f64op: impl Fn(f64) -> f64) -> u64 {
    match spec.ty {
        FTy::F32 => {
            let mut x = f32_of(a);
            if spec.ftz {
                x = ftz32(x);
            }
            let mut r = f32op(x);
            if spec.ftz {
                r = ftz32(r);
            }
            if spec.sat {
                r = sat32(r);
            }
            bits32(r)
        }
        FTy::F64 => f64op(f64_of(a)).to_bits(),
        FTy::F16 | FTy::Bf16 => {
            let bf = spec.ty == FTy::Bf16;
            f64_to_half(f64op(half_to_f64(a as u16, bf)), RoundingMode::Rn, bf) as u64
        }
        FTy::F16x2 | FTy::Bf16x2 => {
            let bf = spec.ty == FTy::Bf16x2;
            let lo = f64_to_half(f64op(half_to_f64(a as u16, bf)), RoundingMode::Rn, bf) as u64;
            let hi = f64_to_half(
                f64op(half_to_f64((a >> 16) as u16, bf)),
                RoundingMode::Rn,
                bf,
            ) as u64;
            lo | (hi << 16)
        }
    }
}

/// Negation and absolute value are bit operations on the sign, except that `.ftz` flushes
/// and a NaN operand is not negated (H100, int_ops `fneg`, `fabsf`, `dneg`, `dabs`): f32
/// gives the canonical NaN `0x7fffffff`, f64 gives the operand's NaN, quietened, with its
/// own sign. Half types flip the sign of a NaN too (not recorded on the GPU).
fn sign_op(spec: FSpec, a: u64, neg: bool) -> u64 {
    let apply16 = |h: u64| if neg { h ^ 0x8000 } else { h & 0x7fff };
    match spec.ty {
        FTy::F32 => {
            let x = if spec.ftz {
                ftz32(f32_of(a)).to_bits() as u64
            } else {
                a & 0xffff_ffff
            };
            if x & 0x7fff_ffff > 0x7f80_0000 {
                0x7fff_ffff
            } else if neg {
                x ^ 0x8000_0000
            } else {
                x & 0x7fff_ffff
            }
        }
        FTy::F64 => {
            if f64_of(a).is_nan() {
                a | QUIET_BIT64
            } else if neg {
                a ^ (1 << 63)
            } else {
                a & !(1 << 63)
            }
        }
        FTy::F16 | FTy::Bf16 => apply16(a & 0xffff),
        FTy::F16x2 | FTy::Bf16x2 => apply16(a & 0xffff) | (apply16((a >> 16) & 0xffff) << 16),
    }
}

fn fmin_max(spec: FSpec, a: u64, b: u64, nan: bool, is_min: bool) -> u64 {
    // PTX min/max: if one input is NaN the other is returned (unless `.NaN`);
    // -0 < +0 is honoured.
    let pick64 = |x: f64, y: f64| -> f64 {
        if x.is_nan() || y.is_nan() {
            if nan {
                return f64::NAN;
            }
            return if x.is_nan() { y } else { x };
        }
        if x == y {
            // -0 vs +0
            return if is_min == x.is_sign_negative() { x } else { y };
        }
        if (x < y) == is_min { x } else { y }
    };
    match spec.ty {
        FTy::F32 => {
            let (mut x, mut y) = (f32_of(a), f32_of(b));
            if spec.ftz {
                x = ftz32(x);
                y = ftz32(y);
            }
            let r = pick64(x as f64, y as f64);
            if r.is_nan() {
                0x7fff_ffff
            } else {
                bits32(r as f32)
            }
        }
        FTy::F64 => {
            let r = pick64(f64_of(a), f64_of(b));
            if r.is_nan() {
                0x7fff_ffff_ffff_ffff
            } else {
                r.to_bits()
            }
        }
        _ => float_bin(spec, a, b, |_, _, _| 0.0, |x, y, _| pick64(x, y)),
    }
}

/// Executes an arithmetic, logic, comparison or move op. Returns `false` for op kinds
/// that are not computations (memory, control, warp-level), which the caller handles.
/// Each arm's lane loop is its own function, inlined here so that the interpreter loop
/// dispatches once per op, as it did when the arms were written out in this match.
#[inline(always)]
pub(crate) fn compute(op: &OpKind, regs: &mut [Lanes], preds: &mut [u32], mask: u32) -> bool {
    match *op {
        OpKind::Un { f, d, a } => unary(f, regs, d, a, mask),
        OpKind::Bin { f, d, a, b } => binary(f, regs, d, a, b, mask),
        OpKind::Tern { f, d, a, b, c } => ternary(f, regs, d, a, b, c, mask),
        OpKind::Setp {
            cmp,
            p,
            q,
            a,
            b,
            combine,
        } => setp(cmp, [p, q], combine, regs, preds, [a, b], mask),
        OpKind::Set {
            cmp,
            float_dst,
            d,
            a,
            b,
            combine,
        } => set(cmp, float_dst, combine, regs, preds, [d, a, b], mask),
        OpKind::Selp { d, a, b, p } => selp(regs, preds, [d, a, b], p, mask),
        OpKind::PredLogic { op, d, a, b } => pred_logic(op, preds, d, a, b, mask),
        OpKind::Testp { op, fty, d, a } => testp(op, fty, regs, preds, d, a, mask),
        OpKind::Bfi {
            w,
            d,
            a,
            b,
            pos,
            len,
        } => bfi(w, regs, [d, a, b, pos, len], mask),
        OpKind::Carry {
            f,
            w,
            d,
            a,
            b,
            c,
            cc,
            cin,
            cout,
        } => carry(f, w, regs, [d, a, b, c, cc], (cin, cout), mask),
        OpKind::Pack { d, srcs, bits } => pack(regs, d, &srcs, bits, mask),
        OpKind::VecMov { dsts, srcs } => vec_mov(regs, &dsts, &srcs, mask),
        OpKind::Unpack { dsts, a, bits } => unpack(regs, &dsts, a, bits, mask),
        _ => return false,
    }
    true
}

/// Writes `v` to predicate `p` in the lanes of `mask`.
#[inline(always)]
fn write_pred(preds: &mut [u32], p: PSlot, v: u32, mask: u32) {
    preds[p as usize] = (preds[p as usize] & !mask) | (v & mask);
}

/// `setp`: a comparison into `p` and its negation into `q`, each optionally combined
/// with a predicate.
#[inline(always)]
fn setp(
    cmp: Cmp,
    [p, q]: [Option<PSlot>; 2],
    combine: Option<(BoolOp, PSrc)>,
    regs: &[Lanes],
    preds: &mut [u32],
    [a, b]: [Slot; 2],
    mask: u32,
) {
    let bits = compare(cmp, &regs[a as usize], &regs[b as usize]);
    let (pv, qv) = match combine {
        None => (bits, !bits),
        Some((op, c)) => {
            let cv = pred_value(preds, c);
            (bool_op(op, bits, cv), bool_op(op, !bits, cv))
        }
    };
    if let Some(p) = p {
        write_pred(preds, p, pv, mask);
    }
    if let Some(q) = q {
        write_pred(preds, q, qv, mask);
    }
}

/// `set`: a comparison into a register, as all-ones (or 1.0f for a float destination)
/// or zero.
#[inline(always)]
fn set(
    cmp: Cmp,
    float_dst: bool,
    combine: Option<(BoolOp, PSrc)>,
    regs: &mut [Lanes],
    preds: &[u32],
    [d, a, b]: [Slot; 3],
    mask: u32,
) {
    let bits = compare(cmp, &regs[a as usize], &regs[b as usize]);
    let v = match combine {
        None => bits,
        Some((op, c)) => bool_op(op, bits, pred_value(preds, c)),
    };
    let one = if float_dst {
        1.0f32.to_bits() as u64
    } else {
        0xffff_ffff
    };
    let mut out = [0u64; 32];
    for (l, o) in out.iter_mut().enumerate() {
        *o = if (v >> l) & 1 != 0 { one } else { 0 };
    }
    blend(&mut regs[d as usize], &out, mask);
}

/// `selp d, a, b, p`: `a` where `p` holds, else `b`.
#[inline(always)]
fn selp(regs: &mut [Lanes], preds: &[u32], [d, a, b]: [Slot; 3], p: PSrc, mask: u32) {
    let pv = pred_value(preds, p);
    let av = &regs[a as usize];
    let bv = &regs[b as usize];
    let mut out = [0u64; 32];
    for l in 0..32 {
        out[l] = if (pv >> l) & 1 != 0 { av[l] } else { bv[l] };
    }
    blend(&mut regs[d as usize], &out, mask);
}

/// `and/or/xor/not/mov.pred`. A write to the constant-true slot (or below) is dropped.
#[inline(always)]
fn pred_logic(op: PredOp, preds: &mut [u32], d: PSlot, a: PSrc, b: PSrc, mask: u32) {
    let (x, y) = (pred_value(preds, a), pred_value(preds, b));
    let v = match op {
        PredOp::And => x & y,
        PredOp::Or => x | y,
        PredOp::Xor => x ^ y,
        PredOp::Not => !x,
        PredOp::Mov => x,
    };
    if d > crate::translate::PRED_TRUE {
        write_pred(preds, d, v, mask);
    }
}

/// `testp.op.fty`: a float class test into a predicate.
#[inline(always)]
fn testp(op: TestpOp, fty: FTy, regs: &[Lanes], preds: &mut [u32], d: PSlot, a: Slot, mask: u32) {
    let av = &regs[a as usize];
    let mut bits = 0u32;
    for l in 0..32 {
        let x = if fty == FTy::F64 {
            f64_of(av[l])
        } else {
            f32_of(av[l]) as f64
        };
        let sub = if fty == FTy::F64 {
            x.is_subnormal()
        } else {
            (x as f32).is_subnormal()
        };
        let t = match op {
            TestpOp::Finite => x.is_finite(),
            TestpOp::Infinite => x.is_infinite(),
            TestpOp::Number => !x.is_nan(),
            TestpOp::NotANumber => x.is_nan(),
            TestpOp::Normal => x.is_finite() && x != 0.0 && !sub,
            TestpOp::Subnormal => sub,
        };
        bits |= (t as u32) << l;
    }
    if d > crate::translate::PRED_TRUE {
        write_pred(preds, d, bits, mask);
    }
}

/// `bfi d, a, b, pos, len`: `b` with `len` bits of `a` inserted at `pos`.
#[inline(always)]
fn bfi(w: W, regs: &mut [Lanes], [d, a, b, pos, len]: [Slot; 5], mask: u32) {
    let bits = w.bits() as u64;
    let (av, bv, pv, lv) = (
        regs[a as usize],
        regs[b as usize],
        regs[pos as usize],
        regs[len as usize],
    );
    let mut out = [0u64; 32];
    for l in 0..32 {
        let p = pv[l] & 0xff;
        let n = lv[l] & 0xff;
        out[l] = if n == 0 || p >= bits {
            bv[l]
        } else {
            let n = n.min(bits - p);
            let m = if n >= 64 {
                u64::MAX
            } else {
                ((1u64 << n) - 1) << p
            };
            ((bv[l] & !m) | ((av[l] << p) & m)) & w.mask()
        };
    }
    blend(&mut regs[d as usize], &out, mask);
}

/// Carry-chain arithmetic (`add.cc`, `addc`, `sub.cc`, `subc`, `mad.cc`, `madc`): reads
/// the carry flag in slot `cc` when `cin`, writes it when `cout`.
#[inline(always)]
fn carry(
    f: CarryOp,
    w: W,
    regs: &mut [Lanes],
    [d, a, b, c, cc]: [Slot; 5],
    (cin, cout): (bool, bool),
    mask: u32,
) {
    let (av, bv, cv, ccv) = (
        regs[a as usize],
        regs[b as usize],
        regs[c as usize],
        regs[cc as usize],
    );
    let mut out = [0u64; 32];
    let mut carry = [0u64; 32];
    let bits = w.bits();
    for l in 0..32 {
        let ci = if cin { ccv[l] & 1 } else { 0 } as u128;
        let m = w.mask() as u128;
        let (x, y) = (av[l] as u128 & m, bv[l] as u128 & m);
        let full: u128 = match f {
            CarryOp::Add => x + y + ci,
            // a - (b + cin) computed as a + ~b + 1 - cin: carry = no borrow.
            CarryOp::Sub => x + ((!y) & m) + 1 - ci,
            CarryOp::MadLo | CarryOp::MadHi => {
                let (sx, sy) = (x, y);
                let prod = sx * sy;
                let half = if f == CarryOp::MadHi {
                    prod >> bits
                } else {
                    prod & m
                };
                half + (cv[l] as u128 & m) + ci
            }
        };
        out[l] = (full & m) as u64;
        carry[l] = ((full >> bits) & 1) as u64;
    }
    if cout {
        blend(&mut regs[cc as usize], &carry, mask);
    }
    blend(&mut regs[d as usize], &out, mask);
}

/// The mask of an element of `bits` bits.
#[inline(always)]
fn element_mask(bits: u8) -> u64 {
    if bits >= 64 {
        u64::MAX
    } else {
        (1u64 << bits) - 1
    }
}

/// `mov.b64 d, {a, b}`: packs the sources, `bits` each, lowest first.
#[inline(always)]
fn pack(regs: &mut [Lanes], d: Slot, srcs: &VecSlots, bits: u8, mask: u32) {
    let mut out = [0u64; 32];
    let m = element_mask(bits);
    for i in 0..srcs.n as usize {
        let sv = &regs[srcs.slots[i] as usize];
        for l in 0..32 {
            out[l] |= (sv[l] & m) << (i as u32 * bits as u32);
        }
    }
    blend(&mut regs[d as usize], &out, mask);
}

/// `mov.v2.u32 {a, b}, {c, d}`: element-wise moves; every source is read before any
/// destination is written (the vectors may overlap).
#[inline(always)]
fn vec_mov(regs: &mut [Lanes], dsts: &VecSlots, srcs: &VecSlots, mask: u32) {
    let mut vals = [[0u64; 32]; 4];
    for i in 0..srcs.n as usize {
        vals[i] = regs[srcs.slots[i] as usize];
    }
    for i in 0..dsts.n as usize {
        if dsts.slots[i] != crate::translate::SINK {
            blend(&mut regs[dsts.slots[i] as usize], &vals[i], mask);
        }
    }
}

/// `mov.b64 {a, b}, d`: unpacks `d` into elements of `bits` each, lowest first.
#[inline(always)]
fn unpack(regs: &mut [Lanes], dsts: &VecSlots, a: Slot, bits: u8, mask: u32) {
    let av = regs[a as usize];
    let m = element_mask(bits);
    for i in 0..dsts.n as usize {
        let mut out = [0u64; 32];
        for l in 0..32 {
            out[l] = (av[l] >> (i as u32 * bits as u32)) & m;
        }
        let d = dsts.slots[i];
        if d != crate::translate::SINK {
            blend(&mut regs[d as usize], &out, mask);
        }
    }
}

#[inline(always)]
pub(crate) fn pred_value(preds: &[u32], p: PSrc) -> u32 {
    let v = preds[p.slot as usize];
    if p.neg { !v } else { v }
}

#[inline(always)]
fn bool_op(op: BoolOp, a: u32, b: u32) -> u32 {
    match op {
        BoolOp::And => a & b,
        BoolOp::Or => a | b,
        BoolOp::Xor => a ^ b,
    }
}

#[inline(always)]
fn cmp_bits(a: &Lanes, b: &Lanes, f: impl Fn(u64, u64) -> bool) -> u32 {
    let mut bits = 0u32;
    for l in 0..32 {
        bits |= (f(a[l], b[l]) as u32) << l;
    }
    bits
}

#[inline(always)]
fn ord<T: PartialOrd>(op: CmpOp, x: T, y: T) -> bool {
    match op {
        CmpOp::Eq => x == y,
        CmpOp::Ne => x != y,
        CmpOp::Lt | CmpOp::Lo => x < y,
        CmpOp::Le | CmpOp::Ls => x <= y,
        CmpOp::Gt | CmpOp::Hi => x > y,
        CmpOp::Ge | CmpOp::Hs => x >= y,
        _ => false,
    }
}

#[inline(always)]
fn fcmp(op: CmpOp, x: f64, y: f64) -> bool {
    let unordered = x.is_nan() || y.is_nan();
    match op {
        CmpOp::Eq => x == y,
        // `ne` is ordered in PTX: false if either is NaN.
        CmpOp::Ne => !unordered && x != y,
        CmpOp::Lt | CmpOp::Lo => x < y,
        CmpOp::Le | CmpOp::Ls => x <= y,
        CmpOp::Gt | CmpOp::Hi => x > y,
        CmpOp::Ge | CmpOp::Hs => x >= y,
        CmpOp::Equ => unordered || x == y,
        CmpOp::Neu => unordered || x != y,
        CmpOp::Ltu => unordered || x < y,
        CmpOp::Leu => unordered || x <= y,
        CmpOp::Gtu => unordered || x > y,
        CmpOp::Geu => unordered || x >= y,
        CmpOp::Num => !unordered,
        CmpOp::Nan => unordered,
    }
}

/// The lane mask of a comparison.
#[inline(always)]
fn compare(cmp: Cmp, a: &Lanes, b: &Lanes) -> u32 {
    let op = cmp.op;
    match cmp.kind {
        CmpKind::Signed(W::W32) => with_op(op, |k| {
            cmp_bits(a, b, |x, y| ord(k, x as u32 as i32, y as u32 as i32))
        }),
        CmpKind::Unsigned(W::W32) => {
            with_op(op, |k| cmp_bits(a, b, |x, y| ord(k, x as u32, y as u32)))
        }
        CmpKind::Signed(w) => with_op(op, |k| {
            cmp_bits(a, b, |x, y| ord(k, sext(x, w), sext(y, w)))
        }),
        CmpKind::Unsigned(w) => with_op(op, |k| {
            cmp_bits(a, b, |x, y| ord(k, zext(x, w), zext(y, w)))
        }),
        CmpKind::Float(FTy::F32) => {
            if cmp.ftz {
                with_op(op, |k| {
                    cmp_bits(a, b, |x, y| {
                        fcmp(k, ftz32(f32_of(x)) as f64, ftz32(f32_of(y)) as f64)
                    })
                })
            } else {
                with_op(op, |k| {
                    cmp_bits(a, b, |x, y| fcmp(k, f32_of(x) as f64, f32_of(y) as f64))
                })
            }
        }
        CmpKind::Float(FTy::F64) => {
            with_op(op, |k| cmp_bits(a, b, |x, y| fcmp(k, f64_of(x), f64_of(y))))
        }
        CmpKind::Float(t) => {
            let bf = matches!(t, FTy::Bf16 | FTy::Bf16x2);
            cmp_bits(a, b, |x, y| {
                fcmp(op, half_to_f64(x as u16, bf), half_to_f64(y as u16, bf))
            })
        }
    }
}

/// Calls `f` with the operator as a constant in each arm, so that a comparison decides its
/// operator once per instruction instead of once per lane (`ord` and `fcmp` fold).
#[inline(always)]
fn with_op(op: CmpOp, f: impl Fn(CmpOp) -> u32) -> u32 {
    use CmpOp::*;
    match op {
        Eq => f(Eq),
        Ne => f(Ne),
        Lt => f(Lt),
        Le => f(Le),
        Gt => f(Gt),
        Ge => f(Ge),
        Lo => f(Lo),
        Ls => f(Ls),
        Hi => f(Hi),
        Hs => f(Hs),
        Equ => f(Equ),
        Neu => f(Neu),
        Ltu => f(Ltu),
        Leu => f(Leu),
        Gtu => f(Gtu),
        Geu => f(Geu),
        Num => f(Num),
        Nan => f(Nan),
    }
}

fn unary(f: UnOp, regs: &mut [Lanes], d: Slot, a: Slot, mask: u32) {
    match f {
        UnOp::Mov => {
            if mask == FULL {
                regs[d as usize] = regs[a as usize];
            } else {
                let av = regs[a as usize];
                blend(&mut regs[d as usize], &av, mask)
            }
        }
        UnOp::INeg(w) => un_lanes(regs, d, a, mask, |x| x.wrapping_neg() & w.mask()),
        UnOp::IAbs(w) => un_lanes(regs, d, a, mask, |x| {
            (sext(x, w).wrapping_abs() as u64) & w.mask()
        }),
        UnOp::Not(w) => un_lanes(regs, d, a, mask, |x| !x & w.mask()),
        UnOp::Cnot(w) => un_lanes(regs, d, a, mask, |x| (zext(x, w) == 0) as u64),
        UnOp::Popc(w) => un_lanes(regs, d, a, mask, |x| zext(x, w).count_ones() as u64),
        UnOp::Clz(w) => un_lanes(regs, d, a, mask, |x| {
            (zext(x, w).leading_zeros() - (64 - w.bits())) as u64
        }),
        UnOp::Brev(w) => un_lanes(regs, d, a, mask, |x| x.reverse_bits() >> (64 - w.bits())),
        UnOp::Bfind {
            w,
            signed,
            shiftamt,
        } => un_lanes(regs, d, a, mask, |x| {
            let v = if signed && sext(x, w) < 0 {
                !x & w.mask()
            } else {
                zext(x, w)
            };
            if v == 0 {
                0xffff_ffff
            } else {
                let pos = 63 - v.leading_zeros();
                (if shiftamt { w.bits() - 1 - pos } else { pos }) as u64
            }
        }),
        UnOp::FNeg(spec) => un_lanes(regs, d, a, mask, |x| sign_op(spec, x, true)),
        UnOp::FAbs(spec) => un_lanes(regs, d, a, mask, |x| sign_op(spec, x, false)),
        UnOp::FSignFolded { neg, keep_nan } => un_lanes(regs, d, a, mask, |x| {
            let x = x & 0xffff_ffff;
            if keep_nan && x & 0x7fff_ffff > 0x7f80_0000 {
                x
            } else if neg {
                x ^ 0x8000_0000
            } else {
                x & 0x7fff_ffff
            }
        }),
        UnOp::FSqrt { spec, approx } => {
            if approx {
                un_lanes(regs, d, a, mask, |x| {
                    float_un(spec, x, |v| v.sqrt(), |v| v.sqrt())
                })
            } else {
                un_lanes(regs, d, a, mask, |x| {
                    float_un(spec, x, |v| sqrt32(v, spec.rnd), |v| sqrt64(v, spec.rnd))
                })
            }
        }
        UnOp::FRcp { spec, approx } => {
            if approx {
                un_lanes(regs, d, a, mask, |x| {
                    float_un(spec, x, |v| 1.0 / v, |v| 1.0 / v)
                })
            } else {
                un_lanes(regs, d, a, mask, |x| {
                    float_un(
                        spec,
                        x,
                        |v| div32(1.0, v, spec.rnd),
                        |v| div64(1.0, v, spec.rnd),
                    )
                })
            }
        }
        UnOp::FRsqrt(spec) => un_lanes(regs, d, a, mask, |x| {
            float_un(spec, x, |v| 1.0 / v.sqrt(), |v| 1.0 / v.sqrt())
        }),
        UnOp::FSin(spec) => un_lanes(regs, d, a, mask, |x| float_un(spec, x, f32::sin, f64::sin)),
        UnOp::FCos(spec) => un_lanes(regs, d, a, mask, |x| float_un(spec, x, f32::cos, f64::cos)),
        UnOp::FLg2(spec) => un_lanes(regs, d, a, mask, |x| {
            float_un(spec, x, f32::log2, f64::log2)
        }),
        UnOp::FEx2(spec) => un_lanes(regs, d, a, mask, |x| {
            float_un(spec, x, f32::exp2, f64::exp2)
        }),
        UnOp::FTanh(spec) => un_lanes(regs, d, a, mask, |x| {
            float_un(spec, x, f32::tanh, f64::tanh)
        }),
        UnOp::IntCvt {
            from,
            from_signed,
            to,
            to_signed,
            sat,
        } => {
            if !sat && from == W::W32 && to == W::W64 {
                if from_signed {
                    un_lanes(regs, d, a, mask, |x| x as u32 as i32 as i64 as u64)
                } else {
                    un_lanes(regs, d, a, mask, |x| x as u32 as u64)
                }
            } else if !sat && to.bits() <= from.bits() {
                un_lanes(regs, d, a, mask, |x| x & to.mask())
            } else {
                un_lanes(regs, d, a, mask, |x| {
                    cvt::int_cvt(x, from.bits(), from_signed, to.bits(), to_signed, sat)
                })
            }
        }
        UnOp::Cvt(spec) => un_lanes(regs, d, a, mask, |x| spec.apply(x)),
        UnOp::Fp8 { fmt, to_fp8, relu } => un_lanes(regs, d, a, mask, |x| {
            if to_fp8 {
                fp8::pack_f16x2(fmt, relu, x as u32) as u64
            } else {
                fp8::unpack_f16x2(fmt, relu, x as u16) as u64
            }
        }),
        UnOp::Cvta { space, to, w } => {
            // `cvta` to and from a window is an addition of the window's base.
            let base = mem::cvta(space, false, 0);
            let m = w.mask();
            if to {
                un_lanes(regs, d, a, mask, |x| x.wrapping_sub(base) & m)
            } else {
                un_lanes(regs, d, a, mask, |x| x.wrapping_add(base) & m)
            }
        }
    }
}

fn binary(f: BinOp, regs: &mut [Lanes], d: Slot, a: Slot, b: Slot, mask: u32) {
    match f {
        BinOp::IAdd(W::W32) => bin_lanes(regs, d, a, b, mask, |x, y| {
            (x as u32).wrapping_add(y as u32) as u64
        }),
        BinOp::IAdd(W::W64) => bin_lanes(regs, d, a, b, mask, |x, y| x.wrapping_add(y)),
        BinOp::IAdd(w) => bin_lanes(regs, d, a, b, mask, |x, y| x.wrapping_add(y) & w.mask()),
        BinOp::ISub(w) => bin_lanes(regs, d, a, b, mask, |x, y| x.wrapping_sub(y) & w.mask()),
        BinOp::IMulLo(W::W32) => bin_lanes(regs, d, a, b, mask, |x, y| {
            (x as u32).wrapping_mul(y as u32) as u64
        }),
        BinOp::IMulLo(w) => bin_lanes(regs, d, a, b, mask, |x, y| x.wrapping_mul(y) & w.mask()),
        BinOp::IMulHi { w, signed } => bin_lanes(regs, d, a, b, mask, |x, y| {
            let bits = w.bits();
            if signed {
                (((sext(x, w) as i128 * sext(y, w) as i128) >> bits) as u64) & w.mask()
            } else {
                (((zext(x, w) as u128 * zext(y, w) as u128) >> bits) as u64) & w.mask()
            }
        }),
        BinOp::IMulWide {
            w: W::W32,
            signed: false,
        } => bin_lanes(regs, d, a, b, mask, |x, y| {
            (x as u32 as u64) * (y as u32 as u64)
        }),
        BinOp::IMulWide {
            w: W::W32,
            signed: true,
        } => bin_lanes(regs, d, a, b, mask, |x, y| {
            ((x as u32 as i32 as i64) * (y as u32 as i32 as i64)) as u64
        }),
        BinOp::IMulWide { w, signed } => bin_lanes(regs, d, a, b, mask, |x, y| {
            let m = if w.bits() * 2 >= 64 {
                u64::MAX
            } else {
                (1u64 << (w.bits() * 2)) - 1
            };
            if signed {
                (sext(x, w).wrapping_mul(sext(y, w)) as u64) & m
            } else {
                zext(x, w).wrapping_mul(zext(y, w)) & m
            }
        }),
        BinOp::IDiv { w, signed } => bin_lanes(regs, d, a, b, mask, |x, y| {
            if signed {
                match sext(x, w).checked_div(sext(y, w)) {
                    Some(q) => (q as u64) & w.mask(),
                    // Division by zero gives -1 (all ones) on NVIDIA GPUs; MIN / -1 wraps.
                    None if zext(y, w) == 0 => w.mask(),
                    None => zext(x, w),
                }
            } else {
                zext(x, w).checked_div(zext(y, w)).unwrap_or(w.mask())
            }
        }),
        BinOp::IRem { w, signed } => bin_lanes(regs, d, a, b, mask, |x, y| {
            if signed {
                match sext(x, w).checked_rem(sext(y, w)) {
                    Some(r) => (r as u64) & w.mask(),
                    // By zero: all ones, as for division (H100, int_ops `ptx_rem_s`:
                    // every `rem.s32 x, 0` is 0xffffffff); MIN % -1 is 0.
                    None if zext(y, w) == 0 => w.mask(),
                    None => 0,
                }
            } else {
                // By zero: all ones (H100, int_ops `ptx_rem_u`).
                zext(x, w).checked_rem(zext(y, w)).unwrap_or(w.mask())
            }
        }),
        BinOp::IMin { w, signed } => bin_lanes(regs, d, a, b, mask, |x, y| {
            if signed {
                (sext(x, w).min(sext(y, w)) as u64) & w.mask()
            } else {
                zext(x, w).min(zext(y, w))
            }
        }),
        BinOp::IMax { w, signed } => bin_lanes(regs, d, a, b, mask, |x, y| {
            if signed {
                (sext(x, w).max(sext(y, w)) as u64) & w.mask()
            } else {
                zext(x, w).max(zext(y, w))
            }
        }),
        BinOp::And => bin_lanes(regs, d, a, b, mask, |x, y| x & y),
        BinOp::Or => bin_lanes(regs, d, a, b, mask, |x, y| x | y),
        BinOp::Xor => bin_lanes(regs, d, a, b, mask, |x, y| x ^ y),
        // Shift amounts are unsigned 32-bit; amounts above the width give 0 (or the sign).
        BinOp::Shl(w) => bin_lanes(regs, d, a, b, mask, |x, y| {
            let s = y as u32;
            if s >= w.bits() {
                0
            } else {
                (x << s) & w.mask()
            }
        }),
        BinOp::Shr { w, signed } => bin_lanes(regs, d, a, b, mask, |x, y| {
            let s = (y as u32).min(w.bits() - 1 + (!signed) as u32);
            if signed {
                ((sext(x, w) >> s.min(63)) as u64) & w.mask()
            } else if s >= w.bits() {
                0
            } else {
                zext(x, w) >> s
            }
        }),
        BinOp::AddSatS32 => bin_lanes(regs, d, a, b, mask, |x, y| {
            (x as u32 as i32).saturating_add(y as u32 as i32) as u32 as u64
        }),
        BinOp::SubSatS32 => bin_lanes(regs, d, a, b, mask, |x, y| {
            (x as u32 as i32).saturating_sub(y as u32 as i32) as u32 as u64
        }),
        BinOp::Bmsk { clamp } => bin_lanes(regs, d, a, b, mask, |x, y| {
            bmsk(x as u32, y as u32, clamp) as u64
        }),
        BinOp::Mul24 { hi, signed } => {
            bin_lanes(regs, d, a, b, mask, |x, y| mul24(x, y, hi, signed))
        }
        BinOp::FAdd(spec) if spec.is_plain(FTy::F32) => {
            bin_lanes(regs, d, a, b, mask, |x, y| bits32(f32_of(x) + f32_of(y)))
        }
        BinOp::FAdd(spec) if spec.is_plain(FTy::F64) => bin_lanes(regs, d, a, b, mask, |x, y| {
            add64_rn(f64_of(x), f64_of(y)).to_bits()
        }),
        BinOp::FAdd(spec) => bin_lanes(regs, d, a, b, mask, |x, y| {
            float_bin(spec, x, y, add32, add64)
        }),
        BinOp::FSub(spec) if spec.is_plain(FTy::F32) => {
            bin_lanes(regs, d, a, b, mask, |x, y| bits32(f32_of(x) - f32_of(y)))
        }
        BinOp::FSub(spec) => bin_lanes(regs, d, a, b, mask, |x, y| {
            float_bin(spec, x, y, |p, q, m| add32(p, -q, m), sub64)
        }),
        BinOp::FSubNanA(spec) => bin_lanes(regs, d, a, b, mask, |x, y| {
            if f64_of(x).is_nan() {
                x | QUIET_BIT64
            } else {
                float_bin(spec, x, y, |p, q, m| add32(p, -q, m), sub64)
            }
        }),
        BinOp::FMul(spec) if spec.is_plain(FTy::F32) => {
            bin_lanes(regs, d, a, b, mask, |x, y| bits32(f32_of(x) * f32_of(y)))
        }
        BinOp::FMul(spec) if spec.is_plain(FTy::F64) => bin_lanes(regs, d, a, b, mask, |x, y| {
            mul64_rn(f64_of(x), f64_of(y)).to_bits()
        }),
        BinOp::FMul(spec) => bin_lanes(regs, d, a, b, mask, |x, y| {
            float_bin(spec, x, y, mul32, mul64)
        }),
        BinOp::FDiv { spec, approx } => {
            if approx {
                bin_lanes(regs, d, a, b, mask, |x, y| {
                    float_bin(spec, x, y, |p, q, _| p / q, |p, q, _| p / q)
                })
            } else {
                bin_lanes(regs, d, a, b, mask, |x, y| {
                    float_bin(spec, x, y, div32, div64)
                })
            }
        }
        BinOp::FMin { spec, nan } => {
            bin_lanes(regs, d, a, b, mask, |x, y| fmin_max(spec, x, y, nan, true))
        }
        BinOp::FMax { spec, nan } => {
            bin_lanes(regs, d, a, b, mask, |x, y| fmin_max(spec, x, y, nan, false))
        }
        BinOp::Copysign(t) => bin_lanes(regs, d, a, b, mask, |x, y| {
            // copysign d, a, b: |b| with the sign of a.
            if t == FTy::F64 {
                (y & !(1 << 63)) | (x & (1 << 63))
            } else {
                (y & 0x7fff_ffff) | (x & 0x8000_0000)
            }
        }),
        BinOp::PackHalf2 { bf, rnd, relu } => bin_lanes(regs, d, a, b, mask, |x, y| {
            let conv = |v: u64| {
                let mut f = f32_of(v) as f64;
                if relu && f.is_sign_negative() && !f.is_nan() {
                    f = 0.0;
                }
                f64_to_half(f, rnd, bf) as u64
            };
            (conv(x) << 16) | conv(y)
        }),
        BinOp::PackFp8 { fmt, relu } => bin_lanes(regs, d, a, b, mask, |x, y| {
            fp8::pack_f32(fmt, relu, f32_of(x), f32_of(y)) as u64
        }),
    }
}

fn mul24(x: u64, y: u64, hi: bool, signed: bool) -> u64 {
    let (p, q) = if signed {
        (
            ((x as u32) << 8) as i32 as i64 >> 8,
            ((y as u32) << 8) as i32 as i64 >> 8,
        )
    } else {
        ((x & 0xff_ffff) as i64, (y & 0xff_ffff) as i64)
    };
    let prod = p * q;
    (if hi { (prod >> 16) as u64 } else { prod as u64 }) & 0xffff_ffff
}

fn ternary(f: TernOp, regs: &mut [Lanes], d: Slot, a: Slot, b: Slot, c: Slot, mask: u32) {
    match f {
        TernOp::IMadLo(W::W32) => tern_lanes(regs, d, a, b, c, mask, |x, y, z| {
            (x as u32).wrapping_mul(y as u32).wrapping_add(z as u32) as u64
        }),
        TernOp::IMadLo(w) => tern_lanes(regs, d, a, b, c, mask, |x, y, z| {
            x.wrapping_mul(y).wrapping_add(z) & w.mask()
        }),
        TernOp::IMadHi { w, signed, sat } => tern_lanes(regs, d, a, b, c, mask, |x, y, z| {
            let bits = w.bits();
            if signed {
                let hi = (sext(x, w) as i128 * sext(y, w) as i128) >> bits;
                if sat {
                    (hi as i64 as i32).saturating_add(z as u32 as i32) as u32 as u64
                } else {
                    ((hi as u64).wrapping_add(z)) & w.mask()
                }
            } else {
                ((((zext(x, w) as u128 * zext(y, w) as u128) >> bits) as u64).wrapping_add(z))
                    & w.mask()
            }
        }),
        TernOp::IMadWide { w, signed } => tern_lanes(regs, d, a, b, c, mask, |x, y, z| {
            let m = if w.bits() * 2 >= 64 {
                u64::MAX
            } else {
                (1u64 << (w.bits() * 2)) - 1
            };
            let p = if signed {
                sext(x, w).wrapping_mul(sext(y, w)) as u64
            } else {
                zext(x, w).wrapping_mul(zext(y, w))
            };
            p.wrapping_add(z) & m
        }),
        TernOp::Mad24 { hi, signed } => tern_lanes(regs, d, a, b, c, mask, |x, y, z| {
            (mul24(x, y, hi, signed).wrapping_add(z)) & 0xffff_ffff
        }),
        TernOp::Sad { w, signed } => tern_lanes(regs, d, a, b, c, mask, |x, y, z| {
            let diff = if signed {
                (sext(x, w) - sext(y, w)).unsigned_abs()
            } else {
                zext(x, w).abs_diff(zext(y, w))
            };
            diff.wrapping_add(z) & w.mask()
        }),
        TernOp::Fma(spec) if spec.is_plain(FTy::F32) => {
            fma_f32_lanes(regs, d, a, b, c, mask, (0, 0))
        }
        TernOp::Fma(spec) if spec.is_plain(FTy::F64) => {
            tern_lanes(regs, d, a, b, c, mask, |x, y, z| {
                fma64_rn(f64_of(x), f64_of(y), f64_of(z)).to_bits()
            })
        }
        TernOp::Fma(spec) => {
            tern_lanes(regs, d, a, b, c, mask, |x, y, z| fma_generic(spec, x, y, z))
        }
        TernOp::FmaSigned {
            spec,
            neg_product,
            neg_addend,
        } => {
            let sign = if spec.ty == FTy::F64 {
                1u64 << 63
            } else {
                0x8000_0000
            };
            let np = if neg_product { sign } else { 0 };
            let nc = if neg_addend { sign } else { 0 };
            if spec.is_plain(FTy::F32) {
                fma_f32_lanes(regs, d, a, b, c, mask, (np, nc))
            } else {
                tern_lanes(regs, d, a, b, c, mask, |x, y, z| {
                    fma_generic(spec, x ^ np, y, z ^ nc)
                })
            }
        }
        TernOp::Bfe { w, signed } => {
            tern_lanes(regs, d, a, b, c, mask, |x, p, n| bfe(x, p, n, w, signed))
        }
        TernOp::Prmt(mode) => tern_lanes(regs, d, a, b, c, mask, |x, y, z| {
            prmt(x as u32, y as u32, z as u32, mode) as u64
        }),
        TernOp::Lop3(lut) => tern_lanes(regs, d, a, b, c, mask, |x, y, z| {
            let mut r = 0u64;
            for bit in 0..8u32 {
                if (lut >> bit) & 1 == 1 {
                    let ta = if bit & 4 != 0 { x } else { !x };
                    let tb = if bit & 2 != 0 { y } else { !y };
                    let tc = if bit & 1 != 0 { z } else { !z };
                    r |= ta & tb & tc;
                }
            }
            r & 0xffff_ffff
        }),
        TernOp::Shf { dir, mode } => tern_lanes(regs, d, a, b, c, mask, |x, y, n| {
            let n = n as u32;
            let n = match mode {
                ShfMode::Clamp => n.min(32),
                ShfMode::Wrap => n & 31,
            } as u64;
            let wide = ((y as u32 as u64) << 32) | (x as u32 as u64);
            match dir {
                ShfDirection::L => ((wide << n) >> 32) & 0xffff_ffff,
                ShfDirection::R => (wide >> n) & 0xffff_ffff,
            }
        }),
        TernOp::Dp4a { a_signed, b_signed } => tern_lanes(regs, d, a, b, c, mask, |x, y, z| {
            let mut acc = z as u32 as i32 as i64;
            for i in 0..4 {
                let xa = (x >> (8 * i)) as u8;
                let yb = (y >> (8 * i)) as u8;
                let xa = if a_signed { xa as i8 as i64 } else { xa as i64 };
                let yb = if b_signed { yb as i8 as i64 } else { yb as i64 };
                acc += xa * yb;
            }
            acc as u32 as u64
        }),
        TernOp::Dp2a {
            hi,
            a_signed,
            b_signed,
        } => tern_lanes(regs, d, a, b, c, mask, |x, y, z| {
            let mut acc = z as u32 as i32 as i64;
            for i in 0..2 {
                let xa = (x >> (16 * i)) as u16;
                let yb = (y >> (8 * (i + if hi { 2 } else { 0 }))) as u8;
                let xa = if a_signed {
                    xa as i16 as i64
                } else {
                    xa as i64
                };
                let yb = if b_signed { yb as i8 as i64 } else { yb as i64 };
                acc += xa * yb;
            }
            acc as u32 as u64
        }),
        TernOp::SlctS32 => tern_lanes(regs, d, a, b, c, mask, |x, y, z| {
            if (z as u32 as i32) >= 0 { x } else { y }
        }),
        TernOp::SlctF32 { ftz } => tern_lanes(regs, d, a, b, c, mask, |x, y, z| {
            let f = if ftz { ftz32(f32_of(z)) } else { f32_of(z) };
            if f >= 0.0 { x } else { y }
        }),
        TernOp::Fns => tern_lanes(regs, d, a, b, c, mask, |m, base, off| {
            fns(m as u32, base as u32, off as u32 as i32) as u64
        }),
    }
}

fn fma_generic(spec: FSpec, x: u64, y: u64, z: u64) -> u64 {
    match spec.ty {
        FTy::F32 => {
            let (mut p, mut q, mut r) = (f32_of(x), f32_of(y), f32_of(z));
            if spec.ftz {
                p = ftz32(p);
                q = ftz32(q);
                r = ftz32(r);
            }
            let mut v = fma32(p, q, r, spec.rnd);
            if spec.ftz {
                v = ftz32(v);
            }
            if spec.sat {
                v = sat32(v);
            }
            bits32(v)
        }
        FTy::F64 => fma64(f64_of(x), f64_of(y), f64_of(z), spec.rnd).to_bits(),
        FTy::F16 | FTy::Bf16 => half_fma(spec, x as u16, y as u16, z as u16) as u64,
        FTy::F16x2 | FTy::Bf16x2 => {
            let lo = half_fma(spec, x as u16, y as u16, z as u16) as u64;
            let hi = half_fma(spec, (x >> 16) as u16, (y >> 16) as u16, (z >> 16) as u16) as u64;
            lo | (hi << 16)
        }
    }
}

/// `a * b + c` on halves with one rounding. The product of two halves is exact in f64;
/// the sum with `c` is rounded to f64 *to odd* (the nearest f64 whose last bit is 1
/// when inexact), which keeps enough information for the final rounding to half to be
/// the correctly rounded result (53 bits is more than 11 + 2).
fn half_fma(spec: FSpec, a: u16, b: u16, c: u16) -> u16 {
    let bf = matches!(spec.ty, FTy::Bf16 | FTy::Bf16x2);
    let v = sum_round_to_odd(half_to_f64(a, bf) * half_to_f64(b, bf), half_to_f64(c, bf));
    let v = if spec.sat { sat64(v) } else { v };
    let h = f64_to_half(v, spec.rnd, bf);
    if spec.ftz { ftz_half(h, bf) } else { h }
}

/// `p + c` rounded to odd: the exact sum if it is an f64, else whichever neighbour has
/// an odd last bit. Uses the exact error of the rounded sum (Knuth's TwoSum).
fn sum_round_to_odd(p: f64, c: f64) -> f64 {
    let s = p + c;
    if !s.is_finite() {
        return s;
    }
    let bp = s - c;
    let err = (p - bp) + (c - (s - bp));
    if err == 0.0 || s.to_bits() & 1 == 1 {
        return s;
    }
    if (err > 0.0) == (s > 0.0) {
        f64::from_bits(s.to_bits() + 1)
    } else {
        f64::from_bits(s.to_bits() - 1)
    }
}

/// f32 fma over 32 lanes, `fma(a ^ signs.0, b, c ^ signs.1)` (sign masks negate), with
/// the host's FMA instruction when it has one (the libm software fallback is correct but
/// slow).
fn fma_f32_lanes(
    regs: &mut [Lanes],
    d: Slot,
    a: Slot,
    b: Slot,
    c: Slot,
    mask: u32,
    signs: (u64, u64),
) {
    #[cfg(target_arch = "x86_64")]
    {
        if std::arch::is_x86_feature_detected!("fma") && std::arch::is_x86_feature_detected!("avx2")
        {
            // SAFETY: the CPU supports FMA and AVX2, the features the function is compiled
            // for (checked just above; some CPUs, e.g. AMD Piledriver, have FMA without AVX2).
            unsafe { fma_f32_lanes_hw(regs, d, a, b, c, mask, signs) };
            return;
        }
    }
    let (np, nc) = signs;
    tern_lanes(regs, d, a, b, c, mask, |x, y, z| {
        bits32(f32_of(x ^ np).mul_add(f32_of(y), f32_of(z ^ nc)))
    });
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "fma,avx2")]
fn fma_f32_lanes_hw(
    regs: &mut [Lanes],
    d: Slot,
    a: Slot,
    b: Slot,
    c: Slot,
    mask: u32,
    signs: (u64, u64),
) {
    let (np, nc) = signs;
    tern_lanes(regs, d, a, b, c, mask, |x, y, z| {
        bits32(f32_of(x ^ np).mul_add(f32_of(y), f32_of(z ^ nc)))
    });
}

/// `bfe` (§9.7.8.6), the manual's pseudocode: bit `i` of the result is bit `pos + i` of
/// `a` while `i < len` and `pos + i` is inside the register, and the sign bit
/// `a[min(pos + len - 1, msb)]` (0 when unsigned) everywhere else, also past the top of
/// the register. A zero length gives 0, signed or not (the pseudocode's `a[pos - 1]` is
/// not what the H100 does: int_ops `ptx_bfe_s` rows 678, 742).
fn bfe(a: u64, pos: u64, len: u64, w: W, signed: bool) -> u64 {
    let (pos, len) = (pos & 0xff, len & 0xff);
    let msb = w.bits() as u64 - 1;
    let a = zext(a, w);
    if len == 0 {
        return 0;
    }
    let sign = signed && (a >> (pos + len - 1).min(msb)) & 1 == 1;
    // The field's bits that lie inside the register.
    let field_len = if pos > msb { 0 } else { len.min(msb + 1 - pos) };
    let field = if field_len == 0 {
        0
    } else {
        (a >> pos) & (u64::MAX >> (64 - field_len))
    };
    let fill = if sign && field_len < 64 {
        u64::MAX << field_len
    } else {
        0
    };
    (field | fill) & w.mask()
}

/// `prmt.b32` (§9.7.8.7).
fn prmt(a: u32, b: u32, c: u32, mode: Option<PrmtMode>) -> u32 {
    let bytes = ((b as u64) << 32) | a as u64;
    let byte = |i: u32| ((bytes >> (8 * (i & 7))) & 0xff) as u32;
    let sel: [u32; 4] = match mode {
        None => [c & 0xf, (c >> 4) & 0xf, (c >> 8) & 0xf, (c >> 12) & 0xf],
        Some(m) => {
            let n = c & 3;
            match m {
                PrmtMode::F4e => [n, n + 1, n + 2, n + 3].map(|x| x & 7),
                PrmtMode::B4e => [n, n + 7, n + 6, n + 5].map(|x| x & 7),
                PrmtMode::Rc8 => [n, n, n, n],
                PrmtMode::Ecl => [n, n.max(1), n.max(2), 3].map(|x| x.min(3)),
                PrmtMode::Ecr => [0, n.min(1), n.min(2), n].map(|x| x.min(3)),
                PrmtMode::Rc16 => {
                    let h = (n & 1) * 2;
                    [h, h + 1, h, h + 1]
                }
            }
        }
    };
    let mut r = 0u32;
    for (i, &s) in sel.iter().enumerate() {
        let v = if mode.is_none() && s & 8 != 0 {
            // Sign-replicate the selected byte's top bit.
            if byte(s & 7) & 0x80 != 0 { 0xff } else { 0 }
        } else {
            byte(s & 7)
        };
        r |= v << (8 * i);
    }
    r
}

/// `bmsk`: the mask of `width` bits from bit `start`, as §9.7.1.22 computes it (a width
/// of 0, or 32 under `.wrap`, gives 0; a field past bit 31 is cut there; under `.clamp` a
/// start of 32 or more gives 0 and a width of 32 or more reaches bit 31).
fn bmsk(start: u32, width: u32, clamp: bool) -> u32 {
    let (a1, b1) = (start & 0x1f, width & 0x1f);
    let sum = a1 + b1;
    let mut mask0 = !0u32 << a1;
    let mut overflow = sum >= 32;
    if clamp {
        if start >= 32 {
            mask0 = 0;
            overflow = true;
        }
        overflow |= width >= 32;
    }
    let mask1 = if overflow {
        0
    } else if b1 == 0 {
        !0
    } else {
        !0u32 << sum
    };
    mask0 & !mask1
}

/// `fns.b32`: the position of the `offset`-th set bit of `mask` from `base`
/// (0xffffffff if none).
fn fns(mask: u32, base: u32, offset: i32) -> u32 {
    if base > 31 {
        return u32::MAX;
    }
    if offset == 0 {
        return if (mask >> base) & 1 == 1 {
            base
        } else {
            u32::MAX
        };
    }
    let mut count = 0;
    if offset > 0 {
        for pos in base..32 {
            if (mask >> pos) & 1 == 1 {
                count += 1;
                if count == offset {
                    return pos;
                }
            }
        }
    } else {
        for pos in (0..=base).rev() {
            if (mask >> pos) & 1 == 1 {
                count -= 1;
                if count == offset {
                    return pos;
                }
            }
        }
    }
    u32::MAX
}

#[cfg(test)]
mod tests {
    use super::*;

    fn regs(values: &[u64]) -> Vec<Lanes> {
        values.iter().map(|&v| [v; 32]).collect()
    }

    /// `compare` (operator hoisted out of the lane loop) against the per-lane definition,
    /// for every operator, integer width and float type, with NaNs, infinities, signed
    /// zeros, denormals and values that differ only above the compared width.
    #[test]
    fn compare_matches_the_per_lane_definition() {
        use CmpOp::*;
        let ops = [
            Eq, Ne, Lt, Le, Gt, Ge, Lo, Ls, Hi, Hs, Equ, Neu, Ltu, Leu, Gtu, Geu, Num, Nan,
        ];
        let specials = [
            0u64,
            1,
            0x7f,
            0x80,
            0xffff,
            0x8000_0000,
            0xffff_ffff,
            0x1_0000_0001,
            u64::MAX,
            f32::NAN.to_bits() as u64,
            f32::INFINITY.to_bits() as u64,
            (-0.0f32).to_bits() as u64,
            1.5f32.to_bits() as u64,
            1,
            f64::NAN.to_bits(),
            (-2.5f64).to_bits(),
            0x7c00,
            0x7e00,
            0x8001,
        ];
        let mut a = [0u64; 32];
        let mut b = [0u64; 32];
        for l in 0..32 {
            a[l] = specials[l % specials.len()];
            b[l] = specials[(l * 7 + 3) % specials.len()];
        }
        let kinds = [W::W8, W::W16, W::W32, W::W64]
            .into_iter()
            .flat_map(|w| [CmpKind::Signed(w), CmpKind::Unsigned(w)])
            .chain(
                [FTy::F16, FTy::Bf16, FTy::F32, FTy::F64]
                    .into_iter()
                    .map(CmpKind::Float),
            );
        for kind in kinds {
            for ftz in [false, true] {
                for op in ops {
                    let cmp = Cmp { op, kind, ftz };
                    let mut want = 0u32;
                    for l in 0..32 {
                        let (x, y) = (a[l], b[l]);
                        let bit = match kind {
                            CmpKind::Signed(w) => ord(op, sext(x, w), sext(y, w)),
                            CmpKind::Unsigned(w) => ord(op, zext(x, w), zext(y, w)),
                            CmpKind::Float(FTy::F32) if ftz => {
                                fcmp(op, ftz32(f32_of(x)) as f64, ftz32(f32_of(y)) as f64)
                            }
                            CmpKind::Float(FTy::F32) => {
                                fcmp(op, f32_of(x) as f64, f32_of(y) as f64)
                            }
                            CmpKind::Float(FTy::F64) => fcmp(op, f64_of(x), f64_of(y)),
                            CmpKind::Float(t) => {
                                let bf = matches!(t, FTy::Bf16 | FTy::Bf16x2);
                                fcmp(op, half_to_f64(x as u16, bf), half_to_f64(y as u16, bf))
                            }
                        };
                        want |= (bit as u32) << l;
                    }
                    assert_eq!(compare(cmp, &a, &b), want, "{cmp:?}");
                }
            }
        }
    }

    #[test]
    fn integer_ops_wide_hi_and_division() {
        let mut r = regs(&[0, 0xffff_ffff, 2, (-7i32) as u32 as u64, 0]);
        binary(
            BinOp::IMulWide {
                w: W::W32,
                signed: false,
            },
            &mut r,
            0,
            1,
            2,
            FULL,
        );
        assert_eq!(r[0][0], 0x1_ffff_fffe);
        binary(
            BinOp::IMulWide {
                w: W::W32,
                signed: true,
            },
            &mut r,
            0,
            1,
            2,
            FULL,
        );
        assert_eq!(r[0][0], (-2i64) as u64);
        binary(
            BinOp::IMulHi {
                w: W::W32,
                signed: false,
            },
            &mut r,
            0,
            1,
            1,
            FULL,
        );
        assert_eq!(r[0][0], 0xffff_fffe);
        binary(
            BinOp::IDiv {
                w: W::W32,
                signed: true,
            },
            &mut r,
            0,
            3,
            2,
            FULL,
        );
        assert_eq!(r[0][0] as u32 as i32, -3);
        binary(
            BinOp::IRem {
                w: W::W32,
                signed: true,
            },
            &mut r,
            0,
            3,
            2,
            FULL,
        );
        assert_eq!(r[0][0] as u32 as i32, -1);
        binary(
            BinOp::IDiv {
                w: W::W32,
                signed: false,
            },
            &mut r,
            0,
            2,
            4,
            FULL,
        );
        assert_eq!(r[0][0], 0xffff_ffff, "division by zero gives all ones");
        binary(
            BinOp::Shr {
                w: W::W32,
                signed: true,
            },
            &mut r,
            0,
            3,
            2,
            FULL,
        );
        assert_eq!(r[0][0] as u32 as i32, -2);
        binary(BinOp::Shl(W::W32), &mut r, 0, 1, 1, FULL);
        assert_eq!(r[0][0], 0, "oversized shifts give zero");
    }

    #[test]
    fn masked_lanes_keep_their_values() {
        let mut r = regs(&[7, 1, 2]);
        binary(BinOp::IAdd(W::W32), &mut r, 0, 1, 2, 0b101);
        assert_eq!(&r[0][..4], &[3, 7, 3, 7]);
    }

    #[test]
    fn carry_chain_adds_64_bit_halves() {
        // (0xffffffff, 1) + (1, 2) = (0, 4) with carry.
        let mut r = regs(&[0, 0, 0xffff_ffff, 1, 1, 2, 0]);
        let add = |f: CarryOp, d, a, b, cin, cout| OpKind::Carry {
            f,
            w: W::W32,
            d,
            a,
            b,
            c: 0,
            cc: 6,
            cin,
            cout,
        };
        let mut p = vec![0u32, FULL];
        compute(
            &add(CarryOp::Add, 0, 2, 4, false, true),
            &mut r,
            &mut p,
            FULL,
        );
        compute(
            &add(CarryOp::Add, 1, 3, 5, true, false),
            &mut r,
            &mut p,
            FULL,
        );
        assert_eq!((r[0][0], r[1][0]), (0, 4));
    }

    #[test]
    fn bit_manipulation() {
        assert_eq!(prmt(0x4433_2211, 0x8877_6655, 0x3210, None), 0x4433_2211);
        assert_eq!(prmt(0x4433_2211, 0x8877_6655, 0x7654, None), 0x8877_6655);
        assert_eq!(prmt(0x4433_2211, 0, 0x0000_0008 | 0x10, None) & 0xff, 0x00);
        assert_eq!(fns(0b1011, 0, 2), 1);
        // The manual's example, and its edge cases: empty, cut at bit 31, saturated.
        assert_eq!(bmsk(1, 2, false), 0x6);
        assert_eq!(bmsk(4, 0, true), 0);
        assert_eq!(bmsk(4, 32, false), 0);
        assert_eq!(bmsk(4, 32, true), 0xffff_fff0);
        assert_eq!(bmsk(28, 8, false), 0xf000_0000);
        assert_eq!(bmsk(33, 2, false), 0x6);
        assert_eq!(bmsk(33, 2, true), 0);
        assert_eq!(bmsk(0, 31, true), 0x7fff_ffff);
        assert_eq!(fns(0b1011, 0, 3), 3);
        let mut r = regs(&[0, 0xf0, 4, 4]);
        ternary(
            TernOp::Bfe {
                w: W::W32,
                signed: true,
            },
            &mut r,
            0,
            1,
            2,
            3,
            FULL,
        );
        assert_eq!(r[0][0], 0xffff_ffff);
        ternary(
            TernOp::Bfe {
                w: W::W32,
                signed: false,
            },
            &mut r,
            0,
            1,
            2,
            3,
            FULL,
        );
        assert_eq!(r[0][0], 0xf);
        unary(
            UnOp::Bfind {
                w: W::W32,
                signed: false,
                shiftamt: false,
            },
            &mut r,
            0,
            1,
            FULL,
        );
        assert_eq!(r[0][0], 7);
        unary(UnOp::Clz(W::W32), &mut r, 0, 1, FULL);
        assert_eq!(r[0][0], 24);
        unary(UnOp::Brev(W::W32), &mut r, 0, 1, FULL);
        assert_eq!(r[0][0], 0x0f00_0000);
    }

    /// Rows of the H100's record (`tools/gpu/int_ops.cu`, op and index): `bfe.s32` fills
    /// with the sign past the register's top and gives 0 for a zero length; `prmt.b4e`
    /// takes bytes `n, n-1, n-2, n-3` (mod 8); `rem` by zero is all ones.
    #[test]
    fn bit_fields_permutes_and_remainders_match_the_h100() {
        let bfe_s = |a, p, n| bfe(a, p, n, W::W32, true);
        assert_eq!(bfe_s(0x8000_0000, 1, 0x00ff_ffff), 0xc000_0000); // ptx_bfe_s 673
        assert_eq!(bfe_s(0x8000_0000, 2, 0xf0f0_f0f0), 0xe000_0000); // ptx_bfe_s 674
        assert_eq!(bfe_s(0x8000_0000, 0x20, 0x0100_0000), 0); // ptx_bfe_s 678
        assert_eq!(bfe_s(0xffff_fffe, 0x20, 0x0100_0000), 0); // ptx_bfe_s 742
        assert_eq!(bfe(0xffff_ffff, 4, 40, W::W32, false), 0x0fff_ffff);
        assert_eq!(bfe(1 << 63, 60, 10, W::W64, true), !7);
        let b4e = |a, b, c| prmt(a, b, c, Some(PrmtMode::B4e));
        assert_eq!(b4e(0x0000_0020, 0x975d_c60e, 7), 0x2000_0000); // ptx_prmt_b4e 3003
        assert_eq!(b4e(0x584f_36d9, 0x0123_4567, 0x201), 0x2301_d936); // 3006
        assert_eq!(b4e(0x8302_7273, 0xbe6e_fe5e, 0x6061_a0fc), 0xfe6e_be73); // 3007
        assert_eq!(b4e(0x3c31_ff12, 0x7f67_5bbd, 0x16), 0x7f12_ff31); // 3026
        let mut r = regs(&[0, 2, 0]);
        for signed in [false, true] {
            // ptx_rem_u 64, ptx_rem_s 64: 2 % 0.
            binary(BinOp::IRem { w: W::W32, signed }, &mut r, 0, 1, 2, FULL);
            assert_eq!(r[0][0], 0xffff_ffff);
        }
    }

    #[test]
    fn float_compare_and_min_max_follow_ptx() {
        let nan = f32::NAN.to_bits() as u64;
        let one = 1.0f32.to_bits() as u64;
        let a = [nan; 32];
        let b = [one; 32];
        let cmp = |op| Cmp {
            op,
            kind: CmpKind::Float(FTy::F32),
            ftz: false,
        };
        assert_eq!(compare(cmp(CmpOp::Ne), &a, &b), 0, "ne is ordered");
        assert_eq!(compare(cmp(CmpOp::Neu), &a, &b), FULL);
        let spec = FSpec {
            ty: FTy::F32,
            rnd: RoundingMode::Rn,
            ftz: false,
            sat: false,
        };
        assert_eq!(fmin_max(spec, nan, one, false, true), one);
        assert_eq!(
            fmin_max(spec, (-0.0f32).to_bits() as u64, 0, false, true),
            (-0.0f32).to_bits() as u64
        );
    }

    /// What an H100 (sm_90, driver 580.159.04, nvcc 13.0 -O3) gave for f32 operations with
    /// a NaN result, whatever the rounding mode or the operands' NaN payloads: the
    /// canonical NaN `0x7fffffff` (the host's default NaN is `0xffc00000` on x86-64). The
    /// differential kernel generator found the difference.
    #[test]
    fn f32_nan_results_are_canonical() {
        let f = |x: f32| x.to_bits() as u64;
        let (inf, zero, one) = (f(f32::INFINITY), f(0.0), f(1.0));
        let payload = 0xffc0_0001u64;
        for rnd in [
            RoundingMode::Rn,
            RoundingMode::Rz,
            RoundingMode::Rm,
            RoundingMode::Rp,
        ] {
            let spec = FSpec {
                ty: FTy::F32,
                rnd,
                ftz: false,
                sat: false,
            };
            let fadd = float_bin(spec, inf, f(f32::NEG_INFINITY), add32, add64);
            let fmul = float_bin(spec, inf, zero, mul32, mul64);
            let fdiv = float_bin(spec, zero, zero, div32, div64);
            let fma = fma_generic(spec, inf, zero, one);
            let fma_payload = fma_generic(spec, zero, zero, payload);
            let sqrt = float_un(spec, f(-1.0), |v| sqrt32(v, rnd), |v| sqrt64(v, rnd));
            for (what, got) in [
                ("add", fadd),
                ("mul", fmul),
                ("div", fdiv),
                ("fma", fma),
                ("fma of a NaN", fma_payload),
                ("sqrt", sqrt),
            ] {
                assert_eq!(got, 0x7fff_ffff, "{what} {rnd:?}");
            }
        }
    }
}
