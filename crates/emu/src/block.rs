//! Running one thread block: its warps, their groups, barriers, and faults.
//!
//! The block scheduler picks a warp with a runnable group and runs it for a quantum; the
//! warp runs one group at a time (see [`crate::exec::control`] for groups and regions).
//! *Lock-step* scheduling is deterministic: warps round-robin, and within a warp the most
//! recently created runnable group runs until it blocks or arrives at its reconvergence
//! point (a depth-first walk of the divergent paths, like a hardware SIMT stack).
//! *Independent* scheduling picks warps and groups with a seeded random choice at every
//! taken branch and after short random quanta, so that divergent paths and warps
//! interleave; the seed and the block index decide everything, so runs are reproducible.
//!
//! Barriers (PTX ISA §9.7.12.1) count arriving *threads* per barrier id, whatever
//! instruction they arrive at; a barrier without a thread count waits for every thread of
//! the block that has not exited. When no group of any warp can run but threads remain,
//! the block is deadlocked and the fault names who waits where.

use warpcheck_ir::modifiers::MemSpace;
use warpcheck_ir::{EntityRef, FuncId, InstId, Program, SourceLoc};

use crate::exec::control::{FUNC_ADDR_BASE, Group, NO_REGION, Region, Regions, Wait};
use crate::exec::{FULL, Lanes, compute, pred_value};
use crate::fault::{Fault, FaultKind};
use crate::memory::{GenericTarget, GlobalMemory, resolve_generic};
use crate::observer::{MemEvent, MemKind, Observer, Stored, WarpSyncEvent};
use crate::ops::{CallTarget, OpKind};
use crate::translate::{Flat, NO_PC};
use crate::{Scheduling, Stats};

mod step;

use step::GroupRun;

/// Everything a block needs that is the same for the whole launch.
pub(crate) struct LaunchCx<'a> {
    pub flat: &'a Flat,
    pub program: &'a Program,
    pub global: &'a GlobalMemory,
    pub grid: [u32; 3],
    pub block: [u32; 3],
    pub dynamic_shared: u32,
    pub budget: u64,
    pub scheduling: Scheduling,
    pub cooperative: bool,
    /// The launch-wide limit, when the launch has one.
    pub limit: Option<&'a crate::limit::LaunchLimit>,
}

/// One warp's state; reused across the blocks a host thread runs.
pub(crate) struct WarpState {
    pub regs: Vec<Lanes>,
    pub preds: Vec<u32>,
    pub local: Vec<u8>,
    pub groups: Vec<Group>,
    pub regions: Regions,
    /// Lanes that exited (or do not exist in a partial last warp).
    pub exited: u32,
    /// Warp-instructions executed (for the budget and `%clock`).
    pub executed: u64,
    pub cache: usize,
    /// Per op: the index of the global allocation it last accessed.
    pub op_cache: Vec<usize>,
    /// `cp.async` copies whose shared-memory write the observers have not seen yet.
    pub async_copies: crate::async_copy::AsyncCopies,
}

impl WarpState {
    pub(crate) fn new(flat: &Flat) -> WarpState {
        let mut regs = vec![[0u64; 32]; flat.nslots];
        for &(slot, v) in &flat.const_slots {
            regs[slot as usize] = [v; 32];
        }
        let mut preds = vec![0u32; flat.npreds.max(2)];
        preds[crate::translate::PRED_TRUE as usize] = FULL;
        WarpState {
            regs,
            preds,
            local: vec![0; (flat.stack_size * 32) as usize],
            groups: Vec::new(),
            regions: Regions::default(),
            exited: 0,
            executed: 0,
            cache: 0,
            op_cache: vec![0; flat.ops.len()],
            async_copies: Default::default(),
        }
    }
}

/// What a block produced.
#[derive(Default)]
pub(crate) struct BlockResult {
    pub fault: Option<Fault>,
    pub printf: String,
    pub stats: Stats,
}

#[derive(Clone, Copy, Default)]
pub(crate) struct BarrierState {
    pub(crate) arrived: u32,
    pub(crate) count: Option<u32>,
    pub(crate) popc: u32,
    pub(crate) all: bool,
    pub(crate) any: bool,
    /// The first arrival, for deadlock reports.
    pub(crate) first_pc: u32,
}

/// A small deterministic generator (xorshift64*), seeded per block.
pub(crate) struct Rng(u64);

impl Rng {
    pub(crate) fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }
    pub(crate) fn below(&mut self, n: usize) -> usize {
        (self.next() % n.max(1) as u64) as usize
    }
}

/// Why a group stopped running.
enum Ev {
    Arrive,
    Limit,
    Yield,
    Diverge {
        taken: u32,
        target: u32,
        reconverge: u32,
    },
    Control,
    Fault(u32, FaultKind),
}

const LOCKSTEP_QUANTUM: u64 = 1 << 20;

pub(crate) struct Block<'a, O: Observer> {
    pub(crate) cx: &'a LaunchCx<'a>,
    pub(crate) idx: [u32; 3],
    pub(crate) warps: &'a mut [WarpState],
    pub(crate) shared: &'a mut Vec<u8>,
    pub(crate) barriers: [BarrierState; 16],
    pub(crate) live_threads: u32,
    pub(crate) rng: Rng,
    pub(crate) obs: &'a mut O,
    pub(crate) out: BlockResult,
    /// Set by an op that waits without blocking (a false `mbarrier.try_wait`): the warp's
    /// turn ends so that the warps it waits for can run.
    pub(crate) yield_warp: bool,
    /// Threads waiting at the grid-wide barrier.
    pub(crate) grid_arrived: u32,
    /// The block's lane-instructions already added to the launch-wide limit's count.
    pub(crate) reported_lanes: u64,
    /// Where the running warp's quantum ends (in its executed warp-instructions).
    pub(crate) quantum_end: u64,
    /// The search for a group that spins forever (`spin.rs`).
    pub(crate) spin: crate::spin::SpinWatch,
}

