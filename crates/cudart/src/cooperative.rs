//! `cudaLaunchCooperativeKernel`: a launch whose blocks are all resident at once, so that
//! `cooperative_groups::this_grid().sync()` can complete (the emulator runs such a
//! launch in phases between grid-wide barriers: `warpcheck_emu`'s `cooperative.rs`).
//!
//! As the real runtime does, the launch fails with `cudaErrorCooperativeLaunchTooLarge`
//! when the grid has more blocks than the device holds at once: the occupancy of the
//! kernel with this block size and dynamic shared memory
//! (`cudaOccupancyMaxActiveBlocksPerMultiprocessor`) times the multiprocessors.

use std::ffi::c_void;

use crate::api::{self, Fail};
use crate::device::MULTIPROCESSORS;
use crate::host_line::CallSite;
use crate::launch::Args;
use crate::state::PendingLaunch;
use crate::types::*;

/// `cudaLaunchCooperativeKernel(func, grid, block, args, shmem, stream)`.
///
/// # Safety
/// `args` holds one pointer per kernel parameter.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cudaLaunchCooperativeKernel(
    func: *const c_void,
    grid: Dim3,
    block: Dim3,
    args: *mut *mut c_void,
    shared: usize,
    stream: *mut c_void,
) -> CudaError {
    let site = CallSite::capture();
    api::call("cudaLaunchCooperativeKernel", |rt| {
        let (_, _, static_shared) = rt.kernel_facts(func)?;
        let threads = (block.x as u64 * block.y as u64 * block.z as u64).min(i32::MAX as u64);
        let per_sm = rt.blocks_per_sm(static_shared, threads as i32, shared);
        let resident = per_sm as u64 * MULTIPROCESSORS as u64;
        let blocks = grid.x as u64 * grid.y as u64 * grid.z as u64;
        if blocks > resident {
            return Err(Fail::Api(
                COOPERATIVE_LAUNCH_TOO_LARGE,
                format!(
                    "the grid has {blocks} blocks; at most {resident} blocks of {threads} threads \
                     ({per_sm} per multiprocessor, {MULTIPROCESSORS} multiprocessors) are resident at once"
                ),
            ));
        }
        let cfg = PendingLaunch {
            grid: grid.array(),
            block: block.array(),
            shared,
            stream: stream as usize,
            site,
        };
        rt.launch_kernel(func as usize, cfg, Args::Pointers(args), true)
    })
}
