//! Turning detected races into findings (the cold path): a race seen in a block is
//! recorded once per (memory space, scope, pair of instructions and kinds) with an
//! occurrence count, named at the end of the launch, and at the end of the session
//! grouped by pair of source lines into `shared-race` and `global-race` errors, with the
//! `race-check-sampled` and `race-check-incomplete` notes.

use rustc_hash::FxHashMap as HashMap;

use warpcheck_ir::modifiers::MemSpace;
use warpcheck_report::{Code, Finding, Location, Severity};

use super::block::RaceBlock;
use super::{Access, AccessKind, Race, RaceState, Scope};
use crate::{ReportCx, Site, fmt3, shared_name};

pub(super) type RaceKey = (String, MemSpace, Scope, Site, AccessKind, Site, AccessKind);

pub(super) fn race_key(
    kernel: &str,
    space: MemSpace,
    scope: Scope,
    a: &Access,
    b: &Access,
) -> RaceKey {
    let (x, y) = if (a.site, a.kind) <= (b.site, b.kind) {
        (a, b)
    } else {
        (b, a)
    };
    (
        kernel.to_string(),
        space,
        scope,
        x.site,
        x.kind,
        y.site,
        y.kind,
    )
}

pub(super) type FoundKey = (MemSpace, Scope, Site, AccessKind, Site, AccessKind);

pub(super) fn found_key(space: MemSpace, scope: Scope, a: &Access, b: &Access) -> FoundKey {
    let (x, y) = if (a.site, a.kind) <= (b.site, b.kind) {
        (a, b)
    } else {
        (b, a)
    };
    (space, scope, x.site, x.kind, y.site, y.kind)
}

/// A race seen in a block, before naming.
pub(super) struct Found {
    pub(super) space: MemSpace,
    pub(super) scope: Scope,
    pub(super) first: Access,
    pub(super) second: Access,
    pub(super) address: u64,
    pub(super) occurrences: u64,
}

impl RaceBlock {
    /// Records a race between the recorded access `prev` and the current one `cur` of
    /// this block (found by `RaceBlock::check`), or counts one more occurrence of it.
    #[cold]
    #[inline(never)]
    pub(super) fn report(&mut self, space: MemSpace, prev: u32, cur: u32, address: u64) {
        let first = self.access_of(prev);
        let second = self.access_of(cur);
        let scope = if first.thread / 32 == second.thread / 32 {
            Scope::IntraWarp
        } else {
            Scope::InterWarp
        };
        let key = found_key(space, scope, &first, &second);
        match self.found_index.get(&key) {
            Some(&i) => self.found[i].occurrences += 1,
            None => {
                self.found_index.insert(key, self.found.len());
                self.found.push(Found {
                    space,
                    scope,
                    first,
                    second,
                    address,
                    occurrences: 1,
                });
            }
        }
    }
}

impl RaceState {
    /// The session's race findings: one error per pair of source lines, then the notes
    /// on sampled and saturated launches.
    pub(super) fn race_findings(&self, cx: &ReportCx) -> Vec<Finding> {
        let mut out: Vec<Finding> = self
            .line_groups(cx)
            .into_iter()
            .map(|(i, occurrences)| self.race_finding(cx, &self.races[i], occurrences))
            .collect();
        for (k, watched, total) in &self.sampled {
            out.push(
                Finding::new(
                    Code::RaceCheckSampled,
                    Severity::Note,
                    format!(
                        "the race checker watched {watched} of the {total} blocks run (the first and last blocks along each grid dimension and pairs of neighbouring blocks); races confined to other blocks were not checked"
                    ),
                )
                .kernel(k.clone())
                .help("`--race-blocks all` watches every block (slower); `--race-blocks N` watches up to N"),
            );
        }
        for k in &self.saturated {
            out.push(
                Finding::new(
                    Code::RaceCheckIncomplete,
                    Severity::Note,
                    "a block executed more memory instructions than the race checker records (2^26 per block); races after that point were not checked",
                )
                .kernel(k.clone()),
            );
        }
        out
    }

    /// Races of different instructions on the same pair of source lines (unrolled loops,
    /// vector halves) are one finding: per group, in order of first discovery, the race
    /// that names it (the widest scope's first) and the group's occurrences.
    fn line_groups(&self, cx: &ReportCx) -> Vec<(usize, u64)> {
        type LineKey = (
            String,
            MemSpace,
            Option<Location>,
            AccessKind,
            Option<Location>,
            AccessKind,
        );
        let mut groups: Vec<(usize, u64)> = Vec::new();
        let mut by_lines: HashMap<LineKey, usize> = HashMap::default();
        for (i, r) in self.races.iter().enumerate() {
            let a = (cx.locate(r.first.site), r.first.kind);
            let b = (cx.locate(r.second.site), r.second.kind);
            let (x, y) = if a <= b { (a, b) } else { (b, a) };
            let key = (r.kernel.clone(), r.space, x.0, x.1, y.0, y.1);
            match by_lines.get(&key) {
                Some(&g) => {
                    groups[g].1 += r.occurrences;
                    // The widest scope names the finding (and its fix): a race that also
                    // happens between warps needs a barrier, not a __syncwarp.
                    if r.scope > self.races[groups[g].0].scope {
                        groups[g].0 = i;
                    }
                }
                None => {
                    by_lines.insert(key, groups.len());
                    groups.push((i, r.occurrences));
                }
            }
        }
        groups
    }

    /// The error for one race (the witness of its group): (2) the later access at its
    /// line, (1) the earlier one as a related location.
    fn race_finding(&self, cx: &ReportCx, r: &Race, occurrences: u64) -> Finding {
        let code = match r.space {
            MemSpace::Shared => Code::SharedRace,
            _ => Code::GlobalRace,
        };
        let hazard =
            warpcheck_report::race::hazard(r.first.kind.is_write(), r.second.kind.is_write());
        let space = match r.space {
            MemSpace::Shared => "shared",
            _ => "global",
        };
        let who = |a: &Access| {
            format!(
                "thread {} of block {}",
                fmt3(thread_index(r.block_dim, a.thread)),
                fmt3(a.block)
            )
        };
        let target = match r.space {
            MemSpace::Shared => shared_name(
                cx.program,
                self.shared_vars
                    .get(&r.kernel)
                    .map_or(&[], |v| v.as_slice()),
                r.address,
            ),
            _ => r.target.clone(),
        };
        let mut f = Finding::new(
            code,
            Severity::Error,
            format!(
                "data race on {space} memory ({hazard}) at {target}, {}",
                r.scope.describe()
            ),
        )
        .kernel(r.kernel.clone());
        let second = format!("(2) {} by {}", r.second.kind.describe(), who(&r.second));
        let first = format!("(1) {} by {}", r.first.kind.describe(), who(&r.first));
        match (cx.locate(r.second.site), cx.locate(r.first.site)) {
            (Some(l2), Some(l1)) => {
                f = f.at(l2, second).related(l1, first);
            }
            (Some(l2), None) => f = f.at(l2, second).note(first),
            (None, Some(l1)) => f = f.at(l1, first).note(second),
            (None, None) => f = f.note(first).note(second),
        }
        f.occurrences = occurrences;
        f.help(r.scope.help())
    }
}

/// The (x, y, z) index of a thread from its linear index in the block.
fn thread_index(block: [u32; 3], linear: u32) -> [u32; 3] {
    let [bx, by, _] = block;
    [linear % bx, (linear / bx) % by, linear / (bx * by)]
}
