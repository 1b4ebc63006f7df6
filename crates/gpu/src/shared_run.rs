//! The shared-memory run of a launch: the [`crate::Variant::Shared`] kernel over the
//! launch's buffers, then [`shared_ptx::FINAL`] for the last region, then the witnesses
//! (a few hundred bytes) come back.

use crate::device::{Allocs, Resident};
use crate::exec::{DeviceBuffer, DeviceLaunch, Executor, Param};
use crate::passes::{CheckOptions, Launch, RaceKind};
use crate::shared::{SharedPlan, SharedRace, SharedScope, SharedSide};
use crate::shared_ptx::{FINAL, MAX_RECORDS, RECORD, RECORDS_AT, RES_BYTES};
use crate::{GpuError, Instrumented};

/// What the shared run found.
#[derive(Clone, Debug, Default)]
pub struct SharedOutcome {
    pub races: Vec<SharedRace>,
    /// Racy (byte, warp pair) events in all, of which `races` are one per kind and pair
    /// of sites.
    pub events: u64,
    /// Why shared memory was not checked in this launch, when it was not.
    pub skipped: Option<String>,
}

/// The launch's shape: blocks, warps per block, bytes per copy.
struct Shape {
    blocks: u64,
    warps: u64,
    size: u64,
}

/// Runs the shared variant of `inst` on `launch` (its buffers on the device in `res`).
pub(crate) fn check(
    exec: &mut dyn Executor,
    inst: &Instrumented,
    launch: &Launch,
    res: &Resident,
    opts: CheckOptions,
) -> Result<SharedOutcome, GpuError> {
    let (Some(ptx), SharedScope::Checked(plan)) = (&inst.shared, &inst.plan.shared) else {
        return Ok(SharedOutcome::default());
    };
    let threads: u64 = launch.block.iter().map(|&b| b as u64).product();
    let shape = Shape {
        blocks: launch.grid.iter().map(|&g| g as u64).product(),
        warps: threads.div_ceil(32).max(1),
        size: plan.copy_bytes(launch.shared),
    };
    let copies = shape.blocks * shape.warps * shape.size;
    let needed = copies * 9 + shape.blocks * shape.size;
    if needed > opts.max_private_bytes {
        return Ok(SharedOutcome {
            skipped: Some(format!(
                "the per-warp copies of shared memory and their maps ({needed} bytes) exceed the limit of {} bytes (--gpu-memory)",
                opts.max_private_bytes
            )),
            ..SharedOutcome::default()
        });
    }
    if shape.size == 0 {
        return Ok(SharedOutcome::default());
    }
    let mut allocs = Allocs::default();
    let out = run(exec, inst, ptx, plan, launch, res, &shape, &mut allocs);
    allocs.free(exec);
    out
}

#[allow(clippy::too_many_arguments)]
fn run(
    exec: &mut dyn Executor,
    inst: &Instrumented,
    ptx: &str,
    plan: &SharedPlan,
    launch: &Launch,
    res: &Resident,
    shape: &Shape,
    allocs: &mut Allocs,
) -> Result<SharedOutcome, GpuError> {
    let copies = shape.blocks * shape.warps * shape.size;
    let ctr = allocs.alloc(exec, shape.blocks * 8)?;
    let result = allocs.alloc(exec, RES_BYTES as u64)?;
    let bufs = [
        allocs.alloc(exec, copies)?,
        allocs.alloc(exec, shape.blocks * shape.size)?,
        allocs.alloc(exec, copies * 4)?,
        allocs.alloc(exec, copies * 4)?,
        ctr,
        result,
    ];
    let mut params = crate::device::reset_working(exec, launch, res)?;
    params.extend(bufs.iter().map(|&b| Param::ptr(b)));
    params.push(Param::u32(shape.size as u32));
    exec.launch(&DeviceLaunch {
        ptx,
        kernel: &inst.kernel,
        grid: launch.grid,
        block: launch.block,
        shared: launch.shared,
        params: &params,
    })?;
    exec.fill(ctr, 0, shape.blocks * 8, 0)?;
    let mut last: Vec<Param> = bufs.iter().map(|&b| Param::ptr(b)).collect();
    last.push(Param::u32(shape.size as u32));
    last.push(Param::u32(shape.warps as u32));
    exec.launch(&DeviceLaunch {
        ptx,
        kernel: FINAL,
        grid: [shape.blocks as u32, 1, 1],
        block: [256, 1, 1],
        shared: 0,
        params: &last,
    })?;
    witnesses(exec, plan, result)
}

/// The records of `res`, as races.
fn witnesses(
    exec: &mut dyn Executor,
    plan: &SharedPlan,
    result: DeviceBuffer,
) -> Result<SharedOutcome, GpuError> {
    let mut head = [0u8; 8];
    exec.download(result, 0, &mut head)?;
    let word = |b: &[u8], i: usize| {
        u32::from_le_bytes([b[4 * i], b[4 * i + 1], b[4 * i + 2], b[4 * i + 3]])
    };
    let kept = word(&head, 0).min(MAX_RECORDS) as usize;
    let mut records = vec![0u8; kept * RECORD as usize];
    exec.download(result, RECORDS_AT as u64, &mut records)?;
    let races = records
        .chunks_exact(RECORD as usize)
        .filter_map(|r| {
            let f: Vec<u32> = (0..8).map(|i| word(r, i)).collect();
            race(plan, &f)
        })
        .collect();
    Ok(SharedOutcome {
        races,
        events: word(&head, 1) as u64,
        skipped: None,
    })
}

/// One record (kind, block, region, byte, warp, site + 1, warp, site + 1) as a race.
fn race(plan: &SharedPlan, f: &[u32]) -> Option<SharedRace> {
    let kind = match f[0] {
        0 => RaceKind::WriteWrite,
        1 => RaceKind::BenignWriteWrite,
        2 => RaceKind::ReadWrite,
        _ => return None,
    };
    let (var, offset) = plan.locate(f[3] as u64)?;
    let site = |s: u32| {
        (s as usize)
            .checked_sub(1)
            .filter(|&i| i < plan.sites.len())
    };
    Some(SharedRace {
        kind,
        var: var.name.clone(),
        offset,
        block: f[1],
        region: f[2],
        first: SharedSide {
            warp: f[4],
            site: site(f[5]),
            write: true,
        },
        second: SharedSide {
            warp: f[6],
            site: site(f[7]),
            write: kind != RaceKind::ReadWrite,
        },
    })
}
