//! Proving that a spinning warp never stops.
//!
//! A warp that waits in a loop for something no thread can do any more (a flag that a
//! warp stuck at a barrier would have raised) would otherwise run until its instruction
//! budget is spent: 10⁸ instructions, a minute of emulation. This module proves such a
//! hang at once, soundly:
//!
//! * Only one group of threads in the whole block can run (every other warp waits at a
//!   barrier, in `__syncwarp` or at the grid barrier, or has exited). Then nothing but
//!   that group changes the block's state, and the group's next states are a function of
//!   its current state and of memory outside the block.
//! * The group is in a loop whose code cannot see memory outside the block: every op of
//!   the strongly connected component of the control-flow graph around its pc is
//!   arithmetic, a branch, a warp collective, or an access to shared, local, parameter or
//!   constant memory (no global or generic access, no atomic outside shared memory, no
//!   clock, call, barrier, texture or asynchronous copy). Every path from the pc back to
//!   itself stays in that component.
//! * Its state (pc, lanes, reconvergence regions, registers, predicates, local memory)
//!   and the block's shared memory and barriers are the same at two samples, and no
//!   branch diverged in between (so no scheduling choice was made, even under independent
//!   thread scheduling). Then the group repeats the same steps forever: the loop never
//!   exits.
//!
//! Samples are taken every [`LOOK_EVERY`] warp-instructions of the lone group (within a
//! lock-step quantum, without changing the schedule) or after each independent-scheduling
//! quantum, once the group has run alone for [`GATE`] warp-instructions; states are
//! compared by a 128-bit XXH3 hash, saved at the 1st, 2nd, 4th, 8th… sample (Brent's
//! cycle detection), so any period is found within a few times its length.

use std::collections::HashMap;

use xxhash_rust::xxh3::Xxh3;

use warpcheck_ir::modifiers::MemSpace;

use crate::block::{Block, first_lane};
use crate::exec::control::{NO_REGION, Wait};
use crate::fault::{Fault, FaultKind};
use crate::observer::Observer;
use crate::ops::OpKind;
use crate::translate::Flat;

/// Warp-instructions a group runs alone before its states are sampled.
pub(crate) const GATE: u64 = 1 << 16;
/// Warp-instructions between two samples within a lock-step quantum.
pub(crate) const LOOK_EVERY: u64 = 1 << 12;

/// The state of the search for a spinning group in one block.
#[derive(Default)]
pub(crate) struct SpinWatch {
    /// Whether one group alone can run (set by the scheduler before each turn).
    pub watching: bool,
    /// The warp of the lone group and its executed count when it started running alone.
    alone: Option<(usize, u64)>,
    samples: u64,
    /// The saved sample: pc, state hash, executed count, divergent branches of the block.
    saved: Option<(u32, u128, u64, u64)>,
    /// Per pc: whether its loop cannot see memory outside the block.
    closed: HashMap<u32, bool>,
}

impl SpinWatch {
    pub(crate) fn restart(&mut self, alone: Option<(usize, u64)>) {
        self.alone = alone;
        self.samples = 0;
        self.saved = None;
    }
}

impl<O: Observer> Block<'_, O> {
    /// The only runnable group of the block, as (warp, group index), if there is one.
    pub(crate) fn lone_group(&self) -> Option<(usize, usize)> {
        let mut found = None;
        for (w, warp) in self.warps.iter().enumerate() {
            for (gi, g) in warp.groups.iter().enumerate() {
                if g.wait == Wait::Runnable {
                    if found.is_some() {
                        return None;
                    }
                    found = Some((w, gi));
                }
            }
        }
        found
    }

    /// Takes a sample of warp `w`'s lone group; a [`FaultKind::Spin`] fault when its state
    /// repeats (see the module docs).
    pub(crate) fn look_for_spin(&mut self, w: usize) -> Result<(), Fault> {
        let Some((lw, gi)) = self.lone_group().filter(|&(lw, _)| lw == w) else {
            self.spin.restart(None);
            return Ok(());
        };
        let executed = self.warps[lw].executed;
        let Some((_, since)) = self.spin.alone.filter(|&(aw, _)| aw == lw) else {
            self.spin.restart(Some((lw, executed)));
            return Ok(());
        };
        let g = self.warps[lw].groups[gi];
        if executed - since < GATE || !self.closed_loop(g.pc) {
            return Ok(());
        }
        self.spin.samples += 1;
        let due = self.spin.samples.is_power_of_two();
        let same_pc = self.spin.saved.is_some_and(|(pc, ..)| pc == g.pc);
        if !due && !same_pc {
            return Ok(());
        }
        let hash = self.state_hash(lw, gi);
        let diverged = self.out.stats.divergent_branches;
        if let Some((pc, h, at, d)) = self.spin.saved
            && pc == g.pc
            && h == hash
            && d == diverged
        {
            let kind = FaultKind::Spin {
                period: executed - at,
                waiting: self.waiters(),
            };
            return Err(self.fault_at(lw, first_lane(g.mask) as u32, g.pc, kind));
        }
        if due {
            self.spin.saved = Some((g.pc, hash, executed, diverged));
        }
        Ok(())
    }

    /// Whether the loop around `pc` cannot see memory outside the block (memoised).
    fn closed_loop(&mut self, pc: u32) -> bool {
        let flat = self.cx.flat;
        *self.spin.closed.entry(pc).or_insert_with(|| {
            component(flat, pc)
                .iter()
                .all(|&p| sees_block_only(flat, p))
        })
    }

    /// A hash of everything the lone group `gi` of warp `w` runs on.
    fn state_hash(&self, w: usize, gi: usize) -> u128 {
        let warp = &self.warps[w];
        let g = &warp.groups[gi];
        let mut h = Xxh3::new();
        for v in [g.pc, g.mask, g.region, g.func, warp.exited] {
            h.update(&v.to_le_bytes());
        }
        h.update(&g.frame_base.to_le_bytes());
        let mut region = g.region;
        while region != NO_REGION {
            let Some(r) = warp.regions.list.get(region as usize) else {
                break;
            };
            let call = r.call.as_ref().map_or(u32::MAX, |c| c.call_pc);
            for v in [r.rpc, r.expected, r.arrived, r.parent, r.func, call] {
                h.update(&v.to_le_bytes());
            }
            h.update(&r.frame_base.to_le_bytes());
            region = r.parent;
        }
        let mut buf = [0u8; 256];
        for lanes in &warp.regs {
            for (chunk, v) in buf.chunks_exact_mut(8).zip(lanes) {
                chunk.copy_from_slice(&v.to_le_bytes());
            }
            h.update(&buf);
        }
        for p in &warp.preds {
            h.update(&p.to_le_bytes());
        }
        h.update(&warp.local);
        h.update(self.shared);
        for b in &self.barriers {
            let count = b.count.unwrap_or(u32::MAX);
            for v in [b.arrived, count, b.popc, u32::from(b.all), u32::from(b.any)] {
                h.update(&v.to_le_bytes());
            }
        }
        h.digest128()
    }
}

