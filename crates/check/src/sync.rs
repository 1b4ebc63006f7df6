//! Barrier divergence, `__syncwarp` masks and barrier thread counts.
//!
//! # Semantics
//!
//! A CTA barrier (`bar.sync`/`barrier.sync`/`bar.red`, PTX ISA §9.7.12.1) counts arriving
//! threads per barrier id; the emulator releases it when the expected count has arrived,
//! where threads that exit stop being expected. So a thread that returns early neither
//! blocks nor breaks a barrier, and the emulator's own faults cover the rest: a barrier
//! that can never complete is a deadlock fault of the emulator, which this checker claims
//! ([`Check::reports_fault`]), so it is reported as `deadlock` while `sync` is on.
//!
//! This checker reports the barrier uses that the emulator tolerates but that are bugs
//! (CUDA requires `__syncthreads()` to be reached by every non-exited thread of the block,
//! and by whole warps):
//!
//! * `barrier-divergence` (error), for one *generation* of a barrier (from the block's
//!   start or the previous release of any barrier to the release of this one):
//!   - threads arrived at different instructions with the same barrier id and no thread
//!     count (named barriers with a count, and `bar.arrive`, are producer/consumer
//!     hand-offs meant to be reached from different places), or
//!   - a thread that did not arrive ran *past* the barrier: it executed a memory access
//!     or synchronisation of the same function at an instruction after the barrier's
//!     (in PTX order) during the generation, and then exited. For a barrier without a
//!     thread count this is any thread of the block; for `bar.sync id, count` (named
//!     barriers used by some warps only) only threads of warps that arrived count, so
//!     the check is "reached by part of a warp";
//!   - the block ended (fault, deadlock) while threads waited at the barrier and other
//!     threads had neither arrived nor exited.
//!
//!   Threads that return before a barrier without touching memory after it are not
//!   reported: they only release it. Activity inside called (non-inlined) functions is
//!   not compared with the barrier's position.
//! * `syncwarp-mask` (error): `bar.warp.sync` (`__syncwarp`) or a warp collective
//!   (`shfl.sync`, `vote.sync`, `match.sync`, `redux.sync`) executed by a lane that its
//!   member mask excludes, which PTX leaves undefined (§9.7.12.2, §9.7.8.6).
//! * `barrier-count` (error): a barrier whose thread count is not a multiple of the warp
//!   size (PTX ISA §9.7.12.1 requires it).

use warpcheck_emu::{BarrierEvent, FaultKind, MemEvent, Observer, ObserverFactory, WarpSyncEvent};
use warpcheck_ir::{EntityRef, FuncId, InstId};
use warpcheck_report::{Code, Finding, Severity};

use crate::coalesce::LANE_BIT;
use crate::{Check, CheckOptions, LaunchCheck, LaunchInfo, ReportCx, Site, fmt3};

/// A witness thread: block, linear thread index in the block.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Witness {
    pub block: [u32; 3],
    pub thread: u32,
}

/// What was wrong with one barrier generation.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Divergence {
    /// The barrier instructions that threads arrived at, first arrival first.
    pub sites: Vec<Site>,
    pub id: u32,
    /// Threads that arrived, and one of them.
    pub arrived_threads: u32,
    pub arrived: Witness,
    /// A thread that did not arrive, and the last instruction it executed past the barrier
    /// (`None` when it is still waiting elsewhere at the end of the block).
    pub missing: Option<(Witness, Option<Site>)>,
    /// Threads of the block that did not arrive and were not exited at the start.
    pub missing_threads: u32,
    /// Whether the block ended with the barrier still waiting.
    pub unreleased: bool,
}

/// One kind of finding at one set of sites, with its first witness and a count.
#[derive(Clone, Debug)]
struct Grouped<T> {
    kernel: u32,
    key: Vec<Site>,
    first: T,
    count: u64,
}

