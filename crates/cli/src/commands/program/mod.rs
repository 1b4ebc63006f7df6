//! Program mode: `warpcheck run|check PROGRAM.cu [more .cu/.cpp/.c] [options] -- [ARGS]`
//! builds a whole CUDA program (device side to PTX, host side natively by clang or nvcc,
//! linked with warpcheck's CUDA runtime, `libwarpcheck_cudart.so`; see [`build`]) in a
//! private temporary directory,
//! and runs it as a child process with the given arguments. The program's stdin, stdout,
//! stderr, files and exit code are its own; its kernels run in the emulator inside the
//! child, under the checkers for `check`. warpcheck never runs user host code in its own
//! process. The runtime writes its findings as JSON to a file in the temporary directory
//! at exit; they are rendered here like kernel mode's, on stderr (or to `--output`).
//!
//! `--build-only` stops after the build (exit 0), so that a program's build can be
//! checked without running it.
//!
//! Exit codes: `check` exits with `--error-exitcode` (1) when it found errors, else with
//! the program's exit code; `run` with the program's exit code; 2 when the program could
//! not be built; a program killed by a signal gives 128 + the signal, as shells report.

mod build;
pub mod detect;
mod link_errors;
mod nvcc_host;
mod render;
mod timings;

use std::ffi::OsString;
use std::path::PathBuf;
use std::process::Command;

use clap::Parser;

use crate::Outcome;
use crate::commands::lint::Format;
use crate::output::CliError;

/// `warpcheck run|check` in program mode.
#[derive(Parser, Debug)]
#[command(name = "warpcheck", no_binary_name = true)]
pub struct ProgramArgs {
    /// The program's source files: CUDA (.cu), C++ (.cpp, .cc, .cxx) and C (.c); one of
    /// them defines `main`.
    #[arg(required = true)]
    pub files: Vec<PathBuf>,
    /// The emulated GPU architecture (compute capability) and the PTX target.
    #[arg(long, default_value = "sm_90", value_name = "sm_XX")]
    pub arch: String,
    /// The compiler options of kernel mode: `-I`, `-D`, `-std`, `-X` apply to the device
    /// and the host compilation, `-O` to the device code (clang compiles host code at -O1
    /// with -g), `--compiler` picks the compiler: `auto` and `clang` compile the host side
    /// with clang and warpcheck's headers (the device side too), `nvcc` both sides with
    /// nvcc and NVIDIA's headers.
    #[command(flatten)]
    pub compile: crate::input::CompilerFlags,
    /// Link with library LIB (-lLIB, as compilers spell it). The libraries that
    /// warpcheck's runtime provides (cudart, cudart_static, cublas, cublasLt and their
    /// _static forms) are accepted and need no other library.
    #[arg(short = 'l', value_name = "LIB")]
    pub link_lib: Vec<String>,
    /// Search DIR for the -l libraries.
    #[arg(short = 'L', value_name = "DIR")]
    pub link_dir: Vec<PathBuf>,
    /// `check`: the checkers, `all` or a comma-separated list of race, sync, mem, init,
    /// bank, coalesce.
    #[arg(long, default_value = "all")]
    pub tool: String,
    /// `check`: `full` reports device memory never freed (at cudaDeviceReset or exit).
    #[arg(long, value_enum, default_value_t = LeakCheck::None)]
    pub leak_check: LeakCheck,
    /// `check`: race model within a warp, `its` or `lockstep`.
    #[arg(long, default_value = "its")]
    pub intra_warp: String,
    /// Output format of the report.
    #[arg(long, value_enum, default_value_t = Format::Text)]
    pub format: Format,
    /// Write the report to PATH instead of stderr.
    #[arg(long, value_name = "PATH")]
    pub output: Option<PathBuf>,
    /// `check`: also write a report to PATH, in the format its extension names: `.json`
    /// or `.sarif` (every finding), else a self-contained HTML page: the launches, the
    /// findings and each kernel's source with per-line executions, sectors per request
    /// and bank conflicts (the launches then run with a per-instruction profile).
    #[arg(long, value_name = "PATH")]
    pub report: Option<PathBuf>,
    /// Write every launch to DIR before it runs, as a kernel-mode launch file
    /// (`NNN-KERNEL.toml`) and the contents of the buffers its pointers point into
    /// (`.npy`), to replay it alone with `warpcheck check FILE.cu --launches
    /// DIR/NNN-KERNEL.toml`.
    #[arg(long, value_name = "DIR")]
    pub capture: Option<PathBuf>,
    /// The most findings printed; the others are counted (0: no limit).
    #[arg(long, default_value_t = 100)]
    pub print_limit: usize,
    /// `check`: exit code when an error was found.
    #[arg(long, default_value_t = 1)]
    pub error_exitcode: u8,
    /// Host threads running a launch's blocks (0: one per core).
    #[arg(long, default_value_t = 0)]
    pub threads: usize,
    /// Warp-instructions one warp may execute before a launch stops as a runaway loop.
    #[arg(long, default_value_t = warpcheck_emu::DEFAULT_BUDGET)]
    pub budget: u64,
    /// Lane-instructions one launch (all its blocks together) may execute before it is
    /// stopped with a `launch-limit` error (default: no limit).
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u64).range(1..))]
    pub launch_budget: Option<u64>,
    /// Seconds of wall-clock time one launch may take before it is stopped with a
    /// `launch-limit` error (default: no limit).
    #[arg(long, value_name = "SECS", value_parser = warpcheck_front::process::parse_seconds)]
    pub timeout: Option<std::time::Duration>,
    /// Print where the program's time went (stderr; with `--format json`, the report's
    /// `timings`): the build, the program's wall-clock and CPU time, module loading, the
    /// launches' time in the emulator (wall and CPU), and the rest (host code, API calls,
    /// the report) in total and per API call.
    #[arg(long)]
    pub timings: bool,
    /// Run every launch, also one that repeats an earlier launch exactly (same kernel,
    /// configuration, arguments and device memory), which is otherwise reused: its
    /// memory changes and output applied without running it again.
    #[arg(long)]
    pub rerun_identical: bool,
    /// Build the program and stop without running it: the device side compiled to PTX
    /// that is parsed and lowered, the host side compiled and linked with warpcheck's
    /// runtime (undefined API functions named). Exits 0 when it built, 2 when not.
    #[arg(long)]
    pub build_only: bool,
    /// The program's arguments (after `--`).
    #[arg(last = true)]
    pub program_args: Vec<OsString>,
}

