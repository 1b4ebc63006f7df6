//! `warpcheck advise FILE.c [--function F] [--values n=1024,…] [--format text|json]`: the
//! porting advisor (Juravle 2011). For each loop nest of the function: whether
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
use crate::input::{self, CompileArgs, CompilerFlags};
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
    /// Write a CUDA kernel and launch code for the first GPU-friendly loop nest (with the
    /// recommended mapping) to PATH, then verify it: compile it with warpcheck's front
    /// end, run the original function and the kernel in the emulator on the same inputs
    /// (sizes from --values), compare the outputs, and race-check the kernel (a race
    /// between iterations is a loop-carried dependency). Needs --values for the sizes.
    /// Without it, --values alone runs the same test on a kernel that is not kept (text
    /// format).
    #[arg(long, value_name = "PATH")]
    pub emit_cuda: Option<PathBuf>,
    /// Optimisation level of the compilation (0 keeps loops as written).
    #[arg(short = 'O', default_value_t = 0, value_parser = clap::value_parser!(u8).range(0..=3))]
    pub opt_level: u8,
    /// Compile afresh: neither read nor write the compile cache.
    #[arg(long)]
    pub no_cache: bool,
    /// Steps of symbolic work each loop nest's analysis may spend (a step is about one
    /// term of an expression visited or built; counted, not timed, so reports do not
    /// depend on the host). Interpreting a function may spend 4 times as many and the
    /// whole run 16 times. A nest that reaches its bound before its verdict is `unknown`,
    /// with the test that was running; after it, its verdict stands and the rest of its
    /// advice is left out. The JSON report gives each nest's `analysis_steps`.
    #[arg(
        long,
        value_name = "N",
        default_value_t = warpcheck_advise::DEFAULT_STEPS_PER_NEST,
        value_parser = clap::value_parser!(u64).range(1..)
    )]
    pub analysis_budget: u64,
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
        language: None,
        flags: CompilerFlags {
            include: args.include.clone(),
            define: args.define.clone(),
            opt_level: args.opt_level,
            no_cache: args.no_cache,
            ..CompilerFlags::clang()
        },
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
    if args.emit_cuda.is_some() && functions.len() != 1 {
        return Err(CliError::msg(
            "--emit-cuda needs one function: name it with --function",
        ));
    }
    let file = args.file.display().to_string();
    let budget = warpcheck_advise::AnalysisBudget {
        per_nest: args.analysis_budget,
    };
    let (advices, emitted_for) =
        budget.run(|| advise_all(&program, &functions, &signatures, &source, &values, budget))?;
    // The dynamic dependence test: with --emit-cuda (one function) or with --values alone
    // (when the file has one function with loops).
    let verification = match (&emitted_for, advices.as_slice()) {
        (Some((names, types)), [advice]) if args.emit_cuda.is_some() || args.values.is_some() => {
            let kernel = Kernel {
                advice,
                source: &source,
                names,
                types,
                file: &file,
            };
            Some(dependence_test(
                &kernel,
                args.emit_cuda.as_deref(),
                &args.define,
            )?)
        }
        _ => None,
    };
    let rendered = match args.format {
        Format::Text => advices
            .iter()
            .map(|a| warpcheck_advise::render::text(a, &file))
            .collect::<Vec<_>>()
            .join("\n"),
        Format::Json => {
            // The verification (dynamic dependence test) as its report text and counts.
            let verification = verification.as_ref().map(|v| {
                serde_json::json!({
                    "agree": v.agree,
                    "races": v.races,
                    "report": v.text.trim(),
                })
            });
            let json = serde_json::json!({
                "file": file,
                "functions": advices,
                "verification": verification,
            });
            format!("{json:#}\n")
        }
    };
    output::print(&rendered)?;
    if let Some(v) = verification {
        if args.format == Format::Text {
            output::print(&v.text)?;
        }
        if !v.agree {
            return Ok(Outcome::Findings);
        }
    }
    Ok(Outcome::Clean)
}

/// The parameter names and C types of the function advised on last.
type Named = Option<(Vec<String>, Vec<String>)>;

/// The advice on each of `functions` (call within the run's total budget,
/// [`warpcheck_advise::AnalysisBudget::run`]).
fn advise_all(
    program: &warpcheck_ir::Program,
    functions: &[warpcheck_ir::FuncId],
    signatures: &[warpcheck_front::KernelSignature],
    source: &str,
    values: &BTreeMap<String, i128>,
    budget: warpcheck_advise::AnalysisBudget,
) -> Result<(Vec<warpcheck_advise::FunctionAdvice>, Named), CliError> {
    let mut advices = Vec::new();
    let mut named = None;
    for &f in functions {
        let name = &program.function(f).name;
        let sig = signatures.iter().find(|s| &s.mangled_name == name);
        let options = warpcheck_advise::AdviseOptions {
            param_names: sig
                .map(|s| s.params.iter().map(|p| p.name.clone()).collect())
                .unwrap_or_default(),
            param_types: sig
                .map(|s| s.params.iter().map(|p| p.c_type.clone()).collect())
                .unwrap_or_default(),
            source: Some(source.to_string()),
            values: values.clone(),
            budget,
        };
        let advice = warpcheck_advise::advise(program, f, &options)
            .map_err(|e| CliError::msg(e.to_string()))?;
        named = Some((options.param_names, options.param_types));
        advices.push(advice);
    }
    Ok((advices, named))
}

