//! Decoded instruction operands (PTX ISA §6) and operand signatures.
//!
//! Operands are small `Copy` values. Those that contain other operands — vectors
//! `{%f1, %f2}`, call argument lists `(param0, param1)` and texture coordinates — refer to
//! a range of the function's operand pool ([`crate::Body::operands`]), so that an
//! [`Operand`] stays 24 bytes and an instruction can keep its operands in one contiguous
//! slice of the pool.

use std::fmt;

use crate::entity::{FuncId, Reg, VarId};
use crate::types::Type;

/// A contiguous range of the function's operand pool.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub struct OperandList {
    pub start: u32,
    pub len: u32,
}

impl OperandList {
    pub const EMPTY: OperandList = OperandList { start: 0, len: 0 };

    pub fn range(self) -> std::ops::Range<usize> {
        self.start as usize..(self.start + self.len) as usize
    }

    pub fn is_empty(self) -> bool {
        self.len == 0
    }
}

/// A module-scope or function-scope symbol whose address can be taken.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Symbol {
    Var(VarId),
    Func(FuncId),
}

/// One decoded operand.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Operand {
    /// A register (a scalar register, or one component of a `.v4` vector register).
    Reg(Reg),
    /// `!%p`: a negated predicate source.
    NegPred(Reg),
    /// `d|p`: the two destinations of `setp`, `shfl.sync`, `match.all.sync`; either may be
    /// the sink `_` (`None`).
    Pair(Option<Reg>, Option<Reg>),
    /// A literal.
    Imm(Imm),
    /// A special register such as `%tid.x` (§10); never a [`Reg`].
    Special(SpecialOperand),
    /// The address of a symbol as a value, e.g. `mov.u64 %rd1, sdata;` or `sym+4`.
    SymbolAddress { symbol: Symbol, offset: i64 },
    /// `[base+offset]`: a memory address (§6.4.1).
    Address(Address),
    /// `{a, b, c, d}`: a vector of operands (§6.4.2), elements in the operand pool.
    Vector(OperandList),
    /// `(a, b)`: the return or argument list of `call`, elements in the operand pool.
    List(OperandList),
    /// `[tex, {x, y}]` or `[tex, sampler, {x, y}]`: a texture or surface reference and its
    /// coordinates (§9.7.9.3), elements in the operand pool (handle first).
    Image(OperandList),
    /// A branch target.
    Label(crate::entity::BlockId),
    /// A `.branchtargets` list of this function ([`crate::Body::branch_tables`]).
    BranchTable(u32),
    /// A `.callprototype` of this function ([`crate::Body::prototypes`]).
    Prototype(u32),
    /// A `.calltargets` list of this function ([`crate::Body::call_targets`]).
    CallTargets(u32),
    /// A direct call target.
    Func(FuncId),
    /// `_`: a destination whose value is discarded.
    Sink,
    /// An optional operand that the instruction omits. The decoder inserts it so that the
    /// operand at a given position always plays the role its [`Slot`] says.
    Absent,
}

/// A literal: its bits and the type of the literal as written.
///
/// Integer literals have type `B64` and hold the 64-bit two's-complement pattern of the
/// value (`-1` is `0xffff_ffff_ffff_ffff`); `0fXXXXXXXX` literals have type `F32` and
/// hold the 32 bits, zero-extended; `0dXXXXXXXXXXXXXXXX` and decimal float literals have
/// type `F64`. The instruction type decides how the literal is used (PTX ISA §4.5.1):
/// consumers convert with [`Imm::bits_as`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Imm {
    pub bits: u64,
    pub ty: Type,
}

impl Imm {
    pub fn int(value: u64) -> Imm {
        Imm {
            bits: value,
            ty: Type::B64,
        }
    }

    pub fn f32_bits(bits: u32) -> Imm {
        Imm {
            bits: bits as u64,
            ty: Type::F32,
        }
    }

    pub fn f64_bits(bits: u64) -> Imm {
        Imm {
            bits,
            ty: Type::F64,
        }
    }

