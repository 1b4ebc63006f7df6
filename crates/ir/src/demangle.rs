//! Demangled names of kernels, functions and variables.
//!
//! Itanium C++ names (`_Z…`) are demangled with `cpp_demangle`. The short form is the
//! unqualified name without template arguments or parameters, which is what a user types
//! on the command line (`--kernel vecAdd`): `_Z6vecAddPKfS0_Pfi` is
//! `vecAdd(float const*, float const*, float*, int)`, short `vecAdd`; the static shared
//! variable `_ZZ9reduceSumPfS_E5sdata` is `reduceSum(float*, float*)::sdata`, short
//! `sdata`. Names that are not mangled (`extern "C"` kernels, `__local_depot0`) have no
//! demangled form.

/// The demangled forms of one name.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Demangled {
    /// The full demangled name, e.g. `vecAdd(float const*, float const*, float*, int)`.
    pub full: String,
    /// The unqualified name without template arguments or parameters, e.g. `vecAdd`.
    pub short: String,
    /// The unqualified name with its template arguments as a user writes them, e.g.
    /// `reduce<256>` for `void reduce<(unsigned int)256>(float*)`; the short name for a
    /// function that is not a template instance.
    pub instance: String,
}

/// Demangles an Itanium C++ name; `None` if `name` is not one (or does not demangle).
pub fn demangle(name: &str) -> Option<Demangled> {
    if !name.starts_with("_Z") {
        return None;
    }
    let symbol = cpp_demangle::Symbol::new(name.as_bytes()).ok()?;
    let options = cpp_demangle::DemangleOptions::default();
    let full = symbol.demangle(&options).ok()?;
    let short = short_name(&full);
    let instance = instance_name(&full);
    Some(Demangled {
        full,
        short,
        instance,
    })
}

/// The short form of a demangled name: drop a leading return type, the outermost
/// parameter list and what follows it (cv-qualifiers), qualifiers before the last `::`,
/// and template arguments. Works on brackets only, so it never fails; for names it does
/// not understand it returns the input.
pub fn short_name(full: &str) -> String {
    // Split into top-level `::` components (outside (), <>, []).
    let components = split_top_level(full, "::");
    let last = components.last().copied().unwrap_or(full);
    // Drop the parameter list: the first top-level '(' of the last component, unless the
    // component is an operator name like `operator()`.
    let without_params = match find_top_level(last, '(') {
        Some(i) if !last[..i].ends_with("operator") => &last[..i],
        _ => last,
    };
    // Drop a return type: the part before the last top-level space (templates print as
    // `void foo<int>(int*)`).
    let without_return = match rfind_top_level(without_params, ' ') {
        Some(i) if !without_params[..i].ends_with("operator") => &without_params[i + 1..],
        _ => without_params,
    };
    // Drop template arguments.
    let without_template = match find_top_level(without_return, '<') {
        Some(i) if i > 0 && !without_return[..i].starts_with("operator") => &without_return[..i],
        _ => without_return,
    };
    let short = without_template.trim();
    if short.is_empty() {
        full.to_string()
    } else {
        short.to_string()
    }
}

/// The unqualified name of a demangled name with its template arguments kept, written
/// as [`matches_user_name`] compares them (no casts, integer suffixes or spaces after
/// commas): `void reduce<(unsigned int)256>(float*)` is `reduce<256>`. Names without
/// template arguments give [`short_name`].
pub fn instance_name(full: &str) -> String {
    let components = split_top_level(full, "::");
    let last = components.last().copied().unwrap_or(full);
    let without_params = match find_top_level(last, '(') {
        Some(i) if !last[..i].ends_with("operator") => &last[..i],
        _ => last,
    };
    let name = match rfind_top_level(without_params, ' ') {
        Some(i) if !without_params[..i].ends_with("operator") => &without_params[i + 1..],
        _ => without_params,
    };
    match find_top_level(name, '<') {
        Some(i) if i > 0 && !name[..i].starts_with("operator") => {
            normalize_template_name(name).replace(',', ", ")
        }
        _ => short_name(full),
    }
}

/// Whether `user` names the function whose demangled name is `full`, the way users write
/// template instances: `reduce<256>` matches `void reduce<(unsigned int)256>(float*)`.
/// Both sides drop the return type, parameters and qualifiers as [`short_name`] does but
/// keep template arguments, then ignore spaces, C casts such as `(unsigned int)` and
/// integer suffixes (`256u`, `8ul`).
pub fn matches_user_name(full: &str, user: &str) -> bool {
    let components = split_top_level(full, "::");
    let last = components.last().copied().unwrap_or(full);
    let without_params = match find_top_level(last, '(') {
        Some(i) if !last[..i].ends_with("operator") => &last[..i],
        _ => last,
    };
    let name = match rfind_top_level(without_params, ' ') {
        Some(i) if !without_params[..i].ends_with("operator") => &without_params[i + 1..],
        _ => without_params,
    };
    normalize_template_name(name) == normalize_template_name(user)
}