fn add_grouped<T>(list: &mut Vec<Grouped<T>>, kernel: u32, key: Vec<Site>, item: T, n: u64) {
    match list.iter_mut().find(|g| g.kernel == kernel && g.key == key) {
        Some(g) => g.count += n,
        None => list.push(Grouped {
            kernel,
            key,
            first: item,
            count: n,
        }),
    }
}

/// Records one violation at `site` in a block's list (first witness kept, others counted).
fn add_local<T>(list: &mut Vec<(Site, T, u64)>, site: Site, item: T) {
    match list.iter_mut().find(|(s, _, _)| *s == site) {
        Some((_, _, n)) => *n += 1,
        None => list.push((site, item, 1)),
    }
}

#[derive(Clone, Copy, Debug)]
struct MaskViolation {
    witness: Witness,
    member_mask: u32,
    lanes: u32,
    orders_memory: bool,
}

#[derive(Clone, Copy, Debug)]
struct CountViolation {
    witness: Witness,
    count: u32,
}

/// Barrier findings of a session.
#[derive(Default)]
pub struct SyncState {
    kernels: Vec<String>,
    block_dims: Vec<[u32; 3]>,
    divergences: Vec<Grouped<Divergence>>,
    masks: Vec<Grouped<MaskViolation>>,
    counts: Vec<Grouped<CountViolation>>,
}

impl Check for SyncState {
    type Launch<'s> = SyncLaunch<'s>;
    type Block = SyncBlock;

    fn new(_options: &CheckOptions) -> SyncState {
        SyncState::default()
    }

    fn launch(&mut self, info: &LaunchInfo, _seq: u64) -> SyncLaunch<'_> {
        let kernel = match self.kernels.iter().position(|k| *k == info.kernel_name) {
            Some(i) => i,
            None => {
                self.kernels.push(info.kernel_name.clone());
                self.block_dims.push(info.block);
                self.kernels.len() - 1
            }
        } as u32;
        SyncLaunch {
            kernel,
            func: info.kernel,
            state: self,
        }
    }

    fn findings(&self, cx: &ReportCx) -> Vec<Finding> {
        self.barrier_findings(cx)
    }

    /// A barrier that can never complete is a deadlock of the emulator (the block's
    /// threads wait forever): this checker's to report.
    fn reports_fault(kind: &FaultKind) -> bool {
        matches!(kind, FaultKind::Deadlock { .. })
    }
}

impl SyncState {
    /// The barrier divergences found so far (first occurrence per set of barrier sites).
    pub fn divergences(&self) -> impl Iterator<Item = (&Divergence, u64)> {
        self.divergences.iter().map(|g| (&g.first, g.count))
    }

    fn barrier_findings(&self, cx: &ReportCx) -> Vec<Finding> {
        let mut out = Vec::new();
        for g in &self.divergences {
            out.push(self.divergence_finding(cx, g));
        }
        for g in &self.masks {
            let m = &g.first;
            let (what, help) = if m.orders_memory {
                (
                    "`__syncwarp` (`bar.warp.sync`)",
                    "every lane that executes `__syncwarp(mask)` must be in `mask`; \
                     compute the mask from the lanes that take the branch (e.g. \
                     `__activemask()` before it, or `__ballot_sync`)",
                )
            } else {
                (
                    "warp collective (`shfl/vote/match/redux.sync`)",
                    "every lane that executes a `*_sync(mask, ...)` intrinsic must be in \
                     `mask`",
                )
            };
            let lanes_outside = m.lanes & !m.member_mask;
            let lane = lanes_outside.trailing_zeros();
            let mut f = Finding::new(
                Code::SyncwarpMask,
                Severity::Error,
                format!("{what} executed by a lane outside its member mask"),
            )
            .kernel(self.kernels[g.kernel as usize].clone());
            if let Some(loc) = g.key.first().and_then(|s| cx.locate(*s)) {
                f = f.at(
                    loc,
                    format!(
                        "member mask {:#010x}, executing lanes {:#010x}",
                        m.member_mask, m.lanes
                    ),
                );
            }
            let dims = self.block_dims[g.kernel as usize];
            f = f
                .note(format!(
                    "thread {} of block {} (lane {lane}) is not in the mask; PTX leaves the \
                     result undefined",
                    fmt3(thread_index(dims, m.witness.thread)),
                    fmt3(m.witness.block)
                ))
                .help(help);
            f.occurrences = g.count;
            out.push(f);
        }
        for g in &self.counts {
            let c = &g.first;
            let mut f = Finding::new(
                Code::BarrierCount,
                Severity::Error,
                format!(
                    "barrier thread count {} is not a multiple of the warp size (32)",
                    c.count
                ),
            )
            .kernel(self.kernels[g.kernel as usize].clone());
            if let Some(loc) = g.key.first().and_then(|s| cx.locate(*s)) {
                f = f.at(loc, format!("{} threads", c.count));
            }
            let dims = self.block_dims[g.kernel as usize];
            f = f
                .note(format!(
                    "executed by thread {} of block {}",
                    fmt3(thread_index(dims, c.witness.thread)),
                    fmt3(c.witness.block)
                ))
                .help("PTX requires the thread count of `bar.sync`/`bar.arrive` to be a multiple of 32; whole warps arrive at barriers");
            f.occurrences = g.count;
            out.push(f);
        }
        out
    }

