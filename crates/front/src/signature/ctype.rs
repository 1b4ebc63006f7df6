//! Classifying a C type as clang prints it (`const float *__restrict`,
//! `__global const float4 *`, `Params`, `real_t *`) into a [`ParamKind`].
//!
//! The string is split at its last top-level `*` into pointee and pointer qualifiers; the
//! pointee's qualifiers (`const`, `volatile`, OpenCL address spaces,
//! `__attribute__((address_space(N)))`) are taken off, and the remaining type name is
//! resolved through the typedefs of the translation unit until it is a builtin scalar, a
//! vector (CUDA's `float4` records or OpenCL's `ext_vector_type(N)`), a record or an enum.
//! Record sizes follow the natural C layout of their fields (each field at the next multiple
//! of its alignment, the size rounded up to the largest alignment, `aligned(N)` respected,
//! `packed` meaning alignment 1), with scalar sizes of the NVPTX64 target (`long` and
//! pointers 8 bytes).

use super::ast_json::AstFacts;
use super::{
    AddressSpace, MAX_FIELD_ELEMENTS, ParamKind, Pointee, PointerParam, ScalarType, StructField,
    StructType, VectorType,
};

/// Typedef chains longer than this are treated as unresolvable (they would be cycles).
const MAX_TYPEDEF_DEPTH: usize = 32;

pub(crate) fn classify(spelling: &str, facts: &AstFacts) -> ParamKind {
    classify_at(spelling, facts, 0)
}

fn classify_at(spelling: &str, facts: &AstFacts, depth: usize) -> ParamKind {
    if depth > MAX_TYPEDEF_DEPTH {
        return ParamKind::Unsupported {
            reason: format!("typedef chain of `{spelling}` too long"),
        };
    }
    let parsed = match ParsedType::parse(spelling) {
        Ok(parsed) => parsed,
        Err(reason) => return ParamKind::Unsupported { reason },
    };
    if parsed.is_reference {
        return ParamKind::Unsupported {
            reason: format!("reference parameter `{spelling}`"),
        };
    }
    if let Some(pointee) = parsed.pointee {
        return ParamKind::Pointer(PointerParam {
            pointee: classify_pointee(&pointee, facts, depth),
            is_const: pointee.is_const,
            is_volatile: pointee.is_volatile,
            is_restrict: parsed.is_restrict,
            address_space: pointee.address_space,
        });
    }
    match resolve(&parsed.base, parsed.vector_lanes, facts, depth) {
        Resolved::Scalar(s) => ParamKind::Scalar(s),
        Resolved::Vector(v) => ParamKind::Vector(v),
        Resolved::Struct(s) => ParamKind::Struct(s),
        Resolved::Void => ParamKind::Unsupported {
            reason: "`void` parameter".to_string(),
        },
        Resolved::Typedef(target) => {
            // A typedef may hide a pointer (`typedef float *floatptr;`): classify its target.
            let mut kind = classify_at(&target, facts, depth + 1);
            if let ParamKind::Pointer(pointer) = &mut kind {
                pointer.is_restrict |= parsed.is_restrict;
            }
            kind
        }
        Resolved::Unknown(reason) => ParamKind::Unsupported { reason },
    }
}

fn classify_pointee(pointee: &PointeeSpelling, facts: &AstFacts, depth: usize) -> Pointee {
    if pointee.is_pointer {
        return Pointee::Pointer;
    }
    match resolve(&pointee.base, pointee.vector_lanes, facts, depth) {
        Resolved::Scalar(s) => Pointee::Scalar(s),
        Resolved::Vector(v) => Pointee::Vector(v),
        Resolved::Struct(s) => Pointee::Struct(s),
        Resolved::Void => Pointee::Void,
        Resolved::Typedef(target) => match classify_at(&target, facts, depth + 1) {
            ParamKind::Scalar(s) => Pointee::Scalar(s),
            ParamKind::Vector(v) => Pointee::Vector(v),
            ParamKind::Struct(s) => Pointee::Struct(s),
            ParamKind::Pointer(_) => Pointee::Pointer,
            ParamKind::Unsupported { reason } if reason == "`void` parameter" => Pointee::Void,
            _ => Pointee::Other(pointee.base.clone()),
        },
        Resolved::Unknown(_) => Pointee::Other(pointee.base.clone()),
    }
}

