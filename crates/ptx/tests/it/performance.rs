//! Parsing speed: about 1 MB of PTX (the samples concatenated) must parse in well under
//! 100 ms in a release build, and parse time must grow linearly with the input.
//!
//! Timing assertions only run in optimised builds (`cargo test -p warpcheck-ptx --release
//! --test performance`); debug builds only check that the large input parses.

use std::time::{Duration, Instant};

use warpcheck_ptx::parse;

fn samples_concatenated(min_bytes: usize) -> String {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/clang");
    let mut paths: Vec<_> = std::fs::read_dir(root)
        .expect("test data directory exists")
        .map(|e| e.expect("readable directory entry").path())
        .filter(|p| p.extension().is_some_and(|e| e == "ptx"))
        .collect();
    paths.sort();
    let texts: Vec<String> = paths
        .iter()
        .map(|p| std::fs::read_to_string(p).expect("sample is UTF-8"))
        .collect();
    let mut out = String::with_capacity(min_bytes + 100_000);
    while out.len() < min_bytes {
        for text in &texts {
            out.push_str(text);
            out.push('\n');
        }
    }
    out
}

/// The fastest of a few runs, to keep other load on the machine out of the measurement.
fn best_time(text: &str, runs: usize) -> Duration {
    (0..runs)
        .map(|_| {
            let start = Instant::now();
            let parsed = parse(text);
            let elapsed = start.elapsed();
            assert!(parsed.errors.is_empty(), "{:?}", &parsed.errors[..1]);
            assert!(!parsed.module.items.is_empty());
            elapsed
        })
        .min()
        .expect("at least one run")
}

#[test]
fn one_megabyte_parses_fast_and_time_grows_linearly() {
    let one_mb = samples_concatenated(1 << 20);
    let four_mb = samples_concatenated(4 << 20);
    let small = best_time(&one_mb, 3);
    let large = best_time(&four_mb, 3);
    eprintln!(
        "parse: {} bytes in {small:?} ({:.0} MB/s); {} bytes in {large:?}",
        one_mb.len(),
        one_mb.len() as f64 / small.as_secs_f64() / 1e6,
        four_mb.len()
    );
    if cfg!(debug_assertions) {
        return;
    }
    assert!(small < Duration::from_millis(100), "1 MB took {small:?}");
    // Four times the input may take at most eight times as long (linear with slack for
    // caches and allocation), which a quadratic step would exceed.
    let ratio =
        large.as_secs_f64() / small.as_secs_f64() * one_mb.len() as f64 / four_mb.len() as f64;
    assert!(
        ratio < 2.0,
        "time per byte grew {ratio:.2}x from 1 MB to 4 MB"
    );
}
