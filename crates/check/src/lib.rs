//! warpcheck's dynamic checkers.
//!
//! Each checker is an emulator observer ([`warpcheck_emu::Observer`]): it sees one event
//! per warp-instruction that touches memory or synchronises and keeps its own shadow
//! state. Checkers are combined in [`Blocks`], a struct of optional concrete checkers, so
//! every hook is statically dispatched; a checker that is off costs one branch.
//!
//! A [`Checker`] lives across the launches of one session (several launches share buffers
//! and, for the initialisation checker, their shadow state). For each launch it creates
//! per-launch state ([`Launch`], the [`ObserverFactory`]); the emulator asks it for one
//! observer per block, runs blocks on several host threads, and hands the blocks'
//! observers back in block order, chunk by chunk, so results are deterministic.
//!
//! The checkers:
//!
//! * [`race`]: data races on shared and global memory, within a warp, between warps and
//!   between blocks (see the module for the semantics).
//! * [`sync`]: barrier divergence, `__syncwarp` masks that exclude the caller, barrier
//!   thread counts that are not a multiple of the warp size.
//! * [`init`]: reads of uninitialised global, shared and local memory.
//! * [`bank`]: shared-memory bank conflicts per instruction (Nsight Compute's counting).
//! * [`coalesce`]: global-memory requests and sectors per instruction.
//!
//! Out-of-bounds and misaligned accesses and deadlocks are faults of the emulator itself
//! ([`warpcheck_emu::Fault`]); the `mem` and `sync` tools report them.

pub mod bank;
pub mod coalesce;
pub mod init;
pub mod race;
pub mod sample;
pub mod sync;

pub use sample::{BlockSample, RaceBlocks};

use std::fmt;

use warpcheck_emu::{
    BarrierEvent, EmuError, GlobalMemory, LaunchConfig, MemEvent, Observer, ObserverFactory,
    RunOutcome, SharedVar, WarpSyncEvent,
};
use warpcheck_ir::{FuncId, InstId, Program};
use warpcheck_report::{Finding, Location};

/// Where an access or synchronisation happened: a function and an instruction in it.
pub type Site = (FuncId, InstId);

/// Which checkers run.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Tools {
    pub race: bool,
    pub sync: bool,
    pub mem: bool,
    pub init: bool,
    pub bank: bool,
    pub coalesce: bool,
}

impl Tools {
    /// The names `--tool` accepts, in the order findings are grouped.
    pub const NAMES: [&'static str; 6] = ["race", "sync", "mem", "init", "bank", "coalesce"];

    pub fn all() -> Tools {
        Tools {
            race: true,
            sync: true,
            mem: true,
            init: true,
            bank: true,
            coalesce: true,
        }
    }

    pub fn none() -> Tools {
        Tools {
            race: false,
            sync: false,
            mem: false,
            init: false,
            bank: false,
            coalesce: false,
        }
    }

    /// Parses a comma-separated list such as `race,bank` or `all`.
    pub fn parse(list: &str) -> Result<Tools, String> {
        let mut t = Tools::none();
        for name in list.split(',').map(str::trim).filter(|s| !s.is_empty()) {
            match name {
                "all" => t = Tools::all(),
                "race" | "racecheck" => t.race = true,
                "sync" | "synccheck" => t.sync = true,
                "mem" | "memcheck" => t.mem = true,
                "init" | "initcheck" => t.init = true,
                "bank" => t.bank = true,
                "coalesce" => t.coalesce = true,
                other => {
                    return Err(format!(
                        "unknown tool `{other}` (expected all or a comma-separated list of {})",
                        Tools::NAMES.join(", ")
                    ));
                }
            }
        }
        if t == Tools::none() {
            return Err("--tool needs at least one tool".into());
        }
        Ok(t)
    }
}

/// How lanes of one warp are ordered for the race checker.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum IntraWarp {
    /// Independent thread scheduling (sm_70 and later, the default): lanes of a warp are
    /// ordered only by `__syncwarp` (`bar.warp.sync`) and CTA barriers, like threads of
    /// different warps.
    #[default]
    Independent,
    /// Legacy lock-step warps (before sm_70): accesses of one warp in different
    /// instructions are ordered by the warp's program order; only lanes of one
    /// instruction writing the same byte race.
    LockStep,
}