enum Resolved {
    Scalar(ScalarType),
    Vector(VectorType),
    Struct(StructType),
    Void,
    /// A typedef name, to be classified through its target.
    Typedef(String),
    Unknown(String),
}

/// Resolves a type name without pointer or qualifiers.
fn resolve(base: &str, vector_lanes: Option<u32>, facts: &AstFacts, depth: usize) -> Resolved {
    let (keyword, name) = split_tag_keyword(base);
    if let Some(lanes) = vector_lanes {
        // OpenCL/clang extended vector: `float __attribute__((ext_vector_type(4)))`.
        return match scalar_named(name) {
            Some(element) => {
                let storage_lanes = if lanes == 3 { 4 } else { lanes };
                let size = element.size() * u64::from(storage_lanes);
                Resolved::Vector(VectorType {
                    name: format!("{}{lanes}", opencl_element_name(element)),
                    element,
                    lanes,
                    size,
                    align: size,
                })
            }
            None => Resolved::Unknown(format!("vector of `{name}`")),
        };
    }
    if name == "void" {
        return Resolved::Void;
    }
    if let Some(scalar) = scalar_named(name) {
        return Resolved::Scalar(scalar);
    }
    if keyword.is_none() {
        // OpenCL's `float4` is a typedef of an extended vector; CUDA's is a record.
        if let Some(target) = facts
            .typedefs
            .get(name)
            .filter(|t| t.contains("ext_vector_type"))
        {
            return Resolved::Typedef(target.clone());
        }
    }
    if keyword != Some("enum")
        && let Some(vector) = cuda_vector_named(name)
    {
        return Resolved::Vector(vector);
    }
    if keyword == Some("enum") || facts.enums.contains(name) {
        // Enumerations without a fixed underlying type are `int` in C and C++.
        return Resolved::Scalar(ScalarType::I32);
    }
    if keyword.is_none()
        && let Some(target) = facts.typedefs.get(name)
        && target != base
        && depth < MAX_TYPEDEF_DEPTH
    {
        return Resolved::Typedef(target.clone());
    }
    let lookup = name.rsplit("::").next().unwrap_or(name);
    if facts.records.contains_key(lookup) || keyword.is_some_and(|k| k != "enum") {
        let layout = record_layout(lookup, facts, depth);
        let mut fields = Vec::new();
        if layout.is_some() && !record_fields(lookup, facts, depth, "", 0, &mut fields) {
            fields.clear();
        }
        return Resolved::Struct(StructType {
            name: name.to_string(),
            size: layout.map(|l| l.size),
            fields,
        });
    }
    if facts.assume_unknown_names_are_records && !name.is_empty() && !name.contains(' ') {
        return Resolved::Struct(StructType {
            name: name.to_string(),
            size: None,
            fields: Vec::new(),
        });
    }
    Resolved::Unknown(format!("unknown type `{base}`"))
}

fn split_tag_keyword(base: &str) -> (Option<&'static str>, &str) {
    for keyword in ["struct", "class", "union", "enum"] {
        if let Some(rest) = base.strip_prefix(keyword).and_then(|r| r.strip_prefix(' ')) {
            return (Some(keyword), rest.trim());
        }
    }
    (None, base.trim())
}

/// The builtin scalar types, as clang prints them, plus the half-precision records of
/// `cuda_fp16.h` / `cuda_bf16.h`, which are 2-byte floating-point values.
fn scalar_named(name: &str) -> Option<ScalarType> {
    Some(match name {
        "bool" | "_Bool" => ScalarType::Bool,
        "char" | "signed char" => ScalarType::I8,
        "unsigned char" | "uchar" => ScalarType::U8,
        "short" | "short int" | "signed short" => ScalarType::I16,
        "unsigned short" | "unsigned short int" | "ushort" => ScalarType::U16,
        "int" | "signed int" | "signed" => ScalarType::I32,
        "unsigned int" | "unsigned" | "uint" => ScalarType::U32,
        // NVPTX64 is LP64.
        "long" | "long int" | "long long" | "long long int" | "signed long" => ScalarType::I64,
        "unsigned long"
        | "unsigned long int"
        | "unsigned long long"
        | "unsigned long long int"
        | "ulong" => ScalarType::U64,
        "float" => ScalarType::F32,
        "double" => ScalarType::F64,
        "half" | "__half" | "_Float16" | "__fp16" => ScalarType::F16,
        "__nv_bfloat16" | "__bf16" => ScalarType::BF16,
        _ => return None,
    })
}

