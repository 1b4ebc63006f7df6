//! The instruction table: every PTX instruction warpcheck understands, in one place.
//!
//! Each entry names the instruction's spellings, its section in the PTX ISA manual, its
//! modifiers (as typed fields, in the order the manual writes them), its operand
//! signature and the rules that valid modifier combinations obey. The `isa!` macro
//! (in `isa_macros.rs`) turns the table into
//!
//! * [`Op`], the decoded instruction the emulator and analyses match on,
//! * [`Opcode::decode_modifiers`], the decoder of the modifier tokens,
//! * [`Op::modifiers`], their printer, and
//! * [`Op::slots`], the operand signature from which the def/use visitor
//!   ([`crate::defuse`]) and the operand checks of the decoder follow.
//!
//! Section numbers follow PTX ISA 8.3 (CUDA 12.3); numbering shifts between releases, so
//! each reference also carries the manual's anchor, which is stable
//! (`https://docs.nvidia.com/cuda/parallel-thread-execution/#<anchor>`).
//!
//! Coverage: everything clang 14–19 and nvcc 12 emit for ordinary CUDA kernels at -O0 and
//! -O3 (memory, arithmetic, conversion, comparison, bit manipulation, control flow,
//! barriers, fences, atomics, warp-level intrinsics), bf16 and FP8 (`.e4m3x2`, `.e5m2x2`)
//! conversions, `cp.async` with its groups, and texture/surface loads, which decode but
//! which the emulator does not execute.

use std::collections::HashMap;
use std::sync::OnceLock;

use crate::modifiers::*;
use crate::operand::Class::{
    Address, BranchTable, CallTarget, Data, Fragment, Image, Imm, Label, ParamList,
    Pred as PredReg, PredPair, Prototype, Reg, RegPredPair, Value,
};
use crate::operand::{Slot, def, opt_def, opt_src, src};
use crate::types::Type::{self, *};

/// A reference into the PTX ISA manual.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct IsaRef {
    /// Section number in PTX ISA 8.3, e.g. `9.7.8.8`.
    pub section: &'static str,
    /// The manual's anchor, e.g. `data-movement-and-conversion-instructions-ld`.
    pub anchor: &'static str,
}

impl IsaRef {
    pub fn url(&self) -> String {
        format!(
            "https://docs.nvidia.com/cuda/parallel-thread-execution/#{}",
            self.anchor
        )
    }
}

/// Static facts about one opcode.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct OpcodeInfo {
    pub opcode: Opcode,
    /// Canonical spelling, e.g. `barrier` or `bar.warp.sync`.
    pub name: &'static str,
    pub summary: &'static str,
    pub refs: &'static [IsaRef],
}

impl OpcodeInfo {
    /// `§9.7.1.1, §9.7.3.3` — for diagnostics.
    pub fn sections(&self) -> String {
        self.refs
            .iter()
            .map(|r| format!("§{}", r.section))
            .collect::<Vec<_>>()
            .join(", ")
    }
}

/// One way of writing an opcode: the opcode and its fixed leading modifiers
/// (`bar.warp.sync`), and modifiers the spelling implies.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Spelling {
    pub key: &'static str,
    pub implies: &'static [&'static str],
    pub opcode: Opcode,
}

/// Why a modifier list does not decode. Positions index the token list given to
/// [`Opcode::decode_modifiers`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ModifierError {
    /// No field of the instruction accepts the token.
    Unsupported { position: usize },
    /// The token belongs to a group that an earlier token already set.
    Conflict {
        position: usize,
        previous: &'static str,
    },
    /// A required modifier is missing.
    Missing {
        what: &'static str,
        expected: Vec<&'static str>,
    },
    /// Each modifier is valid, but not in this combination.
    Combination(String),
}

