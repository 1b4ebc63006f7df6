//! The PTX syntax tree.
//!
//! The tree keeps what the text says, not what it means: instructions are an opcode, its
//! dotted modifiers and its operands, exactly as written (`ld.global.nc.v4.f32` is opcode
//! `ld` with modifiers `global nc v4 f32`). Deciding which modifier combinations are
//! valid and what they mean is the job of `warpcheck-ir`, which holds the one table of the
//! instruction set. This split lets the parser accept every instruction the compilers emit
//! (including ones warpcheck cannot yet execute) and lets the printer round-trip any module.
//!
//! Every node carries the [`Span`] of the text it was parsed from.
//!
//! Reference: PTX ISA 8.x, chapters 4 (syntax), 5 (state spaces, types, variables),
//! 9 (instructions) and 11 (directives).

use crate::span::{Span, Spanned};

/// An identifier as written, e.g. `%r12`, `_Z6vecAddPfS_S_i`, `$L__BB0_2`, `%tid`.
pub type Ident = Spanned<String>;

/// A parsed PTX module: its top-level items in source order.
#[derive(Clone, Debug, PartialEq)]
pub struct Module {
    pub items: Vec<Item>,
    pub span: Span,
}

/// A top-level directive or declaration (PTX ISA §11.1, §5.4, §11.2).
#[derive(Clone, Debug, PartialEq)]
pub enum Item {
    /// `.version 8.0`
    Version { major: u32, minor: u32, span: Span },
    /// `.target sm_80, debug`
    Target { targets: Vec<Ident>, span: Span },
    /// `.address_size 64`
    AddressSize { bits: u32, span: Span },
    /// `.file 1 "kernel.cu"` or `.file 1 "kernel.cu", 1700000000, 1234`
    File(FileDirective),
    /// A module-scope variable: `.global .align 4 .b8 buf[16] = {...};`
    Variable(VariableDecl),
    /// `.entry` or `.func`, a definition or a declaration.
    Function(Box<Function>),
    /// `.section .debug_info { ... }`
    Section(Section),
    /// `.pragma "nounroll";`
    Pragma {
        args: Vec<Spanned<String>>,
        span: Span,
    },
    /// `.alias fAlias, fTarget;`
    Alias {
        alias: Ident,
        aliasee: Ident,
        span: Span,
    },
}

/// `.file INDEX "PATH" [, TIMESTAMP, SIZE]` (§11.5.2).
#[derive(Clone, Debug, PartialEq)]
pub struct FileDirective {
    pub index: u32,
    pub path: Spanned<String>,
    /// Optional timestamp and file size, kept for round-tripping.
    pub extra: Vec<Spanned<u64>>,
    pub span: Span,
}

/// Linkage directives (§11.6): `.visible`, `.extern`, `.weak`, `.common`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Linkage {
    Visible,
    Extern,
    Weak,
    Common,
}

/// State spaces (§5.1).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum StateSpace {
    Reg,
    Sreg,
    Const,
    Global,
    Local,
    Param,
    Shared,
    Tex,
}

/// Fundamental and opaque types usable in declarations (§5.2).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ScalarType {
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
    /// Two FP8 values (4-bit exponent, 3-bit mantissa) packed in 16 bits.
    E4m3x2,
    /// Two FP8 values (5-bit exponent, 2-bit mantissa) packed in 16 bits.
    E5m2x2,
    Tf32,
    F32,
    F64,
    Pred,
    TexRef,
    SamplerRef,
    SurfRef,
}

/// A variable, register or parameter declaration (§5.4, §5.1.6).
///
/// Covers `.reg .b32 %r<5>;`, `.shared .align 4 .b8 tile[1024];`,
/// `.const .f32 c[2] = {0f3F800000, 0f40000000};`, and kernel parameters such as
/// `.param .u64 .ptr .global .align 4 p` (parameters have exactly one declarator and no
/// terminating `;`).
#[derive(Clone, Debug, PartialEq)]
pub struct VariableDecl {
    pub linkage: Vec<Spanned<Linkage>>,
    pub space: Spanned<StateSpace>,
    /// `.attribute(.managed)` and similar, kept by name.
    pub attributes: Vec<Ident>,
    pub align: Option<Spanned<u32>>,
    /// `.v2`, `.v4` or `.v8` vector declarations.
    pub vector: Option<Spanned<u8>>,
    pub ty: Spanned<ScalarType>,
    /// Kernel parameter pointer attributes: `.ptr [.space] [.align N]` (§5.1.6.1).
    pub ptr: Option<PtrAttributes>,
    pub declarators: Vec<Declarator>,
    pub span: Span,
}

