//! Global-memory coalescing: requests, sectors and lines per instruction.
//!
//! The memory system moves global data in 32-byte *sectors* of 128-byte *lines*. A
//! warp-level global load or store is one *request* (Nsight Compute's
//! `l1tex__t_requests_pipe_lsu_mem_global_op_{ld,st}`, also for 8- and 16-byte
//! accesses); it costs as many sectors as the distinct 32-byte sectors its active lanes'
//! bytes fall in (`l1tex__t_sectors_pipe_lsu_mem_global_op_{ld,st}`).
//!
//! Following GPUDrano (Alur et al. 2017, §5) an access is *uncoalesced* when it needs far
//! more sectors than its data does. With S the sectors of one execution and
//! I = ceil(distinct bytes / 32) the fewest sectors that could hold the same bytes, the
//! execution is uncoalesced when S ≥ 2·I and S ≥ I + 2 (so a contiguous run shifted off
//! sector boundaries, S = I + 1, is not). A finding (`uncoalesced-access`) is reported
//! per source line with at least one uncoalesced execution; its degree is the largest S
//! over those executions. Atomics are not counted (they are served by the L2's atomic
//! units, not as L1 requests). Generic accesses that resolve to global memory count as
//! global accesses.

use std::collections::HashMap;

use warpcheck_emu::{MemEvent, MemKind, Observer, ObserverFactory, RunOutcome};
use warpcheck_ir::modifiers::MemSpace;
use warpcheck_report::{Finding, Location, Severity};

use crate::{KernelTotals, LaunchInfo, ReportCx, Site};

/// What one warp-level global access touches.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct AccessShape {
    /// Distinct 32-byte sectors.
    pub sectors: u32,
    /// Distinct 128-byte lines.
    pub lines: u32,
    /// Distinct bytes.
    pub bytes: u32,
}

impl AccessShape {
    /// The fewest sectors that could hold the bytes: ceil(bytes / 32).
    pub fn ideal_sectors(&self) -> u32 {
        self.bytes.div_ceil(32)
    }

    /// S ≥ 2·I and S ≥ I + 2.
    pub fn is_uncoalesced(&self) -> bool {
        let ideal = self.ideal_sectors();
        self.sectors >= 2 * ideal && self.sectors >= ideal + 2
    }
}

/// Counts the sectors, lines and distinct bytes of one warp-level access.
pub fn access_shape(addresses: &[u64; 32], lanes: u32, size: u32) -> AccessShape {
    let size = u64::from(size.max(1));
    // Each lane's byte range; sorted, overlapping ranges merge.
    let mut ranges = [(0u64, 0u64); 32];
    let mut n = 0;
    let mut active = lanes;
    while active != 0 {
        let lane = active.trailing_zeros() as usize;
        active &= active - 1;
        ranges[n] = (addresses[lane], addresses[lane].saturating_add(size));
        n += 1;
    }
    let ranges = &mut ranges[..n];
    ranges.sort_unstable();
    let mut shape = AccessShape {
        sectors: 0,
        lines: 0,
        bytes: 0,
    };
    // Sweep: the last sector and line counted, and the end of the bytes counted so far.
    let mut last_sector: Option<u64> = None;
    let mut last_line: Option<u64> = None;
    let mut covered_to = 0u64;
    for &(start, end) in ranges.iter() {
        let from = start.max(covered_to);
        if end > from {
            shape.bytes += (end - from) as u32;
            covered_to = end;
        }
        for sector in start / 32..=(end - 1) / 32 {
            if last_sector.is_none_or(|l| sector > l) {
                shape.sectors += 1;
                last_sector = Some(sector);
            }
        }
        for line in start / 128..=(end - 1) / 128 {
            if last_line.is_none_or(|l| line > l) {
                shape.lines += 1;
                last_line = Some(line);
            }
        }
    }
    shape
}

/// Statistics of one global load or store instruction.
#[derive(Clone, Debug, Default)]
pub struct SiteStats {
    pub is_store: bool,
    /// Bytes per lane.
    pub size: u32,
    pub requests: u64,
    pub sectors: u64,
    /// Sum over requests of ceil(distinct bytes / 32).
    pub ideal_sectors: u64,
    pub lines: u64,
    pub uncoalesced_requests: u64,
    /// The largest S of an uncoalesced execution (0 if none), and that execution's I.
    pub worst_sectors: u32,
    pub worst_ideal: u32,
    /// The active lanes of the worst execution.
    pub worst_lanes: u32,
}

