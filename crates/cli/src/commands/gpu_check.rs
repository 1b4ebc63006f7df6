//! `warpcheck check FILE --gpu [launch options]`: race detection between blocks and
//! between warps by running the kernel's instrumented PTX (LD's privatisation and two
//! passes, `warpcheck-gpu`) on an NVIDIA GPU through the driver API, or in the emulator
//! with `--gpu-executor emu` (what the tests use). Findings have the race checker's
//! codes, lines and witness shape. `warpcheck run FILE --gpu --deterministic` runs the
//! launches privatised and merged in warp-id and block-id order.
//!
//! Launch lines share buffers by name, as in the emulator: each launch starts from the
//! buffers the previous ones left (merged in unit order).

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
    /// Run the kernel instrumented on an NVIDIA GPU: `check --gpu` checks for races between
    /// blocks and between warps (value-based two-pass checking, LD), `run --gpu
    /// --deterministic` runs racy kernels deterministically; needs a CUDA driver, not the
    /// toolkit.
    #[arg(long)]
    pub gpu: bool,
    /// What runs the instrumented kernel in `--gpu` mode: `cuda` (the GPU) or `emu` (the
    /// emulator, for machines without a GPU).
    #[arg(long, value_enum, default_value_t = GpuExecutorKind::Cuda, requires = "gpu")]
    pub gpu_executor: GpuExecutorKind,
    /// The most device memory one set of private copies may take (bytes, or with a K, M
    /// or G suffix; a round holds two sets). Default: half the device's free memory less
    /// the launch's buffers (4G with the emulator, at most a quarter of the host's
    /// available memory). Less than a copy per unit means memory-adaptive rounds.
    #[arg(long, value_name = "SIZE", value_parser = parse_size, requires = "gpu")]
    pub gpu_memory: Option<u64>,
    /// The most memory-adaptive rounds spent on checking every unit: a launch that needs
    /// more (and has more blocks than `--race-blocks`) watches a sample of its blocks,
    /// chosen as the CPU race checker chooses them.
    #[arg(long, value_name = "N", default_value_t = warpcheck_gpu::CheckOptions::DEFAULT_MAX_ROUNDS as u32,
          value_parser = clap::value_parser!(u32).range(1..), requires = "gpu")]
    pub gpu_rounds: u32,
}

/// Whether `WARPCHECK_GPU_PROFILE` asks for GPU mode's per-phase times.
fn profile_requested() -> bool {
    std::env::var_os("WARPCHECK_GPU_PROFILE").is_some_and(|v| !v.is_empty() && v != "0")
}

/// The host's available memory in bytes (`MemAvailable` of `/proc/meminfo`), where known.
fn host_available() -> Option<u64> {
    let text = std::fs::read_to_string("/proc/meminfo").ok()?;
    let line = text.lines().find(|l| l.starts_with("MemAvailable:"))?;
    let kib: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kib * 1024)
}

/// `1234`, `64K`, `512M`, `2G` (powers of 1024).
pub(crate) fn parse_size(s: &str) -> Result<u64, String> {
    let t = s.trim();
    let (digits, unit) = match t.char_indices().last() {
        Some((i, c)) if c.is_ascii_alphabetic() => (&t[..i], c.to_ascii_uppercase()),
        _ => (t, 'B'),
    };
    let shift = match unit {
        'B' => 0,
        'K' => 10,
        'M' => 20,
        'G' => 30,
        _ => return Err(format!("unknown size suffix in `{s}` (K, M or G)")),
    };
    let n: u64 = digits
        .parse()
        .map_err(|_| format!("`{s}` is not a size (bytes, or with K, M or G)"))?;
    n.checked_mul(1 << shift)
        .ok_or_else(|| format!("`{s}` is too large"))
}

#[derive(clap::ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum GpuExecutorKind {
    Cuda,
    Emu,
}

fn gpu_error(e: warpcheck_gpu::GpuError) -> CliError {
    CliError::msg(e.to_string())
}

/// What both GPU-mode commands need: the program, its launches, an executor.
struct Prepared {
    loaded: Loaded,
    program: Program,
    signatures: Vec<warpcheck_front::KernelSignature>,
    launches: Vec<LaunchSpec>,
    exec: Box<dyn Executor>,
    instrumented: HashMap<FuncId, Instrumented>,
    /// Buffers by name, as the previous launches left them.
    named: HashMap<String, Vec<u8>>,
    limits: warpcheck_emu::args::Limits,
}

