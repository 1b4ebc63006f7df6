//! The `warpcheck` command line.
//!
//! Flags are checked in one pass (clap) and turned into working objects in another
//! (`input::CompileArgs::options`), as in ripgrep. Exit codes: 0 when clean, 1 when
//! findings of severity error were reported, 2 for usage, input and tool errors.

mod commands;
mod input;
mod output;

use clap::{Parser, Subcommand};
use std::process::ExitCode;

/// warpcheck finds correctness and performance bugs in GPU kernels, without a GPU.
#[derive(Parser, Debug)]
#[command(name = "warpcheck", version, about, long_about = None)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand, Debug)]
enum Command {
    /// Print the PTX that warpcheck analyses for FILE (.cu, .cl, .c or .ptx).
    Ptx(commands::ptx::Args),
    /// Print the typed IR of one kernel or function: instructions, CFG, loops, source lines.
    Ir(commands::ir::Args),
    /// List the kernels of FILE with their parameters.
    Kernels(commands::kernels::Args),
    /// Run a kernel in the emulator and show or save its buffers. Given a program (files
    /// of which one defines `main`: `run prog.cu [more files] [options] -- [args]`), build
    /// it with warpcheck's CUDA runtime and run it, its kernels in the emulator.
    Run(Box<commands::run::Args>),
    /// Static lints without running the kernel: uncoalesced accesses, bank conflicts,
    /// barrier divergence.
    Lint(commands::lint::Args),
    /// Run a kernel in the emulator under the dynamic checkers: data races, barrier
    /// misuse, out-of-bounds and uninitialised accesses, bank conflicts, coalescing. Given
    /// a program (`check prog.cu [more files] [options] -- [args]`), run it with its kernels
    /// under the checkers and its CUDA API calls checked.
    Check(Box<commands::check::Args>),
    /// Advise on porting the loops of a sequential C function to GPU kernels: verdict,
    /// kernel parameters and sections, coalescing per mapping, shared-memory tiles.
    Advise(commands::advise::Args),
    /// Explain a finding code (what it checks, why it matters, an example and its fix),
    /// or list every code.
    Explain(commands::explain::Args),
    /// Pack kernel files' launch lines for the GPU launcher (tools/gpu).
    #[command(hide = true)]
    GpuPack(commands::gpu_pack::Args),
}

/// How a command ended: the exit code to return.
pub enum Outcome {
    Clean,
    Findings,
    /// Findings, with the exit code the user asked for (`check --error-exitcode`).
    Code(u8),
}

fn main() -> ExitCode {
    // Before any thread starts: compilers and temporary directories are cleaned up when a
    // signal ends warpcheck, and program mode forwards signals to the program.
    warpcheck_front::process::handle_signals();
    // Program mode (`run`/`check` of files defining `main`) has its own arguments.
    let argv: Vec<std::ffi::OsString> = std::env::args_os().collect();
    if let Some(sub @ ("run" | "check")) = argv.get(1).and_then(|s| s.to_str())
        && let Some(result) = commands::program::intercept(sub == "check", &argv[2..])
    {
        return exit(result);
    }
    let cli = Cli::parse_from(input::respell_std(argv.into_iter()));
    let result = match cli.command {
        Command::Ptx(a) => commands::ptx::run(a),
        Command::Ir(a) => commands::ir::run(a),
        Command::Kernels(a) => commands::kernels::run(a),
        Command::Run(a) => commands::run::run(*a),
        Command::Lint(a) => commands::lint::run(a),
        Command::Check(a) => commands::check::run(*a),
        Command::Advise(a) => commands::advise::run(a),
        Command::Explain(a) => commands::explain::run(a),
        Command::GpuPack(a) => commands::gpu_pack::run(a),
    };
    exit(result)
}

/// The exit code of a command's result (errors are reported on stderr).
fn exit(result: Result<Outcome, output::CliError>) -> ExitCode {
    match result {
        Ok(Outcome::Clean) => ExitCode::from(0),
        Ok(Outcome::Findings) => ExitCode::from(1),
        Ok(Outcome::Code(c)) => ExitCode::from(c),
        Err(output::CliError::BrokenPipe) => ExitCode::from(0),
        Err(e) => {
            e.report();
            ExitCode::from(2)
        }
    }
}
