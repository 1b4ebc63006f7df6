//! `--timings`: where a program's time went. warpcheck measures the build and the
//! program's process (wall-clock time, and its CPU time as the operating system counts
//! it for a waited-for child); the runtime's report adds module loading, the API calls
//! and the launches' time in the emulator (`warpcheck_cudart::timing`). What remains of
//! the program's time once the launches and module loading are taken out is host code,
//! the runtime's API calls and the report at exit: divided by the API calls, it bounds
//! what one call costs.

use std::fmt::Write as _;

use serde_json::{Value, json};

/// What warpcheck measured around the program.
pub struct Measured {
    pub build_seconds: f64,
    pub wall_seconds: f64,
    pub cpu_seconds: f64,
}

/// CPU seconds (user + system) of the children this process has waited for.
pub fn children_cpu_seconds() -> f64 {
    // SAFETY: `getrusage` writes one `rusage` into the zeroed value it is given.
    let usage = unsafe {
        let mut u: libc::rusage = std::mem::zeroed();
        if libc::getrusage(libc::RUSAGE_CHILDREN, &mut u) != 0 {
            return 0.0;
        }
        u
    };
    let secs = |t: libc::timeval| t.tv_sec as f64 + t.tv_usec as f64 * 1e-6;
    secs(usage.ru_utime) + secs(usage.ru_stime)
}

impl Measured {
    /// The timings of the JSON output: these measurements, the runtime's, and the rest.
    pub fn with_runtime(&self, runtime: &Value) -> Value {
        let f = |k: &str| runtime[k].as_f64();
        let launch_wall = f("launch_seconds").unwrap_or(0.0);
        let load = f("load_seconds").unwrap_or(0.0);
        let calls = runtime["api_calls"].as_u64().unwrap_or(0);
        let rest_wall = (self.wall_seconds - launch_wall - load).max(0.0);
        let rest_cpu = f("launch_cpu_seconds")
            .zip(f("load_cpu_seconds"))
            .map(|(launches, load)| (self.cpu_seconds - launches - load).max(0.0));
        let per_call = |s: f64| (calls > 0).then(|| s / calls as f64);
        json!({
            "build_seconds": self.build_seconds,
            "program_wall_seconds": self.wall_seconds,
            "program_cpu_seconds": self.cpu_seconds,
            "load_seconds": load,
            "load_cpu_seconds": f("load_cpu_seconds"),
            "api_calls": calls,
            "launches": runtime["launches"].as_u64().unwrap_or(0),
            "launch_seconds": launch_wall,
            "launch_cpu_seconds": f("launch_cpu_seconds"),
            "rest_wall_seconds": rest_wall,
            "rest_cpu_seconds": rest_cpu,
            "rest_wall_seconds_per_call": per_call(rest_wall),
            "rest_cpu_seconds_per_call": rest_cpu.and_then(per_call),
        })
    }
}

/// The timings as text, one figure a line.
pub fn summary(t: &Value) -> String {
    let secs = |k: &str| {
        t[k].as_f64()
            .map_or("-".to_string(), |v| format!("{v:.3} s"))
    };
    let us = |k: &str| {
        t[k].as_f64()
            .map_or("-".to_string(), |v| format!("{:.2} us", v * 1e6))
    };
    let n = |k: &str| t[k].as_u64().unwrap_or(0);
    let rows = [
        (
            "build (compilation and link)".to_string(),
            secs("build_seconds"),
            String::new(),
        ),
        (
            "program".to_string(),
            secs("program_wall_seconds"),
            secs("program_cpu_seconds"),
        ),
        (
            "  module loading (PTX to IR)".to_string(),
            secs("load_seconds"),
            secs("load_cpu_seconds"),
        ),
        (
            format!("  {} launches in the emulator", n("launches")),
            secs("launch_seconds"),
            secs("launch_cpu_seconds"),
        ),
        (
            "  the rest: host code, API calls".to_string(),
            secs("rest_wall_seconds"),
            secs("rest_cpu_seconds"),
        ),
        (
            format!("  the rest per API call ({})", n("api_calls")),
            us("rest_wall_seconds_per_call"),
            us("rest_cpu_seconds_per_call"),
        ),
    ];
    let mut out =
        String::from("warpcheck: timings                             wall          CPU\n");
    for (what, wall, cpu) in rows {
        let _ = writeln!(out, "  {what:<38} {wall:>12} {cpu:>12}");
    }
    out
}
