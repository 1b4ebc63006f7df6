//! The flat ops the executor runs: each IR instruction translated once per launch into an
//! op with resolved register slots and pre-decided semantics (see [`crate::translate`]).
//!
//! Every op refers to the warp's register file by slot: a slot is a lane array
//! (`[u64; 32]`) holding one value per lane. Immediates and special registers also live
//! in slots (filled when the warp is created), so sources are always slots and the lane
//! loops have one shape. Predicates live in a separate file of 32-bit lane masks.
//!
//! Op `i` of the flat array is instruction `i - base` of its function (one op per
//! instruction, plus an implicit `ret` after the last instruction of each function), so
//! a program counter maps back to an `InstId` for reports.

use warpcheck_ir::modifiers::{
    AtomOp, BarrierRedOp, BoolOp, CmpOp, MatchMode, MemSpace, PrmtMode, ReduxOp, RoundingMode,
    ShfDirection, ShfMode, ShflMode, TestpOp, VoteMode,
};

/// A register-file slot (a lane array).
pub(crate) type Slot = u32;
/// A predicate-file slot (a 32-bit lane mask).
pub(crate) type PSlot = u32;

/// A predicate source, possibly negated (`!%p`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct PSrc {
    pub slot: PSlot,
    pub neg: bool,
}

/// Integer width.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum W {
    W8,
    W16,
    W32,
    W64,
}

impl W {
    pub fn bits(self) -> u32 {
        match self {
            W::W8 => 8,
            W::W16 => 16,
            W::W32 => 32,
            W::W64 => 64,
        }
    }
    pub fn mask(self) -> u64 {
        match self {
            W::W8 => 0xff,
            W::W16 => 0xffff,
            W::W32 => 0xffff_ffff,
            W::W64 => u64::MAX,
        }
    }
    pub fn from_bits(bits: u32) -> W {
        match bits {
            8 => W::W8,
            16 => W::W16,
            32 => W::W32,
            _ => W::W64,
        }
    }
}

/// Floating-point formats the emulator computes in.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum FTy {
    F16,
    Bf16,
    F32,
    F64,
    /// Two f16 packed in 32 bits, computed per half.
    F16x2,
    Bf16x2,
}

/// A float operation's modifiers: rounding (`None`: the default, round to nearest even,
/// and for `.approx` forms an approximation), flush-to-zero and saturation.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct FSpec {
    pub ty: FTy,
    pub rnd: RoundingMode,
    pub ftz: bool,
    pub sat: bool,
}

impl FSpec {
    /// The common case that has a dedicated fast path: f32, round to nearest, no
    /// flushing, no saturation.
    pub fn is_plain(self, ty: FTy) -> bool {
        self.ty == ty && self.rnd == RoundingMode::Rn && !self.ftz && !self.sat
    }
}

/// Unary lane operations `d = f(a)`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) enum UnOp {
    Mov,
    INeg(W),
    IAbs(W),
    Not(W),
    Cnot(W),
    Popc(W),
    Clz(W),
    Brev(W),
    Bfind {
        w: W,
        signed: bool,
        shiftamt: bool,
    },
    FNeg(FSpec),
    FAbs(FSpec),
    /// An f32 `neg` (`abs` when not `neg`) that ptxas folds into its readers
    /// (`translate::fold`): the sign bit of any value (`keep_nan`: a NaN unchanged).
    FSignFolded {
        neg: bool,
        keep_nan: bool,
    },
    FSqrt {
        spec: FSpec,
        approx: bool,
    },
    FRcp {
        spec: FSpec,
        approx: bool,
    },
    FRsqrt(FSpec),
    FSin(FSpec),
    FCos(FSpec),
    FLg2(FSpec),
    FEx2(FSpec),
    FTanh(FSpec),
    /// Integer to integer: sign- or zero-extend from `from` bits, keep `to` bits,
    /// optionally saturating.
    IntCvt {
        from: W,
        from_signed: bool,
        to: W,
        to_signed: bool,
        sat: bool,
    },
    /// Any conversion involving a float.
    Cvt(crate::exec::cvt::CvtSpec),
    /// `cvt.rn.satfinite{.relu}.f8x2.f16x2` (`to_fp8`) or `cvt.rn{.relu}.f16x2.f8x2`.
    Fp8 {
        fmt: crate::exec::fp8::Fp8,
        to_fp8: bool,
        relu: bool,
    },
    /// `cvta.space` (`to = false`: space to generic) / `cvta.to.space`.
    Cvta {
        space: MemSpace,
        to: bool,
        w: W,
    },
}

