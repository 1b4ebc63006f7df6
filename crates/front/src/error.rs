//! Everything that can stop a compilation, each with a message that says what to do.

use crate::language::{Language, SUPPORTED_EXTENSIONS};
use std::path::PathBuf;

/// A front-end failure. The `Display` text is meant for the user as it is.
#[derive(Debug, thiserror::Error)]
pub enum FrontError {
    #[error("input file {} does not exist", path.display())]
    InputMissing { path: PathBuf },

    #[error("cannot read {}: {source}", path.display())]
    InputUnreadable {
        path: PathBuf,
        source: std::io::Error,
    },

    #[error(
        "unsupported file type {}: {} (supported: {}; name the language of another with -x, e.g. -x cu)",
        path.display(),
        match extension { Some(e) => format!("extension `.{e}`"), None => "no extension".to_string() },
        SUPPORTED_EXTENSIONS.join(", ")
    )]
    UnsupportedFileType {
        path: PathBuf,
        extension: Option<String>,
    },

    #[error("{0}")]
    InvalidOption(String),

    #[error("no {wanted} found{}\n{hint}", tried_list(tried))]
    NoCompiler {
        wanted: &'static str,
        tried: Vec<String>,
        hint: &'static str,
    },

    #[error("nvcc cannot compile {language} ({}); use clang (--compiler clang or auto)", path.display())]
    NvccCannotCompile { language: Language, path: PathBuf },

    #[error("could not run {}: {source}", program.display())]
    CompilerNotRunnable {
        program: PathBuf,
        source: std::io::Error,
    },

    #[error("{0}")]
    CompilerFailed(Box<CompilerFailure>),

    #[error(
        "{compiler} did not finish compiling {} within {} and was stopped (set the limit with --compile-timeout SECS or {})\ncommand: {command}",
        path.display(),
        crate::process::seconds_text(*limit),
        crate::process::TIMEOUT_VAR
    )]
    CompilerTimedOut {
        compiler: String,
        path: PathBuf,
        limit: std::time::Duration,
        command: String,
    },

    #[error("{compiler} wrote no usable PTX for {}: {reason}", path.display())]
    NoPtxOutput {
        compiler: String,
        path: PathBuf,
        reason: String,
    },

    #[error("cannot prepare the shim headers in {}: {source}", dir.display())]
    ShimSetup {
        dir: PathBuf,
        source: std::io::Error,
    },
}

fn tried_list(tried: &[String]) -> String {
    if tried.is_empty() {
        String::new()
    } else {
        format!(" (tried: {})", tried.join("; "))
    }
}

/// A compiler that ran and failed, with everything needed to understand why.
#[derive(Debug)]
pub struct CompilerFailure {
    /// The compiler and its version, e.g. `clang 19.1.7`.
    pub compiler: String,
    pub path: PathBuf,
    /// The exit status as the operating system reports it.
    pub status: String,
    /// The command line, ready to paste into a shell.
    pub command: String,
    /// The compiler's diagnostics.
    pub stderr: String,
    /// What warpcheck knows about this failure, e.g. a known compiler bug and its
    /// workaround.
    pub hint: Option<String>,
}

impl std::fmt::Display for CompilerFailure {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{} failed to compile {} ({})\ncommand: {}\n{}",
            self.compiler,
            self.path.display(),
            self.status,
            self.command,
            self.stderr
        )?;
        if let Some(hint) = &self.hint {
            write!(f, "\nhint: {hint}")?;
        }
        Ok(())
    }
}
