//! Kernel signatures: for every kernel in the PTX, its names and each parameter's name,
//! C type as written, and classification (pointer to what, scalar of which type, struct by
//! value of which size).
//!
//! Where they come from:
//!
//! 1. clang's JSON AST (`clang -fsyntax-only -Xclang -ast-dump=json` with the same flags as
//!    the compilation), read as a stream by [`ast_json`]: every function declaration with
//!    `__global__` (CUDA) or `__kernel` (OpenCL), or with a body (C), plus the typedefs,
//!    records and enums needed to classify parameter types ([`ctype`]).
//! 2. the PTX itself ([`ptx_params`]): the `.entry` (or, for C, `.func`) list in order, and
//!    the size of each `.param`.
//!
//! PTX functions are matched to AST functions by mangled name (clang and nvcc both use the
//! Itanium C++ ABI, and the AST reports `mangledName`). A PTX function that no AST function
//! matches — always the case when only nvcc is available, or for `.ptx` input — gets
//! positional parameter names `arg0`, `arg1` …, typed from the demangled symbol when it is a
//! mangled C++ name (the Itanium mangling encodes the canonical parameter types) and from the
//! PTX `.param` types otherwise.

pub(crate) mod ast_json;
pub(crate) mod ctype;
pub(crate) mod ptx_params;
pub(crate) mod source_names;

use serde::{Deserialize, Serialize};

/// One kernel (or, for C input, one function).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct KernelSignature {
    /// The symbol in the PTX, e.g. `_Z6vecAddPKfS0_Pfi` (the plain name for `extern "C"`,
    /// OpenCL and C functions).
    pub mangled_name: String,
    /// The demangled symbol, e.g. `vecAdd(float const*, float const*, float*, int)`; the
    /// symbol itself when it is not mangled.
    pub demangled_name: String,
    /// The unqualified function name, e.g. `vecAdd`.
    pub name: String,
    pub params: Vec<KernelParam>,
    /// Whether the names and C types come from the source or only from the PTX.
    pub origin: SignatureOrigin,
}

/// Where a signature's parameter names and types were learnt.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum SignatureOrigin {
    /// clang's AST of the source: real names and C types.
    Source,
    /// The PTX alone: names `arg0`, `arg1` …, types from the `.param` declarations.
    Ptx,
}

/// One kernel parameter.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct KernelParam {
    /// The name in the source, or `argN` when only the PTX was available.
    pub name: String,
    /// The C type as clang spells it, e.g. `const float *__restrict`; for PTX-only
    /// signatures the type in the demangled symbol (`float const*`) or, for unmangled
    /// symbols, the PTX parameter type (`.u64`, `.align 4 .b8 [12]`).
    pub c_type: String,
    pub kind: ParamKind,
    /// The size of the parameter in the PTX `.param` space, in bytes, when the PTX declares
    /// it.
    pub ptx_size: Option<u64>,
}

/// What a parameter is.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub enum ParamKind {
    /// A pointer (CUDA, C) or address-space-qualified pointer (OpenCL).
    Pointer(PointerParam),
    /// A scalar passed by value.
    Scalar(ScalarType),
    /// A short vector by value: CUDA `float4`, OpenCL `float4` …
    Vector(VectorType),
    /// A struct, class or union by value.
    Struct(StructType),
    /// Known only from the PTX: `.u64` may be a pointer or a 64-bit integer.
    Untyped { ptx_type: String, size: u64 },
    /// A type warpcheck does not classify (function pointer, reference, template pattern …),
    /// with the reason.
    Unsupported { reason: String },
}

/// A pointer parameter.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct PointerParam {
    pub pointee: Pointee,
    /// `const T *`: the kernel promises not to write through it.
    pub is_const: bool,
    pub is_volatile: bool,
    /// `T *__restrict__` / `restrict`.
    pub is_restrict: bool,
    /// The address space of the pointee. CUDA pointers are generic in the language (kernel
    /// arguments normally point to global memory); OpenCL states it.
    pub address_space: AddressSpace,
}

