//! Running the program as a child process that never outlives warpcheck.
//!
//! SIGINT, SIGTERM, SIGHUP and SIGQUIT sent to warpcheck are forwarded to the child (a
//! handler that only calls `kill`, which is async-signal-safe); warpcheck then waits for
//! the child as usual, reports, removes its temporary directory and exits with the
//! child's status (128 + the signal when the signal ended it). The signals are blocked
//! from before the child is spawned until its pid is known, so none is lost in between;
//! the child unblocks them before `exec`. A warpcheck killed outright (SIGKILL) cannot
//! forward anything: the child asks the kernel for SIGKILL when its parent dies
//! (`PR_SET_PDEATHSIG`, Linux).

use std::process::{Command, ExitStatus};

#[cfg(unix)]
mod unix {
    use std::os::unix::process::CommandExt;
    use std::process::{Command, ExitStatus};
    use std::sync::atomic::{AtomicI32, Ordering};

    /// The signals forwarded to the child.
    const FORWARDED: [libc::c_int; 4] = [libc::SIGINT, libc::SIGTERM, libc::SIGHUP, libc::SIGQUIT];

    /// The running child's pid; 0 when there is none.
    static CHILD: AtomicI32 = AtomicI32::new(0);

    extern "C" fn forward(signal: libc::c_int) {
        let pid = CHILD.load(Ordering::SeqCst);
        if pid > 0 {
            // SAFETY: kill is async-signal-safe.
            unsafe { libc::kill(pid, signal) };
        }
    }

    fn signal_set() -> libc::sigset_t {
        // SAFETY: sigemptyset/sigaddset initialise and fill a set on the stack.
        unsafe {
            let mut set: libc::sigset_t = std::mem::zeroed();
            libc::sigemptyset(&mut set);
            for s in FORWARDED {
                libc::sigaddset(&mut set, s);
            }
            set
        }
    }

    pub fn run(cmd: &mut Command) -> std::io::Result<ExitStatus> {
        let set = signal_set();
        let parent = std::process::id() as libc::pid_t;
        // SAFETY: the closure runs in the child between fork and exec and calls only
        // async-signal-safe functions (prctl, getppid, sigprocmask, raise).
        unsafe {
            cmd.pre_exec(move || {
                libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL as libc::c_ulong);
                if libc::getppid() != parent {
                    // warpcheck died before the request took effect.
                    libc::raise(libc::SIGKILL);
                }
                libc::sigprocmask(libc::SIG_UNBLOCK, &set, std::ptr::null_mut());
                Ok(())
            });
        }
        let mut old: libc::sigset_t = unsafe { std::mem::zeroed() };
        // SAFETY: installing a handler that only reads an atomic and calls kill, and
        // blocking the signals on this thread until the child's pid is stored.
        unsafe {
            libc::pthread_sigmask(libc::SIG_BLOCK, &set, &mut old);
            for s in FORWARDED {
                libc::signal(
                    s,
                    forward as extern "C" fn(libc::c_int) as libc::sighandler_t,
                );
            }
        }
        let spawned = cmd.spawn();
        if let Ok(child) = &spawned {
            CHILD.store(child.id() as i32, Ordering::SeqCst);
        }
        // SAFETY: restoring this thread's signal mask.
        unsafe { libc::pthread_sigmask(libc::SIG_SETMASK, &old, std::ptr::null_mut()) };
        let status = spawned.and_then(|mut child| child.wait());
        CHILD.store(0, Ordering::SeqCst);
        // SAFETY: the default actions again, now that there is no child to forward to.
        unsafe {
            for s in FORWARDED {
                libc::signal(s, libc::SIG_DFL);
            }
        }
        status
    }
}

/// Runs `cmd` to its end; see the module documentation.
pub fn run(cmd: &mut Command) -> std::io::Result<ExitStatus> {
    #[cfg(unix)]
    {
        unix::run(cmd)
    }
    #[cfg(not(unix))]
    {
        cmd.status()
    }
}