/// `.ptr .global .align 4` on a kernel parameter.
#[derive(Clone, Debug, PartialEq)]
pub struct PtrAttributes {
    pub space: Option<Spanned<StateSpace>>,
    pub align: Option<Spanned<u32>>,
    pub span: Span,
}

/// One declared name: `%r<5>`, `buf[16][4]`, `x = 3`, `smem[]`.
#[derive(Clone, Debug, PartialEq)]
pub struct Declarator {
    pub name: Ident,
    /// Parameterised register names: `%r<5>` declares `%r0` … `%r4`.
    pub range: Option<Spanned<u32>>,
    /// Array dimensions; `None` for an unsized dimension `[]`.
    pub dims: Vec<Option<u64>>,
    pub init: Option<Initializer>,
    pub span: Span,
}

/// A variable initialiser: a constant expression or a brace list (§5.4.4).
#[derive(Clone, Debug, PartialEq)]
pub enum Initializer {
    Expr(Expr),
    List { items: Vec<Initializer>, span: Span },
}

/// A constant expression (§4.6): literals, symbol names and operators over them.
#[derive(Clone, Debug, PartialEq)]
pub struct Expr {
    pub kind: ExprKind,
    pub span: Span,
}

#[derive(Clone, Debug, PartialEq)]
pub enum ExprKind {
    /// An integer literal as its 64-bit pattern (decimal, hex, octal, binary; `U` suffix allowed).
    Int(u64),
    /// `0fXXXXXXXX`: a single-precision float by its bits.
    F32(u32),
    /// `0dXXXXXXXXXXXXXXXX` or a decimal float such as `1.5`: a double by its bits.
    F64(u64),
    /// A symbol: a variable, function or label name (also `.debug_abbrev` in sections).
    Name(String),
    Unary(UnaryOp, Box<Expr>),
    Binary(BinaryOp, Box<Expr>, Box<Expr>),
    /// `generic(sym)` or `mask(...)` in initialisers.
    Call(Ident, Vec<Expr>),
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum UnaryOp {
    Neg,
    Not,
    LogicalNot,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum BinaryOp {
    Add,
    Sub,
    Mul,
    Div,
    Rem,
    Shl,
    Shr,
    And,
    Or,
    Xor,
}

/// `.entry` or `.func`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum FunctionKind {
    Entry,
    Func,
}

/// A kernel (`.entry`) or device function (`.func`) (§11.3).
#[derive(Clone, Debug, PartialEq)]
pub struct Function {
    pub linkage: Vec<Spanned<Linkage>>,
    pub kind: Spanned<FunctionKind>,
    /// `.noreturn`, `.attribute(...)` and other attributes before or after the name.
    pub attributes: Vec<Ident>,
    /// Return parameters of a `.func`: `(.param .b32 func_retval0)`.
    pub returns: Vec<VariableDecl>,
    pub name: Ident,
    pub params: Vec<VariableDecl>,
    /// Performance-tuning directives: `.maxntid 256, 1, 1`, `.reqntid`, `.minnctapersm`,
    /// `.maxnreg`, `.pragma` … (§11.4).
    pub directives: Vec<FunctionDirective>,
    /// `None` for a declaration ending in `;`.
    pub body: Option<Block>,
    pub span: Span,
}

/// A directive between a function's parameter list and its body, e.g. `.maxntid 256, 1, 1`.
#[derive(Clone, Debug, PartialEq)]
pub struct FunctionDirective {
    /// The directive name without its dot, e.g. `maxntid`.
    pub name: Ident,
    pub args: Vec<DirectiveArg>,
    pub span: Span,
}

#[derive(Clone, Debug, PartialEq)]
pub enum DirectiveArg {
    Expr(Expr),
    String(Spanned<String>),
}

/// `{ statements }`: a function body or a nested scope (clang's call sequences).
#[derive(Clone, Debug, PartialEq)]
pub struct Block {
    pub statements: Vec<Statement>,
    pub span: Span,
}

#[derive(Clone, Debug, PartialEq)]
pub enum Statement {
    /// `$L__BB0_2:`
    Label(Ident),
    Instruction(Instruction),
    /// `.reg`, `.local`, `.shared`, `.param` … declarations inside a body.
    Variable(VariableDecl),
    Loc(Loc),
    Pragma {
        args: Vec<Spanned<String>>,
        span: Span,
    },
    Block(Block),
    /// `$L_brx_0: .branchtargets $L__BB0_1, $L__BB0_2;` (the label is a separate statement).
    BranchTargets {
        targets: Vec<Ident>,
        span: Span,
    },
    /// `.calltargets f1, f2;`
    CallTargets {
        targets: Vec<Ident>,
        span: Span,
    },
    /// `prototype_0 : .callprototype (.param .b32 _) _ (.param .b64 _);`
    CallPrototype(CallPrototype),
}

/// `.loc FILE LINE COLUMN [, function_name LABEL [+ OFFSET], inlined_at FILE LINE COLUMN]`
/// (§11.5.1).
#[derive(Clone, Debug, PartialEq)]
pub struct Loc {
    pub file: u32,
    pub line: u32,
    pub column: u32,
    /// The label of the inlined function's name string: `$L__info_string0` (clang, nvcc) or
    /// the section name `.debug_str` (nvcc), then offset by [`Loc::function_name_offset`].
    pub function_name: Option<Ident>,
    /// The byte offset after `function_name`, as in nvcc's `function_name .debug_str+16`;
    /// 0 when none is written.
    pub function_name_offset: u64,
    pub inlined_at: Option<(u32, u32, u32)>,
    pub span: Span,
}

/// A prototype for indirect calls (§11.3.3). The label before it is part of this node.
#[derive(Clone, Debug, PartialEq)]
pub struct CallPrototype {
    pub label: Ident,
    pub returns: Vec<VariableDecl>,
    pub params: Vec<VariableDecl>,
    pub attributes: Vec<Ident>,
    pub span: Span,
}

/// One instruction statement: `@!%p1 ld.global.nc.f32 %f1, [%rd4+8];`
#[derive(Clone, Debug, PartialEq)]
pub struct Instruction {
    pub guard: Option<Guard>,
    /// The base opcode, e.g. `ld`, `mad`, `bar`.
    pub opcode: Ident,
    /// Dotted modifiers in order, without their dots: `global`, `nc`, `v4`, `f32`,
    /// `L1::no_allocate`.
    pub modifiers: Vec<Ident>,
    pub operands: Vec<Operand>,
    pub span: Span,
}

/// `@%p` or `@!%p`.
#[derive(Clone, Debug, PartialEq)]
pub struct Guard {
    pub negated: bool,
    pub predicate: Ident,
    pub span: Span,
}

#[derive(Clone, Debug, PartialEq)]
pub struct Operand {
    pub kind: OperandKind,
    pub span: Span,
}

#[derive(Clone, Debug, PartialEq)]
pub enum OperandKind {
    /// A register, special register, variable, function or label name, optionally with a
    /// vector component: `%r1`, `%tid.x`, `_Z3foov`, `$L__BB0_2`.
    Name {
        name: Ident,
        component: Option<Spanned<Component>>,
    },
    /// A constant expression: `-1`, `0f3F800000`, `sym+8`.
    Expr(Expr),
    /// `[%rd1+-4]`, `[sym]`, `[tex, {%r1, %r2}]` (§6.4.1).
    Address(Address),
    /// `{%f1, %f2, %f3, %f4}` (§6.4.2).
    Vector(Vec<Operand>),
    /// `%r1|%p1`: the two destinations of `setp`, `shfl` and friends.
    Pair(Box<Operand>, Box<Operand>),
    /// `!%p1` as a source predicate.
    Not(Box<Operand>),
    /// `_`, the sink operand.
    Sink,
    /// `(param0, param1)`: return and argument lists of `call`.
    List(Vec<Operand>),
}

/// A vector component selector `.x .y .z .w` (also `.r .g .b .a`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Component {
    X,
    Y,
    Z,
    W,
}

