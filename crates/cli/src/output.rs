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

/// The format of a `--report` file, from its extension: `.json`, `.sarif`, else HTML.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ReportFormat {
    Html,
    Json,
    Sarif,
}

impl ReportFormat {
    pub fn of(path: &std::path::Path) -> ReportFormat {
        match path.extension().and_then(|e| e.to_str()) {
            Some(e) if e.eq_ignore_ascii_case("json") => ReportFormat::Json,
            Some(e) if e.eq_ignore_ascii_case("sarif") => ReportFormat::Sarif,
            _ => ReportFormat::Html,
        }
    }
}

/// Writes the file `path` through `write`, by a temporary file in the same directory that
/// is renamed over `path` once complete: a failed write (a full disk) leaves the previous
/// file as it was, never half written. Refuses to write over one of `inputs` (the file
/// being analysed, say), however the two paths are spelt. A path that is not a regular
/// file (`/dev/null`) is written in place.
pub fn write_file(
    path: &std::path::Path,
    inputs: &[&std::path::Path],
    write: impl FnOnce(&mut dyn std::io::Write) -> std::io::Result<()>,
) -> Result<(), CliError> {
    let same = |input: &std::path::Path| match (path.canonicalize(), input.canonicalize()) {
        (Ok(a), Ok(b)) => a == b,
        _ => false,
    };
    if let Some(input) = inputs.iter().find(|i| same(i)) {
        return Err(CliError::msg(format!(
            "refusing to write `{}`: it is the input `{}`",
            path.display(),
            input.display()
        )));
    }
    let fail = |e: std::io::Error| CliError::msg(format!("cannot write `{}`: {e}", path.display()));
    // A device or pipe (`/dev/null`, `/dev/stdout`) is written as it is: there is no
    // previous contents to keep, and renaming over it would replace it.
    if std::fs::metadata(path).is_ok_and(|m| !m.is_file()) {
        let mut f = std::fs::OpenOptions::new()
            .write(true)
            .open(path)
            .map_err(fail)?;
        return write(&mut f).map_err(fail);
    }
    let dir = match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d,
        _ => std::path::Path::new("."),
    };
    let mut tmp = tempfile::NamedTempFile::new_in(dir).map_err(fail)?;
    {
        let mut w = std::io::BufWriter::new(tmp.as_file_mut());
        write(&mut w).map_err(fail)?;
        std::io::Write::flush(&mut w).map_err(fail)?;
    }
    tmp.as_file().sync_all().map_err(fail)?;
    tmp.persist(path).map_err(|e| fail(e.error))?;
    Ok(())
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
