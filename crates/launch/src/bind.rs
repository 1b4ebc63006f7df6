//! Binding `--arg NAME=SPEC` values to a kernel's parameters: type checks, the synthesis
//! policy for arguments the user left out, and the parameter block.
//!
//! Parameters are known two ways: the IR gives each PTX parameter's offset, size and type;
//! the front end's signature gives the source name and C type (by position: the PTX
//! declares parameters in source order). Users name arguments by their source name, or by
//! position as `arg0`, `arg1` … when only PTX is available.
//!
//! # Synthesis policy for missing arguments
//!
//! So that `warpcheck run k.cu --grid 64 --block 256` works without further ado, an argument
//! the user did not give is made up and listed in the output:
//! * an integer scalar becomes the total number of threads of the launch (the usual `n`);
//! * a floating-point scalar becomes 1.0;
//! * a pointer becomes a buffer of one element per thread of its pointee type (bytes for
//!   `void *` and unknown pointees): `:rand` when the pointee is `const` (an input),
//!   `:zeros` otherwise (an output). When the kernel reaches past the end of such a
//!   buffer, the buffer grows (`crate::session`: the launch is first run on scratch
//!   memory, and each made-up buffer it overruns is doubled, or sized to the element
//!   reached, up to 64 MiB), and its line says how far the kernel reached and which
//!   `--arg` makes the size explicit;
//! * a struct or vector passed by value, or a parameter of a type warpcheck does not
//!   classify (a function pointer), is made up as zeros (it cannot be given on the
//!   command line yet).

use crate::LaunchError;
use std::collections::HashMap;
use warpcheck_emu::args::{
    Arg, ArgSpec, ElemType, Init, Limits, Number, PlannedBuffer, SizeExpr, plan,
};
use warpcheck_front::{KernelSignature, ParamKind, Pointee, ScalarType};
use warpcheck_ir::{Program, VarRole};

/// One kernel parameter, as the launch needs it.
#[derive(Clone, Debug)]
pub struct ParamSlot {
    /// The source name, or `argN`.
    pub name: String,
    /// The C type as written, or the PTX type.
    pub c_type: String,
    pub kind: Option<ParamKind>,
    pub offset: u64,
    pub size: u64,
    /// The PTX type name (`u32`, `f32`, `b8` …).
    pub ptx_type: String,
}

/// The kernel's parameters in order, combining the IR's layout and the signature's names.
pub fn param_slots(
    program: &Program,
    kernel: warpcheck_ir::FuncId,
    sig: Option<&KernelSignature>,
) -> Vec<ParamSlot> {
    let f = program.function(kernel);
    f.params
        .iter()
        .enumerate()
        .map(|(i, &v)| {
            let var = program.variable(v);
            let offset = match var.role {
                VarRole::Param { offset, .. } => offset,
                _ => 0,
            };
            let sp = sig.and_then(|s| s.params.get(i));
            ParamSlot {
                name: sp.map_or_else(|| format!("arg{i}"), |p| p.name.clone()),
                c_type: sp.map_or_else(|| format!(".{}", var.ty), |p| p.c_type.clone()),
                kind: sp.map(|p| p.kind.clone()),
                offset,
                size: var.size.unwrap_or(0),
                ptx_type: var.ty.to_string(),
            }
        })
        .collect()
}

/// A buffer argument after binding: its (planned) contents and the parameter it feeds.
pub struct BoundBuffer {
    pub param: usize,
    pub name: String,
    pub value: PlannedBuffer,
    /// Filled in by the caller once the buffer is placed in device memory.
    pub address: u64,
    /// For a buffer the user did not give: how it was made up.
    pub made_up: Option<MadeUp>,
}

/// How a buffer the user did not give was made up.
#[derive(Clone, Debug)]
pub struct MadeUp {
    pub init: Init,
    /// Its line in [`Bound::described`] (rewritten when the buffer grows).
    pub line: usize,
    /// Elements it was made up with, before growing.
    pub original_len: usize,
    /// When it could not grow to what the kernel reached (it is at
    /// [`crate::MADE_UP_BOUND`]): the elements the kernel reached.
    pub too_small: Option<u64>,
}

