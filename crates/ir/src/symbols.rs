//! The symbol table: variables (with their layout and initial bytes) and function
//! signatures (PTX ISA §5.4, §5.1.6, §11.3–§11.4).
//!
//! Layout rules:
//! * a variable's size is `element size × vector width × product of dimensions`; an
//!   unsized array (`.extern .shared .b8 smem[]`) has no size and, in `.shared`, is the
//!   dynamically sized shared memory that all such arrays alias (§5.1.5);
//! * its alignment is the `.align` given, or the element size × vector width;
//! * parameters are laid out in the parameter space in declaration order, each at the next
//!   multiple of its alignment (§5.1.6); [`crate::Function::param_space_size`] is the end of the
//!   last one.
//!
//! Initialisers (§5.4.4) are evaluated to little-endian bytes. Symbol addresses in them
//! (`ptr = counter`, `= generic(buf)`, `sym+8`) cannot be known before the program is
//! placed in memory, so the bytes hold the addend and a [`Relocation`] records the symbol.

use warpcheck_ptx::Span;
use warpcheck_ptx::ast::{self, BinaryOp, ExprKind, StateSpace, UnaryOp};

use crate::demangle::Demangled;
use crate::entity::FuncId;
use crate::error::LowerError;
use crate::operand::Symbol;
use crate::types::Type;

/// Linkage of a module-scope symbol (§11.6); `Internal` when none is written.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Linkage {
    Internal,
    Visible,
    Extern,
    Weak,
    Common,
}

impl Linkage {
    pub fn from_ast(linkage: &[warpcheck_ptx::Spanned<ast::Linkage>]) -> Linkage {
        match linkage.first().map(|l| l.value) {
            None => Linkage::Internal,
            Some(ast::Linkage::Visible) => Linkage::Visible,
            Some(ast::Linkage::Extern) => Linkage::Extern,
            Some(ast::Linkage::Weak) => Linkage::Weak,
            Some(ast::Linkage::Common) => Linkage::Common,
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            Linkage::Internal => "internal",
            Linkage::Visible => "visible",
            Linkage::Extern => "extern",
            Linkage::Weak => "weak",
            Linkage::Common => "common",
        }
    }
}

/// Where a variable is declared.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum VarScope {
    Module,
    Function(FuncId),
}

/// What a variable is for.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum VarRole {
    /// A module-scope variable.
    Global,
    /// A variable declared in a function body (`.local`, `.shared`, call-sequence
    /// `.param`s).
    Local,
    /// The `index`-th parameter of a function, at byte `offset` of its parameter space.
    Param { index: u32, offset: u64 },
    /// The `index`-th return parameter of a `.func`, at byte `offset`.
    Return { index: u32, offset: u64 },
}

/// `.ptr` attributes of a kernel pointer parameter (§5.1.6.1).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct PtrAttributes {
    /// The state space the pointer points into (generic if `None`).
    pub space: Option<StateSpace>,
    /// The alignment of the pointed-to data.
    pub align: Option<u32>,
}

/// A variable: module-scope, function-scope, or a parameter.
#[derive(Clone, Debug, PartialEq)]
pub struct Variable {
    /// The name in the IR: as written, or with a `$N` suffix when the declaration shadows
    /// another one of the same function (nested call-sequence scopes).
    pub name: String,
    pub demangled: Option<Demangled>,
    pub space: StateSpace,
    /// Element type.
    pub ty: Type,
    /// `.v2`/`.v4` element vectors.
    pub vector: Option<u8>,
    /// Array dimensions as written; `None` for an unsized dimension.
    pub dims: Vec<Option<u64>>,
    /// Size in bytes; `None` for an unsized array (dynamic shared memory).
    pub size: Option<u64>,
    /// Alignment in bytes (explicit `.align`, or natural).
    pub align: u32,
    /// Initial contents, when initialised.
    pub init: Option<InitialValue>,
    pub linkage: Linkage,
    pub scope: VarScope,
    pub role: VarRole,
    pub ptr: Option<PtrAttributes>,
    /// `.attribute(.managed)` and similar, without dots.
    pub attributes: Vec<String>,
    pub span: Span,
}

