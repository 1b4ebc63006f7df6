//! Child processes that never outlive warpcheck, and temporary directories that never
//! outlive it either.
//!
//! Every compiler (clang, nvcc and what nvcc starts: cicc, ptxas, the host compiler) runs
//! in a process group of its own, within a time limit ([`run_limited`], [`output_limited`];
//! [`DEFAULT_TIMEOUT`], `WARPCHECK_COMPILE_TIMEOUT`). When the limit passes, the whole
//! group is killed (SIGKILL), so nothing the compiler started lives on, and the caller
//! reports the compiler and the file.
//!
//! # Signals
//!
//! [`handle_signals`], called by the `warpcheck` binary before it starts any thread,
//! blocks SIGINT, SIGTERM, SIGHUP and SIGQUIT in every thread and waits for them on a
//! thread of its own (`sigwait`), where any code may run, unlike in a signal handler.
//! When one arrives:
//!
//! * while a program of program mode runs ([`run_forwarding`]), the signal is forwarded
//!   to it, and warpcheck waits for it as usual, reports and exits with its status;
//! * otherwise every registered child process group is killed, every registered
//!   temporary directory ([`ScratchDir`]) removed, and warpcheck ends by the signal
//!   itself (a shell sees 128 + the signal), as it would have without a handler.
//!
//! Children are spawned and registered under one lock that the signal thread also takes,
//! so a child started while a signal is being handled is killed too; a thread that sees
//! its child end after a signal parks instead of reporting a compiler failure that is
//! only the signal's doing. A warpcheck killed outright (SIGKILL) cannot clean up: each
//! child asks the kernel for SIGKILL when warpcheck dies (`PR_SET_PDEATHSIG`, Linux).
//!
//! Without [`handle_signals`] (a library caller, the tests) signals keep their default
//! actions; the time limits hold all the same.

use std::path::{Path, PathBuf};
use std::process::{Child, Command, ExitStatus, Output, Stdio};
use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

/// How long a compiler may run when neither `--compile-timeout` nor
/// `WARPCHECK_COMPILE_TIMEOUT` says otherwise: generous, since nvcc on a large file with
/// CUB or Thrust takes a minute.
pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(120);

/// The environment variable that sets the compiler time limit in seconds.
pub const TIMEOUT_VAR: &str = "WARPCHECK_COMPILE_TIMEOUT";

/// The compiler time limit: `WARPCHECK_COMPILE_TIMEOUT` seconds when it is set to a
/// positive number, else [`DEFAULT_TIMEOUT`].
pub fn default_timeout() -> Duration {
    std::env::var(TIMEOUT_VAR)
        .ok()
        .and_then(|v| parse_seconds(&v).ok())
        .unwrap_or(DEFAULT_TIMEOUT)
}

/// Parses a positive number of seconds (`90`, `0.5`).
pub fn parse_seconds(text: &str) -> Result<Duration, String> {
    let seconds: f64 = text
        .trim()
        .parse()
        .map_err(|_| format!("`{text}` is not a number of seconds"))?;
    if !(seconds > 0.0 && seconds <= 1e9) {
        return Err(format!(
            "`{text}`: the time limit must be a positive number of seconds"
        ));
    }
    Ok(Duration::from_secs_f64(seconds))
}

/// A duration as the messages write it: `120 s`, `0.5 s`.
pub fn seconds_text(d: Duration) -> String {
    let s = d.as_secs_f64();
    if s.fract() == 0.0 {
        format!("{s:.0} s")
    } else {
        format!("{s} s")
    }
}

/// What the signal thread acts on.
#[derive(Default)]
struct Registry {
    /// Process groups of running compilers (the group id is the leader's pid).
    groups: Vec<i32>,
    /// The running program of program mode, which signals are forwarded to.
    forward_to: Option<i32>,
    /// Temporary directories to remove when a signal ends warpcheck.
    dirs: Vec<PathBuf>,
}

static REGISTRY: Mutex<Registry> = Mutex::new(Registry {
    groups: Vec::new(),
    forward_to: None,
    dirs: Vec::new(),
});