    fn divergence_finding(&self, cx: &ReportCx, g: &Grouped<Divergence>) -> Finding {
        let d = &g.first;
        let dims = self.block_dims[g.kernel as usize];
        let message = if d.sites.len() > 1 {
            "barrier divergence: threads of a block wait at different barrier instructions"
                .to_string()
        } else {
            "barrier divergence: the barrier is not reached by every thread of the block"
                .to_string()
        };
        let mut f = Finding::new(Code::BarrierDivergence, Severity::Error, message)
            .kernel(self.kernels[g.kernel as usize].clone());
        if let Some(loc) = d.sites.first().and_then(|s| cx.locate(*s)) {
            f = f.at(
                loc,
                format!(
                    "barrier {} reached by {} threads of block {}",
                    d.id,
                    d.arrived_threads,
                    fmt3(d.arrived.block)
                ),
            );
        }
        for s in d.sites.iter().skip(1) {
            if let Some(loc) = cx.locate(*s) {
                f = f.related(
                    loc,
                    format!("other threads arrive at barrier {} here", d.id),
                );
            }
        }
        f = f.note(format!(
            "thread {} of block {} arrived at the barrier",
            fmt3(thread_index(dims, d.arrived.thread)),
            fmt3(d.arrived.block)
        ));
        if let Some((w, site)) = d.missing {
            let t = fmt3(thread_index(dims, w.thread));
            match site {
                Some(site) => {
                    f = f.note(format!(
                        "thread {t} did not arrive: it ran past the barrier and exited"
                    ));
                    if let Some(loc) = cx.locate(site) {
                        f = f.related(loc, format!("thread {t} executed this without arriving"));
                    }
                }
                None if d.unreleased => {
                    f = f.note(format!(
                        "thread {t} never arrived: the block ended with the barrier waiting"
                    ));
                }
                None => {
                    f = f.note(format!("thread {t} did not arrive"));
                }
            }
        }
        if d.missing_threads > 0 {
            f = f.note(format!(
                "{} of {} threads that had not exited did not arrive",
                d.missing_threads,
                d.missing_threads + d.arrived_threads
            ));
        }
        f.occurrences = g.count;
        f.help(
            "make every thread of the block reach the same `__syncthreads()`: move it out of \
             the condition (threads may skip the work, not the barrier)",
        )
    }
}

fn thread_index(dims: [u32; 3], linear: u32) -> [u32; 3] {
    let [bx, by, _] = dims;
    let bx = bx.max(1);
    let by = by.max(1);
    [linear % bx, (linear / bx) % by, linear / (bx * by)]
}

pub struct SyncLaunch<'s> {
    state: &'s mut SyncState,
    kernel: u32,
    func: FuncId,
}

