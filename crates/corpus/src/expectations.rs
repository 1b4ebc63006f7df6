//! Blessable expectation files, in the style of Miri's ui tests and Cranelift's
//! filetests: a command's text output, normalised so that it does not depend on the
//! machine, is compared with a checked-in file next to the kernel
//! (`tests/kernels/NAME.check.stderr`). A mismatch fails with one unified diff per file;
//! with `WARPCHECK_BLESS=1` the files are rewritten instead, and expectation files that no
//! job produced any more (a removed kernel or variant) are deleted.
//!
//! The harness is independent of what produces the output: a [`Job`] names its
//! expectation file and a closure runs it; [`run_jobs`] runs them on a thread pool.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use rayon::prelude::*;

/// The suffixes of the expectation files this harness owns.
pub const SUFFIXES: [&str; 2] = [".check.stderr", ".lint.stderr"];

/// Whether to compare or to rewrite.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mode {
    Compare,
    Bless,
}

impl Mode {
    /// `Bless` when the environment variable `WARPCHECK_BLESS` is `1`.
    pub fn from_env() -> Mode {
        match std::env::var("WARPCHECK_BLESS").as_deref() {
            Ok("1") => Mode::Bless,
            _ => Mode::Compare,
        }
    }
}

/// One expectation: the file it is compared with and how to produce its text.
pub struct Job<'a> {
    pub expected: PathBuf,
    pub produce: Box<dyn Fn() -> String + Send + Sync + 'a>,
}

impl std::fmt::Debug for Job<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Job")
            .field("expected", &self.expected)
            .finish()
    }
}

/// A produced text and the file it belongs in.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Actual {
    pub expected: PathBuf,
    pub text: String,
}

/// Runs every job (in parallel, on rayon's pool) and returns their texts in job order.
pub fn run_jobs(jobs: &[Job<'_>]) -> Vec<Actual> {
    jobs.par_iter()
        .map(|j| Actual {
            expected: j.expected.clone(),
            text: (j.produce)(),
        })
        .collect()
}

/// Makes a command's output independent of the machine and the run: the repository root
/// becomes `$DIR`, durations (`0.016 s`, `1.5 ms`, `12 µs`) become `$TIME`, and the
/// number of host threads the emulator ran on (`16 host threads`, `--threads 16`) becomes
/// `$THREADS` (GPU thread counts such as `32 threads of warp 1` are kept: they are
/// results). Line
/// ends are normalised to `\n` and trailing spaces removed.
pub fn normalise(text: &str, root: &Path) -> String {
    let root = root.display().to_string();
    let mut out = String::with_capacity(text.len());
    for line in text.lines() {
        let line = if root.is_empty() {
            line.to_string()
        } else {
            line.replace(&root, "$DIR")
        };
        let line = durations(&line);
        let line = threads(&line);
        out.push_str(line.trim_end());
        out.push('\n');
    }
    out
}

/// Replaces `<number> <unit>` durations (units s, ms, µs, us, ns) by `$TIME`.
fn durations(line: &str) -> String {
    replace_number_before(line, &[" s", " ms", " µs", " us", " ns"], "$TIME", true)
}

/// Replaces host thread counts (`16 host threads`, `--threads 16`).
fn threads(line: &str) -> String {
    let line = replace_number_before(line, &[" host threads"], "$THREADS", false);
    match line.find("--threads ") {
        Some(i) => {
            let start = i + "--threads ".len();
            let end = start
                + line[start..]
                    .find(|c: char| !c.is_ascii_digit())
                    .unwrap_or(line.len() - start);
            if end > start {
                return format!("{}$THREADS{}", &line[..start], &line[end..]);
            }
            line
        }
        None => line,
    }
}

/// Replaces every number (digits, with a `.` fraction when `fraction`) directly followed
/// by one of `units` and then a non-letter, keeping the unit: `in 0.016 s,` →
/// `in $TIME s,`.
fn replace_number_before(line: &str, units: &[&str], by: &str, fraction: bool) -> String {
    let bytes = line.as_bytes();
    let mut out = String::with_capacity(line.len());
    let mut i = 0;
    let mut copied = 0;
    while i < bytes.len() {
        let starts_number = bytes[i].is_ascii_digit()
            && (i == 0 || !(bytes[i - 1].is_ascii_alphanumeric() || bytes[i - 1] == b'.'));
        if !starts_number {
            i += 1;
            continue;
        }
        let mut end = i;
        while end < bytes.len() && (bytes[end].is_ascii_digit() || (fraction && bytes[end] == b'.'))
        {
            end += 1;
        }
        let rest = &line[end..];
        let unit = units.iter().find(|u| {
            rest.starts_with(**u)
                && !rest[u.len()..]
                    .chars()
                    .next()
                    .is_some_and(|c| c.is_alphanumeric())
        });
        if unit.is_some() {
            out.push_str(&line[copied..i]);
            out.push_str(by);
            copied = end;
        }
        i = end;
    }
    out.push_str(&line[copied..]);
    out
}

/// A unified diff from the expected to the actual text, headed by the file's name.
pub fn unified_diff(path: &Path, expected: &str, actual: &str) -> String {
    let name = path.display().to_string();
    similar::TextDiff::from_lines(expected, actual)
        .unified_diff()
        .context_radius(3)
        .header(&format!("{name} (expected)"), &format!("{name} (actual)"))
        .to_string()
}

/// What comparing (or blessing) found.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct Outcome {
    /// Files whose text differs (or that do not exist), each with its diff.
    pub differ: Vec<(PathBuf, String)>,
    /// Expectation files that no job produced.
    pub stale: Vec<PathBuf>,
    /// Files written or deleted when blessing.
    pub blessed: Vec<PathBuf>,
}