/// Binary lane operations `d = f(a, b)`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) enum BinOp {
    IAdd(W),
    ISub(W),
    IMulLo(W),
    IMulHi {
        w: W,
        signed: bool,
    },
    IMulWide {
        w: W,
        signed: bool,
    },
    IDiv {
        w: W,
        signed: bool,
    },
    IRem {
        w: W,
        signed: bool,
    },
    IMin {
        w: W,
        signed: bool,
    },
    IMax {
        w: W,
        signed: bool,
    },
    And,
    Or,
    Xor,
    Shl(W),
    Shr {
        w: W,
        signed: bool,
    },
    AddSatS32,
    SubSatS32,
    /// `bmsk.b32 d, a, b`: the mask of `b` bits from bit `a` (`clamp`: `.clamp`, else
    /// `.wrap`).
    Bmsk {
        clamp: bool,
    },
    Mul24 {
        hi: bool,
        signed: bool,
    },
    FAdd(FSpec),
    FSub(FSpec),
    /// f64 `sub` whose first operand's NaN has priority (`translate::fold`).
    FSubNanA(FSpec),
    FMul(FSpec),
    FDiv {
        spec: FSpec,
        approx: bool,
    },
    FMin {
        spec: FSpec,
        nan: bool,
    },
    FMax {
        spec: FSpec,
        nan: bool,
    },
    Copysign(FTy),
    /// `cvt.rn.f16x2.f32 d, a, b`: pack two converted floats (`a` in the upper half).
    PackHalf2 {
        bf: bool,
        rnd: RoundingMode,
        relu: bool,
    },
    /// `cvt.rn.satfinite{.relu}.f8x2.f32 d, a, b`: pack two FP8 conversions (`a` in the
    /// upper byte).
    PackFp8 {
        fmt: crate::exec::fp8::Fp8,
        relu: bool,
    },
}

/// Ternary lane operations `d = f(a, b, c)`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) enum TernOp {
    IMadLo(W),
    IMadHi {
        w: W,
        signed: bool,
        sat: bool,
    },
    IMadWide {
        w: W,
        signed: bool,
    },
    Mad24 {
        hi: bool,
        signed: bool,
    },
    Sad {
        w: W,
        signed: bool,
    },
    Fma(FSpec),
    /// `fma(±a, b, ±c)`: a contracted `mul` + `add`/`sub` (see `translate::contract`).
    FmaSigned {
        spec: FSpec,
        neg_product: bool,
        neg_addend: bool,
    },
    Bfe {
        w: W,
        signed: bool,
    },
    Prmt(Option<PrmtMode>),
    Lop3(u8),
    Shf {
        dir: ShfDirection,
        mode: ShfMode,
    },
    Dp4a {
        a_signed: bool,
        b_signed: bool,
    },
    Dp2a {
        hi: bool,
        a_signed: bool,
        b_signed: bool,
    },
    /// `slct.dty.s32 d, a, b, c`: `c >= 0 ? a : b`.
    SlctS32,
    SlctF32 {
        ftz: bool,
    },
    /// `fns.b32 d, mask, base, offset`.
    Fns,
}

/// What `setp`/`set` compare, and how.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct Cmp {
    pub op: CmpOp,
    pub kind: CmpKind,
    pub ftz: bool,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum CmpKind {
    Unsigned(W),
    Signed(W),
    Float(FTy),
}

/// How a memory op computes each lane's address.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Addr {
    /// Register plus offset.
    Reg { slot: Slot, offset: i64 },
    /// A constant address in the op's space.
    Abs(u64),
    /// An offset in the current call frame (local memory of the thread): `.local`
    /// variables, call-sequence `.param`s, and a function's own parameters.
    Frame(u64),
}