/// The element type a pointer points to.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub enum Pointee {
    Scalar(ScalarType),
    Vector(VectorType),
    Struct(StructType),
    /// `void *`
    Void,
    /// A pointer to a pointer (`float **`).
    Pointer,
    /// Something else (function, array of unknown type …), as spelt.
    Other(String),
}

/// Memory spaces a pointer can address.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum AddressSpace {
    /// No address space in the type: CUDA and C pointers, OpenCL `__generic`.
    Generic,
    /// OpenCL `__global`.
    Global,
    /// OpenCL `__local` (CUDA `__shared__`).
    Shared,
    /// OpenCL `__constant`.
    Constant,
    /// OpenCL `__private`.
    Private,
}

/// Scalar C types, by their storage.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum ScalarType {
    Bool,
    I8,
    U8,
    I16,
    U16,
    I32,
    U32,
    I64,
    U64,
    /// IEEE binary16: `__half`, OpenCL `half`, `_Float16`.
    F16,
    /// bfloat16: `__nv_bfloat16`.
    BF16,
    F32,
    F64,
}

impl ScalarType {
    /// Size in bytes.
    pub fn size(self) -> u64 {
        match self {
            ScalarType::Bool | ScalarType::I8 | ScalarType::U8 => 1,
            ScalarType::I16 | ScalarType::U16 | ScalarType::F16 | ScalarType::BF16 => 2,
            ScalarType::I32 | ScalarType::U32 | ScalarType::F32 => 4,
            ScalarType::I64 | ScalarType::U64 | ScalarType::F64 => 8,
        }
    }

    /// Whether it is a floating-point type.
    pub fn is_float(self) -> bool {
        matches!(
            self,
            ScalarType::F16 | ScalarType::BF16 | ScalarType::F32 | ScalarType::F64
        )
    }

    /// Whether it is a signed integer type.
    pub fn is_signed_integer(self) -> bool {
        matches!(
            self,
            ScalarType::I8 | ScalarType::I16 | ScalarType::I32 | ScalarType::I64
        )
    }

    /// The short name warpcheck uses for it (`f32`, `u8` …).
    pub fn short_name(self) -> &'static str {
        match self {
            ScalarType::Bool => "bool",
            ScalarType::I8 => "i8",
            ScalarType::U8 => "u8",
            ScalarType::I16 => "i16",
            ScalarType::U16 => "u16",
            ScalarType::I32 => "i32",
            ScalarType::U32 => "u32",
            ScalarType::I64 => "i64",
            ScalarType::U64 => "u64",
            ScalarType::F16 => "f16",
            ScalarType::BF16 => "bf16",
            ScalarType::F32 => "f32",
            ScalarType::F64 => "f64",
        }
    }
}

/// A short vector: `lanes` elements, `size` bytes in memory (OpenCL's 3-element vectors
/// take the space of 4; CUDA's do not).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct VectorType {
    /// The type's name, e.g. `float4`.
    pub name: String,
    pub element: ScalarType,
    pub lanes: u32,
    pub size: u64,
    pub align: u64,
}

/// A struct, class or union type.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct StructType {
    /// The tag or typedef name, e.g. `Params`.
    pub name: String,
    /// Its size in bytes: from the PTX for a by-value parameter, else computed from its
    /// fields with the natural C layout; `None` when a field's type is not understood.
    pub size: Option<u64>,
    /// Its scalar fields at their byte offsets, nested records, vectors and arrays (of at
    /// most [`MAX_FIELD_ELEMENTS`] elements) flattened to `inner.x`, `v.y`, `a[2]`; empty
    /// when the layout is not known (no declaration, or a field type not understood).
    #[serde(default)]
    pub fields: Vec<StructField>,
}