#[doc(hidden)]
pub enum Accept {
    Taken,
    Filled(&'static str),
    No,
}

#[doc(hidden)]
pub fn accept_modifier<M: Modifier>(state: &mut Option<M>, token: &str) -> Accept {
    match M::from_spelling(token) {
        Some(value) => match state {
            Some(previous) => Accept::Filled(previous.spelling()),
            None => {
                *state = Some(value);
                Accept::Taken
            }
        },
        None => Accept::No,
    }
}

#[doc(hidden)]
pub fn accept_type(state: &mut Option<Type>, token: &str) -> Accept {
    match Type::from_name(token) {
        Some(ty) => match state {
            Some(previous) => Accept::Filled(previous.name()),
            None => {
                *state = Some(ty);
                Accept::Taken
            }
        },
        None => Accept::No,
    }
}

/// Finds the spelling of `opcode` followed by a prefix of `modifiers` that has the most
/// fixed tokens (`bar` + `warp.sync` is `bar.warp.sync`, `bar` + `sync` is `bar`).
/// Returns the spelling and how many leading modifiers it consumed.
pub fn lookup(opcode: &str, modifiers: &[&str]) -> Option<(&'static Spelling, usize)> {
    static BY_FIRST: OnceLock<HashMap<&'static str, Vec<&'static Spelling>>> = OnceLock::new();
    let table = BY_FIRST.get_or_init(|| {
        let mut map: HashMap<&'static str, Vec<&'static Spelling>> = HashMap::new();
        for s in SPELLINGS {
            let first = s.key.split('.').next().unwrap_or(s.key);
            map.entry(first).or_default().push(s);
        }
        map
    });
    let mut best: Option<(&'static Spelling, usize)> = None;
    for &spelling in table.get(opcode)? {
        let fixed: Vec<&str> = spelling.key.split('.').skip(1).collect();
        let matches =
            fixed.len() <= modifiers.len() && fixed.iter().zip(modifiers).all(|(a, b)| a == b);
        if matches && best.is_none_or(|(_, n)| fixed.len() > n) {
            best = Some((spelling, fixed.len()));
        }
    }
    best
}

/// The spellings whose first token is `opcode`, for "did you mean" help.
pub fn spellings_of(opcode: &str) -> Vec<&'static str> {
    SPELLINGS
        .iter()
        .filter(|s| s.key.split('.').next() == Some(opcode))
        .map(|s| s.key)
        .collect()
}

// ---------------------------------------------------------------------------------------
// Helpers for the `check` expressions of the table.

type Check = Result<(), String>;

fn ensure(condition: bool, message: &str) -> Check {
    if condition {
        Ok(())
    } else {
        Err(message.to_string())
    }
}

fn forbid(present: bool, spelling: &str, reason: &str) -> Check {
    if present {
        Err(format!("`.{spelling}` {reason}"))
    } else {
        Ok(())
    }
}

fn forbid_opt<M: Modifier>(value: Option<M>, reason: &str) -> Check {
    match value {
        Some(m) => Err(format!("`.{}` {reason}", m.spelling())),
        None => Ok(()),
    }
}

fn types(ty: Type, allowed: &[Type]) -> Check {
    if allowed.contains(&ty) {
        Ok(())
    } else {
        let list: Vec<String> = allowed.iter().map(|t| format!(".{t}")).collect();
        Err(format!(
            "type `.{ty}` is not supported here; expected one of {}",
            list.join(" ")
        ))
    }
}

const INTS_16_64: &[Type] = &[B16, B32, B64, U16, U32, U64, S16, S32, S64];
const INTS_32_64: &[Type] = &[B32, B64, U32, U64, S32, S64];
const SIGNED_16_64: &[Type] = &[S16, S32, S64];
const FLOATS: &[Type] = &[F32, F64, F16, F16x2, Bf16, Bf16x2];
const F32_F64: &[Type] = &[F32, F64];
const BITS_32_64: &[Type] = &[B32, B64];

/// Rounding modes valid for arithmetic (`.rna` is for `cvt` only).
fn arith_rounding(rounding: Option<RoundingMode>) -> Check {
    match rounding {
        Some(RoundingMode::Rna) => Err("`.rna` is only valid on `cvt`".into()),
        _ => Ok(()),
    }
}

/// Integer-only instructions reject every float modifier.
fn no_float_modifiers(rounding: Option<RoundingMode>, ftz: bool) -> Check {
    forbid_opt(rounding, "applies only to floating-point types")?;
    forbid(ftz, "ftz", "applies only to floating-point types")
}

/// The float modifiers of §9.7.3 and §9.7.4: `.ftz` for f32 and the half types, `.sat`
/// for f32 and f16/f16x2; f64 takes neither.
fn float_modifiers(ty: Type, rounding: Option<RoundingMode>, ftz: bool, sat: bool) -> Check {
    types(ty, FLOATS)?;
    arith_rounding(rounding)?;
    if ty == F64 {
        forbid(ftz, "ftz", "is not supported with `.f64`")?;
        forbid(sat, "sat", "is not supported with `.f64`")?;
    }
    if matches!(ty, Bf16 | Bf16x2) {
        forbid(sat, "sat", "is not supported with bf16 types")?;
    }
    Ok(())
}

/// `add`/`sub` (§9.7.1.1, §9.7.3.3, §9.7.4.1, §9.7.2.1).
fn check_add_sub(
    ty: Type,
    rounding: Option<RoundingMode>,
    ftz: bool,
    sat: bool,
    cc: bool,
) -> Check {
    if ty.is_integer() {
        types(ty, INTS_16_64)?;
        no_float_modifiers(rounding, ftz)?;
        if sat {
            ensure(ty == S32, "`.sat` is only supported with `.s32`")?;
        }
        if cc {
            types(ty, INTS_32_64)?;
            forbid(sat, "sat", "cannot be combined with `.cc`")?;
        }
        Ok(())
    } else {
        forbid(cc, "cc", "applies only to integer types")?;
        float_modifiers(ty, rounding, ftz, sat)
    }
}

/// `mul`/`mad` (§9.7.1.3–4, §9.7.3.5, §9.7.3.7, §9.7.4.3).
fn check_mul_mad(
    ty: Type,
    mode: Option<MulMode>,
    rounding: Option<RoundingMode>,
    ftz: bool,
    sat: bool,
    cc: bool,
    is_mad: bool,
) -> Check {
    if ty.is_integer() {
        types(ty, INTS_16_64)?;
        no_float_modifiers(rounding, ftz)?;
        let Some(mode) = mode else {
            return Err("integer multiplication needs `.lo`, `.hi` or `.wide`".into());
        };
        if mode == MulMode::Wide {
            ensure(
                ty.bits() <= 32,
                "`.wide` is only supported with 16- and 32-bit types",
            )?;
        }
        if sat {
            ensure(
                is_mad && mode == MulMode::Hi && ty == S32,
                "`.sat` is only supported as `mad.hi.sat.s32`",
            )?;
        }
        if cc {
            ensure(is_mad, "`.cc` is not supported on `mul`")?;
            types(ty, INTS_32_64)?;
        }
        Ok(())
    } else {
        forbid_opt(mode, "applies only to integer types")?;
        forbid(cc, "cc", "applies only to integer types")?;
        float_modifiers(ty, rounding, ftz, sat)?;
        if is_mad {
            ensure(
                rounding.is_some(),
                "floating-point `mad` needs a rounding modifier (`.rn`, `.rz`, `.rm`, `.rp`); the unrounded form exists only for sm_1x",
            )?;
        }
        Ok(())
    }
}

/// `min`/`max` (§9.7.1.12–13, §9.7.3.11–12, §9.7.4.7–8).
fn check_min_max(ty: Type, ftz: bool, nan: bool, xorsign: bool, abs: bool, relu: bool) -> Check {
    if ty.is_integer() {
        types(ty, INTS_16_64)?;
        forbid(ftz, "ftz", "applies only to floating-point types")?;
        forbid(nan, "NaN", "applies only to floating-point types")?;
        forbid(xorsign, "xorsign", "applies only to floating-point types")?;
        forbid(abs, "abs", "applies only to floating-point types")?;
        if relu {
            ensure(
                ty == S32,
                "`.relu` on integers is only supported with `.s32`",
            )?;
        }
        Ok(())
    } else {
        types(ty, FLOATS)?;
        ensure(xorsign == abs, "`.xorsign` and `.abs` go together")?;
        if ty == F64 {
            forbid(ftz, "ftz", "is not supported with `.f64`")?;
            forbid(nan, "NaN", "is not supported with `.f64`")?;
        }
        forbid(
            relu && ty.is_float() && !ty.is_half(),
            "relu",
            "is only supported with half types",
        )
    }
}

/// `rcp`/`sqrt` (§9.7.3.13–15): f32 takes `.approx` or a rounding mode, f64 a rounding
/// mode, or `.approx.ftz` for `rcp`.
fn check_rcp_sqrt(
    ty: Type,
    approx: bool,
    rounding: Option<RoundingMode>,
    ftz: bool,
    is_rcp: bool,
) -> Check {
    types(ty, F32_F64)?;
    arith_rounding(rounding)?;
    ensure(
        approx != rounding.is_some(),
        "needs exactly one of `.approx` and a rounding modifier",
    )?;
    if ty == F64 && approx {
        ensure(
            is_rcp && ftz,
            "the only approximate f64 form is `rcp.approx.ftz.f64`",
        )?;
    } else if ty == F64 {
        forbid(ftz, "ftz", "is not supported with `.f64`")?;
    }
    Ok(())
}

/// The approximate transcendental functions `sin`, `cos`, `lg2` (§9.7.3.18–20).
fn check_approx_f32(approx: bool, ty: Type) -> Check {
    ensure(approx, "only the `.approx` form exists")?;
    types(ty, &[F32])
}

/// `ld`/`st`/`ldu` memory-ordering rules (§9.7.8.8, §8.4).
fn check_memory_order(
    order: Option<MemOrder>,
    scope: Option<MemScope>,
    space: MemSpace,
    cache: Option<CacheOperator>,
    is_load: bool,
) -> Check {
    use MemOrder::*;
    match order {
        None | Some(Weak) => forbid_opt(scope, "needs `.relaxed`, `.acquire` or `.release`")?,
        Some(Volatile) => {
            forbid_opt(scope, "cannot be combined with `.volatile`")?;
            forbid_opt(cache, "cannot be combined with `.volatile`")?;
        }
        Some(Relaxed) | Some(Acquire) | Some(Release) => {
            ensure(
                scope.is_some(),
                "`.relaxed`, `.acquire` and `.release` need a scope (`.cta`, `.cluster`, `.gpu`, `.sys`)",
            )?;
            forbid_opt(cache, "cannot be combined with a memory-ordering modifier")?;
            if is_load {
                forbid(order == Some(Release), "release", "is not valid on a load")?;
            } else {
                forbid(order == Some(Acquire), "acquire", "is not valid on a store")?;
            }
        }
        Some(AcqRel) | Some(SeqCst) => {
            return Err(format!(
                "`.{}` is not valid on `ld`/`st`",
                order.map_or("", |o| o.spelling())
            ));
        }
    }
    match cache {
        Some(CacheOperator::Wb | CacheOperator::Wt) if is_load => {
            Err("`.wb` and `.wt` are store cache operators".into())
        }
        Some(CacheOperator::Ca | CacheOperator::Lu | CacheOperator::Cv) if !is_load => {
            Err("`.ca`, `.lu` and `.cv` are load cache operators".into())
        }
        _ => forbid(
            space == MemSpace::Param && order.is_some_and(|o| o != Weak),
            "param",
            "cannot be combined with a memory-ordering modifier",
        ),
    }
}

/// `atom`/`red` (§9.7.12.5–6): operation and type combinations.
fn check_atomic(
    order: Option<MemOrder>,
    space: MemSpace,
    op: AtomOp,
    noftz: bool,
    ty: Type,
    is_red: bool,
) -> Check {
    use AtomOp::*;
    if let Some(order) = order {
        ensure(
            matches!(
                order,
                MemOrder::Relaxed | MemOrder::Acquire | MemOrder::Release | MemOrder::AcqRel
            ),
            "atomics take `.relaxed`, `.acquire`, `.release` or `.acq_rel`",
        )?;
    }
    ensure(
        matches!(
            space,
            MemSpace::Generic | MemSpace::Global | MemSpace::Shared | MemSpace::SharedCluster
        ),
        "atomics operate on generic, `.global` or `.shared` memory",
    )?;
    if is_red {
        ensure(
            !matches!(op, Cas | Exch),
            "`red` does not support `.cas` or `.exch`; use `atom`",
        )?;
    }
    match op {
        And | Or | Xor => types(ty, BITS_32_64)?,
        Cas => types(ty, &[B16, B32, B64])?,
        Exch => types(ty, &[B32, B64])?,
        Inc | Dec => types(ty, &[U32])?,
        Min | Max => types(ty, &[U32, U64, S32, S64, F16, F16x2, Bf16, Bf16x2])?,
        Add => types(ty, &[U32, U64, S32, F32, F64, F16, F16x2, Bf16, Bf16x2])?,
    }
    if ty.is_half() {
        ensure(
            noftz || op != Add,
            "half-precision `atom.add` must be written `.add.noftz`",
        )?;
    } else {
        forbid(noftz, "noftz", "applies only to half-precision types")?;
    }
    Ok(())
}

/// `cvt` (§9.7.8.20): which rounding each direction needs.
fn check_cvt(
    irnd: Option<IntRounding>,
    rounding: Option<RoundingMode>,
    ftz: bool,
    relu: bool,
    satfinite: bool,
    dst: Type,
    src: Type,
) -> Check {
    ensure(
        !dst.is_pred() && !src.is_pred(),
        "`cvt` does not convert predicates; use `selp` or `setp`",
    )?;
    ensure(
        irnd.is_none() || rounding.is_none(),
        "at most one rounding modifier",
    )?;
    forbid(
        ftz && !(dst == F32 || src == F32),
        "ftz",
        "applies only to conversions from or to `.f32`",
    )?;
    if rounding == Some(RoundingMode::Rna) {
        ensure(
            dst == Tf32,
            "`.rna` is only valid for conversions to `.tf32`",
        )?;
    }
    if dst.is_fp8x2() || src.is_fp8x2() {
        return check_cvt_fp8(irnd, rounding, ftz, satfinite, dst, src);
    }
    if relu || satfinite {
        ensure(
            dst.is_half() || dst == Tf32,
            "`.relu` and `.satfinite` are only valid for conversions to half types or tf32",
        )?;
    }
    match (dst.is_float(), src.is_float()) {
        (true, true) => {
            if dst.bits() < src.bits() || dst.is_packed() || dst == Tf32 {
                ensure(
                    rounding.is_some(),
                    "narrowing float conversions need a rounding modifier (`.rn`, `.rz`, `.rm`, `.rp`)",
                )?;
            } else if dst.bits() > src.bits() {
                ensure(
                    rounding.is_none() && irnd.is_none(),
                    "widening float conversions are exact and take no rounding modifier",
                )?;
            } else {
                forbid_opt(
                    rounding,
                    "is not valid for same-size float conversions; use `.rni`, `.rzi`, `.rmi` or `.rpi`",
                )?;
            }
        }
        (true, false) => {
            ensure(
                rounding.is_some(),
                "integer-to-float conversions need a rounding modifier (`.rn`, `.rz`, `.rm`, `.rp`)",
            )?;
        }
        (false, true) => {
            ensure(
                irnd.is_some(),
                "float-to-integer conversions need an integer rounding modifier (`.rni`, `.rzi`, `.rmi`, `.rpi`)",
            )?;
        }
        (false, false) => {
            ensure(
                irnd.is_none() && rounding.is_none(),
                "integer conversions take no rounding modifier",
            )?;
        }
    }
    Ok(())
}

/// The FP8 forms of `cvt` (§9.7.8.20): `cvt.rn.satfinite{.relu}.f8x2.f32 d, a, b`,
/// `cvt.rn.satfinite{.relu}.f8x2.f16x2 d, a` and `cvt.rn{.relu}.f16x2.f8x2 d, a`.
fn check_cvt_fp8(
    irnd: Option<IntRounding>,
    rounding: Option<RoundingMode>,
    ftz: bool,
    satfinite: bool,
    dst: Type,
    src: Type,
) -> Check {
    forbid_opt(irnd, "is not valid for FP8 conversions")?;
    forbid(ftz, "ftz", "is not valid for FP8 conversions")?;
    ensure(
        rounding == Some(RoundingMode::Rn),
        "FP8 conversions need `.rn`",
    )?;
    if dst.is_fp8x2() {
        types(src, &[F32, F16x2])?;
        ensure(satfinite, "conversions to FP8 need `.satfinite`")
    } else {
        types(dst, &[F16x2])?;
        forbid(
            satfinite,
            "satfinite",
            "is not valid for conversions from FP8",
        )
    }
}

/// `mbarrier` objects live in shared memory (or are reached by a generic address).
fn mbarrier_space(space: MemSpace) -> Check {
    ensure(
        matches!(
            space,
            MemSpace::Generic | MemSpace::Shared | MemSpace::SharedCluster
        ),
        "`mbarrier` objects are in shared memory",
    )
}

/// `mbarrier.arrive`/`arrive_drop` (§9.7.12.15.13–14).
fn check_mbarrier_arrive(
    expect_tx: bool,
    order: Option<MemOrder>,
    space: MemSpace,
    ty: Type,
) -> Check {
    types(ty, &[B64])?;
    mbarrier_space(space)?;
    if let Some(o) = order {
        ensure(
            matches!(o, MemOrder::Release | MemOrder::Relaxed),
            "`mbarrier.arrive` takes `.release` or `.relaxed`",
        )?;
    }
    let _ = expect_tx;
    Ok(())
}

// ---------------------------------------------------------------------------------------
// Operand signatures shared by many entries.

const UNARY: &[Slot] = &[def(Reg), src(Value)];
const BINARY: &[Slot] = &[def(Reg), src(Value), src(Value)];
const TERNARY: &[Slot] = &[def(Reg), src(Value), src(Value), src(Value)];
const NONE: &[Slot] = &[];

// ---------------------------------------------------------------------------------------
// The table.

isa! {
    // ===== §9.7.1–2 Integer and extended-precision arithmetic (and their float twins) ====
    Add {
        summary: "Addition: `d = a + b` (integer, float, half; `.cc` writes the carry flag).",
        spell: ["add"],
        refs: [
            ("9.7.1.1", "integer-arithmetic-instructions-add"),
            ("9.7.3.3", "floating-point-instructions-add"),
            ("9.7.4.1", "half-precision-floating-point-instructions-add"),
            ("9.7.2.1", "extended-precision-arithmetic-instructions-add-cc"),
        ],
        fields: { cc: flag("cc"), rounding: opt(RoundingMode), ftz: flag("ftz"), sat: flag("sat"), ty: ty() },
        operands: BINARY,
        check: check_add_sub(ty, rounding, ftz, sat, cc),
    }
    Sub {
        summary: "Subtraction: `d = a - b` (integer, float, half; `.cc` writes the carry flag).",
        spell: ["sub"],
        refs: [
            ("9.7.1.2", "integer-arithmetic-instructions-sub"),
            ("9.7.3.4", "floating-point-instructions-sub"),
            ("9.7.4.2", "half-precision-floating-point-instructions-sub"),
            ("9.7.2.3", "extended-precision-arithmetic-instructions-sub-cc"),
        ],
        fields: { cc: flag("cc"), rounding: opt(RoundingMode), ftz: flag("ftz"), sat: flag("sat"), ty: ty() },
        operands: BINARY,
        check: check_add_sub(ty, rounding, ftz, sat, cc),
    }
    AddC {
        summary: "Addition with carry-in: `d = a + b + CC.CF` (`.cc` also writes the carry flag).",
        spell: ["addc"],
        refs: [("9.7.2.2", "extended-precision-arithmetic-instructions-addc")],
        fields: { cc: flag("cc"), ty: ty() },
        operands: BINARY,
        check: types(ty, INTS_32_64),
    }
    SubC {
        summary: "Subtraction with borrow-in: `d = a - (b + CC.CF)`.",
        spell: ["subc"],
        refs: [("9.7.2.4", "extended-precision-arithmetic-instructions-subc")],
        fields: { cc: flag("cc"), ty: ty() },
        operands: BINARY,
        check: types(ty, INTS_32_64),
    }
    Mul {
        summary: "Multiplication; integers keep the `.lo`, `.hi` half or the `.wide` product.",
        spell: ["mul"],
        refs: [
            ("9.7.1.3", "integer-arithmetic-instructions-mul"),
            ("9.7.3.5", "floating-point-instructions-mul"),
            ("9.7.4.3", "half-precision-floating-point-instructions-mul"),
        ],
        fields: { mode: opt(MulMode), rounding: opt(RoundingMode), ftz: flag("ftz"), sat: flag("sat"), ty: ty() },
        operands: BINARY,
        check: check_mul_mad(ty, mode, rounding, ftz, sat, false, false),
    }
    Mad {
        summary: "Multiply-add: `d = a * b + c` (float `mad` with rounding is a fused multiply-add).",
        spell: ["mad"],
        refs: [
            ("9.7.1.4", "integer-arithmetic-instructions-mad"),
            ("9.7.3.7", "floating-point-instructions-mad"),
            ("9.7.2.5", "extended-precision-arithmetic-instructions-mad-cc"),
        ],
        fields: { mode: opt(MulMode), cc: flag("cc"), rounding: opt(RoundingMode), ftz: flag("ftz"), sat: flag("sat"), ty: ty() },
        operands: TERNARY,
        check: check_mul_mad(ty, mode, rounding, ftz, sat, cc, true),
    }
    MadC {
        summary: "Multiply-add with carry-in: `d = a * b + c + CC.CF`.",
        spell: ["madc"],
        refs: [("9.7.2.6", "extended-precision-arithmetic-instructions-madc")],
        fields: { mode: req(Mul24Mode), cc: flag("cc"), ty: ty() },
        operands: TERNARY,
        check: types(ty, &[U32, S32, U64, S64]),
    }
    Mul24 {
        summary: "24-bit multiplication of the low 24 bits of `a` and `b`.",
        spell: ["mul24"],
        refs: [("9.7.1.5", "integer-arithmetic-instructions-mul24")],
        fields: { mode: req(Mul24Mode), ty: ty() },
        operands: BINARY,
        check: types(ty, &[U32, S32]),
    }
    Mad24 {
        summary: "24-bit multiply-add.",
        spell: ["mad24"],
        refs: [("9.7.1.6", "integer-arithmetic-instructions-mad24")],
        fields: { mode: req(Mul24Mode), sat: flag("sat"), ty: ty() },
        operands: TERNARY,
        check: {
            types(ty, &[U32, S32])
                .and_then(|()| forbid(sat && !(mode == Mul24Mode::Hi && ty == S32), "sat", "is only supported as `mad24.hi.sat.s32`"))
        },
    }
    Sad {
        summary: "Sum of absolute differences: `d = c + |a - b|`.",
        spell: ["sad"],
        refs: [("9.7.1.7", "integer-arithmetic-instructions-sad")],
        fields: { ty: ty() },
        operands: TERNARY,
        check: types(ty, &[U16, U32, U64, S16, S32, S64]),
    }
    Div {
        summary: "Division (integer; float with `.approx`, `.full` or a rounding mode).",
        spell: ["div"],
        refs: [("9.7.1.8", "integer-arithmetic-instructions-div"), ("9.7.3.8", "floating-point-instructions-div")],
        fields: { approx: flag("approx"), full: flag("full"), rounding: opt(RoundingMode), ftz: flag("ftz"), ty: ty() },
        operands: BINARY,
        check: {
            if ty.is_integer() {
                types(ty, INTS_16_64)
                    .and_then(|()| no_float_modifiers(rounding, ftz))
                    .and_then(|()| forbid(approx, "approx", "applies only to floating-point types"))
                    .and_then(|()| forbid(full, "full", "applies only to floating-point types"))
            } else {
                types(ty, F32_F64)
                    .and_then(|()| arith_rounding(rounding))
                    .and_then(|()| ensure(
                        [approx, full, rounding.is_some()].iter().filter(|&&b| b).count() == 1,
                        "floating-point `div` needs exactly one of `.approx`, `.full` and a rounding modifier",
                    ))
                    .and_then(|()| if ty == F64 {
                        ensure(rounding.is_some(), "`div.f64` needs a rounding modifier")
                            .and_then(|()| forbid(ftz, "ftz", "is not supported with `.f64`"))
                    } else { Ok(()) })
            }
        },
    }
    Rem {
        summary: "Integer remainder.",
        spell: ["rem"],
        refs: [("9.7.1.9", "integer-arithmetic-instructions-rem")],
        fields: { ty: ty() },
        operands: BINARY,
        check: types(ty, INTS_16_64),
    }
    Abs {
        summary: "Absolute value.",
        spell: ["abs"],
        refs: [
            ("9.7.1.10", "integer-arithmetic-instructions-abs"),
            ("9.7.3.9", "floating-point-instructions-abs"),
            ("9.7.4.6", "half-precision-floating-point-instructions-abs"),
        ],
        fields: { ftz: flag("ftz"), ty: ty() },
        operands: UNARY,
        check: if ty.is_integer() { types(ty, SIGNED_16_64).and_then(|()| no_float_modifiers(None, ftz)) } else { float_modifiers(ty, None, ftz, false) },
    }
    Neg {
        summary: "Negation.",
        spell: ["neg"],
        refs: [
            ("9.7.1.11", "integer-arithmetic-instructions-neg"),
            ("9.7.3.10", "floating-point-instructions-neg"),
            ("9.7.4.5", "half-precision-floating-point-instructions-neg"),
        ],
        fields: { ftz: flag("ftz"), ty: ty() },
        operands: UNARY,
        check: if ty.is_integer() { types(ty, SIGNED_16_64).and_then(|()| no_float_modifiers(None, ftz)) } else { float_modifiers(ty, None, ftz, false) },
    }
    Min {
        summary: "Minimum (`.NaN` propagates NaNs; `.relu` clamps at zero).",
        spell: ["min"],
        refs: [
            ("9.7.1.12", "integer-arithmetic-instructions-min"),
            ("9.7.3.11", "floating-point-instructions-min"),
            ("9.7.4.7", "half-precision-floating-point-instructions-min"),
        ],
        fields: { relu: flag("relu"), ftz: flag("ftz"), nan: flag("NaN"), xorsign: flag("xorsign"), abs: flag("abs"), ty: ty() },
        operands: BINARY,
        check: check_min_max(ty, ftz, nan, xorsign, abs, relu),
    }
    Max {
        summary: "Maximum (`.NaN` propagates NaNs; `.relu` clamps at zero).",
        spell: ["max"],
        refs: [
            ("9.7.1.13", "integer-arithmetic-instructions-max"),
            ("9.7.3.12", "floating-point-instructions-max"),
            ("9.7.4.8", "half-precision-floating-point-instructions-max"),
        ],
        fields: { relu: flag("relu"), ftz: flag("ftz"), nan: flag("NaN"), xorsign: flag("xorsign"), abs: flag("abs"), ty: ty() },
        operands: BINARY,
        check: check_min_max(ty, ftz, nan, xorsign, abs, relu),
    }
    Popc {
        summary: "Population count; the destination is always `.u32`.",
        spell: ["popc"],
        refs: [("9.7.1.14", "integer-arithmetic-instructions-popc")],
        fields: { ty: ty() },
        operands: UNARY,
        check: types(ty, BITS_32_64),
    }
    Clz {
        summary: "Count leading zeros; the destination is always `.u32`.",
        spell: ["clz"],
        refs: [("9.7.1.15", "integer-arithmetic-instructions-clz")],
        fields: { ty: ty() },
        operands: UNARY,
        check: types(ty, BITS_32_64),
    }
    Bfind {
        summary: "Position of the most significant non-sign bit (`0xffffffff` if none).",
        spell: ["bfind"],
        refs: [("9.7.1.16", "integer-arithmetic-instructions-bfind")],
        fields: { shiftamt: flag("shiftamt"), ty: ty() },
        operands: UNARY,
        check: types(ty, &[U32, U64, S32, S64]),
    }
    Fns {
        summary: "Find the n-th set bit: `fns.b32 d, mask, base, offset`.",
        spell: ["fns"],
        refs: [("9.7.1.17", "integer-arithmetic-instructions-fns")],
        fields: { ty: ty() },
        operands: TERNARY,
        check: types(ty, &[B32]),
    }
    Brev {
        summary: "Bit reverse.",
        spell: ["brev"],
        refs: [("9.7.1.18", "integer-arithmetic-instructions-brev")],
        fields: { ty: ty() },
        operands: UNARY,
        check: types(ty, BITS_32_64),
    }
    Bfe {
        summary: "Bit-field extract: `bfe d, a, pos, len` (sign-extends for signed types).",
        spell: ["bfe"],
        refs: [("9.7.1.19", "integer-arithmetic-instructions-bfe")],
        fields: { ty: ty() },
        operands: TERNARY,
        check: types(ty, &[U32, U64, S32, S64]),
    }
    Bfi {
        summary: "Bit-field insert: `bfi f, a, b, pos, len` inserts `a` into `b`.",
        spell: ["bfi"],
        refs: [("9.7.1.20", "integer-arithmetic-instructions-bfi")],
        fields: { ty: ty() },
        operands: const { &[def(Reg), src(Value), src(Value), src(Value), src(Value)] },
        check: types(ty, BITS_32_64),
    }
    Bmsk {
        summary: "Bit-field mask: `bmsk.mode.b32 d, a, b` sets bits `a` to `a + b - 1`.",
        spell: ["bmsk"],
        refs: [("9.7.1.22", "integer-arithmetic-instructions-bmsk")],
        fields: { mode: req(BmskMode), ty: ty() },
        operands: BINARY,
        check: types(ty, &[B32]),
    }
    Dp4a {
        summary: "Four-way byte dot product with 32-bit accumulate.",
        spell: ["dp4a"],
        refs: [("9.7.1.23", "integer-arithmetic-instructions-dp4a")],
        fields: { atype: ty(), btype: ty() },
        operands: TERNARY,
        check: types(atype, &[U32, S32]).and_then(|()| types(btype, &[U32, S32])),
    }
    Dp2a {
        summary: "Two-way 16-bit by 8-bit dot product with 32-bit accumulate.",
        spell: ["dp2a"],
        refs: [("9.7.1.24", "integer-arithmetic-instructions-dp2a")],
        fields: { mode: req(Dp2aMode), atype: ty(), btype: ty() },
        operands: TERNARY,
        check: types(atype, &[U32, S32]).and_then(|()| types(btype, &[U32, S32])),
    }

    // ===== §9.7.3–4 Floating point =====================================================
    Testp {
        summary: "Test a float's class into a predicate.",
        spell: ["testp"],
        refs: [("9.7.3.1", "floating-point-instructions-testp")],
        fields: { op: req(TestpOp), ty: ty() },
        operands: const { &[def(PredReg), src(Value)] },
        check: types(ty, F32_F64),
    }
    Copysign {
        summary: "`d = |b|` with the sign of `a`.",
        spell: ["copysign"],
        refs: [("9.7.3.2", "floating-point-instructions-copysign")],
        fields: { ty: ty() },
        operands: BINARY,
        check: types(ty, F32_F64),
    }
    Fma {
        summary: "Fused multiply-add `d = a * b + c` with one rounding.",
        spell: ["fma"],
        refs: [("9.7.3.6", "floating-point-instructions-fma"), ("9.7.4.4", "half-precision-floating-point-instructions-fma")],
        fields: { rounding: opt(RoundingMode), ftz: flag("ftz"), sat: flag("sat"), relu: flag("relu"), ty: ty() },
        operands: TERNARY,
        check: {
            float_modifiers(ty, rounding, ftz, sat)
                .and_then(|()| ensure(rounding.is_some(), "`fma` needs a rounding modifier (`.rn`, `.rz`, `.rm`, `.rp`)"))
                .and_then(|()| forbid(relu && !ty.is_half(), "relu", "is only supported with half types"))
        },
    }
    Rcp {
        summary: "Reciprocal `1/a`.",
        spell: ["rcp"],
        refs: [("9.7.3.13", "floating-point-instructions-rcp"), ("9.7.3.14", "floating-point-instructions-rcp-approx-ftz-f64")],
        fields: { approx: flag("approx"), rounding: opt(RoundingMode), ftz: flag("ftz"), ty: ty() },
        operands: UNARY,
        check: check_rcp_sqrt(ty, approx, rounding, ftz, true),
    }
    Sqrt {
        summary: "Square root.",
        spell: ["sqrt"],
        refs: [("9.7.3.15", "floating-point-instructions-sqrt")],
        fields: { approx: flag("approx"), rounding: opt(RoundingMode), ftz: flag("ftz"), ty: ty() },
        operands: UNARY,
        check: check_rcp_sqrt(ty, approx, rounding, ftz, false),
    }
    Rsqrt {
        summary: "Approximate reciprocal square root.",
        spell: ["rsqrt"],
        refs: [("9.7.3.16", "floating-point-instructions-rsqrt"), ("9.7.3.17", "floating-point-instructions-rsqrt-approx-ftz-f64")],
        fields: { approx: flag("approx"), ftz: flag("ftz"), ty: ty() },
        operands: UNARY,
        check: ensure(approx, "only the `.approx` form exists").and_then(|()| types(ty, F32_F64)),
    }
    Sin {
        summary: "Approximate sine.",
        spell: ["sin"],
        refs: [("9.7.3.18", "floating-point-instructions-sin")],
        fields: { approx: flag("approx"), ftz: flag("ftz"), ty: ty() },
        operands: UNARY,
        check: check_approx_f32(approx, ty),
    }
    Cos {
        summary: "Approximate cosine.",
        spell: ["cos"],
        refs: [("9.7.3.19", "floating-point-instructions-cos")],
        fields: { approx: flag("approx"), ftz: flag("ftz"), ty: ty() },
        operands: UNARY,
        check: check_approx_f32(approx, ty),
    }
    Lg2 {
        summary: "Approximate base-2 logarithm.",
        spell: ["lg2"],
        refs: [("9.7.3.20", "floating-point-instructions-lg2")],
        fields: { approx: flag("approx"), ftz: flag("ftz"), ty: ty() },
        operands: UNARY,
        check: check_approx_f32(approx, ty),
    }
    Ex2 {
        summary: "Approximate base-2 exponential.",
        spell: ["ex2"],
        refs: [("9.7.3.21", "floating-point-instructions-ex2"), ("9.7.4.10", "half-precision-floating-point-instructions-ex2")],
        fields: { approx: flag("approx"), ftz: flag("ftz"), ty: ty() },
        operands: UNARY,
        check: ensure(approx, "only the `.approx` form exists").and_then(|()| types(ty, &[F32, F16, F16x2, Bf16, Bf16x2])),
    }
    Tanh {
        summary: "Approximate hyperbolic tangent.",
        spell: ["tanh"],
        refs: [("9.7.3.22", "floating-point-instructions-tanh"), ("9.7.4.9", "half-precision-floating-point-instructions-tanh")],
        fields: { approx: flag("approx"), ty: ty() },
        operands: UNARY,
        check: ensure(approx, "only the `.approx` form exists").and_then(|()| types(ty, &[F32, F16, F16x2, Bf16, Bf16x2])),
    }

    // ===== §9.7.5–6 Comparison and selection ==========================================
    Set {
        summary: "Compare and write all-ones/1.0 or zero to `d`, optionally combined with a predicate.",
        spell: ["set"],
        refs: [("9.7.5.1", "comparison-and-selection-instructions-set"), ("9.7.6.1", "half-precision-comparison-instructions-set")],
        fields: { cmp: req(CmpOp), bool_op: opt(BoolOp), ftz: flag("ftz"), dty: ty(), sty: ty() },
        operands: if bool_op.is_some() { const { &[def(Reg), src(Value), src(Value), src(PredReg)] } } else { BINARY },
        check: types(dty, &[U32, S32, F32, F16, F16x2, Bf16, Bf16x2, B16, B32])
            .and_then(|()| ensure(!sty.is_pred(), "`set` compares values, not predicates")),
    }
    Setp {
        summary: "Compare into a predicate (`p|q` also writes the complement), optionally combined with a predicate.",
        spell: ["setp"],
        refs: [("9.7.5.2", "comparison-and-selection-instructions-setp"), ("9.7.6.2", "half-precision-comparison-instructions-setp")],
        fields: { cmp: req(CmpOp), bool_op: opt(BoolOp), ftz: flag("ftz"), ty: ty() },
        operands: if bool_op.is_some() { const { &[def(PredPair), src(Value), src(Value), src(PredReg)] } } else { const { &[def(PredPair), src(Value), src(Value)] } },
        check: {
            ensure(!ty.is_pred(), "`setp` compares values; combine predicates with `and`/`or`/`xor`")
                .and_then(|()| forbid(cmp.is_float_only() && !ty.is_float(), cmp.spelling(), "applies only to floating-point types"))
                .and_then(|()| forbid(cmp.is_unsigned_only() && (ty.is_float() || ty.is_signed()), cmp.spelling(), "applies only to unsigned and bit types"))
                .and_then(|()| forbid(ftz && !ty.is_float(), "ftz", "applies only to floating-point types"))
        },
    }
    Selp {
        summary: "Select: `d = c ? a : b`.",
        spell: ["selp"],
        refs: [("9.7.5.3", "comparison-and-selection-instructions-selp")],
        fields: { ty: ty() },
        operands: const { &[def(Reg), src(Value), src(Value), src(PredReg)] },
        check: ensure(!ty.is_pred(), "`selp.pred` does not exist; use `and`/`or`"),
    }
    Slct {
        summary: "Select on sign: `d = (c >= 0) ? a : b`.",
        spell: ["slct"],
        refs: [("9.7.5.4", "comparison-and-selection-instructions-slct")],
        fields: { ftz: flag("ftz"), dty: ty(), cty: ty() },
        operands: TERNARY,
        check: types(cty, &[S32, F32]),
    }

    // ===== §9.7.7 Logic and shift =====================================================
    And {
        summary: "Bitwise AND (also of predicates).",
        spell: ["and"],
        refs: [("9.7.7.1", "logic-and-shift-instructions-and")],
        fields: { ty: ty() },
        operands: BINARY,
        check: types(ty, &[Pred, B16, B32, B64]),
    }
    Or {
        summary: "Bitwise OR (also of predicates).",
        spell: ["or"],
        refs: [("9.7.7.2", "logic-and-shift-instructions-or")],
        fields: { ty: ty() },
        operands: BINARY,
        check: types(ty, &[Pred, B16, B32, B64]),
    }
    Xor {
        summary: "Bitwise XOR (also of predicates).",
        spell: ["xor"],
        refs: [("9.7.7.3", "logic-and-shift-instructions-xor")],
        fields: { ty: ty() },
        operands: BINARY,
        check: types(ty, &[Pred, B16, B32, B64]),
    }
    Not {
        summary: "Bitwise NOT (also of a predicate).",
        spell: ["not"],
        refs: [("9.7.7.4", "logic-and-shift-instructions-not")],
        fields: { ty: ty() },
        operands: UNARY,
        check: types(ty, &[Pred, B16, B32, B64]),
    }
    Cnot {
        summary: "C logical not: `d = (a == 0) ? 1 : 0`.",
        spell: ["cnot"],
        refs: [("9.7.7.5", "logic-and-shift-instructions-cnot")],
        fields: { ty: ty() },
        operands: UNARY,
        check: types(ty, &[B16, B32, B64]),
    }
    Lop3 {
        summary: "Arbitrary three-input logic function given by an 8-bit truth table.",
        spell: ["lop3"],
        refs: [("9.7.7.6", "logic-and-shift-instructions-lop3")],
        fields: { ty: ty() },
        operands: const { &[def(Reg), src(Value), src(Value), src(Value), src(Imm)] },
        check: types(ty, &[B32]),
    }
    Shf {
        summary: "Funnel shift of the 64-bit concatenation `b:a`.",
        spell: ["shf"],
        refs: [("9.7.7.7", "logic-and-shift-instructions-shf")],
        fields: { dir: req(ShfDirection), mode: req(ShfMode), ty: ty() },
        operands: TERNARY,
        check: types(ty, &[B32]),
    }
    Shl {
        summary: "Shift left (amounts above the width give zero).",
        spell: ["shl"],
        refs: [("9.7.7.8", "logic-and-shift-instructions-shl")],
        fields: { ty: ty() },
        operands: BINARY,
        check: types(ty, &[B16, B32, B64]),
    }
    Shr {
        summary: "Shift right: arithmetic for signed types, logical otherwise.",
        spell: ["shr"],
        refs: [("9.7.7.9", "logic-and-shift-instructions-shr")],
        fields: { ty: ty() },
        operands: BINARY,
        check: types(ty, INTS_16_64),
    }

    // ===== §9.7.8 Data movement and conversion ========================================
    Mov {
        summary: "Move a register, literal, special register or symbol address; with vectors, pack or unpack.",
        spell: ["mov"],
        refs: [("9.7.8.3", "data-movement-and-conversion-instructions-mov"), ("9.7.8.4", "data-movement-and-conversion-instructions-mov-2")],
        fields: { vec: opt(VecWidth), ty: ty() },
        operands: const { &[def(Data), src(Data)] },
        check: Ok(()),
    }
    ShflSync {
        summary: "Exchange a register between lanes of a warp (`d|p`: value and lane-in-range predicate).",
        spell: ["shfl.sync"],
        refs: [("9.7.8.6", "data-movement-and-conversion-instructions-shfl-sync")],
        fields: { mode: req(ShflMode), ty: ty() },
        operands: const { &[def(RegPredPair), src(Value), src(Value), src(Value), src(Value)] },
        check: types(ty, &[B32]),
    }
    Prmt {
        summary: "Permute bytes of the pair `b:a` by a selector.",
        spell: ["prmt"],
        refs: [("9.7.8.7", "data-movement-and-conversion-instructions-prmt")],
        fields: { ty: ty(), mode: opt(PrmtMode) },
        operands: TERNARY,
        check: types(ty, &[B32]),
    }
    Ld {
        summary: "Load from a state space (`.nc`: through the non-coherent read-only cache).",
        spell: ["ld"],
        refs: [("9.7.8.8", "data-movement-and-conversion-instructions-ld"), ("9.7.8.9", "data-movement-and-conversion-instructions-ld-global-nc")],
        fields: {
            mmio: flag("mmio"), order: opt(MemOrder), scope: opt(MemScope), space: dflt(MemSpace),
            cache: opt(CacheOperator), nc: flag("nc"), l1: opt(L1Eviction), l2: opt(L2Eviction),
            hint: flag("L2::cache_hint"), prefetch: opt(L2Prefetch), vec: opt(VecWidth), ty: ty(),
        },
        operands: if hint { const { &[def(Data), src(Address), src(Value)] } } else { const { &[def(Data), src(Address)] } },
        check: {
            check_memory_order(order, scope, space, cache, true)
                .and_then(|()| forbid(nc && space != MemSpace::Global, "nc", "is only valid with `.global`"))
                .and_then(|()| forbid(nc && order.is_some_and(|o| o != MemOrder::Weak), "nc", "cannot be combined with a memory-ordering modifier"))
                .and_then(|()| forbid(mmio && !(order == Some(MemOrder::Relaxed) && scope == Some(MemScope::Sys)), "mmio", "is only valid as `.mmio.relaxed.sys`"))
                .and_then(|()| ensure(!ty.is_pred(), "predicates cannot be loaded; load an integer and compare"))
        },
    }
    Ldu {
        summary: "Load a value that is the same for all threads of the warp (read-only).",
        spell: ["ldu"],
        refs: [("9.7.8.10", "data-movement-and-conversion-instructions-ldu")],
        fields: { space: dflt(MemSpace), vec: opt(VecWidth), ty: ty() },
        operands: const { &[def(Data), src(Address)] },
        check: ensure(matches!(space, MemSpace::Global | MemSpace::Generic), "`ldu` reads global memory"),
    }
    St {
        summary: "Store to a state space.",
        spell: ["st"],
        refs: [("9.7.8.11", "data-movement-and-conversion-instructions-st")],
        fields: {
            mmio: flag("mmio"), order: opt(MemOrder), scope: opt(MemScope), space: dflt(MemSpace),
            cache: opt(CacheOperator), l1: opt(L1Eviction), l2: opt(L2Eviction),
            hint: flag("L2::cache_hint"), vec: opt(VecWidth), ty: ty(),
        },
        operands: if hint { const { &[src(Address), src(Data), src(Value)] } } else { const { &[src(Address), src(Data)] } },
        check: {
            check_memory_order(order, scope, space, cache, false)
                .and_then(|()| forbid(space == MemSpace::Const, "const", "is read-only"))
                .and_then(|()| forbid(mmio && !(order == Some(MemOrder::Relaxed) && scope == Some(MemScope::Sys)), "mmio", "is only valid as `.mmio.relaxed.sys`"))
                .and_then(|()| ensure(!ty.is_pred(), "predicates cannot be stored; convert with `selp` first"))
        },
    }
    Prefetch {
        summary: "Prefetch a line into a cache level (a hint; no architectural effect).",
        spell: ["prefetch"],
        refs: [("9.7.8.14", "data-movement-and-conversion-instructions-prefetch-prefetchu")],
        fields: { space: dflt(MemSpace), level: req(PrefetchLevel) },
        operands: const { &[src(Address)] },
        check: ensure(matches!(space, MemSpace::Generic | MemSpace::Global | MemSpace::Local), "`prefetch` takes `.global`, `.local` or a generic address"),
    }
    Prefetchu {
        summary: "Prefetch a line into the uniform cache (a hint).",
        spell: ["prefetchu"],
        refs: [("9.7.8.14", "data-movement-and-conversion-instructions-prefetch-prefetchu")],
        fields: { level: req(PrefetchuLevel) },
        operands: const { &[src(Address)] },
        check: Ok(()),
    }
    Isspacep {
        summary: "Whether a generic address points into a state space.",
        spell: ["isspacep"],
        refs: [("9.7.8.18", "data-movement-and-conversion-instructions-isspacep")],
        fields: { space: req(MemSpace) },
        operands: const { &[def(PredReg), src(Value)] },
        check: ensure(space != MemSpace::Generic, "`isspacep` needs a state space"),
    }
    Cvta {
        summary: "Convert a state-space address to generic, or generic to the space with `.to`.",
        spell: ["cvta"],
        refs: [("9.7.8.19", "data-movement-and-conversion-instructions-cvta")],
        fields: { to: flag("to"), space: req(MemSpace), ty: ty() },
        operands: UNARY,
        check: types(ty, &[U32, U64]),
    }
    Cvt {
        summary: "Convert between types, with rounding, saturation and flush-to-zero.",
        spell: ["cvt"],
        refs: [("9.7.8.20", "data-movement-and-conversion-instructions-cvt")],
        fields: {
            irnd: opt(IntRounding), rounding: opt(RoundingMode), ftz: flag("ftz"), sat: flag("sat"),
            relu: flag("relu"), satfinite: flag("satfinite"), dty: ty(), sty: ty(),
        },
        operands: if (dty.is_packed() || dty.is_fp8x2()) && sty == F32 { BINARY } else { UNARY },
        check: check_cvt(irnd, rounding, ftz, relu, satfinite, dty, sty),
    }
    CpAsync {
        summary: "Asynchronous copy from global to shared memory (completes at `cp.async.wait_*`).",
        spell: ["cp.async"],
        refs: [("9.7.8.24.3", "data-movement-and-conversion-instructions-cp-async")],
        fields: {
            cache: req(CpAsyncCache), dst_space: req(MemSpace), src_space: req(MemSpace),
            hint: flag("L2::cache_hint"), prefetch: opt(L2Prefetch),
        },
        operands: if hint {
            const { &[src(Address), src(Address), src(Value), opt_src(Value), src(Value)] }
        } else {
            const { &[src(Address), src(Address), src(Value), opt_src(Value)] }
        },
        check: ensure(dst_space == MemSpace::Shared && src_space == MemSpace::Global, "`cp.async` copies `.shared` ← `.global`"),
    }
    CpAsyncCommitGroup {
        summary: "Commit the pending `cp.async` operations of this thread as one group.",
        spell: ["cp.async.commit_group"],
        refs: [("9.7.8.24.4", "data-movement-and-conversion-instructions-cp-async-commit-group")],
        fields: {},
        operands: NONE,
        check: Ok(()),
    }
    CpAsyncWaitGroup {
        summary: "Wait until at most N `cp.async` groups are pending.",
        spell: ["cp.async.wait_group"],
        refs: [("9.7.8.24.5", "data-movement-and-conversion-instructions-cp-async-wait-group-cp-async-wait-all")],
        fields: {},
        operands: const { &[src(Imm)] },
        check: Ok(()),
    }
    CpAsyncWaitAll {
        summary: "Wait until all `cp.async` operations of this thread have completed.",
        spell: ["cp.async.wait_all"],
        refs: [("9.7.8.24.5", "data-movement-and-conversion-instructions-cp-async-wait-group-cp-async-wait-all")],
        fields: {},
        operands: NONE,
        check: Ok(()),
    }

    // ===== §9.7.9–10 Texture and surface ==============================================
    Tex {
        summary: "Texture fetch (the emulator executes `.1d`, `.2d` and `.3d` at the base level).",
        spell: ["tex"],
        refs: [("9.7.9.3", "texture-instructions-tex")],
        fields: { mode: opt(TexMode), geom: req(Geometry), vec: req(VecWidth), dty: ty(), cty: ty() },
        operands: match mode {
            Some(TexMode::Level) => const { &[def(Data), src(Image), src(Value)] },
            Some(TexMode::Grad) => const { &[def(Data), src(Image), src(Data), src(Data)] },
            _ => const { &[def(Data), src(Image)] },
        },
        check: types(cty, &[S32, F32]),
    }
    Suld {
        summary: "Surface load (decoded; not executed by the emulator).",
        spell: ["suld"],
        refs: [("9.7.10.1", "surface-instructions-suld")],
        fields: { access: req(SurfaceAccess), geom: req(Geometry), vec: opt(VecWidth), ty: ty(), clamp: req(SurfaceClamp) },
        operands: const { &[def(Data), src(Image)] },
        check: Ok(()),
    }
    Sust {
        summary: "Surface store (decoded; not executed by the emulator).",
        spell: ["sust"],
        refs: [("9.7.10.2", "surface-instructions-sust")],
        fields: { access: req(SurfaceAccess), geom: req(Geometry), vec: opt(VecWidth), ty: ty(), clamp: req(SurfaceClamp) },
        operands: const { &[src(Image), src(Data)] },
        check: Ok(()),
    }

    // ===== §9.7.11 Control flow =======================================================
    Bra {
        summary: "Branch; guarded branches may diverge unless `.uni`.",
        spell: ["bra"],
        refs: [("9.7.11.3", "control-flow-instructions-bra")],
        fields: { uni: flag("uni") },
        operands: const { &[src(Label)] },
        check: Ok(()),
    }
    BrxIdx {
        summary: "Indirect branch to entry `index` of a `.branchtargets` list.",
        spell: ["brx.idx"],
        refs: [("9.7.11.4", "control-flow-instructions-brx-idx")],
        fields: { uni: flag("uni") },
        operands: const { &[src(Value), src(BranchTable)] },
        check: Ok(()),
    }
    Call {
        summary: "Call a function: `call (ret), f, (args)` or indirectly with a prototype.",
        spell: ["call"],
        refs: [("9.7.11.5", "control-flow-instructions-call")],
        fields: { uni: flag("uni") },
        operands: const { &[opt_def(ParamList), src(CallTarget), opt_src(ParamList), opt_src(Prototype)] },
        check: Ok(()),
    }
    Ret {
        summary: "Return from a function (from a kernel: end the thread).",
        spell: ["ret"],
        refs: [("9.7.11.6", "control-flow-instructions-ret")],
        fields: { uni: flag("uni") },
        operands: NONE,
        check: Ok(()),
    }
    Exit {
        summary: "Terminate the thread.",
        spell: ["exit"],
        refs: [("9.7.11.7", "control-flow-instructions-exit")],
        fields: {},
        operands: NONE,
        check: Ok(()),
    }

    // ===== §9.7.12 Parallel synchronization and communication =========================
    Barrier {
        summary: "CTA barrier: wait (`.sync`), arrive, or wait and reduce a predicate (`.red`); `bar` is `barrier ... .aligned`.",
        spell: ["barrier", "bar" => ["aligned"]],
        refs: [("9.7.12.1", "parallel-synchronization-and-communication-instructions-bar")],
        fields: { cta: flag("cta"), mode: req(BarrierMode), red_op: opt(BarrierRedOp), aligned: flag("aligned"), ty: opt_ty() },
        operands: match mode {
            BarrierMode::Sync => const { &[src(Value), opt_src(Value)] },
            BarrierMode::Arrive => const { &[src(Value), src(Value)] },
            BarrierMode::Red => const { &[def(Reg), src(Value), opt_src(Value), src(PredReg)] },
        },
        check: match (mode, red_op) {
            (BarrierMode::Red, Some(BarrierRedOp::Popc)) => ensure(ty == Some(U32), "`bar.red.popc` needs `.u32`"),
            (BarrierMode::Red, Some(_)) => ensure(ty == Some(Pred), "`bar.red.and` and `bar.red.or` need `.pred`"),
            (BarrierMode::Red, None) => Err("`bar.red` needs `.popc`, `.and` or `.or`".into()),
            (_, Some(op)) => Err(format!("`.{op}` is only valid with `.red`")),
            (_, None) => ensure(ty.is_none(), "only `bar.red` takes a type"),
        },
    }
    BarWarpSync {
        summary: "Wait until all lanes in the mask have reached this instruction (`__syncwarp`).",
        spell: ["bar.warp.sync"],
        refs: [("9.7.12.2", "parallel-synchronization-and-communication-instructions-bar-warp-sync")],
        fields: {},
        operands: const { &[src(Value)] },
        check: Ok(()),
    }
    Membar {
        summary: "Memory barrier: `membar.level` is `fence.sc.scope`.",
        spell: ["membar"],
        refs: [("9.7.12.4", "parallel-synchronization-and-communication-instructions-membar-fence")],
        fields: { level: req(MembarLevel) },
        operands: NONE,
        check: Ok(()),
    }
    Fence {
        summary: "Memory fence with `.sc` or `.acq_rel` (default) semantics at a scope.",
        spell: ["fence"],
        refs: [("9.7.12.4", "parallel-synchronization-and-communication-instructions-membar-fence")],
        fields: { order: opt(MemOrder), scope: req(MemScope) },
        operands: NONE,
        check: ensure(matches!(order, None | Some(MemOrder::SeqCst) | Some(MemOrder::AcqRel)), "fences take `.sc` or `.acq_rel`"),
    }
    FenceProxy {
        summary: "Proxy fence between memory accesses of different proxies.",
        spell: ["fence.proxy"],
        refs: [("9.7.12.4", "parallel-synchronization-and-communication-instructions-membar-fence")],
        fields: { kind: req(ProxyKind) },
        operands: NONE,
        check: Ok(()),
    }
    Griddepcontrol {
        summary: "Programmatic dependent launch: let dependent grids start, or wait for the grids this one depends on.",
        spell: ["griddepcontrol"],
        refs: [("9.7.12.13", "parallel-synchronization-and-communication-instructions-griddepcontrol")],
        fields: { action: req(GriddepAction) },
        operands: NONE,
        check: Ok(()),
    }
    Atom {
        summary: "Atomic read-modify-write returning the old value.",
        spell: ["atom"],
        refs: [("9.7.12.5", "parallel-synchronization-and-communication-instructions-atom")],
        fields: {
            order: opt(MemOrder), scope: opt(MemScope), space: dflt(MemSpace), op: req(AtomOp),
            noftz: flag("noftz"), hint: flag("L2::cache_hint"), ty: ty(),
        },
        operands: match (op, hint) {
            (AtomOp::Cas, false) => const { &[def(Reg), src(Address), src(Value), src(Value)] },
            (AtomOp::Cas, true) => const { &[def(Reg), src(Address), src(Value), src(Value), src(Value)] },
            (_, false) => const { &[def(Reg), src(Address), src(Value)] },
            (_, true) => const { &[def(Reg), src(Address), src(Value), src(Value)] },
        },
        check: check_atomic(order, space, op, noftz, ty, false),
    }
    Red {
        summary: "Atomic reduction without a result.",
        spell: ["red"],
        refs: [("9.7.12.6", "parallel-synchronization-and-communication-instructions-red")],
        fields: {
            order: opt(MemOrder), scope: opt(MemScope), space: dflt(MemSpace), op: req(AtomOp),
            noftz: flag("noftz"), hint: flag("L2::cache_hint"), ty: ty(),
        },
        operands: if hint { const { &[src(Address), src(Value), src(Value)] } } else { const { &[src(Address), src(Value)] } },
        check: check_atomic(order, space, op, noftz, ty, true),
    }
    VoteSync {
        summary: "Warp vote over a predicate: all, any, uniform, or the ballot mask.",
        // `vote.ballot.sync.b32` is the order of CUB's and NVIDIA's headers' inline PTX.
        spell: ["vote.sync", "vote.ballot.sync" => ["ballot"]],
        refs: [("9.7.12.9", "parallel-synchronization-and-communication-instructions-vote-sync")],
        fields: { mode: req(VoteMode), ty: ty() },
        operands: const { &[def(Reg), src(PredReg), src(Value)] },
        check: if mode == VoteMode::Ballot { types(ty, &[B32]) } else { types(ty, &[Pred]) },
    }
    MatchSync {
        summary: "Lanes whose value matches: `.any` (mask of equal lanes) or `.all` (mask if all equal).",
        spell: ["match"],
        refs: [("9.7.12.10", "parallel-synchronization-and-communication-instructions-match-sync")],
        fields: { mode: req(MatchMode), sync: flag("sync"), ty: ty() },
        operands: if mode == MatchMode::All { const { &[def(RegPredPair), src(Value), src(Value)] } } else { BINARY },
        check: ensure(sync, "only `match.any.sync` and `match.all.sync` exist").and_then(|()| types(ty, BITS_32_64)),
    }
    Activemask {
        summary: "The mask of currently active lanes of the warp.",
        spell: ["activemask"],
        refs: [("9.7.12.11", "parallel-synchronization-and-communication-instructions-activemask")],
        fields: { ty: ty() },
        operands: const { &[def(Reg)] },
        check: types(ty, &[B32]),
    }
    ReduxSync {
        summary: "Warp-wide integer reduction over the lanes of a mask.",
        spell: ["redux.sync"],
        refs: [("9.7.12.12", "parallel-synchronization-and-communication-instructions-redux-sync")],
        fields: { op: req(ReduxOp), ty: ty() },
        operands: BINARY,
        check: match op {
            ReduxOp::And | ReduxOp::Or | ReduxOp::Xor => types(ty, &[B32]),
            _ => types(ty, &[U32, S32]),
        },
    }

    // ===== §9.7.12.15 mbarrier =========================================================
    MbarrierInit {
        summary: "Initialise an `mbarrier` object with its expected arrival count (phase 0).",
        spell: ["mbarrier.init"],
        refs: [("9.7.12.15.9", "parallel-synchronization-and-communication-instructions-mbarrier-init")],
        fields: { space: dflt(MemSpace), ty: ty() },
        operands: const { &[src(Address), src(Value)] },
        check: types(ty, &[B64]).and_then(|()| mbarrier_space(space)),
    }
    MbarrierInval {
        summary: "Invalidate an `mbarrier` object so its memory can be reused.",
        spell: ["mbarrier.inval"],
        refs: [("9.7.12.15.10", "parallel-synchronization-and-communication-instructions-mbarrier-inval")],
        fields: { space: dflt(MemSpace), ty: ty() },
        operands: const { &[src(Address)] },
        check: types(ty, &[B64]).and_then(|()| mbarrier_space(space)),
    }
    MbarrierArrive {
        summary: "Arrive on an `mbarrier` (`count` arrivals; `.expect_tx` first raises the expected transaction count); returns the phase token.",
        spell: ["mbarrier.arrive"],
        refs: [("9.7.12.15.13", "parallel-synchronization-and-communication-instructions-mbarrier-arrive")],
        fields: {
            expect_tx: flag("expect_tx"), no_complete: flag("noComplete"), order: opt(MemOrder),
            scope: opt(MemScope), space: dflt(MemSpace), ty: ty(),
        },
        operands: const { &[def(Reg), src(Address), opt_src(Value)] },
        check: check_mbarrier_arrive(expect_tx, order, space, ty),
    }
    MbarrierArriveDrop {
        summary: "Arrive on an `mbarrier` and lower its expected arrival count for the following phases.",
        spell: ["mbarrier.arrive_drop"],
        refs: [("9.7.12.15.14", "parallel-synchronization-and-communication-instructions-mbarrier-arrive-drop")],
        fields: {
            expect_tx: flag("expect_tx"), no_complete: flag("noComplete"), order: opt(MemOrder),
            scope: opt(MemScope), space: dflt(MemSpace), ty: ty(),
        },
        operands: const { &[def(Reg), src(Address), opt_src(Value)] },
        check: check_mbarrier_arrive(expect_tx, order, space, ty),
    }
    MbarrierExpectTx {
        summary: "Raise the expected transaction count (bytes) of an `mbarrier`'s current phase.",
        spell: ["mbarrier.expect_tx"],
        refs: [("9.7.12.15.11", "parallel-synchronization-and-communication-instructions-mbarrier-expect-tx")],
        fields: { order: opt(MemOrder), scope: opt(MemScope), space: dflt(MemSpace), ty: ty() },
        operands: const { &[src(Address), src(Value)] },
        check: types(ty, &[B64]).and_then(|()| mbarrier_space(space)),
    }
    MbarrierCompleteTx {
        summary: "Complete transactions (bytes) of an `mbarrier`'s current phase.",
        spell: ["mbarrier.complete_tx"],
        refs: [("9.7.12.15.12", "parallel-synchronization-and-communication-instructions-mbarrier-complete-tx")],
        fields: { order: opt(MemOrder), scope: opt(MemScope), space: dflt(MemSpace), ty: ty() },
        operands: const { &[src(Address), src(Value)] },
        check: types(ty, &[B64]).and_then(|()| mbarrier_space(space)),
    }
    MbarrierTestWait {
        summary: "Whether the `mbarrier` phase of a token (or, with `.parity`, of a phase parity) has completed; does not block.",
        spell: ["mbarrier.test_wait"],
        refs: [("9.7.12.15.16", "parallel-synchronization-and-communication-instructions-mbarrier-test-wait-mbarrier-try-wait")],
        fields: { parity: flag("parity"), order: opt(MemOrder), scope: opt(MemScope), space: dflt(MemSpace), ty: ty() },
        operands: const { &[def(PredReg), src(Address), src(Value)] },
        check: types(ty, &[B64]).and_then(|()| mbarrier_space(space)),
    }
    MbarrierTryWait {
        summary: "Like `mbarrier.test_wait`, but may suspend the thread for a while before answering.",
        spell: ["mbarrier.try_wait"],
        refs: [("9.7.12.15.16", "parallel-synchronization-and-communication-instructions-mbarrier-test-wait-mbarrier-try-wait")],
        fields: { parity: flag("parity"), order: opt(MemOrder), scope: opt(MemScope), space: dflt(MemSpace), ty: ty() },
        operands: const { &[def(PredReg), src(Address), src(Value), opt_src(Value)] },
        check: types(ty, &[B64]).and_then(|()| mbarrier_space(space)),
    }
    MbarrierPendingCount {
        summary: "The pending arrival count recorded in an `mbarrier` phase token.",
        spell: ["mbarrier.pending_count"],
        refs: [("9.7.12.15.17", "parallel-synchronization-and-communication-instructions-mbarrier-pending-count")],
        fields: { ty: ty() },
        operands: const { &[def(Reg), src(Value)] },
        check: types(ty, &[B64]),
    }
    CpAsyncMbarrierArrive {
        summary: "Arrive on an `mbarrier` once this thread's earlier `cp.async` copies complete (without `.noinc`, the arrival is added to the expected count).",
        spell: ["cp.async.mbarrier.arrive"],
        refs: [("9.7.8.24.6", "data-movement-and-conversion-instructions-cp-async-mbarrier-arrive")],
        fields: { noinc: flag("noinc"), space: dflt(MemSpace), ty: ty() },
        operands: const { &[src(Address)] },
        check: types(ty, &[B64]).and_then(|()| mbarrier_space(space)),
    }

    // ===== §9.7.13 Warp-level matrix instructions =====================================
    WmmaLoad {
        summary: "Load a matrix fragment (`.a`, `.b` or the accumulator `.c`) warp-wide from memory with a row stride.",
        spell: ["wmma.load"],
        refs: [("9.7.13.3.7", "warp-level-matrix-instructions-wmma-ld")],
        fields: {
            frag: req(FragmentKind), sync: flag("sync"), aligned: flag("aligned"),
            layout: req(MatrixLayout), shape: req(MatrixShape), space: dflt(MemSpace), ty: ty(),
        },
        operands: const { &[def(Fragment), src(Address), opt_src(Value)] },
        check: ensure(sync && aligned, "`wmma.load` needs `.sync.aligned`"),
    }
    WmmaStore {
        summary: "Store an accumulator fragment warp-wide to memory with a row stride.",
        spell: ["wmma.store.d"],
        refs: [("9.7.13.3.8", "warp-level-matrix-instructions-wmma-st")],
        fields: {
            sync: flag("sync"), aligned: flag("aligned"), layout: req(MatrixLayout),
            shape: req(MatrixShape), space: dflt(MemSpace), ty: ty(),
        },
        operands: const { &[src(Address), src(Fragment), opt_src(Value)] },
        check: ensure(sync && aligned, "`wmma.store` needs `.sync.aligned`"),
    }
    WmmaMma {
        summary: "Warp-wide matrix multiply-accumulate `D = A * B + C` on fragments (`.dtype.ctype` for f16 inputs, else `.dtype.atype.btype.ctype`).",
        spell: ["wmma.mma"],
        refs: [("9.7.13.3.9", "warp-level-matrix-instructions-wmma-mma")],
        fields: {
            sync: flag("sync"), aligned: flag("aligned"), alayout: req(MatrixLayout),
            blayout: req(MatrixLayout), shape: req(MatrixShape), dty: ty(), t2: ty(),
            t3: opt_ty(), t4: opt_ty(), rounding: opt(RoundingMode), satfinite: flag("satfinite"),
        },
        operands: const { &[def(Fragment), src(Fragment), src(Fragment), src(Fragment)] },
        check: ensure(sync && aligned, "`wmma.mma` needs `.sync.aligned`")
            .and_then(|()| ensure(t3.is_some() == t4.is_some(), "`wmma.mma` takes two or four types")),
    }
    Mma {
        summary: "Warp-wide matrix multiply-accumulate `D = A * B + C` on register fragments of a fixed shape.",
        spell: ["mma"],
        refs: [("9.7.13.4.14", "warp-level-matrix-instructions-mma")],
        fields: {
            sync: flag("sync"), aligned: flag("aligned"), shape: req(MatrixShape),
            alayout: req(MatrixLayout), blayout: req(MatrixLayout), satfinite: flag("satfinite"),
            dty: ty(), aty: ty(), bty: ty(), cty: ty(),
        },
        operands: const { &[def(Fragment), src(Fragment), src(Fragment), src(Fragment)] },
        check: ensure(sync && aligned, "`mma` needs `.sync.aligned`"),
    }
    Ldmatrix {
        summary: "Load one, two or four 8x8 matrices of 16-bit elements from shared memory into fragments (`.trans`: transposed).",
        spell: ["ldmatrix"],
        refs: [("9.7.13.4.15", "warp-level-matrix-instructions-ldmatrix")],
        fields: {
            sync: flag("sync"), aligned: flag("aligned"), shape: req(MatrixShape),
            num: req(MatrixCount), trans: flag("trans"), space: dflt(MemSpace), ty: ty(),
        },
        operands: const { &[def(Fragment), src(Address)] },
        check: ensure(sync && aligned, "`ldmatrix` needs `.sync.aligned`")
            .and_then(|()| ensure(shape == MatrixShape::M8n8 && ty == B16, "only `ldmatrix...m8n8...b16` is supported")),
    }
    Stmatrix {
        summary: "Store one, two or four 8x8 matrices of 16-bit elements from fragments to shared memory (`.trans`: transposed).",
        spell: ["stmatrix"],
        refs: [("9.7.13.4.16", "warp-level-matrix-instructions-stmatrix")],
        fields: {
            sync: flag("sync"), aligned: flag("aligned"), shape: req(MatrixShape),
            num: req(MatrixCount), trans: flag("trans"), space: dflt(MemSpace), ty: ty(),
        },
        operands: const { &[src(Address), src(Fragment)] },
        check: ensure(sync && aligned, "`stmatrix` needs `.sync.aligned`")
            .and_then(|()| ensure(shape == MatrixShape::M8n8 && ty == B16, "only `stmatrix...m8n8...b16` is supported")),
    }

    // ===== §9.7.17 Miscellaneous ======================================================
    Brkpt {
        summary: "Suspend execution for a debugger.",
        spell: ["brkpt"],
        refs: [("9.7.17.1", "miscellaneous-instructions-brkpt")],
        fields: {},
        operands: NONE,
        check: Ok(()),
    }
    Nanosleep {
        summary: "Suspend the thread for about `t` nanoseconds (a hint).",
        spell: ["nanosleep"],
        refs: [("9.7.17.2", "miscellaneous-instructions-nanosleep")],
        fields: { ty: ty() },
        operands: const { &[src(Value)] },
        check: types(ty, &[U32]),
    }
    Trap {
        summary: "Abort the kernel with an error.",
        spell: ["trap"],
        refs: [("9.7.17.4", "miscellaneous-instructions-trap")],
        fields: {},
        operands: NONE,
        check: Ok(()),
    }
}

impl Op {
    /// Whether the instruction ends a basic block: branches, returns, `exit`, `trap`.
    pub fn is_terminator(&self) -> bool {
        matches!(
            self,
            Op::Bra { .. } | Op::BrxIdx { .. } | Op::Ret { .. } | Op::Exit {} | Op::Trap {}
        )
    }

