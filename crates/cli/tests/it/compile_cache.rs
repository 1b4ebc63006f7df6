//! The compile cache, as a user sees it: a second `warpcheck run` of an unchanged `.cu` or
//! `.cl` file does not start the compiler and prints the same; editing the file or a header
//! it includes, or `--no-cache`, compiles again; a damaged entry is a miss.
//!
//! clang is reached through a wrapper script (`WARPCHECK_CLANG`) that logs every call, so
//! the test counts compilations (every call but `--version`, which discovery makes). nvcc
//! (`--compiler nvcc`) is reached the same way through a wrapper named `nvcc` first on
//! `PATH`, which starts the nvcc warpcheck would have found: a system one on `PATH`, else
//! the one of NVIDIA's wheels that `tools/setup.sh` installs.

use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::process::Command;

const HEADER: &str = "#define SCALE 2.0f\n";

const CUDA: &str = r#"#include "scale.h"
__global__ void scale(const float* x, float* y, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        y[i] = SCALE * x[i];
    }
}
"#;

const OPENCL: &str = r#"__kernel void twice(__global const int* x, __global int* y, int n)
{
    int i = get_global_id(0);
    if (i < n) {
        y[i] = 2 * x[i];
    }
}
"#;

struct Setup {
    dir: tempfile::TempDir,
    /// The environment that makes warpcheck start the logging wrapper.
    env: (&'static str, OsString),
    log: PathBuf,
}

/// Writes an executable script at `path` that logs its arguments to `log` and runs
/// `program` with `extra` arguments (left out for `--version`) before its own.
fn logging_wrapper(path: &Path, log: &Path, program: &Path, extra: &[PathBuf]) {
    let extra: String = extra
        .iter()
        .map(|dir| format!(" -isystem '{}'", dir.display()))
        .collect();
    std::fs::write(
        path,
        format!(
            "#!/bin/sh\necho \"$*\" >> '{log}'\n\
             if [ \"$1\" = --version ]; then exec '{program}' \"$@\"; fi\n\
             exec '{program}'{extra} \"$@\"\n",
            log = log.display(),
            program = program.display()
        ),
    )
    .unwrap();
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o755)).unwrap();
    }
}

/// The nvcc `--compiler nvcc` finds (a system one on `PATH`, else the wheels') and the
/// include directories warpcheck passes it; `None` when there is none.
fn real_nvcc() -> Option<(PathBuf, Vec<PathBuf>)> {
    let path = std::env::var_os("PATH").unwrap_or_default();
    if let Some(nvcc) = std::env::split_paths(&path)
        .map(|dir| dir.join("nvcc"))
        .find(|p| p.is_file())
    {
        return Some((nvcc, Vec::new()));
    }
    let tree = warpcheck_front::NvidiaTree::from_env()?;
    Some((tree.nvcc.clone()?, tree.extra_includes))
}

impl Setup {
    /// A directory with the kernels and a logging clang wrapper; `None` without clang.
    fn new() -> Option<Setup> {
        let clang = warpcheck_front::Compiler::all_clangs().into_iter().next()?;
        let dir = Self::kernels();
        let log = dir.path().join("clang-calls.log");
        let wrapper = dir.path().join("clang-wrapper.sh");
        logging_wrapper(&wrapper, &log, &clang.path, &[]);
        let env = ("WARPCHECK_CLANG", wrapper.into_os_string());
        Some(Setup { dir, env, log })
    }

    /// A directory with the kernels and a logging `nvcc` first on `PATH`; `None` without
    /// nvcc.
    fn nvcc() -> Option<Setup> {
        let (nvcc, includes) = real_nvcc()?;
        let dir = Self::kernels();
        let bin = dir.path().join("bin");
        std::fs::create_dir(&bin).unwrap();
        let log = dir.path().join("nvcc-calls.log");
        logging_wrapper(&bin.join("nvcc"), &log, &nvcc, &includes);
        let path = std::env::var_os("PATH").unwrap_or_default();
        let path =
            std::env::join_paths(std::iter::once(bin).chain(std::env::split_paths(&path))).unwrap();
        Some(Setup {
            dir,
            env: ("PATH", path),
            log,
        })
    }