/// Set once a signal is ending warpcheck.
static ENDING: AtomicBool = AtomicBool::new(false);

fn registry() -> std::sync::MutexGuard<'static, Registry> {
    REGISTRY
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
}

/// Waits for the signal thread to end the process: called by a thread whose work a
/// signal has cut short, so that it reports nothing.
fn park_while_ending() {
    if ENDING.load(Ordering::SeqCst) {
        park_forever();
    }
}

fn park_forever() -> ! {
    loop {
        std::thread::park();
    }
}

/// A private temporary directory (`tempfile`'s), removed when dropped and also when a
/// signal ends warpcheck (see the module documentation).
pub struct ScratchDir {
    dir: tempfile::TempDir,
}

impl ScratchDir {
    /// Creates `$TMPDIR/PREFIXxxxxxx`.
    pub fn new(prefix: &str) -> std::io::Result<ScratchDir> {
        let mut registry = registry();
        let dir = tempfile::Builder::new().prefix(prefix).tempdir()?;
        registry.dirs.push(dir.path().to_path_buf());
        Ok(ScratchDir { dir })
    }

    pub fn path(&self) -> &Path {
        self.dir.path()
    }
}

impl Drop for ScratchDir {
    fn drop(&mut self) {
        registry().dirs.retain(|d| d != self.dir.path());
    }
}

/// Why a limited run did not give an exit status.
#[derive(Debug)]
pub enum RunError {
    /// The program could not be started.
    Spawn(std::io::Error),
    /// The time limit passed; the process group was killed.
    TimedOut(Duration),
    /// Waiting for it failed.
    Wait(std::io::Error),
}

impl std::fmt::Display for RunError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            RunError::Spawn(e) => write!(f, "could not be started: {e}"),
            RunError::TimedOut(limit) => write!(
                f,
                "did not finish within {} and was stopped (set the limit with --compile-timeout SECS or {TIMEOUT_VAR})",
                seconds_text(*limit)
            ),
            RunError::Wait(e) => write!(f, "could not be waited for: {e}"),
        }
    }
}

/// Spawns `cmd` in a new process group and registers the group, under the registry's lock.
pub(crate) fn spawn_in_group(cmd: &mut Command) -> Result<Child, RunError> {
    #[cfg(unix)]
    {
        use std::os::unix::process::CommandExt;
        cmd.process_group(0);
        die_with_parent(cmd);
    }
    let mut registry = registry();
    if ENDING.load(Ordering::SeqCst) {
        drop(registry);
        park_forever();
    }
    let child = cmd.spawn().map_err(RunError::Spawn)?;
    registry.groups.push(child.id() as i32);
    Ok(child)
}

/// Asks the kernel to kill the child when warpcheck dies (Linux), and checks that
/// warpcheck did not die before the request took effect.
#[cfg(unix)]
fn die_with_parent(cmd: &mut Command) {
    use std::os::unix::process::CommandExt;
    let parent = std::process::id() as libc::pid_t;
    // SAFETY: sigemptyset/sigaddset fill a set on the stack.
    let handled = unsafe {
        let mut set: libc::sigset_t = std::mem::zeroed();
        libc::sigemptyset(&mut set);
        for s in HANDLED {
            libc::sigaddset(&mut set, s);
        }
        set
    };
    // SAFETY: the closure runs in the child between fork and exec and calls only
    // async-signal-safe functions (prctl, getppid, raise, sigprocmask).
    unsafe {
        cmd.pre_exec(move || {
            #[cfg(target_os = "linux")]
            libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL as libc::c_ulong);
            if libc::getppid() != parent {
                libc::raise(libc::SIGKILL);
            }
            // warpcheck's threads block the signals it handles (`handle_signals`); the
            // program must get them with their default actions.
            libc::sigprocmask(libc::SIG_UNBLOCK, &handled, std::ptr::null_mut());
            Ok(())
        });
    }
}

/// Kills the process group led by `pid`.
fn kill_group(pid: i32) {
    #[cfg(unix)]
    // SAFETY: kill has no memory effects; a group that is gone gives ESRCH.
    unsafe {
        libc::kill(-pid, libc::SIGKILL);
    }
    #[cfg(not(unix))]
    let _ = pid;
}

