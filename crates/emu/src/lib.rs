//! The SIMT emulator: runs PTX kernels (as lowered by `warpcheck-ir`) on the CPU, a warp
//! at a time over lane arrays, with checkers attached through [`Observer`]s.
//!
//! ```no_run
//! # use warpcheck_emu::*;
//! # fn demo(program: &warpcheck_ir::Program, kernel: warpcheck_ir::FuncId) -> Result<(), EmuError> {
//! let mut memory = GlobalMemory::new();
//! let n = 1024u32;
//! let x = memory.alloc(4 * n as u64, true).unwrap();
//! let mut params = Vec::new();
//! params.extend_from_slice(&x.to_le_bytes());
//! params.extend_from_slice(&n.to_le_bytes());
//! let config = LaunchConfig::new([4, 1, 1], [256, 1, 1]);
//! let outcome = run(program, kernel, &params, &mut memory, &config)?;
//! for fault in &outcome.faults {
//!     eprintln!("{}", fault.kind);
//! }
//! let bytes = memory.read(x, 4 * n as u64).unwrap();
//! # Ok(()) }
//! ```
//!
//! # Design
//!
//! * **Translation** (module `translate`): once per launch the kernel and every function it
//!   can call are translated into one flat array of ops with resolved register slots,
//!   pre-converted immediates (stored in constant slots, so every source operand is a
//!   slot), resolved addressing modes, branch targets and reconvergence points. One op
//!   per PTX instruction, so a program counter maps back to an `InstId` and `.loc`.
//! * **Lanes**: each warp holds its registers as `[u64; 32]` lane arrays and its
//!   predicates as 32-bit lane masks. Arithmetic ops compute all 32 lanes and blend the
//!   result under the active mask, so the loops vectorise (`exec`).
//! * **Divergence** (`exec::control`): a warp is a set of thread groups (pc + mask).
//!   A divergent branch splits a group and records a reconvergence region at the
//!   branch block's immediate post-dominator ([`warpcheck_ir::Body::ipdom`]); the
//!   groups merge when all expected, non-exited lanes arrive there. Branches whose
//!   post-dominator is the virtual exit (including blocks of infinite loops, which the
//!   post-dominator tree connects artificially) create no region; their groups meet when
//!   the threads exit or return. Calls are regions too.
//! * **Scheduling** ([`Scheduling`]): [`Scheduling::LockStep`] (the default) runs warps
//!   round-robin and, within a warp, one group at a time, depth-first, until it blocks
//!   or reconverges — the behaviour of a pre-Volta SIMT stack, which gives the output a
//!   race-free kernel has on any GPU. A group blocked at a barrier lets the warp's other
//!   groups run (so a `__syncthreads()` in both branches of an `if` works as on sm_70+).
//!   [`Scheduling::Independent`] models independent thread scheduling (sm_70+): at every
//!   taken branch and after short random quanta the scheduler picks a warp and a group
//!   with a seeded generator, so divergent paths and warps interleave. Converged lanes
//!   still execute each instruction together, as Volta and later GPUs do in practice;
//!   orderings that independent scheduling merely *permits* between converged lanes are
//!   the race checker's business (it must not treat lanes of a warp as ordered), not the
//!   scheduler's. Both modes are deterministic for a given seed: each block has its own
//!   generator seeded by the seed and its index. The corpus gives the GPU's outputs under
//!   both (see `tests/gpu_truth.rs`).
//! * **Barriers**: arrivals are counted in threads per barrier id (`bar.sync 0` at two
//!   instructions is one barrier); a barrier without a thread count waits for all
//!   non-exited threads; `bar.arrive` counts without waiting; `bar.red` reduces a
//!   predicate. `bar.warp.sync` waits for the non-exited lanes of its mask. When no
//!   thread of a block can run but some have not exited, the block has deadlocked
//!   ([`FaultKind::Deadlock`], naming who waits where).
//! * **Memory** ([`memory`]): global memory is shared by all blocks and accessed with
//!   atomics of the access width (see the module docs for why this is sound); shared
//!   memory is per block (static variables at their offsets, then the dynamic array);
//!   local memory is per thread, a stack of call frames (`.local` variables, clang's
//!   `__local_depot`, call-sequence `.param`s and device-function parameters); constant
//!   memory holds the module's `.const` variables with their initialisers; kernel
//!   parameters are read from the caller's parameter block (uniform loads are resolved
//!   at translation). Generic addresses map to spaces through disjoint windows.
//! * **Device heap** ([`heap`]): in-kernel `malloc` and `free` (and `new`/`delete`, which
//!   both compilers turn into them) allocate from a heap of
//!   [`GlobalMemory::heap_limit`] bytes (8 MiB unless set), one global allocation placed
//!   by the first launch that needs it and kept across launches. `malloc` returns 16-byte
//!   aligned blocks or NULL when full; `free(NULL)` does nothing. Every access into the
//!   heap must lie in one live block, so overflows, uses after free, double and invalid
//!   frees are faults at their instruction. Kernels that allocate run their blocks in
//!   block order on one host thread whatever [`LaunchConfig::threads`] says, so the
//!   addresses are the same in every run.
//! * **Faults are results**: out-of-bounds and misaligned accesses, wild generic
//!   pointers, misuse of the device heap, `trap`, failed `assert`s, deadlocks and exhausted instruction budgets
//!   are [`Fault`]s with block, thread, instruction and source line. A fault ends its
//!   block; the others run on. [`EmuError`] is for invalid launches and unsupported
//!   instructions (named, with their source line), found before anything runs.
//! * **Host threads**: blocks run in parallel on a rayon pool of
//!   [`LaunchConfig::threads`] threads, each with its own warp state and observer;
//!   results are merged in block order. Outputs are therefore independent of the number
//!   of host threads for every kernel whose blocks do not communicate through global
//!   memory except by commutative atomics (all correct kernels of the corpus). Blocks
//!   that hand out work with the *old values* of atomics, or race on global memory,
//!   can see different interleavings with several host threads; use `threads: 1` for
//!   bit-for-bit reproducible runs of such kernels.
//!
//! # Numerics
//!
//! Integer, conversion and IEEE-exact float operations (add, sub, mul, fma, div, sqrt,
//! rcp with a rounding modifier, in every rounding mode; `.ftz`, `.sat`; f16/bf16) are
//! bit-exact with the GPU. `.approx` operations (`sin`, `cos`, `lg2`, `ex2`, `rsqrt`,
//! `tanh`, `div.approx`, `div.full`) use the host's correctly rounded or ≤ 1 ulp
//! functions, which are within the PTX ISA's error bounds but may differ from the GPU's
//! hardware approximations in the last bits. libdevice functions: see [`math`].
//!
//! ptxas contracts a `mul` and an `add`/`sub` *without* rounding modifiers into one fused
//! multiply-add (PTX ISA §9.7.3.3 allows it; nvcc leaves such pairs in its PTX for
//! ptxas). The emulator does the same when the pairing is unambiguous (the product is
//! used once, by the add, in the same block; module `translate::contract`), which makes
//! kernels such as Rodinia's Gaussian elimination bit-identical with the GPU. Of the 115
//! output buffers of the corpus's GPU runs, 110 (clang's PTX at -O3 and at -O0) and 111
//! (nvcc's PTX) are bit-identical; the rest come from kernels calling transcendental functions
//! (`expf`, `rsqrtf`, `sin`, …) and agree to a few ulps.
//!
//! # Speed
//!
//! Measured with `cargo run --release -p warpcheck-emu --example bench` on this project's
//! 2-core machine (Intel Xeon, AVX-512; other jobs were running, so per-core figures are
//! from process CPU time):
//!
//! | kernel | lane-instructions | 1 host thread | 2 host threads (idle machine) |
//! |---|---|---|---|
//! | vector add, 16M floats, -O3 | 3.7e8 | 6.7–7.8e8 /s | 1.28e9 /s |
//! | tiled matmul 512³, -O3 | 5.5e8 | 5.6–6.2e8 /s | — |
//! | tiled matmul 1024³, -O3 | 4.3e9 | 5.0–5.2e8 /s | 1.0e9 /s |
//! | vector add / matmul 512³, -O0 | 6.9e8 / 4.5e9 | 4.5e8 /s | — |
//!
//! What made the difference (profiled with `perf`): one allocation cache per memory op
//! (a warp alternating between arrays no longer misses), resolving generic addresses of a
//! whole warp in place when all lanes fall in one window, vectorisable branch-free bounds
//! checks, power-of-two alignment masks instead of divisions, `cvta.global` translated to
//! a move, zeroing at block start only the registers that may be read before written,
//! and the host's FMA instruction for `fma.rn.f32` when the CPU has one.
//!
//! # Not supported (reported as [`EmuError::Unsupported`])
//!
//! Surfaces, mipmapped, layered and cube textures, `cp.async.bulk`, `min/max.relu` and
//! `.xorsign`, `fma.relu`, `mad24.hi.sat`, vectors wider than 4 elements, register-addressed
//! `.param` accesses inside device functions, and libdevice functions outside [`math`]'s
//! table (`erf`, `frexp`, `modf`, Bessel functions, …).
//!
//! # API notes
//!
//! [`run`] runs without observers; [`run_observed`] takes an [`ObserverFactory`] (one
//! observer per block, merged in block order). [`GlobalMemory::alloc`] returns a
//! `Result` because an allocation can exceed the emulator's limit ([`MemoryError`]).
//! [`validate`] checks a launch without running it.

