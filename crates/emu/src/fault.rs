//! What can go wrong: kernel faults (results of a run) and emulator errors (no run).
//!
//! Cranelift's Pulley interpreter keeps the same distinction: a *guest* fault (out of
//! bounds, trap, deadlock, budget) is [`Fault`], reported in [`crate::RunOutcome`] with the
//! block, thread, instruction and source line; an [`EmuError`] means the emulator could not
//! run the kernel at all (invalid launch, unsupported instruction) or found a bug in itself.

use std::fmt;

use warpcheck_ir::modifiers::MemSpace;
use warpcheck_ir::{FuncId, InstId, SourceLoc};

/// A kernel fault: something the kernel did that a GPU would report as an error (or hang
/// on). Faults end the block they happen in; other blocks run on.
#[derive(Clone, Debug, PartialEq)]
pub struct Fault {
    pub kind: FaultKind,
    /// The block of the faulting thread.
    pub block: [u32; 3],
    /// The faulting thread (the first faulting lane of the warp-instruction); for a
    /// deadlock, the first waiting thread.
    pub thread: [u32; 3],
    /// The function and instruction that faulted.
    pub func: FuncId,
    pub inst: InstId,
    /// The `.loc` source location of the instruction, if any.
    pub source: Option<SourceLoc>,
}

impl Fault {
    /// A one-line description with source locations, e.g.
    /// `k.cu:14:16: out-of-bounds read of 4 bytes at global address 0x7f00000013e8 (block (3,0,0), thread (232,0,0))`;
    /// waiting threads of deadlocks and hangs are listed with their lines.
    pub fn render(&self, program: &warpcheck_ir::Program) -> String {
        let at = |source: Option<SourceLoc>, func: FuncId, inst: InstId| match source {
            Some(loc) if !loc.is_artificial() => program.files.render(&loc),
            _ => format!("{} {inst}", program.function(func).display_name()),
        };
        let mut s = format!(
            "{}: {} (block ({},{},{}), thread ({},{},{}))",
            at(self.source, self.func, self.inst),
            self.kind,
            self.block[0],
            self.block[1],
            self.block[2],
            self.thread[0],
            self.thread[1],
            self.thread[2]
        );
        let waiting = match &self.kind {
            FaultKind::Deadlock { waiting, .. }
            | FaultKind::BudgetExhausted { waiting, .. }
            | FaultKind::Spin { waiting, .. } => waiting.as_slice(),
            _ => &[],
        };
        for w in waiting {
            s.push_str(&format!(
                "\n  {}: {} threads of warp {} wait",
                at(w.source, w.func, w.inst),
                w.lanes.count_ones(),
                w.warp
            ));
        }
        s
    }
}

/// What kind of fault.
#[derive(Clone, Debug, PartialEq)]
pub enum FaultKind {
    /// An access to an address outside every allocation (global), outside the block's
    /// shared memory, outside the thread's local stack, or outside constant memory.
    OutOfBounds {
        space: MemSpace,
        address: u64,
        size: u32,
        is_write: bool,
    },
    /// An access whose address is not a multiple of its size (PTX ISA §5.4.5 requires
    /// natural alignment).
    Misaligned {
        space: MemSpace,
        address: u64,
        size: u32,
    },
    /// A store to read-only memory (constant or kernel parameter space).
    ReadOnly { space: MemSpace, address: u64 },
    /// A generic address that falls in no window (global, shared, local, const, param).
    BadGenericAddress { address: u64 },
    /// `trap` was executed.
    Trap,
    /// `__assertfail` was called (a failing `assert`).
    AssertionFailed {
        message: String,
        file: String,
        line: u32,
        function: String,
    },
    /// No thread of the block can run, but some have not exited: they wait at barriers
    /// (or `bar.warp.sync`) that the others never reach.
    Deadlock { waiting: Vec<Waiter>, exited: u32 },
    /// A warp executed more instructions than the budget allows (a runaway loop). When
    /// other threads of the block wait at a barrier meanwhile, they are listed: the
    /// kernel would hang on a GPU (a spin loop waiting for them).
    BudgetExhausted { budget: u64, waiting: Vec<Waiter> },
    /// A group of threads spins forever: it alone could run in its block, its loop sees no
    /// memory outside the block, and its whole state came back after `period`
    /// warp-instructions (proved, not guessed: see `spin.rs`). The threads that wait
    /// meanwhile are listed.
    Spin { period: u64, waiting: Vec<Waiter> },
    /// The launch reached its launch-wide limit ([`crate::LaunchConfig::launch_budget`]
    /// or [`crate::LaunchConfig::timeout`]) while this block ran; the fault is at the
    /// instruction one of its warps was at. How far the launch had got then:
    /// lane-instructions of all blocks, blocks finished (of `blocks`), seconds.
    LaunchLimit {
        limit: crate::LimitReached,
        lane_instructions: u64,
        blocks_done: u64,
        blocks: u64,
        seconds: f64,
    },
    /// An indirect call through an address that names no function.
    BadCallTarget { address: u64 },
    /// The per-thread stack (local memory for call frames) overflowed, e.g. by deep
    /// recursion.
    StackOverflow { bytes: u64 },
    /// A `tex` through a handle that names no bound texture (an unbound texture
    /// reference, or a destroyed or made-up texture object).
    UnboundTexture { handle: u64 },
    /// An access to device-heap memory (`crate::heap`) outside every block `malloc`
    /// returned: past the end of the block `below` (its address and size), if any.
    HeapOutOfBounds {
        address: u64,
        size: u32,
        is_write: bool,
        below: Option<(u64, u64)>,
    },
    /// An access into a device-heap block (address and size) after `free` released it.
    HeapUseAfterFree {
        address: u64,
        size: u32,
        is_write: bool,
        block: (u64, u64),
    },
    /// A device `free` of a block (of `size` bytes) that was freed already.
    HeapDoubleFree { address: u64, size: u64 },
    /// A device `free` of a pointer that no device `malloc` returned.
    HeapInvalidFree { address: u64 },
}

