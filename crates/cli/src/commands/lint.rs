//! `warpcheck lint FILE [--kernel K] [--block X,Y,Z] [--grid X,Y,Z] [--arg n=V]...`:
//! static lints, no inputs needed.
//!
//! Without a launch, the lints reason symbolically (a warp is 32 consecutive
//! `threadIdx.x`; strides such as `4·height` give upper bounds). With `--block` (and
//! optionally `--grid` and integer `--arg`s) the symbolic results are instantiated and the
//! counts are those of the launch (Juravle §6). Buffer arguments (`a=f32[n]`) are accepted
//! so that a `check` command line can be reused, and ignored. `--granularity lines` counts
//! 128-byte lines as GPUDrano does (§3.2) instead of 32-byte sectors; `--data-dependent`
//! also reports accesses whose address varies across a warp through values read from memory
//! (`uncoalesced-data-dependent`, GPUDrano's convention). Exit codes as `check`: 1 when
//! a finding of severity error (barrier divergence) is reported.

use std::collections::BTreeMap;
use std::io::IsTerminal;

use crate::Outcome;
use crate::input::{self, CompileArgs};
use crate::output::{self, CliError};
use warpcheck_emu::args::{ArgSpec, Number, parse_arg};
use warpcheck_launch::parse_dim3;
use warpcheck_lint::warp::Granularity;
use warpcheck_lint::{Launch, LintOptions};
use warpcheck_report::{Severity, Sources, json, sarif, text};

#[derive(clap::Args, Debug)]
pub struct Args {
    #[command(flatten)]
    pub compile: CompileArgs,
    /// The kernel to lint (mangled, demangled or short name); every kernel if omitted.
    #[arg(long, short = 'k')]
    pub kernel: Option<String>,
    /// Block dimensions X[,Y[,Z]]: instantiate the results for this launch.
    #[arg(long, value_name = "X,Y,Z")]
    pub block: Option<String>,
    /// Grid dimensions X[,Y[,Z]] (default 1).
    #[arg(long, value_name = "X,Y,Z")]
    pub grid: Option<String>,
    /// A kernel argument, `NAME=VALUE`; integer scalars instantiate the results.
    #[arg(long = "arg", value_name = "NAME=SPEC")]
    pub args: Vec<String>,
    /// How global accesses are counted: 32-byte sectors, uncoalesced at twice the ideal
    /// (Nsight Compute's unit), or 128-byte lines, uncoalesced above the ideal (GPUDrano §3.2).
    #[arg(long, value_enum, default_value_t = GranularityArg::Sectors)]
    pub granularity: GranularityArg,
    /// Also report global accesses whose address varies across a warp through values read
    /// from memory (gathers `x[col[j]]`, scatters `cost[edges[i]]`, per-thread ranges
    /// `a[start[tid]+i]`) as `uncoalesced-data-dependent`: whether they coalesce depends on
    /// the data (GPUDrano reports them all as uncoalesced).
    #[arg(long)]
    pub data_dependent: bool,
    /// Output format.
    #[arg(long, value_enum, default_value_t = Format::Text)]
    pub format: Format,
}

#[derive(clap::ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum GranularityArg {
    Sectors,
    Lines,
}

impl From<GranularityArg> for Granularity {
    fn from(g: GranularityArg) -> Self {
        match g {
            GranularityArg::Sectors => Granularity::Sectors,
            GranularityArg::Lines => Granularity::Lines,
        }
    }
}

#[derive(clap::ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum Format {
    Text,
    Json,
    Sarif,
}

/// Integer scalars by name; buffer specs and floats are accepted and left out.
fn parse_scalars(args: &[String]) -> Result<BTreeMap<String, i128>, CliError> {
    let mut out = BTreeMap::new();
    for a in args {
        // The same syntax as `run` and `check`: buffers are checked, then left out.
        let arg = parse_arg(a).map_err(CliError::msg)?;
        if let ArgSpec::Scalar(Number::Int(v)) = arg.spec {
            out.insert(arg.name, v);
        }
    }
    Ok(out)
}