impl Variable {
    /// Size of one element (scalar size × vector width).
    pub fn element_size(&self) -> u64 {
        self.ty.size() as u64 * self.vector.unwrap_or(1) as u64
    }

    /// Whether this is dynamically sized shared memory (`.extern .shared .b8 smem[]`).
    pub fn is_dynamic_shared(&self) -> bool {
        self.space == StateSpace::Shared && self.size.is_none()
    }

    /// The demangled short name if mangled, else the name.
    pub fn display_name(&self) -> &str {
        self.demangled.as_ref().map_or(&self.name, |d| &d.short)
    }
}

/// Evaluated initial contents of a variable.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct InitialValue {
    /// Little-endian bytes of the whole variable (zero-filled past the last initialiser).
    pub bytes: Vec<u8>,
    /// Symbol addresses to add at given offsets when the program is placed in memory.
    pub relocations: Vec<Relocation>,
}

/// "Add the address of `symbol` to the `size`-byte little-endian value at `offset`."
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Relocation {
    pub offset: u64,
    pub size: u8,
    pub symbol: Symbol,
    /// Whether the address is generic (`generic(sym)`) rather than in the symbol's own
    /// state space.
    pub generic: bool,
}

/// Performance-tuning directives of a function (§11.4).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Tuning {
    pub maxntid: Option<[u32; 3]>,
    pub reqntid: Option<[u32; 3]>,
    pub minnctapersm: Option<u32>,
    pub maxnreg: Option<u32>,
    pub maxclusterrank: Option<u32>,
    /// `.noreturn` and other attributes, without dots.
    pub attributes: Vec<String>,
}

/// One parameter of a `.callprototype` (§11.3.3).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ProtoParam {
    pub ty: Type,
    pub size: u64,
    pub align: u32,
}

/// A `.callprototype` declared in a function body.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Prototype {
    pub name: String,
    pub returns: Vec<ProtoParam>,
    pub params: Vec<ProtoParam>,
    pub span: Span,
}

/// Layout of one declarator.
pub(crate) struct Layout {
    pub dims: Vec<Option<u64>>,
    /// `None` for an unsized array.
    pub size: Option<u64>,
    pub align: u32,
}

/// Computes the layout of a declarator (see the module documentation).
pub(crate) fn layout(
    decl: &ast::VariableDecl,
    declarator: &ast::Declarator,
) -> Result<Layout, LowerError> {
    let ty = Type::from_ast(decl.ty.value);
    let vector = decl.vector.as_ref().map_or(1, |v| v.value as u64);
    let element = ty.size() as u64 * vector;
    // `None` while the array is unsized; an overflow is an error, not "unsized".
    let mut count: Option<u64> = Some(1);
    let too_big = || {
        LowerError::new(
            format!("the size of `{}` overflows 64 bits", declarator.name.value),
            declarator.span,
        )
    };
    for (i, dim) in declarator.dims.iter().enumerate() {
        match dim {
            Some(n) => {
                if let Some(c) = count {
                    count = Some(c.checked_mul(*n).ok_or_else(too_big)?);
                }
            }
            None if i == 0 => count = None,
            None => {
                return Err(LowerError::new(
                    format!(
                        "only the first dimension of `{}` may be unsized",
                        declarator.name.value
                    ),
                    declarator.span,
                ));
            }
        }
    }
    let size = match count {
        Some(c) => Some(c.checked_mul(element).ok_or_else(too_big)?),
        None => None,
    };
    let natural = u32::try_from(element).unwrap_or(u32::MAX).max(1);
    let align = match &decl.align {
        Some(a) if a.value.is_power_of_two() => a.value,
        Some(a) => {
            return Err(LowerError::new(
                format!("alignment {} is not a power of two", a.value),
                a.span,
            ));
        }
        None => natural,
    };
    Ok(Layout {
        dims: declarator.dims.clone(),
        size,
        align,
    })
}

