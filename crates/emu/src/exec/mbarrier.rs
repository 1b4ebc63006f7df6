//! `mbarrier` objects (PTX ISA §9.7.12.15) and `cp.async.mbarrier.arrive` (§9.7.8.24.6).
//!
//! An `mbarrier` is an 8-byte object in shared memory that counts arrivals and
//! asynchronous transactions per *phase*. The emulator keeps its whole state in those 8
//! bytes (the layout is the emulator's own; PTX leaves it opaque):
//!
//! | bits   | field                                                      |
//! |--------|------------------------------------------------------------|
//! | 0–19   | arrivals still pending in the current phase                |
//! | 20–39  | expected arrivals per phase (`init`, lowered by `arrive_drop`) |
//! | 40–61  | pending transaction bytes (22-bit two's complement)       |
//! | 63     | parity of the current phase                               |
//!
//! A phase completes when no arrival and no transaction byte is pending: the parity
//! flips and the pending count is reset to the expected count. `arrive` returns a
//! state token holding the parity of the phase it arrived on (bit 63) and the pending
//! count after it (bits 0–19, read by `pending_count`); `test_wait`/`try_wait` with a
//! token (or `.parity` with a parity) are true once that phase has completed, i.e. the
//! current parity differs. A wait that is false ends the warp's turn, so waiting
//! warps do not spin while the warps they wait for cannot run.
//!
//! For the checkers an arrive is a release and a successful wait an acquire of the
//! arrivals of the completed phase (`Observer::on_mbarrier_*`). A
//! `cp.async.mbarrier.arrive` first completes the thread's earlier `cp.async` copies
//! (their shared writes are reported then) and then arrives; without `.noinc` it also
//! adds one expected arrival, so that it does not count toward the phase.

use crate::block::{Block, emit_mem};
use crate::exec::mem::MemCtx;
use crate::fault::{Fault, FaultKind};
use crate::observer::{MemKind, Observer};
use crate::ops::{Dst, MbarrierKind, MbarrierOp};
use warpcheck_ir::modifiers::MemSpace;

const COUNT_MASK: u64 = (1 << 20) - 1;
const TX_SHIFT: u32 = 40;
const TX_MASK: u64 = (1 << 22) - 1;
const PARITY: u64 = 1 << 63;

/// The decoded state of one `mbarrier` object.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct State {
    pub pending: u32,
    pub expected: u32,
    pub tx: i32,
    pub parity: bool,
}

impl State {
    pub(crate) fn decode(w: u64) -> State {
        let tx = ((w >> TX_SHIFT) & TX_MASK) as u32;
        State {
            pending: (w & COUNT_MASK) as u32,
            expected: ((w >> 20) & COUNT_MASK) as u32,
            // Sign-extend the 22-bit field.
            tx: ((tx << 10) as i32) >> 10,
            parity: w & PARITY != 0,
        }
    }

    pub(crate) fn encode(self) -> u64 {
        (self.pending as u64 & COUNT_MASK)
            | (self.expected as u64 & COUNT_MASK) << 20
            | ((self.tx as u32 as u64) & TX_MASK) << TX_SHIFT
            | if self.parity { PARITY } else { 0 }
    }

    /// Completes the phase if nothing is pending; returns whether it did.
    pub(crate) fn try_complete(&mut self) -> bool {
        if self.pending == 0 && self.tx == 0 {
            self.parity = !self.parity;
            self.pending = self.expected;
            true
        } else {
            false
        }
    }

    /// `count` arrivals (`drop`: also lowering the expected count); returns the token.
    pub(crate) fn arrive(&mut self, count: u32, drop: bool) -> u64 {
        let token = if self.parity { PARITY } else { 0 };
        self.pending = self.pending.saturating_sub(count);
        if drop {
            self.expected = self.expected.saturating_sub(count);
        }
        token | self.pending as u64
    }

    /// Whether the phase of `token` (bit 63 its parity) has completed.
    pub(crate) fn completed(self, parity: bool) -> bool {
        parity != self.parity
    }
}

