//! Parameter names read from the source text, for when clang's AST is not to be had (nvcc
//! compiled a source that needs NVIDIA's own headers, which the shims do not provide).
//!
//! The kernel's declarations are found as text: the kernel's name followed by `(`, in a
//! declaration whose text since the previous `;`, `{` or `}` says `__global__`. The
//! parenthesised list is split at its top-level commas and each parameter's name is its
//! last identifier, when something (its type) comes before it and no `*`, `&` or `]`…
//! after it. Names are given only when every such declaration with as many parameters as
//! the PTX has names them all, and alike; otherwise the caller keeps positional names.
//! Macros are not expanded, so kernels declared through macros keep positional names.

/// Keywords that end a parameter's type and are never its name.
const TYPE_WORDS: &[&str] = &[
    "int",
    "float",
    "double",
    "char",
    "short",
    "long",
    "unsigned",
    "signed",
    "bool",
    "void",
    "const",
    "volatile",
    "__restrict__",
    "restrict",
    "__restrict",
    "size_t",
    "auto",
];

/// The parameter names of the `__global__` function `name` that has `count` parameters.
pub(crate) fn parameter_names(source: &str, name: &str, count: usize) -> Option<Vec<String>> {
    let text = without_comments(source);
    let mut agreed: Option<Vec<String>> = None;
    for list in kernel_parameter_lists(&text, name) {
        let params = split_top_level(list);
        if params.len() != count {
            continue;
        }
        let names: Option<Vec<String>> = params.iter().map(|p| parameter_name(p)).collect();
        match (names, &agreed) {
            (Some(names), None) => agreed = Some(names),
            (Some(names), Some(previous)) if &names == previous => {}
            (Some(_), Some(_)) => return None,
            (None, _) => {}
        }
    }
    agreed
}

/// `source` with comments and the contents of string and character literals blanked.
fn without_comments(source: &str) -> String {
    let bytes = source.as_bytes();
    let mut out = String::with_capacity(source.len());
    let mut i = 0;
    while i < bytes.len() {
        let rest = &source[i..];
        if rest.starts_with("//") {
            i += rest.find('\n').unwrap_or(rest.len());
        } else if let Some(comment) = rest.strip_prefix("/*") {
            i += comment.find("*/").map_or(rest.len(), |end| end + 4);
            out.push(' ');
        } else if bytes[i] == b'"' || bytes[i] == b'\'' {
            let quote = bytes[i];
            let mut j = i + 1;
            while j < bytes.len() && bytes[j] != quote {
                j += if bytes[j] == b'\\' { 2 } else { 1 };
            }
            out.push_str("\"\"");
            i = (j + 1).min(bytes.len());
        } else {
            let c = rest.chars().next().unwrap_or(' ');
            out.push(c);
            i += c.len_utf8();
        }
    }
    out
}

fn is_ident(c: char) -> bool {
    c.is_ascii_alphanumeric() || c == '_'
}

/// The text between the parentheses of each `__global__` declaration of `name`.
fn kernel_parameter_lists<'a>(text: &'a str, name: &str) -> Vec<&'a str> {
    let mut lists = Vec::new();
    for (at, _) in text.match_indices(name) {
        let before = text[..at].chars().next_back();
        let after = &text[at + name.len()..];
        if before.is_some_and(is_ident) || after.starts_with(is_ident) {
            continue;
        }
        let open = after.trim_start();
        if !open.starts_with('(') {
            continue;
        }
        let head_start = text[..at].rfind([';', '{', '}']).map_or(0, |p| p + 1);
        if !text[head_start..at].contains("__global__") {
            continue;
        }
        if let Some(list) = balanced(&open[1..]) {
            lists.push(list);
        }
    }
    lists
}

/// The text up to the `)` that closes an already opened `(`.
fn balanced(text: &str) -> Option<&str> {
    let mut depth = 0usize;
    for (i, c) in text.char_indices() {
        match c {
            '(' => depth += 1,
            ')' if depth == 0 => return Some(&text[..i]),
            ')' => depth -= 1,
            _ => {}
        }
    }
    None
}

/// The parameters of a list, split at commas outside `()`, `[]`, `{}` and `<>`.
fn split_top_level(list: &str) -> Vec<&str> {
    if list.trim().is_empty() || list.trim() == "void" {
        return Vec::new();
    }
    let mut parts = Vec::new();
    let (mut depth, mut start) = (0i32, 0);
    for (i, c) in list.char_indices() {
        match c {
            '(' | '[' | '{' | '<' => depth += 1,
            ')' | ']' | '}' | '>' => depth -= 1,
            ',' if depth == 0 => {
                parts.push(&list[start..i]);
                start = i + 1;
            }
            _ => {}
        }
    }
    parts.push(&list[start..]);
    parts
}

/// The name of one parameter declaration: `const float* __restrict__ in` → `in`.
fn parameter_name(param: &str) -> Option<String> {
    let param = param.split('=').next().unwrap_or(param);
    let param = param.split('[').next().unwrap_or(param).trim_end();
    let tail_start = param.trim_end_matches(is_ident).len();
    let name = &param[tail_start..];
    let before = param[..tail_start].trim();
    let valid = !name.is_empty()
        && !name.starts_with(|c: char| c.is_ascii_digit())
        && !before.is_empty()
        && !TYPE_WORDS.contains(&name);
    valid.then(|| name.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn names(list: &[&str]) -> Option<Vec<String>> {
        Some(list.iter().map(|s| s.to_string()).collect())
    }

    #[test]
    fn reads_names_of_kernel_definitions() {
        let source = r#"
            // gelu_forward(float* wrong, int x) in a comment
            #include <cuda_bf16.h>
            template <typename T>
            __global__ void __launch_bounds__(256) gelu_forward(T* __restrict__ out,
                    const T* inp /* input */, int N, float scale[4]) {
                if (threadIdx.x < N) out[0] = inp[0];
            }
            void host() { gelu_forward<<<1, 1>>>(a, b, 3, s); }
        "#;
        assert_eq!(
            parameter_names(source, "gelu_forward", 4),
            names(&["out", "inp", "N", "scale"])
        );
        assert_eq!(parameter_names(source, "gelu_forward", 3), None);
    }

    #[test]
    fn unnamed_or_conflicting_declarations_give_no_names() {
        let prototype_only = "__global__ void k(float*, int);";
        assert_eq!(parameter_names(prototype_only, "k", 2), None);
        let with_definition =
            "__global__ void k(float*, int);\n__global__ void k(float *x, int n) {}";
        assert_eq!(parameter_names(with_definition, "k", 2), names(&["x", "n"]));
        let conflicting =
            "__global__ void k(float *x, int n);\n__global__ void k(float *y, int m) {}";
        assert_eq!(parameter_names(conflicting, "k", 2), None);
        let not_a_kernel = "__device__ void k(float *x, int n) {}";
        assert_eq!(parameter_names(not_a_kernel, "k", 2), None);
        assert_eq!(
            parameter_names("__global__ void k() {}", "k", 0),
            names(&[])
        );
        assert_eq!(
            parameter_names("__global__ void k(unsigned int) {}", "k", 1),
            None
        );
    }
}