impl Outcome {
    pub fn is_ok(&self) -> bool {
        self.differ.is_empty() && self.stale.is_empty()
    }

    /// The failure message: every diff, then the list of files that differ and the stale
    /// files, then how to bless.
    pub fn report(&self) -> String {
        let mut s = String::new();
        for (_, diff) in &self.differ {
            s.push_str(diff);
            s.push('\n');
        }
        if !self.differ.is_empty() {
            s.push_str(&format!(
                "{} expectation file(s) differ:\n",
                self.differ.len()
            ));
            for (p, _) in &self.differ {
                s.push_str(&format!("  {}\n", p.display()));
            }
        }
        if !self.stale.is_empty() {
            s.push_str("stale expectation file(s), produced by no kernel:\n");
            for p in &self.stale {
                s.push_str(&format!("  {}\n", p.display()));
            }
        }
        s.push_str("rerun with WARPCHECK_BLESS=1 to accept the actual output\n");
        s
    }
}

/// Compares `actual` with the files, or in [`Mode::Bless`] writes them; expectation files
/// in `dirs` that no actual names are stale (deleted when blessing).
pub fn settle(actual: &[Actual], dirs: &[PathBuf], mode: Mode) -> std::io::Result<Outcome> {
    let mut outcome = Outcome::default();
    for a in actual {
        let old = match std::fs::read_to_string(&a.expected) {
            Ok(t) => Some(t),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => None,
            Err(e) => return Err(e),
        };
        if old.as_deref() == Some(a.text.as_str()) {
            continue;
        }
        match mode {
            Mode::Bless => {
                std::fs::write(&a.expected, &a.text)?;
                outcome.blessed.push(a.expected.clone());
            }
            Mode::Compare => {
                let diff = unified_diff(&a.expected, old.as_deref().unwrap_or(""), &a.text);
                outcome.differ.push((a.expected.clone(), diff));
            }
        }
    }
    let produced: BTreeSet<&Path> = actual.iter().map(|a| a.expected.as_path()).collect();
    for stale in expectation_files(dirs)?
        .into_iter()
        .filter(|p| !produced.contains(p.as_path()))
    {
        match mode {
            Mode::Bless => {
                std::fs::remove_file(&stale)?;
                outcome.blessed.push(stale);
            }
            Mode::Compare => outcome.stale.push(stale),
        }
    }
    Ok(outcome)
}

/// The expectation files ([`SUFFIXES`]) in `dirs`, sorted.
pub fn expectation_files(dirs: &[PathBuf]) -> std::io::Result<Vec<PathBuf>> {
    let mut out = Vec::new();
    for d in dirs {
        for e in std::fs::read_dir(d)? {
            let p = e?.path();
            let name = p.file_name().and_then(|n| n.to_str()).unwrap_or_default();
            if SUFFIXES.iter().any(|s| name.ends_with(s)) {
                out.push(p);
            }
        }
    }
    out.sort();
    Ok(out)
}
