//! # `barrier-divergence` (error)
//!
//! ## What it does
//! Finds `__syncthreads()` (`bar.sync`) under thread-dependent control: some threads of
//! a block reach it and others do not, while those others have not exited. Threads that
//! only leave the kernel before the barrier are exempt (`if (i >= n) return;` then
//! `__syncthreads()` is fine): a thread-dependent branch counts when the threads that
//! skip the barrier go on to execute code that the threads after the barrier also
//! execute, or pass another barrier or a loop.
//!
//! ## Why is this bad?
//! PTX §9.7.12.1: a barrier must be reached by all non-exited threads of the block;
//! otherwise the behaviour is undefined. In practice the block hangs or the barrier
//! releases threads at the wrong point, and shared-memory reads race with writes.
//!
//! ## Example
//! ```cuda
//! if (threadIdx.x < 16) {
//!     tile[threadIdx.x] = in[threadIdx.x];
//!     __syncthreads(); // threads 16.. never arrive
//! }
//! out[threadIdx.x] = tile[threadIdx.x % 16];
//! ```
//! Use instead: move `__syncthreads()` out of the branch.

use std::collections::BTreeSet;

use warpcheck_ir::{BlockId, EntityRef, InstId, Op};
use warpcheck_report::{Code, Finding, Severity};

use super::location_of;
use crate::analysis::Analysis;

/// Whether a block does nothing but leave the function.
pub(super) fn trivial_exit(a: &Analysis<'_>, b: BlockId) -> bool {
    a.body.blocks[b].insts().all(|i| {
        matches!(
            a.body.inst(i).op,
            Op::Ret { .. } | Op::Exit {} | Op::Bra { .. }
        )
    }) && a.body.cfg.succs(b).iter().all(|&s| trivial_exit(a, s))
}

pub(super) fn reachable_from(
    a: &Analysis<'_>,
    start: BlockId,
    stop: Option<BlockId>,
) -> BTreeSet<BlockId> {
    let mut seen = BTreeSet::new();
    let mut stack = vec![start];
    while let Some(b) = stack.pop() {
        if Some(b) == stop || !seen.insert(b) {
            continue;
        }
        stack.extend(a.body.cfg.succs(b).iter().copied());
    }
    seen
}

pub(super) fn barrier_divergence(
    a: &Analysis<'_>,
    inst: InstId,
    block: BlockId,
) -> Option<Finding> {
    let cond = &a.block_cond[block.index()];
    if !cond.deps().varies_in_block() {
        return None;
    }
    // Blocks that can reach the barrier.
    let mut reaching = BTreeSet::new();
    let mut stack = vec![block];
    while let Some(b) = stack.pop() {
        if reaching.insert(b) {
            stack.extend(a.body.cfg.preds(b).iter().copied());
        }
    }
    let after = reachable_from(a, block, None);
    let barrier_blocks: BTreeSet<BlockId> = a.barriers.iter().map(|(_, b)| *b).collect();
    for &br in &reaching {
        let Some(c) = &a.branch_cond[br.index()] else {
            continue;
        };
        if !c.deps().varies_in_block() || a.block_cond[br.index()].as_const() == Some(false) {
            continue;
        }
        for &s in a.body.cfg.succs(br) {
            if reaching.contains(&s) {
                continue;
            }
            let skip = reachable_from(a, s, None);
            let harmful = skip.iter().any(|&x| {
                (after.contains(&x) && !trivial_exit(a, x))
                    || barrier_blocks.contains(&x)
                    || a.body.loops.is_header(x)
            });
            if harmful {
                let line = a.body.terminator(br).and_then(|t| location_of(a, t));
                let mut f = Finding::new(
                    Code::BarrierDivergence,
                    Severity::Error,
                    "barrier under thread-dependent control: some threads of the block skip it".to_string(),
                )
                .note(format!("executed only when {cond}"))
                .help("move __syncthreads() out of the thread-dependent branch, or make the condition the same for the whole block");
                if let Some(l) = line {
                    f = f.related(l, format!("threads diverge here (`{c}`)"));
                }
                let _ = inst;
                return Some(f);
            }
        }
    }
    None
}
