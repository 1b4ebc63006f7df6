//! Whether the command line names a program: a source file that defines `main`.
//!
//! The scan removes comments, string and character literals first (so a `main` in a
//! comment or a string does not count), then looks for `main` declared as a function with
//! a return type at file scope: `int main(`, `void main(`, `auto main(`, also
//! `int\nmain (`. Kernel-mode flags (`--kernel`, `--grid`, `--block`, `--arg`,
//! `--from-header`, `--launches`, `--shared`) keep kernel mode even for a file with a
//! `main`, so that kernel files with host code can still be checked kernel by kernel.

use std::path::Path;

/// The file extensions of program sources.
pub const SOURCE_EXTENSIONS: &[&str] = &["cu", "cpp", "cc", "cxx", "c"];

/// Flags that only kernel mode has.
const KERNEL_FLAGS: &[&str] = &[
    "--kernel",
    "-k",
    "--grid",
    "--block",
    "--arg",
    "--from-header",
    "--launches",
    "--shared",
];

/// Source text without comments and with literals blanked.
pub fn strip_comments_and_literals(text: &str) -> String {
    let b = text.as_bytes();
    let mut out = String::with_capacity(text.len());
    let mut i = 0;
    while i < b.len() {
        match b[i] {
            b'/' if b.get(i + 1) == Some(&b'/') => {
                while i < b.len() && b[i] != b'\n' {
                    i += 1;
                }
            }
            b'/' if b.get(i + 1) == Some(&b'*') => {
                i += 2;
                while i < b.len() && !(b[i] == b'*' && b.get(i + 1) == Some(&b'/')) {
                    if b[i] == b'\n' {
                        out.push('\n');
                    }
                    i += 1;
                }
                i += 2;
                out.push(' ');
            }
            q @ (b'"' | b'\'') => {
                i += 1;
                while i < b.len() && b[i] != q && b[i] != b'\n' {
                    if b[i] == b'\\' {
                        i += 1;
                    }
                    i += 1;
                }
                i += 1;
                out.push_str("\"\"");
            }
            c => {
                out.push(c as char);
                i += 1;
            }
        }
    }
    out
}

/// Whether C/C++/CUDA source text defines `main`: the identifier `main` after `int`,
/// `void` or `auto` and before `(`.
pub fn defines_main(text: &str) -> bool {
    let clean = strip_comments_and_literals(text);
    let mut tokens: Vec<&str> = Vec::new();
    let mut start = None;
    for (i, c) in clean.char_indices() {
        let ident = c.is_ascii_alphanumeric() || c == '_';
        match (ident, start) {
            (true, None) => start = Some(i),
            (false, Some(s)) => {
                tokens.push(&clean[s..i]);
                start = None;
            }
            _ => {}
        }
        if c == '(' {
            tokens.push("(");
        }
    }
    tokens
        .windows(3)
        .any(|w| matches!(w[0], "int" | "void" | "auto") && w[1] == "main" && w[2] == "(")
}

/// The program's source files when `args` (after the subcommand) name a program: a
/// source file defining `main`, and no kernel-mode flag.
pub fn program_files(args: &[std::ffi::OsString]) -> Option<Vec<std::path::PathBuf>> {
    let mut files = Vec::new();
    for a in args {
        let s = a.to_string_lossy();
        if s == "--" {
            break;
        }
        if KERNEL_FLAGS
            .iter()
            .any(|f| s == *f || s.starts_with(&format!("{f}=")))
        {
            return None;
        }
        let p = Path::new(a);
        if !s.starts_with('-')
            && p.extension()
                .is_some_and(|e| SOURCE_EXTENSIONS.contains(&e.to_string_lossy().as_ref()))
        {
            files.push(p.to_path_buf());
        }
    }
    let has_main = files
        .iter()
        .any(|f| std::fs::read(f).is_ok_and(|t| defines_main(&String::from_utf8_lossy(&t))));
    has_main.then_some(files)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn main_is_found_in_code_only() {
        assert!(defines_main("int main() { return 0; }"));
        assert!(defines_main("int\nmain (int argc, char **argv) {}"));
        assert!(defines_main("#include <x>\nvoid main(void){}"));
        assert!(!defines_main("// int main() {}\n__global__ void k() {}"));
        assert!(!defines_main("/* int main()\n */ __global__ void k() {}"));
        assert!(!defines_main("const char *s = \"int main()\";"));
        assert!(!defines_main("int domain(int x);"));
        assert!(!defines_main("x = main(3);"));
    }

    #[test]
    fn kernel_flags_keep_kernel_mode() {
        let dir = tempfile::tempdir().unwrap();
        let f = dir.path().join("p.cu");
        std::fs::write(&f, "int main() { return 0; }").unwrap();
        let args = |v: &[&str]| v.iter().map(std::ffi::OsString::from).collect::<Vec<_>>();
        let file = f.to_str().unwrap();
        assert_eq!(program_files(&args(&[file])), Some(vec![f.clone()]));
        assert_eq!(program_files(&args(&[file, "--kernel", "k"])), None);
        assert_eq!(program_files(&args(&[file, "--from-header"])), None);
        assert_eq!(
            program_files(&args(&[file, "--", "--grid"])),
            Some(vec![f.clone()])
        );
        let g = dir.path().join("k.cu");
        std::fs::write(&g, "__global__ void k() {}").unwrap();
        assert_eq!(program_files(&args(&[g.to_str().unwrap()])), None);
    }
}
