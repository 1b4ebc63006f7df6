//! Kernel parameters as the PTX declares them (PTX ISA 5.1.6 "Parameter State Space"):
//! `.param .u64 name`, `.param .f32 name`, `.param .align 8 .b8 name[24]` for aggregates.

use super::{KernelParam, KernelSignature, ParamKind, SignatureOrigin, base_name, demangle};
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
        PtxType::B16 | PtxType::U16 | PtxType::S16 | PtxType::F16 | PtxType::Bf16 => 2,
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
        PtxType::Tf32 => ".tf32",
        PtxType::F32 => ".f32",
        PtxType::F64 => ".f64",
        PtxType::Pred => ".pred",
        PtxType::TexRef => ".texref",
        PtxType::SamplerRef => ".samplerref",
        PtxType::SurfRef => ".surfref",
    }
}

/// A signature from the PTX alone: positional names, PTX types.
pub(crate) fn signature_from_ptx_function(function: &PtxFunction) -> KernelSignature {
    let demangled_name = demangle(&function.name);
    KernelSignature {
        mangled_name: function.name.clone(),
        name: base_name(&demangled_name),
        demangled_name,
        params: function
            .params
            .iter()
            .enumerate()
            .map(|(index, param)| KernelParam {
                name: format!("arg{index}"),
                c_type: param.spelling.clone(),
                kind: ParamKind::Untyped {
                    ptx_type: param.spelling.clone(),
                    size: param.size.unwrap_or(0),
                },
                ptx_size: param.size,
            })
            .collect(),
        origin: SignatureOrigin::Ptx,
    }
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
    fn reads_entry_parameters() {
        let ptx = r#"
.version 7.0
.target sm_80
.address_size 64
.visible .entry _Z1kPfS_i(
	.param .u64 _Z1kPfS_i_param_0,
	.param .align 8 .b8 _Z1kPfS_i_param_1[24],
	.param .u32 _Z1kPfS_i_param_2
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
        assert_eq!(k.params[1].c_type, ".align 8 .b8 [24]");
        assert_eq!(k.params[2].name, "arg2");
        let funcs = ptx_functions(ptx, Wanted::DefinedFuncs);
        assert_eq!(funcs.len(), 1);
        assert_eq!(funcs[0].name, "helper");
    }
}