    /// Whether the instruction reads the carry flag `CC.CF` (§9.7.2).
    pub fn reads_carry(&self) -> bool {
        matches!(self, Op::AddC { .. } | Op::SubC { .. } | Op::MadC { .. })
    }

    /// Whether the instruction writes the carry flag `CC.CF` (§9.7.2).
    pub fn writes_carry(&self) -> bool {
        match *self {
            Op::Add { cc, .. } | Op::Sub { cc, .. } | Op::Mad { cc, .. } => cc,
            Op::AddC { cc, .. } | Op::SubC { cc, .. } | Op::MadC { cc, .. } => cc,
            _ => false,
        }
    }

    /// The canonical opcode spelling, e.g. `barrier` or `shfl.sync`.
    pub fn name(&self) -> &'static str {
        self.opcode().info().name
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn decode(text: &str) -> Result<Op, ModifierError> {
        let mut parts = text.split('.');
        let opcode = parts.next().unwrap_or_default();
        let mods: Vec<&str> = parts.collect();
        let (spelling, consumed) =
            lookup(opcode, &mods).ok_or(ModifierError::Unsupported { position: 0 })?;
        let mut tokens: Vec<&str> = spelling.implies.to_vec();
        tokens.extend_from_slice(&mods[consumed..]);
        spelling.opcode.decode_modifiers(&tokens)
    }