/// The result of binding: the parameter block (buffer addresses still zero), the buffers,
/// and a line per argument saying what ran (synthesised ones marked).
pub struct Bound {
    pub param_block: Vec<u8>,
    pub buffers: Vec<BoundBuffer>,
    pub described: Vec<String>,
}

impl Bound {
    /// Grows made-up buffer `i` to `len` elements (its contents made up the same way),
    /// and says so in its line of `described`: the kernel reached element `reached - 1`,
    /// and the `--arg` that gives the size explicitly. `at_bound`: the buffer could not
    /// grow further, though the kernel reached past it.
    pub fn grow(
        &mut self,
        i: usize,
        len: usize,
        reached: u64,
        at_bound: bool,
        (seed, limits): (u64, Limits),
    ) -> Result<(), LaunchError> {
        let b = &mut self.buffers[i];
        let Some(MadeUp {
            init,
            line,
            original_len: from,
            ..
        }) = b.made_up.clone()
        else {
            return Ok(());
        };
        if let Some(m) = b.made_up.as_mut() {
            m.too_small = at_bound.then_some(reached);
        }
        let elem = b.value.elem;
        b.value = plan(
            &b.name,
            elem,
            Some(&SizeExpr::Const(len as i128)),
            &init,
            &HashMap::new(),
            seed,
            limits,
        )
        .map_err(LaunchError::BadBuffer)?;
        let last = reached.saturating_sub(1);
        let how = if at_bound {
            format!("still too small: the kernel reached element {last} or further; give it")
        } else {
            format!("the kernel reached element {last} or further; set the size")
        };
        self.described[line] = format!(
            "{} = {elem}[{len}]:{}  (synthesised; grown from {from} elements, {how} with `--arg {}={elem}[N]`)",
            b.name,
            init_name(&init),
            b.name
        );
        Ok(())
    }

    /// Records that made-up buffer `i`, which an earlier launch made up with `len` elements
    /// and placed (so it cannot grow), is too small for this launch: the kernel reached
    /// `reached` elements.
    pub fn too_small_earlier(&mut self, i: usize, len: usize, reached: u64) {
        let b = &mut self.buffers[i];
        let Some(m) = b.made_up.as_mut() else {
            return;
        };
        m.too_small = Some(reached);
        self.described[m.line] = format!(
            "{} = {}[{len}]  (synthesised by an earlier launch, too small for this one: the kernel reached element {} or further; give it with `--arg {}={}[N]`)",
            b.name,
            b.value.elem,
            reached.saturating_sub(1),
            b.name,
            b.value.elem
        );
    }

    /// Writes each buffer's device address into its parameter's slot.
    pub fn patch_addresses(&mut self, slots: &[ParamSlot]) {
        for b in &self.buffers {
            let s = &slots[b.param];
            let bytes = b.address.to_le_bytes();
            let n = (s.size as usize).min(8);
            self.param_block[s.offset as usize..s.offset as usize + n].copy_from_slice(&bytes[..n]);
        }
    }
}

/// The buffer element type of a C scalar type (`None` for bf16, which has none).
pub fn elem_of_scalar(t: ScalarType) -> Option<ElemType> {
    Some(match t {
        ScalarType::Bool | ScalarType::U8 => ElemType::U8,
        ScalarType::I8 => ElemType::I8,
        ScalarType::I16 => ElemType::I16,
        ScalarType::U16 => ElemType::U16,
        ScalarType::I32 => ElemType::I32,
        ScalarType::U32 => ElemType::U32,
        ScalarType::I64 => ElemType::I64,
        ScalarType::U64 => ElemType::U64,
        ScalarType::F16 => ElemType::F16,
        ScalarType::F32 => ElemType::F32,
        ScalarType::F64 => ElemType::F64,
        ScalarType::BF16 => return None,
    })
}

/// The element type a pointer's buffer should have, if the pointee says.
pub fn pointee_elem(p: &Pointee) -> Option<ElemType> {
    match p {
        Pointee::Scalar(s) => elem_of_scalar(*s),
        Pointee::Vector(v) => elem_of_scalar(v.element),
        _ => None,
    }
}