/// Bytes of shared memory a block of the launch has.
pub(crate) fn shared_size(cx: &LaunchCx<'_>) -> usize {
    let size = cx.flat.dynamic_shared_offset as usize + cx.dynamic_shared as usize;
    size.max(cx.flat.static_shared as usize)
}

/// The block's scheduling generator, seeded by the launch's seed and the block index.
pub(crate) fn block_rng(cx: &LaunchCx<'_>, idx: [u32; 3]) -> Rng {
    let seed = match cx.scheduling {
        Scheduling::LockStep => 0,
        Scheduling::Independent { seed } => seed,
    };
    let linear =
        idx[0] as u64 + cx.grid[0] as u64 * (idx[1] as u64 + cx.grid[1] as u64 * idx[2] as u64);
    Rng(seed ^ linear.wrapping_mul(0x9e37_79b9_7f4a_7c15) ^ 0x1234_5678_9abc_def1 | 1)
}

pub(crate) fn run_block<O: Observer>(
    cx: &LaunchCx<'_>,
    idx: [u32; 3],
    pool: &mut Vec<WarpState>,
    shared: &mut Vec<u8>,
    obs: &mut O,
) -> BlockResult {
    let threads = cx.block[0] * cx.block[1] * cx.block[2];
    let nwarps = threads.div_ceil(32) as usize;
    while pool.len() < nwarps {
        pool.push(WarpState::new(cx.flat));
    }
    shared.clear();
    shared.resize(shared_size(cx), 0);
    let mut block = Block {
        cx,
        idx,
        warps: &mut pool[..nwarps],
        shared,
        barriers: [BarrierState::default(); 16],
        live_threads: threads,
        rng: block_rng(cx, idx),
        obs,
        out: BlockResult::default(),
        yield_warp: false,
        grid_arrived: 0,
        reported_lanes: 0,
        quantum_end: 0,
        spin: Default::default(),
    };
    block.init_warps(threads);
    if O::ENABLED {
        block.obs.on_block_start(idx, threads);
    }
    let single_block = cx.grid.iter().all(|&n| n == 1);
    // A launch stopped at its limit starts no more blocks.
    let stopped = cx.limit.is_some_and(|l| l.is_stopped());
    if !stopped {
        loop {
            match block.run() {
                Err(f) => block.out.fault = Some(f),
                // At the grid-wide barrier: the only block of its grid passes it at once;
                // in a launch that is not cooperative, other blocks may never be resident.
                Ok(()) if block.live_threads > 0 && single_block => {
                    block.grid_release();
                    continue;
                }
                Ok(()) if block.live_threads > 0 => {
                    block.out.fault = Some(block.grid_deadlock(false))
                }
                Ok(()) => {}
            }
            break;
        }
    }
    if O::ENABLED {
        block.obs.on_block_end(idx);
    }
    if let Some(limit) = cx.limit {
        limit.account(block.out.stats.lane_instructions - block.reported_lanes);
        let cut_short = matches!(
            &block.out.fault,
            Some(Fault {
                kind: FaultKind::LaunchLimit { .. },
                ..
            })
        );
        if !stopped && !cut_short {
            limit.block_finished();
        }
    }
    block.out.stats.blocks = u64::from(!stopped);
    std::mem::take(&mut block.out)
}

