//! Lowering errors.

use std::fmt;

use warpcheck_ptx::{LineIndex, Span};

/// Why part of a module could not be lowered. Lowering collects every error it meets and
/// keeps going; each error points at the PTX text that caused it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LowerError {
    /// One sentence saying what is wrong, naming the offending text, e.g. "unsupported
    /// instruction `ld.global.foo.f32`: modifier `.foo` is not supported for `ld` (PTX ISA
    /// §9.7.8.8, §9.7.8.9)".
    pub message: String,
    /// The PTX text at fault (a modifier, an operand, an instruction or a directive).
    pub span: Span,
    /// The function being lowered, if any (its mangled name).
    pub function: Option<String>,
    /// What to do about it, when there is something to say.
    pub help: Option<String>,
}

impl LowerError {
    pub fn new(message: impl Into<String>, span: Span) -> LowerError {
        LowerError {
            message: message.into(),
            span,
            function: None,
            help: None,
        }
    }

    pub fn with_help(mut self, help: impl Into<String>) -> LowerError {
        self.help = Some(help.into());
        self
    }

    /// `line:col: message` (and the help on a second line), for tests and plain output.
    pub fn display_with(&self, text: &str, index: &LineIndex) -> String {
        let mut s = format!(
            "{}: {}",
            index.line_col(text, self.span.start),
            self.message
        );
        if let Some(help) = &self.help {
            s.push_str("\n  help: ");
            s.push_str(help);
        }
        s
    }
}

impl fmt::Display for LowerError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)?;
        if let Some(function) = &self.function {
            write!(f, " (in `{function}`)")?;
        }
        Ok(())
    }
}

impl std::error::Error for LowerError {}