/// What the emitted kernel is made from.
struct Kernel<'a> {
    advice: &'a warpcheck_advise::FunctionAdvice,
    source: &'a str,
    names: &'a [String],
    types: &'a [String],
    file: &'a str,
}

/// Emits the kernel for the recommended mapping and runs the dynamic dependence test on
/// it. With `kept` (--emit-cuda PATH) the kernel is written there and a kernel that cannot
/// be emitted or verified is an error. Without (--values alone) the kernel is generated
/// into a private temporary directory, run with the loop's iterations as threads under the
/// race checker and compared with the loop; a loop it cannot generate or run is reported
/// as "not run", and only races (loop-carried dependencies) count as disagreement: other
/// differences (the loop faulting on random inputs) only report.
fn dependence_test(
    k: &Kernel<'_>,
    kept: Option<&std::path::Path>,
    define: &[String],
) -> Result<Verification, CliError> {
    let emitted = warpcheck_advise::emit::emit_cuda(k.advice, k.source, k.names, k.types, k.file);
    if let Some(path) = kept {
        let emitted = emitted.map_err(|e| CliError::msg(format!("--emit-cuda: {e}")))?;
        crate::output::write_file(path, &[std::path::Path::new(k.file)], |w| {
            w.write_all(emitted.cuda.as_bytes())
        })?;
        return verify(&emitted, path, define);
    }
    let not_run = |why: String| Verification {
        agree: true,
        races: 0,
        text: format!("\n  dynamic dependence test: not run ({why})\n"),
    };
    let not_kept = std::path::Path::new("not kept (--emit-cuda PATH writes it)");
    Ok(match emitted {
        Err(e) => not_run(format!("no kernel: {e}")),
        Ok(emitted) => match verify(&emitted, not_kept, define) {
            Ok(v) => Verification {
                agree: v.races == 0,
                ..v
            },
            Err(CliError::Message(m)) => not_run(m),
            Err(_) => not_run("the kernel does not compile".into()),
        },
    })
}

/// Written buffers after a run: (name, bytes).
type Outputs = Vec<(String, Vec<u8>)>;

/// What the verification of an emitted kernel found.
struct Verification {
    agree: bool,
    /// Races between iterations the race checker found (loop-carried dependencies).
    races: usize,
    text: String,
}

