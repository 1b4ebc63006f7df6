//! What the advisor reads from the C source text rather than from the PTX: the layout of
//! the structures that parameters point to (so that `ld [c+0]` is named `c->data`), the
//! headers of `for` loops (the loop variables' names and the text `--emit-cuda` copies),
//! and the white-list of functions that exist on the GPU (Juravle §4.1).
//!
//! The struct reader understands the declarations small C programs use —
//! `typedef struct [tag] { T field; ... } name;` and `struct tag { ... };` with scalar and
//! pointer fields (no arrays, bit-fields, nested struct values or unions) — and lays them
//! out with the alignment rules of the LP64 ABI that clang's NVPTX target uses. A struct it
//! does not understand is left out; its fields are then named by byte offset
//! (`img->+8`).

use std::collections::BTreeMap;

/// One field of a struct: name, byte offset, size, and the pointee for pointers.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub struct Field {
    pub name: String,
    pub offset: u64,
    pub size: u64,
    /// For a pointer field: the pointed-to type as written (`unsigned char`, `image_t`).
    pub pointee: Option<String>,
    /// The field's type as written (`int`, `unsigned char*`).
    pub ty: String,
}

/// The layout of one struct type.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub struct StructLayout {
    /// Every name the type is known by (`image_t`, `struct image`).
    pub names: Vec<String>,
    pub fields: Vec<Field>,
}

impl StructLayout {
    pub fn field_at(&self, offset: u64) -> Option<&Field> {
        self.fields.iter().find(|f| f.offset == offset)
    }
}

/// Size and alignment of a C scalar type spelled with its qualifiers removed.
fn scalar_size(ty: &str) -> Option<u64> {
    let words: Vec<&str> = ty
        .split_whitespace()
        .filter(|w| {
            !matches!(
                *w,
                "const" | "volatile" | "signed" | "unsigned" | "restrict"
            )
        })
        .collect();
    let core = words.join(" ");
    Some(match core.as_str() {
        "char" | "_Bool" | "bool" | "int8_t" | "uint8_t" => 1,
        "short" | "short int" | "int16_t" | "uint16_t" => 2,
        "" | "int" | "float" | "int32_t" | "uint32_t" => 4,
        "long" | "long int" | "long long" | "long long int" | "double" | "size_t" | "int64_t"
        | "uint64_t" => 8,
        _ => return None,
    })
}

/// Reads the struct declarations of a C source text.
pub fn parse_structs(source: &str) -> Vec<StructLayout> {
    let text = strip_comments(source);
    let mut out = Vec::new();
    let mut from = 0;
    while let Some(found) = text[from..].find("struct") {
        let at = from + found;
        from = at + "struct".len();
        let before_ok = !text[..at]
            .chars()
            .next_back()
            .is_some_and(|c| c.is_alphanumeric() || c == '_');
        let after = &text[from..];
        if !before_ok || !after.starts_with(|c: char| c.is_whitespace() || c == '{') {
            continue;
        }
        let Some(open) = after.find('{') else { break };
        let tag = after[..open].trim();
        if tag.contains(|c: char| !(c.is_alphanumeric() || c == '_')) {
            continue; // `struct x *p;` and the like: not a definition
        }
        let Some(close) = after[open..].find('}') else {
            break;
        };
        let body = &after[open + 1..open + close];
        let tail = &after[open + close + 1..];
        from += open + close + 1;
        let Some(fields) = layout_fields(body) else {
            continue;
        };
        let mut names = Vec::new();
        if !tag.is_empty() {
            names.push(format!("struct {tag}"));
        }
        if text[..at].trim_end().ends_with("typedef")
            && let Some(semi) = tail.find(';')
        {
            let name = tail[..semi].trim();
            if !name.is_empty() && name.chars().all(|c| c.is_alphanumeric() || c == '_') {
                names.push(name.to_string());
            }
        }
        out.push(StructLayout { names, fields });
    }
    // `typedef struct tag name;` after the definition.
    let mut aliases = Vec::new();
    for stmt in text.split(';') {
        let words: Vec<&str> = stmt.split_whitespace().collect();
        if let ["typedef", "struct", tag, name] = words.as_slice() {
            aliases.push((format!("struct {tag}"), name.to_string()));
        }
    }
    for (tag, name) in aliases {
        if let Some(s) = out.iter_mut().find(|s| s.names.contains(&tag)) {
            s.names.push(name);
        }
    }
    out
}

fn strip_comments(source: &str) -> String {
    let mut out = String::with_capacity(source.len());
    let mut chars = source.chars().peekable();
    while let Some(c) = chars.next() {
        if c == '/' && chars.peek() == Some(&'/') {
            for c in chars.by_ref() {
                if c == '\n' {
                    out.push('\n');
                    break;
                }
            }
        } else if c == '/' && chars.peek() == Some(&'*') {
            chars.next();
            let mut prev = ' ';
            for c in chars.by_ref() {
                if prev == '*' && c == '/' {
                    break;
                }
                prev = c;
            }
            out.push(' ');
        } else {
            out.push(c);
        }
    }
    out
}