impl fmt::Display for IntraWarp {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            IntraWarp::Independent => "independent thread scheduling",
            IntraWarp::LockStep => "lock-step warps",
        })
    }
}

/// Options of a checking session.
#[derive(Clone, Copy, Debug)]
pub struct CheckOptions {
    pub tools: Tools,
    pub intra_warp: IntraWarp,
    /// Which blocks of big launches the race checker watches ([`sample`]).
    pub race_blocks: RaceBlocks,
}

impl Default for CheckOptions {
    fn default() -> Self {
        CheckOptions {
            tools: Tools::all(),
            intra_warp: IntraWarp::default(),
            race_blocks: RaceBlocks::default(),
        }
    }
}

/// A global-memory buffer of the launch, by the kernel parameter (or session buffer) name
/// that names it in reports.
#[derive(Clone, Debug)]
pub struct Buffer {
    pub name: String,
    pub address: u64,
    pub size: u64,
}

/// What a checker needs to know about a launch.
#[derive(Clone, Debug)]
pub struct LaunchInfo {
    pub kernel: FuncId,
    /// The kernel's name as reports show it (demangled).
    pub kernel_name: String,
    /// The kernel's PTX name.
    pub kernel_mangled: String,
    pub grid: [u32; 3],
    pub block: [u32; 3],
    pub dynamic_shared: u32,
    pub buffers: Vec<Buffer>,
}

impl LaunchInfo {
    /// The (x, y, z) index of a thread from its linear index in the block.
    pub fn thread_index(&self, linear: u32) -> [u32; 3] {
        let [bx, by, _] = self.block;
        [linear % bx, (linear / bx) % by, linear / (bx * by)]
    }

    /// The buffer holding a global address and the offset in it.
    pub fn buffer_at(&self, address: u64) -> Option<(&Buffer, u64)> {
        self.buffers
            .iter()
            .find(|b| address >= b.address && address < b.address + b.size)
            .map(|b| (b, address - b.address))
    }
}

/// Turns sites into source locations, for findings.
pub struct ReportCx<'a> {
    pub program: &'a Program,
    /// The source location of an instruction: its `.loc` line, or its line in the PTX.
    pub locate: &'a dyn Fn(FuncId, InstId) -> Option<Location>,
}

impl ReportCx<'_> {
    pub fn locate(&self, site: Site) -> Option<Location> {
        (self.locate)(site.0, site.1)
    }
}

/// Whether two locations are on the same source line (columns differ between the
/// instructions of one line).
pub(crate) fn same_line(a: &Option<Location>, b: &Option<Location>) -> bool {
    match (a, b) {
        (Some(a), Some(b)) => a.file == b.file && a.line == b.line,
        _ => false,
    }
}

/// `(x,y,z)`.
pub fn fmt3(v: [u32; 3]) -> String {
    format!("({},{},{})", v[0], v[1], v[2])
}

/// The name of a shared-memory offset: the variable holding it and the offset in it.
pub fn shared_name(program: &Program, vars: &[SharedVar], offset: u64) -> String {
    let found = vars
        .iter()
        .rev()
        .find(|v| offset >= v.offset && v.size.is_none_or(|size| offset < v.offset + size));
    match found {
        Some(v) => {
            let var = program.variable(v.var);
            let name = warpcheck_ir::demangle::demangle(&var.name)
                .map_or_else(|| var.name.clone(), |d| d.short);
            format!("`{name}` + {} bytes", offset - v.offset)
        }
        None => format!("shared offset {offset}"),
    }
}

/// Per-kernel totals and per-instruction statistics that a checker accumulates over a
/// session (the bank-conflict and coalescing checkers).
pub struct PerSite<T, S> {
    /// Kernel names, indexed by the `u32` in `sites`' keys.
    pub(crate) kernels: Vec<String>,
    pub(crate) totals: Vec<T>,
    pub(crate) sites: rustc_hash::FxHashMap<(u32, Site), S>,
}

impl<T, S> Default for PerSite<T, S> {
    fn default() -> Self {
        PerSite {
            kernels: Vec::new(),
            totals: Vec::new(),
            sites: Default::default(),
        }
    }
}

