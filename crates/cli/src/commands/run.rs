//! `warpcheck run FILE --grid … --block … --arg …`: run a kernel in the emulator and show
//! or save its buffers.

use crate::Outcome;
use crate::commands::launch_args::{EmuArgs, LaunchArgs, LaunchSource};
use crate::input::{self, CompileArgs};
use crate::output::{self, CliError};
use std::fmt::Write as _;
use std::io::IsTerminal;
use std::sync::mpsc;
use std::time::{Duration, Instant};
use warpcheck_emu::BlockProgress;
use warpcheck_emu::args::{ElemType, npy};
use warpcheck_launch::{NamedBuffer, Session, fault_finding};
use warpcheck_report::{Severity, Sources, text};

#[derive(clap::Args, Debug)]
pub struct Args {
    #[command(flatten)]
    pub compile: CompileArgs,
    #[command(flatten)]
    pub launch: LaunchArgs,
    #[command(flatten)]
    pub source: LaunchSource,
    /// Show a buffer (first and last elements, checksum), or write it to PATH: `.npy` for
    /// NumPy, anything else raw little-endian. Repeatable. Without --dump every buffer is
    /// summarised.
    #[arg(long, value_name = "NAME[=PATH]")]
    pub dump: Vec<String>,
    #[command(flatten)]
    pub emu: EmuArgs,
    #[command(flatten)]
    pub gpu: crate::commands::gpu_check::GpuArgs,
    /// With --gpu: run each launch with a private copy of its written buffers per warp
    /// (per block in kernels with barriers) and merge them in warp-id and block-id order,
    /// so a racy kernel gives the same output on every run (LD's safe execution).
    #[arg(long, requires = "gpu")]
    pub deterministic: bool,
}

pub fn run(args: Args) -> Result<Outcome, CliError> {
    if args.gpu.gpu {
        if !args.deterministic {
            return Err(CliError::msg(
                "`run --gpu` needs --deterministic (race checking on the GPU is `check --gpu`)",
            ));
        }
        if !args.dump.is_empty() {
            return Err(CliError::msg(
                "--dump is not supported with --gpu --deterministic; every buffer is summarised",
            ));
        }
        return crate::commands::gpu_check::run_deterministic(&args);
    }
    let compiled = input::compile(&args.compile)?;
    let mut signatures = compiled.signatures.clone();
    let loaded = input::load_compiled(&args.compile, compiled)?;
    let program = input::lower(&loaded)?;
    let launches = args
        .source
        .select(&args.compile, &args.launch, &mut signatures)?;
    let opts = args.emu.options();
    let mut session = Session::new(&program, &signatures);
    if std::io::stderr().is_terminal() {
        session.progress = Some(BlockProgress::new());
    }
    let mut out = String::new();
    let mut findings = Vec::new();
    for l in &launches {
        let report = with_progress_bar(&mut session, l.grid.count(), |s| s.launch(l, opts, None))?;
        let _ = writeln!(
            out,
            "kernel {}  grid {}  block {}  shared {}",
            report.kernel, l.grid, l.block, l.shared
        );
        for d in &report.described {
            let _ = writeln!(out, "  {d}");
        }
        let s = report.outcome.stats;
        let rate = s.lane_instructions as f64 / report.seconds.max(1e-9);
        let _ = writeln!(
            out,
            "  ran {} lane-instructions ({} warp-instructions) in {:.3} s{}: {:.2e} lane-instructions/s",
            s.lane_instructions,
            s.warp_instructions,
            report.seconds,
            warpcheck_launch::cpu_note(report.cpu_seconds),
            rate
        );
        out.push_str(&report.outcome.printf);
        for fault in &report.outcome.faults {
            findings.push(fault_finding(
                &program,
                &report.kernel,
                fault,
                loaded.ptx_text(),
                &report.buffers,
            ));
        }
        if report.outcome.fault_count > report.outcome.faults.len() {
            let _ = writeln!(
                out,
                "  {} blocks faulted; the first {} are reported",
                report.outcome.fault_count,
                report.outcome.faults.len()
            );
        }
    }
    out.push_str(&dump_buffers(
        &session,
        &args.dump,
        &[args.compile.file.as_path()],
    )?);
    output::print(&out)?;
    if findings.is_empty() {
        return Ok(Outcome::Clean);
    }
    let mut sources = Sources::new();
    sources.insert(loaded.ptx_name.clone(), loaded.ptx.clone());
    eprint!(
        "{}",
        text::render(&findings, &mut sources, std::io::stderr().is_terminal())
    );
    // A block stopped only by a made-up buffer's size is a note, not a kernel error.
    if findings.iter().all(|f| f.severity != Severity::Error) {
        return Ok(Outcome::Clean);
    }
    Ok(Outcome::Findings)
}

