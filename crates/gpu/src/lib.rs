//! GPU-mode race detection: the kernel's own PTX, instrumented, runs on a real GPU (or in
//! the emulator) and races are found by comparing values, not by monitoring accesses.
//!
//! The method is LD (Li et al., *LD: Low-Overhead GPU Race Detection Without Access
//! Monitoring*, TACO 2017):
//!
//! * **Privatisation** (§4.1, §4.4, §5): every global buffer the kernel writes with plain
//!   stores (a *target*) gets one private copy per block; the PTX is rewritten so that
//!   block `b`'s accesses to the buffer go to its copy ([`rewrite`], after the pointer
//!   analysis in [`analysis`]).
//! * **Two passes** (§4.1–4.3, [`passes`]): pass 1 runs with every copy holding the stale
//!   (original) contents; a block's writes are the bytes where its copy differs. Two blocks
//!   writing one byte with different values are a write-write race; with equal values a
//!   benign one (§4.7). Pass 2 reruns every block on a copy holding every other block's
//!   writes; a block whose writes change has read another block's writes: a read-write
//!   race. A third run, only when races were found, records which instruction accessed
//!   each byte to name the source lines; the other block of a read-write race is found by
//!   bisecting over the writing blocks.
//! * **Deterministic execution** (§4.6, [`passes::deterministic`]): one privatised pass
//!   whose copies are merged in block order, so a racy kernel gives the same output on
//!   every run.
//!
//! Execution is behind the [`Executor`] trait: [`EmuExecutor`] runs the instrumented PTX
//! through the normal lowering and emulator (what the tests use), [`CudaExecutor`] loads
//! `libcuda.so` at run time and lets the driver JIT-compile the PTX (no toolkit needed).
//!
//! What this slice checks: races *between blocks* on the global buffers reached from
//! pointer parameters, at byte granularity, by value. Not yet: races between warps of a
//! block and on shared memory (LD's per-warp privatisation, the next slice),
//! memory-adaptive rounds (§4.5; launches whose private copies exceed a limit are refused),
//! atomics against plain accesses (atomics act on the real buffer and are not compared),
//! buffers reached through pointers loaded from memory, and device-function callees that
//! receive a target pointer (refused). Value-based checking misses races whose writes
//! leave the value unchanged (§4.7).

pub mod analysis;
pub mod cuda;
pub mod emu_exec;
pub mod exec;
pub mod passes;
pub mod report;
pub mod rewrite;

pub use analysis::{Plan, Site, SiteKind, Target};
pub use cuda::CudaExecutor;
pub use emu_exec::EmuExecutor;
pub use exec::{Arg, Executor, KernelRun};
pub use passes::{CheckOptions, Launch, LaunchBuffer, Race, RaceKind, Verdict};
pub use rewrite::Variant;

use warpcheck_ir::{FuncId, Program};
use warpcheck_ptx::ast::Module;

/// Why GPU mode could not check a kernel.
#[derive(Debug, thiserror::Error)]
pub enum GpuError {
    /// The kernel uses a construct the instrumentation cannot follow.
    #[error("GPU mode cannot instrument this kernel: {0}")]
    Unsupported(String),
    /// No `libcuda.so`, or the driver reports no device.
    #[error("no CUDA driver/GPU found: {0}")]
    NoDevice(String),
    /// The driver failed (JIT compilation, launch, copies).
    #[error("CUDA driver error: {0}")]
    Driver(String),
    /// The emulator could not run the instrumented kernel, or it faulted.
    #[error("{0}")]
    Run(String),
    /// The launch does not fit GPU mode (missing buffer, too much private memory).
    #[error("{0}")]
    Launch(String),
    /// A bug in the instrumentation.
    #[error("internal error in GPU-mode instrumentation: {0}")]
    Internal(String),
}

/// A kernel instrumented both ways, with the analysis that drove it.
#[derive(Clone, Debug)]
pub struct Instrumented {
    /// The kernel's PTX name.
    pub kernel: String,
    /// The privatised kernel's module, as PTX text.
    pub plain: String,
    /// The privatised kernel with site maps, as PTX text.
    pub attribution: String,
    pub plan: Plan,
}

/// Instruments kernel `kernel` of `program`, which was lowered from `module`. Both
/// variants are printed, re-parsed and lowered before they are returned, so a kernel that
/// the instrumentation would break is an error here.
pub fn instrument(
    module: &Module,
    program: &Program,
    kernel: FuncId,
) -> Result<Instrumented, GpuError> {
    instrument_with(module, program, kernel, &|_| true)
}

/// [`instrument`], following only the parameters for which `is_pointer` holds (from the
/// source's signature: a `size_t` is a 64-bit parameter too).
pub fn instrument_with(
    module: &Module,
    program: &Program,
    kernel: FuncId,
    is_pointer: &dyn Fn(usize) -> bool,
) -> Result<Instrumented, GpuError> {
    let plan = analysis::analyse(program, kernel, is_pointer)?;
    let name = program.function(kernel).name.clone();
    let print = |variant| -> Result<String, GpuError> {
        let text = warpcheck_ptx::print(&rewrite::rewrite(module, &name, &plan, variant)?);
        let parsed = warpcheck_ptx::parse(&text);
        if let Some(e) = parsed.errors.first() {
            return Err(GpuError::Internal(format!(
                "instrumented PTX does not parse: {e:?}"
            )));
        }
        warpcheck_ir::lower(&parsed.module).map_err(|e| {
            GpuError::Internal(format!("instrumented PTX does not lower: {:?}", e.first()))
        })?;
        Ok(text)
    };
    Ok(Instrumented {
        kernel: name.clone(),
        plain: print(Variant::Plain)?,
        attribution: print(Variant::Attribution)?,
        plan,
    })
}