    /// The literal's bits as an operand of an instruction of type `ty`: integer literals
    /// are truncated to the width (integer instructions) or converted to the float value
    /// (float instructions); float literals are converted between `f32` and `f64`, and
    /// used as raw bits by integer instructions (as ptxas does for `mov.b32 %r, 0f3F800000`).
    pub fn bits_as(self, ty: Type) -> u64 {
        let mask = |bits: u32| {
            if bits >= 64 {
                u64::MAX
            } else {
                (1u64 << bits) - 1
            }
        };
        match (self.ty, ty) {
            (Type::F32, Type::F64) => (f32::from_bits(self.bits as u32) as f64).to_bits(),
            (Type::F64, Type::F32) => (f64::from_bits(self.bits) as f32).to_bits() as u64,
            (Type::B64, Type::F32) => ((self.bits as i64) as f32).to_bits() as u64,
            (Type::B64, Type::F64) => ((self.bits as i64) as f64).to_bits(),
            (_, t) if t.is_pred() => (self.bits != 0) as u64,
            (_, t) => self.bits & mask(t.bits()),
        }
    }
}

/// An address operand `[base+offset]`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Address {
    pub base: AddressBase,
    pub offset: i64,
}

/// What an address is relative to.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum AddressBase {
    /// A register holding an address (in the instruction's state space, or generic).
    Reg(Reg),
    /// A variable: the address is the variable's address in its state space.
    Var(VarId),
    /// `[1024]`: an absolute address.
    Absolute,
}

/// A special register operand (§10): the register and its component.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct SpecialOperand {
    pub reg: SpecialReg,
    /// `.x/.y/.z` for the vector special registers (`%tid`, `%ntid`, `%ctaid` …).
    pub component: Option<Component>,
}

/// Component selector of a vector special register or vector register.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[repr(u8)]
pub enum Component {
    X,
    Y,
    Z,
    W,
}

impl Component {
    pub fn from_ast(c: warpcheck_ptx::ast::Component) -> Component {
        use warpcheck_ptx::ast::Component as A;
        match c {
            A::X => Component::X,
            A::Y => Component::Y,
            A::Z => Component::Z,
            A::W => Component::W,
        }
    }

    pub fn index(self) -> usize {
        self as usize
    }

    pub fn name(self) -> char {
        match self {
            Component::X => 'x',
            Component::Y => 'y',
            Component::Z => 'z',
            Component::W => 'w',
        }
    }
}

