//! The arms of the interpreter loop ([`super::Block::run_group`]) that are not plain
//! computations: memory accesses, warp collectives and reads of a thread's own state.
//!
//! A [`GroupRun`] holds what one group's run borrows from its block and launch. It is
//! built once per `run_group` call and every method is `#[inline(always)]`: the loop
//! still dispatches once per op and keeps the warp's state in registers, as it did when
//! these arms were written out in its `match`. A method that can fault returns the
//! faulting lane and why; the loop turns it into the group's stop event.

use warpcheck_ir::modifiers::{AtomOp, MatchMode, MemSpace, ReduxOp, ShflMode, VoteMode};

use super::{WarpState, blend_mask, emit_mem, emit_sync, first_lane};
use crate::exec::mem::{LaneFault, MemCtx, addresses, isspacep};
use crate::exec::{FULL, Lanes, pred_value, warp_ops};
use crate::memory::{GlobalMemory, LOCAL_WINDOW};
use crate::observer::{MemKind, Observer, Stored};
use crate::ops::{Addr, AtomType, Dst, MemShape, PSlot, PSrc, Slot, VecSlots};
use crate::translate::{FRAME_GENERIC_FLAG, Flat, SINK};

/// What the running group of one warp borrows while it runs.
pub(super) struct GroupRun<'r, O: Observer> {
    pub flat: &'r Flat,
    pub global: &'r GlobalMemory,
    pub shared: &'r mut [u8],
    pub obs: &'r mut O,
    pub warp: &'r mut WarpState,
    /// The block's index, for the observers' events.
    pub block: [u32; 3],
    /// The warp's index in its block.
    pub w: usize,
    /// The base of the group's call frame in the warp's local memory.
    pub frame_base: u64,
}

/// The memories as op `pc` of `warp` sees them, and the warp's registers beside them.
#[inline(always)]
fn mem_and_regs<'a>(
    flat: &'a Flat,
    global: &'a GlobalMemory,
    shared: &'a mut [u8],
    warp: &'a mut WarpState,
    pc: u32,
) -> (MemCtx<'a>, &'a mut Vec<Lanes>) {
    let WarpState {
        local,
        op_cache,
        regs,
        ..
    } = warp;
    let mc = MemCtx::new(flat, global, shared, local, &mut op_cache[pc as usize]);
    (mc, regs)
}

