//! `warpcheck ptx FILE`: print the PTX warpcheck analyses.

use crate::Outcome;
use crate::input::{self, CompileArgs};
use crate::output::{self, CliError};

#[derive(clap::Args, Debug)]
pub struct Args {
    #[command(flatten)]
    pub compile: CompileArgs,
    /// Also parse the PTX and report syntax errors (exit 2 if there are any).
    #[arg(long)]
    pub check: bool,
}

pub fn run(args: Args) -> Result<Outcome, CliError> {
    let ptx = if args.check {
        input::load(&args.compile)?.ptx
    } else {
        input::compile(&args.compile)?.ptx
    };
    output::print(&ptx)?;
    Ok(Outcome::Clean)
}