/// Where loaded values go or stored values come from (up to 4 vector elements).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct VecSlots {
    pub n: u8,
    pub slots: [Slot; 4],
}

/// A load or store's shape.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct MemShape {
    /// The space the address is in (`Param` means kernel parameters; frame-relative
    /// parameters use `Local`).
    pub space: MemSpace,
    /// Bytes per element (1, 2, 4, 8).
    pub size: u8,
    /// Sign-extend loaded elements into `dst_bits`.
    pub signed: bool,
    /// Width of the destination registers of a load.
    pub dst_bits: u8,
    /// `.volatile`, `.relaxed`, `.acquire` or `.release` (not a plain weak access).
    pub ordered: bool,
}

/// The value type of `atom`/`red`.
pub(crate) use crate::memory::AtomType;

/// A warp-level operation's destination: a register or a predicate.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Dst {
    Reg(Slot),
    Pred(PSlot),
    None,
}

/// One flat op and its guard.
#[derive(Clone, Debug)]
pub(crate) struct FlatOp {
    /// `@%p` / `@!%p`, or `None`.
    pub guard: Option<PSrc>,
    pub kind: OpKind,
}

/// The op kinds.
#[derive(Clone, Debug)]
pub(crate) enum OpKind {
    Un {
        f: UnOp,
        d: Slot,
        a: Slot,
    },
    Bin {
        f: BinOp,
        d: Slot,
        a: Slot,
        b: Slot,
    },
    Tern {
        f: TernOp,
        d: Slot,
        a: Slot,
        b: Slot,
        c: Slot,
    },
    /// `bfi d, a, b, pos, len`.
    Bfi {
        w: W,
        d: Slot,
        a: Slot,
        b: Slot,
        pos: Slot,
        len: Slot,
    },
    /// Carry-chain arithmetic (§9.7.2): `add.cc`, `addc`, `sub.cc`, `subc`, `mad.cc`,
    /// `madc`. `cc` is the slot of the carry flag.
    Carry {
        f: CarryOp,
        w: W,
        d: Slot,
        a: Slot,
        b: Slot,
        c: Slot,
        cc: Slot,
        cin: bool,
        cout: bool,
    },
    Setp {
        cmp: Cmp,
        p: Option<PSlot>,
        q: Option<PSlot>,
        a: Slot,
        b: Slot,
        combine: Option<(BoolOp, PSrc)>,
    },
    /// `set.cmp.dty`: all-ones / 1.0f (float destination) or zero.
    Set {
        cmp: Cmp,
        float_dst: bool,
        d: Slot,
        a: Slot,
        b: Slot,
        combine: Option<(BoolOp, PSrc)>,
    },
    Selp {
        d: Slot,
        a: Slot,
        b: Slot,
        p: PSrc,
    },
    /// Predicate logic: `and/or/xor/not/mov.pred`.
    PredLogic {
        op: PredOp,
        d: PSlot,
        a: PSrc,
        b: PSrc,
    },
    /// `setp.ne.b32`-like conversion of a register to a predicate is done by `Setp`;
    /// this writes a predicate from a register's low bit (`mov.pred p, imm` uses a
    /// constant predicate slot instead).
    Testp {
        op: TestpOp,
        fty: FTy,
        d: PSlot,
        a: Slot,
    },
    /// `mov.b64 d, {a, b}`: pack `n` elements of `bits` each.
    Pack {
        d: Slot,
        srcs: VecSlots,
        bits: u8,
    },
    /// `mov.v2.u32 {a, b}, {c, d}`: element-wise moves.
    VecMov {
        dsts: VecSlots,
        srcs: VecSlots,
    },
    /// `mov.b64 {a, b}, d`: unpack.
    Unpack {
        dsts: VecSlots,
        a: Slot,
        bits: u8,
    },
    Ld {
        shape: MemShape,
        dsts: VecSlots,
        addr: Addr,
    },
    St {
        shape: MemShape,
        srcs: VecSlots,
        addr: Addr,
    },
    Atom {
        space: MemSpace,
        op: AtomOp,
        ty: AtomType,
        size: u8,
        d: Option<Slot>,
        addr: Addr,
        b: Slot,
        c: Slot,
    },
    /// `cp.async.{ca,cg}.shared.global [dst], [src], size[, src_size]` (see
    /// `crate::async_copy` for when its write is reported).
    CpAsync {
        dst: Addr,
        src: Addr,
        size: u8,
        src_size: Option<Slot>,
    },
    /// `cp.async.commit_group`.
    CpAsyncCommit,
    /// `tex` (boxed: rare, and larger than the other ops).
    Tex(Box<crate::texture::TexOp>),
    /// `cp.async.wait_group n` (`keep_newest: Some(n)`) or `cp.async.wait_all` (`None`).
    CpAsyncWait {
        keep_newest: Option<u32>,
    },
    /// The address of a frame variable: frame base + offset, as a local-space address.
    FrameAddr {
        d: Slot,
        offset: u64,
    },
    Isspacep {
        space: MemSpace,
        d: PSlot,
        a: Slot,
    },
    Clock {
        d: Slot,
        wide: bool,
    },
    Bra {
        target: u32,
        reconverge: u32,
    },
    /// `brx.idx`: jump to `targets[a]`.
    BrxIdx {
        a: Slot,
        targets: Box<[u32]>,
        reconverge: u32,
    },
    Call(Box<CallOp>),
    Ret,
    Exit,
    Trap,
    Barrier(BarrierOp),
    /// `mma`, `ldmatrix`, `stmatrix` (`crate::exec::matrix`).
    Matrix(Box<MatrixOp>),
    /// `mbarrier.*` and `cp.async.mbarrier.arrive` (`crate::exec::mbarrier`).
    Mbarrier(Box<MbarrierOp>),
    WarpSync {
        mask: Slot,
    },
    Shfl {
        mode: ShflMode,
        d: Slot,
        p: Option<PSlot>,
        a: Slot,
        b: Slot,
        c: Slot,
        membermask: Slot,
    },
    Vote {
        mode: VoteMode,
        d: Dst,
        p: PSrc,
        membermask: Slot,
    },
    Match {
        mode: MatchMode,
        wide: bool,
        d: Slot,
        p: Option<PSlot>,
        a: Slot,
        membermask: Slot,
    },
    Redux {
        op: ReduxOp,
        signed: bool,
        d: Slot,
        a: Slot,
        membermask: Slot,
    },
    Activemask {
        d: Slot,
    },
    /// A fence (`membar`, `fence`): no architectural effect in the emulator, which makes
    /// every access visible at once; at GPU or system scope (`device`) the observers are
    /// told ([`crate::Observer::on_fence`]).
    Fence {
        device: bool,
    },
    /// Prefetches, proxy fences, `nanosleep`, `pmevent`… no architectural effect here.
    Nop,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum CarryOp {
    Add,
    Sub,
    /// `mad{c}.lo/hi`: `hi` selects the upper half of the product.
    MadLo,
    MadHi,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum PredOp {
    And,
    Or,
    Xor,
    Not,
    Mov,
}

/// A `bar`/`barrier` instruction.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct BarrierOp {
    pub mode: warpcheck_ir::modifiers::BarrierMode,
    pub id: Slot,
    pub count: Option<Slot>,
    /// `bar.red`: the operation, destination (register for popc, predicate for and/or)
    /// and the predicate source.
    pub red: Option<(BarrierRedOp, Dst, PSrc)>,
}

/// Element types of the matrix instructions.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum MatElem {
    F16,
    Bf16,
    Tf32,
    F32,
    F64,
    S8,
    U8,
    S32,
}

