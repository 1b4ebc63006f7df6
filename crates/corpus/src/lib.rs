//! The model of warpcheck's test corpus (`tests/kernels`, `tests/check-cases`): a kernel
//! file's header (`// warpcheck-launch:`, `// warpcheck-expect:`, `// warpcheck-variant:`,
//! `// warpcheck-gpu:` lines, `tests/kernels/README.md` defines them) and its `//~` markers,
//! parsed once, with errors that name the file and line. [`expectations`] compares the
//! tool's normalised output with blessable `.stderr` files.
//!
//! The crate depends on no other warpcheck crate: the tests, examples and the CLI's
//! `--from-header` all read kernel files through [`KernelFile::parse`].

pub mod expectations;
mod header;
mod launch;
mod markers;

use std::path::{Path, PathBuf};

pub use launch::{Dim3, LaunchLine, parse_dim3};
pub use markers::{Marker, MarkerKind};

/// A problem in a kernel file, at `path:line`.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{}", self.located())]
pub struct HeaderError {
    /// The file as given to [`KernelFile::read`] (empty for [`KernelFile::parse`] input
    /// without a name).
    pub path: String,
    /// 1-based line number.
    pub line: u32,
    pub message: String,
}

impl HeaderError {
    /// `path:line: message`, or `line N: message` without a path.
    fn located(&self) -> String {
        if self.path.is_empty() {
            format!("line {}: {}", self.line, self.message)
        } else {
            format!("{}:{}: {}", self.path, self.line, self.message)
        }
    }
}

/// What the `warpcheck-expect:` line says.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Expect {
    /// `clean`: no finding for the launches, and no markers.
    Clean,
    /// `findings`: exactly the marked findings.
    Findings,
}

/// A `warpcheck-variant: -DMACRO=VALUE KIND@L1,L2,... [KIND@L1,...]` line: compiled with
/// `define`, the file has findings of each kind on exactly its lines besides its own
/// markers.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Variant {
    /// Header line of the variant.
    pub line: u32,
    /// The compiler flag, `-DMACRO=VALUE`.
    pub define: String,
    /// Each kind of finding the variant adds, with its lines.
    pub kinds: Vec<(MarkerKind, Vec<u32>)>,
}

impl Variant {
    /// A name for files about the variant: `-DREMOVE_BARRIER=1` → `REMOVE_BARRIER_1`.
    pub fn name(&self) -> String {
        self.define
            .trim_start_matches("-D")
            .chars()
            .map(|c| {
                if c.is_ascii_alphanumeric() || c == '_' {
                    c
                } else {
                    '_'
                }
            })
            .collect()
    }

    /// The markers the variant adds (kinds without a degree).
    pub fn markers(&self) -> impl Iterator<Item = Marker> + '_ {
        self.kinds.iter().flat_map(|(kind, lines)| {
            lines.iter().map(|&line| Marker {
                line,
                kind: *kind,
                degree: None,
            })
        })
    }
}

/// A kernel file of the corpus: its header and its markers.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct KernelFile {
    pub path: PathBuf,
    /// The first header line, without `//`.
    pub title: String,
    /// The `warpcheck-launch:` lines, in order.
    pub launches: Vec<LaunchLine>,
    /// `None` when the header has no `warpcheck-expect:` line (plain-C advisor files).
    pub expect: Option<Expect>,
    pub variants: Vec<Variant>,
    /// The reason of a `warpcheck-gpu: skip (reason)` line.
    pub gpu_skip: Option<String>,
    /// The `warpcheck-advise:` arguments of a plain-C file.
    pub advise: Option<String>,
    /// The `warpcheck-expect-advice:` lines of a plain-C file: (line, text).
    pub expect_advice: Vec<(u32, String)>,
    /// The `//~` markers, in line order.
    pub markers: Vec<Marker>,
}

impl KernelFile {
    /// Reads and parses a kernel file.
    pub fn read(path: impl AsRef<Path>) -> Result<KernelFile, HeaderError> {
        let path = path.as_ref();
        let text = std::fs::read_to_string(path).map_err(|e| HeaderError {
            path: path.display().to_string(),
            line: 0,
            message: format!("cannot read: {e}"),
        })?;
        KernelFile::parse(path, &text)
    }

    /// Parses the header of a file and leaves the rest alone (`markers` stays empty): what
    /// `warpcheck run --from-header` needs from a user's file. `path` names it in errors
    /// (an empty path gives `line N: ...`).
    pub fn parse_header(path: impl AsRef<Path>, text: &str) -> Result<KernelFile, HeaderError> {
        let path = path.as_ref();
        let mut file = header::parse(text).map_err(|(l, m)| error(path, l, m))?;
        file.path = path.to_path_buf();
        Ok(file)
    }

    /// Parses the text of a kernel file, header and markers; `path` names it in errors.
    pub fn parse(path: impl AsRef<Path>, text: &str) -> Result<KernelFile, HeaderError> {
        let path = path.as_ref();
        let err = |line: u32, message: String| error(path, line, message);
        let mut file = KernelFile::parse_header(path, text)?;
        file.markers = markers::parse(text).map_err(|(l, m)| err(l, m))?;
        if file.expect == Some(Expect::Clean) && !file.markers.is_empty() {
            let first = file.markers[0].line;
            return Err(err(
                first,
                "marker in a file whose header says `warpcheck-expect: clean`".into(),
            ));
        }
        Ok(file)
    }

    /// The file name, e.g. `transpose_naive.cu`.
    pub fn file_name(&self) -> String {
        self.path
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default()
    }

    /// The markers that hold when compiled as `variant` (the file's own plus the
    /// variant's), or the file's own for `None`.
    pub fn markers_for(&self, variant: Option<&Variant>) -> Vec<Marker> {
        let mut out = self.markers.clone();
        out.extend(variant.into_iter().flat_map(Variant::markers));
        out.sort();
        out.dedup();
        out
    }

    /// The variant whose flag is `define` (`-DREMOVE_BARRIER=1`).
    pub fn variant(&self, define: &str) -> Option<&Variant> {
        self.variants.iter().find(|v| v.define == define)
    }
}

fn error(path: &Path, line: u32, message: String) -> HeaderError {
    HeaderError {
        path: path.display().to_string(),
        line,
        message,
    }
}

/// The kernel files (`.cu`, `.cl`) of `dir`, sorted by name.
pub fn kernel_files(dir: &Path) -> std::io::Result<Vec<PathBuf>> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir)?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| matches!(p.extension().and_then(|e| e.to_str()), Some("cu" | "cl")))
        .collect();
    files.sort();
    Ok(files)
}

/// The repository's corpus directories, relative to its root.
pub const CORPUS_DIRS: [&str; 2] = ["tests/kernels", "tests/check-cases"];
