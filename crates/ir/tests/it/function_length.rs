//! Guard: no function in the workspace's library and binary sources has a
//! body longer than [`MAX_BODY_LINES`] lines.
//!
//! The test parses every `crates/*/src/**/*.rs` file with `syn` (spans carry
//! line numbers through `proc-macro2`'s `span-locations`) and visits every
//! `fn`: free functions, inherent and trait-impl methods, trait methods with a
//! default body, and functions nested inside other bodies or inline modules.
//! A body's length is counted from the line of its opening brace to the line
//! of its closing brace, both included.
//!
//! Functions not yet split are listed in [`ALLOWED`] by file and name. The
//! test fails when a function over the limit is not in that list, and also
//! when a listed function is no longer over the limit (or no longer exists),
//! so the list only shrinks and never goes stale.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use syn::visit::Visit;

/// The longest body, in lines, that a function may have.
const MAX_BODY_LINES: usize = 200;

/// Functions over the limit that are known and waiting to be split, as
/// (path relative to the workspace root, function name). Remove an entry when
/// its function is split: the test fails until you do. Empty: every function
/// is under the limit, the interpreter loop included (its arms are inlined
/// functions, measured with `tools/bench_ab.sh` to run as fast as before).
const ALLOWED: &[(&str, &str)] = &[];

/// One function whose body is over the limit.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
struct LongFn {
    file: String,
    name: String,
    line: usize,
    lines: usize,
}

/// Collects every function body longer than the limit in one file.
struct Finder<'a> {
    file: &'a str,
    found: Vec<LongFn>,
}

impl Finder<'_> {
    fn check(&mut self, name: &syn::Ident, block: &syn::Block) {
        let open = block.brace_token.span.open().start().line;
        let close = block.brace_token.span.close().end().line;
        let lines = close + 1 - open;
        if lines > MAX_BODY_LINES {
            self.found.push(LongFn {
                file: self.file.to_string(),
                name: name.to_string(),
                line: name.span().start().line,
                lines,
            });
        }
    }
}

impl<'ast> Visit<'ast> for Finder<'_> {
    fn visit_item_fn(&mut self, f: &'ast syn::ItemFn) {
        self.check(&f.sig.ident, &f.block);
        syn::visit::visit_item_fn(self, f);
    }

    fn visit_impl_item_fn(&mut self, f: &'ast syn::ImplItemFn) {
        self.check(&f.sig.ident, &f.block);
        syn::visit::visit_impl_item_fn(self, f);
    }

    fn visit_trait_item_fn(&mut self, f: &'ast syn::TraitItemFn) {
        if let Some(block) = &f.default {
            self.check(&f.sig.ident, block);
        }
        syn::visit::visit_trait_item_fn(self, f);
    }
}

/// The workspace root: two levels above this crate's manifest.
fn workspace_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../..")
        .canonicalize()
        .expect("workspace root exists")
}

/// Every `.rs` file under `dir`, recursively, in a stable order.
fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let mut entries: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("read {}: {e}", dir.display()))
        .map(|e| e.expect("directory entry").path())
        .collect();
    entries.sort();
    for path in entries {
        if path.is_dir() {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|x| x == "rs") {
            out.push(path);
        }
    }
}

/// Every over-long function in `crates/*/src/**/*.rs`.
fn long_functions(root: &Path) -> Vec<LongFn> {
    let mut files = Vec::new();
    let mut crates: Vec<PathBuf> = std::fs::read_dir(root.join("crates"))
        .expect("crates/ directory")
        .map(|e| e.expect("directory entry").path().join("src"))
        .filter(|src| src.is_dir())
        .collect();
    crates.sort();
    for src in crates {
        rust_files(&src, &mut files);
    }
    assert!(
        files.len() > 50,
        "found only {} source files under {}",
        files.len(),
        root.display()
    );
    let mut found = Vec::new();
    for path in files {
        let rel = path.strip_prefix(root).expect("file under root");
        let rel = rel.to_string_lossy().replace('\\', "/");
        let text = std::fs::read_to_string(&path).expect("readable source");
        let ast = syn::parse_file(&text).unwrap_or_else(|e| panic!("parse {rel}: {e}"));
        let mut finder = Finder {
            file: &rel,
            found: Vec::new(),
        };
        finder.visit_file(&ast);
        found.extend(finder.found);
    }
    found.sort();
    found
}

#[test]
fn no_function_body_is_over_the_limit() {
    let root = workspace_root();
    let long = long_functions(&root);
    let allowed: BTreeSet<(&str, &str)> = ALLOWED.iter().copied().collect();
    let offenders: Vec<String> = long
        .iter()
        .filter(|f| !allowed.contains(&(f.file.as_str(), f.name.as_str())))
        .map(|f| format!("{}:{}: fn {} ({} lines)", f.file, f.line, f.name, f.lines))
        .collect();
    let long_keys: BTreeSet<(&str, &str)> = long
        .iter()
        .map(|f| (f.file.as_str(), f.name.as_str()))
        .collect();
    let stale: Vec<String> = allowed
        .iter()
        .filter(|key| !long_keys.contains(*key))
        .map(|(file, name)| format!("{file}: fn {name}"))
        .collect();
    assert!(
        offenders.is_empty() && stale.is_empty(),
        "functions with bodies over {MAX_BODY_LINES} lines (split them):\n  {}\n\
         allow-listed functions no longer over the limit (remove them from ALLOWED):\n  {}",
        offenders.join("\n  "),
        stale.join("\n  "),
    );
}

/// The finder itself: a long body is found in free functions, methods, trait
/// defaults and nested functions, and a short one is not.
#[test]
fn finder_sees_every_kind_of_function() {
    let filler = "    let _ = 0;\n".repeat(MAX_BODY_LINES);
    let src = format!(
        "fn free() {{\n{filler}}}\n\
         fn short() {{ let _ = 1; }}\n\
         struct S;\n\
         impl S {{ fn method(&self) {{\n{filler}}} }}\n\
         trait T {{ fn default_body(&self) {{\n{filler}}} fn no_body(&self); }}\n\
         fn outer() {{ fn nested() {{\n{filler}}} }}\n\
         mod inner {{ fn in_mod() {{\n{filler}}} }}\n"
    );
    let ast = syn::parse_file(&src).expect("test source parses");
    let mut finder = Finder {
        file: "t.rs",
        found: Vec::new(),
    };
    finder.visit_file(&ast);
    let names: Vec<&str> = finder.found.iter().map(|f| f.name.as_str()).collect();
    assert_eq!(
        names,
        [
            "free",
            "method",
            "default_body",
            "outer",
            "nested",
            "in_mod"
        ]
    );
    assert_eq!(finder.found[0].lines, MAX_BODY_LINES + 2);
    assert_eq!(finder.found[0].line, 1);
}
