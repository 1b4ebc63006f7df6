//! What one launch is, and reading launches from a kernel file's `// warpcheck-launch:`
//! lines or from a TOML launch file.

use crate::LaunchError;
use std::path::Path;
pub use warpcheck_corpus::{Dim3, parse_dim3};

/// One launch: `--kernel K --grid X,Y,Z --block X,Y,Z --shared BYTES --arg NAME=SPEC …
/// --seed N`, as the command line, a `warpcheck-launch:` line or a launch file gives it.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct LaunchSpec {
    /// The kernel to launch (mangled, demangled or short name, or `name<args>` for a
    /// template instance); `None` when the file has one kernel.
    pub kernel: Option<String>,
    /// Grid dimensions in blocks.
    pub grid: Dim3,
    /// Block dimensions in threads.
    pub block: Dim3,
    /// Dynamic shared memory per block, in bytes (`extern __shared__`).
    pub shared: u32,
    /// Kernel arguments, `NAME=SPEC` (see `warpcheck_emu::args::parse_arg`).
    pub args: Vec<String>,
    /// Seed for `:rand` initialisers and for thread scheduling.
    pub seed: u64,
}

/// The launches a kernel file's header describes (`warpcheck-launch:` lines in the leading
/// comment block), in order.
pub fn header_launches(source: &str) -> Result<Vec<LaunchSpec>, LaunchError> {
    let header = warpcheck_corpus::KernelFile::parse_header("", source).map_err(|e| {
        LaunchError::BadHeaderLine {
            line: e.line as usize,
            message: e.message,
        }
    })?;
    Ok(header
        .launches
        .into_iter()
        .map(|l| LaunchSpec {
            kernel: l.kernel,
            grid: l.grid,
            block: l.block,
            shared: l.shared,
            args: l.args,
            seed: l.seed,
        })
        .collect())
}

/// A launch file (TOML): a sequence of launches over buffers shared by name, e.g.
///
/// ```toml
/// [[launch]]
/// kernel = "scale"
/// grid = [64]
/// block = [256]
/// args = ["n=16384", "x=f32[n]:rand"]
///
/// [[launch]]
/// kernel = "reduce"
/// grid = [1]
/// block = [256]
/// shared = 1024
/// args = ["n=16384", "x=f32[n]:rand", "out=f32[1]"]
/// ```
///
/// Each launch takes the fields of the command line (`kernel`, `grid`, `block`, `shared`,
/// `seed`, `args` with the `--arg` syntax); a buffer named in an earlier launch is the same
/// buffer (see `tests/kernels/README.md`). In a launch file read from disk, a relative
/// `file(PATH)` is relative to the launch file's directory ([`launches_from_file`]).
#[derive(serde::Deserialize, serde::Serialize)]
#[serde(deny_unknown_fields)]
struct LaunchFile {
    launch: Vec<LaunchEntry>,
}

#[derive(serde::Deserialize, serde::Serialize)]
#[serde(deny_unknown_fields)]
struct LaunchEntry {
    kernel: Option<String>,
    grid: Option<Vec<u32>>,
    block: Option<Vec<u32>>,
    #[serde(default)]
    shared: u32,
    #[serde(default)]
    seed: u64,
    #[serde(default)]
    args: Vec<String>,
}

fn dims(v: Option<Vec<u32>>, what: &'static str, n: usize) -> Result<Dim3, LaunchError> {
    let Some(v) = v else {
        return Ok(Dim3::default());
    };
    let text = v.iter().map(u32::to_string).collect::<Vec<_>>().join(",");
    parse_dim3(&text).map_err(|message| LaunchError::BadDims {
        launch: n,
        what,
        message,
    })
}

/// The launches of a TOML launch file.
pub fn toml_launches(text: &str) -> Result<Vec<LaunchSpec>, LaunchError> {
    let file: LaunchFile =
        toml::from_str(text).map_err(|e| LaunchError::BadLaunchFile(e.to_string()))?;
    file.launch
        .into_iter()
        .enumerate()
        .map(|(i, e)| {
            Ok(LaunchSpec {
                kernel: e.kernel,
                grid: dims(e.grid, "grid", i + 1)?,
                block: dims(e.block, "block", i + 1)?,
                shared: e.shared,
                args: e.args,
                seed: e.seed,
            })
        })
        .collect()
}

/// A launch file's text for `launches` (the inverse of [`toml_launches`]), after
/// `comment` (each line prefixed with `# `).
pub fn launch_file_text(comment: &str, launches: &[LaunchSpec]) -> String {
    let file = LaunchFile {
        launch: launches
            .iter()
            .map(|l| LaunchEntry {
                kernel: l.kernel.clone(),
                grid: Some(l.grid.0.to_vec()),
                block: Some(l.block.0.to_vec()),
                shared: l.shared,
                seed: l.seed,
                args: l.args.clone(),
            })
            .collect(),
    };
    let mut out: String = comment.lines().map(|l| format!("# {l}\n")).collect();
    if !out.is_empty() {
        out.push('\n');
    }
    // Serialising plain strings and integers cannot fail.
    out.push_str(&toml::to_string(&file).unwrap_or_default());
    out
}