fn opencl_element_name(element: ScalarType) -> &'static str {
    match element {
        ScalarType::Bool => "bool",
        ScalarType::I8 => "char",
        ScalarType::U8 => "uchar",
        ScalarType::I16 => "short",
        ScalarType::U16 => "ushort",
        ScalarType::I32 => "int",
        ScalarType::U32 => "uint",
        ScalarType::I64 => "long",
        ScalarType::U64 => "ulong",
        ScalarType::F16 | ScalarType::BF16 => "half",
        ScalarType::F32 => "float",
        ScalarType::F64 => "double",
    }
}

/// CUDA's vector records (`vector_types.h`): `float4` is 16 bytes aligned to 16, `float3` is
/// 12 bytes aligned to 4, and so on.
fn cuda_vector_named(name: &str) -> Option<VectorType> {
    let lanes_digit = name.chars().last()?.to_digit(10)?;
    if !(1..=4).contains(&lanes_digit) {
        return None;
    }
    let element_name = &name[..name.len() - 1];
    let element = match element_name {
        "char" => ScalarType::I8,
        "uchar" => ScalarType::U8,
        "short" => ScalarType::I16,
        "ushort" => ScalarType::U16,
        "int" => ScalarType::I32,
        "uint" => ScalarType::U32,
        "long" | "longlong" => ScalarType::I64,
        "ulong" | "ulonglong" => ScalarType::U64,
        "float" => ScalarType::F32,
        "double" => ScalarType::F64,
        _ => return None,
    };
    let lanes = lanes_digit;
    let size = element.size() * u64::from(lanes);
    let align = match lanes {
        3 => element.size(),
        4 if element.size() == 8 => 16,
        _ => size,
    };
    Some(VectorType {
        name: name.to_string(),
        element,
        lanes,
        size,
        align,
    })
}

struct Layout {
    size: u64,
    align: u64,
}

fn record_layout(name: &str, facts: &AstFacts, depth: usize) -> Option<Layout> {
    if depth > MAX_TYPEDEF_DEPTH {
        return None;
    }
    let record = facts.records.get(name)?;
    let mut size = 0u64;
    let mut align = 1u64;
    for field in &record.field_types {
        let field_layout = storage_layout(field, facts, depth + 1)?;
        let field_align = if record.packed { 1 } else { field_layout.align };
        align = align.max(field_align);
        if record.tag == "union" {
            size = size.max(field_layout.size);
        } else {
            size = size.div_ceil(field_align) * field_align + field_layout.size;
        }
    }
    if let Some(aligned) = record.aligned {
        align = align.max(aligned);
    }
    if record.field_types.is_empty() && record.tag != "union" {
        // An empty C++ class still occupies one byte.
        size = 1;
    }
    Some(Layout {
        size: size.div_ceil(align) * align,
        align,
    })
}

/// Appends the scalar fields of record `name` to `out`, at `base` plus their offsets, named
/// `prefix` + field name (nested records, vectors and arrays flattened, see
/// [`StructType::fields`]). False when a field cannot be listed: an unnamed field, a union
/// (whose fields overlap), an array over [`MAX_FIELD_ELEMENTS`], a type not understood.
fn record_fields(
    name: &str,
    facts: &AstFacts,
    depth: usize,
    prefix: &str,
    base: u64,
    out: &mut Vec<StructField>,
) -> bool {
    let Some(record) = facts.records.get(name) else {
        return false;
    };
    if depth > MAX_TYPEDEF_DEPTH
        || record.tag == "union"
        || record.field_names.len() != record.field_types.len()
    {
        return false;
    }
    let mut offset = 0u64;
    for (ty, field) in record.field_types.iter().zip(&record.field_names) {
        let Some(layout) = storage_layout(ty, facts, depth + 1) else {
            return false;
        };
        let align = if record.packed { 1 } else { layout.align };
        offset = offset.div_ceil(align) * align;
        let path = format!("{prefix}{field}");
        if field.is_empty() || !field_elements(ty, facts, depth, &path, base + offset, out) {
            return false;
        }
        offset += layout.size;
    }
    true
}