/// Rounds `offset` up to a multiple of `align` (a power of two); `None` on overflow.
pub(crate) fn align_up(offset: u64, align: u32) -> Option<u64> {
    let a = align.max(1) as u64;
    offset.div_ceil(a).checked_mul(a)
}

/// The value of a constant expression (§4.6).
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) enum ConstValue {
    /// A 64-bit integer pattern.
    Int(u64),
    F32(u32),
    F64(u64),
    /// The address of a symbol plus a byte offset.
    Address {
        symbol: Symbol,
        addend: i64,
        generic: bool,
    },
}

/// Evaluates a constant expression; `resolve` maps names to symbols. Integer arithmetic
/// is 64-bit two's complement (signed division and shifts, as PTX evaluates constant
/// expressions without a `U` suffix).
pub(crate) fn eval_const(
    expr: &ast::Expr,
    resolve: &dyn Fn(&str) -> Option<Symbol>,
) -> Result<ConstValue, LowerError> {
    let err = |m: String| LowerError::new(m, expr.span);
    Ok(match &expr.kind {
        ExprKind::Int(v) => ConstValue::Int(*v),
        ExprKind::F32(b) => ConstValue::F32(*b),
        ExprKind::F64(b) => ConstValue::F64(*b),
        ExprKind::Name(name) => match resolve(name) {
            Some(symbol) => ConstValue::Address {
                symbol,
                addend: 0,
                generic: false,
            },
            // The predefined warp size (PTX ISA §4.3.1).
            None if name == "WARP_SZ" => ConstValue::Int(32),
            None => {
                return Err(err(format!(
                    "unknown symbol `{name}` in constant expression"
                )));
            }
        },
        ExprKind::Unary(op, inner) => match (op, eval_const(inner, resolve)?) {
            (UnaryOp::Neg, ConstValue::Int(v)) => ConstValue::Int(v.wrapping_neg()),
            (UnaryOp::Neg, ConstValue::F32(b)) => ConstValue::F32(b ^ 0x8000_0000),
            (UnaryOp::Neg, ConstValue::F64(b)) => ConstValue::F64(b ^ (1 << 63)),
            (UnaryOp::Not, ConstValue::Int(v)) => ConstValue::Int(!v),
            (UnaryOp::LogicalNot, ConstValue::Int(v)) => ConstValue::Int((v == 0) as u64),
            _ => return Err(err("this operator cannot be applied to that operand".into())),
        },
        ExprKind::Binary(op, a, b) => {
            let (x, y) = (eval_const(a, resolve)?, eval_const(b, resolve)?);
            match (x, y) {
                (ConstValue::Int(x), ConstValue::Int(y)) => ConstValue::Int(int_binary(*op, x, y).ok_or_else(|| err("division by zero in constant expression".into()))?),
                (ConstValue::Address { symbol, addend, generic }, ConstValue::Int(y)) if matches!(op, BinaryOp::Add | BinaryOp::Sub) => {
                    let y = y as i64;
                    let addend = if *op == BinaryOp::Add { addend.wrapping_add(y) } else { addend.wrapping_sub(y) };
                    ConstValue::Address { symbol, addend, generic }
                }
                (ConstValue::Int(x), ConstValue::Address { symbol, addend, generic }) if *op == BinaryOp::Add => {
                    ConstValue::Address { symbol, addend: addend.wrapping_add(x as i64), generic }
                }
                _ => return Err(err("only integers, and symbols plus or minus integers, can be combined in constant expressions".into())),
            }
        }
        ExprKind::Call(function, args) => match (function.value.as_str(), args.as_slice()) {
            ("generic", [arg]) => match eval_const(arg, resolve)? {
                ConstValue::Address { symbol, addend, .. } => ConstValue::Address {
                    symbol,
                    addend,
                    generic: true,
                },
                _ => return Err(err("`generic()` takes a variable".into())),
            },
            (name, _) => {
                return Err(err(format!(
                    "`{name}(...)` is not supported in constant expressions"
                )));
            }
        },
    })
}

