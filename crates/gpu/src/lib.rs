//! GPU-mode race detection: the kernel's own PTX, instrumented, runs on a real GPU (or in
//! the emulator) and races are found by comparing values, not by monitoring accesses.
//!
//! The method is LD (Li et al., *LD: Low-Overhead GPU Race Detection Without Access
//! Monitoring*, TACO 2017):
//!
//! * **Privatisation** (§4.1, §4.4, §5): every global buffer the kernel writes with plain
//!   stores (a *target*) gets private copies; the PTX is rewritten so that each *unit*'s
//!   accesses to the buffer go to its copy ([`rewrite`], after the pointer analysis in
//!   [`analysis`]). A unit is a warp, or a block in kernels with block barriers (warps of
//!   a block legitimately exchange data across a barrier; global buffers are not merged
//!   at barriers inside the kernel). Each unit finds its copy in a unit-to-copy table the
//!   host writes.
//! * **Shared memory** (§4.4: barriers delimit regions; [`shared`], [`shared_ptx`],
//!   [`shared_run`]): one more run of a third variant gives every warp a private copy of
//!   the block's `__shared__` variables (in global memory); its `ld.shared`/`st.shared`
//!   go to its copy and mark the site in a read or write map. After every block barrier
//!   the block's threads compare the copies byte by byte with the region's stale
//!   contents: two warps writing a byte (by value) with different values are a
//!   write-write race, equal values a benign one; a warp that read a byte another warp
//!   wrote in the region is a read-write race. The writes are merged (the highest warp
//!   wins), every copy refreshed, the maps cleared. A separate kernel compares the last
//!   region after the kernel ends. Reads are recorded rather than found by re-running
//!   the region as LD's pass 2 would: a re-run needs the warp's registers saved at every
//!   barrier and cannot repeat regions with atomics, global read-modify-writes or
//!   `printf`, while a read map is one store per load and checks every region.
//! * **Two passes** (§4.1–4.3, [`passes`]): pass 1 runs with every copy holding the stale
//!   (original) contents; a copy's writes are the bytes where it differs from the stale
//!   contents. Two copies writing one byte with different values are a write-write race;
//!   with equal values a benign one (§4.7). Pass 2 reruns every copy on the other copies'
//!   writes; a copy whose writes change has read another copy's writes: a read-write
//!   race. A third run, only when races were found, records which instruction and unit
//!   accessed each byte to name the source lines; the other unit of a read-write race is
//!   found by bisecting over the writing copies.
//! * **Atomics** act on the real buffer. A plain write to a byte the atomics changed is a
//!   race with them; an atomic-read run starts every copy from the atomics' results and
//!   finds the units that read them.
//! * **Memory-adaptive rounds** (§4.5): when a copy per unit does not fit the limit, `M`
//!   copies are shared by groups of units over `ceil(log_M N)` rounds, reshuffled so that
//!   every two units are in different copies in some round; LD's Equation (1) after each
//!   round ([`passes::probability`]).
//! * **Sampling of units** ([`passes::unit_maps`]): when checking every unit would take
//!   more than [`CheckOptions::max_rounds`] rounds, the units of a sample of blocks are
//!   watched, chosen as the CPU race checker chooses them (`--race-blocks`: the first and
//!   last blocks along each dimension and pairs of neighbours, Park, Sen, Iancu, ICS
//!   2013); the other units share one copy, so races between two of them are missed
//!   (said in a `race-check-sampled` note), races between them and watched units are not.
//! * **Deterministic execution** (§4.6, [`passes::deterministic`]): one privatised pass
//!   whose copies are merged in unit order (warp-id, then block-id), so a racy kernel gives
//!   the same output on every run.
//!
//! The comparisons (write sets, write-write conflicts, merge, pass-2 check, seeding of the
//! bisection runs, read witnesses) run on the device as LD's data-parallel steps
//! ([`kernels`]: PTX generated here, launched through the same [`Executor`]); the copies
//! never come back to the host, only counts and a bounded list of witnesses.
//!
//! Execution is behind the [`Executor`] trait: [`EmuExecutor`] runs the instrumented PTX
//! through the normal lowering and emulator (what the tests use), [`CudaExecutor`] loads
//! `libcuda.so` at run time and lets the driver JIT-compile the PTX (no toolkit needed).
//!
//! Not checked: races between lanes of a warp (a warp is the smallest unit); races between
//! warps of a block on global buffers in kernels with barriers; races between two blocks
//! outside the sample of a sampled launch (a `race-check-sampled` note); shared memory of kernels
//! that use it in ways [`shared`] lists (shared atomics, `cp.async`, volatile accesses,
//! addresses traced to no single variable, named or counted barriers, device functions
//! with shared accesses or barriers), or whose per-warp copies exceed the memory limit;
//! buffers reached through pointers loaded from memory, and device-function callees that
//! receive a target pointer (refused). Each is said in a `gpu-scope-unchecked` note.
//! Value-based checking misses races whose writes leave the value unchanged (§4.7: a
//! write undone before the end, a write of the value already there, such as zero into
//! shared memory at the kernel's start, where the copies start from zero; atomics
//! likewise).

pub mod analysis;
mod attribution;
pub mod cuda;
mod device;
pub mod emu_exec;
pub mod exec;
pub mod kernels;
pub mod passes;
pub mod report;
pub mod rewrite;
pub mod shared;
pub mod shared_ptx;
pub mod shared_run;

pub use analysis::{Plan, Site, SiteKind, Target};
pub use cuda::CudaExecutor;
pub use emu_exec::EmuExecutor;
pub use exec::{Arg, DeviceBuffer, DeviceLaunch, Executor, KernelRun, Metered, Param, Traffic};
pub use passes::{CheckOptions, Launch, LaunchBuffer, Profile, Race, RaceKind, Sampled, Verdict};
pub use rewrite::Variant;
pub use shared::{SharedPlan, SharedScope};

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
    /// The kernel with its shared memory privatised per warp ([`Variant::Shared`]), when
    /// its shared memory is checked.
    pub shared: Option<String>,
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
        shared: match plan.shared {
            SharedScope::Checked(_) => Some(print(Variant::Shared)?),
            _ => None,
        },
        plan,
    })
}