#[derive(clap::ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum LeakCheck {
    None,
    Full,
}

/// The libraries the runtime library provides: `-l` options naming them are dropped
/// from the link line.
pub const RUNTIME_PROVIDES: &[&str] = &[
    "cudart",
    "cudart_static",
    "cublas",
    "cublas_static",
    "cublasLt",
    "cublasLt_static",
];

/// The linker options of the program's `-l` libraries that the runtime does not provide.
pub fn link_libraries(libs: &[String]) -> Vec<String> {
    libs.iter()
        .filter(|l| !RUNTIME_PROVIDES.contains(&l.as_str()))
        .map(|l| format!("-l{l}"))
        .collect()
}

/// Program mode when `args` (after `run`/`check`) name a program; `None` keeps kernel
/// mode.
pub fn intercept(check: bool, args: &[OsString]) -> Option<Result<Outcome, CliError>> {
    detect::program_files(args)?;
    let parsed = match ProgramArgs::try_parse_from(crate::input::respell_std(args.iter().cloned()))
    {
        Ok(p) => p,
        Err(e) => e.exit(),
    };
    Some(run_program(check, parsed))
}

/// Builds and runs the program, then reports.
pub fn run_program(check: bool, args: ProgramArgs) -> Result<Outcome, CliError> {
    if check {
        warpcheck_check::Tools::parse(&args.tool).map_err(CliError::msg)?;
    } else if args.report.is_some() {
        return Err(CliError::msg(
            "--report needs `warpcheck check` (the heat comes from the checkers)",
        ));
    }
    let dir = warpcheck_front::process::ScratchDir::new("warpcheck-program-")
        .map_err(|e| CliError::msg(format!("cannot create a temporary directory: {e}")))?;
    let build_start = std::time::Instant::now();
    let built = build::build(&args, dir.path())?;
    let build_seconds = build_start.elapsed().as_secs_f64();
    if args.build_only {
        eprintln!(
            "warpcheck: built {} ({build_seconds:.1} s); not run (--build-only)",
            program_name(&args)
        );
        return Ok(Outcome::Clean);
    }
    let report = dir.path().join("report.json");
    let mut cmd = Command::new(&built.executable);
    cmd.args(&args.program_args)
        .env("WARPCHECK_CUDART_REPORT", &report)
        .env("WARPCHECK_CUDART_ARCH", &args.arch)
        .env("WARPCHECK_CUDART_THREADS", args.threads.to_string())
        .env("WARPCHECK_CUDART_BUDGET", args.budget.to_string())
        .env(
            "WARPCHECK_CUDART_SHIMS",
            std::env::join_paths(&built.header_dirs).unwrap_or_default(),
        );
    if let Some(major) = built.nvidia_headers {
        cmd.env("WARPCHECK_CUDART_HEADERS", format!("nvidia-{major}"));
    }
    if let Some(n) = args.launch_budget {
        cmd.env("WARPCHECK_CUDART_LAUNCH_BUDGET", n.to_string());
    }
    if let Some(t) = args.timeout {
        cmd.env("WARPCHECK_CUDART_TIMEOUT", t.as_secs_f64().to_string());
    }
    if check {
        cmd.env("WARPCHECK_CUDART_CHECK", "1")
            .env("WARPCHECK_CUDART_TOOLS", &args.tool)
            .env("WARPCHECK_CUDART_INTRA_WARP", &args.intra_warp);
        if args.leak_check == LeakCheck::Full {
            cmd.env("WARPCHECK_CUDART_LEAK_CHECK", "full");
        }
        let format = args.report.as_deref().map(crate::output::ReportFormat::of);
        if format == Some(crate::output::ReportFormat::Html) {
            cmd.env("WARPCHECK_CUDART_PROFILE", "1");
        }
    }
    if args.timings {
        cmd.env("WARPCHECK_CUDART_TIMINGS", "1");
    }
    if args.rerun_identical {
        cmd.env("WARPCHECK_CUDART_RERUN_IDENTICAL", "1");
    }
    if let Some(capture) = &args.capture {
        let kernels = dir.path().join("kernels.json");
        let json = serde_json::to_string(&built.signatures).unwrap_or_default();
        std::fs::write(&kernels, json)
            .map_err(|e| CliError::msg(format!("cannot write {}: {e}", kernels.display())))?;
        cmd.env("WARPCHECK_CUDART_CAPTURE", capture)
            .env("WARPCHECK_CUDART_KERNELS", &kernels)
            .env("WARPCHECK_CUDART_REPLAY", replay_options(&args, &built));
    }
    let cpu_before = timings::children_cpu_seconds();
    let run_start = std::time::Instant::now();
    let status = warpcheck_front::process::run_forwarding(&mut cmd)
        .map_err(|e| CliError::msg(format!("cannot run the program: {e}")))?;
    let measured = timings::Measured {
        build_seconds,
        wall_seconds: run_start.elapsed().as_secs_f64(),
        cpu_seconds: timings::children_cpu_seconds() - cpu_before,
    };
    let program_code = exit_code(&status);
    let report = std::fs::read_to_string(&report).ok();
    let measured = args.timings.then_some(&measured);
    let errors = render::report(&args, check, report.as_deref(), &status, measured)?;
    if check && errors > 0 {
        return Ok(Outcome::Code(args.error_exitcode));
    }
    Ok(Outcome::Code(program_code))
}