/// Threads that wait: at which instruction, for what, how many.
#[derive(Clone, Debug, PartialEq)]
pub struct Waiter {
    pub warp: u32,
    /// Lanes of the warp that wait there.
    pub lanes: u32,
    pub func: FuncId,
    pub inst: InstId,
    pub source: Option<SourceLoc>,
    pub what: WaitKind,
}

/// What waiting threads wait for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum WaitKind {
    /// `bar.sync`/`barrier.sync`/`bar.red` with this barrier id; `expected` threads
    /// (all non-exited threads of the block if the instruction gives no count).
    Barrier {
        id: u32,
        arrived: u32,
        expected: u32,
    },
    /// `bar.warp.sync` with this member mask.
    WarpSync { mask: u32 },
    /// The grid-wide barrier (`grid_group::sync()`), which blocks that exited (or, in a
    /// launch that is not cooperative, blocks that are not resident) never reach.
    GridSync { cooperative: bool },
}

impl fmt::Display for FaultKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            FaultKind::OutOfBounds {
                space,
                address,
                size,
                is_write,
            } => write!(
                f,
                "out-of-bounds {} of {size} bytes at {} address {address:#x}",
                if *is_write { "write" } else { "read" },
                space_name(*space)
            ),
            FaultKind::Misaligned {
                space,
                address,
                size,
            } => write!(
                f,
                "misaligned {size}-byte access at {} address {address:#x}",
                space_name(*space)
            ),
            FaultKind::ReadOnly { space, address } => write!(
                f,
                "write to read-only {} memory at {address:#x}",
                space_name(*space)
            ),
            FaultKind::BadGenericAddress { address } => write!(
                f,
                "generic address {address:#x} is in no state space (null or wild pointer)"
            ),
            FaultKind::Trap => write!(f, "trap"),
            FaultKind::AssertionFailed {
                message,
                file,
                line,
                function,
            } => write!(
                f,
                "assertion `{message}` failed in {function} at {file}:{line}"
            ),
            FaultKind::Deadlock { waiting, exited } => {
                write!(f, "deadlock: ")?;
                write_waiters(f, waiting)?;
                write!(f, "; {exited} threads exited")
            }
            FaultKind::BudgetExhausted { budget, waiting } => {
                write!(f, "a warp executed more than {budget} instructions")?;
                if !waiting.is_empty() {
                    write!(f, " while other threads wait (likely a hang): ")?;
                    write_waiters(f, waiting)?;
                }
                Ok(())
            }
            FaultKind::Spin { period, waiting } => {
                write!(
                    f,
                    "these threads loop forever: nothing else in their block can run, the loop reads no memory outside the block, and their whole state came back after {period} instructions"
                )?;
                if !waiting.is_empty() {
                    write!(f, ", while other threads wait: ")?;
                    write_waiters(f, waiting)?;
                }
                Ok(())
            }
            FaultKind::LaunchLimit {
                limit,
                lane_instructions,
                blocks_done,
                blocks,
                seconds,
            } => write!(
                f,
                "the launch was stopped at its {limit}: after {seconds:.1} s and {lane_instructions} lane-instructions, \
                 {blocks_done} of {blocks} blocks had finished; this block was still running here"
            ),
            FaultKind::BadCallTarget { address } => {
                write!(
                    f,
                    "indirect call through {address:#x}, which is no function"
                )
            }
            FaultKind::StackOverflow { bytes } => {
                write!(f, "per-thread stack overflow ({bytes} bytes needed)")
            }
            FaultKind::UnboundTexture { handle } => {
                write!(
                    f,
                    "texture fetch through handle {handle:#x}, which names no bound texture"
                )
            }
            FaultKind::HeapOutOfBounds {
                address,
                size,
                is_write,
                below,
            } => {
                write!(
                    f,
                    "out-of-bounds {} of {size} bytes at device-heap address {address:#x}",
                    rw(*is_write)
                )?;
                match below {
                    Some((base, len)) if *address >= base + len => write!(
                        f,
                        ", {} bytes past the end of the {len}-byte block malloc returned at {base:#x}",
                        address - (base + len)
                    ),
                    Some((base, len)) => write!(
                        f,
                        ", running past the end of the {len}-byte block malloc returned at {base:#x}"
                    ),
                    None => write!(f, ", in no block malloc returned"),
                }
            }
            FaultKind::HeapUseAfterFree {
                address,
                size,
                is_write,
                block: (base, len),
            } => write!(
                f,
                "{} of {size} bytes at {address:#x}, inside the {len}-byte device-heap block at {base:#x} after it was freed",
                rw(*is_write)
            ),
            FaultKind::HeapDoubleFree { address, size } => write!(
                f,
                "free of the {size}-byte device-heap block at {address:#x}, which was freed already"
            ),
            FaultKind::HeapInvalidFree { address } => write!(
                f,
                "free of {address:#x}, which no device-side malloc returned"
            ),
        }
    }
}

