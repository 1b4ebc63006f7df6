//! The source map: `.file` table and per-instruction `.loc` locations (PTX ISA §11.5).
//!
//! Invariant: every instruction carries the location of the most recent `.loc` before it
//! in the function's text (nested scopes included), or none if no `.loc` precedes it in
//! that function. Locations are kept as written: line 0 means "no source line" (clang
//! emits `.loc 1 0 7` for compiler-generated code), and `inlined_at` holds the call site
//! when the instruction comes from an inlined function.

use std::collections::BTreeMap;
use std::fmt;

/// One `.file` entry.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SourceFile {
    pub index: u32,
    pub path: String,
    /// Modification time and size, when the directive gives them.
    pub timestamp: Option<u64>,
    pub size: Option<u64>,
}

/// The `.file` table of a module. `.file` directives may appear anywhere in the module
/// (clang puts them at the end), so the table is complete only after lowering.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct SourceFiles {
    files: BTreeMap<u32, SourceFile>,
}

impl SourceFiles {
    pub fn insert(&mut self, file: SourceFile) {
        self.files.insert(file.index, file);
    }

    pub fn get(&self, index: u32) -> Option<&SourceFile> {
        self.files.get(&index)
    }

    pub fn iter(&self) -> impl Iterator<Item = &SourceFile> {
        self.files.values()
    }

    pub fn len(&self) -> usize {
        self.files.len()
    }

    pub fn is_empty(&self) -> bool {
        self.files.is_empty()
    }

    /// The path of a file index, or `<file N>` for an index without a `.file` entry.
    pub fn path(&self, index: u32) -> String {
        match self.files.get(&index) {
            Some(f) => f.path.clone(),
            None => format!("<file {index}>"),
        }
    }

    /// `path:line:col` of a location (the call site is not included; see
    /// [`SourceFiles::render_with_inlining`]).
    pub fn render(&self, loc: &SourceLoc) -> String {
        format!("{}:{}:{}", self.path(loc.file), loc.line, loc.column)
    }

    /// `path:line:col`, followed by ` (inlined at path:line:col)` when the location
    /// comes from an inlined function.
    pub fn render_with_inlining(&self, loc: &SourceLoc) -> String {
        let mut s = self.render(loc);
        if let Some(at) = loc.inlined_at {
            s.push_str(&format!(
                " (inlined at {}:{}:{})",
                self.path(at.file),
                at.line,
                at.column
            ));
        }
        s
    }
}

/// A position in the CUDA/C source that an instruction came from.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct SourceLoc {
    /// Index into the `.file` table.
    pub file: u32,
    /// 1-based line; 0 for compiler-generated code without a line.
    pub line: u32,
    /// 1-based column; 0 when unknown.
    pub column: u32,
    /// The call site, for code inlined from another function.
    pub inlined_at: Option<InlinedAt>,
}

/// The call site of an inlined location.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct InlinedAt {
    pub file: u32,
    pub line: u32,
    pub column: u32,
}

impl SourceLoc {
    /// Whether the location names no source line (`.loc 1 0 7`).
    pub fn is_artificial(&self) -> bool {
        self.line == 0
    }
}

impl fmt::Display for SourceLoc {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}:{}", self.file, self.line, self.column)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn renders_paths_and_call_sites() {
        let mut files = SourceFiles::default();
        files.insert(SourceFile {
            index: 1,
            path: "k.cu".into(),
            timestamp: None,
            size: None,
        });
        let loc = SourceLoc {
            file: 1,
            line: 7,
            column: 52,
            inlined_at: Some(InlinedAt {
                file: 1,
                line: 10,
                column: 28,
            }),
        };
        assert_eq!(files.render(&loc), "k.cu:7:52");
        assert_eq!(
            files.render_with_inlining(&loc),
            "k.cu:7:52 (inlined at k.cu:10:28)"
        );
        let unknown = SourceLoc {
            file: 9,
            line: 0,
            column: 0,
            inlined_at: None,
        };
        assert_eq!(files.render(&unknown), "<file 9>:0:0");
        assert!(unknown.is_artificial());
    }
}