/// Runs `launch`, showing a bar of finished blocks on stderr if the session counts blocks
/// (only when stderr is a terminal) and the launch looks like it will take more than about
/// two seconds: after half a second, the time so far scaled by blocks total / blocks done
/// estimates the duration. Short launches never draw anything.
pub(crate) fn with_progress_bar<T>(
    session: &mut Session,
    total_blocks: u64,
    launch: impl FnOnce(&mut Session) -> T,
) -> T {
    let Some(progress) = session.progress.clone() else {
        return launch(session);
    };
    progress.reset();
    let (finished, wait) = mpsc::channel::<()>();
    std::thread::scope(|scope| {
        scope.spawn(move || watch_progress(&progress, total_blocks, &wait));
        let result = launch(session);
        drop(finished);
        result
    })
}

/// The progress bar's thread: polls the counter ten times a second until `finished` is
/// dropped.
fn watch_progress(progress: &BlockProgress, total_blocks: u64, finished: &mpsc::Receiver<()>) {
    const SHOW_AFTER: Duration = Duration::from_millis(500);
    const LONG_RUN_SECONDS: f64 = 2.0;
    let start = Instant::now();
    let mut bar: Option<indicatif::ProgressBar> = None;
    while let Err(mpsc::RecvTimeoutError::Timeout) =
        finished.recv_timeout(Duration::from_millis(100))
    {
        let done = progress.blocks_done();
        let elapsed = start.elapsed();
        match &bar {
            Some(b) => b.set_position(done),
            None if elapsed >= SHOW_AFTER => {
                let seconds = elapsed.as_secs_f64();
                let expected = if done == 0 {
                    f64::INFINITY
                } else {
                    seconds * total_blocks as f64 / done as f64
                };
                if expected > LONG_RUN_SECONDS {
                    let b = indicatif::ProgressBar::with_draw_target(
                        Some(total_blocks),
                        indicatif::ProgressDrawTarget::stderr(),
                    )
                    .with_elapsed(elapsed);
                    if let Ok(style) = indicatif::ProgressStyle::with_template(
                        "  blocks {pos}/{len} [{bar:30}] {elapsed_precise}, about {eta} left",
                    ) {
                        b.set_style(style.progress_chars("=> "));
                    }
                    b.set_position(done);
                    bar = Some(b);
                }
            }
            None => {}
        }
    }
    if let Some(b) = bar {
        b.finish_and_clear();
    }
}

/// An error while writing a dumped buffer: the file's, or reading the buffer.
enum DumpError {
    Io(std::io::Error),
    Launch(warpcheck_launch::LaunchError),
}

impl From<warpcheck_launch::LaunchError> for DumpError {
    fn from(e: warpcheck_launch::LaunchError) -> DumpError {
        DumpError::Launch(e)
    }
}

impl DumpError {
    fn into_io(self) -> std::io::Error {
        match self {
            DumpError::Io(e) => e,
            DumpError::Launch(e) => std::io::Error::other(e.to_string()),
        }
    }
}

/// `inputs`: files a `--dump` must not overwrite (the kernel file).
fn dump_buffers(
    session: &Session,
    dumps: &[String],
    inputs: &[&std::path::Path],
) -> Result<String, CliError> {
    let mut out = String::new();
    let wanted: Vec<(String, Option<String>)> = if dumps.is_empty() {
        session
            .buffers
            .iter()
            .map(|b| (b.name.clone(), None))
            .collect()
    } else {
        dumps
            .iter()
            .map(|d| match d.split_once('=') {
                Some((n, p)) => (n.to_string(), Some(p.to_string())),
                None => (d.clone(), None),
            })
            .collect()
    };
    if !wanted.is_empty() {
        out.push_str("buffers:\n");
    }
    for (name, path) in wanted {
        let b = session
            .buffers
            .iter()
            .find(|b| b.name == name)
            .ok_or_else(|| {
                let names: Vec<&str> = session.buffers.iter().map(|b| b.name.as_str()).collect();
                CliError::msg(format!(
                    "--dump {name}: no buffer of that name (buffers: {})",
                    names.join(", ")
                ))
            })?;
        match path {
            Some(p) => {
                output::write_file(std::path::Path::new(&p), inputs, |w| {
                    if p.ends_with(".npy") {
                        w.write_all(&npy::header(b.len, b.elem))?;
                    }
                    session
                        .read_chunks(b, |chunk| w.write_all(chunk).map_err(DumpError::Io))
                        .map_err(DumpError::into_io)
                })?;
                let _ = writeln!(
                    out,
                    "  {name}: wrote {} elements of {} to {p}",
                    b.len, b.elem
                );
            }
            None => {
                let mut s = Summary::new(b);
                session.read_chunks(b, |chunk| {
                    s.add(chunk);
                    Ok::<(), CliError>(())
                })?;
                let _ = writeln!(out, "  {}", s.finish());
            }
        }
    }
    Ok(out)
}