impl<O: Observer> Block<'_, O> {
    pub(crate) fn init_warps(&mut self, threads: u32) {
        let flat = self.cx.flat;
        let kernel = &flat.funcs[0];
        let [bx, by, _] = self.cx.block;
        for (w, warp) in self.warps.iter_mut().enumerate() {
            let first = w as u32 * 32;
            let present = if threads - first >= 32 {
                FULL
            } else {
                (1u32 << (threads - first)) - 1
            };
            for &slot in &flat.maybe_uninit {
                warp.regs[slot as usize] = [0; 32];
            }
            for p in warp.preds.iter_mut().skip(2) {
                *p = 0;
            }
            if !warp.local.is_empty() {
                warp.local.fill(0);
            }
            // Thread indices of the lanes, counted up without divisions.
            let mut t = [first % bx, (first / bx) % by, first / (bx * by)];
            let tids: [[u32; 3]; 32] = std::array::from_fn(|_| {
                let tid = t;
                t[0] += 1;
                if t[0] == bx {
                    t[0] = 0;
                    t[1] += 1;
                    if t[1] == by {
                        t[1] = 0;
                        t[2] += 1;
                    }
                }
                tid
            });
            for &(slot, sp) in &flat.specials {
                use warpcheck_ir::SpecialReg as S;
                let lanes = &mut warp.regs[slot as usize];
                match sp.reg {
                    S::Tid => {
                        let c = sp.component.map_or(0, |c| c.index()).min(2);
                        for (v, tid) in lanes.iter_mut().zip(&tids) {
                            *v = tid[c] as u64;
                        }
                    }
                    S::LaneId
                    | S::LanemaskEq
                    | S::LanemaskLe
                    | S::LanemaskLt
                    | S::LanemaskGe
                    | S::LanemaskGt => {
                        for (l, v) in lanes.iter_mut().enumerate() {
                            *v = special_value(
                                sp, tids[l], l as u32, w as u32, self.idx, self.cx, flat,
                            );
                        }
                    }
                    // The others are the same for every lane of the warp.
                    _ => {
                        *lanes =
                            [special_value(sp, tids[0], 0, w as u32, self.idx, self.cx, flat); 32]
                    }
                }
            }
            warp.groups.clear();
            warp.regions.clear();
            warp.exited = !present;
            warp.executed = 0;
            warp.groups.push(Group {
                pc: kernel.base,
                mask: present,
                region: NO_REGION,
                frame_base: 0,
                func: 0,
                wait: Wait::Runnable,
            });
        }
    }

    pub(crate) fn its(&self) -> bool {
        matches!(self.cx.scheduling, Scheduling::Independent { .. })
    }

    /// The block's main loop.
    pub(crate) fn run(&mut self) -> Result<(), Fault> {
        let nwarps = self.warps.len();
        let mut current = 0usize;
        let runnable = |w: &WarpState| w.groups.iter().any(|g| g.wait == Wait::Runnable);
        loop {
            let w = if self.its() {
                let count = self.warps.iter().filter(|w| runnable(w)).count();
                if count == 0 {
                    None
                } else {
                    let k = self.rng.below(count);
                    self.warps
                        .iter()
                        .enumerate()
                        .filter(|(_, w)| runnable(w))
                        .nth(k)
                        .map(|(i, _)| i)
                }
            } else {
                // Round robin from the current warp.
                (0..nwarps)
                    .map(|i| (current + i) % nwarps)
                    .find(|&w| runnable(&self.warps[w]))
            };
            let Some(w) = w else {
                if self.live_threads == 0 || self.grid_arrived == self.live_threads {
                    // Done, or every thread left waits at the grid-wide barrier.
                    return Ok(());
                }
                if self.release_stalled_regions() {
                    continue;
                }
                return Err(self.deadlock());
            };
            current = w + 1;
            self.spin.watching = self.lone_group().is_some();
            if !self.spin.watching {
                self.spin.restart(None);
            }
            self.run_warp(w)?;
            if self.spin.watching && self.its() {
                self.look_for_spin(w)?;
            }
            if let Some(limit) = self.cx.limit {
                self.check_launch_limit(limit, w)?;
            }
        }
    }

    /// Adds the block's lane-instructions to the launch-wide count every
    /// [`crate::limit::CHECK_EVERY`] of them; a fault at warp `w`'s instruction when the
    /// launch is over its limit (see `limit.rs`).
    #[inline]
    fn check_launch_limit(
        &mut self,
        limit: &crate::limit::LaunchLimit,
        w: usize,
    ) -> Result<(), Fault> {
        let done = self.out.stats.lane_instructions;
        if done - self.reported_lanes < crate::limit::CHECK_EVERY && !limit.is_stopped() {
            return Ok(());
        }
        let reached = limit.account(done - self.reported_lanes);
        self.reported_lanes = done;
        let Some(reached) = reached else {
            return Ok(());
        };
        let (lane_instructions, blocks_done, seconds) = limit.progress();
        let [gx, gy, gz] = self.cx.grid;
        let kind = FaultKind::LaunchLimit {
            limit: reached,
            lane_instructions,
            blocks_done,
            blocks: gx as u64 * gy as u64 * gz as u64,
            seconds,
        };
        let (pc, mask) = self.warps[w]
            .groups
            .iter()
            .find(|g| g.wait == Wait::Runnable)
            .or(self.warps[w].groups.first())
            .map_or((self.cx.flat.funcs[0].base, 1), |g| (g.pc, g.mask));
        Err(self.fault_at(w, first_lane(mask) as u32, pc, kind))
    }

    pub(crate) fn run_warp(&mut self, w: usize) -> Result<(), Fault> {
        let quantum = if self.its() {
            1 + self.rng.below(96) as u64
        } else {
            LOCKSTEP_QUANTUM
        };
        let stop_at = self.warps[w].executed + quantum;
        self.quantum_end = stop_at;
        loop {
            let groups = &self.warps[w].groups;
            let gi = if self.its() {
                let count = groups.iter().filter(|g| g.wait == Wait::Runnable).count();
                if count == 0 {
                    return Ok(());
                }
                let k = if count > 1 { self.rng.below(count) } else { 0 };
                match groups
                    .iter()
                    .enumerate()
                    .filter(|(_, g)| g.wait == Wait::Runnable)
                    .nth(k)
                {
                    Some((i, _)) => i,
                    None => return Ok(()),
                }
            } else {
                match groups.iter().rposition(|g| g.wait == Wait::Runnable) {
                    Some(i) => i,
                    None => return Ok(()),
                }
            };
            let mut limit = stop_at.min(self.cx.budget);
            if self.cx.limit.is_some() && !self.its() {
                // A lock-step quantum is long: look at the launch-wide limit within it
                // (see `Ev::Limit` in `end_group`), which leaves the schedule unchanged.
                limit = limit.min(self.warps[w].executed + crate::limit::CHECK_EVERY_WARP);
            }
            if self.spin.watching && !self.its() {
                // Likewise for a lone group that may spin forever (`spin.rs`).
                limit = limit.min(self.warps[w].executed + crate::spin::LOOK_EVERY);
            }
            if !self.run_group(w, gi, limit)? {
                return Ok(());
            }
        }
    }

    pub(crate) fn fault_at(&self, w: usize, lane: u32, pc: u32, kind: FaultKind) -> Fault {
        let (func, inst, source) = self.origin(pc);
        let t = w as u32 * 32 + lane;
        let [bx, by, _] = self.cx.block;
        Fault {
            kind,
            block: self.idx,
            thread: [t % bx, (t / bx) % by, t / (bx * by)],
            func,
            inst,
            source,
        }
    }

    pub(crate) fn origin(&self, pc: u32) -> (FuncId, InstId, Option<SourceLoc>) {
        let flat = self.cx.flat;
        let (fi, inst) = flat
            .origin
            .get(pc as usize)
            .copied()
            .unwrap_or((0, InstId::new(0)));
        let func = flat.funcs[fi as usize].id;
        let source = self
            .cx
            .program
            .function(func)
            .body
            .as_ref()
            .and_then(|b| b.inst_locs.get(inst.index()).copied().flatten());
        (func, inst, source)
    }

    /// Runs group `gi` of warp `w` until it stops. Returns whether the warp should keep
    /// running (`false`: the quantum is over).
    ///
    /// This is the interpreter loop: computations go to [`compute`], memory accesses,
    /// warp collectives and reads of a thread's own state to [`GroupRun`]'s methods
    /// (inlined here), and everything that changes the warp's groups (barriers, calls,
    /// exits) ends the run and goes to [`Self::control`].
    pub(crate) fn run_group(&mut self, w: usize, gi: usize, limit: u64) -> Result<bool, Fault> {
        let ops = &self.cx.flat.ops[..];
        let its = self.its();
        let group = self.warps[w].groups[gi];
        let (mut pc, mask) = (group.pc, group.mask);
        let mut run = GroupRun {
            flat: self.cx.flat,
            global: self.cx.global,
            shared: &mut self.shared[..],
            obs: &mut *self.obs,
            warp: &mut self.warps[w],
            block: self.idx,
            w,
            frame_base: group.frame_base,
        };
        let stop = run.warp.regions.rpc_of(group.region);
        let several = run.warp.groups.len() > 1;
        let mut executed = run.warp.executed;
        let mut lanes = 0u64;
        let lanes_count = mask.count_ones() as u64;
        let ev = loop {
            if pc == stop {
                break Ev::Arrive;
            }
            if executed >= limit {
                break Ev::Limit;
            }
            let op = &ops[pc as usize];
            executed += 1;
            lanes += lanes_count;
            if O::PROFILES {
                profile_op(&mut *run.obs, run.flat, pc, mask);
            }
            let m = match op.guard {
                None => mask,
                Some(p) => mask & pred_value(&run.warp.preds, p),
            };
            if compute(&op.kind, &mut run.warp.regs, &mut run.warp.preds, m) {
                pc += 1;
                continue;
            }
            match &op.kind {
                OpKind::Ld { shape, dsts, addr } => {
                    if let Err((lane, kind)) = run.load(pc, m, *shape, dsts, *addr) {
                        break Ev::Fault(lane, kind);
                    }
                }
                OpKind::St { shape, srcs, addr } => {
                    if let Err((lane, kind)) = run.store(pc, m, *shape, srcs, *addr) {
                        break Ev::Fault(lane, kind);
                    }
                }
                OpKind::Atom {
                    space,
                    op,
                    ty,
                    size,
                    d,
                    addr,
                    b,
                    c,
                } => {
                    if let Err((lane, kind)) =
                        run.atomic(pc, m, (*space, *op, *ty, *size), *d, *addr, [*b, *c])
                    {
                        break Ev::Fault(lane, kind);
                    }
                }
                OpKind::CpAsync {
                    dst,
                    src,
                    size,
                    src_size,
                } => {
                    if let Err((lane, kind)) = run.cp_async(pc, m, [*dst, *src], *size, *src_size) {
                        break Ev::Fault(lane, kind);
                    }
                }
                OpKind::CpAsyncCommit => run.warp.async_copies.commit(m),
                OpKind::CpAsyncWait { keep_newest } => run.cp_async_wait(m, *keep_newest),
                OpKind::FrameAddr { d, offset } => run.frame_addr(m, *d, *offset),
                OpKind::Isspacep { space, d, a } => run.isspacep(m, *space, *d, *a),
                OpKind::Clock { d, wide } => {
                    // A deterministic clock: 4 cycles per warp-instruction of this warp.
                    let v = executed * 4;
                    let v = if *wide { v } else { v & 0xffff_ffff };
                    blend_mask(&mut run.warp.regs[*d as usize], &[v; 32], m);
                }
                OpKind::Activemask { d } => {
                    blend_mask(&mut run.warp.regs[*d as usize], &[mask as u64; 32], m);
                }
                OpKind::Shfl {
                    mode,
                    d,
                    p,
                    a,
                    b,
                    c,
                    membermask,
                } => run.shfl(pc, m, (*mode, *membermask), (*d, *p), [*a, *b, *c]),
                OpKind::Vote {
                    mode,
                    d,
                    p,
                    membermask,
                } => run.vote(pc, m, (*mode, *membermask), *d, *p),
                OpKind::Match {
                    mode,
                    wide,
                    d,
                    p,
                    a,
                    membermask,
                } => run.match_sync(pc, m, (*mode, *wide, *membermask), (*d, *p), *a),
                OpKind::Redux {
                    op,
                    signed,
                    d,
                    a,
                    membermask,
                } => run.redux(pc, m, (*op, *signed, *membermask), *d, *a),
                OpKind::Tex(t) => {
                    if let Err((lane, kind)) =
                        crate::texture::fetch(t, run.global, &mut run.warp.regs, m)
                    {
                        break Ev::Fault(lane, kind);
                    }
                }
                OpKind::Nop => {}
                OpKind::Fence { device } => {
                    if *device && m != 0 {
                        run.obs.on_fence(run.w as u32, m);
                    }
                }
                OpKind::Bra { target, reconverge } => {
                    if m == mask {
                        pc = *target;
                        if its && several {
                            break Ev::Yield;
                        }
                        continue;
                    } else if m != 0 {
                        break Ev::Diverge {
                            taken: m,
                            target: *target,
                            reconverge: *reconverge,
                        };
                    }
                }
                _ => break Ev::Control,
            }
            pc += 1;
        };
        run.warp.executed = executed;
        run.warp.groups[gi].pc = pc;
        self.out.stats.lane_instructions += lanes;
        self.out.stats.warp_instructions += lanes / lanes_count.max(1);
        self.end_group(w, gi, (pc, mask), ev)
    }

    /// Acts on the event `ev` that stopped group `gi` of warp `w` (at `pc`, with lanes
    /// `mask`). Returns whether the warp should keep running.
    #[inline(always)]
    fn end_group(
        &mut self,
        w: usize,
        gi: usize,
        (pc, mask): (u32, u32),
        ev: Ev,
    ) -> Result<bool, Fault> {
        match ev {
            Ev::Arrive => {
                let g = self.warps[w].groups.swap_remove(gi);
                self.arrive(w, g.region, g.mask);
                Ok(true)
            }
            Ev::Limit => {
                if self.warps[w].executed >= self.cx.budget {
                    let waiting = self.waiters();
                    let kind = FaultKind::BudgetExhausted {
                        budget: self.cx.budget,
                        waiting,
                    };
                    return Err(self.fault_at(w, first_lane(mask) as u32, pc, kind));
                }
                if self.its() || self.warps[w].executed >= self.quantum_end {
                    return Ok(false);
                }
                // Within the quantum: the same group goes on after the looks.
                if let Some(limit) = self.cx.limit {
                    self.check_launch_limit(limit, w)?;
                }
                if self.spin.watching {
                    self.look_for_spin(w)?;
                }
                Ok(true)
            }
            Ev::Yield => Ok(false),
            Ev::Diverge {
                taken,
                target,
                reconverge,
            } => {
                self.diverge(w, gi, pc, taken, target, reconverge);
                Ok(!self.its())
            }
            Ev::Fault(lane, kind) => Err(self.fault_at(w, lane, pc, kind)),
            Ev::Control => {
                self.control(w, gi)?;
                Ok(!std::mem::take(&mut self.yield_warp))
            }
        }
    }

    pub(crate) fn diverge(
        &mut self,
        w: usize,
        gi: usize,
        pc: u32,
        taken: u32,
        target: u32,
        reconverge: u32,
    ) {
        let warp = &mut self.warps[w];
        let g = warp.groups[gi];
        let not_taken = g.mask & !taken;
        self.out.stats.divergent_branches += 1;
        if O::ENABLED {
            let (_, inst, _) = self.origin(pc);
            self.obs.on_diverge(w as u32, inst, taken, not_taken);
        }
        let warp = &mut self.warps[w];
        let region = if reconverge != NO_PC {
            warp.regions.alloc(Region {
                rpc: reconverge,
                expected: g.mask,
                arrived: 0,
                parent: g.region,
                frame_base: g.frame_base,
                func: g.func,
                call: None,
                live: true,
            })
        } else {
            g.region
        };
        warp.groups[gi] = Group {
            pc: pc + 1,
            mask: not_taken,
            region,
            ..g
        };
        warp.groups.push(Group {
            pc: target,
            mask: taken,
            region,
            ..g
        });
    }

    /// Lanes `mask` arrive at `region` (the group is already removed).
    pub(crate) fn arrive(&mut self, w: usize, region: u32, mask: u32) {
        if region == NO_REGION {
            return;
        }
        let r = &mut self.warps[w].regions.list[region as usize];
        r.arrived |= mask;
        self.try_complete(w, region);
    }

    /// Completes `region` if every expected lane that has not exited arrived; the merged
    /// group continues (and may complete enclosing regions at the same pc).
    pub(crate) fn try_complete(&mut self, w: usize, mut region: u32) {
        loop {
            let flat = self.cx.flat;
            let warp = &mut self.warps[w];
            let r = &warp.regions.list[region as usize];
            if !r.live {
                return;
            }
            let need = r.expected & !warp.exited;
            if r.arrived & need != need {
                return;
            }
            let mask = r.arrived & !warp.exited;
            let (rpc, parent, frame_base, func) = (r.rpc, r.parent, r.frame_base, r.func);
            let call = warp.regions.list[region as usize].call.take();
            warp.regions.release(region);
            if let Some(call) = call
                && let Some((regs, preds)) = call.saved
            {
                // Restore the recursive callee's registers for the returning lanes.
                let callee = match &flat.ops[call.call_pc as usize].kind {
                    OpKind::Call(c) => match c.target {
                        CallTarget::Body { func } => Some(func),
                        _ => None,
                    },
                    _ => None,
                };
                if let Some(f) = callee {
                    let (s0, _) = flat.funcs[f as usize].slot_range;
                    let (p0, _) = flat.funcs[f as usize].pred_range;
                    for (i, saved) in regs.iter().enumerate() {
                        blend_mask(&mut warp.regs[s0 as usize + i], saved, mask);
                    }
                    for (i, saved) in preds.iter().enumerate() {
                        let p = &mut warp.preds[p0 as usize + i];
                        *p = (*p & !mask) | (saved & mask);
                    }
                }
            }
            if mask == 0 {
                if parent == NO_REGION {
                    return;
                }
                region = parent;
                continue;
            }
            if parent != NO_REGION && warp.regions.rpc_of(parent) == rpc {
                warp.regions.list[parent as usize].arrived |= mask;
                region = parent;
                continue;
            }
            warp.groups.push(Group {
                pc: rpc,
                mask,
                region: parent,
                frame_base,
                func,
                wait: Wait::Runnable,
            });
            return;
        }
    }

    /// Forward progress under independent thread scheduling (sm_70+): when no group can
    /// run, lanes waiting at a reconvergence point for lanes that are blocked (at a
    /// barrier or a warp sync) go on without them, as Volta's scheduler runs the other
    /// path; the blocked lanes later complete the region by themselves. This is what
    /// lets threads that skip a `__syncthreads()` inside a branch exit and release it
    /// (PTX ISA §9.7.12.1: exited threads no longer count). Call regions are left alone.
    /// Returns whether some lanes were released.
    fn release_stalled_regions(&mut self) -> bool {
        let mut released = false;
        for w in 0..self.warps.len() {
            for r in 0..self.warps[w].regions.list.len() {
                let warp = &mut self.warps[w];
                let reg = &warp.regions.list[r];
                let waiting = reg.arrived & !warp.exited;
                if !reg.live || reg.call.is_some() || waiting == 0 {
                    continue;
                }
                let (rpc, parent, frame_base, func) =
                    (reg.rpc, reg.parent, reg.frame_base, reg.func);
                let reg = &mut warp.regions.list[r];
                reg.expected &= !waiting;
                reg.arrived &= !waiting;
                released = true;
                if parent != NO_REGION && warp.regions.rpc_of(parent) == rpc {
                    warp.regions.list[parent as usize].arrived |= waiting;
                    self.try_complete(w, parent);
                } else {
                    warp.groups.push(Group {
                        pc: rpc,
                        mask: waiting,
                        region: parent,
                        frame_base,
                        func,
                        wait: Wait::Runnable,
                    });
                }
            }
        }
        released
    }

    /// Lanes exit: they no longer hold back regions, warp syncs or barriers.
    pub(crate) fn exit(&mut self, w: usize, mask: u32) {
        let mask = mask & !self.warps[w].exited;
        self.warps[w].exited |= mask;
        self.live_threads -= mask.count_ones();
        if O::ENABLED {
            self.obs.on_exit(w as u32, mask);
        }
        let live: Vec<u32> = self.warps[w]
            .regions
            .list
            .iter()
            .enumerate()
            .filter(|(_, r)| r.live)
            .map(|(i, _)| i as u32)
            .collect();
        for r in live {
            self.try_complete(w, r);
        }
        self.check_warp_sync(w);
        for id in 0..16 {
            if self.barriers[id].arrived > 0 {
                self.check_barrier(id as u32);
            }
        }
    }

    /// Calls, returns, exits, traps, barriers, warp syncs and indirect branches.
    pub(crate) fn control(&mut self, w: usize, gi: usize) -> Result<(), Fault> {
        let flat = self.cx.flat;
        let g = self.warps[w].groups[gi];
        let op = &flat.ops[g.pc as usize];
        let m = match op.guard {
            None => g.mask,
            Some(p) => g.mask & pred_value(&self.warps[w].preds, p),
        };
        if m == 0 {
            self.warps[w].groups[gi].pc += 1;
            return Ok(());
        }
        // Lanes whose guard is false skip the instruction: they continue separately.
        let split_rest = |this: &mut Self| {
            if m != g.mask {
                this.warps[w].groups[gi].mask = m;
                this.warps[w].groups.push(Group {
                    pc: g.pc + 1,
                    mask: g.mask & !m,
                    ..g
                });
            }
        };
        match &op.kind {
            OpKind::Exit => {
                split_rest(self);
                self.remove_group(w, g.pc, m);
                self.exit(w, m);
            }
            OpKind::Ret => self.ret(w, gi, m)?,
            OpKind::Trap => {
                return Err(self.fault_at(w, first_lane(m) as u32, g.pc, FaultKind::Trap));
            }
            OpKind::Call(call) => match &call.target {
                CallTarget::Body { func } => self.call_body(w, gi, m, *func)?,
                CallTarget::Indirect(slot) => {
                    let addr = self.warps[w].regs[*slot as usize][first_lane(m)];
                    let func = addr
                        .checked_sub(FUNC_ADDR_BASE)
                        .and_then(|i| flat.func_by_id.get(&FuncId::new(i as usize)).copied());
                    match func {
                        Some(f) => self.call_body(w, gi, m, f)?,
                        None => {
                            let kind = FaultKind::BadCallTarget { address: addr };
                            return Err(self.fault_at(w, first_lane(m) as u32, g.pc, kind));
                        }
                    }
                }
                CallTarget::Native(crate::calls::Native::GridSync) => self.grid_arrive(w, gi, m),
                CallTarget::Native(native) => {
                    self.call_native(w, g.pc, m, g.frame_base, *native, &call.args, &call.rets)?;
                    self.warps[w].groups[gi].pc += 1;
                }
            },
            OpKind::Barrier(bar) => self.barrier(w, gi, m, *bar),
            OpKind::Matrix(op) => self.matrix(w, gi, m, op)?,
            OpKind::Mbarrier(op) => self.mbarrier(w, gi, m, op)?,
            OpKind::WarpSync { mask: slot } => {
                // Lanes may name different member masks (each tile of a
                // `tiled_partition<16>` syncs its own half): each lane waits for its own.
                let (masks, count) = lane_masks(&self.warps[w].regs[*slot as usize], m);
                let masks = &masks[..count];
                if O::ENABLED {
                    let (func, inst, _) = self.origin(g.pc);
                    for &(member, lanes) in masks {
                        self.obs.on_warp_sync(&WarpSyncEvent {
                            member_mask: member,
                            orders_memory: true,
                            lanes,
                            warp: w as u32,
                            block: self.idx,
                            func,
                            inst,
                        });
                    }
                }
                let member = masks.iter().fold(0, |all, &(member, _)| all | member);
                let warp = &mut self.warps[w];
                let need = member & !warp.exited;
                if need & !m == 0 {
                    warp.groups[gi].pc += 1;
                } else {
                    split_rest(self);
                    self.warps[w].groups[gi].wait = Wait::WarpSync { mask: member };
                    self.check_warp_sync(w);
                }
            }
            OpKind::BrxIdx {
                a,
                targets,
                reconverge,
            } => {
                let warp = &mut self.warps[w];
                let av = warp.regs[*a as usize];
                // Group lanes by target.
                let mut by_target: Vec<(u32, u32)> = Vec::new();
                let mut bad = None;
                for l in 0..32 {
                    if (m >> l) & 1 == 0 {
                        continue;
                    }
                    match targets.get(av[l] as usize) {
                        Some(&t) => match by_target.iter_mut().find(|(x, _)| *x == t) {
                            Some(e) => e.1 |= 1 << l,
                            None => by_target.push((t, 1 << l)),
                        },
                        None => bad = Some(l as u32),
                    }
                }
                if let Some(l) = bad {
                    let kind = FaultKind::BadCallTarget {
                        address: av[l as usize],
                    };
                    return Err(self.fault_at(w, l, g.pc, kind));
                }
                if by_target.len() == 1 && m == g.mask {
                    self.warps[w].groups[gi].pc = by_target[0].0;
                } else {
                    let warp = &mut self.warps[w];
                    let region = if *reconverge != NO_PC {
                        warp.regions.alloc(Region {
                            rpc: *reconverge,
                            expected: g.mask,
                            arrived: 0,
                            parent: g.region,
                            frame_base: g.frame_base,
                            func: g.func,
                            call: None,
                            live: true,
                        })
                    } else {
                        g.region
                    };
                    warp.groups.swap_remove(gi);
                    if m != g.mask {
                        warp.groups.push(Group {
                            pc: g.pc + 1,
                            mask: g.mask & !m,
                            region,
                            ..g
                        });
                    }
                    for (t, lanes) in by_target {
                        warp.groups.push(Group {
                            pc: t,
                            mask: lanes,
                            region,
                            ..g
                        });
                    }
                }
            }
            _ => self.warps[w].groups[gi].pc += 1,
        }
        Ok(())
    }

    /// Removes the group at `pc` holding exactly `mask` (after an exit).
    pub(crate) fn remove_group(&mut self, w: usize, pc: u32, mask: u32) {
        let groups = &mut self.warps[w].groups;
        if let Some(i) = groups
            .iter()
            .position(|g| g.pc == pc && g.mask == mask && g.wait == Wait::Runnable)
        {
            groups.swap_remove(i);
        }
    }
}