// Lane loops index several lane arrays by the lane number on purpose: that shape is the
// one the compiler vectorises.
#![allow(clippy::needless_range_loop)]
// Faults are returned by value from the (cold) fault paths of the executor; boxing them
// would add an allocation for no gain.
#![allow(clippy::result_large_err)]

pub mod args;
mod async_copy;
mod block;
mod calls;
mod cooperative;
mod exec;
pub mod fault;
pub mod heap;
mod launch;
mod limit;
pub mod math;
pub mod memory;
pub mod observer;
mod ops;
mod printf;
pub mod profile;
pub mod sample;
mod spin;
mod sync;
pub mod texture;
mod translate;

pub use fault::{EmuError, Fault, FaultKind, WaitKind, Waiter};
pub use launch::{
    MAX_BLOCK_THREADS, MAX_REPORTED_FAULTS, MAX_SHARED_BYTES, place_globals, prepare_heap,
    run_observed, validate,
};
pub use limit::LimitReached;
pub use memory::{Allocation, DeviceAddr, GlobalMemory, MemoryError};
pub use observer::{
    BarrierEvent, MemEvent, MemKind, NoObserver, NoObservers, Observer, ObserverFactory, Stored,
    WarpSyncEvent,
};

use warpcheck_ir::{FuncId, Program};

