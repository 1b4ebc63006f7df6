//! `warpcheck kernels FILE`: list kernels with their parameters.

use crate::Outcome;
use crate::input::{self, CompileArgs};
use crate::output::{self, CliError};

#[derive(clap::Args, Debug)]
pub struct Args {
    #[command(flatten)]
    pub compile: CompileArgs,
    /// Output format.
    #[arg(long, value_enum, default_value_t = Format::Text)]
    pub format: Format,
}

#[derive(clap::ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum Format {
    Text,
    Json,
}

pub fn run(args: Args) -> Result<Outcome, CliError> {
    let compiled = input::compile(&args.compile)?;
    let text = match args.format {
        Format::Json => {
            let v = serde_json::json!({
                "file": compiled.source_path,
                "compiler": compiled.compiler,
                "kernels": compiled.signatures,
                "notes": compiled.notes,
            });
            format!("{}\n", serde_json::to_string_pretty(&v).unwrap_or_default())
        }
        Format::Text => {
            let mut s = String::new();
            for sig in &compiled.signatures {
                s.push_str(&format!("{}  ({})\n", sig.demangled_name, sig.mangled_name));
                for p in &sig.params {
                    let size = p
                        .ptx_size
                        .map(|b| format!(", {b} bytes"))
                        .unwrap_or_default();
                    s.push_str(&format!("    {:<16} {}{size}\n", p.name, p.c_type));
                }
            }
            if compiled.signatures.is_empty() {
                s.push_str("no kernels\n");
            }
            for n in &compiled.notes {
                s.push_str(&format!("note: {n}\n"));
            }
            s
        }
    };
    output::print(&text)?;
    Ok(Outcome::Clean)
}
