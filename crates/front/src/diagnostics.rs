//! Compiler diagnostics as the user wants to see them: warnings located in headers that are
//! not the user's (NVIDIA's, the system's, warpcheck's shims) are dropped; errors, and
//! everything in the user's files, are kept with the source lines the compiler quotes.
//!
//! The text is cut into diagnostics. A diagnostic starts at a header line, in nvcc's form
//! `FILE(LINE): warning #177-D: …` or clang's `FILE:LINE:COL: warning: …`, together with
//! the `In file included from …` lines just before it, and runs until the next one; what
//! follows the header (the quoted line, the caret, nvcc's `Remark:`) belongs to it. A
//! clang `note:` belongs to the diagnostic before it, so it goes when that warning goes.

use std::path::{Path, PathBuf};

/// How a header line begins.
struct Header<'a> {
    file: &'a str,
    severity: &'a str,
}

/// `FILE(LINE): SEVERITY…` (nvcc) or `FILE:LINE:COL: SEVERITY:…` (clang).
fn header(line: &str) -> Option<Header<'_>> {
    for (at, _) in line.match_indices(": ") {
        let (location, rest) = (&line[..at], &line[at + 2..]);
        let severity = rest
            .split(|c: char| !c.is_ascii_alphabetic() && c != ' ')
            .next()
            .unwrap_or("");
        let severity = match severity.trim_end() {
            s @ ("error" | "warning" | "note" | "remark" | "fatal error") => s,
            _ => continue,
        };
        if let Some(file) = nvcc_location(location).or_else(|| clang_location(location)) {
            return Some(Header { file, severity });
        }
    }
    None
}

fn nvcc_location(location: &str) -> Option<&str> {
    let open = location.strip_suffix(')')?.rfind('(')?;
    let digits = &location[open + 1..location.len() - 1];
    (!digits.is_empty() && digits.bytes().all(|b| b.is_ascii_digit())).then(|| &location[..open])
}

fn clang_location(location: &str) -> Option<&str> {
    let mut parts = location.rsplitn(3, ':');
    let (column, line, file) = (parts.next()?, parts.next()?, parts.next()?);
    let numeric = |s: &str| !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit());
    (numeric(column) && numeric(line) && !file.is_empty()).then_some(file)
}

fn is_include_trail(line: &str) -> bool {
    line.starts_with("In file included from ") || line.trim_start().starts_with("from ")
}

/// `stderr` without the warnings (and their notes) located under one of `hidden`.
pub(crate) fn without_header_warnings(stderr: &str, hidden: &[PathBuf]) -> String {
    let lines: Vec<&str> = stderr.lines().collect();
    let mut kept: Vec<&str> = Vec::new();
    let mut dropping = false;
    let mut i = 0;
    while i < lines.len() {
        // A run of include-trail lines belongs to the header that follows it.
        let mut j = i;
        while j < lines.len() && is_include_trail(lines[j]) {
            j += 1;
        }
        if let Some(h) = lines.get(j).and_then(|l| header(l)) {
            dropping = match h.severity {
                "note" => dropping,
                "warning" | "remark" => is_under(Path::new(h.file), hidden),
                _ => false,
            };
            if !dropping {
                kept.extend_from_slice(&lines[i..=j]);
            }
            i = j + 1;
            continue;
        }
        if !dropping {
            kept.extend_from_slice(&lines[i..j.max(i + 1)]);
        }
        i = j.max(i + 1);
    }
    kept.join("\n")
}

fn is_under(file: &Path, hidden: &[PathBuf]) -> bool {
    hidden.iter().any(|dir| file.starts_with(dir))
}

/// Directories whose warnings are not the user's, besides NVIDIA's headers and the shims:
/// the system's headers.
pub(crate) const SYSTEM_HEADER_DIRS: &[&str] = &["/usr/include", "/usr/lib", "/usr/local/include"];

#[cfg(test)]
mod tests {
    use super::*;

    const NVCC: &str = "\
/nv/include/cuda_bf16.hpp(120): warning #20012-D: something in NVIDIA's header
    int x;
        ^

k.cu(3): error: identifier \"undefined_thing\" is undefined
    x[threadIdx.x] = undefined_thing + 1;
                     ^

k.cu(4): warning #177-D: variable \"unused\" was declared but never referenced
    int unused;
        ^

Remark: The warnings can be suppressed with \"-diag-suppress <warning-number>\"

1 error detected in the compilation of \"k.cu\".";

    #[test]
    fn drops_nvcc_warnings_in_nvidia_headers_and_keeps_the_users_lines() {
        let text = without_header_warnings(NVCC, &[PathBuf::from("/nv/include")]);
        assert!(!text.contains("cuda_bf16.hpp"), "{text}");
        assert!(!text.contains("int x;"), "{text}");
        assert!(text.starts_with("k.cu(3): error: identifier"), "{text}");
        assert!(
            text.contains("    x[threadIdx.x] = undefined_thing + 1;"),
            "{text}"
        );
        assert!(text.contains("k.cu(4): warning #177-D"), "{text}");
        assert!(text.ends_with("1 error detected in the compilation of \"k.cu\"."));
    }

    #[test]
    fn drops_clang_warnings_with_their_include_trail_and_notes() {
        let clang = "\
In file included from k.cu:1:
/usr/include/x.h:5:3: warning: old style [-Wdeprecated]
  foo();
  ^
/usr/include/x.h:2:1: note: declared here
k.cu:7:9: error: use of undeclared identifier 'y'
  return y;
         ^
1 error generated.";
        let text = without_header_warnings(clang, &[PathBuf::from("/usr/include")]);
        assert_eq!(
            text,
            "k.cu:7:9: error: use of undeclared identifier 'y'\n  return y;\n         ^\n1 error generated."
        );
    }

    #[test]
    fn errors_in_headers_are_kept() {
        let text = "/nv/include/a.h(1): error: bad\n  x\n";
        assert_eq!(
            without_header_warnings(text, &[PathBuf::from("/nv/include")]),
            "/nv/include/a.h(1): error: bad\n  x"
        );
    }
}
