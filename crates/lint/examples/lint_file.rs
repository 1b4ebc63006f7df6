//! Lints one kernel of a file and prints the findings with their notes: a debugging aid
//! until `warpcheck lint` is wired into the command line.
//!
//! `cargo run -p warpcheck-lint --example lint_file -- FILE.cu KERNEL [-O0] [--block X,Y,Z]
//! [--grid X,Y,Z] [--arg n=VALUE]...`

use std::collections::BTreeMap;

use warpcheck_front::{CompileOptions, CompilerChoice};
use warpcheck_lint::{Launch, LintOptions, lint_kernel_timed};

fn dims(s: &str) -> [u32; 3] {
    let mut d = [1u32; 3];
    for (i, p) in s.split(',').enumerate().take(3) {
        d[i] = p.trim().parse().unwrap_or(1);
    }
    d
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let (Some(file), Some(kernel)) = (args.first(), args.get(1)) else {
        eprintln!(
            "usage: lint_file FILE KERNEL [-O0] [--block X,Y,Z] [--grid X,Y,Z] [--arg n=V]..."
        );
        std::process::exit(2);
    };
    let mut opt = 3;
    let (mut block, mut grid) = (None, None);
    let mut scalars = BTreeMap::new();
    let mut i = 2;
    while i < args.len() {
        match args[i].as_str() {
            "-O0" => opt = 0,
            "--block" => {
                block = args.get(i + 1).map(|s| dims(s));
                i += 1;
            }
            "--grid" => {
                grid = args.get(i + 1).map(|s| dims(s));
                i += 1;
            }
            "--arg" => {
                if let Some((n, v)) = args.get(i + 1).and_then(|a| a.split_once('='))
                    && let Ok(v) = v.parse()
                {
                    scalars.insert(n.to_string(), v);
                }
                i += 1;
            }
            _ => {}
        }
        i += 1;
    }
    let options = CompileOptions {
        opt_level: opt,
        compiler: CompilerChoice::Clang,
        ..CompileOptions::default()
    };
    let compiled = match warpcheck_front::compile(file.as_ref(), &options) {
        Ok(c) => c,
        Err(e) => {
            eprintln!("{e}");
            std::process::exit(2);
        }
    };
    let parsed = warpcheck_ptx::parse(&compiled.ptx);
    let Ok(program) = warpcheck_ir::lower(&parsed.module) else {
        eprintln!("lowering failed");
        std::process::exit(2);
    };
    let Some(&k) = program.functions_named(kernel).first() else {
        eprintln!("no kernel {kernel}");
        std::process::exit(2);
    };
    let names: Vec<String> = compiled
        .signatures
        .iter()
        .find(|s| s.mangled_name == program.function(k).name)
        .map(|s| s.params.iter().map(|p| p.name.clone()).collect())
        .unwrap_or_default();
    if std::env::var_os("LINT_DEBUG").is_some()
        && let Some(a) = warpcheck_lint::analyze(
            &program,
            k,
            warpcheck_lint::AnalysisOptions {
                param_names: names.clone(),
                widen_above: None,
            },
        )
    {
        for (i, l) in a.loops.iter().enumerate() {
            println!(
                "loop {i}: header {:?} parent {:?} exit deps {}",
                l.header, l.parent, l.exit_deps
            );
            for r in &l.recurrences {
                println!("  recurrence {} = {} step {:?}", r.symbol, r.init, r.step);
            }
            for (loc, init, step) in &l.inductions {
                println!("  induction {loc:?} = {init} + {step}·k");
            }
            for e in &l.exits {
                println!("  exit from {:?} when {}", e.block, e.cond);
            }
            println!(
                "  trip {:?} finals {:?}",
                l.trip.as_ref().map(|s| s.to_string()),
                l.finals
                    .iter()
                    .map(|(a, b)| format!("{a}={b}"))
                    .collect::<Vec<_>>()
            );
        }
        for acc in &a.accesses {
            println!(
                "{:?} {:?} {:?} [{}] when {} loops {:?}",
                acc.inst, acc.kind, acc.space, acc.addr, acc.cond, acc.loops
            );
        }
    }
    let launch = block.map(|b| Launch {
        block: b,
        grid: grid.unwrap_or([1, 1, 1]),
    });
    let start = std::time::Instant::now();
    let (findings, timings) = lint_kernel_timed(
        &program,
        k,
        &LintOptions {
            param_names: names,
            launch,
            scalars,
            granularity: Default::default(),
            data_dependent: false,
        },
    );
    let elapsed = start.elapsed();
    for f in &findings {
        let at = f
            .primary
            .as_ref()
            .map_or(String::new(), |p| p.location.to_string());
        println!("{at}: {}: {} [{}]", f.severity.name(), f.message, f.code);
        for n in &f.notes {
            println!("    note: {n}");
        }
        if let Some(h) = &f.help {
            println!("    help: {h}");
        }
    }
    println!(
        "linted in {:.1} ms (analysis {:.1} ms, coalescing/banks/divergence {:.1} ms, races {:.1} ms)",
        elapsed.as_secs_f64() * 1000.0,
        timings.analysis.as_secs_f64() * 1000.0,
        timings.rules.as_secs_f64() * 1000.0,
        timings.races.as_secs_f64() * 1000.0
    );
}