/// The size of one pointee, for `--arg` sizes given in elements of vectors and structs.
fn pointee_size(p: &Pointee) -> Option<u64> {
    match p {
        Pointee::Scalar(s) => Some(s.size()),
        Pointee::Vector(v) => Some(v.size),
        Pointee::Struct(s) => s.size,
        Pointee::Pointer => Some(8),
        _ => None,
    }
}

/// Whether a buffer of `elem` may be passed for a pointer to `pointee`: same type, or the
/// same size and kind (signedness is not checked, as C converts freely), or an untyped
/// pointee. A vector pointee (`float4 *`) takes its element type.
fn compatible(elem: ElemType, pointee: &Pointee) -> bool {
    match pointee_elem(pointee) {
        Some(want) => {
            want == elem || (want.size() == elem.size() && want.is_float() == elem.is_float())
        }
        None => true,
    }
}

/// Binds the user's arguments to the kernel's parameters.
pub fn bind(
    slots: &[ParamSlot],
    args: &[Arg],
    total_threads: u64,
    seed: u64,
    limits: Limits,
) -> Result<Bound, LaunchError> {
    let param_block_size = slots.iter().map(|s| s.offset + s.size).max().unwrap_or(0);
    let mut param_block = vec![0u8; param_block_size as usize];
    let mut by_name: HashMap<&str, &Arg> = HashMap::new();
    for a in args {
        if by_name.insert(a.name.as_str(), a).is_some() {
            return Err(LaunchError::ArgGivenTwice(a.name.clone()));
        }
    }
    let mut fields: HashMap<usize, Vec<(&str, &Arg)>> = HashMap::new();
    for a in args {
        // `p.n=4` gives field `n` of struct parameter `p`.
        let (param, field) = match a.name.split_once('.') {
            Some((p, f)) => (p, Some(f)),
            None => (a.name.as_str(), None),
        };
        let slot = slots
            .iter()
            .enumerate()
            .position(|(i, s)| s.name == param || param == format!("arg{i}"));
        if let (Some(i), Some(f)) = (slot, field) {
            fields.entry(i).or_default().push((f, a));
        }
        if slot.is_none() {
            return Err(LaunchError::NoSuchParam {
                name: a.name.clone(),
                params: describe_params(slots),
            });
        }
    }
    // Integer scalars first: buffer sizes may refer to them.
    let mut scalars: HashMap<String, Number> = HashMap::new();
    for a in args {
        if let ArgSpec::Scalar(n) = a.spec {
            scalars.insert(a.name.clone(), n);
        }
    }
    let mut buffers = Vec::new();
    let mut described = Vec::new();
    for (i, slot) in slots.iter().enumerate() {
        let positional = format!("arg{i}");
        let given = by_name
            .get(slot.name.as_str())
            .or_else(|| by_name.get(positional.as_str()));
        if let Some(given_fields) = fields.get(&i) {
            if given.is_some() {
                return Err(LaunchError::ArgGivenTwice(slot.name.clone()));
            }
            described.push(bind_fields(slot, given_fields, &mut param_block)?);
            continue;
        }
        if given.is_none()
            && let Some(what) = zeroed_by_value(slot)
        {
            // Made up as zeros: the parameter block starts zeroed.
            let how = match &slot.kind {
                Some(ParamKind::Struct(st)) if !st.fields.is_empty() => {
                    format!("give its fields with `--arg {}.FIELD=VALUE`", slot.name)
                }
                _ => format!("{what} cannot be given on the command line yet"),
            };
            described.push(format!(
                "{} = zeroed {} ({} bytes)  (synthesised: {how})",
                slot.name, slot.c_type, slot.size
            ));
            continue;
        }
        let (spec, synthesized) = match given {
            Some(a) => (a.spec.clone(), false),
            None => (synthesize(slot, total_threads)?, true),
        };
        if synthesized && let ArgSpec::Scalar(n) = spec {
            scalars.entry(slot.name.clone()).or_insert(n);
        }
        let mark = if synthesized { "  (synthesised)" } else { "" };
        match &spec {
            ArgSpec::Scalar(n) => {
                let bytes = encode_scalar(slot, *n)?;
                if bytes.len() as u64 != slot.size {
                    return Err(LaunchError::ParamSizeMismatch {
                        name: slot.name.clone(),
                        c_type: slot.c_type.clone(),
                        c_size: bytes.len() as u64,
                        ptx_type: slot.ptx_type.clone(),
                        ptx_size: slot.size,
                    });
                }
                let at = slot.offset as usize;
                param_block[at..at + bytes.len()].copy_from_slice(&bytes);
                described.push(format!("{} = {n}{mark}", slot.name));
            }
            ArgSpec::Buffer { elem, len, init } => {
                check_pointer(slot, *elem)?;
                let value = plan(
                    &slot.name,
                    *elem,
                    len.as_ref(),
                    init,
                    &scalars,
                    seed,
                    limits,
                )
                .map_err(LaunchError::BadBuffer)?;
                described.push(format!(
                    "{} = {}[{}]:{}{mark}",
                    slot.name,
                    elem,
                    value.len,
                    init_name(init)
                ));
                let made_up = synthesized.then(|| MadeUp {
                    init: init.clone(),
                    line: described.len() - 1,
                    original_len: value.len,
                    too_small: None,
                });
                buffers.push(BoundBuffer {
                    param: i,
                    name: slot.name.clone(),
                    value,
                    address: 0,
                    made_up,
                });
            }
        }
    }
    check_total_size(&buffers, limits)?;
    Ok(Bound {
        param_block,
        buffers,
        described,
    })
}