/// Appends the scalars of one field of type `ty` at `at` (see [`record_fields`]).
fn field_elements(
    ty: &str,
    facts: &AstFacts,
    depth: usize,
    path: &str,
    at: u64,
    out: &mut Vec<StructField>,
) -> bool {
    let ty = ty.trim();
    if let Some(open) = ty.rfind('[')
        && ty.ends_with(']')
    {
        let (element, count) = (&ty[..open], ty[open + 1..ty.len() - 1].trim());
        let Ok(count) = count.parse::<u64>() else {
            return false;
        };
        let Some(size) = storage_layout(element, facts, depth + 1).map(|l| l.size) else {
            return false;
        };
        return count <= MAX_FIELD_ELEMENTS
            && (0..count).all(|i| {
                field_elements(
                    element,
                    facts,
                    depth + 1,
                    &format!("{path}[{i}]"),
                    at + i * size,
                    out,
                )
            });
    }
    if ParsedType::parse(ty).is_ok_and(|p| p.pointee.is_some()) {
        return false;
    }
    match classify_at(ty, facts, depth + 1) {
        ParamKind::Scalar(scalar) => out.push(StructField {
            name: path.to_string(),
            offset: at,
            scalar,
        }),
        ParamKind::Vector(v) => {
            for (lane, c) in (0..v.lanes.min(4)).zip(["x", "y", "z", "w"]) {
                out.push(StructField {
                    name: format!("{path}.{c}"),
                    offset: at + u64::from(lane) * v.element.size(),
                    scalar: v.element,
                });
            }
        }
        ParamKind::Struct(st) => {
            let (_, name) = split_tag_keyword(&st.name);
            let name = name.rsplit("::").next().unwrap_or(name);
            return record_fields(name, facts, depth + 1, &format!("{path}."), at, out);
        }
        _ => return false,
    }
    true
}

/// Size and alignment of a field type, arrays included (`float[4]`, `int[2][3]`).
fn storage_layout(spelling: &str, facts: &AstFacts, depth: usize) -> Option<Layout> {
    let mut element = spelling.trim();
    let mut count = 1u64;
    while let Some(open) = element.rfind('[') {
        if !element.ends_with(']') {
            break;
        }
        let dimension: u64 = element[open + 1..element.len() - 1].trim().parse().ok()?;
        count = count.checked_mul(dimension)?;
        element = element[..open].trim();
    }
    // A pointer field is 8 bytes whatever it points to: its pointee is not resolved, so
    // records that point at each other (`struct _IO_FILE *_chain`) cost no recursion.
    if ParsedType::parse(element).is_ok_and(|p| p.pointee.is_some()) {
        return Some(Layout {
            size: 8u64.checked_mul(count)?,
            align: 8,
        });
    }
    let layout = match classify_at(element, facts, depth) {
        ParamKind::Scalar(s) => Layout {
            size: s.size(),
            align: s.size(),
        },
        ParamKind::Pointer(_) => Layout { size: 8, align: 8 },
        ParamKind::Vector(v) => Layout {
            size: v.size,
            align: v.align,
        },
        ParamKind::Struct(s) => {
            let (_, name) = split_tag_keyword(&s.name);
            record_layout(name.rsplit("::").next().unwrap_or(name), facts, depth + 1)?
        }
        _ => return None,
    };
    Some(Layout {
        size: layout.size.checked_mul(count)?,
        align: layout.align,
    })
}

/// The parts of a type spelling.
struct ParsedType {
    /// The type name when the type is not a pointer.
    base: String,
    vector_lanes: Option<u32>,
    /// The pointee when it is a pointer.
    pointee: Option<PointeeSpelling>,
    is_restrict: bool,
    is_reference: bool,
}

