//! Hooks for the checkers (race, barrier, bounds, bank conflicts, coalescing).
//!
//! An [`Observer`] sees one event per warp-instruction that touches memory or
//! synchronises, with everything a checker needs (lanes, addresses, width, instruction,
//! block, warp). Following Miri's machine hooks, every method has a no-op default and the
//! emulator is generic over the observer type, so calls are dispatched statically; with
//! [`NoObserver`], whose [`Observer::ENABLED`] is `false`, the executor skips building
//! events at all and the hooks compile to nothing.
//!
//! Blocks run on several host threads, so each block gets its own observer instance from
//! an [`ObserverFactory`]; after the launch the factory receives all of them, in block
//! order, to merge their findings deterministically.

use warpcheck_ir::modifiers::{AtomOp, MemSpace};
use warpcheck_ir::{FuncId, InstId};

/// What a memory event does.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MemKind {
    Load,
    Store,
    /// `atom` (returns the old value) or `red` (`returns_value == false`).
    Atomic {
        op: AtomOp,
        returns_value: bool,
    },
}

/// One warp-instruction's memory access in one state space.
///
/// Generic accesses are resolved first: the event's `space` is the space the addresses
/// fall in and `addresses` are addresses *in that space* (shared-memory offsets for
/// shared, the thread's stack offsets for local, device addresses for global). A generic
/// access whose lanes fall into several spaces produces one event per space.
#[derive(Clone, Copy, Debug)]
pub struct MemEvent<'a> {
    pub kind: MemKind,
    pub space: MemSpace,
    /// Per-lane addresses; only lanes in `lanes` are meaningful.
    pub addresses: &'a [u64; 32],
    /// The lanes that performed the access.
    pub lanes: u32,
    /// Bytes accessed per lane (element size × vector width).
    pub size: u32,
    pub func: FuncId,
    pub inst: InstId,
    pub block: [u32; 3],
    pub warp: u32,
    /// Whether the access is `.volatile`, `.relaxed`, `.acquire`, `.release` or atomic,
    /// rather than a plain (weak) load or store.
    pub ordered: bool,
    /// For a `st` (scalar or vector), the values each lane stored; `None` for loads,
    /// atomics, asynchronous copies and matrix stores.
    pub values: Option<Stored<'a>>,
}

/// The values a store wrote: `count` elements (1 to 4) of `elem_size` bytes (1, 2, 4 or 8),
/// element `i` at `i * elem_size` bytes from the lane's address, each lane's element in
/// the low bytes of its register.
#[derive(Clone, Copy, Debug)]
pub struct Stored<'a> {
    pub elements: [&'a [u64; 32]; 4],
    pub count: u8,
    pub elem_size: u8,
}