    #[test]
    fn every_opcode_has_a_reference_and_a_unique_spelling() {
        let mut seen = std::collections::HashSet::new();
        for s in SPELLINGS {
            assert!(seen.insert(s.key), "duplicate spelling {}", s.key);
        }
        for &op in Opcode::ALL {
            let info = op.info();
            assert!(
                !info.refs.is_empty() && info.refs.iter().all(|r| r.section.starts_with("9.7."))
            );
            assert_eq!(info.opcode, op);
        }
    }

    #[test]
    fn longest_spelling_wins() {
        let (s, n) = lookup("bar", &["warp", "sync"]).unwrap();
        assert_eq!((s.opcode, n), (Opcode::BarWarpSync, 2));
        let (s, n) = lookup("bar", &["sync"]).unwrap();
        assert_eq!((s.opcode, n), (Opcode::Barrier, 0));
        let (s, n) = lookup("cp", &["async", "ca", "shared", "global"]).unwrap();
        assert_eq!((s.opcode, n), (Opcode::CpAsync, 1));
        assert!(lookup("vote", &["ballot", "b32"]).is_none());
    }

    #[test]
    fn modifiers_print_in_canonical_order() {
        let op = decode("ld.global.nc.v4.f32").unwrap();
        assert_eq!(op.modifiers(), vec!["global", "nc", "v4", "f32"]);
        let op = decode("bar.sync").unwrap();
        assert_eq!(op.name(), "barrier");
        assert_eq!(op.modifiers(), vec!["sync", "aligned"]);
        let op = decode("cvt.rn.f32.s32").unwrap();
        assert_eq!(
            op,
            Op::Cvt {
                irnd: None,
                rounding: Some(RoundingMode::Rn),
                ftz: false,
                sat: false,
                relu: false,
                satfinite: false,
                dty: F32,
                sty: S32
            }
        );
    }