/// An address operand `[base + offset]`.
#[derive(Clone, Debug, PartialEq)]
pub struct Address {
    /// A register or symbol; `None` for an absolute address `[1024]`.
    pub base: Option<Ident>,
    /// The constant byte offset (negative offsets are written `+-4`).
    pub offset: i64,
    /// Extra operands after a comma, as in texture and surface instructions:
    /// `[tex, {%r1, %r2}]`.
    pub extra: Vec<Operand>,
    pub span: Span,
}

/// `.section NAME { entries }` — DWARF sections emitted with debug information (§11.5.3).
#[derive(Clone, Debug, PartialEq)]
pub struct Section {
    pub name: Ident,
    pub entries: Vec<SectionEntry>,
    pub span: Span,
}

#[derive(Clone, Debug, PartialEq)]
pub enum SectionEntry {
    Label(Ident),
    /// `.b8 1, 17, 0` or `.b32 .debug_abbrev` or `.b64 $L__func_begin0`.
    Data {
        ty: Spanned<ScalarType>,
        values: Vec<Expr>,
        span: Span,
    },
}

impl ScalarType {
    /// The spelling without the dot, e.g. `f32`.
    pub fn name(self) -> &'static str {
        use ScalarType::*;
        match self {
            B8 => "b8",
            B16 => "b16",
            B32 => "b32",
            B64 => "b64",
            B128 => "b128",
            U8 => "u8",
            U16 => "u16",
            U32 => "u32",
            U64 => "u64",
            S8 => "s8",
            S16 => "s16",
            S32 => "s32",
            S64 => "s64",
            F16 => "f16",
            F16x2 => "f16x2",
            Bf16 => "bf16",
            Bf16x2 => "bf16x2",
            E4m3x2 => "e4m3x2",
            E5m2x2 => "e5m2x2",
            Tf32 => "tf32",
            F32 => "f32",
            F64 => "f64",
            Pred => "pred",
            TexRef => "texref",
            SamplerRef => "samplerref",
            SurfRef => "surfref",
        }
    }

    /// Parses a type spelling without the dot.
    pub fn from_name(s: &str) -> Option<ScalarType> {
        use ScalarType::*;
        Some(match s {
            "b8" => B8,
            "b16" => B16,
            "b32" => B32,
            "b64" => B64,
            "b128" => B128,
            "u8" => U8,
            "u16" => U16,
            "u32" => U32,
            "u64" => U64,
            "s8" => S8,
            "s16" => S16,
            "s32" => S32,
            "s64" => S64,
            "f16" => F16,
            "f16x2" => F16x2,
            "bf16" => Bf16,
            "bf16x2" => Bf16x2,
            "e4m3x2" => E4m3x2,
            "e5m2x2" => E5m2x2,
            "tf32" => Tf32,
            "f32" => F32,
            "f64" => F64,
            "pred" => Pred,
            "texref" => TexRef,
            "samplerref" => SamplerRef,
            "surfref" => SurfRef,
            _ => return None,
        })
    }

    /// Size in bytes as stored in memory (predicates are not addressable; 1 by convention).
    pub fn size(self) -> u32 {
        use ScalarType::*;
        match self {
            B8 | U8 | S8 | Pred => 1,
            B16 | U16 | S16 | F16 | Bf16 | E4m3x2 | E5m2x2 => 2,
            B32 | U32 | S32 | F32 | F16x2 | Bf16x2 | Tf32 => 4,
            B64 | U64 | S64 | F64 | TexRef | SamplerRef | SurfRef => 8,
            B128 => 16,
        }
    }
}