impl<'a> Stored<'a> {
    /// One element per lane of `elem_size` bytes.
    pub fn scalar(values: &'a [u64; 32], elem_size: u8) -> Stored<'a> {
        Stored {
            elements: [values; 4],
            count: 1,
            elem_size,
        }
    }

    /// The element of lane `lane` that holds byte `offset` of its access, and the offset
    /// of that byte in the element.
    #[inline(always)]
    pub fn element_at(&self, lane: usize, offset: u64) -> (u64, u32) {
        // Element sizes are powers of two.
        let shift = self.elem_size.max(1).trailing_zeros();
        let i = ((offset >> shift) as usize).min(self.count.max(1) as usize - 1);
        let mask = if shift >= 3 {
            u64::MAX
        } else {
            (1u64 << (8 << shift)) - 1
        };
        let at = (offset & ((1 << shift) - 1)) as u32;
        (self.elements[i & 3][lane & 31] & mask, at)
    }

    /// Bytes `offset..offset + len` (`len` at most 4) of lane `lane`'s access, little
    /// endian.
    #[inline(always)]
    pub fn bytes(&self, lane: usize, offset: u64, len: u64) -> u32 {
        let (element, at) = self.element_at(lane, offset);
        if at as u64 + len <= self.elem_size as u64 {
            let v = (element >> (at * 8)) as u32;
            return if len >= 4 {
                v
            } else {
                v & ((1u32 << (len * 8)) - 1)
            };
        }
        (0..len).fold(0, |v, b| {
            let (element, at) = self.element_at(lane, offset + b);
            v | (((element >> (at * 8)) & 0xff) as u32) << (b * 8)
        })
    }
}

/// A barrier event: the lanes of one warp arrive at (and later leave) a CTA barrier.
#[derive(Clone, Copy, Debug)]
pub struct BarrierEvent {
    pub id: u32,
    /// `false` for `bar.arrive`, whose threads go on without waiting.
    pub waits: bool,
    /// The thread count operand, if given.
    pub count: Option<u32>,
    pub lanes: u32,
    pub warp: u32,
    pub block: [u32; 3],
    pub func: FuncId,
    pub inst: InstId,
}

/// `bar.warp.sync`, and the synchronisation implied by the warp collectives
/// (`shfl.sync`, `vote.sync`, `match.sync`, `redux.sync`): `lanes` executed it with
/// `member_mask`.
#[derive(Clone, Copy, Debug)]
pub struct WarpSyncEvent {
    pub member_mask: u32,
    /// `true` for `bar.warp.sync` (`__syncwarp`), which orders the memory accesses of the
    /// member lanes (PTX ISA §9.7.12.2); `false` for the collectives, which exchange
    /// values but do not order memory.
    pub orders_memory: bool,
    pub lanes: u32,
    pub warp: u32,
    pub block: [u32; 3],
    pub func: FuncId,
    pub inst: InstId,
}

/// Checker hooks with no-op defaults.
pub trait Observer {
    /// `false` lets the executor skip building events entirely.
    const ENABLED: bool = true;
    /// `true` asks the executor for [`Observer::on_execute`] at every warp-instruction (a
    /// per-instruction profile, [`crate::profile`]). Off by default, so that an observer
    /// that does not profile costs nothing for it.
    const PROFILES: bool = false;