/// The distinct values of a lane register among the lanes of `lanes`, each with the lanes
/// that hold it, as 32-bit masks (`bar.warp.sync`'s member masks), in lane order; the
/// count of entries used.
fn lane_masks(values: &[u64; 32], lanes: u32) -> ([(u32, u32); 32], usize) {
    let mut out = [(0u32, 0u32); 32];
    let mut n = 0;
    let mut rest = lanes;
    while rest != 0 {
        let l = rest.trailing_zeros() as usize;
        let v = values[l] as u32;
        let mut holders = 0u32;
        let mut scan = rest;
        while scan != 0 {
            let k = scan.trailing_zeros() as usize;
            if values[k] as u32 == v {
                holders |= 1 << k;
            }
            scan &= scan - 1;
        }
        out[n] = (v, holders);
        n += 1;
        rest &= !holders;
    }
    (out, n)
}

#[inline]
pub(crate) fn first_lane(m: u32) -> usize {
    if m == 0 {
        0
    } else {
        m.trailing_zeros() as usize
    }
}

#[inline]
pub(crate) fn blend_mask(dst: &mut Lanes, src: &Lanes, mask: u32) {
    for l in 0..32 {
        if (mask >> l) & 1 != 0 {
            dst[l] = src[l];
        }
    }
}