/// The launch's buffers together stay within `limits.max_total_bytes` (each one does
/// already): a launch's memory is bounded, not only each buffer's.
fn check_total_size(buffers: &[BoundBuffer], limits: Limits) -> Result<(), LaunchError> {
    let total: u128 = buffers
        .iter()
        .map(|b| b.value.len as u128 * b.value.elem.size() as u128)
        .sum();
    if total > limits.max_total_bytes as u128 {
        let each: Vec<String> = buffers
            .iter()
            .map(|b| {
                format!(
                    "`{}` {} bytes",
                    b.name,
                    b.value.len as u128 * b.value.elem.size() as u128
                )
            })
            .collect();
        return Err(LaunchError::BadBuffer(format!(
            "the launch's buffers need {total} bytes in all ({}), over the limit of {} bytes per launch",
            each.join(", "),
            limits.max_total_bytes
        )));
    }
    Ok(())
}

fn init_name(init: &Init) -> String {
    match init {
        Init::Zeros => "zeros".into(),
        Init::Iota => "iota".into(),
        Init::Rand => "rand".into(),
        Init::Uninit => "uninit".into(),
        Init::Fill(n) => format!("fill({n})"),
        Init::File(p) => format!("file({})", p.display()),
        Init::Literal(v) => format!("[{} values]", v.len()),
    }
}

/// `n: int, a: const float *` — for error messages.
pub fn describe_params(slots: &[ParamSlot]) -> String {
    if slots.is_empty() {
        return "none".into();
    }
    slots
        .iter()
        .map(|s| format!("{}: {}", s.name, s.c_type))
        .collect::<Vec<_>>()
        .join(", ")
}

/// What a by-value parameter that is made up as zeros is: a struct, a vector or a type
/// warpcheck does not classify (a function pointer …); `None` for the others.
fn zeroed_by_value(slot: &ParamSlot) -> Option<&'static str> {
    match slot.kind {
        Some(ParamKind::Struct(_)) => Some("a struct passed by value"),
        Some(ParamKind::Vector(_)) => Some("a vector passed by value"),
        Some(ParamKind::Unsupported { .. }) => Some("a parameter of this type"),
        _ => None,
    }
}