impl LaunchCheck for SyncLaunch<'_> {}

/// Where the lanes of one warp got to since the last barrier release: per lane, 1 + the
/// largest instruction index (in the kernel function) of a memory access or
/// synchronisation, 0 for none.
///
/// Kept as the last few `(lanes, furthest)` pairs, because consecutive events of a warp
/// almost always have the same active lanes: noting an event is then one comparison and
/// one `max`, not a pass over 32 lanes. Pairs that do not fit are folded into the per-lane
/// array, which is read only when a barrier generation misses some lanes.
#[derive(Clone, Debug, Default)]
struct Activity {
    recent: [(u32, u32); Activity::RECENT],
    len: usize,
    /// Per lane, for pairs folded out of `recent`; all zero unless `folded`.
    per_lane: [u32; 32],
    folded: bool,
}

impl Activity {
    const RECENT: usize = 4;

    #[inline(always)]
    fn note(&mut self, lanes: u32, at: u32) {
        if self.len > 0 {
            let last = &mut self.recent[self.len - 1];
            if last.0 == lanes {
                last.1 = last.1.max(at);
                return;
            }
        }
        if self.len == Self::RECENT {
            self.fold();
        }
        self.recent[self.len] = (lanes, at);
        self.len += 1;
    }

    #[cold]
    fn fold(&mut self) {
        for &(lanes, at) in &self.recent[..self.len] {
            for (l, furthest) in self.per_lane.iter_mut().enumerate() {
                if lanes & LANE_BIT[l] != 0 {
                    *furthest = (*furthest).max(at);
                }
            }
        }
        self.len = 0;
        self.folded = true;
    }

    fn lane(&self, l: usize) -> u32 {
        let recent = self.recent[..self.len]
            .iter()
            .filter(|(lanes, _)| lanes & LANE_BIT[l] != 0)
            .map(|&(_, at)| at)
            .max()
            .unwrap_or(0);
        recent.max(self.per_lane[l])
    }

    fn clear(&mut self) {
        self.len = 0;
        if self.folded {
            self.per_lane = [0; 32];
            self.folded = false;
        }
    }
}

/// One pending barrier generation.
#[derive(Clone, Debug)]
struct Generation {
    id: u32,
    count: Option<u32>,
    /// The barrier instructions arrived at, first arrival first.
    sites: Vec<Site>,
    /// Lanes arrived, per warp.
    arrived: Vec<u32>,
    /// Lanes exited when the generation's first thread arrived, per warp.
    exited_at_start: Vec<u32>,
}

/// One block's barrier observer.
pub struct SyncBlock {
    func: FuncId,
    block: [u32; 3],
    threads: u32,
    /// Exited lanes per warp.
    exited: Vec<u32>,
    /// Per warp: where its lanes got to since the last barrier release.
    furthest: Vec<Activity>,
    pending: Vec<Generation>,
    /// Released generations, for reuse.
    spare: Vec<Generation>,
    divergences: Vec<Divergence>,
    masks: Vec<(Site, MaskViolation, u64)>,
    counts: Vec<(Site, CountViolation, u64)>,
}

impl SyncBlock {
    fn warps(&self) -> usize {
        self.threads.div_ceil(32) as usize
    }

    fn note_activity(&mut self, warp: u32, lanes: u32, func: FuncId, inst: InstId) {
        if func != self.func {
            return;
        }
        if let Some(activity) = self.furthest.get_mut(warp as usize) {
            activity.note(lanes, inst.index() as u32 + 1);
        }
    }