macro_rules! special_regs {
    ($( $(#[$m:meta])* $variant:ident = $spelling:literal, $vector:literal, $ty:ident; )+) => {
        /// Special registers (PTX ISA §10): read-only, predefined, per-thread or per-SM
        /// values. They are an operand kind of their own, never a [`Reg`].
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
        pub enum SpecialReg {
            $( $(#[$m])* $variant, )+
            /// `%envreg0` … `%envreg31` (§10.31).
            EnvReg(u8),
            /// `%reserved_smem_offset_0` and `_1`: offsets of shared memory reserved for
            /// the CUDA runtime (cooperative groups).
            ReservedSmemOffset(u8),
        }

        impl SpecialReg {
            /// Parses the name as written, with its `%`, e.g. `%tid`.
            pub fn from_name(name: &str) -> Option<SpecialReg> {
                match name {
                    $( $spelling => Some(SpecialReg::$variant), )+
                    _ => {
                        if let Some(n) = name.strip_prefix("%reserved_smem_offset_") {
                            let n: u8 = n.parse().ok()?;
                            return (n < 2).then_some(SpecialReg::ReservedSmemOffset(n));
                        }
                        let n: u8 = name.strip_prefix("%envreg")?.parse().ok()?;
                        (n < 32).then_some(SpecialReg::EnvReg(n))
                    }
                }
            }

            /// The name with its `%`.
            pub fn name(self) -> String {
                match self {
                    $( SpecialReg::$variant => $spelling.to_string(), )+
                    SpecialReg::EnvReg(n) => format!("%envreg{n}"),
                    SpecialReg::ReservedSmemOffset(n) => format!("%reserved_smem_offset_{n}"),
                }
            }

            /// Whether the register has `.x/.y/.z` components (and must be used with one
            /// in scalar context).
            pub fn is_vector(self) -> bool {
                match self {
                    $( SpecialReg::$variant => $vector, )+
                    SpecialReg::EnvReg(_) | SpecialReg::ReservedSmemOffset(_) => false,
                }
            }

            /// The type of the register (of one component for vector registers).
            pub fn ty(self) -> Type {
                match self {
                    $( SpecialReg::$variant => Type::$ty, )+
                    SpecialReg::EnvReg(_) => Type::B32,
                    SpecialReg::ReservedSmemOffset(_) => Type::U32,
                }
            }
        }
    };
}

special_regs! {
    /// Thread index within the CTA.
    Tid = "%tid", true, U32;
    /// CTA dimensions.
    Ntid = "%ntid", true, U32;
    /// Lane index within the warp.
    LaneId = "%laneid", false, U32;
    WarpId = "%warpid", false, U32;
    NWarpId = "%nwarpid", false, U32;
    /// CTA index within the grid.
    CtaId = "%ctaid", true, U32;
    /// Grid dimensions in CTAs.
    NCtaId = "%nctaid", true, U32;
    SmId = "%smid", false, U32;
    NSmId = "%nsmid", false, U32;
    GridId = "%gridid", false, U64;
    ClusterId = "%clusterid", true, U32;
    NClusterId = "%nclusterid", true, U32;
    ClusterCtaId = "%cluster_ctaid", true, U32;
    ClusterNCtaId = "%cluster_nctaid", true, U32;
    ClusterCtaRank = "%cluster_ctarank", false, U32;
    ClusterNCtaRank = "%cluster_nctarank", false, U32;
    IsExplicitCluster = "%is_explicit_cluster", false, Pred;
    LanemaskEq = "%lanemask_eq", false, U32;
    LanemaskLe = "%lanemask_le", false, U32;
    LanemaskLt = "%lanemask_lt", false, U32;
    LanemaskGe = "%lanemask_ge", false, U32;
    LanemaskGt = "%lanemask_gt", false, U32;
    Clock = "%clock", false, U32;
    ClockHi = "%clock_hi", false, U32;
    Clock64 = "%clock64", false, U64;
    GlobalTimer = "%globaltimer", false, U64;
    GlobalTimerLo = "%globaltimer_lo", false, U32;
    GlobalTimerHi = "%globaltimer_hi", false, U32;
    TotalSmemSize = "%total_smem_size", false, U32;
    AggrSmemSize = "%aggr_smem_size", false, U32;
    DynamicSmemSize = "%dynamic_smem_size", false, U32;
    ReservedSmemOffsetBegin = "%reserved_smem_offset_begin", false, U32;
    ReservedSmemOffsetEnd = "%reserved_smem_offset_end", false, U32;
    ReservedSmemOffsetCap = "%reserved_smem_offset_cap", false, U32;
}

impl fmt::Display for SpecialOperand {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.reg.name())?;
        if let Some(c) = self.component {
            write!(f, ".{}", c.name())?;
        }
        Ok(())
    }
}

/// Whether an operand position is written or read.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Role {
    Def,
    Use,
}

/// What an operand position accepts (PTX ISA §6.3–§6.4).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Class {
    /// A non-predicate register (or `_` as a destination).
    Reg,
    /// A register, literal, special register or symbol address.
    Value,
    /// A predicate register; as a source also `!%p`, as a destination also `_`.
    Pred,
    /// A predicate, or two predicates `p|q` (`setp`).
    PredPair,
    /// A register, or a register and a predicate `d|p` (`shfl.sync`, `match.all.sync`).
    RegPredPair,
    /// `[address]`.
    Address,
    /// A register or a vector of registers (`ld`/`st` data, `mov` pack/unpack); as a
    /// source, elements may also be literals.
    Data,
    /// A label.
    Label,
    /// A `.branchtargets` list.
    BranchTable,
    /// A function symbol (direct call) or a register holding its address (indirect call).
    CallTarget,
    /// `(a, b)`: `.param` variables, registers or literals.
    ParamList,
    /// A `.callprototype` or `.calltargets` label: what an indirect call may call.
    Prototype,
    /// A literal only.
    Imm,
    /// `[tex, {coords}]`.
    Image,
    /// `{a, b, ...}`: a matrix fragment, a vector of registers of any length (`mma`,
    /// `wmma`, `ldmatrix`, `stmatrix`).
    Fragment,
}

