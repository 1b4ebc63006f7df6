//! Findings of a program run and the report written at exit.
//!
//! Host-side findings (API errors, bad copies, frees, leaks, functions not supported) are
//! made when they happen, located at the caller's line; kernel faults when the launch
//! ends; the checkers' findings at exit. Every kernel finding names its launch (kernel,
//! launch index, grid, block) and the host line of the `<<<>>>`; identical findings of
//! repeated launches are merged into one with a count. At exit the report is written as
//! JSON (`{"findings", "summary", "launches", "not_supported"}`, and `"heat"` with a
//! profile) to the path the CLI gave,
//! or rendered as text on stderr when the program runs without the CLI.

use std::collections::{BTreeSet, HashMap};

use warpcheck_report::{Code, Finding, Location, Severity, json};

use crate::host_line::CallSite;
use crate::state::{self, LaunchRecord, Runtime};

/// Findings merged by identity (code, message, locations).
#[derive(Default)]
pub struct Findings {
    pub list: Vec<Finding>,
    index: HashMap<String, usize>,
    /// Functions called that this runtime does not implement, by name.
    pub not_supported: BTreeSet<String>,
}

impl Findings {
    /// Adds a finding, or counts it again when an identical one exists.
    pub fn add(&mut self, f: Finding) {
        let key = format!(
            "{}|{}|{:?}|{:?}",
            f.code,
            f.message,
            f.primary.as_ref().map(|l| &l.location),
            f.related.first().map(|l| &l.location)
        );
        match self.index.get(&key) {
            Some(&i) => self.list[i].occurrences += f.occurrences,
            None => {
                self.index.insert(key, self.list.len());
                self.list.push(f);
            }
        }
    }
}

impl Runtime {
    /// The user's source line of a call stack.
    pub fn line(&self, site: &CallSite) -> Option<Location> {
        site.resolve(self.config.shim_dir.as_deref())
    }

    /// A host-side finding at the caller's line.
    pub fn host_finding(
        &mut self,
        code: Code,
        severity: Severity,
        message: String,
        site: &CallSite,
        label: &str,
    ) -> Finding {
        let mut f = Finding::new(code, severity, message);
        if let Some(at) = self.line(site) {
            f = f.at(at, label.to_string());
        }
        f
    }

    /// Reports an API call that failed, as compute-sanitizer does: the call's name, the
    /// error and the host line.
    pub fn api_error(&mut self, call: &str, code: i32, why: String) {
        let site = CallSite::capture();
        let name = crate::types::error_name(code);
        let f = self
            .host_finding(
                Code::ApiError,
                Severity::Error,
                format!("{call} returned {name}: {why}"),
                &site,
                format!("{call} fails here").as_str(),
            )
            .help("check the result of every CUDA API call; the program went on after this error");
        self.findings.add(f);
    }

    /// Records a function that is not implemented (once per name).
    pub fn not_supported(&mut self, name: &str) {
        self.not_supported_returning(name, "cudaErrorNotSupported");
    }

    /// Records a function (or a variant of one) that is not implemented, once per name,
    /// saying which error it returned.
    pub fn not_supported_returning(&mut self, name: &str, returned: &str) {
        if self.findings.not_supported.insert(name.to_string()) {
            let site = CallSite::capture();
            let f = self
                .host_finding(
                    Code::ApiNotSupported,
                    Severity::Error,
                    format!("{name} is not supported by warpcheck's CUDA runtime; it returned {returned}"),
                    &site,
                    "called here",
                )
                .help("see the table of supported functions in warpcheck's program-mode documentation");
            self.findings.add(f);
        }
    }

    /// Adds the launch that ran a kernel finding: a related label at the `<<<>>>` line and
    /// a note with the configuration.
    pub fn attach_launch(&self, mut f: Finding, index: usize, count: usize) -> Finding {
        let l: &LaunchRecord = &self.launches[index];
        let what = format!(
            "launch {} of `{}`: grid ({},{},{}), block ({},{},{}), {} bytes of dynamic shared memory",
            index + 1,
            l.kernel,
            l.grid[0],
            l.grid[1],
            l.grid[2],
            l.block[0],
            l.block[1],
            l.block[2],
            l.shared
        );
        if let Some(at) = self.line(&l.site) {
            f = f.related(at, format!("kernel launched here ({what})"));
        } else {
            f = f.note(what);
        }
        if count > 1 {
            f = f.note(format!("`{}` was launched {count} times", l.kernel));
        }
        f
    }

    /// Reports device memory still allocated (`--leak-check full`), once.
    pub fn check_leaks(&mut self) {
        if !self.config.leak_check || self.leaks_checked {
            return;
        }
        self.leaks_checked = true;
        let live: Vec<_> = self
            .allocs
            .iter()
            .filter(|(_, a)| a.freed.is_none())
            .map(|(&b, a)| (b, a.clone()))
            .collect();
        for (base, a) in live {
            let f = self
                .host_finding(
                    Code::Leak,
                    Severity::Error,
                    format!(
                        "{} bytes of device memory at {base:#x} were never freed",
                        a.size
                    ),
                    &a.site,
                    format!("allocated here by {}", a.kind.api()).as_str(),
                )
                .help("free it with cudaFree before the program ends");
            self.findings.add(f);
        }
    }

