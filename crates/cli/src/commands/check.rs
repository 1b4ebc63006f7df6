//! `warpcheck check FILE [launch options] [--tool race,sync,mem,init,bank,coalesce|all]`:
//! run the kernel in the emulator under the dynamic checkers and report what they find.
//!
//! Conventions follow compute-sanitizer where they are good: `--tool`, `--print-limit`
//! (the most findings printed; the rest are counted), `--error-exitcode` (the exit code
//! when an error was found; 1 by default). Exit 2 means warpcheck could not check (bad
//! input, unsupported kernel).

use std::fmt::Write as _;
use std::io::IsTerminal;

use crate::Outcome;
use crate::commands::html_report;
use crate::commands::launch_args::{EmuArgs, LaunchArgs, LaunchSource};
use crate::commands::lint::Format;
use crate::input::{self, CompileArgs};
use crate::output::{self, CliError};
use warpcheck_check::{
    CheckOptions, Checker, IntraWarp, KernelTotals, RaceBlocks, ReportCx, Tools,
};
use warpcheck_launch::{Session, site_location};
use warpcheck_report::html::LaunchRow;
use warpcheck_report::{Code, Finding, Severity, Sources, json, sarif, text};

#[derive(clap::Args, Debug)]
pub struct Args {
    #[command(flatten)]
    pub compile: CompileArgs,
    #[command(flatten)]
    pub launch: LaunchArgs,
    #[command(flatten)]
    pub source: LaunchSource,
    /// The checkers: `all` or a comma-separated list of race, sync, mem, init, bank,
    /// coalesce.
    #[arg(long, default_value = "all", value_parser = Tools::parse)]
    pub tool: Tools,
    /// How lanes of one warp are ordered for race detection: `its` (independent thread
    /// scheduling, sm_70+: lanes race unless a __syncwarp orders them) or `lockstep`
    /// (pre-Volta warps).
    #[arg(long, value_enum, default_value_t = RaceModel::Its)]
    pub intra_warp: RaceModel,
    /// Which blocks of a big launch the race checker watches: `all`, or at most N blocks
    /// (the first and last along each grid dimension and pairs of neighbouring blocks;
    /// grids of at most N blocks are watched entirely). Every other checker sees every
    /// block. With `--gpu`, the blocks whose units get private copies when checking
    /// every unit would take more than `--gpu-rounds` rounds (`all`: never sampled).
    #[arg(long, default_value = "256", value_parser = RaceBlocks::parse)]
    pub race_blocks: RaceBlocks,
    /// Report write-write races whose writes all store the same value as errors
    /// (`shared-race`, `global-race`) instead of `benign-race` warnings.
    #[arg(long)]
    pub strict_races: bool,
    /// Output format.
    #[arg(long, value_enum, default_value_t = Format::Text)]
    pub format: Format,
    /// The most findings printed; the others are counted in the summary (0: no limit).
    #[arg(long, default_value_t = 100)]
    pub print_limit: usize,
    /// Exit code when an error was found.
    #[arg(long, default_value_t = 1)]
    pub error_exitcode: u8,
    /// Also write a report to PATH, in the format its extension names: `.json` or
    /// `.sarif` (every finding, whatever `--print-limit`), else a self-contained HTML
    /// page: the launches, the findings and each kernel's source with per-line
    /// executions, sectors per request and bank conflicts (the launches then run with a
    /// per-instruction profile).
    #[arg(long, value_name = "PATH", conflicts_with = "gpu")]
    pub report: Option<std::path::PathBuf>,
    #[command(flatten)]
    pub emu: EmuArgs,
    #[command(flatten)]
    pub gpu: crate::commands::gpu_check::GpuArgs,
}

#[derive(clap::ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum RaceModel {
    Its,
    Lockstep,
}