fn int_binary(op: BinaryOp, x: u64, y: u64) -> Option<u64> {
    let (sx, sy) = (x as i64, y as i64);
    Some(match op {
        BinaryOp::Add => x.wrapping_add(y),
        BinaryOp::Sub => x.wrapping_sub(y),
        BinaryOp::Mul => x.wrapping_mul(y),
        BinaryOp::Div => {
            sx.checked_div(sy)
                .map(|v| v as u64)
                .or(if sy == 0 { None } else { Some(x) })?
        }
        BinaryOp::Rem => {
            sx.checked_rem(sy)
                .map(|v| v as u64)
                .or(if sy == 0 { None } else { Some(0) })?
        }
        BinaryOp::Shl => x.checked_shl(y as u32).unwrap_or(0),
        BinaryOp::Shr => sx
            .checked_shr(y as u32)
            .map_or(if sx < 0 { u64::MAX } else { 0 }, |v| v as u64),
        BinaryOp::And => x & y,
        BinaryOp::Or => x | y,
        BinaryOp::Xor => x ^ y,
    })
}

/// The largest initialised variable lowered (its bytes are materialised).
pub const MAX_INITIALISED_SIZE: u64 = 256 << 20;

/// Evaluates an initialiser for a variable of element type `ty` and `size` bytes (`None`
/// for an unsized array, whose size the initialiser then decides). Nested brace lists are
/// flattened in order, one leaf per scalar element.
pub(crate) fn eval_initializer(
    init: &ast::Initializer,
    ty: Type,
    size: Option<u64>,
    span: Span,
    resolve: &dyn Fn(&str) -> Option<Symbol>,
) -> Result<(InitialValue, u64), LowerError> {
    let mut leaves = Vec::new();
    flatten(init, &mut leaves);
    let element = ty.size() as u64;
    let needed = leaves.len() as u64 * element;
    let size = size.unwrap_or(needed);
    if needed > size {
        return Err(LowerError::new(
            format!(
                "{} initialisers do not fit in {size} bytes of `.{ty}`",
                leaves.len()
            ),
            span,
        ));
    }
    if size > MAX_INITIALISED_SIZE {
        return Err(LowerError::new(
            format!(
                "initialised variables larger than {} MiB are not supported ({size} bytes)",
                MAX_INITIALISED_SIZE >> 20
            ),
            span,
        ));
    }
    let mut value = InitialValue {
        bytes: vec![0; size as usize],
        relocations: Vec::new(),
    };
    for (i, leaf) in leaves.iter().enumerate() {
        let offset = i as u64 * element;
        let bits = match eval_const(leaf, resolve)? {
            ConstValue::Int(v) if ty.is_float() => float_bits_of(ty, v as i64 as f64),
            ConstValue::Int(v) => v,
            ConstValue::F32(b) if ty == Type::F64 => (f32::from_bits(b) as f64).to_bits(),
            ConstValue::F32(b) if ty == Type::F16 || ty == Type::Bf16 => {
                float_bits_of(ty, f32::from_bits(b) as f64)
            }
            ConstValue::F32(b) => b as u64,
            ConstValue::F64(b) if ty.is_float() && ty != Type::F64 => {
                float_bits_of(ty, f64::from_bits(b))
            }
            ConstValue::F64(b) => b,
            ConstValue::Address {
                symbol,
                addend,
                generic,
            } => {
                if element != 8 && element != 4 {
                    return Err(LowerError::new(
                        format!("a symbol address needs a 32- or 64-bit element, not `.{ty}`"),
                        leaf.span,
                    ));
                }
                value.relocations.push(Relocation {
                    offset,
                    size: element as u8,
                    symbol,
                    generic,
                });
                addend as u64
            }
        };
        let le = bits.to_le_bytes();
        let start = offset as usize;
        value.bytes[start..start + element as usize].copy_from_slice(&le[..element as usize]);
    }
    Ok((value, size))
}

fn flatten<'a>(init: &'a ast::Initializer, out: &mut Vec<&'a ast::Expr>) {
    match init {
        ast::Initializer::Expr(e) => out.push(e),
        ast::Initializer::List { items, .. } => items.iter().for_each(|i| flatten(i, out)),
    }
}

