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

fn dims(s: &str) -> [u32; 3] {
    let mut d = [1u32; 3];
    for (i, p) in s.split(',').enumerate().take(3) {
        d[i] = p.trim().parse().unwrap_or(1);
    }
    d
}

/// (kernel, launch, integer scalars) of each launch line.
fn launches(text: &str) -> Vec<(String, Launch, BTreeMap<String, i128>)> {
    let mut out = Vec::new();
    for line in text.lines().take_while(|l| l.starts_with("//")) {
        let Some(rest) = line.strip_prefix("// warpcheck-launch:") else {
            continue;
        };
        let words: Vec<&str> = rest.split_whitespace().collect();
        let (mut kernel, mut grid, mut block) = (String::new(), [1; 3], [1; 3]);
        let mut scalars = BTreeMap::new();
        for w in words.windows(2) {
            match w[0] {
                "--kernel" => kernel = w[1].to_string(),
                "--grid" => grid = dims(w[1]),
                "--block" => block = dims(w[1]),
                "--arg" => {
                    if let Some((n, v)) = w[1].split_once('=')
                        && let Ok(v) = v.parse::<i128>()
                    {
                        scalars.insert(n.to_string(), v);
                    }
                }
                _ => {}
            }
        }
        out.push((kernel, Launch { grid, block }, scalars));
    }
    out
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
        files = std::fs::read_dir(&dir)
            .map(|d| d.filter_map(|e| e.ok().map(|e| e.path())).collect())
            .unwrap_or_default();
        files.retain(|p| p.extension().is_some_and(|e| e == "cu" || e == "cl"));
        files.sort();
    }
    let mut rows: Vec<(Duration, String)> = Vec::new();
    for path in &files {
        let text = std::fs::read_to_string(path).unwrap_or_default();
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
            for (kernel, launch, scalars) in launches(&text) {
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
