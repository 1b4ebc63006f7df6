//! warpcheck's one finding model and its renderers.
//!
//! Every analysis — the PTX parser's syntax errors, the static lints, the dynamic checkers —
//! reports through [`Finding`]. Renderers turn a list of findings into human text in the
//! style of rustc ([`text`], built on `annotate-snippets`), JSON for tools ([`json`]),
//! SARIF 2.1.0 for code-scanning services ([`sarif`]) and one self-contained HTML page with
//! the launches and per-line heat ([`html`]). Renderers never decide anything:
//! severity, grouping and counts are settled before a finding reaches them.

pub mod code;
pub mod html;
pub mod json;
pub mod race;
pub mod sarif;
pub mod text;

pub use code::{Code, Tool, UnknownCode};
use serde::{Deserialize, Serialize};
use std::collections::HashMap;

/// How bad a finding is. Errors make `warpcheck check` exit with 1.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Severity {
    /// A correctness bug: race, out-of-bounds access, barrier divergence, syntax error.
    Error,
    /// A likely bug or a performance problem worth fixing (uncoalesced access, bank conflict).
    Warning,
    /// Information that explains a result (e.g. a summary).
    Note,
}

impl Severity {
    pub fn name(self) -> &'static str {
        match self {
            Severity::Error => "error",
            Severity::Warning => "warning",
            Severity::Note => "note",
        }
    }
}

/// A place in a source file. Lines and columns count from 1; column 0 means "whole line".
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub struct Location {
    pub file: String,
    pub line: u32,
    pub column: u32,
}

impl std::fmt::Display for Location {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        if self.column > 0 {
            write!(f, "{}:{}:{}", self.file, self.line, self.column)
        } else {
            write!(f, "{}:{}", self.file, self.line)
        }
    }
}

/// A location with a short explanation, e.g. "(1) write by thread (3,0,0) of block (1,0,0)".
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Label {
    pub location: Location,
    pub message: String,
}

/// One distinct finding. Duplicates (same code, same locations) are merged by the analysis
/// and counted in `occurrences`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Finding {
    /// What kind of finding it is; serialised as its stable kebab-case name, e.g.
    /// `shared-race`, `syntax-error`, `uncoalesced-access` (see [`code`]).
    pub code: Code,
    pub severity: Severity,
    /// One line saying what is wrong.
    pub message: String,
    /// The kernel the finding belongs to, when there is one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub kernel: Option<String>,
    /// Where it happens. `None` for findings about the whole module or launch.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub primary: Option<Label>,
    /// Other places that take part (the earlier access of a race, the barrier …).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub related: Vec<Label>,
    /// Explanations: witnesses, counts, reasons.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub notes: Vec<String>,
    /// How to fix it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub help: Option<String>,
    /// How many times it happened (1 for static findings).
    pub occurrences: u64,
    /// The measured or predicted degree, for findings that have one: sectors per request
    /// for `uncoalesced-access`, wavefronts per phase (N-way) for `bank-conflict`. The
    /// message says it in words; tools and tests read it here.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub degree: Option<u64>,
}

impl Finding {
    pub fn new(code: Code, severity: Severity, message: impl Into<String>) -> Finding {
        Finding {
            code,
            severity,
            message: message.into(),
            kernel: None,
            primary: None,
            related: Vec::new(),
            notes: Vec::new(),
            help: None,
            occurrences: 1,
            degree: None,
        }
    }

    pub fn at(mut self, location: Location, label: impl Into<String>) -> Finding {
        self.primary = Some(Label {
            location,
            message: label.into(),
        });
        self
    }

    pub fn related(mut self, location: Location, label: impl Into<String>) -> Finding {
        self.related.push(Label {
            location,
            message: label.into(),
        });
        self
    }

    pub fn note(mut self, note: impl Into<String>) -> Finding {
        self.notes.push(note.into());
        self
    }

    pub fn help(mut self, help: impl Into<String>) -> Finding {
        self.help = Some(help.into());
        self
    }

    /// Sets [`Finding::degree`].
    pub fn degree(mut self, degree: impl Into<u64>) -> Finding {
        self.degree = Some(degree.into());
        self
    }

    pub fn kernel(mut self, kernel: impl Into<String>) -> Finding {
        self.kernel = Some(kernel.into());
        self
    }
}

/// The texts of the files findings point into, so renderers can quote source lines.
/// A file that cannot be read is rendered without a snippet.
#[derive(Default, Debug)]
pub struct Sources {
    files: HashMap<String, Option<String>>,
}

impl Sources {
    pub fn new() -> Sources {
        Sources::default()
    }

    /// Registers a file's text under its path as findings spell it.
    pub fn insert(&mut self, path: impl Into<String>, text: impl Into<String>) {
        self.files.insert(path.into(), Some(text.into()));
    }

    /// The file's text, reading it from disk on first use.
    pub fn get(&mut self, path: &str) -> Option<&str> {
        self.files
            .entry(path.to_string())
            .or_insert_with(|| std::fs::read_to_string(path).ok())
            .as_deref()
    }
}

/// Counts of findings by severity, for summaries and exit codes.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
pub struct Tally {
    pub errors: usize,
    pub warnings: usize,
    pub notes: usize,
}

impl Tally {
    pub fn of(findings: &[Finding]) -> Tally {
        let mut t = Tally::default();
        for f in findings {
            match f.severity {
                Severity::Error => t.errors += 1,
                Severity::Warning => t.warnings += 1,
                Severity::Note => t.notes += 1,
            }
        }
        t
    }
}