/// A warp-level matrix instruction: its kind and its register fragments.
#[derive(Clone, Debug)]
pub(crate) struct MatrixOp {
    pub kind: MatrixKind,
    pub d: Vec<Slot>,
    pub a: Vec<Slot>,
    pub b: Vec<Slot>,
    pub c: Vec<Slot>,
    /// `ldmatrix`/`stmatrix`/`wmma.load`/`wmma.store`: the address.
    pub addr: Option<Addr>,
    /// `wmma.load`/`wmma.store`: the stride in elements (`None`: the matrix's width in
    /// its layout).
    pub stride: Option<Slot>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum MatrixKind {
    /// `mma.sync.aligned.mMnNkK.row.col{.satfinite}.D.A.B.C`.
    Mma {
        m: u8,
        n: u8,
        k: u8,
        a: MatElem,
        b: MatElem,
        c: MatElem,
        d: MatElem,
        satfinite: bool,
    },
    /// `ldmatrix.sync.aligned.m8n8.xN{.trans}.shared.b16`.
    Ldmatrix { count: u8, trans: bool },
    /// `stmatrix.sync.aligned.m8n8.xN{.trans}.shared.b16`.
    Stmatrix { count: u8, trans: bool },
    /// `wmma.load.{a,b,c}` (into `d`) or `wmma.store.d` (from `a`) of fragment `frag`
    /// in `space`, the matrix stored column by column if `col` (else row by row).
    Wmma {
        load: bool,
        frag: WmmaFrag,
        space: warpcheck_ir::modifiers::MemSpace,
        col: bool,
    },
    /// `wmma.mma.sync.aligned.alayout.blayout.shape.D.A.B.C` (the layouts do not change
    /// the fragments).
    WmmaMma {
        m: u8,
        n: u8,
        k: u8,
        a: MatElem,
        b: MatElem,
        c: MatElem,
        d: MatElem,
        satfinite: bool,
    },
}

/// One `wmma` fragment kind: which matrix (0 = A, 1 = B, 2 = C/D), the shape and the
/// element type.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct WmmaFrag {
    pub which: u8,
    pub m: u8,
    pub n: u8,
    pub k: u8,
    pub e: MatElem,
}

