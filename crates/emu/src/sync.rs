//! CTA barriers (PTX ISA §9.7.12.1), `bar.warp.sync` (§9.7.12.2), and deadlock reports.
//!
//! Barriers count arriving *threads* per barrier id (0–15), whatever instruction they
//! arrive at: `bar.sync 0` in two branches is one barrier. The expected count is the
//! instruction's thread count, or every non-exited thread of the block; exits re-check
//! waiting barriers, so threads that leave early release a barrier that only waits for
//! them. `bar.arrive` counts without waiting; `bar.red` also reduces a predicate over
//! the arriving threads and hands the result to every waiter. Released groups at the
//! same pc merge again (a barrier is a reconvergence point).

use warpcheck_ir::modifiers::{BarrierMode, BarrierRedOp};

use crate::block::{BarrierState, Block, blend_mask, first_lane};
use crate::exec::control::{Group, Wait};
use crate::exec::{FULL, pred_value};
use crate::fault::{Fault, FaultKind, WaitKind, Waiter};
use crate::observer::{BarrierEvent, Observer};
use crate::ops::{BarrierOp, Dst, OpKind};

impl<O: Observer> Block<'_, O> {
    pub(crate) fn barrier(&mut self, w: usize, gi: usize, m: u32, bar: BarrierOp) {
        let g = self.warps[w].groups[gi];
        let warp = &self.warps[w];
        let lane = first_lane(m);
        let id = (warp.regs[bar.id as usize][lane] & 15) as usize;
        let count = bar.count.map(|c| warp.regs[c as usize][lane] as u32);
        if O::ENABLED {
            let (func, inst, _) = self.origin(g.pc);
            self.obs.on_barrier_arrive(&BarrierEvent {
                id: id as u32,
                waits: bar.mode != BarrierMode::Arrive,
                count,
                lanes: m,
                warp: w as u32,
                block: self.idx,
                func,
                inst,
            });
        }
        let b = &mut self.barriers[id];
        if b.arrived == 0 {
            *b = BarrierState {
                arrived: 0,
                count,
                popc: 0,
                all: true,
                any: false,
                first_pc: g.pc,
            };
        }
        b.arrived += m.count_ones();
        if count.is_some() {
            b.count = count;
        }
        if let Some((_, _, p)) = bar.red {
            let pv = pred_value(&self.warps[w].preds, p) & m;
            b.popc += pv.count_ones();
            b.all &= pv == m;
            b.any |= pv != 0;
        }
        if bar.mode == BarrierMode::Arrive {
            self.warps[w].groups[gi].pc += 1;
        } else {
            if m != g.mask {
                self.warps[w].groups[gi].mask = m;
                self.warps[w].groups.push(Group {
                    pc: g.pc + 1,
                    mask: g.mask & !m,
                    ..g
                });
            }
            self.warps[w].groups[gi].wait = Wait::Barrier { id: id as u32 };
        }
        self.check_barrier(id as u32);
    }

    /// Releases barrier `id` when enough threads have arrived.
    pub(crate) fn check_barrier(&mut self, id: u32) {
        let flat = self.cx.flat;
        let b = self.barriers[id as usize];
        let expected = b.count.unwrap_or(self.live_threads);
        if b.arrived == 0 || b.arrived < expected {
            return;
        }
        self.barriers[id as usize] = BarrierState::default();
        self.out.stats.barriers += 1;
        for w in 0..self.warps.len() {
            let warp = &mut self.warps[w];
            for gi in 0..warp.groups.len() {
                let g = &warp.groups[gi];
                if g.wait != (Wait::Barrier { id }) {
                    continue;
                }
                let (pc, mask) = (g.pc, g.mask);
                if let OpKind::Barrier(BarrierOp {
                    red: Some((op, dst, _)),
                    ..
                }) = &flat.ops[pc as usize].kind
                {
                    match (*op, *dst) {
                        (BarrierRedOp::Popc, Dst::Reg(r)) => {
                            blend_mask(&mut warp.regs[r as usize], &[b.popc as u64; 32], mask)
                        }
                        (BarrierRedOp::And, Dst::Pred(p)) | (BarrierRedOp::Or, Dst::Pred(p)) => {
                            let v = if (*op == BarrierRedOp::And && b.all)
                                || (*op == BarrierRedOp::Or && b.any)
                            {
                                FULL
                            } else {
                                0
                            };
                            let q = &mut warp.preds[p as usize];
                            *q = (*q & !mask) | (v & mask);
                        }
                        (BarrierRedOp::And, Dst::Reg(r)) | (BarrierRedOp::Or, Dst::Reg(r)) => {
                            let v = ((*op == BarrierRedOp::And && b.all)
                                || (*op == BarrierRedOp::Or && b.any))
                                as u64;
                            blend_mask(&mut warp.regs[r as usize], &[v; 32], mask);
                        }
                        _ => {}
                    }
                }
                let g = &mut warp.groups[gi];
                g.wait = Wait::Runnable;
                g.pc += 1;
            }
            merge_groups(&mut self.warps[w].groups);
        }
        if O::ENABLED {
            self.obs.on_barrier_release(self.idx, id);
        }
    }

    pub(crate) fn check_warp_sync(&mut self, w: usize) {
        let warp = &mut self.warps[w];
        let waiting: u32 = warp
            .groups
            .iter()
            .filter(|g| matches!(g.wait, Wait::WarpSync { .. }))
            .fold(0, |acc, g| acc | g.mask);
        if waiting == 0 {
            return;
        }
        let exited = warp.exited;
        let mut released = false;
        for g in warp.groups.iter_mut() {
            if let Wait::WarpSync { mask } = g.wait {
                let need = mask & !exited;
                if need & !waiting == 0 {
                    g.wait = Wait::Runnable;
                    g.pc += 1;
                    released = true;
                }
            }
        }
        if released {
            merge_groups(&mut warp.groups);
        }
    }

    /// Lanes `m` of group `gi` arrive at the grid-wide barrier and wait there; the block
    /// stops running when every thread left waits ([`Block::run`]), and the launch
    /// releases it ([`Block::grid_release`]) once every block has arrived.
    pub(crate) fn grid_arrive(&mut self, w: usize, gi: usize, m: u32) {
        let g = self.warps[w].groups[gi];
        if m != g.mask {
            self.warps[w].groups[gi].mask = m;
            self.warps[w].groups.push(Group {
                pc: g.pc + 1,
                mask: g.mask & !m,
                ..g
            });
        }
        self.warps[w].groups[gi].wait = Wait::Grid;
        self.grid_arrived += m.count_ones();
    }

    /// Every block has arrived at the grid-wide barrier: its threads go on.
    pub(crate) fn grid_release(&mut self) {
        for warp in self.warps.iter_mut() {
            for g in warp.groups.iter_mut().filter(|g| g.wait == Wait::Grid) {
                g.wait = Wait::Runnable;
                g.pc += 1;
            }
            merge_groups(&mut warp.groups);
        }
        self.grid_arrived = 0;
        self.out.stats.barriers += 1;
    }

    /// The threads waiting at the grid-wide barrier wait for ever.
    pub(crate) fn grid_deadlock(&self, cooperative: bool) -> Fault {
        let mut fault = self.deadlock();
        if let FaultKind::Deadlock { waiting, .. } = &mut fault.kind {
            for w in waiting.iter_mut() {
                if let WaitKind::GridSync { cooperative: c } = &mut w.what {
                    *c = cooperative;
                }
            }
        }
        fault
    }

    /// Who waits where (for deadlock and budget reports).
    pub(crate) fn waiters(&self) -> Vec<Waiter> {
        let mut out = Vec::new();
        for (w, warp) in self.warps.iter().enumerate() {
            for g in &warp.groups {
                let what = match g.wait {
                    Wait::Runnable => continue,
                    Wait::Barrier { id } => {
                        let b = &self.barriers[id as usize];
                        WaitKind::Barrier {
                            id,
                            arrived: b.arrived,
                            expected: b.count.unwrap_or(self.live_threads),
                        }
                    }
                    Wait::WarpSync { mask } => WaitKind::WarpSync { mask },
                    Wait::Grid => WaitKind::GridSync {
                        cooperative: self.cx.cooperative,
                    },
                };
                let (func, inst, source) = self.origin(g.pc);
                out.push(Waiter {
                    warp: w as u32,
                    lanes: g.mask,
                    func,
                    inst,
                    source,
                    what,
                });
            }
        }
        out
    }

    pub(crate) fn deadlock(&self) -> Fault {
        let waiting = self.waiters();
        let exited = self
            .warps
            .iter()
            .map(|w| w.exited.count_ones())
            .sum::<u32>();
        let first = waiting.first().cloned();
        let threads = self.cx.block[0] * self.cx.block[1] * self.cx.block[2];
        let exited = exited.min(threads);
        let (w, lane, pc) = match &first {
            Some(wt) => {
                let pc = self.warps[wt.warp as usize]
                    .groups
                    .iter()
                    .find(|g| g.wait != Wait::Runnable && g.mask == wt.lanes)
                    .map_or(0, |g| g.pc);
                (wt.warp as usize, wt.lanes.trailing_zeros(), pc)
            }
            None => (
                0,
                0,
                self.barriers
                    .iter()
                    .find(|b| b.arrived > 0)
                    .map_or(0, |b| b.first_pc),
            ),
        };
        self.fault_at(w, lane, pc, FaultKind::Deadlock { waiting, exited })
    }
}

/// Merges runnable groups at the same pc in the same region and frame.
pub(crate) fn merge_groups(groups: &mut Vec<Group>) {
    let mut i = 0;
    while i < groups.len() {
        let mut j = i + 1;
        while j < groups.len() {
            let (a, b) = (&groups[i], &groups[j]);
            if a.wait == Wait::Runnable
                && b.wait == Wait::Runnable
                && a.pc == b.pc
                && a.region == b.region
                && a.frame_base == b.frame_base
                && a.func == b.func
            {
                let mask = b.mask;
                groups[i].mask |= mask;
                groups.swap_remove(j);
            } else {
                j += 1;
            }
        }
        i += 1;
    }
}