    /// Checks a generation when it is released (or left waiting at the end of the block).
    fn evaluate(&mut self, g: &Generation, unreleased: bool) {
        let warps = self.warps();
        let arrived_threads: u32 = g.arrived.iter().map(|m| m.count_ones()).sum();
        let Some((aw, am)) = g.arrived.iter().enumerate().find(|(_, m)| **m != 0) else {
            return;
        };
        let arrived = Witness {
            block: self.block,
            thread: aw as u32 * 32 + am.trailing_zeros(),
        };
        let (barrier_func, barrier_inst) = g.sites[0];
        let mut missing: Option<(Witness, Option<Site>)> = None;
        let mut missing_threads = 0;
        let mut ran_past = false;
        for w in 0..warps {
            let present = present_lanes(self.threads, w);
            let arrived_here = g.arrived.get(w).copied().unwrap_or(0);
            if g.count.is_some() && arrived_here == 0 {
                continue;
            }
            let not_arrived =
                present & !arrived_here & !g.exited_at_start.get(w).copied().unwrap_or(0);
            missing_threads += not_arrived.count_ones();
            let mut m = not_arrived;
            while m != 0 {
                let l = m.trailing_zeros() as usize;
                m &= m - 1;
                let witness = Witness {
                    block: self.block,
                    thread: w as u32 * 32 + l as u32,
                };
                let furthest = self.furthest.get(w).map_or(0, |f| f.lane(l));
                let past = barrier_func == self.func && furthest > barrier_inst.index() as u32 + 1;
                let still_live = self.exited.get(w).copied().unwrap_or(0) & (1 << l) == 0;
                if past {
                    if !ran_past {
                        ran_past = true;
                        missing = Some((
                            witness,
                            Some((self.func, InstId::new(furthest as usize - 1))),
                        ));
                    }
                } else if unreleased && still_live && missing.is_none() {
                    missing = Some((witness, None));
                }
            }
        }
        let still_waiting_elsewhere = unreleased && missing.is_some_and(|(_, site)| site.is_none());
        // Named barriers with a thread count (and `bar.arrive`, which always has one) are
        // meant to be reached from different places: producers arrive, consumers wait.
        let split_sites = g.sites.len() > 1 && g.count.is_none();
        if split_sites || ran_past || still_waiting_elsewhere {
            self.divergences.push(Divergence {
                sites: g.sites.clone(),
                id: g.id,
                arrived_threads,
                arrived,
                missing,
                missing_threads,
                unreleased,
            });
        }
    }
}

fn present_lanes(threads: u32, warp: usize) -> u32 {
    let first = warp as u32 * 32;
    if threads >= first + 32 {
        u32::MAX
    } else if threads > first {
        (1u32 << (threads - first)) - 1
    } else {
        0
    }
}

impl Observer for SyncBlock {
    fn on_block_start(&mut self, block: [u32; 3], threads: u32) {
        self.block = block;
        self.threads = threads;
        self.spare.append(&mut self.pending);
        self.divergences.clear();
        self.masks.clear();
        self.counts.clear();
        let warps = self.warps();
        self.exited.clear();
        self.exited.resize(warps, 0);
        self.furthest.clear();
        self.furthest.resize(warps, Activity::default());
    }

    #[inline(always)]
    fn on_memory(&mut self, e: &MemEvent<'_>) {
        self.note_activity(e.warp, e.lanes, e.func, e.inst);
    }

    fn on_barrier_arrive(&mut self, e: &BarrierEvent) {
        let site = (e.func, e.inst);
        if let Some(count) = e.count
            && count % 32 != 0
        {
            add_local(
                &mut self.counts,
                site,
                CountViolation {
                    witness: Witness {
                        block: e.block,
                        thread: e.warp * 32 + e.lanes.trailing_zeros(),
                    },
                    count,
                },
            );
        }
        let warps = self.warps();
        let exited = &self.exited;
        let i = match self.pending.iter().position(|g| g.id == e.id) {
            Some(i) => i,
            None => {
                // Generations are reused (one per barrier release adds up on big grids).
                let mut g = self.spare.pop().unwrap_or_else(|| Generation {
                    id: 0,
                    count: None,
                    sites: Vec::new(),
                    arrived: Vec::new(),
                    exited_at_start: Vec::new(),
                });
                g.id = e.id;
                g.count = e.count;
                g.sites.clear();
                g.sites.push(site);
                g.arrived.clear();
                g.arrived.resize(warps, 0);
                g.exited_at_start.clone_from(exited);
                self.pending.push(g);
                self.pending.len() - 1
            }
        };
        let g = &mut self.pending[i];
        if !g.sites.contains(&site) {
            g.sites.push(site);
        }
        if e.count.is_some() {
            g.count = e.count;
        }
        if let Some(a) = g.arrived.get_mut(e.warp as usize) {
            *a |= e.lanes;
        }
    }