/// Waits for `child` (the leader of its own process group) at most `limit`; kills the
/// group when the limit passes. The group is deregistered either way.
pub(crate) fn wait_limited(child: Child, limit: Duration) -> Result<ExitStatus, RunError> {
    let pid = child.id() as i32;
    let (tx, rx) = std::sync::mpsc::channel();
    let waiter = std::thread::spawn(move || {
        let mut child = child;
        let _ = tx.send(child.wait());
    });
    let result = match rx.recv_timeout(limit) {
        Ok(status) => status.map_err(RunError::Wait),
        Err(_) => {
            kill_group(pid);
            let _ = rx.recv();
            Err(RunError::TimedOut(limit))
        }
    };
    // Whatever the leader left running in its group goes with it.
    kill_group(pid);
    let _ = waiter.join();
    registry().groups.retain(|&g| g != pid);
    park_while_ending();
    result
}

/// Runs `cmd` (its standard streams as the caller set them; stdin is null unless set) in a
/// process group of its own and waits at most `limit` for it.
pub fn run_limited(cmd: &mut Command, limit: Duration) -> Result<ExitStatus, RunError> {
    let child = spawn_in_group(cmd)?;
    wait_limited(child, limit)
}

/// [`run_limited`] collecting stdout and stderr, as `Command::output` does.
pub fn output_limited(cmd: &mut Command, limit: Duration) -> Result<Output, RunError> {
    cmd.stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    let mut child = spawn_in_group(cmd)?;
    let read = |pipe: Option<Box<dyn std::io::Read + Send>>| {
        std::thread::spawn(move || {
            let mut bytes = Vec::new();
            if let Some(mut pipe) = pipe {
                let _ = pipe.read_to_end(&mut bytes);
            }
            bytes
        })
    };
    let stdout = read(child.stdout.take().map(|p| Box::new(p) as _));
    let stderr = read(child.stderr.take().map(|p| Box::new(p) as _));
    let status = wait_limited(child, limit);
    // The group is dead by now, so the pipes are closed and the readers end.
    let stdout = stdout.join().unwrap_or_default();
    let stderr = stderr.join().unwrap_or_default();
    Ok(Output {
        status: status?,
        stdout,
        stderr,
    })
}

/// Runs program mode's program to its end (no time limit), in warpcheck's own process
/// group (it may read the terminal), forwarding signals to it; see the module
/// documentation.
pub fn run_forwarding(cmd: &mut Command) -> std::io::Result<ExitStatus> {
    #[cfg(unix)]
    die_with_parent(cmd);
    let mut child = {
        let mut registry = registry();
        if ENDING.load(Ordering::SeqCst) {
            drop(registry);
            park_forever();
        }
        let child = cmd.spawn()?;
        registry.forward_to = Some(child.id() as i32);
        child
    };
    let status = child.wait();
    registry().forward_to = None;
    status
}

/// The signals that end warpcheck with clean-up, or are forwarded to the program.
#[cfg(unix)]
const HANDLED: [libc::c_int; 4] = [libc::SIGINT, libc::SIGTERM, libc::SIGHUP, libc::SIGQUIT];

/// Blocks [`HANDLED`] signals in the calling thread (and so in every thread it starts
/// later) and handles them on a thread of its own; see the module documentation. Call it
/// once, before any other thread starts.
pub fn handle_signals() {
    #[cfg(unix)]
    {
        // SAFETY: sigemptyset/sigaddset fill a set on the stack; pthread_sigmask changes
        // this thread's mask only.
        let set = unsafe {
            let mut set: libc::sigset_t = std::mem::zeroed();
            libc::sigemptyset(&mut set);
            for s in HANDLED {
                libc::sigaddset(&mut set, s);
            }
            libc::pthread_sigmask(libc::SIG_BLOCK, &set, std::ptr::null_mut());
            set
        };
        let started = std::thread::Builder::new()
            .name("warpcheck-signals".into())
            .spawn(move || signal_thread(set));
        if started.is_err() {
            // No thread: back to the default actions rather than signals never acted on.
            // SAFETY: as above.
            unsafe { libc::pthread_sigmask(libc::SIG_UNBLOCK, &set, std::ptr::null_mut()) };
        }
    }
}

