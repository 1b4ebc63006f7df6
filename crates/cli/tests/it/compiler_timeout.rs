//! A compiler that never finishes: warpcheck stops it at `--compile-timeout` (or
//! `WARPCHECK_COMPILE_TIMEOUT`) with exit 2 and a message naming the compiler and the
//! file, and a SIGTERM or SIGINT sent to warpcheck while it waits ends warpcheck by that
//! signal. Either way no process the compiler started is left running and warpcheck's
//! temporary directory is gone.
//!
//! The compiler is a script (`WARPCHECK_CLANG`) that answers `--version` as the real clang
//! does and otherwise starts a `sleep` of its own, writes both pids to a file and waits:
//! killing only the script would leave the `sleep` behind.

#![cfg(unix)]

use std::os::unix::process::ExitStatusExt;
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

const KERNEL: &str = "__global__ void k(int* x) { x[threadIdx.x] = 1; }\n";

struct Setup {
    dir: tempfile::TempDir,
    /// The private `TMPDIR` given to warpcheck: empty when it cleaned up.
    tmp: PathBuf,
    /// Where the fake compiler writes its pid and its `sleep`'s.
    pids: PathBuf,
    script: PathBuf,
}

impl Setup {
    fn new() -> Option<Setup> {
        let clang = warpcheck_front::Compiler::all_clangs().into_iter().next()?;
        let dir = tempfile::tempdir().unwrap();
        let tmp = dir.path().join("tmp");
        std::fs::create_dir(&tmp).unwrap();
        let pids = dir.path().join("pids");
        let script = dir.path().join("hanging-clang.sh");
        std::fs::write(
            &script,
            format!(
                "#!/bin/sh\n\
                 if [ \"$1\" = --version ]; then exec '{clang}' --version; fi\n\
                 sleep 300 &\n\
                 echo $! >> '{pids}'\n\
                 echo $$ >> '{pids}'\n\
                 wait\n",
                clang = clang.path.display(),
                pids = pids.display()
            ),
        )
        .unwrap();
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&script, std::fs::Permissions::from_mode(0o755)).unwrap();
        std::fs::write(dir.path().join("k.cu"), KERNEL).unwrap();
        Some(Setup {
            dir,
            tmp,
            pids,
            script,
        })
    }

    fn warpcheck(&self, extra: &[&str]) -> Command {
        let mut cmd = Command::new(env!("CARGO_BIN_EXE_warpcheck"));
        cmd.args(["ptx", "--compiler", "clang", "--no-cache"])
            .arg(self.dir.path().join("k.cu"))
            .args(extra)
            .env("WARPCHECK_CLANG", &self.script)
            .env("TMPDIR", &self.tmp)
            .env_remove("WARPCHECK_COMPILE_TIMEOUT")
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        cmd
    }

    fn pids(&self) -> Vec<i32> {
        std::fs::read_to_string(&self.pids)
            .unwrap_or_default()
            .lines()
            .filter_map(|l| l.trim().parse().ok())
            .collect()
    }

    /// Waits until the fake compiler has started (its pids are written).
    fn wait_for_compiler(&self) {
        let start = Instant::now();
        while self.pids().len() < 2 {
            assert!(
                start.elapsed() < Duration::from_secs(20),
                "the compiler never started"
            );
            std::thread::sleep(Duration::from_millis(20));
        }
    }

    /// Asserts that no process the compiler started is left and that `TMPDIR` is empty.
    fn assert_clean(&self) {
        let pids = self.pids();
        assert!(pids.len() >= 2, "the compiler never started: {pids:?}");
        for pid in pids {
            let start = Instant::now();
            // A killed orphan is reaped by init shortly after: give it a moment.
            while running(pid) {
                assert!(
                    start.elapsed() < Duration::from_secs(5),
                    "process {pid} of the compiler is still running"
                );
                std::thread::sleep(Duration::from_millis(20));
            }
        }
        let left: Vec<_> = std::fs::read_dir(&self.tmp)
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .collect();
        assert!(left.is_empty(), "temporary files left behind: {left:?}");
    }
}

/// Whether `pid` is a live process (not a zombie).
fn running(pid: i32) -> bool {
    match std::fs::read_to_string(format!("/proc/{pid}/stat")) {
        Ok(stat) => !stat
            .rsplit_once(')')
            .is_some_and(|(_, rest)| rest.trim_start().starts_with('Z')),
        Err(_) => false,
    }
}

fn finish(child: Child) -> (std::process::ExitStatus, String) {
    let out = child.wait_with_output().unwrap();
    (
        out.status,
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[test]
fn a_hanging_compiler_is_stopped_at_the_timeout() {
    let Some(s) = Setup::new() else {
        eprintln!("skipped: no clang");
        return;
    };
    let start = Instant::now();
    let (status, stderr) = finish(s.warpcheck(&["--compile-timeout", "1"]).spawn().unwrap());
    let took = start.elapsed();
    assert_eq!(status.code(), Some(2), "{stderr}");
    assert!(
        stderr.contains("did not finish compiling") && stderr.contains("within 1 s"),
        "{stderr}"
    );
    assert!(
        stderr.contains("clang") && stderr.contains("k.cu"),
        "{stderr}"
    );
    assert!(took < Duration::from_secs(10), "took {took:?}");
    s.assert_clean();
}

#[test]
fn the_timeout_comes_from_the_environment_too() {
    let Some(s) = Setup::new() else {
        eprintln!("skipped: no clang");
        return;
    };
    let mut cmd = s.warpcheck(&[]);
    cmd.env("WARPCHECK_COMPILE_TIMEOUT", "0.5");
    let (status, stderr) = finish(cmd.spawn().unwrap());
    assert_eq!(status.code(), Some(2), "{stderr}");
    assert!(stderr.contains("within 0.5 s"), "{stderr}");
    s.assert_clean();
}

fn signalled_while_compiling(signal: i32) {
    let Some(s) = Setup::new() else {
        eprintln!("skipped: no clang");
        return;
    };
    let child = s.warpcheck(&["--compile-timeout", "60"]).spawn().unwrap();
    s.wait_for_compiler();
    // SAFETY: sending a signal to the child this test started.
    unsafe { libc::kill(child.id() as i32, signal) };
    let start = Instant::now();
    let (status, stderr) = finish(child);
    assert!(start.elapsed() < Duration::from_secs(10));
    assert_eq!(
        status.signal(),
        Some(signal),
        "warpcheck should end by the signal: {status:?}\n{stderr}"
    );
    s.assert_clean();
}

#[test]
fn sigterm_kills_the_compiler_and_removes_the_temporary_directory() {
    signalled_while_compiling(libc::SIGTERM);
}

#[test]
fn sigint_kills_the_compiler_and_removes_the_temporary_directory() {
    signalled_while_compiling(libc::SIGINT);
}

#[test]
fn a_bad_timeout_is_a_usage_error() {
    let out = Command::new(env!("CARGO_BIN_EXE_warpcheck"))
        .args(["ptx", "k.cu", "--compile-timeout", "0"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("positive number of seconds"));
}