/// A scalar field of a struct, at its byte offset (see [`StructType::fields`]).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct StructField {
    /// Its path from the struct: `n`, `inner.x`, `v.y`, `a[2]`.
    pub name: String,
    pub offset: u64,
    pub scalar: ScalarType,
}

/// The most elements of an array field that [`StructType::fields`] lists one by one.
pub const MAX_FIELD_ELEMENTS: u64 = 64;

pub use ptx_params::signatures_from_ptx;

use ast_json::{AstFacts, AstFunction};
use ptx_params::PtxFunction;

/// Joins AST functions and PTX functions (see the module documentation).
pub(crate) fn merge(facts: &AstFacts, ptx_functions: &[PtxFunction]) -> Vec<KernelSignature> {
    ptx_functions
        .iter()
        .map(|ptx| {
            match facts
                .functions
                .iter()
                .find(|f| f.mangled_name.as_deref() == Some(&ptx.name))
            {
                Some(ast) if ast.params.len() == ptx.params.len() => from_ast(facts, ast, ptx),
                _ => ptx_params::signature_from_ptx_function(ptx),
            }
        })
        .collect()
}

fn from_ast(facts: &AstFacts, ast: &AstFunction, ptx: &PtxFunction) -> KernelSignature {
    let params = ast
        .params
        .iter()
        .zip(&ptx.params)
        .map(|(param, ptx_param)| {
            let mut kind = ctype::classify(&param.qual_type, facts);
            // The PTX states the ABI size of a by-value aggregate; prefer it.
            if let ParamKind::Struct(record) = &mut kind
                && let Some(size) = ptx_param.size
            {
                record.size = Some(size);
            }
            KernelParam {
                name: param.name.clone(),
                c_type: param.qual_type.clone(),
                kind,
                ptx_size: ptx_param.size,
            }
        })
        .collect();
    KernelSignature {
        mangled_name: ptx.name.clone(),
        demangled_name: demangle(&ptx.name),
        name: ast.name.clone(),
        params,
        origin: SignatureOrigin::Source,
    }
}

/// The demangled form of an Itanium-mangled name, or the name itself.
pub fn demangle(symbol: &str) -> String {
    if symbol.starts_with("_Z")
        && let Ok(parsed) = cpp_demangle::Symbol::new(symbol)
        && let Ok(text) = parsed.demangle(&cpp_demangle::DemangleOptions::default())
    {
        return text;
    }
    symbol.to_string()
}

/// The unqualified function name in a demangled name: `ns::f<int>(int*)` gives `f`.
pub fn base_name(demangled: &str) -> String {
    // Cut the parameter list: the last top-level '(' pair.
    let mut depth = 0i32;
    let mut end = demangled.len();
    for (index, ch) in demangled.char_indices() {
        match ch {
            '<' => depth += 1,
            '>' => depth -= 1,
            '(' if depth == 0 => {
                end = index;
                break;
            }
            _ => {}
        }
    }
    let head = &demangled[..end];
    // Drop template arguments at the end.
    let mut without_template = head;
    if head.ends_with('>') {
        let mut depth = 0i32;
        for (index, ch) in head.char_indices().rev() {
            match ch {
                '>' => depth += 1,
                '<' => {
                    depth -= 1;
                    if depth == 0 {
                        without_template = &head[..index];
                        break;
                    }
                }
                _ => {}
            }
        }
    }
    let last = without_template
        .rsplit("::")
        .next()
        .unwrap_or(without_template);
    last.rsplit(' ').next().unwrap_or(last).to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn demangles_and_finds_base_names() {
        assert_eq!(
            demangle("_Z6vecAddPKfS0_Pfi"),
            "vecAdd(float const*, float const*, float*, int)"
        );
        assert_eq!(demangle("vadd"), "vadd");
        assert_eq!(base_name(&demangle("_Z4tmplIfLi2EEvPT_PKS0_i")), "tmpl");
        assert_eq!(base_name("ns::inner::k(int*)"), "k");
        assert_eq!(base_name("vadd"), "vadd");
    }
}