fn synthesize(slot: &ParamSlot, total_threads: u64) -> Result<ArgSpec, LaunchError> {
    let threads = SizeExpr::Const(total_threads as i128);
    Ok(match &slot.kind {
        Some(ParamKind::Scalar(t)) if t.is_float() => ArgSpec::Scalar(Number::Float(1.0)),
        Some(ParamKind::Scalar(_)) => ArgSpec::Scalar(Number::Int(total_threads as i128)),
        Some(ParamKind::Pointer(p)) => {
            let elem = pointee_elem(&p.pointee).unwrap_or(ElemType::U8);
            let per = pointee_size(&p.pointee).unwrap_or(1) / elem.size() as u64;
            let len = SizeExpr::Const((total_threads * per.max(1)) as i128);
            let init = if p.is_const { Init::Rand } else { Init::Zeros };
            ArgSpec::Buffer {
                elem,
                len: Some(len),
                init,
            }
        }
        Some(ParamKind::Untyped { .. }) | None => {
            // Only the PTX type is known: a 64-bit parameter is most likely a pointer.
            if slot.size == 8 && !slot.ptx_type.starts_with('f') {
                ArgSpec::Buffer {
                    elem: ElemType::U8,
                    len: Some(threads),
                    init: Init::Zeros,
                }
            } else if slot.ptx_type.starts_with('f') {
                ArgSpec::Scalar(Number::Float(1.0))
            } else {
                ArgSpec::Scalar(Number::Int(total_threads as i128))
            }
        }
        Some(other) => {
            return Err(LaunchError::CannotSynthesize {
                name: slot.name.clone(),
                c_type: slot.c_type.clone(),
                why: match other {
                    ParamKind::Struct(_) => "a struct passed by value",
                    ParamKind::Vector(_) => "a vector passed by value",
                    _ => "a type warpcheck does not classify",
                },
            });
        }
    })
}

fn check_pointer(slot: &ParamSlot, elem: ElemType) -> Result<(), LaunchError> {
    match &slot.kind {
        Some(ParamKind::Pointer(p)) => {
            if compatible(elem, &p.pointee) {
                Ok(())
            } else {
                Err(LaunchError::BufferTypeMismatch {
                    name: slot.name.clone(),
                    elem,
                    c_type: slot.c_type.clone(),
                })
            }
        }
        Some(ParamKind::Untyped { .. }) | None if slot.size == 8 => Ok(()),
        _ => Err(LaunchError::NotAPointer {
            name: slot.name.clone(),
            c_type: slot.c_type.clone(),
        }),
    }
}

/// Writes the fields given for struct parameter `slot` (`--arg p.n=4`) into its bytes of
/// the parameter block (the other fields stay zero); returns its line for the output.
fn bind_fields(
    slot: &ParamSlot,
    given: &[(&str, &Arg)],
    block: &mut [u8],
) -> Result<String, LaunchError> {
    let Some(ParamKind::Struct(st)) = &slot.kind else {
        return Err(LaunchError::NotAStruct {
            name: slot.name.clone(),
            c_type: slot.c_type.clone(),
            arg: given[0].1.name.clone(),
        });
    };
    let no_field = |field: &str| LaunchError::NoSuchField {
        name: slot.name.clone(),
        c_type: slot.c_type.clone(),
        field: field.to_string(),
        fields: describe_fields(st),
    };
    let mut parts = Vec::new();
    for &(field, arg) in given {
        let f = st
            .fields
            .iter()
            .find(|f| f.name == field)
            .filter(|f| f.offset + f.scalar.size() <= slot.size)
            .ok_or_else(|| no_field(field))?;
        let bad = |message: String| LaunchError::BadScalar {
            name: arg.name.clone(),
            c_type: format!("{:?}", f.scalar).to_lowercase(),
            message,
        };
        let ArgSpec::Scalar(n) = arg.spec else {
            return Err(bad("a field takes a number".into()));
        };
        let elem = elem_of_scalar(f.scalar).ok_or_else(|| bad("not passable yet".into()))?;
        let mut bytes = Vec::new();
        elem.encode(wrap_unsigned(n, elem), &mut bytes)
            .map_err(bad)?;
        let at = (slot.offset + f.offset) as usize;
        block[at..at + bytes.len()].copy_from_slice(&bytes);
        parts.push(format!("{field}={n}"));
    }
    Ok(format!(
        "{} = {} {{ {} }}  (other fields zero)",
        slot.name,
        slot.c_type,
        parts.join(", ")
    ))
}

/// The fields of a struct that can be given, for messages.
fn describe_fields(st: &warpcheck_front::StructType) -> String {
    if st.fields.is_empty() {
        return format!(
            "the layout of `{}` is not known (its declaration was not seen, or it is a union, holds pointers, arrays of more than {} elements or types warpcheck does not understand)",
            st.name,
            warpcheck_front::MAX_FIELD_ELEMENTS
        );
    }
    let names: Vec<&str> = st.fields.iter().take(16).map(|f| f.name.as_str()).collect();
    let more = if st.fields.len() > 16 { ", …" } else { "" };
    format!("its fields are {}{more}", names.join(", "))
}