fn prepare(
    compile: &input::CompileArgs,
    launch: &crate::commands::launch_args::LaunchArgs,
    source: &crate::commands::launch_args::LaunchSource,
    emu: &crate::commands::launch_args::EmuArgs,
    gpu: &GpuArgs,
) -> Result<Prepared, CliError> {
    let compiled = input::compile(compile)?;
    let mut signatures = compiled.signatures.clone();
    let loaded = input::load_compiled(compile, compiled)?;
    let program = input::lower(&loaded)?;
    let launches = source.select(compile, launch, &mut signatures)?;
    let opts = emu.options();
    let exec: Box<dyn Executor> = match gpu.gpu_executor {
        GpuExecutorKind::Cuda => Box::new(CudaExecutor::new(0).map_err(gpu_error)?),
        GpuExecutorKind::Emu => {
            let mut e = EmuExecutor::new();
            e.threads = opts.threads;
            e.budget = opts.budget;
            Box::new(e)
        }
    };
    Ok(Prepared {
        loaded,
        program,
        signatures,
        launches,
        exec,
        instrumented: HashMap::new(),
        named: HashMap::new(),
        limits: opts.limits,
    })
}

impl Prepared {
    /// The kernel of launch `l`, instrumented (once per kernel; its limit notes go to
    /// `findings` then), and the launch bound to buffers.
    fn launch(
        &mut self,
        l: &LaunchSpec,
        findings: &mut Vec<Finding>,
    ) -> Result<(FuncId, Launch), CliError> {
        let program = &self.program;
        let kernel = match &l.kernel {
            Some(k) => input::select_function(program, k)?,
            None => warpcheck_launch::only_kernel(program)?,
        };
        let f = program.function(kernel);
        let sig = self.signatures.iter().find(|s| s.mangled_name == f.name);
        if let std::collections::hash_map::Entry::Vacant(slot) = self.instrumented.entry(kernel) {
            // Scalars by the signature are not pointers; untyped `.u64`s may be.
            let is_pointer = |i: usize| {
                sig.and_then(|s| s.params.get(i)).is_none_or(|p| {
                    !matches!(
                        p.kind,
                        ParamKind::Scalar(_) | ParamKind::Vector(_) | ParamKind::Struct(_)
                    )
                })
            };
            let i =
                warpcheck_gpu::instrument_with(&self.loaded.module, program, kernel, &is_pointer)
                    .map_err(gpu_error)?;
            findings.extend(warpcheck_gpu::report::limits(&i, f.display_name()));
            slot.insert(i);
        }
        let gl = bind(program, kernel, sig, l, self.limits, &self.named)?;
        Ok((kernel, gl))
    }

    /// The private-copy limit for `launch`: `--gpu-memory`, else half of the device's
    /// free memory less the launch's buffers (three times: before, working, after pass 1)
    /// and a reserve for the run's own allocations, since a round holds two sets of
    /// copies (4 GiB with the emulator, whose copies are in host memory: at most a
    /// quarter of the host's available memory then).
    fn memory_limit(&self, gpu: &GpuArgs, launch: &Launch) -> warpcheck_gpu::CheckOptions {
        const RESERVE: u64 = 256 << 20;
        let max_private_bytes = gpu.gpu_memory.unwrap_or_else(|| {
            let needs: u64 = launch.buffers.iter().map(|b| b.bytes.len() as u64).sum();
            match self.exec.free_memory() {
                Some(free) => free.saturating_sub(3 * needs + RESERVE) / 2,
                None => {
                    let emu = warpcheck_gpu::CheckOptions::default().max_private_bytes;
                    host_available().map_or(emu, |host| emu.min(host / 4))
                }
            }
        });
        warpcheck_gpu::CheckOptions {
            max_private_bytes,
            max_rounds: gpu.gpu_rounds as usize,
            ..warpcheck_gpu::CheckOptions::default()
        }
    }

    /// Keeps a finished launch's buffers for the next launches.
    fn keep(&mut self, launch: Launch) {
        for b in launch.buffers {
            self.named.insert(b.name, b.bytes);
        }
    }
}