    fn on_block_start(&mut self, _block: [u32; 3], _threads: u32) {}
    fn on_memory(&mut self, _event: &MemEvent<'_>) {}
    /// Lanes arrive at a barrier (`bar.sync`, `bar.red`, `bar.arrive`).
    fn on_barrier_arrive(&mut self, _event: &BarrierEvent) {}
    /// A barrier completed: every waiting thread of the block is released.
    fn on_barrier_release(&mut self, _block: [u32; 3], _id: u32) {}
    fn on_warp_sync(&mut self, _event: &WarpSyncEvent) {}
    /// Lanes of warp `warp` arrived on the `mbarrier` object at shared offset `addr`
    /// (`mbarrier.arrive*`, or the completion of a `cp.async.mbarrier.arrive`): a release.
    fn on_mbarrier_arrive(&mut self, _warp: u32, _lanes: u32, _addr: u64) {}
    /// The current phase of the `mbarrier` object at `addr` completed.
    fn on_mbarrier_complete(&mut self, _addr: u64) {}
    /// Lanes of warp `warp` saw a phase of the `mbarrier` object at `addr` complete
    /// (`test_wait`/`try_wait` returned true): an acquire of that phase's arrivals.
    fn on_mbarrier_wait(&mut self, _warp: u32, _lanes: u32, _addr: u64) {}
    /// Lanes of warp `warp` executed a fence at GPU or system scope (`__threadfence()`,
    /// `membar.gl`, `fence.sc.gpu`, `fence.acq_rel.sys`…). Fences at CTA or cluster scope
    /// and proxy fences are not reported.
    fn on_fence(&mut self, _warp: u32, _lanes: u32) {}
    /// A warp's threads diverged at a branch (`taken` lanes jump).
    fn on_diverge(&mut self, _warp: u32, _inst: InstId, _taken: u32, _not_taken: u32) {}
    /// Lanes of a warp exited.
    fn on_exit(&mut self, _warp: u32, _lanes: u32) {}
    fn on_block_end(&mut self, _block: [u32; 3]) {}
    /// A warp executed the op at `pc` with `lanes` active threads (guarded ops count
    /// their active lanes, whatever the guard). `pc` indexes the launch's translated ops,
    /// densely from 0, one op per PTX instruction; `func` and `inst` name the instruction.
    /// Called only when [`Observer::PROFILES`] is `true`.
    fn on_execute(&mut self, _pc: u32, _func: FuncId, _inst: InstId, _lanes: u32) {}
    /// A block of a cooperative launch goes on after the grid-wide barrier. At the
    /// barrier its observer ended ([`on_block_end`]), was merged and was recycled for the
    /// same block; the block's shared memory and registers are as they were. The default
    /// starts afresh as for a new block, which is right for whatever the barrier orders.
    ///
    /// [`on_block_end`]: Observer::on_block_end
    fn on_block_resume(&mut self, block: [u32; 3], threads: u32) {
        self.on_block_start(block, threads);
    }
}

/// The observer that observes nothing, at no cost.
#[derive(Clone, Copy, Debug, Default)]
pub struct NoObserver;

impl Observer for NoObserver {
    const ENABLED: bool = false;
}

/// Creates one observer per block and merges them after the launch.
///
/// A launch keeps the observers of merged blocks and hands them to [`recycle`] for later
/// blocks, so a grid of many small blocks does not allocate (and free, often on another
/// host thread) every checker's per-block state once per block.
///
/// [`recycle`]: ObserverFactory::recycle
pub trait ObserverFactory: Sync {
    type Observer: Observer + Send;
    fn create(&self, block: [u32; 3]) -> Self::Observer;
    /// Makes `observer`, one whose block was merged, watch `block` exactly as
    /// `create(block)` would, keeping what it allocated. The default replaces it.
    fn recycle(&self, observer: &mut Self::Observer, block: [u32; 3]) {
        *observer = self.create(block);
    }
    /// Receives the blocks' observers in linear block order, in consecutive chunks (so a
    /// large grid never holds every block's observer at once): called once per chunk.
    /// The observers go back to the launch afterwards, to be recycled: take what is kept.
    fn merge(&mut self, observers: &mut [([u32; 3], Self::Observer)]);
    /// Every block of a cooperative launch arrived at the grid-wide barrier and was
    /// merged: everything any block did before it happens before everything any block
    /// does after it.
    fn grid_barrier(&mut self) {}
}

/// The factory of [`NoObserver`]s.
#[derive(Clone, Copy, Debug, Default)]
pub struct NoObservers;

impl ObserverFactory for NoObservers {
    type Observer = NoObserver;
    fn create(&self, _block: [u32; 3]) -> NoObserver {
        NoObserver
    }
    fn merge(&mut self, _observers: &mut [([u32; 3], NoObserver)]) {}
}

#[cfg(test)]
mod tests {
    use super::Stored;

    #[test]
    fn stored_bytes_are_read_across_vector_elements() {
        // `st.v4.u16` of lane 3: elements 0x1111, 0x2222, 0x3333, 0x4444.
        let e: [[u64; 32]; 4] = std::array::from_fn(|i| [0x1111 * (i as u64 + 1); 32]);
        let s = Stored {
            elements: [&e[0], &e[1], &e[2], &e[3]],
            count: 4,
            elem_size: 2,
        };
        assert_eq!(s.bytes(3, 0, 4), 0x2222_1111);
        assert_eq!(s.bytes(3, 4, 4), 0x4444_3333);
        assert_eq!(s.bytes(3, 3, 1), 0x22);
        assert_eq!(s.element_at(3, 5), (0x3333, 1));
        // A 4-byte scalar keeps only its low bytes.
        let v = [0xdead_beef_1234_5678u64; 32];
        let w = Stored::scalar(&v, 4);
        assert_eq!(
            (w.bytes(0, 0, 4), w.element_at(0, 2)),
            (0x1234_5678, (0x1234_5678, 2))
        );
    }
}
