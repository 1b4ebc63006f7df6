//! Launch options shared by `run`, `check` and the kernel files' `warpcheck-launch:` lines.

use crate::output::CliError;

/// `--kernel K --grid X,Y,Z --block X,Y,Z --shared BYTES --arg NAME=SPEC … --seed N`
#[derive(clap::Args, Debug, Clone, Default)]
pub struct LaunchArgs {
    /// The kernel to launch (mangled, demangled or short name, or `name<args>` for a
    /// template instance); may be left out when the file has one kernel.
    #[arg(long, short = 'k')]
    pub kernel: Option<String>,
    /// Grid dimensions in blocks: X[,Y[,Z]].
    #[arg(long, value_parser = parse_dim3, default_value = "1")]
    pub grid: Dim3,
    /// Block dimensions in threads: X[,Y[,Z]].
    #[arg(long, value_parser = parse_dim3, default_value = "1")]
    pub block: Dim3,
    /// Dynamic shared memory per block, in bytes (`extern __shared__`).
    #[arg(long, default_value_t = 0, value_name = "BYTES")]
    pub shared: u32,
    /// A kernel argument: NAME=SPEC, e.g. n=1024, alpha=0.5, a=f32[n]:rand, m=i32[n*n]:iota.
    #[arg(long = "arg", value_name = "NAME=SPEC")]
    pub args: Vec<String>,
    /// Seed for `:rand` initialisers and for thread scheduling.
    #[arg(long, default_value_t = 0)]
    pub seed: u64,
}

/// Grid or block dimensions.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Dim3(pub [u32; 3]);

impl Default for Dim3 {
    fn default() -> Dim3 {
        Dim3([1, 1, 1])
    }
}

impl Dim3 {
    pub fn count(self) -> u64 {
        self.0.iter().map(|&d| d as u64).product()
    }
}

impl std::fmt::Display for Dim3 {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "({},{},{})", self.0[0], self.0[1], self.0[2])
    }
}

/// Parses `X[,Y[,Z]]` (also `X,Y,Z` with `x` as separator: `16x16`).
pub fn parse_dim3(s: &str) -> Result<Dim3, String> {
    let parts: Vec<&str> = s.split([',', 'x']).map(str::trim).collect();
    if parts.is_empty() || parts.len() > 3 {
        return Err(format!(
            "`{s}`: expected 1 to 3 dimensions, e.g. 256 or 16,16"
        ));
    }
    let mut d = [1u32; 3];
    for (i, p) in parts.iter().enumerate() {
        d[i] = p
            .parse::<u32>()
            .map_err(|_| format!("`{p}` is not a dimension (a positive integer)"))?;
        if d[i] == 0 {
            return Err(format!("`{s}`: dimensions must be at least 1"));
        }
    }
    Ok(Dim3(d))
}