/// Removes spaces, parenthesised casts before literals and integer literal suffixes.
fn normalize_template_name(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let chars: Vec<char> = s.chars().filter(|c| !c.is_whitespace()).collect();
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        // A cast: `(` letters `)` followed by a digit or minus sign.
        if c == '('
            && let Some(close) = chars[i..].iter().position(|&c| c == ')')
        {
            let inner = &chars[i + 1..i + close];
            let next = chars.get(i + close + 1);
            if !inner.is_empty()
                && inner.iter().all(|c| c.is_ascii_alphabetic())
                && next.is_some_and(|n| n.is_ascii_digit() || *n == '-')
            {
                i += close + 1;
                continue;
            }
        }
        // An integer suffix: letters u/l after a digit, before a non-identifier character.
        if (c == 'u' || c == 'U' || c == 'l' || c == 'L')
            && out.chars().last().is_some_and(|p| p.is_ascii_digit())
        {
            let mut j = i;
            while j < chars.len() && matches!(chars[j], 'u' | 'U' | 'l' | 'L') {
                j += 1;
            }
            if chars
                .get(j)
                .is_none_or(|n| !(n.is_alphanumeric() || *n == '_'))
            {
                i = j;
                continue;
            }
        }
        out.push(c);
        i += 1;
    }
    out
}

/// Bracket depth after each byte, counting (), <> and [].
fn depth_walk(s: &str, mut visit: impl FnMut(usize, char, i32) -> bool) {
    let mut depth = 0i32;
    for (i, c) in s.char_indices() {
        let before = depth;
        match c {
            '(' | '<' | '[' => depth += 1,
            ')' | '>' | ']' => depth -= 1,
            _ => {}
        }
        if !visit(i, c, before) {
            return;
        }
    }
}

fn find_top_level(s: &str, wanted: char) -> Option<usize> {
    let mut found = None;
    depth_walk(s, |i, c, depth| {
        if depth == 0 && c == wanted {
            found = Some(i);
            false
        } else {
            true
        }
    });
    found
}

fn rfind_top_level(s: &str, wanted: char) -> Option<usize> {
    let mut found = None;
    depth_walk(s, |i, c, depth| {
        if depth == 0 && c == wanted {
            found = Some(i);
        }
        true
    });
    found
}

fn split_top_level<'a>(s: &'a str, separator: &str) -> Vec<&'a str> {
    let mut parts = Vec::new();
    let mut start = 0;
    let bytes = s.as_bytes();
    let mut cuts = Vec::new();
    depth_walk(s, |i, _, depth| {
        if depth == 0 && bytes[i..].starts_with(separator.as_bytes()) && i >= start {
            cuts.push(i);
            start = i + separator.len();
        }
        true
    });
    let mut from = 0;
    for cut in cuts {
        parts.push(&s[from..cut]);
        from = cut + separator.len();
    }
    parts.push(&s[from..]);
    parts
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn template_instances_match_as_users_write_them() {
        let full = "void reduce<(unsigned int)256>(float const*, float*, unsigned int)";
        assert!(matches_user_name(full, "reduce<256>"));
        assert!(matches_user_name(full, "reduce<256u>"));
        assert!(!matches_user_name(full, "reduce<128>"));
        assert!(!matches_user_name(full, "reduce"));
        assert!(matches_user_name(
            "void scale<float, 4>(float*)",
            "scale<float,4>"
        ));
        assert!(matches_user_name("ns::k<8ul>(int)", "k<8>"));
    }

    #[test]
    fn kernels_and_static_shared_variables() {
        let d = demangle("_Z6vecAddPKfS0_Pfi").unwrap();
        assert_eq!(d.full, "vecAdd(float const*, float const*, float*, int)");
        assert_eq!(d.short, "vecAdd");
        let d = demangle("_ZZ9reduceSumPfS_E5sdata").unwrap();
        assert_eq!(d.full, "reduceSum(float*, float*)::sdata");
        assert_eq!(d.short, "sdata");
    }

    #[test]
    fn templates_namespaces_and_plain_names() {
        let d = demangle("_Z6reduceILi256EEvPfS0_").unwrap();
        assert_eq!(d.full, "void reduce<256>(float*, float*)");
        assert_eq!(d.short, "reduce");
        assert_eq!(d.instance, "reduce<256>");
        assert_eq!(
            instance_name("void reduce<(unsigned int)128>(float const*, float*)"),
            "reduce<128>"
        );
        assert_eq!(
            instance_name("void scale<float, 4>(float*)"),
            "scale<float, 4>"
        );
        let d = demangle("_ZN2ns6kernelEPi").unwrap();
        assert_eq!(d.instance, "kernel");
        assert_eq!(d.full, "ns::kernel(int*)");
        assert_eq!(d.short, "kernel");
        assert_eq!(demangle("vecAdd"), None);
        assert_eq!(demangle("__local_depot0"), None);
        assert_eq!(demangle("_Zgarbage"), None);
    }

    #[test]
    fn short_names_of_odd_inputs_do_not_panic() {
        for s in [
            "",
            "(",
            ")",
            "<<",
            "a::",
            "::b",
            "operator()(int)",
            "x y z",
            "é::ü(ß)",
        ] {
            let _ = short_name(s);
        }
        assert_eq!(short_name("ns::f<int, 3>(int) const"), "f");
    }
}
