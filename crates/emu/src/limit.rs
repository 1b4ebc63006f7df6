//! A launch-wide limit: the most lane-instructions the whole launch may execute, and the
//! most wall-clock time it may take.
//!
//! The per-warp budget ([`crate::LaunchConfig::budget`]) stops one runaway warp, but a
//! grid of blocks that each spin until their warp's budget runs out takes that budget
//! times the number of blocks. This limit bounds the launch as a whole. Each block adds
//! its lane-instructions to a shared counter every [`CHECK_EVERY`] of them (one atomic
//! add, and the clock read, per million lane-instructions of a block, so the cost is
//! nil), and a block that finds the launch over its limit stops with a
//! [`crate::FaultKind::LaunchLimit`] fault at the instruction its warp was at. Once the
//! limit is reached, every block still running stops the same way at its next check and
//! blocks not yet started do not run. A time limit is not deterministic: how far the
//! launch got when it struck depends on the host.

use std::sync::atomic::{AtomicU8, AtomicU64, Ordering::Relaxed};
use std::time::{Duration, Instant};

/// Lane-instructions a block executes between two looks at the shared counter.
pub(crate) const CHECK_EVERY: u64 = 1 << 20;
/// Warp-instructions a lock-step warp runs between two looks at the limit within its
/// quantum (of about a million warp-instructions, too long to wait for).
pub(crate) const CHECK_EVERY_WARP: u64 = 1 << 15;

/// Which limit stopped a launch.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum LimitReached {
    /// The launch-wide lane-instruction budget ([`crate::LaunchConfig::launch_budget`]).
    LaneInstructions(u64),
    /// The wall-clock limit ([`crate::LaunchConfig::timeout`]).
    Time(Duration),
}

impl std::fmt::Display for LimitReached {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            LimitReached::LaneInstructions(n) => write!(f, "limit of {n} lane-instructions"),
            LimitReached::Time(d) => write!(f, "time limit of {} s", d.as_secs_f64()),
        }
    }
}

/// The shared state of one launch's limit.
pub(crate) struct LaunchLimit {
    budget: Option<u64>,
    timeout: Option<Duration>,
    start: Instant,
    lanes: AtomicU64,
    blocks_done: AtomicU64,
    /// 0: running; 1: stopped by the budget; 2: stopped by the time limit.
    stopped: AtomicU8,
}

impl LaunchLimit {
    /// The limit of a launch's configuration; `None` when it sets neither.
    pub(crate) fn new(config: &crate::LaunchConfig) -> Option<LaunchLimit> {
        if config.launch_budget.is_none() && config.timeout.is_none() {
            return None;
        }
        Some(LaunchLimit {
            budget: config.launch_budget,
            timeout: config.timeout,
            start: Instant::now(),
            lanes: AtomicU64::new(0),
            blocks_done: AtomicU64::new(0),
            stopped: AtomicU8::new(0),
        })
    }

    pub(crate) fn is_stopped(&self) -> bool {
        self.stopped.load(Relaxed) != 0
    }

    pub(crate) fn block_finished(&self) {
        self.blocks_done.fetch_add(1, Relaxed);
    }

    /// Adds `lanes` lane-instructions of a block; returns the limit that is reached, if
    /// one is (now or earlier, by another block).
    pub(crate) fn account(&self, lanes: u64) -> Option<LimitReached> {
        let total = self.lanes.fetch_add(lanes, Relaxed) + lanes;
        if self.stopped.load(Relaxed) == 0 {
            if self.budget.is_some_and(|b| total > b) {
                let _ = self.stopped.compare_exchange(0, 1, Relaxed, Relaxed);
            } else if self.timeout.is_some_and(|t| self.start.elapsed() > t) {
                let _ = self.stopped.compare_exchange(0, 2, Relaxed, Relaxed);
            }
        }
        match self.stopped.load(Relaxed) {
            1 => self.budget.map(LimitReached::LaneInstructions),
            2 => self.timeout.map(LimitReached::Time),
            _ => None,
        }
    }

    /// How far the launch got: lane-instructions, blocks finished, seconds.
    pub(crate) fn progress(&self) -> (u64, u64, f64) {
        (
            self.lanes.load(Relaxed),
            self.blocks_done.load(Relaxed),
            self.start.elapsed().as_secs_f64(),
        )
    }
}