impl SiteStats {
    fn add(&mut self, shape: &AccessShape, lanes: u32) {
        self.requests += 1;
        self.sectors += u64::from(shape.sectors);
        self.ideal_sectors += u64::from(shape.ideal_sectors());
        self.lines += u64::from(shape.lines);
        if shape.is_uncoalesced() {
            self.uncoalesced_requests += 1;
            if shape.sectors > self.worst_sectors {
                self.worst_sectors = shape.sectors;
                self.worst_ideal = shape.ideal_sectors();
                self.worst_lanes = lanes.count_ones();
            }
        }
    }

    fn merge(&mut self, o: &SiteStats) {
        self.is_store = o.is_store;
        self.size = o.size;
        self.requests += o.requests;
        self.sectors += o.sectors;
        self.ideal_sectors += o.ideal_sectors;
        self.lines += o.lines;
        self.uncoalesced_requests += o.uncoalesced_requests;
        if o.worst_sectors > self.worst_sectors {
            self.worst_sectors = o.worst_sectors;
            self.worst_ideal = o.worst_ideal;
            self.worst_lanes = o.worst_lanes;
        }
    }

    fn per_request(&self, n: u64) -> f64 {
        if self.requests == 0 {
            0.0
        } else {
            n as f64 / self.requests as f64
        }
    }

    pub fn sectors_per_request(&self) -> f64 {
        self.per_request(self.sectors)
    }

    pub fn ideal_per_request(&self) -> f64 {
        self.per_request(self.ideal_sectors)
    }

    pub fn lines_per_request(&self) -> f64 {
        self.per_request(self.lines)
    }
}

#[derive(Clone, Copy, Debug, Default)]
struct Totals {
    load_requests: u64,
    store_requests: u64,
    load_sectors: u64,
    store_sectors: u64,
}

/// Coalescing statistics of a session, per kernel and instruction.
#[derive(Default)]
pub struct CoalesceState {
    kernels: Vec<String>,
    totals: Vec<Totals>,
    sites: HashMap<(u32, Site), SiteStats>,
}

impl CoalesceState {
    pub fn launch(&mut self, info: &LaunchInfo) -> CoalesceLaunch<'_> {
        let kernel = match self.kernels.iter().position(|k| *k == info.kernel_name) {
            Some(i) => i,
            None => {
                self.kernels.push(info.kernel_name.clone());
                self.totals.push(Totals::default());
                self.kernels.len() - 1
            }
        } as u32;
        CoalesceLaunch {
            state: self,
            kernel,
        }
    }

    /// The statistics of every instruction seen so far, for a kernel by name.
    pub fn site_stats(&self, kernel: &str) -> Vec<(Site, &SiteStats)> {
        let Some(k) = self.kernels.iter().position(|n| n == kernel) else {
            return Vec::new();
        };
        let mut out: Vec<(Site, &SiteStats)> = self
            .sites
            .iter()
            .filter(|((ki, _), _)| *ki as usize == k)
            .map(|((_, site), s)| (*site, s))
            .collect();
        out.sort_by_key(|(site, _)| *site);
        out
    }

    /// One `uncoalesced-access` warning per kernel and source line with an uncoalesced
    /// execution.
    pub fn findings(&self, cx: &ReportCx) -> Vec<Finding> {
        let mut lines: Vec<(u32, Option<Location>, Vec<&SiteStats>)> = Vec::new();
        let mut sites: Vec<(&(u32, Site), &SiteStats)> = self
            .sites
            .iter()
            .filter(|(_, s)| s.uncoalesced_requests > 0)
            .collect();
        sites.sort_by_key(|((k, site), _)| (*k, *site));
        for ((kernel, site), stats) in sites {
            let loc = cx.locate(*site);
            match lines
                .iter_mut()
                .find(|(k, l, _)| *k == *kernel && same_line(l, &loc))
            {
                Some((_, _, group)) => group.push(stats),
                None => lines.push((*kernel, loc, vec![stats])),
            }
        }
        let mut out = Vec::new();
        for (kernel, loc, group) in lines {
            let Some(worst) = group.iter().max_by_key(|s| s.worst_sectors) else {
                continue;
            };
            let what = if worst.is_store { "store" } else { "load" };
            let mut f = Finding::new(
                "uncoalesced-access",
                Severity::Warning,
                format!(
                    "uncoalesced global {what}: a warp touches {} sectors where {} would do",
                    worst.worst_sectors, worst.worst_ideal
                ),
            )
            .kernel(self.kernels[kernel as usize].clone());
            if let Some(loc) = loc {
                f = f.at(
                    loc,
                    format!(
                        "{} active lanes touch {} 32-byte sectors",
                        worst.worst_lanes, worst.worst_sectors
                    ),
                );
            }
            for s in &group {
                let what = if s.is_store { "store" } else { "load" };
                let ratio = if s.ideal_sectors == 0 {
                    0.0
                } else {
                    s.sectors as f64 / s.ideal_sectors as f64
                };
                f = f.note(format!(
                    "{what} of {} bytes per lane: {} requests, {:.2} sectors per request \
                     (ideal {:.2}, {ratio:.1}x), {:.2} 128-byte lines per request; \
                     {} of {} requests uncoalesced",
                    s.size,
                    s.requests,
                    s.sectors_per_request(),
                    s.ideal_per_request(),
                    s.lines_per_request(),
                    s.uncoalesced_requests,
                    s.requests
                ));
            }
            f.occurrences = group.iter().map(|s| s.uncoalesced_requests).sum();
            f = f.help(
                "let consecutive lanes (threadIdx.x) access consecutive addresses: swap the \
                 index roles, use a structure of arrays, or stage the data through shared \
                 memory",
            );
            out.push(f);
        }
        out
    }

    /// Adds this checker's counts for `k.kernel` to `k`.
    pub fn add_totals(&self, k: &mut KernelTotals) {
        if let Some(i) = self.kernels.iter().position(|n| *n == k.kernel) {
            let t = self.totals[i];
            k.global_load_requests += t.load_requests;
            k.global_store_requests += t.store_requests;
            k.global_load_sectors += t.load_sectors;
            k.global_store_sectors += t.store_sectors;
        }
    }
}