/// One operand position of an instruction's signature.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Slot {
    pub role: Role,
    pub class: Class,
    /// Whether the operand may be omitted ([`Operand::Absent`] then fills its position).
    pub optional: bool,
}

/// A destination slot.
pub const fn def(class: Class) -> Slot {
    Slot {
        role: Role::Def,
        class,
        optional: false,
    }
}

/// A source slot.
pub const fn src(class: Class) -> Slot {
    Slot {
        role: Role::Use,
        class,
        optional: false,
    }
}

/// An optional source slot.
pub const fn opt_src(class: Class) -> Slot {
    Slot {
        role: Role::Use,
        class,
        optional: true,
    }
}

/// An optional destination slot.
pub const fn opt_def(class: Class) -> Slot {
    Slot {
        role: Role::Def,
        class,
        optional: true,
    }
}

impl Class {
    /// How the class is described in diagnostics.
    pub fn describe(self) -> &'static str {
        match self {
            Class::Reg => "a register",
            Class::Value => "a register, literal or special register",
            Class::Pred => "a predicate register",
            Class::PredPair => "a predicate or a pair `p|q`",
            Class::RegPredPair => "a register or a pair `d|p`",
            Class::Address => "an address `[...]`",
            Class::Data => "a register or a vector `{...}`",
            Class::Fragment => "a vector `{...}` of registers",
            Class::Label => "a label",
            Class::BranchTable => "a `.branchtargets` label",
            Class::CallTarget => "a function or a register",
            Class::ParamList => "a parameter list `(...)`",
            Class::Prototype => "a `.callprototype` or `.calltargets` label",
            Class::Imm => "a literal",
            Class::Image => "a texture or surface reference `[tex, {...}]`",
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn operand_stays_small() {
        assert_eq!(std::mem::size_of::<Operand>(), 24);
    }

    #[test]
    fn special_registers_parse() {
        assert_eq!(SpecialReg::from_name("%tid"), Some(SpecialReg::Tid));
        assert_eq!(
            SpecialReg::from_name("%envreg7"),
            Some(SpecialReg::EnvReg(7))
        );
        assert_eq!(SpecialReg::from_name("%envreg32"), None);
        assert_eq!(
            SpecialReg::from_name("%reserved_smem_offset_1"),
            Some(SpecialReg::ReservedSmemOffset(1))
        );
        assert_eq!(
            SpecialReg::ReservedSmemOffset(1).name(),
            "%reserved_smem_offset_1"
        );
        assert_eq!(SpecialReg::from_name("%r1"), None);
        assert!(SpecialReg::Tid.is_vector() && !SpecialReg::LaneId.is_vector());
        assert_eq!(SpecialReg::Clock64.ty(), Type::U64);
    }

    #[test]
    fn immediates_convert_to_the_instruction_type() {
        assert_eq!(Imm::int(u64::MAX).bits_as(Type::U32), 0xffff_ffff);
        assert_eq!(Imm::int(2).bits_as(Type::F32), 2.0f32.to_bits() as u64);
        assert_eq!(
            Imm::f32_bits(0x3f80_0000).bits_as(Type::F64),
            1.0f64.to_bits()
        );
        assert_eq!(
            Imm::f64_bits(1.5f64.to_bits()).bits_as(Type::F32),
            1.5f32.to_bits() as u64
        );
        assert_eq!(Imm::f32_bits(0x3f80_0000).bits_as(Type::B32), 0x3f80_0000);
    }
}
