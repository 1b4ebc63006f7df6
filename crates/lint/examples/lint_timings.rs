//! Lint timings over the corpus: every `warpcheck-launch:` line of every kernel file of
//! `tests/kernels` (or the files given), compiled with clang at -O3 and -O0, linted
//! `--repeat N` times (default 5); prints the fastest time of each launch and its phases
//! (analysis, coalescing/bank/divergence rules, race lint), slowest first, in wall time
//! and in the thread's CPU time (`CLOCK_THREAD_CPUTIME_ID`), which other jobs on a shared
//! machine disturb less. Compilation is not timed. See `docs/PERFORMANCE.md`.
//!
//! `cargo run --release -p warpcheck-lint --example lint_timings [-- --repeat N] [FILE...]`

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::Duration;

use warpcheck_front::{CompileOptions, CompilerChoice};
use warpcheck_lint::{Launch, LintOptions, LintTimings, lint_kernel_timed};

/// (kernel, launch, integer scalars) of each launch line.
fn launches(path: &Path) -> Vec<(String, Launch, BTreeMap<String, i128>)> {
    let file = warpcheck_corpus::KernelFile::read(path).unwrap_or_else(|e| panic!("{e}"));
    file.launches
        .iter()
        .map(|l| {
            let launch = Launch {
                grid: l.grid.0,
                block: l.block.0,
            };
            (l.kernel_name().to_string(), launch, l.int_scalars())
        })
        .collect()
}

/// CPU time of the calling thread.
fn thread_cpu() -> Duration {
    let mut ts = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: `ts` is a valid, writable timespec; the clock id is a constant.
    let rc = unsafe { libc::clock_gettime(libc::CLOCK_THREAD_CPUTIME_ID, &mut ts) };
    if rc != 0 {
        return Duration::ZERO;
    }
    Duration::new(ts.tv_sec as u64, ts.tv_nsec as u32)
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1e3
}

fn main() {
    let mut args: Vec<String> = std::env::args().skip(1).collect();
    let mut repeat = 5;
    if let Some(i) = args.iter().position(|a| a == "--repeat") {
        repeat = args.get(i + 1).and_then(|v| v.parse().ok()).unwrap_or(5);
        args.drain(i..(i + 2).min(args.len()));
    }
    let mut files: Vec<PathBuf> = args.iter().map(PathBuf::from).collect();
    if files.is_empty() {
        let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/kernels");
        files = warpcheck_corpus::kernel_files(&dir).unwrap_or_default();
    }
    let mut rows: Vec<(Duration, String)> = Vec::new();
    for path in &files {
        let lines = launches(path);
        let name = path.file_name().and_then(|f| f.to_str()).unwrap_or("?");
        for opt in [3u8, 0] {
            let options = CompileOptions {
                opt_level: opt,
                compiler: CompilerChoice::Clang,
                ..CompileOptions::default()
            };
            let Ok(compiled) = warpcheck_front::compile(path, &options) else {
                continue;
            };
            let parsed = warpcheck_ptx::parse(&compiled.ptx);
            let Ok(program) = warpcheck_ir::lower(&parsed.module) else {
                continue;
            };
            for (kernel, launch, scalars) in lines.clone() {
                let sig = compiled.signatures.iter().find(|s| {
                    s.name == kernel || s.demangled_name.starts_with(&format!("{kernel}("))
                });
                let mut ids = program.functions_named(&kernel);
                if ids.is_empty()
                    && let Some(sig) = sig
                {
                    ids = program.functions_named(&sig.mangled_name);
                }
                let Some(&k) = ids.first() else { continue };
                let param_names = compiled
                    .signatures
                    .iter()
                    .find(|s| s.mangled_name == program.function(k).name)
                    .map(|s| s.params.iter().map(|p| p.name.clone()).collect())
                    .unwrap_or_default();
                let opts = LintOptions {
                    param_names,
                    launch: Some(launch),
                    scalars,
                    granularity: warpcheck_lint::warp::Granularity::default(),
                    data_dependent: false,
                };
                let mut best: Option<(Duration, LintTimings)> = None;
                let mut best_cpu: Option<Duration> = None;
                for _ in 0..repeat.max(1) {
                    let start = std::time::Instant::now();
                    let cpu = thread_cpu();
                    let (_, t) = lint_kernel_timed(&program, k, &opts);
                    let total = start.elapsed();
                    let cpu = thread_cpu().saturating_sub(cpu);
                    if best.is_none_or(|(b, _)| total < b) {
                        best = Some((total, t));
                    }
                    if best_cpu.is_none_or(|b| cpu < b) {
                        best_cpu = Some(cpu);
                    }
                }
                if let (Some((total, t)), Some(cpu)) = (best, best_cpu) {
                    rows.push((
                        cpu,
                        format!(
                            "{name:<40} -O{opt} {kernel:<22} cpu {:>6.1} ms, wall {:>6.1} ms (analysis {:.1}, rules {:.1}, races {:.1})",
                            ms(cpu),
                            ms(total),
                            ms(t.analysis),
                            ms(t.rules),
                            ms(t.races)
                        ),
                    ));
                }
            }
        }
    }
    rows.sort_by_key(|r| std::cmp::Reverse(r.0));
    for (_, r) in &rows {
        println!("{r}");
    }
}