pub struct CoalesceLaunch<'s> {
    state: &'s mut CoalesceState,
    kernel: u32,
}

impl CoalesceLaunch<'_> {
    pub fn finish(self, _info: &LaunchInfo, _outcome: &RunOutcome) {}
}

/// One block's per-instruction statistics (a small vector searched from the last hit).
#[derive(Default)]
pub struct CoalesceBlock {
    sites: Vec<(Site, SiteStats)>,
    last: usize,
}

impl Observer for CoalesceBlock {
    fn on_memory(&mut self, e: &MemEvent<'_>) {
        if e.space != MemSpace::Global || e.lanes == 0 {
            return;
        }
        let is_store = match e.kind {
            MemKind::Load => false,
            MemKind::Store => true,
            MemKind::Atomic { .. } => return,
        };
        let shape = access_shape(e.addresses, e.lanes, e.size);
        let site = (e.func, e.inst);
        let i = match self.sites.get(self.last) {
            Some((s, _)) if *s == site => self.last,
            _ => match self.sites.iter().position(|(s, _)| *s == site) {
                Some(i) => i,
                None => {
                    self.sites.push((
                        site,
                        SiteStats {
                            is_store,
                            size: e.size,
                            ..SiteStats::default()
                        },
                    ));
                    self.sites.len() - 1
                }
            },
        };
        self.last = i;
        self.sites[i].1.add(&shape, e.lanes);
    }
}

impl ObserverFactory for CoalesceLaunch<'_> {
    type Observer = CoalesceBlock;
    fn create(&self, _block: [u32; 3]) -> CoalesceBlock {
        CoalesceBlock::default()
    }
    fn merge(&mut self, observers: Vec<([u32; 3], CoalesceBlock)>) {
        let k = self.kernel;
        for (_, block) in observers {
            for (site, stats) in block.sites {
                let totals = &mut self.state.totals[k as usize];
                if stats.is_store {
                    totals.store_requests += stats.requests;
                    totals.store_sectors += stats.sectors;
                } else {
                    totals.load_requests += stats.requests;
                    totals.load_sectors += stats.sectors;
                }
                self.state
                    .sites
                    .entry((k, site))
                    .or_default()
                    .merge(&stats);
            }
        }
    }
}

/// Whether two locations are on the same source line (columns differ between the
/// instructions of one line).
fn same_line(a: &Option<Location>, b: &Option<Location>) -> bool {
    match (a, b) {
        (Some(a), Some(b)) => a.file == b.file && a.line == b.line,
        _ => false,
    }
}
