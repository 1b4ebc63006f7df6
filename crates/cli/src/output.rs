//! Writing results and errors: stdout for results, stderr for diagnostics.

use std::io::{IsTerminal, Write};
use warpcheck_report::{Finding, Sources, text};

/// Why a command could not do its job. Each variant is reported on stderr and exits with 2.
#[derive(Debug)]
pub enum CliError {
    /// A plain message: usage or tool error.
    Message(String),
    /// Diagnostics about the input (syntax errors, unsupported instructions, compile errors).
    Findings {
        findings: Vec<Finding>,
        sources: Sources,
    },
    /// stdout was closed (e.g. `warpcheck ptx k.cu | head`): not an error, exit quietly.
    BrokenPipe,
}

impl From<warpcheck_launch::LaunchError> for CliError {
    fn from(e: warpcheck_launch::LaunchError) -> CliError {
        CliError::Message(e.to_string())
    }
}

impl CliError {
    pub fn msg(m: impl Into<String>) -> CliError {
        CliError::Message(m.into())
    }

    pub fn report(self) {
        match self {
            CliError::Message(m) => eprintln!("error: {m}"),
            CliError::Findings {
                findings,
                mut sources,
            } => {
                let color = std::io::stderr().is_terminal();
                eprint!("{}", text::render(&findings, &mut sources, color));
            }
            CliError::BrokenPipe => {}
        }
    }
}

/// Writes to stdout; a closed pipe ends the command quietly.
pub fn print(s: &str) -> Result<(), CliError> {
    let mut out = std::io::stdout().lock();
    match out.write_all(s.as_bytes()).and_then(|_| out.flush()) {
        Ok(()) => Ok(()),
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => Err(CliError::BrokenPipe),
        Err(e) => Err(CliError::msg(format!("cannot write to stdout: {e}"))),
    }
}

pub use warpcheck_launch::display_path;

/// Applies [`display_path`] to every location of the findings.
pub fn relativize(findings: &mut [Finding]) {
    for f in findings {
        for label in f.primary.iter_mut().chain(f.related.iter_mut()) {
            label.location.file = display_path(&label.location.file);
        }
    }
}