/// An `mbarrier` operation on the object at `addr` (see `crate::exec::mbarrier`).
#[derive(Clone, Copy, Debug)]
pub(crate) struct MbarrierOp {
    pub kind: MbarrierKind,
    pub addr: Addr,
    /// The instruction's space (`.shared` or generic).
    pub space: warpcheck_ir::modifiers::MemSpace,
    /// The destination: state token (arrive), completion predicate (waits), count.
    pub d: Dst,
    /// The value operand: count (init, arrive), transaction bytes, token or parity.
    pub v: Option<Slot>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum MbarrierKind {
    Init,
    Inval,
    Arrive {
        drop: bool,
        expect_tx: bool,
        no_complete: bool,
    },
    ExpectTx,
    CompleteTx,
    /// `test_wait` (`blocking: false`) or `try_wait`; `.parity` waits for a phase parity.
    Wait {
        parity: bool,
        blocking: bool,
    },
    PendingCount,
    /// `cp.async.mbarrier.arrive{.noinc}`.
    CpAsyncArrive {
        noinc: bool,
    },
}

/// A call: where arguments come from and results go.
#[derive(Clone, Debug)]
pub(crate) struct CallOp {
    pub target: CallTarget,
    /// Arguments, in order.
    pub args: Vec<ArgSrc>,
    /// Return values, in order: frame offsets (in the caller's frame) of the
    /// call-sequence `.param` variables that receive them, with their sizes; or a
    /// register.
    pub rets: Vec<ArgSrc>,
}

#[derive(Clone, Debug)]
pub(crate) enum CallTarget {
    /// A function with a body: its entry pc and its index in the flat function table.
    Body { func: u32 },
    /// A declared-only function that the emulator implements natively.
    Native(crate::calls::Native),
    /// An indirect call through a register holding a function address.
    Indirect(Slot),
}

/// An argument or return value of a call.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum ArgSrc {
    /// A call-sequence `.param` variable of the caller's frame.
    Frame { offset: u64, size: u32 },
    /// A register (or constant slot) of `size` bytes.
    Reg { slot: Slot, size: u32 },
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ops_stay_small() {
        assert!(
            std::mem::size_of::<OpKind>() <= 48,
            "{}",
            std::mem::size_of::<OpKind>()
        );
    }
}