    /// A temporary directory with the test's kernels and header.
    fn kernels() -> tempfile::TempDir {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("scale.h"), HEADER).unwrap();
        std::fs::write(dir.path().join("scale.cu"), CUDA).unwrap();
        std::fs::write(dir.path().join("twice.cl"), OPENCL).unwrap();
        dir
    }

    fn path(&self, name: &str) -> PathBuf {
        self.dir.path().join(name)
    }

    /// `warpcheck run FILE --grid 1 --block 64 --dump y EXTRA…`: its stdout, and how many
    /// times it started the compiler for more than `--version`.
    fn run(&self, file: &str, extra: &[&str]) -> (String, usize) {
        let before = self.compilations();
        let out = Command::new(env!("CARGO_BIN_EXE_warpcheck"))
            .arg("run")
            .arg(self.path(file))
            .args(["--grid", "1", "--block", "64", "--dump", "y"])
            .args(extra)
            .env(self.env.0, &self.env.1)
            .env("WARPCHECK_CACHE_DIR", self.path("cache"))
            .current_dir(self.dir.path())
            .output()
            .expect("warpcheck runs");
        let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
        assert!(
            out.status.success(),
            "{stdout}\n{}",
            String::from_utf8_lossy(&out.stderr)
        );
        (without_times(&stdout), self.compilations() - before)
    }

    fn compilations(&self) -> usize {
        std::fs::read_to_string(&self.log)
            .unwrap_or_default()
            .lines()
            .filter(|l| l.trim() != "--version")
            .count()
    }
}

/// The output without the launch's timing line.
fn without_times(stdout: &str) -> String {
    stdout
        .lines()
        .filter(|l| !l.contains(" s CPU") && !l.contains(" s)"))
        .collect::<Vec<_>>()
        .join("\n")
}

fn append(path: &Path, text: &str) {
    let mut s = std::fs::read_to_string(path).unwrap();
    s.push_str(text);
    std::fs::write(path, s).unwrap();
}

#[test]
fn second_runs_reuse_the_compilation_and_edits_recompile() {
    let Some(s) = Setup::new() else {
        eprintln!("no clang 14 or later: skipped");
        return;
    };
    for file in ["scale.cu", "twice.cl"] {
        let (first, compiled) = s.run(file, &[]);
        assert!(compiled > 0, "{file}: the first run compiles");
        let (second, compiled) = s.run(file, &[]);
        assert_eq!(compiled, 0, "{file}: the second run starts no compiler");
        assert_eq!(first, second, "{file}: a cached run prints the same");
        let (_, compiled) = s.run(file, &["--no-cache"]);
        assert!(compiled > 0, "{file}: --no-cache compiles");
    }
    // The header's value reaches the output: an edit must not be hidden by the cache.
    let (before, _) = s.run("scale.cu", &[]);
    std::fs::write(s.path("scale.h"), "#define SCALE 3.0f\n").unwrap();
    let (after, compiled) = s.run("scale.cu", &[]);
    assert!(compiled > 0, "editing an included header recompiles");
    assert_ne!(before, after, "the new header's SCALE is used");
    append(&s.path("twice.cl"), "// edited\n");
    let (_, compiled) = s.run("twice.cl", &[]);
    assert!(compiled > 0, "editing the source recompiles");
    let (_, compiled) = s.run("twice.cl", &["--arch", "sm_70"]);
    assert!(compiled > 0, "other options compile separately");
}

#[test]
fn damaged_entries_are_misses_and_are_replaced() {
    let Some(s) = Setup::new() else {
        eprintln!("no clang 14 or later: skipped");
        return;
    };
    let (first, _) = s.run("twice.cl", &[]);
    let entries: Vec<PathBuf> = std::fs::read_dir(s.path("cache").join("v1"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "json"))
        .collect();
    assert_eq!(entries.len(), 1, "one entry per compilation");
    let whole = std::fs::read(&entries[0]).unwrap();
    std::fs::write(&entries[0], &whole[..whole.len() / 2]).unwrap();
    let (second, compiled) = s.run("twice.cl", &[]);
    assert!(compiled > 0, "a truncated entry is a miss");
    assert_eq!(first, second);
    let (_, compiled) = s.run("twice.cl", &[]);
    assert_eq!(compiled, 0, "the miss stored a whole entry again");
}

#[test]
fn second_nvcc_runs_reuse_the_compilation_and_edits_recompile() {
    let Some(s) = Setup::nvcc() else {
        eprintln!("skipped: no nvcc on PATH and no NVIDIA wheels (run tools/setup.sh)");
        return;
    };
    let nvcc = ["--compiler", "nvcc"];
    let (first, compiled) = s.run("scale.cu", &nvcc);
    assert!(compiled > 0, "the first run compiles");
    let (second, compiled) = s.run("scale.cu", &nvcc);
    assert_eq!(compiled, 0, "the second run starts no nvcc");
    assert_eq!(first, second, "a cached run prints the same");
    let (_, compiled) = s.run("scale.cu", &["--compiler", "nvcc", "--no-cache"]);
    assert!(compiled > 0, "--no-cache compiles");
    // nvcc's dependency list holds the user's header: an edit recompiles.
    std::fs::write(s.path("scale.h"), "#define SCALE 3.0f\n").unwrap();
    let (after, compiled) = s.run("scale.cu", &nvcc);
    assert!(compiled > 0, "editing an included header recompiles");
    assert_ne!(first, after, "the new header's SCALE is used");
    let (_, compiled) = s.run("scale.cu", &["--compiler", "nvcc", "-O", "1"]);
    assert!(compiled > 0, "other options compile separately");
}
