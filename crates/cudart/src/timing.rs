//! Where a program's time goes, for `warpcheck run|check --timings`: the report's
//! `"timings"` object says how long the runtime has existed (from the first
//! registration constructor to the report), how long loading the modules took (parsing
//! and lowering their PTX), how many API calls the program made, and how much wall-clock
//! and CPU time its launches spent in the emulator. The CLI adds the program's own wall
//! and CPU time as the operating system measured them, and prints the rest — host code,
//! the runtime's API calls, the report — in total and per API call.
//!
//! The counts and wall-clock times are always kept (a counter and two clock reads per
//! launch). A launch's CPU time (every thread of the process, so the emulator's worker
//! threads too) costs a system call on each side of it, so it is measured only when the
//! CLI asks (`WARPCHECK_CUDART_TIMINGS=1`).

use std::time::Instant;

/// The runtime's clocks and counters.
pub struct Timings {
    /// When the runtime was created (the first registration constructor).
    pub start: Instant,
    /// Wall-clock seconds spent loading modules (parsing and lowering PTX).
    pub load_seconds: f64,
    /// CPU seconds of the same, when launches measure theirs.
    pub load_cpu_seconds: Option<f64>,
    /// Calls of the runtime API's functions that return a `cudaError_t` (those
    /// not implemented included), except the registration entry points and the steps of
    /// a `<<<>>>` launch before the launch itself (the push and pop of its configuration,
    /// or the legacy protocol's `cudaConfigureCall` and `cudaSetupArgument`): a `<<<>>>`
    /// launch counts once, as its `cudaLaunchKernel` or `cudaLaunch`.
    pub api_calls: u64,
    /// Whether launches measure their CPU time.
    pub launch_cpu: bool,
}

impl Timings {
    pub fn new(launch_cpu: bool) -> Timings {
        Timings {
            start: Instant::now(),
            load_seconds: 0.0,
            load_cpu_seconds: launch_cpu.then_some(0.0),
            api_calls: 0,
            launch_cpu,
        }
    }

    /// Adds a module load that started at `wall` (and `cpu`, from [`Timings::launch_clock`]).
    pub fn add_load(&mut self, wall: Instant, cpu: Option<f64>) {
        self.load_seconds += wall.elapsed().as_secs_f64();
        let now = self.launch_clock();
        if let (Some(total), Some(start), Some(now)) = (&mut self.load_cpu_seconds, cpu, now) {
            *total += now - start;
        }
    }

    /// The process's CPU time now, when launches measure it.
    pub fn launch_clock(&self) -> Option<f64> {
        self.launch_cpu.then(process_cpu_seconds)
    }
}

/// CPU seconds (user + system) the process has used, all threads together.
pub fn process_cpu_seconds() -> f64 {
    let mut t = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: `t` is a valid timespec to write; the clock id is a constant the C library
    // knows.
    let r = unsafe { libc::clock_gettime(libc::CLOCK_PROCESS_CPUTIME_ID, &mut t) };
    if r != 0 {
        return 0.0;
    }
    t.tv_sec as f64 + t.tv_nsec as f64 * 1e-9
}