/// A negative number for an unsigned type, as its two's complement (as C converts it).
fn wrap_unsigned(n: Number, elem: ElemType) -> Number {
    match (n, elem) {
        (Number::Int(i), ElemType::U8 | ElemType::U16 | ElemType::U32 | ElemType::U64) if i < 0 => {
            let bits = elem.size() * 8;
            Number::Int(i.rem_euclid(1i128 << bits))
        }
        _ => n,
    }
}

/// Encodes a scalar by the parameter's C type (or PTX type when that is all there is).
fn encode_scalar(slot: &ParamSlot, n: Number) -> Result<Vec<u8>, LaunchError> {
    let elem = match &slot.kind {
        Some(ParamKind::Scalar(t)) => {
            elem_of_scalar(*t).ok_or_else(|| LaunchError::ScalarNotPassable {
                name: slot.name.clone(),
                c_type: slot.c_type.clone(),
            })?
        }
        Some(ParamKind::Pointer(_)) => {
            return Err(LaunchError::NumberForPointer {
                name: slot.name.clone(),
                number: n,
                c_type: slot.c_type.clone(),
            });
        }
        Some(ParamKind::Struct(_))
        | Some(ParamKind::Vector(_))
        | Some(ParamKind::Unsupported { .. }) => {
            return Err(LaunchError::ByValueNotSupported {
                name: slot.name.clone(),
                c_type: slot.c_type.clone(),
            });
        }
        Some(ParamKind::Untyped { .. }) | None => {
            let t = slot.ptx_type.as_str();
            match (t.chars().next(), slot.size) {
                (Some('f'), 4) => ElemType::F32,
                (Some('f'), 8) => ElemType::F64,
                (Some('f'), 2) => ElemType::F16,
                (Some('s'), 1) => ElemType::I8,
                (Some('s'), 2) => ElemType::I16,
                (Some('s'), 4) => ElemType::I32,
                (Some('s'), 8) => ElemType::I64,
                (_, 1) => ElemType::U8,
                (_, 2) => ElemType::U16,
                (_, 4) => ElemType::U32,
                (_, 8) => ElemType::U64,
                _ => {
                    return Err(LaunchError::PtxTypeTakesNoNumber {
                        name: slot.name.clone(),
                        ptx_type: t.to_string(),
                        size: slot.size,
                    });
                }
            }
        }
    };
    let n = wrap_unsigned(n, elem);
    let mut out = Vec::new();
    elem.encode(n, &mut out)
        .map_err(|message| LaunchError::BadScalar {
            name: slot.name.clone(),
            c_type: slot.c_type.clone(),
            message,
        })?;
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use warpcheck_emu::args::parse_arg;
    use warpcheck_front::{AddressSpace, PointerParam};

    /// `(int n, const float *x, float *y)` as the IR and the signature describe it.
    fn slots() -> Vec<ParamSlot> {
        let pointer = |is_const| {
            Some(ParamKind::Pointer(PointerParam {
                pointee: Pointee::Scalar(ScalarType::F32),
                is_const,
                is_volatile: false,
                is_restrict: false,
                address_space: AddressSpace::Generic,
            }))
        };
        let slot = |name: &str, c_type: &str, kind, offset, size, ptx: &str| ParamSlot {
            name: name.into(),
            c_type: c_type.into(),
            kind,
            offset,
            size,
            ptx_type: ptx.into(),
        };
        vec![
            slot(
                "n",
                "int",
                Some(ParamKind::Scalar(ScalarType::I32)),
                0,
                4,
                "u32",
            ),
            slot("x", "const float *", pointer(true), 8, 8, "u64"),
            slot("y", "float *", pointer(false), 16, 8, "u64"),
        ]
    }

    fn args(texts: &[&str]) -> Vec<Arg> {
        texts.iter().map(|t| parse_arg(t).unwrap()).collect()
    }

    #[test]
    fn left_out_arguments_follow_the_synthesis_policy() {
        let bound = bind(&slots(), &args(&["n=100"]), 256, 0, Limits::default()).unwrap();
        assert_eq!(&bound.param_block[0..4], &100i32.to_le_bytes());
        assert_eq!(
            bound.described,
            [
                "n = 100",
                "x = f32[256]:rand  (synthesised)",
                "y = f32[256]:zeros  (synthesised)"
            ]
        );
        let sized = bind(&slots(), &args(&["y=f32[n]"]), 64, 0, Limits::default()).unwrap();
        assert_eq!(sized.described[0], "n = 64  (synthesised)");
        assert_eq!(sized.buffers[1].value.len, 64);
    }

    #[test]
    fn the_memory_limit_holds_for_the_launch_not_only_for_each_buffer() {
        // Two buffers of 6 GB: each under the 8 GiB limit, together over it.
        let given = args(&["x=f32[1500000000]", "y=f32[1500000000]"]);
        let e = match bind(&slots(), &given, 64, 0, Limits::default()) {
            Ok(_) => panic!("12 GB of buffers were accepted"),
            Err(e) => e.to_string(),
        };
        assert!(
            e.contains("need 12000000000 bytes in all") && e.contains("per launch"),
            "{e}"
        );
        let one = args(&["x=f32[1500000000]", "y=f32[4]"]);
        assert!(bind(&slots(), &one, 64, 0, Limits::default()).is_ok());
    }

    #[test]
    fn structs_and_function_pointers_left_out_are_zeroed_not_refused() {
        let slot = |name: &str, c_type: &str, kind| ParamSlot {
            name: name.into(),
            c_type: c_type.into(),
            kind: Some(kind),
            offset: 0,
            size: 16,
            ptx_type: "b8".into(),
        };
        let params = ParamKind::Struct(warpcheck_front::StructType {
            name: "Params".into(),
            size: Some(16),
            fields: Vec::new(),
        });
        let callback = ParamKind::Unsupported {
            reason: "a function pointer".into(),
        };
        for (s, what) in [
            (slot("p", "Params", params), "a struct passed by value"),
            (
                slot("f", "int (*)(int)", callback),
                "a parameter of this type",
            ),
        ] {
            let bound = bind(&[s], &[], 64, 0, Limits::default()).unwrap();
            assert_eq!(bound.param_block, vec![0u8; 16]);
            assert!(
                bound.described[0].contains("zeroed"),
                "{:?}",
                bound.described
            );
            assert!(bound.described[0].contains(what), "{:?}", bound.described);
        }
    }

    #[test]
    fn a_c_type_wider_than_its_ptx_param_is_an_error_not_a_panic() {
        // `int n` in a stale source, `.param .u16` in the PTX, as the last parameter.
        let slots = vec![ParamSlot {
            name: "n".into(),
            c_type: "int".into(),
            kind: Some(ParamKind::Scalar(ScalarType::I32)),
            offset: 0,
            size: 2,
            ptx_type: "u16".into(),
        }];
        for given in [&["n=7"][..], &[]] {
            let e = match bind(&slots, &args(given), 64, 0, Limits::default()) {
                Err(e) => e,
                Ok(_) => panic!("bound"),
            };
            assert!(matches!(e, LaunchError::ParamSizeMismatch { .. }), "{e}");
            assert!(e.to_string().contains("`int` (4 bytes)"), "{e}");
            assert!(e.to_string().contains("`.u16` (2 bytes)"), "{e}");
        }
    }

    #[test]
    fn binding_errors_are_typed_and_say_what_to_do() {
        let err = |texts: &[&str]| {
            bind(&slots(), &args(texts), 32, 0, Limits::default())
                .err()
                .unwrap()
        };
        assert!(matches!(err(&["n=1", "n=2"]), LaunchError::ArgGivenTwice(n) if n == "n"));
        assert_eq!(
            err(&["m=1"]).to_string(),
            "the kernel has no parameter `m`; its parameters are: n: int, x: const float *, y: float *"
        );
        assert!(matches!(
            err(&["x=3"]),
            LaunchError::NumberForPointer { .. }
        ));
        assert_eq!(
            err(&["y=f64[4]"]).to_string(),
            "argument `y` is a buffer of f64, but the parameter is `float *`"
        );
        assert!(matches!(
            err(&["n=i32[4]"]),
            LaunchError::NotAPointer { .. }
        ));
    }
}
