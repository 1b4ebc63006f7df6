//! `warpcheck ir FILE [--kernel K]`: print the typed IR for inspection.

use crate::Outcome;
use crate::input::{self, CompileArgs};
use crate::output::{self, CliError};

#[derive(clap::Args, Debug)]
pub struct Args {
    #[command(flatten)]
    pub compile: CompileArgs,
    /// The kernel or function to print (mangled, demangled or short name); every kernel
    /// and the module's variables if omitted.
    #[arg(long, short = 'k')]
    pub kernel: Option<String>,
}

pub fn run(args: Args) -> Result<Outcome, CliError> {
    let loaded = input::load(&args.compile)?;
    let program = input::lower(&loaded)?;
    let text = match &args.kernel {
        Some(name) => {
            let f = input::select_function(&program, name)?;
            warpcheck_ir::print_function(&program, f)
        }
        None => {
            let mut s = warpcheck_ir::print_globals(&program);
            for k in program.kernels() {
                s.push('\n');
                s.push_str(&warpcheck_ir::print_function(&program, k));
            }
            s
        }
    };
    output::print(&text)?;
    Ok(Outcome::Clean)
}
