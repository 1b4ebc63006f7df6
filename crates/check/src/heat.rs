//! Per-line heat of a checking session, for the HTML report
//! ([`warpcheck_report::html`]): the profile's executions and the bank-conflict and
//! coalescing checkers' per-instruction counts, summed per kernel and source line.
//!
//! The profile is taken only when asked for ([`Checker::profile`] set before the
//! launches): a launch then runs under [`warpcheck_emu::profile::Profiled`], a separate
//! instantiation of the emulator, and a session without it runs exactly as before.
//! The shared and global counts come from the `bank` and `coalesce` checkers, so they are
//! there when those checkers are on.

use std::collections::BTreeMap;

use rustc_hash::FxHashMap;
use warpcheck_emu::profile::ExecCount;
use warpcheck_report::html::{LineHeat, SourceHeat};

use crate::{Checker, ReportCx, Site};

/// Executions per kernel (by name) and instruction, summed over launches.
#[derive(Default, Debug)]
pub struct Profile {
    kernels: Vec<String>,
    counts: FxHashMap<(u32, Site), (u64, u64)>,
}

impl Profile {
    /// Adds one launch's counts.
    pub fn add(&mut self, kernel: &str, counts: &[ExecCount]) {
        let k = match self.kernels.iter().position(|n| n == kernel) {
            Some(i) => i,
            None => {
                self.kernels.push(kernel.to_string());
                self.kernels.len() - 1
            }
        } as u32;
        for c in counts {
            let e = self.counts.entry((k, (c.func, c.inst))).or_default();
            e.0 += c.warps;
            e.1 += c.threads;
        }
    }

    /// The executions of a kernel's instructions: (site, warps, threads).
    fn of(&self, kernel: &str) -> impl Iterator<Item = (Site, u64, u64)> + '_ {
        let k = self.kernels.iter().position(|n| n == kernel);
        self.counts
            .iter()
            .filter(move |((ki, _), _)| Some(*ki as usize) == k)
            .map(|((_, site), &(w, t))| (*site, w, t))
    }
}

/// What one instruction adds to its line.
enum Counts<'a> {
    Executions(u64, u64),
    Shared(&'a crate::bank::SiteStats),
    Global(&'a crate::coalesce::SiteStats),
}

impl Counts<'_> {
    fn add_to(&self, h: &mut LineHeat) {
        match self {
            Counts::Executions(warps, threads) => {
                h.warp_executions += warps;
                h.thread_executions += threads;
            }
            Counts::Shared(s) => {
                h.shared_requests += s.executions;
                h.shared_wavefronts += s.wavefronts;
                h.bank_conflicts += s.conflicts;
                h.worst_bank_degree = h.worst_bank_degree.max(s.worst_degree.max(1));
            }
            Counts::Global(s) => {
                h.global_requests += s.requests;
                h.global_sectors += s.sectors;
                h.global_ideal_sectors += s.ideal_sectors;
            }
        }
    }
}

/// The heat of every kernel the session launched, in order of first launch; each
/// kernel's files by executions, most first (its own source before the headers whose code
/// was inlined into it, such as clang's built-in variables), then by name; lines ascending. Instructions without a location are
/// left out.
pub fn line_heat(checker: &Checker, cx: &ReportCx) -> Vec<SourceHeat> {
    let mut out = Vec::new();
    for totals in checker.totals() {
        let kernel = totals.kernel;
        let mut counts: Vec<(Site, Counts)> = Vec::new();
        if let Some(p) = &checker.profile {
            counts.extend(
                p.of(&kernel)
                    .map(|(site, w, t)| (site, Counts::Executions(w, t))),
            );
        }
        let shared = checker.bank.site_stats(&kernel).into_iter();
        counts.extend(shared.map(|(site, s)| (site, Counts::Shared(s))));
        let global = checker.coalesce.site_stats(&kernel).into_iter();
        counts.extend(global.map(|(site, s)| (site, Counts::Global(s))));
        let mut files: BTreeMap<String, BTreeMap<u32, LineHeat>> = BTreeMap::new();
        for (site, c) in counts {
            let Some(loc) = cx.locate(site) else {
                continue;
            };
            let line = loc.line;
            let h = files
                .entry(loc.file)
                .or_default()
                .entry(line)
                .or_insert_with(|| LineHeat {
                    line,
                    ..LineHeat::default()
                });
            c.add_to(h);
        }
        let mut views: Vec<SourceHeat> = files
            .into_iter()
            .map(|(file, lines)| SourceHeat {
                kernel: kernel.clone(),
                file,
                lines: lines.into_values().collect(),
            })
            .collect();
        // The kernel's own file first: the most executions first (a stable sort keeps
        // ties in name order).
        views.sort_by_key(|v| {
            std::cmp::Reverse(v.lines.iter().map(|h| h.thread_executions).sum::<u64>())
        });
        out.extend(views);
    }
    out
}
