//! The registry of checkers: the traits every checker implements and the [`checkers!`]
//! macro that assembles the registered ones.
//!
//! A checker has state at three lifetimes, each a concrete type:
//!
//! * over a session of launches, the type registered in `checkers!`, implementing
//!   [`Check`] (findings and totals come from it);
//! * over one launch, its [`Check::Launch`], the emulator's [`ObserverFactory`] for this
//!   checker, implementing [`LaunchCheck`] (which blocks it watches, what the launch adds
//!   to the session);
//! * over one block, its [`Check::Block`], a [`warpcheck_emu::Observer`] whose hooks all
//!   default to doing nothing.
//!
//! The macro generates from the list what depends on every checker: [`crate::Tools`]
//! (a flag per checker, `--tool` names and aliases, which faults are reported),
//! [`crate::Checker`]'s fields and the start and finish of a launch,
//! [`crate::Launch`] (an `Option` per checker: off costs one branch per event) and
//! [`crate::Blocks`] (a [`Slot`] per checker), whose [`warpcheck_emu::Observer`] hooks
//! call each watching checker's hook in registry order. Every call is to a concrete type,
//! so the hooks are statically dispatched and inlined into the emulator's loop; the
//! memory hook is also compiled for AVX2 ([`crate::Blocks::on_memory`]).

use warpcheck_emu::{FaultKind, GlobalMemory, MemEvent, Observer, ObserverFactory, RunOutcome};
use warpcheck_report::Finding;

use crate::{Blocks, CheckOptions, KernelTotals, LaunchInfo, ReportCx};

/// One dynamic checker: its state over the launches of a session.
pub trait Check: Sized {
    /// The checker's state over one launch: the emulator's factory of its block observers.
    type Launch<'s>: LaunchCheck<Observer = Self::Block>
    where
        Self: 's;
    /// The checker's observer of one block.
    type Block: Observer + Send;

    fn new(options: &CheckOptions) -> Self;

    /// Called before each launch the checker is on for, with the session's memory (the
    /// initialisation checker records the allocations made since the last launch).
    fn prepare(&mut self, _memory: &GlobalMemory) {}

    /// The launch's state. `seq` is the launch's position in the session (0 first).
    fn launch(&mut self, info: &LaunchInfo, seq: u64) -> Self::Launch<'_>;

    /// What the checker found over the session, most severe first, duplicates merged.
    fn findings(&self, _cx: &ReportCx) -> Vec<Finding> {
        Vec::new()
    }

    /// Adds the checker's kernel-wide counts for `totals.kernel` to `totals`.
    fn add_totals(&self, _totals: &mut KernelTotals) {}

    /// Whether faults of this kind, which the emulator finds itself (a kernel fault is a
    /// result of the run, see [`warpcheck_emu::Fault`]), are this checker's to report. A
    /// fault that no checker claims is always reported.
    fn reports_fault(_kind: &FaultKind) -> bool {
        false
    }
}

/// One checker's state over a launch.
pub trait LaunchCheck: ObserverFactory + Sized {
    /// Whether the checker watches this block of the launch (the race checker watches a
    /// sample of big grids); a block it does not watch runs without its observer.
    fn watches(&self, _block: [u32; 3]) -> bool {
        true
    }

    /// Ends the launch: what it found goes to the session's state.
    fn finish(self, _info: &LaunchInfo, _outcome: &RunOutcome) {}
}

/// One checker's observer in [`Blocks`]: `observer` while the checker watches the block;
/// `spare`, one kept while the checker skips blocks, to be recycled for the next watched
/// one (so a sampled checker allocates no observer per watched block either).
pub struct Slot<O> {
    pub observer: Option<O>,
    spare: Option<O>,
}