/// Lays out `T name; T *name, name2;` declarations; `None` if a field is not understood.
fn layout_fields(body: &str) -> Option<Vec<Field>> {
    let mut fields = Vec::new();
    let mut offset = 0u64;
    let mut max_align = 1u64;
    for decl in body.split(';') {
        let decl = decl.trim();
        if decl.is_empty() {
            continue;
        }
        if decl.contains(['[', ':', '(', '{']) {
            return None;
        }
        let mut parts = decl.split(',');
        let first = parts.next()?.trim();
        // The base type is everything before the first declarator's name and stars.
        let name_start = first.rfind(|c: char| !(c.is_alphanumeric() || c == '_'))?;
        let base_and_stars = &first[..=name_start];
        let base = base_and_stars.trim_end_matches(|c: char| c == '*' || c.is_whitespace());
        let declarators = std::iter::once(first[base.len()..].to_string())
            .chain(parts.map(|p| p.trim().to_string()));
        for d in declarators {
            let is_pointer = d.contains('*');
            let name = d
                .trim_start_matches(|c: char| c == '*' || c.is_whitespace())
                .trim();
            if name.is_empty() || !name.chars().all(|c| c.is_alphanumeric() || c == '_') {
                return None;
            }
            let size = if is_pointer { 8 } else { scalar_size(base)? };
            offset = offset.div_ceil(size) * size;
            max_align = max_align.max(size);
            fields.push(Field {
                name: name.to_string(),
                offset,
                size,
                pointee: is_pointer.then(|| base.trim().to_string()),
                ty: if is_pointer {
                    format!("{}*", base.trim())
                } else {
                    base.trim().to_string()
                },
            });
            offset += size;
        }
    }
    let _ = max_align;
    Some(fields)
}

/// Finds the layout of the type a pointer of C type `c_type` (`matrix_t *`,
/// `const image_t*`) points to.
pub fn pointee_struct<'a>(structs: &'a [StructLayout], c_type: &str) -> Option<&'a StructLayout> {
    let t = c_type.trim().strip_suffix('*')?.trim();
    let t = t
        .split_whitespace()
        .filter(|w| !matches!(*w, "const" | "volatile" | "restrict" | "__restrict__"))
        .collect::<Vec<_>>()
        .join(" ");
    structs.iter().find(|s| s.names.contains(&t))
}

/// The parts of a `for` loop header: `for (INIT; COND; STEP)`.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub struct ForHeader {
    /// The loop variable, when the init assigns one variable.
    pub var: Option<String>,
    pub init: String,
    pub cond: String,
    pub step: String,
    /// 1-based line of the `for` keyword.
    pub line: u32,
}

/// The `for` header that starts on `line` (1-based) or, failing that, the nearest `for`
/// starting before it within three lines (clang's `.loc` of a loop header points at the
/// condition, which may sit on a continuation line).
pub fn for_header(source: &str, line: u32) -> Option<ForHeader> {
    let lines: Vec<&str> = source.lines().collect();
    for l in (line.saturating_sub(3).max(1)..=line).rev() {
        let idx = (l - 1) as usize;
        let Some(text) = lines.get(idx) else { continue };
        let Some(pos) = find_keyword(text, "for") else {
            continue;
        };
        // Join this and the next lines until the parentheses balance.
        let mut joined = text[pos + 3..].to_string();
        let mut next = idx + 1;
        while paren_depth(&joined) != Some(0) && next < lines.len() && next < idx + 4 {
            joined.push(' ');
            joined.push_str(lines[next]);
            next += 1;
        }
        let open = joined.find('(')?;
        let mut depth = 0i32;
        let mut close = None;
        for (i, c) in joined[open..].char_indices() {
            match c {
                '(' => depth += 1,
                ')' => {
                    depth -= 1;
                    if depth == 0 {
                        close = Some(open + i);
                        break;
                    }
                }
                _ => {}
            }
        }
        let inside = &joined[open + 1..close?];
        let parts: Vec<&str> = inside.splitn(3, ';').collect();
        let [init, cond, step] = parts.as_slice() else {
            return None;
        };
        let var = init.split('=').next().and_then(|lhs| {
            let name = lhs.split_whitespace().last()?.trim_start_matches('*');
            (init.contains('=') && name.chars().all(|c| c.is_alphanumeric() || c == '_'))
                .then(|| name.to_string())
        });
        return Some(ForHeader {
            var,
            init: init.trim().to_string(),
            cond: cond.trim().to_string(),
            step: step.trim().to_string(),
            line: l,
        });
    }
    None
}