struct PointeeSpelling {
    base: String,
    vector_lanes: Option<u32>,
    is_const: bool,
    is_volatile: bool,
    is_pointer: bool,
    address_space: AddressSpace,
}

impl ParsedType {
    fn parse(spelling: &str) -> Result<ParsedType, String> {
        let (text, attributes) = take_attributes(spelling);
        if text.contains('(') {
            return Err(format!("function or array pointer `{spelling}`"));
        }
        let is_reference = text.trim_end().ends_with('&');
        let Some(star) = last_top_level_star(&text) else {
            let words = Words::parse(&text);
            return Ok(ParsedType {
                base: words.base,
                vector_lanes: attributes.vector_lanes,
                pointee: None,
                is_restrict: false,
                is_reference,
            });
        };
        let (pointee_text, pointer_qualifiers) = (&text[..star], &text[star + 1..]);
        let is_restrict = pointer_qualifiers
            .split_whitespace()
            .any(|w| w == "__restrict" || w == "restrict");
        let is_pointer = last_top_level_star(pointee_text).is_some();
        let words = Words::parse(pointee_text);
        let address_space = words
            .address_space
            .or(attributes.address_space)
            .unwrap_or(AddressSpace::Generic);
        Ok(ParsedType {
            base: String::new(),
            vector_lanes: None,
            pointee: Some(PointeeSpelling {
                base: words.base,
                vector_lanes: attributes.vector_lanes,
                is_const: words.is_const,
                is_volatile: words.is_volatile,
                is_pointer,
                address_space,
            }),
            is_restrict,
            is_reference,
        })
    }
}

/// A pointee or value spelling split into qualifiers and the type name.
struct Words {
    base: String,
    is_const: bool,
    is_volatile: bool,
    address_space: Option<AddressSpace>,
}

impl Words {
    fn parse(text: &str) -> Words {
        let mut words = Words {
            base: String::new(),
            is_const: false,
            is_volatile: false,
            address_space: None,
        };
        let mut base_words: Vec<&str> = Vec::new();
        for word in text.split_whitespace() {
            match word {
                "const" => words.is_const = true,
                "volatile" => words.is_volatile = true,
                "__restrict" | "restrict" | "__restrict__" => {}
                "__global" | "global" => words.address_space = Some(AddressSpace::Global),
                "__local" | "local" => words.address_space = Some(AddressSpace::Shared),
                "__constant" | "constant" => words.address_space = Some(AddressSpace::Constant),
                "__private" | "private" => words.address_space = Some(AddressSpace::Private),
                "__generic" | "generic" => words.address_space = Some(AddressSpace::Generic),
                _ => base_words.push(word),
            }
        }
        words.base = base_words
            .join(" ")
            .replace(" <", "<")
            .replace("< ", "<")
            .replace(" >", ">");
        words
    }
}

struct Attributes {
    address_space: Option<AddressSpace>,
    vector_lanes: Option<u32>,
}

/// Removes every `__attribute__((...))` from the spelling and reads the two that matter.
fn take_attributes(spelling: &str) -> (String, Attributes) {
    let mut text = spelling.to_string();
    let mut attributes = Attributes {
        address_space: None,
        vector_lanes: None,
    };
    while let Some(start) = text.find("__attribute__((") {
        let mut depth = 0i32;
        let mut end = None;
        for (offset, ch) in text[start..].char_indices() {
            match ch {
                '(' => depth += 1,
                ')' => {
                    depth -= 1;
                    if depth == 0 {
                        end = Some(start + offset + 1);
                        break;
                    }
                }
                _ => {}
            }
        }
        let Some(end) = end else { break };
        let inside = &text[start..end];
        if let Some(n) = number_after(inside, "address_space(") {
            attributes.address_space = Some(match n {
                1 => AddressSpace::Global,
                3 => AddressSpace::Shared,
                4 => AddressSpace::Constant,
                5 => AddressSpace::Private,
                _ => AddressSpace::Generic,
            });
        }
        if let Some(n) = number_after(inside, "ext_vector_type(") {
            attributes.vector_lanes = Some(n);
        }
        text.replace_range(start..end, " ");
    }
    (text, attributes)
}

