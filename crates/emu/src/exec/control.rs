//! Per-warp control state: thread groups and reconvergence regions.
//!
//! A warp is a set of *groups*, each a program counter and a lane mask. Converged code
//! has one group. At a divergent branch the group splits into the taken and the
//! not-taken lanes, and a *region* records where they meet again: the first op of the
//! branch block's immediate post-dominator (`rpc`), and which lanes are expected there.
//! A group whose pc reaches its region's `rpc` *arrives*: it leaves the runnable set and
//! its lanes are added to the region's `arrived` mask. When every expected lane that has
//! not exited has arrived, the region is *complete* and one merged group continues at
//! `rpc` in the enclosing region. This is the classic SIMT reconvergence stack (as in
//! GPGPU-Sim's post-dominator stack), kept as a tree so that groups can also run in an
//! interleaved order (independent thread scheduling) and wait separately at barriers.
//!
//! Calls are regions too: the caller's group enters the callee with a region whose `rpc`
//! is the op after the call and which remembers the caller's frame; `ret` makes lanes
//! arrive there. A branch whose paths only meet at the function's end (post-dominator =
//! virtual exit, e.g. an early `return`) creates no region: its groups meet when they
//! return or exit.

use crate::exec::Lanes;

/// Function addresses (for indirect calls) are `FUNC_ADDR_BASE + FuncId index`, outside
/// every memory window.
pub(crate) const FUNC_ADDR_BASE: u64 = 0x0000_0f00_0000_0000;

/// No region (the kernel's top level).
pub(crate) const NO_REGION: u32 = u32::MAX;

/// What a group waits for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Wait {
    Runnable,
    /// At a CTA barrier (the group's pc is the barrier op).
    Barrier {
        id: u32,
    },
    /// At `bar.warp.sync` with this member mask.
    WarpSync {
        mask: u32,
    },
    /// At the grid-wide barrier (the group's pc is the call of `__warpcheck_grid_sync`).
    Grid,
}

/// A set of lanes executing together.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Group {
    pub pc: u32,
    pub mask: u32,
    /// Innermost region (where this group reconverges next), or `NO_REGION`.
    pub region: u32,
    /// The current frame: its base in local memory and its flat function.
    pub frame_base: u64,
    pub func: u32,
    pub wait: Wait,
}

/// Saved state of a call (a call region).
#[derive(Clone, Debug)]
pub(crate) struct CallState {
    /// The pc of the call op (to find its return destinations).
    pub call_pc: u32,
    /// For calls into recursive functions: the callee's registers and predicates before
    /// the call, restored for the returning lanes.
    pub saved: Option<(Vec<Lanes>, Vec<u32>)>,
}

/// A reconvergence point.
#[derive(Clone, Debug)]
pub(crate) struct Region {
    pub rpc: u32,
    pub expected: u32,
    pub arrived: u32,
    pub parent: u32,
    /// The frame the merged group continues in.
    pub frame_base: u64,
    pub func: u32,
    pub call: Option<Box<CallState>>,
    pub live: bool,
}

/// The regions of one warp, allocated from a free list.
#[derive(Default)]
pub(crate) struct Regions {
    pub list: Vec<Region>,
    free: Vec<u32>,
}

impl Regions {
    pub fn alloc(&mut self, r: Region) -> u32 {
        match self.free.pop() {
            Some(i) => {
                self.list[i as usize] = r;
                i
            }
            None => {
                self.list.push(r);
                (self.list.len() - 1) as u32
            }
        }
    }

    pub fn release(&mut self, i: u32) {
        if let Some(r) = self.list.get_mut(i as usize) {
            r.live = false;
            r.call = None;
            self.free.push(i);
        }
    }

    pub fn clear(&mut self) {
        self.list.clear();
        self.free.clear();
    }

    /// The pc at which a group in `region` arrives there. Call regions are only arrived
    /// at by `ret` (in a recursive function the pc after the call also occurs inside the
    /// callee), so they have none.
    #[inline]
    pub fn rpc_of(&self, region: u32) -> u32 {
        match self.list.get(region as usize) {
            Some(r) if r.call.is_none() => r.rpc,
            _ => crate::translate::NO_PC,
        }
    }
}