#[cfg(unix)]
fn signal_thread(set: libc::sigset_t) {
    loop {
        let mut signal: libc::c_int = 0;
        // SAFETY: waits for one of the blocked signals of `set`.
        if unsafe { libc::sigwait(&set, &mut signal) } != 0 {
            continue;
        }
        let registry = registry();
        if let Some(pid) = registry.forward_to {
            // SAFETY: kill has no memory effects.
            unsafe { libc::kill(pid, signal) };
            continue;
        }
        ENDING.store(true, Ordering::SeqCst);
        for &group in &registry.groups {
            kill_group(group);
        }
        for dir in &registry.dirs {
            // A thread may still be writing there: try a few times.
            for _ in 0..5 {
                if std::fs::remove_dir_all(dir).is_ok() || !dir.exists() {
                    break;
                }
                std::thread::sleep(Duration::from_millis(10));
            }
        }
        end_by(signal);
    }
}

/// Ends the process by `signal` with its default action, as if it had never been caught.
#[cfg(unix)]
fn end_by(signal: libc::c_int) -> ! {
    // SAFETY: resetting the disposition, unblocking the signal in this thread and raising
    // it there: the default action ends the process.
    unsafe {
        libc::signal(signal, libc::SIG_DFL);
        let mut one: libc::sigset_t = std::mem::zeroed();
        libc::sigemptyset(&mut one);
        libc::sigaddset(&mut one, signal);
        libc::pthread_sigmask(libc::SIG_UNBLOCK, &one, std::ptr::null_mut());
        libc::raise(signal);
    }
    // SIGQUIT's default action may be a core dump that is disabled; still, end.
    std::process::exit(128 + signal)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_child_over_its_limit_is_killed_with_its_whole_group() {
        let dir = tempfile::tempdir().unwrap();
        let pids = dir.path().join("pids");
        let script = format!("sleep 30 & echo $! > '{p}'; wait", p = pids.display());
        let start = std::time::Instant::now();
        let result = run_limited(
            Command::new("sh").args(["-c", &script]),
            Duration::from_secs(2),
        );
        assert!(matches!(result, Err(RunError::TimedOut(_))), "{result:?}");
        assert!(start.elapsed() < Duration::from_secs(10));
        let grandchild: i32 = std::fs::read_to_string(&pids)
            .unwrap()
            .trim()
            .parse()
            .unwrap();
        let alive = || {
            std::fs::read_to_string(format!("/proc/{grandchild}/stat")).is_ok_and(|stat| {
                !stat
                    .rsplit_once(')')
                    .is_some_and(|(_, rest)| rest.trim_start().starts_with('Z'))
            })
        };
        // The signal is delivered asynchronously: give it a moment.
        let killed = std::time::Instant::now();
        while alive() {
            assert!(
                killed.elapsed() < Duration::from_secs(5),
                "the compiler's own child {grandchild} outlived the limit"
            );
            std::thread::sleep(Duration::from_millis(20));
        }
    }

    #[test]
    fn output_is_collected_within_the_limit() {
        let out = output_limited(
            Command::new("sh").args(["-c", "echo out; echo err >&2; exit 3"]),
            Duration::from_secs(30),
        )
        .unwrap();
        assert_eq!(out.stdout, b"out\n");
        assert_eq!(out.stderr, b"err\n");
        assert_eq!(out.status.code(), Some(3));
    }

    #[test]
    fn seconds_parse_and_print() {
        assert_eq!(parse_seconds("90").unwrap(), Duration::from_secs(90));
        assert_eq!(parse_seconds("0.5").unwrap(), Duration::from_millis(500));
        assert!(parse_seconds("0").is_err());
        assert!(parse_seconds("-3").is_err());
        assert!(parse_seconds("soon").is_err());
        assert_eq!(seconds_text(Duration::from_secs(120)), "120 s");
        assert_eq!(seconds_text(Duration::from_millis(500)), "0.5 s");
    }
}
