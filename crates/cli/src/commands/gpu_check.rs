//! `warpcheck check FILE --gpu [launch options]`: inter-block race detection by running
//! the kernel's instrumented PTX (LD's privatisation and two passes, `warpcheck-gpu`) on an
//! NVIDIA GPU through the driver API, or in the emulator with `--gpu-executor emu` (what
//! the tests use). Findings have the race checker's codes, lines and witness shape.
//!
//! Launch lines share buffers by name, as in the emulator: each launch starts from the
//! buffers the previous ones left (merged in block order).

use std::collections::HashMap;
use std::fmt::Write as _;
use std::io::IsTerminal;

use crate::Outcome;
use crate::commands::check::Args;
use crate::commands::lint::Format;
use crate::input::{self, Loaded};
use crate::output::{self, CliError};
use warpcheck_emu::args::parse_arg;
use warpcheck_front::ParamKind;
use warpcheck_gpu::{Arg, CudaExecutor, EmuExecutor, Executor, Instrumented, Launch, LaunchBuffer};
use warpcheck_ir::{FuncId, Program};
use warpcheck_launch::{LaunchSpec, site_location};
use warpcheck_report::{Finding, Severity, Sources, json, sarif, text};

/// The GPU-mode flags of `check`.
#[derive(clap::Args, Debug, Clone)]
pub struct GpuArgs {
    /// Check for races between blocks by running the instrumented kernel on an NVIDIA GPU
    /// (value-based two-pass checking, LD); needs a CUDA driver, not the toolkit.
    #[arg(long)]
    pub gpu: bool,
    /// What runs the instrumented kernel in `--gpu` mode: `cuda` (the GPU) or `emu` (the
    /// emulator, for machines without a GPU).
    #[arg(long, value_enum, default_value_t = GpuExecutorKind::Cuda, requires = "gpu")]
    pub gpu_executor: GpuExecutorKind,
}

#[derive(clap::ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum GpuExecutorKind {
    Cuda,
    Emu,
}

fn gpu_error(e: warpcheck_gpu::GpuError) -> CliError {
    CliError::msg(e.to_string())
}

pub fn run(args: &Args) -> Result<Outcome, CliError> {
    let compiled = input::compile(&args.compile)?;
    let mut signatures = compiled.signatures.clone();
    let loaded = input::load_compiled(&args.compile, compiled)?;
    let program = input::lower(&loaded)?;
    let launches = args
        .source
        .select(&args.compile, &args.launch, &mut signatures)?;
    let opts = args.emu.options();
    let mut exec: Box<dyn Executor> = match args.gpu.gpu_executor {
        GpuExecutorKind::Cuda => Box::new(CudaExecutor::new(0).map_err(gpu_error)?),
        GpuExecutorKind::Emu => {
            let mut e = EmuExecutor::new();
            e.threads = opts.threads;
            e.budget = opts.budget;
            Box::new(e)
        }
    };
    let mut instrumented: HashMap<FuncId, Instrumented> = HashMap::new();
    let mut named: HashMap<String, Vec<u8>> = HashMap::new();
    let mut findings = Vec::new();
    let mut described = String::new();
    for l in &launches {
        let kernel = match &l.kernel {
            Some(k) => input::select_function(&program, k)?,
            None => warpcheck_launch::only_kernel(&program)?,
        };
        let f = program.function(kernel);
        let sig = signatures.iter().find(|s| s.mangled_name == f.name);
        if let std::collections::hash_map::Entry::Vacant(slot) = instrumented.entry(kernel) {
            // Scalars by the signature are not pointers; untyped `.u64`s may be.
            let is_pointer = |i: usize| {
                sig.and_then(|s| s.params.get(i)).is_none_or(|p| {
                    !matches!(
                        p.kind,
                        ParamKind::Scalar(_) | ParamKind::Vector(_) | ParamKind::Struct(_)
                    )
                })
            };
            let i = warpcheck_gpu::instrument_with(&loaded.module, &program, kernel, &is_pointer)
                .map_err(gpu_error)?;
            findings.extend(warpcheck_gpu::report::limits(&i, f.display_name()));
            slot.insert(i);
        }
        let inst = &instrumented[&kernel];
        let mut gl = bind(&program, kernel, sig, l, opts.limits, &named)?;
        let start = std::time::Instant::now();
        let verdict =
            warpcheck_gpu::passes::check(exec.as_mut(), inst, &mut gl, Default::default())
                .map_err(gpu_error)?;
        let _ = writeln!(
            described,
            "kernel {}  grid {}  block {}  shared {}: {} runs on {} in {:.3} s",
            f.display_name(),
            l.grid,
            l.block,
            l.shared,
            verdict.runs,
            exec.describe(),
            start.elapsed().as_secs_f64()
        );
        let locate = |inst| site_location(&program, loaded.ptx_text(), kernel, inst);
        findings.extend(warpcheck_gpu::report::findings(
            inst,
            &verdict,
            l.grid.0,
            f.display_name(),
            &locate,
        ));
        for b in gl.buffers {
            named.insert(b.name, b.bytes);
        }
    }
    output::relativize(&mut findings);
    render(args, &loaded, described, &findings)
}