impl<T: Default, S> PerSite<T, S> {
    /// The index of a kernel (by name), added on first use.
    pub(crate) fn kernel_index(&mut self, name: &str) -> u32 {
        match self.kernels.iter().position(|k| k == name) {
            Some(i) => i as u32,
            None => {
                self.kernels.push(name.to_string());
                self.totals.push(T::default());
                (self.kernels.len() - 1) as u32
            }
        }
    }

    /// The statistics of every instruction seen so far, for a kernel by name.
    pub fn site_stats(&self, kernel: &str) -> Vec<(Site, &S)> {
        let Some(k) = self.kernels.iter().position(|n| n == kernel) else {
            return Vec::new();
        };
        let mut out: Vec<(Site, &S)> = self
            .sites
            .iter()
            .filter(|((ki, _), _)| *ki as usize == k)
            .map(|((_, site), s)| (*site, s))
            .collect();
        out.sort_by_key(|(site, _)| *site);
        out
    }
}

/// Kernel-wide counts of one launch sequence, comparable with Nsight Compute's metrics.
#[derive(Clone, Debug, Default, PartialEq, Eq, serde::Serialize)]
pub struct KernelTotals {
    /// The kernel's name as reports show it, and its PTX (mangled) name.
    pub kernel: String,
    pub mangled: String,
    pub launches: u64,
    /// `l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum`.
    pub shared_load_wavefronts: u64,
    /// `l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum`.
    pub shared_store_wavefronts: u64,
    /// `l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum`.
    pub shared_load_bank_conflicts: u64,
    /// `l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum`.
    pub shared_store_bank_conflicts: u64,
    /// `l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum`.
    pub global_load_requests: u64,
    /// `l1tex__t_requests_pipe_lsu_mem_global_op_st.sum`.
    pub global_store_requests: u64,
    /// `l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum`.
    pub global_load_sectors: u64,
    /// `l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum`.
    pub global_store_sectors: u64,
}

/// The checkers of a session: state that spans its launches.
pub struct Checker {
    pub options: CheckOptions,
    pub race: race::RaceState,
    pub sync: sync::SyncState,
    pub init: init::InitState,
    pub bank: bank::BankState,
    pub coalesce: coalesce::CoalesceState,
    launches: Vec<LaunchInfo>,
    outcomes: Vec<(String, RunOutcome)>,
}

impl Checker {
    pub fn new(options: CheckOptions) -> Checker {
        Checker {
            options,
            race: race::RaceState::new(options.intra_warp),
            sync: sync::SyncState::default(),
            init: init::InitState::default(),
            bank: bank::BankState::default(),
            coalesce: coalesce::CoalesceState::default(),
            launches: Vec::new(),
            outcomes: Vec::new(),
        }
    }

    /// Runs one launch under the enabled checkers.
    pub fn launch(
        &mut self,
        program: &Program,
        params: &[u8],
        memory: &mut GlobalMemory,
        config: &LaunchConfig,
        info: LaunchInfo,
    ) -> Result<RunOutcome, EmuError> {
        let t = self.options.tools;
        if t.init {
            self.init.prepare(memory);
        }
        let mut launch = Launch {
            race: t.race.then(|| {
                // Seeded by the launch's position in the session: deterministic, and
                // repeated launches of one kernel watch different blocks.
                let sample = BlockSample::new(
                    info.grid,
                    self.options.race_blocks,
                    self.launches.len() as u64,
                );
                self.race.launch(&info, sample)
            }),
            sync: t.sync.then(|| self.sync.launch(&info)),
            init: t.init.then(|| self.init.launch(&info)),
            bank: t.bank.then(|| self.bank.launch(&info)),
            coalesce: t.coalesce.then(|| self.coalesce.launch(&info)),
        };
        let outcome =
            warpcheck_emu::run_observed(program, info.kernel, params, memory, config, &mut launch)?;
        let Launch {
            race,
            sync,
            init,
            bank,
            coalesce,
        } = launch;
        if let Some(l) = race {
            l.finish(&info, &outcome);
        }
        if let Some(l) = sync {
            l.finish(&info, &outcome);
        }
        if let Some(l) = init {
            l.finish(&info, &outcome);
        }
        if let Some(l) = bank {
            l.finish(&info, &outcome);
        }
        if let Some(l) = coalesce {
            l.finish(&info, &outcome);
        }
        self.outcomes
            .push((info.kernel_name.clone(), outcome.clone()));
        self.launches.push(info);
        Ok(outcome)
    }