pub fn run(args: &Args) -> Result<Outcome, CliError> {
    let mut p = prepare(
        &args.compile,
        &args.launch,
        &args.source,
        &args.emu,
        &args.gpu,
    )?;
    let mut findings = Vec::new();
    let mut described = String::new();
    for (seq, l) in p.launches.clone().iter().enumerate() {
        let (kernel, mut gl) = p.launch(l, &mut findings)?;
        // Sampled as the race checker samples: seeded by the launch's position.
        let opts = warpcheck_gpu::CheckOptions {
            blocks: args.race_blocks,
            seed: seq as u64,
            ..p.memory_limit(&args.gpu, &gl)
        };
        let start = std::time::Instant::now();
        let inst = &p.instrumented[&kernel];
        let mut rounds = String::new();
        let verdict =
            warpcheck_gpu::passes::check_with(p.exec.as_mut(), inst, &mut gl, opts, &mut |r| {
                let _ = writeln!(
                    rounds,
                    "  round: {} private copies, {} races; P(a race between two units found by now) = {:.3} (LD Eq. 1)",
                    r.copies, r.races, r.probability
                );
            })
            .map_err(gpu_error)?;
        let f = p.program.function(kernel);
        let unit = if verdict.per_warp { "warps" } else { "blocks" };
        let checked = match verdict.sampled {
            Some(s) => format!("{} of {} {unit} watched (sampled)", s.units, verdict.units),
            None => format!("{} {unit} checked", verdict.units),
        };
        let _ = writeln!(
            described,
            "kernel {}  grid {}  block {}  shared {}: {checked}, {} runs on {} in {:.3} s",
            f.display_name(),
            l.grid,
            l.block,
            l.shared,
            verdict.runs,
            p.exec.describe(),
            start.elapsed().as_secs_f64()
        );
        if verdict.rounds.len() > 1 {
            described.push_str(&rounds);
        }
        if profile_requested() {
            let _ = writeln!(described, "  {}", verdict.profile.summary());
        }
        let locate = |inst| site_location(&p.program, p.loaded.ptx_text(), kernel, inst);
        findings.extend(warpcheck_gpu::report::findings(
            inst,
            &verdict,
            l.grid.0,
            f.display_name(),
            &locate,
        ));
        p.keep(gl);
    }
    output::relativize(&mut findings);
    render(args, &p.loaded, described, &findings)
}

/// `warpcheck run FILE --gpu --deterministic`: every launch privatised per unit and
/// merged in warp-id and block-id order (LD §4.6); prints the buffers as `run` does.
pub fn run_deterministic(args: &crate::commands::run::Args) -> Result<Outcome, CliError> {
    let mut p = prepare(
        &args.compile,
        &args.launch,
        &args.source,
        &args.emu,
        &args.gpu,
    )?;
    let mut notes = Vec::new();
    let mut out = String::new();
    let mut elems: HashMap<String, (warpcheck_emu::args::ElemType, usize)> = HashMap::new();
    for l in &p.launches.clone() {
        let (kernel, mut gl) = p.launch(l, &mut notes)?;
        let opts = p.memory_limit(&args.gpu, &gl);
        let start = std::time::Instant::now();
        warpcheck_gpu::passes::deterministic(
            p.exec.as_mut(),
            &p.instrumented[&kernel],
            &mut gl,
            opts,
        )
        .map_err(gpu_error)?;
        let _ = writeln!(
            out,
            "kernel {}  grid {}  block {}  shared {}: deterministic on {} in {:.3} s",
            p.program.function(kernel).display_name(),
            l.grid,
            l.block,
            l.shared,
            p.exec.describe(),
            start.elapsed().as_secs_f64()
        );
        for (name, e) in buffer_types(&p, kernel, l)? {
            elems.insert(name, e);
        }
        p.keep(gl);
    }
    out.push_str("buffers:\n");
    let mut names: Vec<&String> = p.named.keys().collect();
    names.sort();
    for name in names {
        let Some(&(elem, len)) = elems.get(name) else {
            continue;
        };
        let nb = warpcheck_launch::session::NamedBuffer {
            name: name.clone(),
            elem,
            len,
            address: 0,
            made_up: false,
        };
        let mut s = crate::commands::run::Summary::new(&nb);
        s.add(&p.named[name]);
        let _ = writeln!(out, "  {}", s.finish());
    }
    output::print(&out)?;
    Ok(Outcome::Clean)
}

/// A buffer's name, element type and length.
type BufferType = (String, (warpcheck_emu::args::ElemType, usize));

/// The element type and length of each buffer a launch binds.
fn buffer_types(p: &Prepared, kernel: FuncId, l: &LaunchSpec) -> Result<Vec<BufferType>, CliError> {
    let f = p.program.function(kernel);
    let sig = p.signatures.iter().find(|s| s.mangled_name == f.name);
    let slots = warpcheck_launch::bind::param_slots(&p.program, kernel, sig);
    let parsed = l
        .args
        .iter()
        .map(|a| parse_arg(a).map_err(CliError::msg))
        .collect::<Result<Vec<_>, _>>()?;
    let total = l.grid.count() * l.block.count();
    let bound = warpcheck_launch::bind::bind(&slots, &parsed, total, l.seed, p.limits)?;
    Ok(bound
        .buffers
        .into_iter()
        .map(|b| (b.name, (b.value.elem, b.value.len)))
        .collect())
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
            // What ran, and how long it took, goes to stderr so stdout stays JSON.
            eprint!("{described}");
            let mut value = json::render(shown);
            value["omitted"] = serde_json::json!(findings.len() - shown.len());
            format!("{value:#}\n")
        }
        Format::Sarif => {
            eprint!("{described}");
            format!("{:#}\n", sarif::render(shown, env!("CARGO_PKG_VERSION")))
        }
    };
    output::print(&rendered)?;
    Ok(if errors > 0 {
        Outcome::Code(args.error_exitcode)
    } else {
        Outcome::Clean
    })
}