fn number_after(text: &str, prefix: &str) -> Option<u32> {
    let rest = &text[text.find(prefix)? + prefix.len()..];
    rest.chars()
        .take_while(char::is_ascii_digit)
        .collect::<String>()
        .parse()
        .ok()
}

/// The byte index of the last `*` outside template arguments.
fn last_top_level_star(text: &str) -> Option<usize> {
    let mut depth = 0i32;
    let mut last = None;
    for (index, ch) in text.char_indices() {
        match ch {
            '<' => depth += 1,
            '>' => depth -= 1,
            '*' if depth == 0 => last = Some(index),
            _ => {}
        }
    }
    last
}

#[cfg(test)]
mod tests {
    use super::super::ast_json::RecordInfo;
    use super::*;

    fn facts() -> AstFacts {
        let mut facts = AstFacts::default();
        facts.typedefs.insert("real_t".into(), "float".into());
        facts.typedefs.insert("floatptr".into(), "float *".into());
        facts
            .typedefs
            .insert("size_t".into(), "unsigned long".into());
        facts
            .typedefs
            .insert("Params".into(), "struct Params".into());
        facts.typedefs.insert(
            "float4".into(),
            "float __attribute__((ext_vector_type(4)))".into(),
        );
        facts.records.insert(
            "Params".into(),
            RecordInfo {
                tag: "struct".into(),
                field_types: vec!["int".into(), "double[3]".into()],
                ..Default::default()
            },
        );
        facts.records.insert(
            "Aligned".into(),
            RecordInfo {
                tag: "struct".into(),
                field_types: vec!["char".into()],
                field_names: vec!["c".into()],
                aligned: Some(16),
                packed: false,
            },
        );
        facts.enums.insert("Mode".into());
        facts
    }

    /// Records that point at each other, as glibc's `FILE` does through `_chain` and
    /// `_markers`: each pointer field is 8 bytes without resolving its pointee, so the
    /// layout is computed at once (it used to recurse through every pointee, exponentially).
    #[test]
    fn records_pointing_at_each_other_have_a_layout() {
        let mut facts = AstFacts::default();
        let fields = |n: usize| {
            let mut f = vec!["int".to_string()];
            f.extend((0..n).map(|i| format!("struct R{} *", i % 3)));
            f
        };
        for name in ["R0", "R1", "R2"] {
            facts.records.insert(
                name.into(),
                RecordInfo {
                    tag: "struct".into(),
                    field_types: fields(12),
                    ..Default::default()
                },
            );
        }
        match classify("struct R0 *", &facts) {
            ParamKind::Pointer(p) => assert_eq!(
                p.pointee,
                Pointee::Struct(StructType {
                    name: "R0".into(),
                    size: Some(8 + 12 * 8),
                    fields: Vec::new(),
                })
            ),
            other => panic!("{other:?}"),
        }
    }

    fn pointer(spelling: &str) -> PointerParam {
        match classify(spelling, &facts()) {
            ParamKind::Pointer(p) => p,
            other => panic!("{spelling}: {other:?}"),
        }
    }