    /// The findings of every launch so far, grouped by tool, most severe first within a
    /// tool, duplicates merged.
    pub fn findings(&self, cx: &ReportCx) -> Vec<Finding> {
        let t = self.options.tools;
        let mut out = Vec::new();
        if t.race {
            out.extend(self.race.findings(cx));
        }
        if t.sync {
            out.extend(self.sync.findings(cx));
        }
        if t.init {
            out.extend(self.init.findings(cx));
        }
        if t.bank {
            out.extend(self.bank.findings(cx));
        }
        if t.coalesce {
            out.extend(self.coalesce.findings(cx));
        }
        out
    }

    /// Kernel-wide counts for each kernel launched, in order of first launch.
    pub fn totals(&self) -> Vec<KernelTotals> {
        let mut out: Vec<KernelTotals> = Vec::new();
        for info in &self.launches {
            match out.iter_mut().find(|k| k.kernel == info.kernel_name) {
                Some(k) => k.launches += 1,
                None => out.push(KernelTotals {
                    kernel: info.kernel_name.clone(),
                    mangled: info.kernel_mangled.clone(),
                    launches: 1,
                    ..KernelTotals::default()
                }),
            }
        }
        for k in &mut out {
            self.bank.add_totals(k);
            self.coalesce.add_totals(k);
        }
        out
    }

    /// The launches checked so far with their outcomes (faults are reported by the caller,
    /// which knows how to locate them in the PTX).
    pub fn outcomes(&self) -> &[(String, RunOutcome)] {
        &self.outcomes
    }
}

/// The per-launch state of the enabled checkers: the emulator's observer factory.
///
/// The emulator recycles a merged block's observers for later blocks on the calling
/// thread, while the pool runs other blocks; the observers then run on a pool thread. So
/// that the calling thread writes as little of their memory as it can (it must read what
/// it merges), each checker's `recycle` sets only the block's identity and marks the
/// observer stale, and the observer clears its per-block state in `on_block_start`, on the
/// host thread that runs the block.
pub struct Launch<'s> {
    pub race: Option<race::RaceLaunch<'s>>,
    pub sync: Option<sync::SyncLaunch<'s>>,
    pub init: Option<init::InitLaunch<'s>>,
    pub bank: Option<bank::BankLaunch<'s>>,
    pub coalesce: Option<coalesce::CoalesceLaunch<'s>>,
}

/// The observers of one block.
pub struct Blocks {
    pub race: Option<race::RaceBlock>,
    /// The race observer kept while the sampled race checker skips blocks, to be
    /// recycled for the next watched one.
    spare_race: Option<race::RaceBlock>,
    pub sync: Option<sync::SyncBlock>,
    pub init: Option<init::InitBlock>,
    pub bank: Option<bank::BankBlock>,
    pub coalesce: Option<coalesce::CoalesceBlock>,
}

macro_rules! each {
    ($self:ident, $c:ident => $e:expr) => {{
        if let Some($c) = &mut $self.race {
            $e;
        }
        if let Some($c) = &mut $self.sync {
            $e;
        }
        if let Some($c) = &mut $self.init {
            $e;
        }
        if let Some($c) = &mut $self.bank {
            $e;
        }
        if let Some($c) = &mut $self.coalesce {
            $e;
        }
    }};
}

impl Blocks {
    /// The checkers' memory hooks, inlined here: they are loops over the 32 lanes.
    #[inline(always)]
    fn on_memory_portable(&mut self, event: &MemEvent<'_>) {
        each!(self, c => c.on_memory(event))
    }

    /// [`Blocks::on_memory_portable`] compiled for AVX2, which handles four 64-bit lanes
    /// per instruction where the x86-64 baseline (SSE2) handles two.
    ///
    /// # Safety
    /// The CPU must support AVX2.
    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx2")]
    unsafe fn on_memory_avx2(&mut self, event: &MemEvent<'_>) {
        self.on_memory_portable(event)
    }
}

