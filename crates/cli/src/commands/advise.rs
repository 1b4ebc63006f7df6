//! `warpcheck advise FILE.c [--function F] [--values n=1024,…] [--format text|json]`: the
//! porting advisor (issue 6, Juravle 2011). For each loop nest of the function: whether
//! its iterations can run as GPU threads and why (not), the kernel's inbound and outbound
//! variables with the byte sections they access, the coalescing factor of every global
//! access under each mapping of the loop variables to `Grid.x`, the recommended mapping,
//! shared-memory opportunities, and — with `--values` — the same instantiated.
//!
//! The C file is compiled at `-O0` by default, where every loop and variable keeps its
//! source shape (`-O1` and higher rotate, unroll and promote loops, which the advisor's
//! loop tests do not undo). Exit codes: 0 when the advice was given (whatever it says),
//! 2 for a bad file, function or value.

use std::collections::BTreeMap;
use std::path::PathBuf;

use crate::Outcome;
use crate::input::{self, CompileArgs, CompilerArg};
use crate::output::{self, CliError};

#[derive(clap::Args, Debug)]
pub struct Args {
    /// The C file (.c) whose loops to advise on.
    pub file: PathBuf,
    /// The function to analyse; every function with loops if omitted.
    #[arg(long, short = 'f')]
    pub function: Option<String>,
    /// Run-time values, comma-separated `NAME=INT`: parameters (`n=1024`), fields reached
    /// through parameters (`img->width=640`), `blockDim.x`/`blockDim.y` (for shared bytes
    /// per block), and loop counts `loop:VAR=COUNT` that are solved for a parameter
    /// (Juravle §6.1).
    #[arg(long, value_name = "NAME=V,...")]
    pub values: Option<String>,
    /// Output format.
    #[arg(long, value_enum, default_value_t = Format::Text)]
    pub format: Format,
    /// Add a directory to the include search path.
    #[arg(short = 'I', value_name = "DIR")]
    pub include: Vec<PathBuf>,
    /// Define a preprocessor macro (NAME or NAME=VALUE).
    #[arg(short = 'D', value_name = "MACRO")]
    pub define: Vec<String>,
    /// Optimisation level of the compilation (0 keeps loops as written).
    #[arg(short = 'O', default_value_t = 0, value_parser = clap::value_parser!(u8).range(0..=3))]
    pub opt_level: u8,
}

#[derive(clap::ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum Format {
    Text,
    Json,
}

/// `n=1024,img->width=640,loop:i=100` as a map; clear errors for anything else.
pub fn parse_values(text: &str) -> Result<BTreeMap<String, i128>, CliError> {
    let mut out = BTreeMap::new();
    for item in text.split(',').map(str::trim).filter(|s| !s.is_empty()) {
        let Some((name, value)) = item.split_once('=') else {
            return Err(CliError::msg(format!(
                "--values: `{item}` is not NAME=INTEGER (e.g. n=1024 or img->width=640)"
            )));
        };
        let name = name.trim();
        let value: i128 = value.trim().parse().map_err(|_| {
            CliError::msg(format!(
                "--values: the value of `{name}` must be an integer, got `{}`",
                value.trim()
            ))
        })?;
        if name.is_empty() {
            return Err(CliError::msg(format!("--values: `{item}` has no name")));
        }
        if out.insert(name.to_string(), value).is_some() {
            return Err(CliError::msg(format!("--values: `{name}` is given twice")));
        }
    }
    Ok(out)
}

pub fn run(args: Args) -> Result<Outcome, CliError> {
    if args.file.extension().is_none_or(|e| e != "c") {
        return Err(CliError::msg(format!(
            "advise takes a C file (.c), got `{}`",
            args.file.display()
        )));
    }
    let values = match &args.values {
        Some(v) => parse_values(v)?,
        None => BTreeMap::new(),
    };
    let compile = CompileArgs {
        file: args.file.clone(),
        arch: "sm_80".into(),
        include: args.include.clone(),
        define: args.define.clone(),
        opt_level: args.opt_level,
        compiler: CompilerArg::Clang,
    };
    let source = std::fs::read_to_string(&args.file)
        .map_err(|e| CliError::msg(format!("cannot read `{}`: {e}", args.file.display())))?;
    let compiled = input::compile(&compile)?;
    let signatures = compiled.signatures.clone();
    let loaded = input::load_compiled(&compile, compiled)?;
    let program = input::lower(&loaded)?;
    let functions: Vec<warpcheck_ir::FuncId> = match &args.function {
        Some(name) => vec![input::select_function(&program, name)?],
        None => program
            .functions
            .iter()
            .filter(|(_, f)| f.body.as_ref().is_some_and(|b| !b.loops.loops.is_empty()))
            .map(|(id, _)| id)
            .collect(),
    };
    if functions.is_empty() {
        return Err(CliError::msg(format!(
            "`{}` has no function with a loop",
            args.file.display()
        )));
    }
    let file = args.file.display().to_string();
    let mut advices = Vec::new();
    for f in functions {
        let name = &program.function(f).name;
        let sig = signatures.iter().find(|s| &s.mangled_name == name);
        let options = warpcheck_advise::AdviseOptions {
            param_names: sig
                .map(|s| s.params.iter().map(|p| p.name.clone()).collect())
                .unwrap_or_default(),
            param_types: sig
                .map(|s| s.params.iter().map(|p| p.c_type.clone()).collect())
                .unwrap_or_default(),
            source: Some(source.clone()),
            values: values.clone(),
        };
        let advice = warpcheck_advise::advise(&program, f, &options)
            .map_err(|e| CliError::msg(e.to_string()))?;
        advices.push(advice);
    }
    let rendered = match args.format {
        Format::Text => advices
            .iter()
            .map(|a| warpcheck_advise::render::text(a, &file))
            .collect::<Vec<_>>()
            .join("\n"),
        Format::Json => {
            let json = serde_json::json!({ "file": file, "functions": advices });
            format!("{json:#}\n")
        }
    };
    output::print(&rendered)?;
    Ok(Outcome::Clean)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn values_parse_with_field_paths_and_reject_junk() {
        let v = parse_values("n=1024, img->width=640,loop:i=100").ok();
        assert_eq!(
            v.map(|m| m.into_iter().collect::<Vec<_>>()),
            Some(vec![
                ("img->width".to_string(), 640),
                ("loop:i".to_string(), 100),
                ("n".to_string(), 1024)
            ])
        );
        assert!(parse_values("n").is_err());
        assert!(parse_values("n=x").is_err());
        assert!(parse_values("n=1,n=2").is_err());
    }
}
