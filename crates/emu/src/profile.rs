//! Per-instruction execution counts: a profile, as Nsight Compute's source page shows
//! ("instructions executed" and "thread instructions executed" per line).
//!
//! [`Profiled`] wraps any observer factory: its block observers pass every hook on to the
//! wrapped observer and also count, per translated op, the warp-level executions and
//! the active threads ([`Observer::on_execute`]). The count costs an array update per
//! warp-instruction, and only in a launch run with the wrapper: the emulator is generic
//! over the observer and calls the hook under `O::PROFILES`, a constant that is `false`
//! for every other observer.
//!
//! Counts are summed over the blocks in the order the launch merges them; sums commute,
//! so a profile does not depend on how many host threads ran the launch.

use warpcheck_ir::{EntityRef, FuncId, InstId};

use crate::observer::{BarrierEvent, MemEvent, Observer, ObserverFactory, WarpSyncEvent};

/// Executions of one instruction.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ExecCount {
    pub func: FuncId,
    pub inst: InstId,
    /// Warp-level executions (Nsight Compute's "instructions executed").
    pub warps: u64,
    /// Active threads summed over those executions ("thread instructions executed").
    pub threads: u64,
}

impl Default for ExecCount {
    fn default() -> Self {
        ExecCount {
            func: FuncId::new(0),
            inst: InstId::new(0),
            warps: 0,
            threads: 0,
        }
    }
}

impl ExecCount {
    fn add(&mut self, other: &ExecCount) {
        self.func = other.func;
        self.inst = other.inst;
        self.warps += other.warps;
        self.threads += other.threads;
    }
}

/// Counts indexed by the launch's op index (`pc`), grown on demand.
#[derive(Clone, Debug, Default)]
struct Counts(Vec<ExecCount>);

impl Counts {
    #[inline(always)]
    fn count(&mut self, pc: u32, func: FuncId, inst: InstId, lanes: u32) {
        let pc = pc as usize;
        if pc >= self.0.len() {
            self.0.resize(pc + 1, ExecCount::default());
        }
        let c = &mut self.0[pc];
        c.func = func;
        c.inst = inst;
        c.warps += 1;
        c.threads += u64::from(lanes);
    }

    fn add(&mut self, other: &Counts) {
        if self.0.len() < other.0.len() {
            self.0.resize(other.0.len(), ExecCount::default());
        }
        for (a, b) in self.0.iter_mut().zip(&other.0) {
            if b.warps > 0 {
                a.add(b);
            }
        }
    }

    fn clear(&mut self) {
        self.0.iter_mut().for_each(|c| *c = ExecCount::default());
    }
}

/// A factory that profiles the launch while `inner` observes it.
pub struct Profiled<F> {
    pub inner: F,
    counts: Counts,
}

impl<F> Profiled<F> {
    pub fn new(inner: F) -> Profiled<F> {
        Profiled {
            inner,
            counts: Counts::default(),
        }
    }

    /// The wrapped factory and the executed instructions with their counts, in op order.
    pub fn into_parts(self) -> (F, Vec<ExecCount>) {
        let counts = self.counts.0.into_iter().filter(|c| c.warps > 0).collect();
        (self.inner, counts)
    }
}

/// A block's observer and its counts. The observer is `None` only while the wrapped
/// factory merges it.
pub struct ProfiledBlock<O> {
    inner: Option<O>,
    counts: Counts,
}

impl<O> ProfiledBlock<O> {
    #[inline(always)]
    fn inner(&mut self) -> &mut O {
        self.inner
            .as_mut()
            .expect("a block's observer is back after its merge")
    }
}

impl<O: Observer> Observer for ProfiledBlock<O> {
    const ENABLED: bool = O::ENABLED;
    const PROFILES: bool = true;

    fn on_block_start(&mut self, block: [u32; 3], threads: u32) {
        self.inner().on_block_start(block, threads);
    }
    #[inline(always)]
    fn on_memory(&mut self, event: &MemEvent<'_>) {
        self.inner().on_memory(event);
    }
    fn on_barrier_arrive(&mut self, event: &BarrierEvent) {
        self.inner().on_barrier_arrive(event);
    }
    fn on_barrier_release(&mut self, block: [u32; 3], id: u32) {
        self.inner().on_barrier_release(block, id);
    }
    fn on_warp_sync(&mut self, event: &WarpSyncEvent) {
        self.inner().on_warp_sync(event);
    }
    fn on_mbarrier_arrive(&mut self, warp: u32, lanes: u32, addr: u64) {
        self.inner().on_mbarrier_arrive(warp, lanes, addr);
    }
    fn on_mbarrier_complete(&mut self, addr: u64) {
        self.inner().on_mbarrier_complete(addr);
    }
    fn on_mbarrier_wait(&mut self, warp: u32, lanes: u32, addr: u64) {
        self.inner().on_mbarrier_wait(warp, lanes, addr);
    }
    fn on_fence(&mut self, warp: u32, lanes: u32) {
        self.inner().on_fence(warp, lanes);
    }
    fn on_diverge(&mut self, warp: u32, inst: InstId, taken: u32, not_taken: u32) {
        self.inner().on_diverge(warp, inst, taken, not_taken);
    }
    fn on_exit(&mut self, warp: u32, lanes: u32) {
        self.inner().on_exit(warp, lanes);
    }
    fn on_block_end(&mut self, block: [u32; 3]) {
        self.inner().on_block_end(block);
    }
    fn on_block_resume(&mut self, block: [u32; 3], threads: u32) {
        self.inner().on_block_resume(block, threads);
    }
    #[inline(always)]
    fn on_execute(&mut self, pc: u32, func: FuncId, inst: InstId, lanes: u32) {
        self.counts.count(pc, func, inst, lanes);
    }
}

impl<F: ObserverFactory> ObserverFactory for Profiled<F> {
    type Observer = ProfiledBlock<F::Observer>;

    fn create(&self, block: [u32; 3]) -> Self::Observer {
        ProfiledBlock {
            inner: Some(self.inner.create(block)),
            counts: Counts::default(),
        }
    }

    fn recycle(&self, o: &mut Self::Observer, block: [u32; 3]) {
        self.inner.recycle(o.inner(), block);
        o.counts.clear();
    }

    fn merge(&mut self, observers: &mut [([u32; 3], Self::Observer)]) {
        for (_, o) in observers.iter() {
            self.counts.add(&o.counts);
        }
        // The wrapped factory merges its own observers, in the same order, and hands
        // them back for recycling.
        let mut inner: Vec<([u32; 3], F::Observer)> = observers
            .iter_mut()
            .map(|(block, o)| (*block, o.inner.take().expect("not merged twice")))
            .collect();
        self.inner.merge(&mut inner);
        for ((_, o), (_, back)) in observers.iter_mut().zip(inner) {
            o.inner = Some(back);
        }
    }
}