pub fn run(args: Args) -> Result<Outcome, CliError> {
    if args.gpu.gpu {
        return crate::commands::gpu_check::run(&args);
    }
    let compiled = input::compile(&args.compile)?;
    let mut signatures = compiled.signatures.clone();
    let loaded = input::load_compiled(&args.compile, compiled)?;
    let program = input::lower(&loaded)?;
    let launches = args
        .source
        .select(&args.compile, &args.launch, &mut signatures)?;
    let opts = args.emu.options();
    let mut checker = Checker::new(CheckOptions {
        tools: args.tool,
        intra_warp: match args.intra_warp {
            RaceModel::Its => IntraWarp::Independent,
            RaceModel::Lockstep => IntraWarp::LockStep,
        },
        race_blocks: args.race_blocks,
        strict_races: args.strict_races,
    });
    let report_format = args.report.as_deref().map(output::ReportFormat::of);
    if report_format == Some(output::ReportFormat::Html) {
        checker.profile = Some(warpcheck_check::heat::Profile::default());
    }
    let mut session = Session::new(&program, &signatures);
    if std::io::stderr().is_terminal() {
        session.progress = Some(warpcheck_emu::BlockProgress::new());
    }
    let mut described = String::new();
    let mut stats = Vec::new();
    let mut rows = Vec::new();
    for l in &launches {
        let report = crate::commands::run::with_progress_bar(&mut session, l.grid.count(), |s| {
            s.launch(l, opts, Some(&mut checker))
        })?;
        let _ = writeln!(
            described,
            "kernel {}  grid {}  block {}  shared {}",
            report.kernel, l.grid, l.block, l.shared
        );
        for d in &report.described {
            let _ = writeln!(described, "  {d}");
        }
        rows.push(LaunchRow {
            index: rows.len() + 1,
            kernel: report.kernel.clone(),
            grid: l.grid.0,
            block: l.block.0,
            shared: l.shared,
            lane_instructions: report.outcome.stats.lane_instructions,
            seconds: report.seconds,
            site: None,
            reused: false,
        });
        stats.push((
            report.kernel.clone(),
            report.outcome.stats,
            report.seconds,
            report.cpu_seconds,
        ));
    }
    let locate = |func, inst| site_location(&program, loaded.ptx_text(), func, inst);
    let cx = ReportCx {
        program: &program,
        locate: &locate,
    };
    // The kernel faults the enabled tools report, then each checker's findings.
    let mut findings = checker.findings(&cx);
    output::relativize(&mut findings);
    let totals = checker.totals();
    let errors = findings
        .iter()
        .filter(|f| f.severity == Severity::Error)
        .count();
    if let (Some(path), Some(format)) = (&args.report, report_format) {
        let inputs = [args.compile.file.as_path()];
        match format {
            output::ReportFormat::Html => {
                let mut sources = Sources::new();
                sources.insert(loaded.ptx_name.clone(), loaded.ptx.clone());
                let heat = warpcheck_check::heat::line_heat(&checker, &cx);
                let title = html_report::title(std::env::args_os().skip(1));
                html_report::write(path, &inputs, title, &rows, &findings, heat, &mut sources)?;
            }
            output::ReportFormat::Json => {
                let text = json_report(&findings, 0, &totals);
                output::write_file(path, &inputs, |w| w.write_all(text.as_bytes()))?;
            }
            output::ReportFormat::Sarif => {
                let text = format!(
                    "{:#}\n",
                    sarif::render(&findings, env!("CARGO_PKG_VERSION"))
                );
                output::write_file(path, &inputs, |w| w.write_all(text.as_bytes()))?;
            }
        }
    }
    let shown: &[Finding] = if args.print_limit > 0 && findings.len() > args.print_limit {
        &findings[..args.print_limit]
    } else {
        &findings
    };
    let rendered = match args.format {
        Format::Text => {
            let mut sources = Sources::new();
            sources.insert(loaded.ptx_name.clone(), loaded.ptx.clone());
            let color = std::io::stdout().is_terminal();
            let mut out = described;
            out.push_str(&text::render(shown, &mut sources, color));
            if shown.len() < findings.len() {
                let _ = writeln!(
                    out,
                    "{} more findings not shown (--print-limit {})",
                    findings.len() - shown.len(),
                    args.print_limit
                );
            }
            out.push_str(&summary_table(&totals, &stats, &findings));
            out
        }
        Format::Json => json_report(shown, findings.len() - shown.len(), &totals),
        Format::Sarif => format!("{:#}\n", sarif::render(shown, env!("CARGO_PKG_VERSION"))),
    };
    output::print(&rendered)?;
    if errors > 0 {
        Ok(Outcome::Code(args.error_exitcode))
    } else {
        Ok(Outcome::Clean)
    }
}

/// `check`'s JSON: `{"findings", "summary"}` of every renderer, plus the number of
/// findings left out and the per-kernel totals.
fn json_report(shown: &[Finding], omitted: usize, totals: &[KernelTotals]) -> String {
    let mut value = json::render(shown);
    value["omitted"] = serde_json::json!(omitted);
    value["kernels"] = serde_json::json!(totals);
    format!("{value:#}\n")
}

/// The per-kernel summary: launches, work, findings by code, memory-traffic counts.
fn summary_table(
    totals: &[KernelTotals],
    stats: &[(String, warpcheck_emu::Stats, f64, Option<f64>)],
    findings: &[Finding],
) -> String {
    let mut out = String::from("\nsummary:\n");
    for k in totals {
        let (lane, secs, blocks, cpu) = stats.iter().filter(|(n, _, _, _)| *n == k.kernel).fold(
            (0u64, 0f64, 0u64, Some(0f64)),
            |(a, b, c, d), (_, s, t, u)| {
                (
                    a + s.lane_instructions,
                    b + t,
                    c + s.blocks,
                    d.zip(*u).map(|(d, u)| d + u),
                )
            },
        );
        let mut by_code: Vec<(Code, u64)> = Vec::new();
        for f in findings
            .iter()
            .filter(|f| f.kernel.as_deref() == Some(k.kernel.as_str()))
        {
            match by_code.iter_mut().find(|(c, _)| *c == f.code) {
                Some((_, n)) => *n += 1,
                None => by_code.push((f.code, 1)),
            }
        }
        let found = if by_code.is_empty() {
            "no findings".to_string()
        } else {
            by_code
                .iter()
                .map(|(c, n)| format!("{n} {c}"))
                .collect::<Vec<_>>()
                .join(", ")
        };
        let _ = writeln!(
            out,
            "  {}: {} launch(es), {} blocks, {} lane-instructions in {:.3} s{}; {}",
            k.kernel,
            k.launches,
            blocks,
            lane,
            secs,
            warpcheck_launch::cpu_note(cpu),
            found
        );
        let _ = writeln!(
            out,
            "    shared: {} load / {} store wavefronts, {} / {} bank conflicts",
            k.shared_load_wavefronts,
            k.shared_store_wavefronts,
            k.shared_load_bank_conflicts,
            k.shared_store_bank_conflicts
        );
        let _ = writeln!(
            out,
            "    global: {} load / {} store requests, {} / {} sectors",
            k.global_load_requests,
            k.global_store_requests,
            k.global_load_sectors,
            k.global_store_sectors
        );
    }
    out
}
