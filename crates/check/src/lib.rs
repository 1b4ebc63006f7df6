//! warpcheck's dynamic checkers.
//!
//! Each checker is an emulator observer ([`warpcheck_emu::Observer`]): it sees one event
//! per warp-instruction that touches memory or synchronises and keeps its own shadow
//! state. The checkers are listed once, in the `checkers!` invocation of this module,
//! which combines them in [`Blocks`], a struct of optional concrete checkers, so every
//! hook is statically dispatched; a checker that is off costs one branch.
//!
//! A [`Checker`] lives across the launches of one session (several launches share buffers
//! and, for the initialisation checker, their shadow state). For each launch it creates
//! per-launch state ([`Launch`], the [`ObserverFactory`](warpcheck_emu::ObserverFactory));
//! the emulator asks it for one observer per block, runs blocks on several host threads,
//! and hands the blocks' observers back in block order, chunk by chunk, so results are
//! deterministic.
//!
//! The checkers:
//!
//! * [`race`]: data races on shared and global memory, within a warp, between warps and
//!   between blocks (see the module for the semantics).
//! * [`sync`]: barrier divergence, `__syncwarp` masks that exclude the caller, barrier
//!   thread counts that are not a multiple of the warp size; deadlocks.
//! * [`mem`]: out-of-bounds and misaligned accesses, writes to read-only memory, wild
//!   generic addresses, stack overflows and bad indirect calls.
//! * [`init`]: reads of uninitialised global, shared and local memory.
//! * [`bank`]: shared-memory bank conflicts per instruction (Nsight Compute's counting).
//! * [`coalesce`]: global-memory requests and sectors per instruction.
//!
//! [`heat`] sums an optional per-instruction profile and the last two checkers' counts
//! per source line, for the HTML report.
//!
//! Out-of-bounds and misaligned accesses and deadlocks are faults of the emulator itself
//! ([`warpcheck_emu::Fault`]): the checker that claims a fault's kind
//! ([`Check::reports_fault`]: `mem`, `sync`) decides whether it is reported, and
//! [`Checker::findings`] lists the launches' faults ([`fault`]) before the checkers' own
//! findings.
//!
//! # Adding a checker
//!
//! 1. Write the module, `src/NAME.rs`, opening with a doc comment that states what it
//!    reports and the algorithm. It defines three types:
//!    * the session state, implementing [`Check`] (`new`, `launch`, `findings`; `prepare`,
//!      `add_totals` and `reports_fault` when needed);
//!    * the launch state, `NAMELaunch<'s>` (usually holding `&'s mut` the session
//!      state), implementing [`ObserverFactory`](warpcheck_emu::ObserverFactory)
//!      (`create`, `recycle`, `merge` in block order) and [`LaunchCheck`] (`finish`, and
//!      `watches` for a checker that samples blocks);
//!    * the block observer, implementing [`warpcheck_emu::Observer`], whose hooks default
//!      to doing nothing: implement only the events the checker needs. `on_memory` is
//!      the hot path: keep it `#[inline(always)]`, a loop over the event's lanes, and put
//!      the reporting behind a `#[cold]` function.
//! 2. Declare it (`pub mod NAME;`) and add one line to the `checkers!` invocation below:
//!    `NAME | "alias" => NAME::NAMEState,`, where the findings should be listed.
//!
//! The `--tool` name (and aliases), the field of [`Tools`], the slot in [`Blocks`] and
//! the dispatch of every hook to it (the memory hook also in the AVX2 build), the
//! launch's creation, recycling, merge and finish, and the findings and totals of
//! [`Checker`] follow from that line.

#[macro_use]
mod registry;

pub mod bank;
pub mod coalesce;
pub mod fault;
pub mod heat;
pub mod init;
pub mod mem;
pub mod race;
pub mod sync;

pub use registry::{Check, LaunchCheck, Slot};
pub use warpcheck_emu::sample::{self, BlockSample, RaceBlocks};

use std::fmt;

use warpcheck_emu::{EmuError, GlobalMemory, LaunchConfig, Observer, RunOutcome, SharedVar};
use warpcheck_ir::{FuncId, InstId, Program, SourceLoc};
use warpcheck_report::{Finding, Location};

checkers! {
    race | "racecheck" => race::RaceState,
    sync | "synccheck" => sync::SyncState,
    mem | "memcheck" => mem::MemState,
    init | "initcheck" => init::InitState,
    bank => bank::BankState,
    coalesce => coalesce::CoalesceState,
}

/// Where an access or synchronisation happened: a function and an instruction in it.
pub type Site = (FuncId, InstId);