/// The program's name in messages: its first source file.
fn program_name(args: &ProgramArgs) -> String {
    args.files
        .first()
        .map(|f| f.display().to_string())
        .unwrap_or_default()
}

/// The compile options with which kernel mode compiles a `.cu` file as program mode did
/// (the compiler of its route, the PTX target, `-O`, `-I`, `-D`), for the replay command
/// of a capture.
fn replay_options(args: &ProgramArgs, built: &build::Built) -> String {
    let quote = |s: String| {
        if s.chars()
            .all(|c| c.is_ascii_alphanumeric() || "-_./=:+,".contains(c))
        {
            s
        } else {
            format!("'{}'", s.replace('\'', "'\\''"))
        }
    };
    // The nvcc route's PTX is nvcc's (NVIDIA's headers); the clang route's, clang's.
    let compiler = if built.nvidia_headers.is_some() {
        "nvcc"
    } else {
        "clang"
    };
    let mut words = vec![
        "--compiler".to_string(),
        compiler.into(),
        "--arch".into(),
        built.ptx_arch.clone(),
        format!("-O{}", args.compile.opt_level),
    ];
    for dir in &args.compile.include {
        words.push("-I".into());
        words.push(quote(dir.display().to_string()));
    }
    for d in &args.compile.define {
        words.push(quote(format!("-D{d}")));
    }
    words.join(" ")
}

/// The program's exit code; 128 + the signal when a signal ended it.
fn exit_code(status: &std::process::ExitStatus) -> u8 {
    if let Some(c) = status.code() {
        return c as u8;
    }
    #[cfg(unix)]
    {
        use std::os::unix::process::ExitStatusExt;
        if let Some(s) = status.signal() {
            return 128u8.wrapping_add(s as u8);
        }
    }
    1
}
