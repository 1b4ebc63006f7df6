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

/// Shows paths under the working directory relative to it, as compilers do.
pub fn relativize(findings: &mut [Finding]) {
    let Ok(cwd) = std::env::current_dir() else {
        return;
    };
    let rel = |file: &mut String| {
        if let Ok(p) = std::path::Path::new(file.as_str()).strip_prefix(&cwd) {
            *file = p.display().to_string();
        }
    };
    for f in findings {
        if let Some(p) = &mut f.primary {
            rel(&mut p.location.file);
        }
        for r in &mut f.related {
            rel(&mut r.location.file);
        }
    }
}