pub fn run(args: Args) -> Result<Outcome, CliError> {
    let compiled = input::compile(&args.compile)?;
    let signatures = compiled.signatures.clone();
    let loaded = input::load_compiled(&args.compile, compiled)?;
    let program = input::lower(&loaded)?;
    let block = args
        .block
        .as_deref()
        .map(parse_dim3)
        .transpose()
        .map_err(CliError::msg)?
        .map(|d| d.0);
    let grid = args
        .grid
        .as_deref()
        .map(parse_dim3)
        .transpose()
        .map_err(CliError::msg)?
        .map(|d| d.0);
    if grid.is_some() && block.is_none() {
        return Err(CliError::msg(
            "--grid needs --block: give the block dimensions too",
        ));
    }
    let launch = block.map(|block| Launch {
        grid: grid.unwrap_or([1, 1, 1]),
        block,
    });

    let scalars = parse_scalars(&args.args)?;
    let kernels: Vec<warpcheck_ir::FuncId> = match &args.kernel {
        Some(name) => vec![input::select_function(&program, name)?],
        None => program.kernels().collect(),
    };
    if let Some(l) = &launch {
        // The checks `run` and `check` make (hardware limits, `.reqntid`, `.maxntid`): a
        // launch the emulator or a GPU would reject is no launch to lint either.
        for &k in &kernels {
            let params = vec![0u8; program.function(k).param_space_size as usize];
            let config = warpcheck_emu::LaunchConfig::new(l.grid, l.block);
            warpcheck_emu::validate(&program, k, &params, &config)
                .map_err(|e| CliError::msg(e.to_string()))?;
        }
    }
    let mut findings = Vec::new();
    let mut matched: BTreeMap<&str, bool> = scalars.keys().map(|k| (k.as_str(), false)).collect();
    let mut listing = Vec::new();
    for k in kernels {
        let function = program.function(k);
        let param_names: Vec<String> = signatures
            .iter()
            .find(|s| s.mangled_name == function.name)
            .map(|s| s.params.iter().map(|p| p.name.clone()).collect())
            .unwrap_or_default();
        // The names the lint knows the parameters by: the source's, else the PTX's.
        let names: Vec<String> = function
            .params
            .iter()
            .enumerate()
            .map(|(i, &v)| {
                param_names
                    .get(i)
                    .cloned()
                    .unwrap_or_else(|| program.variable(v).name.clone())
            })
            .collect();
        // `--arg` by name, or by position (`arg3`) as `run` accepts it.
        let mut kernel_scalars = BTreeMap::new();
        for (given, &v) in &scalars {
            let name = names
                .iter()
                .enumerate()
                .find_map(|(i, n)| (n == given || *given == format!("arg{i}")).then(|| n.clone()));
            if let Some(name) = name {
                kernel_scalars.insert(name, v);
                matched.insert(given.as_str(), true);
            }
        }
        let display: Vec<String> = names
            .iter()
            .enumerate()
            .map(|(i, n)| {
                let positional = format!("arg{i}");
                if *n == positional {
                    positional
                } else {
                    format!("{n} ({positional})")
                }
            })
            .collect();
        listing.push(format!(
            "`{}`: {}",
            function.display_name(),
            display.join(", ")
        ));
        let options = LintOptions {
            param_names,
            launch,
            scalars: kernel_scalars,
            granularity: args.granularity.into(),
            data_dependent: args.data_dependent,
        };
        findings.extend(warpcheck_lint::lint_kernel(&program, k, &options));
    }
    if let Some((name, _)) = matched.iter().find(|(_, m)| !**m) {
        return Err(CliError::msg(format!(
            "--arg {name}: no kernel linted has a parameter of that name; parameters: {}",
            listing.join("; ")
        )));
    }
    output::relativize(&mut findings);
    let rendered = match args.format {
        Format::Text => {
            let mut sources = Sources::new();
            let color = std::io::stdout().is_terminal();
            text::render(&findings, &mut sources, color)
        }
        Format::Json => format!("{:#}\n", json::render(&findings)),
        Format::Sarif => format!(
            "{:#}\n",
            sarif::render(&findings, env!("CARGO_PKG_VERSION"))
        ),
    };
    output::print(&rendered)?;
    if findings.iter().any(|f| f.severity == Severity::Error) {
        Ok(Outcome::Findings)
    } else {
        Ok(Outcome::Clean)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scalars_parse() {
        let s = parse_scalars(&["n=1024".into(), "a=f32[n]".into(), "alpha=0.5".into()]).ok();
        assert_eq!(
            s.map(|m| m.into_iter().collect::<Vec<_>>()),
            Some(vec![("n".to_string(), 1024)])
        );
        assert!(parse_scalars(&["oops".into()]).is_err());
        assert!(parse_scalars(&["a=q32[4]".into()]).is_err());
    }
}
