//! Kernel parameters as the PTX declares them (PTX ISA 5.1.6 "Parameter State Space"):
//! `.param .u64 name`, `.param .f32 name`, `.param .align 8 .b8 name[24]` for aggregates.

use super::ast_json::AstFacts;
use super::{KernelParam, KernelSignature, ParamKind, SignatureOrigin, base_name, ctype, demangle};
use warpcheck_ptx::ast::{FunctionKind, Item, Linkage, ScalarType as PtxType, VariableDecl};

/// A function of the PTX module with its parameters.
#[derive(Clone, Debug)]
pub(crate) struct PtxFunction {
    pub name: String,
    pub params: Vec<PtxParam>,
}

#[derive(Clone, Debug)]
pub(crate) struct PtxParam {
    /// `.u64`, `.f32`, `.align 4 .b8 [12]` …
    pub spelling: String,
    pub size: Option<u64>,
}

/// Which PTX functions signatures are made for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Wanted {
    /// `.entry` kernels (CUDA, OpenCL, PTX).
    Entries,
    /// Defined `.func`s (C input, where every function is a candidate for porting).
    DefinedFuncs,
}

/// The functions of `ptx` in module order.
pub(crate) fn ptx_functions(ptx: &str, wanted: Wanted) -> Vec<PtxFunction> {
    let parsed = warpcheck_ptx::parse(ptx);
    parsed
        .module
        .items
        .iter()
        .filter_map(|item| match item {
            Item::Function(function) => Some(function),
            _ => None,
        })
        .filter(|function| match wanted {
            Wanted::Entries => function.kind.value == FunctionKind::Entry,
            Wanted::DefinedFuncs => {
                function.kind.value == FunctionKind::Func
                    && function.body.is_some()
                    && !function.linkage.iter().any(|l| l.value == Linkage::Extern)
            }
        })
        .map(|function| PtxFunction {
            name: function.name.value.clone(),
            params: function.params.iter().map(ptx_param).collect(),
        })
        .collect()
}

fn ptx_param(decl: &VariableDecl) -> PtxParam {
    let ty = decl.ty.value;
    let element_size = type_size(ty);
    let dims = decl
        .declarators
        .first()
        .map(|d| d.dims.clone())
        .unwrap_or_default();
    let count: Option<u64> = dims
        .iter()
        .try_fold(1u64, |acc, d| d.and_then(|d| acc.checked_mul(d)));
    let size = element_size.and_then(|s| count.and_then(|c| s.checked_mul(c)));
    let mut spelling = String::new();
    if let Some(align) = &decl.align {
        spelling.push_str(&format!(".align {} ", align.value));
    }
    spelling.push_str(type_name(ty));
    for dim in &dims {
        match dim {
            Some(n) => spelling.push_str(&format!(" [{n}]")),
            None => spelling.push_str(" []"),
        }
    }
    PtxParam { spelling, size }
}

fn type_size(ty: PtxType) -> Option<u64> {
    Some(match ty {
        PtxType::B8 | PtxType::U8 | PtxType::S8 => 1,
        PtxType::B16
        | PtxType::U16
        | PtxType::S16
        | PtxType::F16
        | PtxType::Bf16
        | PtxType::E4m3x2
        | PtxType::E5m2x2 => 2,
        PtxType::B32
        | PtxType::U32
        | PtxType::S32
        | PtxType::F32
        | PtxType::F16x2
        | PtxType::Bf16x2
        | PtxType::Tf32 => 4,
        PtxType::B64 | PtxType::U64 | PtxType::S64 | PtxType::F64 => 8,
        PtxType::B128 => 16,
        PtxType::Pred | PtxType::TexRef | PtxType::SamplerRef | PtxType::SurfRef => return None,
    })
}

fn type_name(ty: PtxType) -> &'static str {
    match ty {
        PtxType::B8 => ".b8",
        PtxType::B16 => ".b16",
        PtxType::B32 => ".b32",
        PtxType::B64 => ".b64",
        PtxType::B128 => ".b128",
        PtxType::U8 => ".u8",
        PtxType::U16 => ".u16",
        PtxType::U32 => ".u32",
        PtxType::U64 => ".u64",
        PtxType::S8 => ".s8",
        PtxType::S16 => ".s16",
        PtxType::S32 => ".s32",
        PtxType::S64 => ".s64",
        PtxType::F16 => ".f16",
        PtxType::F16x2 => ".f16x2",
        PtxType::Bf16 => ".bf16",
        PtxType::Bf16x2 => ".bf16x2",
        PtxType::E4m3x2 => ".e4m3x2",
        PtxType::E5m2x2 => ".e5m2x2",
        PtxType::Tf32 => ".tf32",
        PtxType::F32 => ".f32",
        PtxType::F64 => ".f64",
        PtxType::Pred => ".pred",
        PtxType::TexRef => ".texref",
        PtxType::SamplerRef => ".samplerref",
        PtxType::SurfRef => ".surfref",
    }
}