impl<O> Slot<O> {
    /// The slot of a new block's observers.
    pub(crate) fn new<L>(launch: Option<&L>, block: [u32; 3]) -> Slot<O>
    where
        L: LaunchCheck<Observer = O>,
    {
        Slot {
            observer: launch.filter(|l| l.watches(block)).map(|l| l.create(block)),
            spare: None,
        }
    }

    /// The checker's part of [`ObserverFactory::recycle`]: its observer (or the spare one)
    /// recycled when the checker watches the block, created when it has none; kept aside
    /// when it does not watch the block.
    pub(crate) fn renew<L>(&mut self, launch: Option<&L>, block: [u32; 3])
    where
        L: LaunchCheck<Observer = O>,
    {
        match launch {
            Some(l) if l.watches(block) => {
                if self.observer.is_none() {
                    self.observer = self.spare.take();
                }
                match self.observer.as_mut() {
                    Some(o) => l.recycle(o, block),
                    None => self.observer = Some(l.create(block)),
                }
            }
            Some(_) => {
                if let Some(o) = self.observer.take() {
                    self.spare = Some(o);
                }
            }
            None => self.observer = None,
        }
    }
}

/// One checker's part of [`ObserverFactory::merge`]: its observers are moved out of the
/// blocks' (in block order), merged, and put back to be recycled.
pub(crate) fn merge_slots<L: LaunchCheck>(
    launch: &mut Option<L>,
    observers: &mut [([u32; 3], Blocks)],
    slot: impl Fn(&mut Blocks) -> &mut Slot<L::Observer>,
) {
    let Some(l) = launch else { return };
    let mut taken = Vec::with_capacity(observers.len());
    let mut from = Vec::with_capacity(observers.len());
    for (i, (b, o)) in observers.iter_mut().enumerate() {
        if let Some(x) = slot(o).observer.take() {
            taken.push((*b, x));
            from.push(i);
        }
    }
    l.merge(&mut taken);
    for (i, (_, x)) in from.into_iter().zip(taken) {
        slot(&mut observers[i].1).observer = Some(x);
    }
}

impl Blocks {
    /// The checkers' memory hooks compiled for AVX2, which handles four 64-bit lanes per
    /// instruction where the x86-64 baseline (SSE2) handles two: the hooks are loops over
    /// the 32 lanes, inlined here.
    ///
    /// # Safety
    /// The CPU must support AVX2.
    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx2")]
    unsafe fn on_memory_avx2(&mut self, event: &MemEvent<'_>) {
        self.on_memory_portable(event)
    }

    /// The checkers' memory hooks, in the AVX2 build when the CPU has it.
    #[inline(always)]
    pub(crate) fn on_memory_dispatch(&mut self, event: &MemEvent<'_>) {
        #[cfg(target_arch = "x86_64")]
        if std::arch::is_x86_feature_detected!("avx2") {
            // SAFETY: the CPU has AVX2, checked just above.
            unsafe { self.on_memory_avx2(event) };
            return;
        }
        self.on_memory_portable(event);
    }
}