/// Emits the warp-synchronisation event of a `*.sync` collective.
#[cold]
fn emit_sync<O: Observer>(
    obs: &mut O,
    flat: &Flat,
    pc: u32,
    block: [u32; 3],
    w: usize,
    member_mask: u32,
    lanes: u32,
) {
    let (fi, inst) = flat
        .origin
        .get(pc as usize)
        .copied()
        .unwrap_or((0, InstId::new(0)));
    let func = flat.funcs[fi as usize].id;
    obs.on_warp_sync(&WarpSyncEvent {
        member_mask,
        orders_memory: false,
        lanes,
        warp: w as u32,
        block,
        func,
        inst,
    });
}

/// Tells a profiling observer that the warp executed the op at `pc` (compiled only
/// for profiling observers, [`Observer::PROFILES`]).
#[inline(always)]
fn profile_op<O: Observer>(obs: &mut O, flat: &Flat, pc: u32, mask: u32) {
    let (fi, inst) = flat
        .origin
        .get(pc as usize)
        .copied()
        .unwrap_or((0, InstId::new(0)));
    let func = flat.funcs[fi as usize].id;
    obs.on_execute(pc, func, inst, mask.count_ones());
}

/// Emits memory events, one per state space the lanes fall in. Inlined into the
/// interpreter loop: one event per warp memory instruction is the checkers' hottest path,
/// and a call with ten arguments cost more than building the event (SGEMM 256³ with an
/// empty observer: 39 instructions per event in an out-of-line `emit_mem`). Generic
/// accesses that mix spaces, rare, take the out-of-line [`emit_generic`].
#[allow(clippy::too_many_arguments)]
#[inline(always)]
pub(crate) fn emit_mem<O: Observer>(
    obs: &mut O,
    flat: &Flat,
    pc: u32,
    block: [u32; 3],
    w: usize,
    (kind, ordered): (MemKind, bool),
    space: MemSpace,
    (addrs, values): (&Lanes, Option<Stored<'_>>),
    lanes: u32,
    size: u32,
) {
    let (fi, inst) = flat
        .origin
        .get(pc as usize)
        .copied()
        .unwrap_or((0, InstId::new(0)));
    let func = flat.funcs[fi as usize].id;
    pub(crate) fn event<'e>(
        kind: MemKind,
        space: MemSpace,
        (addresses, values): (&'e Lanes, Option<Stored<'e>>),
        lanes: u32,
        size: u32,
        at: (FuncId, InstId, [u32; 3], u32, bool),
    ) -> MemEvent<'e> {
        MemEvent {
            kind,
            space,
            addresses,
            lanes,
            size,
            func: at.0,
            inst: at.1,
            block: at.2,
            warp: at.3,
            ordered: at.4,
            values,
        }
    }
    let at = (func, inst, block, w as u32, ordered);
    if space != MemSpace::Generic {
        obs.on_memory(&event(kind, space, (addrs, values), lanes, size, at));
        return;
    }
    emit_generic(obs, kind, (addrs, values), lanes, size, at);
}