/// The successors of op `pc` (over-approximated: a guarded or not branch may fall
/// through).
fn successors(flat: &Flat, pc: u32) -> Vec<u32> {
    let next = pc + 1;
    let mut out = match &flat.ops[pc as usize].kind {
        OpKind::Exit | OpKind::Ret | OpKind::Trap => Vec::new(),
        OpKind::Bra { target, .. } => vec![*target, next],
        OpKind::BrxIdx { targets, .. } => targets.iter().copied().chain([next]).collect(),
        _ => vec![next],
    };
    out.retain(|&p| (p as usize) < flat.ops.len());
    out
}

/// The ops on some path from `pc` back to itself (its strongly connected component).
fn component(flat: &Flat, pc: u32) -> Vec<u32> {
    let mut forward = vec![pc];
    let mut seen: HashMap<u32, Vec<u32>> = HashMap::new();
    while let Some(p) = forward.pop() {
        if seen.contains_key(&p) {
            continue;
        }
        let succ = successors(flat, p);
        forward.extend(succ.iter().copied());
        seen.insert(p, succ);
    }
    let mut preds: HashMap<u32, Vec<u32>> = HashMap::new();
    for (&p, succ) in &seen {
        for &s in succ {
            preds.entry(s).or_default().push(p);
        }
    }
    let mut back = vec![pc];
    let mut comp = Vec::new();
    let mut visited = std::collections::HashSet::new();
    while let Some(p) = back.pop() {
        if !visited.insert(p) {
            continue;
        }
        comp.push(p);
        back.extend(preds.get(&p).into_iter().flatten().copied());
    }
    comp
}

/// Whether op `pc` depends on nothing outside the block and the running group: no
/// access to global or generic memory, no clock, call, barrier or asynchronous copy.
fn sees_block_only(flat: &Flat, pc: u32) -> bool {
    let inside = |space: MemSpace| {
        matches!(
            space,
            MemSpace::Shared | MemSpace::Local | MemSpace::Param | MemSpace::Const
        )
    };
    match &flat.ops[pc as usize].kind {
        OpKind::Ld { shape, .. } | OpKind::St { shape, .. } => inside(shape.space),
        OpKind::Atom { space, .. } => *space == MemSpace::Shared,
        OpKind::Un { .. }
        | OpKind::Bin { .. }
        | OpKind::Tern { .. }
        | OpKind::Bfi { .. }
        | OpKind::Carry { .. }
        | OpKind::Setp { .. }
        | OpKind::Set { .. }
        | OpKind::Selp { .. }
        | OpKind::PredLogic { .. }
        | OpKind::Testp { .. }
        | OpKind::Pack { .. }
        | OpKind::VecMov { .. }
        | OpKind::Unpack { .. }
        | OpKind::FrameAddr { .. }
        | OpKind::Isspacep { .. }
        | OpKind::Bra { .. }
        | OpKind::BrxIdx { .. }
        | OpKind::Shfl { .. }
        | OpKind::Vote { .. }
        | OpKind::Match { .. }
        | OpKind::Redux { .. }
        | OpKind::Activemask { .. }
        | OpKind::Fence { .. } => true,
        _ => false,
    }
}