impl<O: Observer> Block<'_, O> {
    /// Executes `mbarrier` op `op` for the lanes `m` of warp `w` (group `gi`).
    pub(crate) fn mbarrier(
        &mut self,
        w: usize,
        gi: usize,
        m: u32,
        op: &MbarrierOp,
    ) -> Result<(), Fault> {
        let pc = self.warps[w].groups[gi].pc;
        let frame_base = self.warps[w].groups[gi].frame_base;
        if op.kind == MbarrierKind::PendingCount {
            let v = self.warps[w].regs[op.v.unwrap_or(0) as usize];
            self.write_dst(w, op.d, m, |l| v[l] & COUNT_MASK);
            self.warps[w].groups[gi].pc += 1;
            return Ok(());
        }
        if let MbarrierKind::CpAsyncArrive { .. } = op.kind {
            self.complete_copies(w, m);
        }
        let addrs = crate::exec::mem::addresses(op.addr, &self.warps[w].regs, frame_base);
        let vals = op.v.map(|s| self.warps[w].regs[s as usize]);
        let mut out = [0u64; 32];
        let (mut arrived, mut waited) = (0u32, 0u32);
        let mut lanes = m;
        while lanes != 0 {
            let l = lanes.trailing_zeros();
            lanes &= lanes - 1;
            let v = vals.map(|v| v[l as usize]);
            let (at, r) = self.mbarrier_lane(w, pc, op, addrs[l as usize], v, l, &mut arrived)?;
            out[l as usize] = r;
            if matches!(op.kind, MbarrierKind::Wait { .. }) && r != 0 {
                waited |= 1 << l;
            }
            if O::ENABLED && l == 31 - m.leading_zeros() && arrived != 0 {
                self.obs.on_mbarrier_arrive(w as u32, arrived, at);
            }
            if O::ENABLED && waited != 0 && l == 31 - m.leading_zeros() {
                self.obs.on_mbarrier_wait(w as u32, waited, at);
            }
        }
        self.write_dst(w, op.d, m, |l| out[l]);
        // A wait that is not over ends the warp's turn (`try_wait` may suspend the
        // thread; a `test_wait` loop would only spin until the others move).
        if matches!(op.kind, MbarrierKind::Wait { .. }) && waited != m {
            self.yield_warp = true;
        }
        self.warps[w].groups[gi].pc += 1;
        Ok(())
    }

    /// One lane's operation on the object at `a`: returns the object's shared offset and
    /// the lane's result (token, completion as 0/1). Arrivals accumulate in `arrived`
    /// until a phase completes, when they are reported before the completion.
    #[allow(clippy::too_many_arguments)]
    fn mbarrier_lane(
        &mut self,
        w: usize,
        pc: u32,
        op: &MbarrierOp,
        a: u64,
        v: Option<u64>,
        l: u32,
        arrived: &mut u32,
    ) -> Result<(u64, u64), Fault> {
        let flat = self.cx.flat;
        let warp = &mut self.warps[w];
        let mut mc = MemCtx::new(
            flat,
            self.cx.global,
            self.shared,
            &mut warp.local,
            &mut warp.op_cache[pc as usize],
        );
        let fault = |k: FaultKind| (l, k);
        let res = (|| {
            let at = mc.mbarrier_at(op.space, a).map_err(fault)?;
            let mut s = State::decode(mc.shared_word(at, l).map_err(fault)?);
            let mut result = 0;
            let mut complete = false;
            match op.kind {
                MbarrierKind::Init => {
                    let n = v.unwrap_or(1) as u32 & COUNT_MASK as u32;
                    s = State {
                        pending: n,
                        expected: n,
                        tx: 0,
                        parity: false,
                    };
                }
                MbarrierKind::Inval => s = State::decode(0),
                MbarrierKind::Arrive {
                    drop, expect_tx, ..
                } => {
                    let count = if expect_tx { 1 } else { v.unwrap_or(1) as u32 };
                    if expect_tx {
                        s.tx += v.unwrap_or(0) as i32;
                    }
                    result = s.arrive(count, drop);
                    *arrived |= 1 << l;
                    complete = s.try_complete();
                }
                MbarrierKind::ExpectTx => s.tx += v.unwrap_or(0) as i32,
                MbarrierKind::CompleteTx => {
                    s.tx -= v.unwrap_or(0) as i32;
                    complete = s.try_complete();
                }
                MbarrierKind::Wait { parity, .. } => {
                    let p = if parity {
                        v.unwrap_or(0) & 1 == 1
                    } else {
                        v.unwrap_or(0) & PARITY != 0
                    };
                    result = s.completed(p) as u64;
                }
                MbarrierKind::CpAsyncArrive { noinc } => {
                    if noinc {
                        s.arrive(1, false);
                        complete = s.try_complete();
                    }
                    *arrived |= 1 << l;
                }
                MbarrierKind::PendingCount => {}
            }
            mc.set_shared_word(at, l, s.encode()).map_err(fault)?;
            Ok((at, result, complete))
        })();
        let (at, result, complete) = res.map_err(|(l, k)| self.fault_at(w, l, pc, k))?;
        if O::ENABLED && complete {
            if *arrived != 0 {
                self.obs
                    .on_mbarrier_arrive(w as u32, std::mem::take(arrived), at);
            }
            self.obs.on_mbarrier_complete(at);
        }
        Ok((at, result))
    }

    /// Completes every pending `cp.async` copy of lanes `m` (reporting its shared write).
    fn complete_copies(&mut self, w: usize, m: u32) {
        let flat = self.cx.flat;
        let idx = self.idx;
        for c in self.warps[w].async_copies.complete(None, m) {
            if O::ENABLED {
                let kind = (MemKind::Store, false);
                emit_mem(
                    &mut *self.obs,
                    flat,
                    c.pc,
                    idx,
                    w,
                    kind,
                    MemSpace::Shared,
                    (&c.addrs, None),
                    c.lanes,
                    c.size,
                );
            }
        }
    }

    /// Writes `f(lane)` to destination `d` for the lanes of `m`.
    fn write_dst(&mut self, w: usize, d: Dst, m: u32, f: impl Fn(usize) -> u64) {
        let warp = &mut self.warps[w];
        match d {
            Dst::Reg(s) => {
                let r = &mut warp.regs[s as usize];
                for (l, x) in r.iter_mut().enumerate() {
                    if m >> l & 1 == 1 {
                        *x = f(l);
                    }
                }
            }
            Dst::Pred(p) => {
                let q = &mut warp.preds[p as usize];
                for l in 0..32 {
                    if m >> l & 1 == 1 {
                        *q = (*q & !(1 << l)) | (((f(l) != 0) as u32) << l);
                    }
                }
            }
            Dst::None => {}
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_phase_completes_when_arrivals_and_transactions_are_done() {
        let mut s = State {
            pending: 2,
            expected: 2,
            tx: 0,
            parity: false,
        };
        let t = s.arrive(1, false);
        assert!(!s.try_complete());
        s.tx += 64;
        s.arrive(1, false);
        assert!(!s.try_complete(), "64 transaction bytes pending");
        s.tx -= 64;
        assert!(s.try_complete());
        assert!(s.completed(t & PARITY != 0));
        assert_eq!((s.pending, s.parity), (2, true));
        assert_eq!(State::decode(s.encode()), s);
        let neg = State { tx: -5, ..s };
        assert_eq!(State::decode(neg.encode()), neg);
    }

    #[test]
    fn arrive_drop_lowers_the_expected_count() {
        let mut s = State {
            pending: 3,
            expected: 3,
            tx: 0,
            parity: false,
        };
        s.arrive(1, true);
        s.arrive(2, false);
        assert!(s.try_complete());
        assert_eq!(s.pending, 2);
    }
}