/// [`emit_mem`] for a generic access whose lanes resolve to several state spaces: one
/// event per space.
#[cold]
#[inline(never)]
fn emit_generic<O: Observer>(
    obs: &mut O,
    kind: MemKind,
    (addrs, values): (&Lanes, Option<Stored<'_>>),
    lanes: u32,
    size: u32,
    at: (FuncId, InstId, [u32; 3], u32, bool),
) {
    let (func, inst, block, warp, ordered) = at;
    let mut resolved = [0u64; 32];
    let mut by_space: [(MemSpace, u32); 5] = [
        (MemSpace::Global, 0),
        (MemSpace::Shared, 0),
        (MemSpace::Local, 0),
        (MemSpace::Const, 0),
        (MemSpace::Param, 0),
    ];
    for l in 0..32 {
        if (lanes >> l) & 1 == 0 {
            continue;
        }
        let (i, a) = match resolve_generic(addrs[l]) {
            GenericTarget::Global(a) => (0, a),
            GenericTarget::Shared(a) => (1, a),
            GenericTarget::Local(a) => (2, a),
            GenericTarget::Const(a) => (3, a),
            GenericTarget::Param(a) => (4, a),
            GenericTarget::None => continue,
        };
        resolved[l] = a;
        by_space[i].1 |= 1 << l;
    }
    for (space, m) in by_space {
        if m != 0 {
            obs.on_memory(&MemEvent {
                kind,
                space,
                addresses: &resolved,
                lanes: m,
                size,
                func,
                inst,
                block,
                warp,
                ordered,
                values,
            });
        }
    }
}

/// The value of a special register for one thread (PTX ISA §10).
fn special_value(
    sp: warpcheck_ir::SpecialOperand,
    tid: [u32; 3],
    lane: u32,
    warp: u32,
    ctaid: [u32; 3],
    cx: &LaunchCx<'_>,
    flat: &Flat,
) -> u64 {
    use warpcheck_ir::SpecialReg as S;
    let c = sp.component.map_or(0, |c| c.index()).min(2);
    let v: u64 = match sp.reg {
        S::Tid => tid[c] as u64,
        S::Ntid => cx.block[c] as u64,
        S::CtaId => ctaid[c] as u64,
        S::NCtaId => cx.grid[c] as u64,
        S::LaneId => lane as u64,
        S::WarpId => warp as u64,
        S::NWarpId => 64,
        S::SmId => 0,
        S::NSmId => 1,
        S::GridId => 1,
        S::ClusterId => ctaid[c] as u64,
        S::NClusterId => cx.grid[c] as u64,
        S::ClusterCtaId => 0,
        S::ClusterNCtaId => 1,
        S::ClusterCtaRank => 0,
        S::ClusterNCtaRank => 1,
        S::IsExplicitCluster => 0,
        S::LanemaskEq => 1u64 << lane,
        S::LanemaskLe => ((2u64 << lane) - 1) & 0xffff_ffff,
        S::LanemaskLt => (1u64 << lane) - 1,
        S::LanemaskGe => (!((1u64 << lane) - 1)) & 0xffff_ffff,
        S::LanemaskGt => (!((2u64 << lane) - 1)) & 0xffff_ffff,
        S::Clock
        | S::ClockHi
        | S::Clock64
        | S::GlobalTimer
        | S::GlobalTimerLo
        | S::GlobalTimerHi => 0,
        S::TotalSmemSize => {
            (flat.dynamic_shared_offset + cx.dynamic_shared as u64).max(flat.static_shared)
        }
        S::AggrSmemSize => {
            (flat.dynamic_shared_offset + cx.dynamic_shared as u64).max(flat.static_shared)
        }
        S::DynamicSmemSize => cx.dynamic_shared as u64,
        S::ReservedSmemOffsetBegin | S::ReservedSmemOffsetEnd | S::ReservedSmemOffsetCap => 0,
        S::EnvReg(_) | S::ReservedSmemOffset(_) => 0,
    };
    v
}