/// Binds a launch's arguments; buffers of earlier launches are reused by name.
fn bind(
    program: &Program,
    kernel: FuncId,
    sig: Option<&warpcheck_front::KernelSignature>,
    l: &LaunchSpec,
    limits: warpcheck_emu::args::Limits,
    named: &HashMap<String, Vec<u8>>,
) -> Result<Launch, CliError> {
    let slots = warpcheck_launch::bind::param_slots(program, kernel, sig);
    let parsed = l
        .args
        .iter()
        .map(|a| parse_arg(a).map_err(CliError::msg))
        .collect::<Result<Vec<_>, _>>()?;
    let total = l.grid.count() * l.block.count();
    let bound = warpcheck_launch::bind::bind(&slots, &parsed, total, l.seed, limits)?;
    let mut buffers = Vec::new();
    let mut by_param = HashMap::new();
    for b in &bound.buffers {
        let bytes = match named.get(&b.name) {
            Some(bytes) => bytes.clone(),
            None => {
                let mut bytes = vec![0u8; b.value.byte_len()];
                b.value
                    .generate(|offset, chunk| {
                        bytes[offset..offset + chunk.len()].copy_from_slice(chunk);
                        Ok(())
                    })
                    .map_err(|e| CliError::msg(format!("cannot initialise `{}`: {e}", b.name)))?;
                bytes
            }
        };
        by_param.insert(b.param, buffers.len());
        buffers.push(LaunchBuffer {
            name: b.name.clone(),
            bytes,
        });
    }
    let args = slots
        .iter()
        .enumerate()
        .map(|(i, s)| match by_param.get(&i) {
            Some(&b) => Arg::Buffer(b),
            None => Arg::Bytes(
                bound.param_block[s.offset as usize..(s.offset + s.size) as usize].to_vec(),
            ),
        })
        .collect();
    Ok(Launch {
        grid: l.grid.0,
        block: l.block.0,
        shared: l.shared,
        args,
        buffers,
    })
}

fn render(
    args: &Args,
    loaded: &Loaded,
    described: String,
    findings: &[Finding],
) -> Result<Outcome, CliError> {
    let errors = findings
        .iter()
        .filter(|f| f.severity == Severity::Error)
        .count();
    let shown = if args.print_limit > 0 && findings.len() > args.print_limit {
        &findings[..args.print_limit]
    } else {
        findings
    };
    let rendered = match args.format {
        Format::Text => {
            let mut sources = Sources::new();
            sources.insert(loaded.ptx_name.clone(), loaded.ptx.clone());
            let mut out = described;
            out.push_str(&text::render(
                shown,
                &mut sources,
                std::io::stdout().is_terminal(),
            ));
            if shown.len() < findings.len() {
                let _ = writeln!(
                    out,
                    "{} more findings not shown (--print-limit {})",
                    findings.len() - shown.len(),
                    args.print_limit
                );
            }
            out
        }
        Format::Json => {
            let mut value = json::render(shown);
            value["omitted"] = serde_json::json!(findings.len() - shown.len());
            format!("{value:#}\n")
        }
        Format::Sarif => format!("{:#}\n", sarif::render(shown, env!("CARGO_PKG_VERSION"))),
    };
    output::print(&rendered)?;
    Ok(if errors > 0 {
        Outcome::Code(args.error_exitcode)
    } else {
        Outcome::Clean
    })
}