    fn on_barrier_release(&mut self, _block: [u32; 3], id: u32) {
        if let Some(i) = self.pending.iter().position(|g| g.id == id) {
            let g = self.pending.swap_remove(i);
            self.evaluate(&g, false);
            self.spare.push(g);
        }
        for f in &mut self.furthest {
            f.clear();
        }
    }

    fn on_warp_sync(&mut self, e: &WarpSyncEvent) {
        if e.lanes & !e.member_mask != 0 {
            add_local(
                &mut self.masks,
                (e.func, e.inst),
                MaskViolation {
                    witness: Witness {
                        block: e.block,
                        thread: e.warp * 32 + (e.lanes & !e.member_mask).trailing_zeros(),
                    },
                    member_mask: e.member_mask,
                    lanes: e.lanes,
                    orders_memory: e.orders_memory,
                },
            );
        }
        self.note_activity(e.warp, e.lanes, e.func, e.inst);
    }

    fn on_exit(&mut self, warp: u32, lanes: u32) {
        if let Some(x) = self.exited.get_mut(warp as usize) {
            *x |= lanes;
        }
    }

    fn on_block_end(&mut self, _block: [u32; 3]) {
        let pending = std::mem::take(&mut self.pending);
        for g in pending {
            self.evaluate(&g, true);
            self.spare.push(g);
        }
    }
}

impl ObserverFactory for SyncLaunch<'_> {
    type Observer = SyncBlock;
    fn create(&self, block: [u32; 3]) -> SyncBlock {
        SyncBlock {
            func: self.func,
            block,
            threads: 0,
            exited: Vec::new(),
            furthest: Vec::new(),
            pending: Vec::new(),
            spare: Vec::new(),
            divergences: Vec::new(),
            masks: Vec::new(),
            counts: Vec::new(),
        }
    }

    /// Only the block's identity here: the rest is cleared when the block starts, on the
    /// host thread that runs it (see [`crate::Launch`]).
    fn recycle(&self, o: &mut SyncBlock, block: [u32; 3]) {
        o.func = self.func;
        o.block = block;
        o.threads = 0;
    }

    fn merge(&mut self, observers: &mut [([u32; 3], SyncBlock)]) {
        let k = self.kernel;
        for (_, b) in observers {
            for d in b.divergences.drain(..) {
                let key = d.sites.clone();
                add_grouped(&mut self.state.divergences, k, key, d, 1);
            }
            for (site, m, n) in b.masks.drain(..) {
                add_grouped(&mut self.state.masks, k, vec![site], m, n);
            }
            for (site, c, n) in b.counts.drain(..) {
                add_grouped(&mut self.state.counts, k, vec![site], c, n);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        /// The summary answers per lane what a per-lane maximum over every event would.
        #[test]
        fn activity_equals_per_lane_maximum(
            rounds in proptest::collection::vec(
                proptest::collection::vec((prop_oneof![Just(u32::MAX), Just(0xffff), any::<u32>()], 1u32..500), 0..12),
                1..4,
            )
        ) {
            let mut activity = Activity::default();
            for events in rounds {
                let mut direct = [0u32; 32];
                for &(lanes, at) in &events {
                    activity.note(lanes, at);
                    for (l, d) in direct.iter_mut().enumerate() {
                        if lanes & (1 << l) != 0 {
                            *d = (*d).max(at);
                        }
                    }
                }
                for (l, d) in direct.iter().enumerate() {
                    prop_assert_eq!(activity.lane(l), *d);
                }
                activity.clear();
            }
        }
    }
}