    #[test]
    fn pointers() {
        let p = pointer("const float *__restrict");
        assert_eq!(p.pointee, Pointee::Scalar(ScalarType::F32));
        assert!(p.is_const && p.is_restrict && !p.is_volatile);
        assert_eq!(p.address_space, AddressSpace::Generic);
        assert_eq!(
            pointer("real_t *").pointee,
            Pointee::Scalar(ScalarType::F32)
        );
        assert_eq!(
            pointer("unsigned long long *").pointee,
            Pointee::Scalar(ScalarType::U64)
        );
        assert_eq!(pointer("float **").pointee, Pointee::Pointer);
        assert_eq!(pointer("void *").pointee, Pointee::Void);
        let p = pointer("__global const float *restrict");
        assert!(p.is_const && p.is_restrict);
        assert_eq!(p.address_space, AddressSpace::Global);
        assert_eq!(pointer("__local int *").address_space, AddressSpace::Shared);
        let p = pointer("__global float __attribute__((ext_vector_type(4))) *");
        assert!(matches!(
            p.pointee,
            Pointee::Vector(VectorType {
                lanes: 4,
                size: 16,
                ..
            })
        ));
        let p = pointer("const struct Params *");
        assert_eq!(
            p.pointee,
            Pointee::Struct(StructType {
                name: "Params".into(),
                size: Some(32),
                fields: Vec::new(),
            })
        );
        assert!(p.is_const);
        assert!(matches!(
            pointer("floatptr").pointee,
            Pointee::Scalar(ScalarType::F32)
        ));
        match pointer("const float4 *__restrict").pointee {
            Pointee::Vector(v) => assert_eq!((v.lanes, v.size, v.align), (4, 16, 16)),
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn values() {
        let f = facts();
        assert_eq!(
            classify("unsigned char", &f),
            ParamKind::Scalar(ScalarType::U8)
        );
        assert_eq!(
            classify("long long", &f),
            ParamKind::Scalar(ScalarType::I64)
        );
        assert_eq!(classify("size_t", &f), ParamKind::Scalar(ScalarType::U64));
        assert_eq!(
            classify("const int", &f),
            ParamKind::Scalar(ScalarType::I32)
        );
        assert_eq!(
            classify("enum Mode", &f),
            ParamKind::Scalar(ScalarType::I32)
        );
        assert_eq!(classify("Mode", &f), ParamKind::Scalar(ScalarType::I32));
        assert_eq!(classify("__half", &f), ParamKind::Scalar(ScalarType::F16));
        assert_eq!(
            classify("Params", &f),
            ParamKind::Struct(StructType {
                name: "Params".into(),
                size: Some(32),
                fields: Vec::new(),
            })
        );
        assert_eq!(
            classify("Aligned", &f),
            ParamKind::Struct(StructType {
                name: "Aligned".into(),
                size: Some(16),
                fields: vec![StructField {
                    name: "c".into(),
                    offset: 0,
                    scalar: ScalarType::I8
                }],
            })
        );
        match classify("float3", &f) {
            ParamKind::Vector(v) => assert_eq!((v.lanes, v.size, v.align), (3, 12, 4)),
            other => panic!("{other:?}"),
        }
        match classify("double4", &f) {
            ParamKind::Vector(v) => assert_eq!((v.size, v.align), (32, 16)),
            other => panic!("{other:?}"),
        }
        assert!(matches!(
            classify("int &", &f),
            ParamKind::Unsupported { .. }
        ));
        assert!(matches!(
            classify("void (*)(int)", &f),
            ParamKind::Unsupported { .. }
        ));
        assert!(matches!(
            classify("Mystery", &f),
            ParamKind::Unsupported { .. }
        ));
    }

    #[test]
    fn struct_fields_are_listed_at_their_offsets_nested_records_arrays_and_vectors_flattened() {
        let mut facts = facts();
        facts.records.insert(
            "Inner".into(),
            RecordInfo {
                tag: "struct".into(),
                field_types: vec!["float".into(), "int[2]".into()],
                field_names: vec!["x".into(), "k".into()],
                ..Default::default()
            },
        );
        facts.records.insert(
            "Outer".into(),
            RecordInfo {
                tag: "struct".into(),
                field_types: vec![
                    "char".into(),
                    "Inner".into(),
                    "double".into(),
                    "float4".into(),
                ],
                field_names: vec!["c".into(), "in".into(), "d".into(), "v".into()],
                ..Default::default()
            },
        );
        let ParamKind::Struct(st) = classify("Outer", &facts) else {
            panic!("not a struct")
        };
        let got: Vec<(&str, u64)> = st
            .fields
            .iter()
            .map(|f| (f.name.as_str(), f.offset))
            .collect();
        assert_eq!(
            got,
            [
                ("c", 0),
                ("in.x", 4),
                ("in.k[0]", 8),
                ("in.k[1]", 12),
                ("d", 16),
                ("v.x", 32),
                ("v.y", 36),
                ("v.z", 40),
                ("v.w", 44)
            ]
        );
        assert_eq!(st.size, Some(48));
        // Without field names (or with a union inside) the fields are not listed.
        let ParamKind::Struct(p) = classify("Params", &facts) else {
            panic!("not a struct")
        };
        assert!(p.fields.is_empty());
    }
}