/// How the threads of a warp are scheduled (see the crate documentation).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Scheduling {
    /// Deterministic lock-step warps with reconvergence at immediate post-dominators.
    #[default]
    LockStep,
    /// Independent thread scheduling: seeded interleavings of warps and divergent paths.
    Independent { seed: u64 },
}

/// The default instruction budget: warp-instructions one warp may execute.
pub const DEFAULT_BUDGET: u64 = 100_000_000;

/// A kernel launch's configuration.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LaunchConfig {
    pub grid: [u32; 3],
    pub block: [u32; 3],
    /// Bytes of dynamic shared memory (`extern __shared__` arrays).
    pub dynamic_shared: u32,
    /// The most warp-instructions one warp may execute before the run is stopped as a
    /// runaway loop ([`FaultKind::BudgetExhausted`]).
    pub budget: u64,
    /// Host threads running blocks in parallel; 0 means one per available core, or one
    /// when the kernel's outcome can depend on the order of its blocks (atomics whose
    /// results it reads, `exch`, `cas`, float `add` …; see `translate/order.rs`), so that
    /// the default gives the same outputs and reports on every run. A kernel that calls
    /// `malloc` or `free` always runs its blocks on one thread in block order
    /// ([`heap`]).
    pub threads: usize,
    /// The most lane-instructions the whole launch may execute (all blocks together)
    /// before it is stopped ([`FaultKind::LaunchLimit`]); `None`: no limit.
    pub launch_budget: Option<u64>,
    /// The most wall-clock time the launch may take before it is stopped
    /// ([`FaultKind::LaunchLimit`]); `None`: no limit.
    pub timeout: Option<std::time::Duration>,
    pub scheduling: Scheduling,
    /// When set, the run adds 1 to this counter as each block finishes, so that another
    /// thread can show progress. `None` (the default) costs nothing.
    pub progress: Option<BlockProgress>,
    /// A cooperative launch (`cudaLaunchCooperativeKernel`): every block is resident at
    /// once, so a grid-wide barrier (`grid_group::sync()`) can complete; see
    /// `cooperative.rs`.
    pub cooperative: bool,
}