/// Compiles the harness, runs the reference (one thread) and the kernel on the same
/// seeded inputs, compares the written buffers byte for byte, and race-checks the kernel.
fn verify(
    e: &warpcheck_advise::emit::Emitted,
    path: &std::path::Path,
    defines: &[String],
) -> Result<Verification, CliError> {
    use warpcheck_launch::{Dim3, LaunchSpec};
    use warpcheck_launch::{EmuOptions, Session};
    let dir = warpcheck_front::process::ScratchDir::new("warpcheck-advise-")
        .map_err(|err| CliError::msg(format!("cannot create a temporary directory: {err}")))?;
    let harness = dir.path().join("harness.cu");
    std::fs::write(&harness, &e.harness)
        .map_err(|err| CliError::msg(format!("cannot write the harness: {err}")))?;
    let compile = CompileArgs {
        file: harness,
        arch: "sm_80".into(),
        language: None,
        flags: CompilerFlags {
            define: defines.to_vec(),
            opt_level: 1,
            no_cache: true,
            ..CompilerFlags::clang()
        },
    };
    let compiled = warpcheck_front::compile(
        &compile.file,
        &warpcheck_front::CompileOptions {
            opt_level: 1,
            compiler: warpcheck_front::CompilerChoice::Clang,
            defines: defines.to_vec(),
            // The harness lives in a fresh temporary directory: no later run asks for it.
            use_cache: false,
            ..warpcheck_front::CompileOptions::default()
        },
    )
    .map_err(|err| CliError::msg(format!("the emitted kernel does not compile: {err}")))?;
    let signatures = compiled.signatures.clone();
    let loaded = input::load_compiled(&compile, compiled)?;
    let program = input::lower(&loaded)?;
    let specs: Vec<String> = e.args.iter().map(|a| a.spec()).collect();
    let opts = EmuOptions {
        threads: 0,
        budget: warpcheck_emu::DEFAULT_BUDGET,
        launch_budget: None,
        timeout: None,
        independent_scheduling: false,
        limits: warpcheck_emu::args::Limits::default(),
        malloc_heap: None,
    };
    let reference = LaunchSpec {
        kernel: Some("warpcheck_reference".into()),
        grid: Dim3([1, 1, 1]),
        block: Dim3([1, 1, 1]),
        shared: 0,
        args: specs.clone(),
        seed: 7,
    };
    let (x_count, y_count) = match e.counts.as_slice() {
        [a] => (*a, 1),
        [outer, inner] => {
            // The kernel's x is the recommended mapping's first variable; the harness
            // launches enough blocks for either order.
            let m = (*outer).max(*inner);
            (m, m)
        }
        _ => (1, 1),
    };
    let blocks = |count: i128, per: u32| -> u32 {
        u32::try_from((count.max(1) + per as i128 - 1) / per as i128).unwrap_or(u32::MAX)
    };
    let grid = Dim3([
        blocks(x_count, e.block[0]),
        if e.counts.len() == 2 {
            blocks(y_count, e.block[1])
        } else {
            1
        },
        1,
    ]);
    let mut kernel_args = specs.clone();
    let count_names: Vec<String> = e
        .harness
        .split("warpcheck_kernel(")
        .nth(1)
        .and_then(|s| s.split(')').next())
        .map(|ps| {
            ps.split(',')
                .filter_map(|p| p.trim().strip_prefix("long long "))
                .map(str::to_string)
                .collect()
        })
        .unwrap_or_default();
    for (name, count) in count_names.iter().zip(&e.counts) {
        kernel_args.push(format!("{name}={count}"));
    }
    let kernel = LaunchSpec {
        kernel: Some("warpcheck_kernel".into()),
        grid,
        block: Dim3([e.block[0], e.block[1], 1]),
        shared: 0,
        args: kernel_args,
        seed: 7,
    };
    let run_one = |l: &LaunchSpec,
                   checker: Option<&mut warpcheck_check::Checker>|
     -> Result<(Outputs, usize), CliError> {
        let mut session = Session::new(&program, &signatures);
        let report = session.launch(l, opts, checker)?;
        let faults = report.outcome.faults.len();
        let mut outs = Vec::new();
        for b in &session.buffers {
            if e.outputs.contains(&b.name) {
                outs.push((b.name.clone(), session.read(b)?));
            }
        }
        Ok((outs, faults))
    };
    let (want, ref_faults) = run_one(&reference, None)?;
    // The inputs as bound, before any iteration: the kernel with zero iterations.
    let mut untouched = kernel.clone();
    for a in untouched.args.iter_mut() {
        if count_names.iter().any(|n| a.starts_with(&format!("{n}=")))
            && let Some((name, _)) = a.split_once('=')
        {
            *a = format!("{name}=0");
        }
    }
    let (initial, _) = run_one(&untouched, None)?;
    let mut checker = warpcheck_check::Checker::new(warpcheck_check::CheckOptions {
        tools: warpcheck_check::Tools::parse("race").map_err(CliError::msg)?,
        intra_warp: warpcheck_check::IntraWarp::Independent,
        // A dependence between any two iterations counts: watch every block.
        race_blocks: warpcheck_check::RaceBlocks::All,
        // Iterations writing the same value are still a dependence.
        strict_races: true,
    });
    let (got, kernel_faults) = run_one(&kernel, Some(&mut checker))?;
    let locate =
        |func, inst| warpcheck_launch::site_location(&program, loaded.ptx_text(), func, inst);
    let cx = warpcheck_check::ReportCx {
        program: &program,
        locate: &locate,
    };
    let races = checker.observed_findings(&cx);
    let mut text = format!("\nemitted CUDA: {}\n", path.display());
    let mut agree = ref_faults == 0 && kernel_faults == 0 && want.len() == got.len();
    for (((name, a), (_, b)), (_, before)) in want.iter().zip(&got).zip(&initial) {
        let differing = a.iter().zip(b).filter(|(x, y)| x != y).count() + a.len().abs_diff(b.len());
        let written = a.iter().zip(before).filter(|(x, y)| x != y).count();
        if differing == 0 {
            text.push_str(&format!(
                "  verified: `{name}` ({} bytes, {written} of them changed by the loop) is identical after the original loop and the kernel\n",
                a.len()
            ));
        } else {
            agree = false;
            text.push_str(&format!(
                "  MISMATCH: `{name}` differs in {differing} of {} bytes\n",
                a.len()
            ));
        }
    }
    if ref_faults + kernel_faults > 0 {
        text.push_str(&format!(
            "  faults: {ref_faults} in the original, {kernel_faults} in the kernel\n"
        ));
    }
    text.push_str(&format!(
        "  kernel grid {}x{} of {}x{} threads, same seeded inputs for both runs\n",
        grid.0[0], grid.0[1], e.block[0], e.block[1]
    ));
    if races.is_empty() {
        text.push_str("  dynamic dependence test: no race between iterations (race checker)\n");
    } else {
        agree = false;
        text.push_str(&format!(
            "  dynamic dependence test: {} race(s) between iterations, i.e. loop-carried dependencies:\n",
            races.len()
        ));
        for r in &races {
            text.push_str(&format!("    {}\n", r.message));
        }
    }
    let verdict = if !races.is_empty() {
        "of a dependent loop: iterations race, so the loop is not parallel for these inputs"
    } else if ref_faults > 0 {
        "inconclusive: the original loop faults on the generated random inputs (an index read from an input array?)"
    } else if agree {
        "agree"
    } else {
        "DISAGREE"
    };
    text.push_str(&format!("  outputs {verdict}\n"));
    Ok(Verification {
        agree,
        races: races.len(),
        text,
    })
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