/// The bits of `value` in float type `ty` (round to nearest even).
fn float_bits_of(ty: Type, value: f64) -> u64 {
    match ty {
        Type::F64 => value.to_bits(),
        Type::F32 | Type::Tf32 => (value as f32).to_bits() as u64,
        Type::F16 => f32_to_f16_bits(value as f32) as u64,
        Type::Bf16 => {
            let b = (value as f32).to_bits();
            let rounded = b.wrapping_add(0x7fff + ((b >> 16) & 1));
            (rounded >> 16) as u64
        }
        _ => value.to_bits(),
    }
}

/// IEEE binary16 bits of an f32, rounding to nearest even.
pub(crate) fn f32_to_f16_bits(x: f32) -> u16 {
    let b = x.to_bits();
    let sign = ((b >> 16) & 0x8000) as u16;
    let exp = ((b >> 23) & 0xff) as i32;
    let mant = b & 0x7f_ffff;
    if exp == 0xff {
        return sign | 0x7c00 | if mant != 0 { 0x200 } else { 0 };
    }
    let e = exp - 127 + 15;
    if e >= 0x1f {
        return sign | 0x7c00;
    }
    if e <= 0 {
        if e < -10 {
            return sign;
        }
        let m = mant | 0x80_0000;
        let shift = (14 - e) as u32;
        let half = 1u32 << (shift - 1);
        let rest = m & ((1 << shift) - 1);
        let mut r = m >> shift;
        if rest > half || (rest == half && r & 1 == 1) {
            r += 1;
        }
        return sign | r as u16;
    }
    let mut r = ((e as u32) << 10) | (mant >> 13);
    let rest = mant & 0x1fff;
    if rest > 0x1000 || (rest == 0x1000 && r & 1 == 1) {
        r += 1;
    }
    sign | r as u16
}

/// The demangled name of a symbol, or the name.
pub(crate) fn demangled(name: &str) -> Option<Demangled> {
    crate::demangle::demangle(name)
}

/// Reads a `[x, y, z]` directive argument list (`.maxntid 256, 1, 1`; missing dimensions
/// are 1).
pub(crate) fn dims3(args: &[ast::DirectiveArg], span: Span) -> Result<[u32; 3], LowerError> {
    let mut out = [1u32; 3];
    if args.is_empty() || args.len() > 3 {
        return Err(LowerError::new("expected one to three dimensions", span));
    }
    for (i, arg) in args.iter().enumerate() {
        out[i] = directive_u32(arg, span)?;
    }
    Ok(out)
}

pub(crate) fn directive_u32(arg: &ast::DirectiveArg, span: Span) -> Result<u32, LowerError> {
    match arg {
        ast::DirectiveArg::Expr(e) => match eval_const(e, &|_| None)? {
            ConstValue::Int(v) => u32::try_from(v)
                .map_err(|_| LowerError::new("value does not fit in 32 bits", e.span)),
            _ => Err(LowerError::new("expected an integer", e.span)),
        },
        ast::DirectiveArg::String(s) => Err(LowerError::new("expected an integer", s.span)),
    }
    .map_err(|mut e: LowerError| {
        if e.span == Span::DUMMY {
            e.span = span;
        }
        e
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn f16_conversion_rounds_to_nearest_even() {
        assert_eq!(f32_to_f16_bits(1.0), 0x3c00);
        assert_eq!(f32_to_f16_bits(-2.0), 0xc000);
        assert_eq!(f32_to_f16_bits(65504.0), 0x7bff);
        assert_eq!(f32_to_f16_bits(1e6), 0x7c00);
        assert_eq!(f32_to_f16_bits(5.960_464_5e-8), 0x0001);
        assert_eq!(f32_to_f16_bits(f32::NAN) & 0x7c00, 0x7c00);
    }

    #[test]
    fn alignment_rounds_up() {
        assert_eq!(align_up(0, 8), Some(0));
        assert_eq!(align_up(4, 8), Some(8));
        assert_eq!(align_up(12, 4), Some(12));
        assert_eq!(align_up(13, 1), Some(13));
        assert_eq!(align_up(u64::MAX - 2, 8), None);
    }
}