/// Declares the checkers: `name | "alias" … => SessionState,` per checker, in the order
/// their findings are listed. `name` is the checker's `--tool` name and its field in
/// [`crate::Tools`], [`crate::Checker`], [`crate::Launch`] and [`crate::Blocks`];
/// `SessionState` implements [`Check`]. See the module documentation for what it
/// generates.
macro_rules! checkers {
    ($($name:ident $(| $alias:literal)* => $state:ty),* $(,)?) => {
        /// Which checkers run.
        #[derive(Clone, Copy, Debug, PartialEq, Eq)]
        pub struct Tools {
            $(pub $name: bool,)*
        }

        impl Tools {
            /// The names `--tool` accepts, in the order findings are grouped.
            pub const NAMES: &'static [&'static str] = &[$(stringify!($name)),*];

            pub fn all() -> Tools {
                Tools { $($name: true,)* }
            }

            pub fn none() -> Tools {
                Tools { $($name: false,)* }
            }

            /// Turns on the checker called `name` (or one of its aliases); `false` when
            /// no checker is called so.
            fn enable(&mut self, name: &str) -> bool {
                match name {
                    $(stringify!($name) $(| $alias)* => self.$name = true,)*
                    _ => return false,
                }
                true
            }

            /// Whether a kernel fault of this kind is reported: when the checker that
            /// claims it ([`Check::reports_fault`]) is on. A fault that no checker claims
            /// (a trap, a failed assertion, a runaway loop) stops the kernel whatever is
            /// checked, and is always reported.
            pub fn reports_fault(&self, kind: &warpcheck_emu::FaultKind) -> bool {
                $(
                    if <$state as Check>::reports_fault(kind) {
                        return self.$name;
                    }
                )*
                true
            }
        }

        /// The checkers of a session: state that spans its launches (every checker's,
        /// on or off; one that is off is never launched and has nothing to report).
        pub struct Checker {
            pub options: CheckOptions,
            $(pub $name: $state,)*
            /// Per-instruction executions, taken when set ([`crate::heat`]).
            pub profile: Option<crate::heat::Profile>,
            launches: Vec<LaunchInfo>,
            outcomes: Vec<(String, warpcheck_emu::RunOutcome)>,
        }

        impl Checker {
            pub fn new(options: CheckOptions) -> Checker {
                Checker {
                    options,
                    $($name: <$state as Check>::new(&options),)*
                    profile: None,
                    launches: Vec::new(),
                    outcomes: Vec::new(),
                }
            }

            /// The per-launch state of the enabled checkers, each prepared for the
            /// launch.
            fn start(&mut self, memory: &warpcheck_emu::GlobalMemory, info: &LaunchInfo) -> Launch<'_> {
                let tools = self.options.tools;
                let seq = self.launches.len() as u64;
                $(
                    if tools.$name {
                        Check::prepare(&mut self.$name, memory);
                    }
                )*
                Launch {
                    $($name: tools.$name.then(|| Check::launch(&mut self.$name, info, seq)),)*
                }
            }

            /// The enabled checkers' findings, in registry order.
            pub fn observed_findings(&self, cx: &ReportCx) -> Vec<Finding> {
                let tools = self.options.tools;
                let mut out = Vec::new();
                $(
                    if tools.$name {
                        out.extend(Check::findings(&self.$name, cx));
                    }
                )*
                out
            }

            /// Adds every checker's counts for `k.kernel` to `k`.
            fn add_totals(&self, k: &mut KernelTotals) {
                $(Check::add_totals(&self.$name, k);)*
            }
        }

        /// The per-launch state of the enabled checkers: the emulator's observer factory.
        ///
        /// The emulator recycles a merged block's observers for later blocks on the
        /// calling thread, while the pool runs other blocks; the observers then run on a
        /// pool thread. So that the calling thread writes as little of their memory as it
        /// can (it must read what it merges), each checker's `recycle` sets only the
        /// block's identity and marks the observer stale, and the observer clears its
        /// per-block state in `on_block_start`, on the host thread that runs the block.
        pub struct Launch<'s> {
            $(pub $name: Option<<$state as Check>::Launch<'s>>,)*
        }

        impl Launch<'_> {
            /// Ends the launch for every enabled checker.
            fn finish(self, info: &LaunchInfo, outcome: &warpcheck_emu::RunOutcome) {
                $(
                    if let Some(l) = self.$name {
                        LaunchCheck::finish(l, info, outcome);
                    }
                )*
            }
        }

        /// The observers of one block: per checker, its observer while it watches the
        /// block.
        pub struct Blocks {
            $(pub $name: Slot<<$state as Check>::Block>,)*
        }

        impl Blocks {
            /// The checkers' memory hooks, inlined here: they are loops over the 32 lanes.
            #[inline(always)]
            fn on_memory_portable(&mut self, event: &warpcheck_emu::MemEvent<'_>) {
                $(
                    if let Some(c) = &mut self.$name.observer {
                        c.on_memory(event);
                    }
                )*
            }
        }

        impl warpcheck_emu::Observer for Blocks {
            fn on_block_start(&mut self, block: [u32; 3], threads: u32) {
                $(
                    if let Some(c) = &mut self.$name.observer {
                        c.on_block_start(block, threads);
                    }
                )*
            }
            #[inline(always)]
            fn on_memory(&mut self, event: &warpcheck_emu::MemEvent<'_>) {
                self.on_memory_dispatch(event)
            }
            fn on_barrier_arrive(&mut self, event: &warpcheck_emu::BarrierEvent) {
                $(
                    if let Some(c) = &mut self.$name.observer {
                        c.on_barrier_arrive(event);
                    }
                )*
            }
            fn on_barrier_release(&mut self, block: [u32; 3], id: u32) {
                $(
                    if let Some(c) = &mut self.$name.observer {
                        c.on_barrier_release(block, id);
                    }
                )*
            }
            fn on_warp_sync(&mut self, event: &warpcheck_emu::WarpSyncEvent) {
                $(
                    if let Some(c) = &mut self.$name.observer {
                        c.on_warp_sync(event);
                    }
                )*
            }
            fn on_mbarrier_arrive(&mut self, warp: u32, lanes: u32, addr: u64) {
                $(
                    if let Some(c) = &mut self.$name.observer {
                        c.on_mbarrier_arrive(warp, lanes, addr);
                    }
                )*
            }
            fn on_mbarrier_complete(&mut self, addr: u64) {
                $(
                    if let Some(c) = &mut self.$name.observer {
                        c.on_mbarrier_complete(addr);
                    }
                )*
            }
            fn on_mbarrier_wait(&mut self, warp: u32, lanes: u32, addr: u64) {
                $(
                    if let Some(c) = &mut self.$name.observer {
                        c.on_mbarrier_wait(warp, lanes, addr);
                    }
                )*
            }
            fn on_fence(&mut self, warp: u32, lanes: u32) {
                $(
                    if let Some(c) = &mut self.$name.observer {
                        c.on_fence(warp, lanes);
                    }
                )*
            }
            fn on_diverge(&mut self, warp: u32, inst: warpcheck_ir::InstId, taken: u32, not_taken: u32) {
                $(
                    if let Some(c) = &mut self.$name.observer {
                        c.on_diverge(warp, inst, taken, not_taken);
                    }
                )*
            }
            fn on_exit(&mut self, warp: u32, lanes: u32) {
                $(
                    if let Some(c) = &mut self.$name.observer {
                        c.on_exit(warp, lanes);
                    }
                )*
            }
            fn on_block_end(&mut self, block: [u32; 3]) {
                $(
                    if let Some(c) = &mut self.$name.observer {
                        c.on_block_end(block);
                    }
                )*
            }
            fn on_block_resume(&mut self, block: [u32; 3], threads: u32) {
                $(
                    if let Some(c) = &mut self.$name.observer {
                        c.on_block_resume(block, threads);
                    }
                )*
            }
        }

        impl warpcheck_emu::ObserverFactory for Launch<'_> {
            type Observer = Blocks;

            fn create(&self, block: [u32; 3]) -> Blocks {
                Blocks {
                    $($name: Slot::new(self.$name.as_ref(), block),)*
                }
            }

            fn recycle(&self, o: &mut Blocks, block: [u32; 3]) {
                $(o.$name.renew(self.$name.as_ref(), block);)*
            }

            fn merge(&mut self, observers: &mut [([u32; 3], Blocks)]) {
                $($crate::registry::merge_slots(&mut self.$name, observers, |o| &mut o.$name);)*
            }

            fn grid_barrier(&mut self) {
                $(
                    if let Some(l) = &mut self.$name {
                        l.grid_barrier();
                    }
                )*
            }
        }
    };
}