/// `args` with each relative `:file(PATH)` made relative to `dir`.
fn files_relative_to(dir: &Path, args: &mut [String]) {
    for a in args {
        let Some(start) = a.find(":file(") else {
            continue;
        };
        let inner = &a[start + 6..];
        let Some(path) = inner.strip_suffix(')') else {
            continue;
        };
        if Path::new(path).is_relative() {
            *a = format!("{}:file({})", &a[..start], dir.join(path).display());
        }
    }
}

/// The launches of a file: a TOML launch file (`.toml`, see [`toml_launches`]; its relative
/// `file(PATH)` inputs are relative to its directory) or the `// warpcheck-launch:` header
/// lines of a kernel file. A file that describes no launch is an error.
pub fn launches_from_file(path: &Path) -> Result<Vec<LaunchSpec>, LaunchError> {
    let source = std::fs::read_to_string(path).map_err(|source| LaunchError::ReadFile {
        path: path.to_path_buf(),
        source,
    })?;
    if path.extension().is_some_and(|e| e == "toml") {
        let mut l = toml_launches(&source)?;
        let dir = path.parent().unwrap_or(Path::new(""));
        for spec in &mut l {
            files_relative_to(dir, &mut spec.args);
        }
        if l.is_empty() {
            return Err(LaunchError::NoLaunches(path.to_path_buf()));
        }
        return Ok(l);
    }
    let l = header_launches(&source)?;
    if l.is_empty() {
        return Err(LaunchError::NoHeaderLaunches(path.to_path_buf()));
    }
    Ok(l)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn launch_files_parse_like_the_command_line() {
        let l = toml_launches(
            "[[launch]]\nkernel = \"k\"\ngrid = [4]\nblock = [64, 2]\nargs = [\"n=8\", \"a=f32[n]:rand\"]\n\n[[launch]]\nkernel = \"j\"\nshared = 128\n",
        )
        .unwrap();
        assert_eq!(l.len(), 2);
        assert_eq!(l[0].kernel.as_deref(), Some("k"));
        assert_eq!(l[0].grid, Dim3([4, 1, 1]));
        assert_eq!(l[0].block, Dim3([64, 2, 1]));
        assert_eq!(l[0].args, ["n=8", "a=f32[n]:rand"]);
        assert_eq!(l[1].shared, 128);
        assert!(toml_launches("[[launch]]\nkernal = \"k\"\n").is_err());
        assert!(toml_launches("[[launch]]\nblock = [0]\n").is_err());
        assert!(toml_launches("[[launch]]\nblock = [1, 2, 3, 4]\n").is_err());
    }

    #[test]
    fn launch_files_round_trip_and_inputs_are_relative_to_them() {
        let spec = LaunchSpec {
            kernel: Some("_Z1kPfi".into()),
            grid: Dim3([4, 2, 1]),
            block: Dim3([64, 1, 1]),
            shared: 16,
            args: vec!["x=f32[]:file(001-x.npy)".into(), "n=3".into()],
            seed: 0,
        };
        let text = launch_file_text("captured\nline \"two\"", std::slice::from_ref(&spec));
        assert!(
            text.starts_with("# captured\n# line \"two\"\n\n[[launch]]"),
            "{text}"
        );
        assert_eq!(toml_launches(&text).unwrap(), vec![spec.clone()]);
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("001-k.toml");
        std::fs::write(&path, &text).unwrap();
        let read = launches_from_file(&path).unwrap();
        let want = format!("x=f32[]:file({})", dir.path().join("001-x.npy").display());
        assert_eq!(read[0].args, [want.as_str(), "n=3"]);
    }

    #[test]
    fn dims_parse_and_reject_zero() {
        assert_eq!(parse_dim3("256").unwrap(), Dim3([256, 1, 1]));
        assert_eq!(parse_dim3("16,16").unwrap(), Dim3([16, 16, 1]));
        assert_eq!(parse_dim3("4x4x2").unwrap(), Dim3([4, 4, 2]));
        assert!(parse_dim3("0").is_err());
        assert!(parse_dim3("1,2,3,4").is_err());
        assert!(parse_dim3("a").is_err());
    }

    #[test]
    fn header_lines_parse_like_the_command_line() {
        let src = "// title\n// warpcheck-launch: --kernel k --grid 4 --block 64,2 --arg n=8 --arg a=f32[n]:rand\n\
                   // warpcheck-launch: --kernel j --shared 128\n__global__ void k() {}\n// warpcheck-launch: --kernel ignored\n";
        let l = header_launches(src).unwrap();
        assert_eq!(l.len(), 2);
        assert_eq!(l[0].kernel.as_deref(), Some("k"));
        assert_eq!(l[0].block, Dim3([64, 2, 1]));
        assert_eq!(l[0].args, ["n=8", "a=f32[n]:rand"]);
        assert_eq!(l[1].shared, 128);
        assert!(header_launches("// warpcheck-launch: --bogus\n").is_err());
    }
}