/// The launches a kernel file's header describes (`warpcheck-launch:` lines in the leading
/// comment block, read by `warpcheck-corpus`), in order.
pub fn header_launches(source: &str) -> Result<Vec<LaunchArgs>, CliError> {
    let header = warpcheck_corpus::KernelFile::parse_header("", source)
        .map_err(|e| CliError::msg(e.to_string()))?;
    Ok(header
        .launches
        .into_iter()
        .map(|l| LaunchArgs {
            kernel: l.kernel,
            grid: Dim3(l.grid.0),
            block: Dim3(l.block.0),
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
/// buffer (see `tests/kernels/README.md`).
#[derive(serde::Deserialize)]
#[serde(deny_unknown_fields)]
struct LaunchFile {
    launch: Vec<LaunchEntry>,
}

#[derive(serde::Deserialize)]
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

fn dims(v: Option<Vec<u32>>, what: &str, n: usize) -> Result<Dim3, CliError> {
    let Some(v) = v else {
        return Ok(Dim3::default());
    };
    let text = v.iter().map(u32::to_string).collect::<Vec<_>>().join(",");
    parse_dim3(&text).map_err(|e| CliError::msg(format!("launch {n}: `{what}`: {e}")))
}

/// The launches of a TOML launch file.
pub fn toml_launches(text: &str) -> Result<Vec<LaunchArgs>, CliError> {
    let file: LaunchFile =
        toml::from_str(text).map_err(|e| CliError::msg(format!("bad launch file: {e}")))?;
    file.launch
        .into_iter()
        .enumerate()
        .map(|(i, e)| {
            Ok(LaunchArgs {
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

/// Where `run` and `check` take their launches from, besides the command line.
#[derive(clap::Args, Debug, Clone)]
pub struct LaunchSource {
    /// Run the launches of FILE's `// warpcheck-launch:` header lines (in order, sharing
    /// buffers by name) instead of one given on the command line.
    #[arg(long, conflicts_with_all = ["kernel", "args"])]
    pub from_header: bool,
    /// Run the launches of a launch file (`.toml`: `[[launch]]` tables with kernel, grid,
    /// block, shared, seed and args), or the `// warpcheck-launch:` lines of another file,
    /// e.g. the `.cu` that FILE's PTX was compiled from. Parameters are named as in that
    /// file: when FILE is PTX (whose parameters have no names), that file is compiled for
    /// its kernel signatures.
    #[arg(long, value_name = "FILE", conflicts_with_all = ["kernel", "args", "from_header"])]
    pub launches: Option<std::path::PathBuf>,
}

impl LaunchSource {
    /// The launches to perform: those of a launch file (`.toml`, see [`toml_launches`]),
    /// the `// warpcheck-launch:` header lines of `--launches` or of the kernel file, or the
    /// one launch of the command line. For PTX input launched from a source file's lines,
    /// `signatures` become that source's (so parameters have names).
    pub fn select(
        &self,
        compile: &crate::input::CompileArgs,
        command_line: &LaunchArgs,
        signatures: &mut Vec<warpcheck_front::KernelSignature>,
    ) -> Result<Vec<LaunchArgs>, CliError> {
        if let Some(source) = &self.launches
            && compile.file.extension().is_some_and(|e| e == "ptx")
            && source
                .extension()
                .is_some_and(|e| e != "ptx" && e != "toml")
        {
            let mut from = compile.clone();
            from.file = source.clone();
            from.compiler = crate::input::CompilerArg::Clang;
            *signatures = crate::input::compile(&from)?.signatures;
        }
        let header = match (&self.launches, self.from_header) {
            (Some(path), _) => path.as_path(),
            (None, true) => compile.file.as_path(),
            (None, false) => return Ok(vec![command_line.clone()]),
        };
        let source = std::fs::read_to_string(header)
            .map_err(|e| CliError::msg(format!("cannot read {}: {e}", header.display())))?;
        if header.extension().is_some_and(|e| e == "toml") {
            let l = toml_launches(&source)?;
            if l.is_empty() {
                return Err(CliError::msg(format!(
                    "{} has no launches",
                    header.display()
                )));
            }
            return Ok(l);
        }
        let l = header_launches(&source)?;
        if l.is_empty() {
            return Err(CliError::msg(format!(
                "{} has no `// warpcheck-launch:` lines",
                header.display()
            )));
        }
        Ok(l)
    }
}

/// Emulator options shared by `run` and `check`.
#[derive(clap::Args, Debug, Clone)]
pub struct EmuArgs {
    /// Host threads running blocks in parallel (0: one per core).
    #[arg(long, default_value_t = 0)]
    pub threads: usize,
    /// Warp-instructions one warp may execute before the run stops as a runaway loop.
    #[arg(long, default_value_t = warpcheck_emu::DEFAULT_BUDGET)]
    pub budget: u64,
    /// Independent thread scheduling (sm_70+): interleave warps and divergent paths,
    /// seeded by --seed. The default runs warps in lock-step. (`check`'s race detection
    /// does not depend on it; see --intra-warp.)
    #[arg(long)]
    pub independent_scheduling: bool,
}

impl EmuArgs {
    pub fn options(&self) -> crate::exec::EmuOptions {
        crate::exec::EmuOptions {
            threads: self.threads,
            budget: self.budget,
            independent_scheduling: self.independent_scheduling,
            limits: warpcheck_emu::args::Limits::default(),
        }
    }
}