/// A counter of finished blocks, shared between a running launch and an observer thread
/// (e.g. a progress bar). Clones share the counter; two are equal when they are the same
/// counter.
#[derive(Clone, Debug, Default)]
pub struct BlockProgress(std::sync::Arc<std::sync::atomic::AtomicU64>);

impl BlockProgress {
    pub fn new() -> BlockProgress {
        BlockProgress::default()
    }

    /// Blocks finished so far (by every host thread).
    pub fn blocks_done(&self) -> u64 {
        self.0.load(std::sync::atomic::Ordering::Relaxed)
    }

    /// Sets the counter back to 0 (before the next launch).
    pub fn reset(&self) {
        self.0.store(0, std::sync::atomic::Ordering::Relaxed);
    }

    pub(crate) fn block_finished(&self) {
        self.0.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    }
}

impl PartialEq for BlockProgress {
    fn eq(&self, other: &BlockProgress) -> bool {
        std::sync::Arc::ptr_eq(&self.0, &other.0)
    }
}

impl Eq for BlockProgress {}

impl LaunchConfig {
    pub fn new(grid: [u32; 3], block: [u32; 3]) -> LaunchConfig {
        LaunchConfig {
            grid,
            block,
            dynamic_shared: 0,
            budget: DEFAULT_BUDGET,
            threads: 0,
            launch_budget: None,
            timeout: None,
            scheduling: Scheduling::LockStep,
            progress: None,
            cooperative: false,
        }
    }
}

/// Counters of a run.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Stats {
    /// PTX instructions executed, counted once per active thread.
    pub lane_instructions: u64,
    /// PTX instructions executed, counted once per warp (per group of a divergent warp).
    pub warp_instructions: u64,
    pub blocks: u64,
    /// Branches at which a warp's active lanes went different ways.
    pub divergent_branches: u64,
    /// Barrier completions (all blocks, all barrier ids).
    pub barriers: u64,
}

impl Stats {
    pub(crate) fn add(&mut self, other: &Stats) {
        self.lane_instructions += other.lane_instructions;
        self.warp_instructions += other.warp_instructions;
        self.blocks += other.blocks;
        self.divergent_branches += other.divergent_branches;
        self.barriers += other.barriers;
    }
}

/// What a run produced (besides the contents of global memory).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct RunOutcome {
    /// Faults, in block order (at most [`MAX_REPORTED_FAULTS`]).
    pub faults: Vec<Fault>,
    /// How many blocks faulted.
    pub fault_count: usize,
    pub stats: Stats,
    /// `printf` output: blocks in order, each block's lines in execution order.
    pub printf: String,
    /// Where the kernel's shared variables lie in the block's shared memory (checkers name
    /// shared addresses with it).
    pub shared_vars: Vec<SharedVar>,
}

/// A shared variable placed in the block's shared memory.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SharedVar {
    pub var: warpcheck_ir::VarId,
    /// Byte offset in the block's shared memory.
    pub offset: u64,
    /// Bytes, `None` for the dynamic (`extern __shared__`) array, which takes the launch's
    /// dynamic shared memory.
    pub size: Option<u64>,
}

/// Runs `kernel` without observers. `params` is the kernel's parameter block, laid out
/// at the offsets of the IR's parameters ([`warpcheck_ir::symbols::VarRole::Param`]).
pub fn run(
    program: &Program,
    kernel: FuncId,
    params: &[u8],
    memory: &mut GlobalMemory,
    config: &LaunchConfig,
) -> Result<RunOutcome, EmuError> {
    run_observed(program, kernel, params, memory, config, &mut NoObservers)
}