fn find_keyword(text: &str, word: &str) -> Option<usize> {
    let code = text.split("//").next().unwrap_or(text);
    let mut from = 0;
    while let Some(p) = code[from..].find(word) {
        let at = from + p;
        let before = code[..at]
            .chars()
            .next_back()
            .is_some_and(|c| c.is_alphanumeric() || c == '_');
        let after = code[at + word.len()..]
            .chars()
            .next()
            .is_some_and(|c| c.is_alphanumeric() || c == '_');
        if !before && !after {
            return Some(at);
        }
        from = at + word.len();
    }
    None
}

fn paren_depth(s: &str) -> Option<i32> {
    let mut d = 0;
    let mut seen = false;
    for c in s.chars() {
        match c {
            '(' => {
                d += 1;
                seen = true;
            }
            ')' => d -= 1,
            _ => {}
        }
    }
    seen.then_some(d)
}

/// Functions a GPU kernel can call (Juravle §4.1's white-list): the C math library, which
/// CUDA provides as device functions, and the few C library functions CUDA has on the
/// device (`printf`, `malloc`, `free`, `memcpy`, `memset`, `assert`).
pub fn gpu_available(name: &str) -> bool {
    const MATH: &[&str] = &[
        "sin",
        "cos",
        "tan",
        "asin",
        "acos",
        "atan",
        "atan2",
        "sinh",
        "cosh",
        "tanh",
        "asinh",
        "acosh",
        "atanh",
        "exp",
        "exp2",
        "exp10",
        "expm1",
        "log",
        "log2",
        "log10",
        "log1p",
        "pow",
        "sqrt",
        "cbrt",
        "rsqrt",
        "hypot",
        "fabs",
        "fmin",
        "fmax",
        "fma",
        "floor",
        "ceil",
        "round",
        "trunc",
        "rint",
        "nearbyint",
        "lround",
        "llround",
        "lrint",
        "fmod",
        "remainder",
        "copysign",
        "erf",
        "erfc",
        "tgamma",
        "lgamma",
        "frexp",
        "ldexp",
        "modf",
        "abs",
        "labs",
        "llabs",
        "min",
        "max",
    ];
    const LIBC: &[&str] = &[
        "printf",
        "malloc",
        "free",
        "memcpy",
        "memset",
        "__assert_fail",
        "__assertfail",
        "vprintf",
    ];
    let base = name
        .strip_prefix("__nv_")
        .or_else(|| name.strip_prefix("__builtin_"))
        .unwrap_or(name);
    let base_f = base.strip_suffix('f').unwrap_or(base);
    MATH.contains(&base) || MATH.contains(&base_f) || LIBC.contains(&base)
}

/// What to suggest instead of a function that has no GPU version, when we know.
pub fn gpu_replacement(name: &str) -> Option<&'static str> {
    Some(match name {
        "rand" | "random" | "drand48" | "rand_r" => {
            "a counter-based generator per element (e.g. cuRAND Philox with subsequence i)"
        }
        "fprintf" | "fputs" | "fwrite" | "puts" | "fputc" => {
            "collect what to log in a device array that the host writes after the kernel"
        }
        _ => return None,
    })
}

/// The source lines of a file, 1-based, for error-free lookups.
pub fn line_text(source: &str, line: u32) -> Option<&str> {
    source.lines().nth(line.checked_sub(1)? as usize)
}

/// Maps each struct name to its layout, for quick lookups.
pub fn by_name(structs: &[StructLayout]) -> BTreeMap<String, &StructLayout> {
    let mut m = BTreeMap::new();
    for s in structs {
        for n in &s.names {
            m.insert(n.clone(), s);
        }
    }
    m
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn typedef_struct_layout_follows_lp64_alignment() {
        let src = "typedef struct {\n int width;\n int height;\n unsigned char* pixmap;\n} image_t;\n\
                   typedef struct { int* data; int size; } matrix_t;";
        let s = parse_structs(src);
        assert_eq!(s.len(), 2);
        assert_eq!(s[0].names, vec!["image_t"]);
        let pix = s[0].field_at(8).unwrap();
        assert_eq!(pix.name, "pixmap");
        assert_eq!(pix.pointee.as_deref(), Some("unsigned char"));
        assert_eq!(s[1].field_at(0).unwrap().name, "data");
        assert_eq!(s[1].field_at(8).unwrap().name, "size");
        assert!(pointee_struct(&s, "const image_t *").is_some());
        assert!(pointee_struct(&s, "int *").is_none());
    }

    #[test]
    fn for_headers_name_their_variable() {
        let src = "void f(int n) {\n  for (int i = -n; i < n; i += 4) {\n  }\n}";
        let h = for_header(src, 2).unwrap();
        assert_eq!(h.var.as_deref(), Some("i"));
        assert_eq!(h.init, "int i = -n");
        assert_eq!(h.cond, "i < n");
        assert_eq!(h.step, "i += 4");
    }

    #[test]
    fn whitelist_has_math_not_stdio() {
        assert!(gpu_available("sqrtf"));
        assert!(gpu_available("exp"));
        assert!(!gpu_available("rand"));
        assert!(!gpu_available("fprintf"));
    }
}