fn rw(is_write: bool) -> &'static str {
    if is_write { "write" } else { "read" }
}

/// Why a grid-wide barrier never completes.
pub fn grid_sync_reason(cooperative: bool) -> &'static str {
    if cooperative {
        "that blocks which exited never reach"
    } else {
        "in a launch that is not cooperative (only cudaLaunchCooperativeKernel makes every block resident)"
    }
}

fn write_waiters(f: &mut fmt::Formatter<'_>, waiting: &[Waiter]) -> fmt::Result {
    for (i, w) in waiting.iter().enumerate() {
        if i > 0 {
            write!(f, ", ")?;
        }
        let n = w.lanes.count_ones();
        // The source line where there is one, else the PTX instruction.
        let place = w
            .source
            .map_or_else(|| w.inst.to_string(), |s| format!("line {}", s.line));
        match w.what {
            WaitKind::Barrier {
                id,
                arrived,
                expected,
            } => write!(
                f,
                "{n} threads of warp {} wait at barrier {id} ({place}; {arrived} of {expected} arrived)",
                w.warp
            )?,
            WaitKind::WarpSync { mask } => write!(
                f,
                "{n} threads of warp {} wait at bar.warp.sync {mask:#010x} ({place})",
                w.warp
            )?,
            WaitKind::GridSync { cooperative } => write!(
                f,
                "{n} threads of warp {} wait at the grid-wide barrier ({place}) {}",
                w.warp,
                grid_sync_reason(cooperative)
            )?,
        }
    }
    Ok(())
}

/// The PTX name of a state space.
pub fn space_name(space: MemSpace) -> &'static str {
    match space {
        MemSpace::Generic => "generic",
        MemSpace::Global => "global",
        MemSpace::Shared | MemSpace::SharedCluster => "shared",
        MemSpace::Local => "local",
        MemSpace::Const => "const",
        MemSpace::Param => "param",
    }
}

/// Why the emulator did not (or could not finish to) run a kernel.
#[derive(Debug, thiserror::Error, Clone, PartialEq)]
pub enum EmuError {
    /// The launch configuration is invalid (zero dimensions, too many threads per block,
    /// too much shared memory, wrong parameter block size, not a kernel).
    #[error("invalid launch: {0}")]
    InvalidLaunch(String),
    /// The kernel uses something the emulator does not implement.
    #[error("unsupported: {what}{}", location.as_ref().map(|l| format!(" (at {l})")).unwrap_or_default())]
    Unsupported {
        what: String,
        /// `path:line:col` of the instruction, or the instruction id when no `.loc`.
        location: Option<String>,
    },
    /// An invariant of the emulator broke: a bug in warpcheck, not in the kernel.
    #[error("emulator bug: {0}")]
    Internal(String),
}

impl EmuError {
    pub(crate) fn unsupported(what: impl Into<String>) -> EmuError {
        EmuError::Unsupported {
            what: what.into(),
            location: None,
        }
    }
}