/// A signature from the PTX alone: positional names; C types from the demangled name when
/// the symbol is a mangled C++ name (which encodes the canonical parameter types), else the
/// PTX parameter types.
pub(crate) fn signature_from_ptx_function(function: &PtxFunction) -> KernelSignature {
    let demangled_name = demangle(&function.name);
    let demangled_types = demangled_parameter_types(&demangled_name)
        .filter(|types| types.len() == function.params.len());
    let mut facts = AstFacts::default();
    facts.assume_unknown_names_are_records = true;
    KernelSignature {
        mangled_name: function.name.clone(),
        name: base_name(&demangled_name),
        demangled_name,
        params: function
            .params
            .iter()
            .enumerate()
            .map(|(index, param)| {
                let (c_type, kind) = match demangled_types.as_ref().map(|types| &types[index]) {
                    Some(c_type) => {
                        let mut kind = ctype::classify(c_type, &facts);
                        if let ParamKind::Struct(record) = &mut kind {
                            record.size = param.size;
                        }
                        (c_type.clone(), kind)
                    }
                    None => (
                        param.spelling.clone(),
                        ParamKind::Untyped {
                            ptx_type: param.spelling.clone(),
                            size: param.size.unwrap_or(0),
                        },
                    ),
                };
                KernelParam {
                    name: format!("arg{index}"),
                    c_type,
                    kind,
                    ptx_size: param.size,
                }
            })
            .collect(),
        origin: SignatureOrigin::Ptx,
    }
}

/// The parameter types of a demangled function name, e.g. `["float const*", "int"]` from
/// `void scale<float, 128>(float const*, int)`; `None` for a name without a parameter list.
fn demangled_parameter_types(demangled: &str) -> Option<Vec<String>> {
    // The parameter list is the last top-level parenthesised group.
    let (mut angle, mut paren) = (0i32, 0i32);
    let (mut open, mut close) = (None, None);
    for (index, ch) in demangled.char_indices() {
        match ch {
            '<' => angle += 1,
            '>' => angle -= 1,
            '(' => {
                if paren == 0 && angle == 0 {
                    open = Some(index);
                }
                paren += 1;
            }
            ')' => {
                paren -= 1;
                if paren == 0 && angle == 0 {
                    close = Some(index);
                }
            }
            _ => {}
        }
    }
    let (open, close) = (open?, close?);
    let inside = demangled[open + 1..close].trim();
    if inside.is_empty() || inside == "void" {
        return Some(Vec::new());
    }
    let mut types = Vec::new();
    let (mut angle, mut paren, mut start) = (0i32, 0i32, 0usize);
    for (index, ch) in inside.char_indices() {
        match ch {
            '<' => angle += 1,
            '>' => angle -= 1,
            '(' => paren += 1,
            ')' => paren -= 1,
            ',' if angle == 0 && paren == 0 => {
                types.push(inside[start..index].trim().to_string());
                start = index + 1;
            }
            _ => {}
        }
    }
    types.push(inside[start..].trim().to_string());
    Some(types)
}

/// Signatures of the `.entry` kernels of a PTX text, from the PTX alone.
pub fn signatures_from_ptx(ptx: &str) -> Vec<KernelSignature> {
    ptx_functions(ptx, Wanted::Entries)
        .iter()
        .map(signature_from_ptx_function)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn splits_demangled_parameter_lists() {
        assert_eq!(
            demangled_parameter_types(
                "void scale<float, 128>(float*, float const*, Vec<int, 3>, void (*)(int))"
            ),
            Some(vec![
                "float*".into(),
                "float const*".into(),
                "Vec<int, 3>".into(),
                "void (*)(int)".into()
            ])
        );
        assert_eq!(demangled_parameter_types("k()"), Some(vec![]));
        assert_eq!(demangled_parameter_types("vadd"), None);
    }

    #[test]
    fn reads_entry_parameters() {
        let ptx = r#"
.version 7.0
.target sm_80
.address_size 64
.visible .entry _Z1kPf6Paramsi(
	.param .u64 _Z1kPf6Paramsi_param_0,
	.param .align 8 .b8 _Z1kPf6Paramsi_param_1[24],
	.param .u32 _Z1kPf6Paramsi_param_2
)
{
	ret;
}
.visible .func helper(.param .b32 helper_param_0)
{
	ret;
}
"#;
        let signatures = signatures_from_ptx(ptx);
        assert_eq!(signatures.len(), 1);
        let k = &signatures[0];
        assert_eq!(k.name, "k");
        assert_eq!(k.origin, SignatureOrigin::Ptx);
        let sizes: Vec<_> = k.params.iter().map(|p| p.ptx_size).collect();
        assert_eq!(sizes, vec![Some(8), Some(24), Some(4)]);
        // The mangled name gives the C types: k(float*, Params, int).
        assert_eq!(k.params[1].c_type, "Params");
        assert_eq!(
            k.params[1].kind,
            ParamKind::Struct(super::super::StructType {
                name: "Params".into(),
                size: Some(24),
                fields: Vec::new(),
            })
        );
        assert_eq!(k.params[2].name, "arg2");
        assert_eq!(
            k.params[2].kind,
            ParamKind::Scalar(super::super::ScalarType::I32)
        );
        // An unmangled name leaves the PTX types.
        let plain = ptx.replace("_Z1kPf6Paramsi", "k");
        let k = &signatures_from_ptx(&plain)[0];
        assert_eq!(k.params[1].c_type, ".align 8 .b8 [24]");
        assert_eq!(
            k.params[1].kind,
            ParamKind::Untyped {
                ptx_type: ".align 8 .b8 [24]".into(),
                size: 24
            }
        );
        let funcs = ptx_functions(ptx, Wanted::DefinedFuncs);
        assert_eq!(funcs.len(), 1);
        assert_eq!(funcs[0].name, "helper");
    }
}