/// A buffer's summary, accumulated over its contents chunk by chunk: the first and last
/// four elements (all of them up to eight), the sum in element order and the FNV-1a hash
/// of the bytes.
pub struct Summary<'b> {
    buffer: &'b NamedBuffer,
    index: usize,
    first: Vec<String>,
    /// The last elements' bytes (at most four).
    last: std::collections::VecDeque<Vec<u8>>,
    sum: f64,
    fnv: u64,
}

impl<'b> Summary<'b> {
    pub fn new(buffer: &'b NamedBuffer) -> Summary<'b> {
        Summary {
            buffer,
            index: 0,
            first: Vec::new(),
            last: Default::default(),
            sum: 0.0,
            fnv: 0xcbf2_9ce4_8422_2325,
        }
    }

    /// Adds the next bytes (whole elements).
    pub fn add(&mut self, bytes: &[u8]) {
        let e = self.buffer.elem;
        let keep_first = if self.buffer.len <= 8 { 8 } else { 4 };
        for i in 0..bytes.len() / e.size() {
            if self.index < keep_first {
                self.first.push(format_elem(e, bytes, i));
            }
            self.index += 1;
            self.sum += elem_f64(e, bytes, i);
        }
        let size = e.size();
        let n = bytes.len() / size;
        for i in n.saturating_sub(4)..n {
            if self.last.len() == 4 {
                self.last.pop_front();
            }
            self.last
                .push_back(bytes[i * size..(i + 1) * size].to_vec());
        }
        for &x in bytes {
            self.fnv = (self.fnv ^ x as u64).wrapping_mul(0x0000_0100_0000_01b3);
        }
    }

    /// `name f32[n]  [a, b, c, … x, y, z]  sum=… fnv=…`
    pub fn finish(self) -> String {
        let b = self.buffer;
        let mut show = self.first;
        if b.len > 8 {
            show.push("…".into());
            show.extend(self.last.iter().map(|x| format_elem(b.elem, x, 0)));
        }
        format!(
            "{} {}[{}]  [{}]  sum={} fnv1a={:016x}",
            b.name,
            b.elem,
            b.len,
            show.join(", "),
            self.sum,
            self.fnv
        )
    }
}

fn elem_f64(e: ElemType, b: &[u8], i: usize) -> f64 {
    let s = e.size();
    let c = &b[i * s..i * s + s];
    match e {
        ElemType::F16 => half::f16::from_le_bytes([c[0], c[1]]).to_f64(),
        ElemType::F32 => f32::from_le_bytes([c[0], c[1], c[2], c[3]]) as f64,
        ElemType::F64 => f64::from_le_bytes(c.try_into().unwrap_or([0; 8])),
        ElemType::I8 => c[0] as i8 as f64,
        ElemType::U8 => c[0] as f64,
        ElemType::I16 => i16::from_le_bytes([c[0], c[1]]) as f64,
        ElemType::U16 => u16::from_le_bytes([c[0], c[1]]) as f64,
        ElemType::I32 => i32::from_le_bytes([c[0], c[1], c[2], c[3]]) as f64,
        ElemType::U32 => u32::from_le_bytes([c[0], c[1], c[2], c[3]]) as f64,
        ElemType::I64 => i64::from_le_bytes(c.try_into().unwrap_or([0; 8])) as f64,
        ElemType::U64 => u64::from_le_bytes(c.try_into().unwrap_or([0; 8])) as f64,
    }
}

fn format_elem(e: ElemType, b: &[u8], i: usize) -> String {
    let v = elem_f64(e, b, i);
    if e.is_float() {
        format!("{v}")
    } else {
        format!("{}", v as i128)
    }
}