impl StateSpace {
    pub fn name(self) -> &'static str {
        match self {
            StateSpace::Reg => "reg",
            StateSpace::Sreg => "sreg",
            StateSpace::Const => "const",
            StateSpace::Global => "global",
            StateSpace::Local => "local",
            StateSpace::Param => "param",
            StateSpace::Shared => "shared",
            StateSpace::Tex => "tex",
        }
    }

    pub fn from_name(s: &str) -> Option<StateSpace> {
        Some(match s {
            "reg" => StateSpace::Reg,
            "sreg" => StateSpace::Sreg,
            "const" => StateSpace::Const,
            "global" => StateSpace::Global,
            "local" => StateSpace::Local,
            "param" => StateSpace::Param,
            "shared" => StateSpace::Shared,
            "tex" => StateSpace::Tex,
            _ => return None,
        })
    }
}

impl Linkage {
    pub fn name(self) -> &'static str {
        match self {
            Linkage::Visible => "visible",
            Linkage::Extern => "extern",
            Linkage::Weak => "weak",
            Linkage::Common => "common",
        }
    }
}

impl Component {
    pub fn name(self) -> char {
        match self {
            Component::X => 'x',
            Component::Y => 'y',
            Component::Z => 'z',
            Component::W => 'w',
        }
    }
}