impl Observer for Blocks {
    fn on_block_start(&mut self, block: [u32; 3], threads: u32) {
        each!(self, c => c.on_block_start(block, threads))
    }
    #[inline(always)]
    fn on_memory(&mut self, event: &MemEvent<'_>) {
        #[cfg(target_arch = "x86_64")]
        if std::arch::is_x86_feature_detected!("avx2") {
            // SAFETY: the CPU has AVX2, checked just above.
            unsafe { self.on_memory_avx2(event) };
            return;
        }
        self.on_memory_portable(event);
    }
    fn on_barrier_arrive(&mut self, event: &BarrierEvent) {
        each!(self, c => c.on_barrier_arrive(event))
    }
    fn on_barrier_release(&mut self, block: [u32; 3], id: u32) {
        each!(self, c => c.on_barrier_release(block, id))
    }
    fn on_warp_sync(&mut self, event: &WarpSyncEvent) {
        each!(self, c => c.on_warp_sync(event))
    }
    fn on_diverge(&mut self, warp: u32, inst: InstId, taken: u32, not_taken: u32) {
        each!(self, c => c.on_diverge(warp, inst, taken, not_taken))
    }
    fn on_exit(&mut self, warp: u32, lanes: u32) {
        each!(self, c => c.on_exit(warp, lanes))
    }
    fn on_block_end(&mut self, block: [u32; 3]) {
        each!(self, c => c.on_block_end(block))
    }
}

impl ObserverFactory for Launch<'_> {
    type Observer = Blocks;

    fn create(&self, block: [u32; 3]) -> Blocks {
        Blocks {
            race: self
                .race
                .as_ref()
                .filter(|l| l.watches(block))
                .map(|l| l.create(block)),
            spare_race: None,
            sync: self.sync.as_ref().map(|l| l.create(block)),
            init: self.init.as_ref().map(|l| l.create(block)),
            bank: self.bank.as_ref().map(|l| l.create(block)),
            coalesce: self.coalesce.as_ref().map(|l| l.create(block)),
        }
    }

    fn recycle(&self, o: &mut Blocks, block: [u32; 3]) {
        match self.race.as_ref() {
            Some(l) if l.watches(block) => {
                if o.race.is_none() {
                    o.race = o.spare_race.take();
                }
                renew(Some(l), &mut o.race, block);
            }
            Some(_) => {
                if let Some(r) = o.race.take() {
                    o.spare_race = Some(r);
                }
            }
            None => o.race = None,
        }
        renew(self.sync.as_ref(), &mut o.sync, block);
        renew(self.init.as_ref(), &mut o.init, block);
        renew(self.bank.as_ref(), &mut o.bank, block);
        renew(self.coalesce.as_ref(), &mut o.coalesce, block);
    }

    fn merge(&mut self, observers: &mut [([u32; 3], Blocks)]) {
        merge_part(&mut self.race, observers, |o| &mut o.race);
        merge_part(&mut self.sync, observers, |o| &mut o.sync);
        merge_part(&mut self.init, observers, |o| &mut o.init);
        merge_part(&mut self.bank, observers, |o| &mut o.bank);
        merge_part(&mut self.coalesce, observers, |o| &mut o.coalesce);
    }
}

/// One checker's part of [`Launch::recycle`]: its observer recycled when the checker
/// watches the block and has one, created when it watches the block and has none.
fn renew<L: ObserverFactory>(launch: Option<&L>, slot: &mut Option<L::Observer>, block: [u32; 3]) {
    match (launch, slot.as_mut()) {
        (Some(l), Some(o)) => l.recycle(o, block),
        (Some(l), None) => *slot = Some(l.create(block)),
        (None, _) => *slot = None,
    }
}

/// One checker's part of [`Launch::merge`]: its observers are moved out of the blocks'
/// (in block order), merged, and put back to be recycled.
fn merge_part<L: ObserverFactory>(
    launch: &mut Option<L>,
    observers: &mut [([u32; 3], Blocks)],
    part: impl Fn(&mut Blocks) -> &mut Option<L::Observer>,
) {
    let Some(l) = launch else { return };
    let mut taken = Vec::with_capacity(observers.len());
    let mut from = Vec::with_capacity(observers.len());
    for (i, (b, o)) in observers.iter_mut().enumerate() {
        if let Some(x) = part(o).take() {
            taken.push((*b, x));
            from.push(i);
        }
    }
    l.merge(&mut taken);
    for (i, (_, x)) in from.into_iter().zip(taken) {
        *part(&mut observers[i].1) = Some(x);
    }
}