impl Tools {
    /// Parses a comma-separated list such as `race,bank` or `all`.
    pub fn parse(list: &str) -> Result<Tools, String> {
        let mut t = Tools::none();
        for name in list.split(',').map(str::trim).filter(|s| !s.is_empty()) {
            if name == "all" {
                t = Tools::all();
            } else if !t.enable(name) {
                return Err(format!(
                    "unknown tool `{name}` (expected all or a comma-separated list of {})",
                    Tools::NAMES.join(", ")
                ));
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
    /// Report write-write races whose writes all store the same value as errors
    /// (`shared-race`, `global-race`) rather than `benign-race` warnings.
    pub strict_races: bool,
}

impl Default for CheckOptions {
    fn default() -> Self {
        CheckOptions {
            tools: Tools::all(),
            intra_warp: IntraWarp::default(),
            race_blocks: RaceBlocks::default(),
            strict_races: false,
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
    /// For a buffer the tool made up that could not grow to what the kernel reached.
    /// Accesses past its end are artefacts of the made-up size, reported as notes
    /// ([`fault::made_up_overrun`]), never as errors.
    pub too_small: Option<TooSmall>,
}

/// Why a made-up buffer stayed smaller than the kernel reached, and the `--arg` that
/// gives it the size reached.
#[derive(Clone, Debug)]
pub struct TooSmall {
    pub arg: String,
    pub why: &'static str,
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

    /// A `.loc` source location as findings show it (the file as the program names it).
    pub fn source(&self, loc: &SourceLoc) -> Location {
        Location {
            file: self.program.files.path(loc.file),
            line: loc.line,
            column: loc.column,
        }
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

impl Checker {
    /// Runs one launch under the enabled checkers.
    pub fn launch(
        &mut self,
        program: &Program,
        params: &[u8],
        memory: &mut GlobalMemory,
        config: &LaunchConfig,
        info: LaunchInfo,
    ) -> Result<RunOutcome, EmuError> {
        // The profile is out of `self` while the checkers' launch state borrows it.
        let mut profile = self.profile.take();
        let outcome = self.run_launch(program, params, memory, config, &info, profile.as_mut());
        self.profile = profile;
        let outcome = outcome?;
        self.outcomes
            .push((info.kernel_name.clone(), outcome.clone()));
        self.launches.push(info);
        Ok(outcome)
    }

    /// Runs the launch under the checkers' observers, profiled when `profile` is given.
    fn run_launch(
        &mut self,
        program: &Program,
        params: &[u8],
        memory: &mut GlobalMemory,
        config: &LaunchConfig,
        info: &LaunchInfo,
        profile: Option<&mut heat::Profile>,
    ) -> Result<RunOutcome, EmuError> {
        // The device heap is placed before the checkers look at the allocations, so that
        // the initialisation checker tracks it from its first launch.
        warpcheck_emu::prepare_heap(program, info.kernel, memory)?;
        let mut launch = self.start(memory, info);
        let kernel = info.kernel;
        let outcome = match profile {
            None => {
                warpcheck_emu::run_observed(program, kernel, params, memory, config, &mut launch)?
            }
            Some(p) => {
                let mut profiled = warpcheck_emu::profile::Profiled::new(launch);
                let outcome = warpcheck_emu::run_observed(
                    program,
                    kernel,
                    params,
                    memory,
                    config,
                    &mut profiled,
                )?;
                let (inner, counts) = profiled.into_parts();
                p.add(&info.kernel_name, &counts);
                launch = inner;
                outcome
            }
        };
        launch.finish(info, &outcome);
        Ok(outcome)
    }

    /// Every finding of the launches so far: the kernel faults the enabled checkers
    /// report, in launch order ([`Checker::fault_findings`]), then each enabled checker's
    /// findings, grouped by checker in registry order, most severe first within a
    /// checker, duplicates merged ([`Checker::observed_findings`]).
    pub fn findings(&self, cx: &ReportCx) -> Vec<Finding> {
        let mut out = self.fault_findings(cx);
        out.extend(self.observed_findings(cx));
        out
    }

    /// The launches' kernel faults, as findings, in launch order: an error for each fault
    /// an enabled checker reports ([`Tools::reports_fault`]), a `block-stopped` note for
    /// the others (the block stopped there, so what it would have done next was not
    /// checked: a faulting block is never dropped without a word).
    pub fn fault_findings(&self, cx: &ReportCx) -> Vec<Finding> {
        let tools = self.options.tools;
        let mut out = Vec::new();
        for ((kernel, outcome), info) in self.outcomes.iter().zip(&self.launches) {
            let total = (outcome.fault_count, outcome.faults.len());
            for (f, count) in fault::grouped(&outcome.faults) {
                if let Some(note) = fault::made_up_overrun(cx, kernel, f, &info.buffers) {
                    out.push(note);
                } else if tools.reports_fault(&f.kind) {
                    let finding = fault::group_finding(cx, kernel, (f, count), total);
                    out.push(fault::explain_dynamic_shared(cx, finding, f, info, outcome));
                } else {
                    out.push(fault::stopped_note(cx, kernel, f));
                }
            }
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
            self.add_totals(k);
        }
        out
    }

    /// The launches checked so far with their outcomes.
    pub fn outcomes(&self) -> &[(String, RunOutcome)] {
        &self.outcomes
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tools_parse_names_aliases_and_all() {
        assert_eq!(
            Tools::NAMES,
            ["race", "sync", "mem", "init", "bank", "coalesce"]
        );
        let t = Tools::parse("racecheck, memcheck,bank").unwrap();
        assert_eq!(
            t,
            Tools {
                race: true,
                mem: true,
                bank: true,
                ..Tools::none()
            }
        );
        assert_eq!(
            Tools::parse("synccheck,initcheck,coalesce").unwrap(),
            Tools {
                sync: true,
                init: true,
                coalesce: true,
                ..Tools::none()
            }
        );
        assert_eq!(Tools::parse("race,all").unwrap(), Tools::all());
        let err = Tools::parse("race,bogus").unwrap_err();
        assert!(
            err.contains("unknown tool `bogus`")
                && err.contains("race, sync, mem, init, bank, coalesce"),
            "{err}"
        );
        assert!(Tools::parse(" , ").is_err());
    }
}