impl<O: Observer> GroupRun<'_, O> {
    /// The memories and registers for op `pc`.
    #[inline(always)]
    fn mem(&mut self, pc: u32) -> (MemCtx<'_>, &mut Vec<Lanes>) {
        mem_and_regs(self.flat, self.global, self.shared, self.warp, pc)
    }

    /// Tells the observers about a memory access of op `pc` by the lanes of `m`.
    #[inline(always)]
    fn emit(
        &mut self,
        pc: u32,
        kind: (MemKind, bool),
        space: MemSpace,
        addrs: &Lanes,
        m: u32,
        size: u32,
    ) {
        if O::ENABLED {
            let (flat, block, w) = (self.flat, self.block, self.w);
            emit_mem(
                self.obs,
                flat,
                pc,
                block,
                w,
                kind,
                space,
                (addrs, None),
                m,
                size,
            );
        }
    }

    /// Tells the observers that the lanes of `m` ran the `.sync` collective at `pc` with
    /// the member mask in slot `membermask` (of the first active lane); returns that mask.
    #[inline(always)]
    fn sync(&mut self, pc: u32, m: u32, membermask: Slot) -> u32 {
        let mm = self.warp.regs[membermask as usize][first_lane(m)] as u32;
        if O::ENABLED && m != 0 {
            emit_sync(self.obs, self.flat, pc, self.block, self.w, mm, m);
        }
        mm
    }

    /// `ld`: loads into `dsts` in the lanes of `m`.
    #[inline(always)]
    pub fn load(
        &mut self,
        pc: u32,
        m: u32,
        shape: MemShape,
        dsts: &VecSlots,
        addr: Addr,
    ) -> Result<(), LaneFault> {
        if m == 0 {
            return Ok(());
        }
        let mut addrs = addresses(addr, &self.warp.regs, self.frame_base);
        let (mut mc, regs) = self.mem(pc);
        let space = mc.load(shape, dsts, &mut addrs, m, regs)?;
        let size = shape.size as u32 * dsts.n.max(1) as u32;
        self.emit(pc, (MemKind::Load, shape.ordered), space, &addrs, m, size);
        Ok(())
    }

    /// `st`: stores `srcs` in the lanes of `m`.
    #[inline(always)]
    pub fn store(
        &mut self,
        pc: u32,
        m: u32,
        shape: MemShape,
        srcs: &VecSlots,
        addr: Addr,
    ) -> Result<(), LaneFault> {
        if m == 0 {
            return Ok(());
        }
        let mut addrs = addresses(addr, &self.warp.regs, self.frame_base);
        let (mut mc, regs) = self.mem(pc);
        let space = mc.store(shape, srcs, &mut addrs, m, regs)?;
        let size = shape.size as u32 * srcs.n.max(1) as u32;
        if O::ENABLED {
            // A store tells the observers the values stored (value-based races).
            let regs = &self.warp.regs;
            let n = srcs.n.max(1) as usize;
            let values = Some(Stored {
                elements: std::array::from_fn(|e| {
                    &regs[srcs.slots[if e < n { e } else { 0 }] as usize]
                }),
                count: n as u8,
                elem_size: shape.size,
            });
            let kind = (MemKind::Store, shape.ordered);
            let (flat, block, w) = (self.flat, self.block, self.w);
            emit_mem(
                self.obs,
                flat,
                pc,
                block,
                w,
                kind,
                space,
                (&addrs, values),
                m,
                size,
            );
        }
        Ok(())
    }

    /// `atom`/`red`: `op` of type `ty` and `size` bytes at `addr` with operands `b`, `c`;
    /// the old value goes to `d` (none for `red`).
    #[inline(always)]
    pub fn atomic(
        &mut self,
        pc: u32,
        m: u32,
        (space, op, ty, size): (MemSpace, AtomOp, AtomType, u8),
        d: Option<Slot>,
        addr: Addr,
        [b, c]: [Slot; 2],
    ) -> Result<(), LaneFault> {
        if m == 0 {
            return Ok(());
        }
        let addrs = addresses(addr, &self.warp.regs, self.frame_base);
        let (mut mc, regs) = self.mem(pc);
        let (bv, cv) = (regs[b as usize], regs[c as usize]);
        let old = mc.atomic(space, op, ty, size as u32, &addrs, &bv, &cv, m)?;
        if let Some(d) = d {
            blend_mask(&mut regs[d as usize], &old, m);
        }
        let kind = MemKind::Atomic {
            op,
            returns_value: d.is_some(),
        };
        self.emit(pc, (kind, true), space, &addrs, m, size as u32);
        Ok(())
    }

    /// `cp.async`: copies `size` bytes (`src_size` of them read, the rest zero) from
    /// global to shared memory now; the observers see the global read now and the shared
    /// write when a `cp.async.wait` completes the copy.
    #[inline(always)]
    pub fn cp_async(
        &mut self,
        pc: u32,
        m: u32,
        [dst, src]: [Addr; 2],
        size: u8,
        src_size: Option<Slot>,
    ) -> Result<(), LaneFault> {
        if m == 0 {
            return Ok(());
        }
        let d = addresses(dst, &self.warp.regs, self.frame_base);
        let s = addresses(src, &self.warp.regs, self.frame_base);
        let sizes = src_size.map(|r| self.warp.regs[r as usize]);
        let (mut mc, _) = self.mem(pc);
        mc.cp_async(&d, &s, size as u32, sizes.as_ref(), m)?;
        let kind = (MemKind::Load, false);
        self.emit(pc, kind, MemSpace::Global, &s, m, size as u32);
        self.warp.async_copies.issue(pc, d, m, size as u32);
        Ok(())
    }

    /// `cp.async.wait_group`/`wait_all`: completes copies; the observers see their
    /// shared-memory writes, each at the `cp.async` that issued it.
    #[inline(always)]
    pub fn cp_async_wait(&mut self, m: u32, keep_newest: Option<u32>) {
        for c in self.warp.async_copies.complete(keep_newest, m) {
            let kind = (MemKind::Store, false);
            self.emit(c.pc, kind, MemSpace::Shared, &c.addrs, c.lanes, c.size);
        }
    }

    /// The address of `offset` in the group's frame (a local or, flagged, a generic one).
    #[inline(always)]
    pub fn frame_addr(&mut self, m: u32, d: Slot, offset: u64) {
        let generic = offset & FRAME_GENERIC_FLAG != 0;
        let v = self.frame_base
            + (offset & !FRAME_GENERIC_FLAG)
            + if generic { LOCAL_WINDOW } else { 0 };
        blend_mask(&mut self.warp.regs[d as usize], &[v; 32], m);
    }

    /// `isspacep.space`: whether each lane's generic address is in `space`.
    #[inline(always)]
    pub fn isspacep(&mut self, m: u32, space: MemSpace, d: PSlot, a: Slot) {
        let av = &self.warp.regs[a as usize];
        let mut bits = 0u32;
        for (l, &x) in av.iter().enumerate() {
            bits |= (isspacep(space, x) as u32) << l;
        }
        let p = &mut self.warp.preds[d as usize];
        *p = (*p & !m) | (bits & m);
    }

    /// Writes `pv` to predicate `p`, if there is one, in the lanes of `m`.
    #[inline(always)]
    fn write_pred(&mut self, p: Option<PSlot>, pv: u32, m: u32) {
        if let Some(p) = p {
            let q = &mut self.warp.preds[p as usize];
            *q = (*q & !m) | (pv & m);
        }
    }

    /// `shfl.sync`: `d` (and the in-range predicate `p`) from lane-indexed `a`.
    #[inline(always)]
    pub fn shfl(
        &mut self,
        pc: u32,
        m: u32,
        (mode, membermask): (ShflMode, Slot),
        (d, p): (Slot, Option<PSlot>),
        [a, b, c]: [Slot; 3],
    ) {
        if O::ENABLED && m != 0 {
            self.sync(pc, m, membermask);
        }
        let regs = &self.warp.regs;
        let (v, pv) = warp_ops::shfl(
            mode,
            &regs[a as usize],
            &regs[b as usize],
            &regs[c as usize],
        );
        if d != SINK {
            blend_mask(&mut self.warp.regs[d as usize], &v, m);
        }
        self.write_pred(p, pv, m);
    }

    /// `vote.sync`: all/any/uni into a predicate, or a ballot into a register.
    #[inline(always)]
    pub fn vote(&mut self, pc: u32, m: u32, (mode, membermask): (VoteMode, Slot), d: Dst, p: PSrc) {
        let mm = self.sync(pc, m, membermask);
        let pv = pred_value(&self.warp.preds, p);
        let (b, ballot) = warp_ops::vote(mode, pv, m & mm);
        match d {
            Dst::Pred(q) => self.write_pred(Some(q), if b { FULL } else { 0 }, m),
            Dst::Reg(r) => {
                let v = if mode == VoteMode::Ballot {
                    ballot as u64
                } else {
                    b as u64
                };
                blend_mask(&mut self.warp.regs[r as usize], &[v; 32], m);
            }
            Dst::None => {}
        }
    }

    /// `match.sync`: the lanes holding the same value of `a` (of 64 bits if `wide`).
    #[inline(always)]
    pub fn match_sync(
        &mut self,
        pc: u32,
        m: u32,
        (mode, wide, membermask): (MatchMode, bool, Slot),
        (d, p): (Slot, Option<PSlot>),
        a: Slot,
    ) {
        let mm = self.sync(pc, m, membermask);
        let (v, pv) = warp_ops::match_sync(mode, &self.warp.regs[a as usize], wide, m & mm);
        if d != SINK {
            blend_mask(&mut self.warp.regs[d as usize], &v, m);
        }
        self.write_pred(p, pv, m);
    }

    /// `redux.sync`: `op` over `a` of the participating lanes, into every lane's `d`.
    #[inline(always)]
    pub fn redux(
        &mut self,
        pc: u32,
        m: u32,
        (op, signed, membermask): (ReduxOp, bool, Slot),
        d: Slot,
        a: Slot,
    ) {
        let mm = self.sync(pc, m, membermask);
        let v = warp_ops::redux(op, signed, &self.warp.regs[a as usize], m & mm);
        blend_mask(&mut self.warp.regs[d as usize], &[v; 32], m);
    }
}