    #[test]
    fn op_stays_small() {
        assert!(
            std::mem::size_of::<Op>() <= 16,
            "Op grew to {} bytes",
            std::mem::size_of::<Op>()
        );
    }

    #[test]
    fn combination_errors_name_the_problem() {
        assert_eq!(
            decode("add.rn.s32"),
            Err(ModifierError::Combination(
                "`.rn` applies only to floating-point types".into()
            ))
        );
        assert!(
            matches!(decode("mul.s32"), Err(ModifierError::Combination(m)) if m.contains(".lo"))
        );
        assert_eq!(
            decode("add.rn.rz.f32"),
            Err(ModifierError::Conflict {
                position: 1,
                previous: "rn"
            })
        );
        assert_eq!(
            decode("ld.global.foo.f32"),
            Err(ModifierError::Unsupported { position: 1 })
        );
        assert!(matches!(
            decode("setp.s32"),
            Err(ModifierError::Missing {
                what: "comparison",
                ..
            })
        ));
        assert!(decode("cvt.f32.s32").is_err());
        assert!(decode("cvt.f64.f32").is_ok());
        assert!(decode("ld.relaxed.f32").is_err());
        assert!(decode("ld.relaxed.gpu.global.f32").is_ok());
    }

    #[test]
    fn fp8_conversions_decode_with_their_rules() {
        for ok in [
            "cvt.rn.satfinite.e4m3x2.f32",
            "cvt.rn.satfinite.relu.e5m2x2.f32",
            "cvt.rn.satfinite.e4m3x2.f16x2",
            "cvt.rn.f16x2.e5m2x2",
            "cvt.rn.relu.f16x2.e4m3x2",
        ] {
            assert!(decode(ok).is_ok(), "{ok}: {:?}", decode(ok));
        }
        let err = |t: &str| match decode(t) {
            Err(ModifierError::Combination(m)) => m,
            other => panic!("{t}: {other:?}"),
        };
        assert!(err("cvt.rn.e4m3x2.f32").contains("satfinite"));
        assert!(err("cvt.rz.satfinite.e4m3x2.f32").contains("`.rn`"));
        assert!(err("cvt.rn.satfinite.e4m3x2.f64").contains(".f64"));
        assert!(err("cvt.rn.satfinite.f16x2.e4m3x2").contains("satfinite"));
        assert!(err("cvt.rn.f32.e4m3x2").contains(".f32"));
    }
}