    /// Every finding: host-side ones and kernel faults, then the checkers' (with their
    /// launches).
    fn all_findings(&mut self) -> Vec<Finding> {
        self.check_leaks();
        let mut out = std::mem::take(&mut self.findings.list);
        for m in 0..self.modules.len() {
            let module = &self.modules[m];
            let Some(checker) = &module.checker else {
                continue;
            };
            let locate = |func, inst| crate::locate::site_location(module, func, inst);
            let cx = warpcheck_check::ReportCx {
                program: &module.program,
                locate: &locate,
            };
            // Kernel faults are already findings of their launch (`launch.rs`); the
            // checkers add their own.
            for f in checker.observed_findings(&cx) {
                let kernel = f.kernel.clone().unwrap_or_default();
                let runs: Vec<usize> = (0..self.launches.len())
                    .filter(|&i| self.launches[i].kernel == kernel)
                    .collect();
                out.push(match runs.first() {
                    Some(&first) => self.attach_launch(f, first, runs.len()),
                    None => f,
                });
            }
        }
        if self.config.check.is_some() {
            out.extend(self.reuse_notes());
        }
        out
    }

    /// One note per kernel some of whose launches reused an identical earlier launch, at
    /// the first reused launch.
    fn reuse_notes(&self) -> Vec<Finding> {
        let mut out = Vec::new();
        // The first reused launch of each kernel, in launch order.
        let mut firsts: Vec<usize> = Vec::new();
        for (i, l) in self.launches.iter().enumerate().filter(|(_, l)| l.reused) {
            if !firsts.iter().any(|&f| self.launches[f].kernel == l.kernel) {
                firsts.push(i);
            }
        }
        for first in firsts {
            let kernel = &self.launches[first].kernel;
            let of_kernel = || self.launches.iter().filter(|l| &l.kernel == kernel);
            let (runs, n) = (
                of_kernel().count(),
                of_kernel().filter(|l| l.reused).count(),
            );
            let mut f = Finding::new(
                Code::IdenticalLaunches,
                Severity::Note,
                format!(
                    "{n} of {runs} launches of `{kernel}` repeated an earlier launch exactly (same configuration, arguments and device memory) and were not run again: their findings are the earlier launch's, and counts cover the {} launches that ran",
                    runs - n
                ),
            )
            .help("pass --rerun-identical to run every launch");
            if let Some(at) = self.line(&self.launches[first].site) {
                f = f.at(at, format!("launch {} is the first reused one", first + 1));
            }
            out.push(f);
        }
        out
    }

    /// The per-line heat of every module's kernels (for the HTML report).
    fn line_heat(&self) -> Vec<warpcheck_report::html::SourceHeat> {
        let mut out = Vec::new();
        for module in &self.modules {
            let Some(checker) = &module.checker else {
                continue;
            };
            let locate = |func, inst| crate::locate::site_location(module, func, inst);
            let cx = warpcheck_check::ReportCx {
                program: &module.program,
                locate: &locate,
            };
            out.extend(warpcheck_check::heat::line_heat(checker, &cx));
        }
        out
    }

    /// The report's `"timings"` ([`crate::timing`]), as they stand now.
    fn timings_json(&self) -> serde_json::Value {
        let t = &self.timings;
        let launch_cpu: Option<f64> = t.launch_cpu.then(|| {
            self.launches
                .iter()
                .filter_map(|l| l.cpu_seconds)
                .fold(0.0, |a, b| a + b)
        });
        serde_json::json!({
            "wall_seconds": t.start.elapsed().as_secs_f64(),
            "cpu_seconds": crate::timing::process_cpu_seconds(),
            "load_seconds": t.load_seconds,
            "load_cpu_seconds": t.load_cpu_seconds,
            "api_calls": t.api_calls,
            "launches": self.launches.len(),
            "launch_seconds": self.launches.iter().fold(0.0, |a, l| a + l.seconds),
            "launch_cpu_seconds": launch_cpu,
        })
    }

    /// The report as JSON.
    pub fn report_json(&mut self) -> serde_json::Value {
        let timings = self.timings_json();
        let findings = self.all_findings();
        let mut value = json::render(&findings);
        // A loop's launches share their call stack: each stack is resolved once.
        let mut lines: HashMap<&CallSite, Option<Location>> = HashMap::new();
        let mut launches: Vec<serde_json::Value> = Vec::with_capacity(self.launches.len());
        for l in &self.launches {
            let at = lines
                .entry(&l.site)
                .or_insert_with(|| self.line(&l.site))
                .as_ref();
            let mut launch = serde_json::json!({
                "kernel": l.kernel,
                "grid": l.grid,
                "block": l.block,
                "shared": l.shared,
                "file": at.map(|a| a.file.clone()),
                "line": at.map(|a| a.line),
                "lane_instructions": l.lane_instructions,
                "seconds": l.seconds,
            });
            if let Some(cpu) = l.cpu_seconds {
                launch["cpu_seconds"] = serde_json::json!(cpu);
            }
            if l.reused {
                launch["reused"] = serde_json::json!(true);
            }
            launches.push(launch);
        }
        value["launches"] = serde_json::json!(launches);
        value["timings"] = timings;
        if self.config.profile {
            value["heat"] = serde_json::json!(self.line_heat());
        }
        value["not_supported"] = serde_json::json!(self.findings.not_supported);
        value
    }
}

/// Writes the report once, at process exit.
extern "C" fn write_report_at_exit() {
    state::with(|rt| {
        let value = rt.report_json();
        match rt.config.report.clone() {
            Some(path) => {
                if let Err(e) = std::fs::write(&path, format!("{value:#}\n")) {
                    eprintln!("warpcheck: cannot write the report to {path}: {e}");
                }
            }
            None => {
                if let Some(list) = value["findings"].as_array()
                    && !list.is_empty()
                {
                    eprintln!("warpcheck: {value:#}");
                }
            }
        }
    });
}

/// Registers [`write_report_at_exit`] with `atexit` (so it also runs on `exit()`).
pub fn install_exit_hook() {
    // SAFETY: registers a function that takes no arguments and does not unwind (state::with
    // recovers a poisoned lock; serialisation and file errors are handled).
    unsafe {
        libc::atexit(write_report_at_exit);
    }
}
