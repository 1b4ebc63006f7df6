//! Launch options shared by `run` and `check`, as clap parses them; they become the launch
//! library's [`LaunchSpec`]s.

use crate::output::CliError;
use warpcheck_launch::{Dim3, EmuOptions, LaunchSpec, parse_dim3};

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

impl From<&LaunchArgs> for LaunchSpec {
    fn from(l: &LaunchArgs) -> LaunchSpec {
        LaunchSpec {
            kernel: l.kernel.clone(),
            grid: l.grid,
            block: l.block,
            shared: l.shared,
            args: l.args.clone(),
            seed: l.seed,
        }
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
    /// The launches to perform: those of a launch file (`.toml`), the
    /// `// warpcheck-launch:` header lines of `--launches` or of the kernel file, or the
    /// one launch of the command line. For PTX input launched from a source file's lines,
    /// `signatures` become that source's (so parameters have names).
    pub fn select(
        &self,
        compile: &crate::input::CompileArgs,
        command_line: &LaunchArgs,
        signatures: &mut Vec<warpcheck_front::KernelSignature>,
    ) -> Result<Vec<LaunchSpec>, CliError> {
        if let Some(source) = &self.launches
            && compile.file.extension().is_some_and(|e| e == "ptx")
            && source
                .extension()
                .is_some_and(|e| e != "ptx" && e != "toml")
        {
            let mut from = compile.clone();
            from.file = source.clone();
            from.flags.compiler = crate::input::CompilerArg::Clang;
            *signatures = crate::input::compile(&from)?.signatures;
        }
        let file = match (&self.launches, self.from_header) {
            (Some(path), _) => path.as_path(),
            (None, true) => compile.file.as_path(),
            (None, false) => return Ok(vec![command_line.into()]),
        };
        Ok(warpcheck_launch::launches_from_file(file)?)
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
    /// Lane-instructions a whole launch (all its blocks together) may execute before it
    /// is stopped with a `launch-limit` error (default: no limit).
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u64).range(1..))]
    pub launch_budget: Option<u64>,
    /// Seconds of wall-clock time a launch may take before it is stopped with a
    /// `launch-limit` error (default: no limit).
    #[arg(long, value_name = "SECS", value_parser = warpcheck_front::process::parse_seconds)]
    pub timeout: Option<std::time::Duration>,
    /// Independent thread scheduling (sm_70+): interleave warps and divergent paths,
    /// seeded by --seed. The default runs warps in lock-step. (`check`'s race detection
    /// does not depend on it; see --intra-warp.)
    #[arg(long)]
    pub independent_scheduling: bool,
    /// Size of the device heap that in-kernel `malloc` and `new` allocate from (bytes, or
    /// with a K, M or G suffix; default 8M, as on a GPU). Program mode sets it with
    /// `cudaDeviceSetLimit(cudaLimitMallocHeapSize, n)`.
    #[arg(long, value_name = "SIZE", value_parser = crate::commands::gpu_check::parse_size)]
    pub malloc_heap: Option<u64>,
}

impl EmuArgs {
    pub fn options(&self) -> EmuOptions {
        EmuOptions {
            threads: self.threads,
            budget: self.budget,
            launch_budget: self.launch_budget,
            timeout: self.timeout,
            independent_scheduling: self.independent_scheduling,
            malloc_heap: self.malloc_heap,
            limits: warpcheck_emu::args::Limits::default(),
        }
    }
}
