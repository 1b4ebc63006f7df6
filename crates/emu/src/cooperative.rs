//! Cooperative launches (`cudaLaunchCooperativeKernel`): every block of the grid is
//! resident at once, so the grid-wide barrier of `cooperative_groups::grid_group::sync()`
//! can complete.
//!
//! warpcheck's `cooperative_groups` header implements `grid.sync()` as `__syncthreads()`,
//! a call of the bodiless device function `__warpcheck_grid_sync` (a [`Native`] call), and
//! `__syncthreads()` again. Each thread that makes the call waits there ([`Wait::Grid`]);
//! a block whose remaining threads all wait stops running ([`Block::run`]) with its
//! warps, shared memory and barriers kept.
//!
//! The launch runs in *phases* on the calling thread: phase 0 starts every block and runs
//! it until it ends or stops at the barrier; when every block that has not ended stopped
//! there, the barrier completes and phase 1 resumes them all, and so on. A block that
//! ended while others wait at the barrier leaves them waiting for ever, as on a GPU: each
//! waiting block then ends with a deadlock fault. In a launch that is not cooperative a
//! block reaching the barrier faults the same way, unless it is the grid's only block.
//!
//! Checkers see each phase of a block as a block of its own: at the barrier every
//! block's observer ends ([`Observer::on_block_end`]) and all are merged in block order;
//! the factory then learns that the barrier orders everything before it before
//! everything after it ([`ObserverFactory::grid_barrier`]), and each block goes on with
//! its own observer, recycled ([`Observer::on_block_resume`]).
//!
//! [`Native`]: crate::calls::Native
//! [`Wait::Grid`]: crate::exec::control::Wait::Grid

use crate::block::{BarrierState, Block, BlockResult, LaunchCx, Rng, WarpState};
use crate::block::{block_rng, shared_size};
use crate::observer::{NoObserver, Observer, ObserverFactory};
use crate::{LaunchConfig, MAX_REPORTED_FAULTS, RunOutcome};

/// A block kept between phases.
struct Resident {
    idx: [u32; 3],
    warps: Vec<WarpState>,
    shared: Vec<u8>,
    barriers: [BarrierState; 16],
    live_threads: u32,
    rng: Rng,
    grid_arrived: u32,
    out: BlockResult,
    /// Ended: every thread exited, or a fault.
    done: bool,
}

/// How a phase begins for a block.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Step {
    Start,
    Resume,
    /// The barrier can never complete: the block ends with a deadlock fault.
    Stuck,
}

/// Runs one phase of block `r`.
fn run_phase<O: Observer>(cx: &LaunchCx<'_>, r: &mut Resident, obs: &mut O, step: Step) {
    let threads = cx.block[0] * cx.block[1] * cx.block[2];
    let rng = std::mem::replace(&mut r.rng, block_rng(cx, r.idx));
    let out = std::mem::take(&mut r.out);
    let reported_lanes = out.stats.lane_instructions;
    let mut block = Block {
        cx,
        idx: r.idx,
        warps: &mut r.warps[..],
        shared: &mut r.shared,
        barriers: r.barriers,
        live_threads: r.live_threads,
        rng,
        obs,
        out,
        yield_warp: false,
        grid_arrived: r.grid_arrived,
        reported_lanes,
        quantum_end: 0,
        spin: Default::default(),
    };
    let fault = match step {
        Step::Stuck => Some(block.grid_deadlock(true)),
        Step::Start | Step::Resume => {
            if step == Step::Start {
                block.init_warps(threads);
                if O::ENABLED {
                    block.obs.on_block_start(r.idx, threads);
                }
            } else {
                block.grid_release();
                if O::ENABLED {
                    block.obs.on_block_resume(r.idx, threads);
                }
            }
            let fault = block.run().err();
            if O::ENABLED {
                block.obs.on_block_end(r.idx);
            }
            fault
        }
    };
    let Block {
        barriers,
        live_threads,
        rng,
        mut out,
        grid_arrived,
        ..
    } = block;
    r.done = fault.is_some() || live_threads == 0;
    out.fault = out.fault.take().or(fault);
    (r.barriers, r.live_threads, r.rng, r.out, r.grid_arrived) =
        (barriers, live_threads, rng, out, grid_arrived);
}

/// Runs a cooperative launch; see the module documentation.
pub(crate) fn run<F: ObserverFactory>(
    cx: &LaunchCx<'_>,
    blocks: impl Iterator<Item = [u32; 3]>,
    config: &LaunchConfig,
    observers: &mut F,
    outcome: &mut RunOutcome,
) {
    let threads = cx.block[0] * cx.block[1] * cx.block[2];
    let nwarps = threads.div_ceil(32) as usize;
    let mut resident: Vec<Resident> = blocks
        .map(|idx| Resident {
            idx,
            warps: (0..nwarps).map(|_| WarpState::new(cx.flat)).collect(),
            shared: vec![0; shared_size(cx)],
            barriers: [BarrierState::default(); 16],
            live_threads: threads,
            rng: block_rng(cx, idx),
            grid_arrived: 0,
            out: BlockResult::default(),
            done: false,
        })
        .collect();
    // Each block keeps its own observer from phase to phase.
    let mut kept: Vec<Option<F::Observer>> = resident.iter().map(|_| None).collect();
    let mut step = Step::Start;
    loop {
        let mut observed = Vec::new();
        let mut owners = Vec::new();
        for (i, r) in resident.iter_mut().enumerate().filter(|(_, r)| !r.done) {
            let mut obs = match kept[i].take() {
                Some(mut o) => {
                    observers.recycle(&mut o, r.idx);
                    o
                }
                None => observers.create(r.idx),
            };
            run_phase(cx, r, &mut obs, step);
            observed.push((r.idx, obs));
            owners.push(i);
            outcome.printf.push_str(&std::mem::take(&mut r.out.printf));
        }
        observers.merge(&mut observed);
        for (i, (_, o)) in owners.into_iter().zip(observed) {
            kept[i] = Some(o);
        }
        let waiting = resident.iter().filter(|r| !r.done).count();
        if waiting == 0 {
            break;
        }
        if waiting < resident.len() {
            // Blocks that ended never arrive.
            for r in resident.iter_mut().filter(|r| !r.done) {
                run_phase(cx, r, &mut NoObserver, Step::Stuck);
            }
            break;
        }
        observers.grid_barrier();
        step = Step::Resume;
    }
    for r in resident {
        if let Some(progress) = &config.progress {
            progress.block_finished();
        }
        let mut stats = r.out.stats;
        stats.blocks = 1;
        outcome.stats.add(&stats);
        if let Some(f) = r.out.fault {
            outcome.fault_count += 1;
            if outcome.faults.len() < MAX_REPORTED_FAULTS {
                outcome.faults.push(f);
            }
        }
    }
}
