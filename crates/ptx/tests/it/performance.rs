//! Large inputs: about 1 MB and 4 MB of PTX (the samples concatenated) parse without
//! errors, and the test prints the parse rate of each (a figure, not an assertion:
//! `cargo test -p warpcheck-ptx --release --test it performance:: -- --nocapture`; the
//! rate is in docs/PERFORMANCE.md).

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
fn large_inputs_parse_and_the_parse_rate_is_printed() {
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
}
