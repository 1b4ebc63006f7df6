//! PTX fundamental types as the IR sees them (PTX ISA §5.2).

use std::fmt;

use warpcheck_ptx::ast::ScalarType;

/// A fundamental, packed or opaque PTX type (§5.2.1–§5.2.3, §5.3).
///
/// `B*` are untyped bit patterns, `U*`/`S*` unsigned/signed integers, `F*`/`Bf*`/`Tf32`
/// floating point (the `x2` forms are two halves packed in 32 bits), `Pred` a predicate.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[repr(u8)]
pub enum Type {
    B8,
    B16,
    B32,
    B64,
    B128,
    U8,
    U16,
    U32,
    U64,
    S8,
    S16,
    S32,
    S64,
    F16,
    F16x2,
    Bf16,
    Bf16x2,
    E4m3x2,
    E5m2x2,
    Tf32,
    F32,
    F64,
    Pred,
    TexRef,
    SamplerRef,
    SurfRef,
}

/// The interpretation of a type's bits.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum TypeKind {
    /// Untyped bits (`.b32`): integer arithmetic treats them as unsigned.
    Bits,
    Unsigned,
    Signed,
    Float,
    Pred,
    /// `.texref`, `.samplerref`, `.surfref` handles.
    Opaque,
}

impl Type {
    pub const ALL: &'static [Type] = &[
        Type::B8,
        Type::B16,
        Type::B32,
        Type::B64,
        Type::B128,
        Type::U8,
        Type::U16,
        Type::U32,
        Type::U64,
        Type::S8,
        Type::S16,
        Type::S32,
        Type::S64,
        Type::F16,
        Type::F16x2,
        Type::Bf16,
        Type::Bf16x2,
        Type::E4m3x2,
        Type::E5m2x2,
        Type::Tf32,
        Type::F32,
        Type::F64,
        Type::Pred,
        Type::TexRef,
        Type::SamplerRef,
        Type::SurfRef,
    ];

    /// The spelling without the dot, e.g. `f32`.
    pub fn name(self) -> &'static str {
        self.to_ast().name()
    }

    /// Parses a type spelling without the dot.
    pub fn from_name(s: &str) -> Option<Type> {
        ScalarType::from_name(s).map(Type::from_ast)
    }

    pub fn from_ast(t: ScalarType) -> Type {
        use ScalarType as S;
        match t {
            S::B8 => Type::B8,
            S::B16 => Type::B16,
            S::B32 => Type::B32,
            S::B64 => Type::B64,
            S::B128 => Type::B128,
            S::U8 => Type::U8,
            S::U16 => Type::U16,
            S::U32 => Type::U32,
            S::U64 => Type::U64,
            S::S8 => Type::S8,
            S::S16 => Type::S16,
            S::S32 => Type::S32,
            S::S64 => Type::S64,
            S::F16 => Type::F16,
            S::F16x2 => Type::F16x2,
            S::Bf16 => Type::Bf16,
            S::Bf16x2 => Type::Bf16x2,
            S::E4m3x2 => Type::E4m3x2,
            S::E5m2x2 => Type::E5m2x2,
            S::Tf32 => Type::Tf32,
            S::F32 => Type::F32,
            S::F64 => Type::F64,
            S::Pred => Type::Pred,
            S::TexRef => Type::TexRef,
            S::SamplerRef => Type::SamplerRef,
            S::SurfRef => Type::SurfRef,
        }
    }

    pub fn to_ast(self) -> ScalarType {
        use ScalarType as S;
        match self {
            Type::B8 => S::B8,
            Type::B16 => S::B16,
            Type::B32 => S::B32,
            Type::B64 => S::B64,
            Type::B128 => S::B128,
            Type::U8 => S::U8,
            Type::U16 => S::U16,
            Type::U32 => S::U32,
            Type::U64 => S::U64,
            Type::S8 => S::S8,
            Type::S16 => S::S16,
            Type::S32 => S::S32,
            Type::S64 => S::S64,
            Type::F16 => S::F16,
            Type::F16x2 => S::F16x2,
            Type::Bf16 => S::Bf16,
            Type::Bf16x2 => S::Bf16x2,
            Type::E4m3x2 => S::E4m3x2,
            Type::E5m2x2 => S::E5m2x2,
            Type::Tf32 => S::Tf32,
            Type::F32 => S::F32,
            Type::F64 => S::F64,
            Type::Pred => S::Pred,
            Type::TexRef => S::TexRef,
            Type::SamplerRef => S::SamplerRef,
            Type::SurfRef => S::SurfRef,
        }
    }

    pub fn kind(self) -> TypeKind {
        use Type::*;
        match self {
            B8 | B16 | B32 | B64 | B128 => TypeKind::Bits,
            U8 | U16 | U32 | U64 => TypeKind::Unsigned,
            S8 | S16 | S32 | S64 => TypeKind::Signed,
            F16 | F16x2 | Bf16 | Bf16x2 | E4m3x2 | E5m2x2 | Tf32 | F32 | F64 => TypeKind::Float,
            Pred => TypeKind::Pred,
            TexRef | SamplerRef | SurfRef => TypeKind::Opaque,
        }
    }

    /// Size in bytes as stored in memory (predicates count as 1 by convention; they are
    /// not addressable).
    pub fn size(self) -> u32 {
        self.to_ast().size()
    }

    /// Width in bits of a register of this type (predicates: 1).
    pub fn bits(self) -> u32 {
        if self == Type::Pred {
            1
        } else {
            self.size() * 8
        }
    }

    /// Integer types, including untyped bits (`.b32` arithmetic is integer arithmetic).
    pub fn is_integer(self) -> bool {
        matches!(
            self.kind(),
            TypeKind::Bits | TypeKind::Unsigned | TypeKind::Signed
        )
    }

    pub fn is_signed(self) -> bool {
        self.kind() == TypeKind::Signed
    }

    pub fn is_float(self) -> bool {
        self.kind() == TypeKind::Float
    }

    /// `.f16`, `.f16x2`, `.bf16`, `.bf16x2`: the half-precision family of §9.7.4.
    pub fn is_half(self) -> bool {
        matches!(self, Type::F16 | Type::F16x2 | Type::Bf16 | Type::Bf16x2)
    }

    /// Two 16-bit halves packed in one 32-bit register.
    pub fn is_packed(self) -> bool {
        matches!(self, Type::F16x2 | Type::Bf16x2)
    }

    /// `.e4m3x2`, `.e5m2x2`: two FP8 values packed in 16 bits (§5.2.5).
    pub fn is_fp8x2(self) -> bool {
        matches!(self, Type::E4m3x2 | Type::E5m2x2)
    }

    pub fn is_pred(self) -> bool {
        self == Type::Pred
    }
}

impl fmt::Display for Type {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_type_round_trips_through_its_spelling() {
        for &t in Type::ALL {
            assert_eq!(Type::from_name(t.name()), Some(t), "{t}");
        }
        assert_eq!(Type::from_name("f33"), None);
    }

    #[test]
    fn kinds_and_sizes() {
        assert!(Type::S32.is_signed() && Type::S32.is_integer());
        assert!(Type::B64.is_integer() && !Type::B64.is_signed());
        assert!(Type::F16x2.is_float() && Type::F16x2.is_packed());
        assert_eq!(Type::F16x2.size(), 4);
        assert_eq!(Type::Pred.bits(), 1);
        assert_eq!(Type::U64.bits(), 64);
    }
}
