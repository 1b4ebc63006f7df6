//! GPU mode's races as findings, in the race checker's words (`warpcheck_report::race`):
//! the same codes (`global-race`), message shape, witness labels and help, so that a
//! kernel gives the same lines whichever way it was checked. Block pairs are the witness
//! (GPU mode does not know threads); races of one pair of source lines are one finding.

use warpcheck_ir::InstId;
use warpcheck_report::race::{Scope, hazard};
use warpcheck_report::{Code, Finding, Location, Severity};

use crate::passes::{Race, RaceKind, Side};
use crate::{Instrumented, Verdict};

/// Linear block index to `(x,y,z)`.
fn block_index(grid: [u32; 3], linear: u32) -> String {
    let [gx, gy, _] = grid;
    format!(
        "({},{},{})",
        linear % gx,
        (linear / gx) % gy,
        linear / (gx * gy)
    )
}

/// The findings of one checked launch. `locate` gives an original-kernel instruction's
/// source location; `kernel` is the kernel's display name.
pub fn findings(
    inst: &Instrumented,
    verdict: &Verdict,
    grid: [u32; 3],
    kernel: &str,
    locate: &dyn Fn(InstId) -> Option<Location>,
) -> Vec<Finding> {
    let site_loc = |s: &Side| s.site.and_then(|i| locate(inst.plan.sites[i].inst));
    type Key = (RaceKind, bool, Option<Location>, Option<Location>);
    // Occurrences count pairs of blocks, as the race checker counts pairs of accesses.
    type Unit = (u32, Option<u32>);
    type Group<'a> = (Key, &'a Race, Vec<(Unit, Unit)>);
    let mut groups: Vec<Group> = Vec::new();
    for r in &verdict.races {
        let same_block = r.first.block == r.second.block;
        let key = (r.kind, same_block, site_loc(&r.first), site_loc(&r.second));
        let pair = (
            (r.first.block, r.first.warp),
            (r.second.block, r.second.warp),
        );
        match groups.iter_mut().find(|g| g.0 == key) {
            Some(g) if !g.2.contains(&pair) => g.2.push(pair),
            Some(_) => {}
            None => groups.push((key, r, vec![pair])),
        }
    }
    let mut out = Vec::new();
    for ((kind, _, l1, l2), r, pairs) in groups {
        let n = pairs.len() as u64;
        let who = |s: &Side, what: &str| match s.warp {
            Some(w) => format!("{what} by block {} warp {w}", block_index(grid, s.block)),
            None => format!("{what} by block {}", block_index(grid, s.block)),
        };
        let scope = if r.first.block == r.second.block {
            Scope::InterWarp
        } else {
            Scope::InterBlock
        };
        let (code, severity, message) = match kind {
            RaceKind::BenignWriteWrite => (
                Code::BenignRace,
                Severity::Warning,
                format!(
                    "{} write the same value to global memory at `{}` + {} bytes, {} (benign by value; still unordered)",
                    if scope == Scope::InterWarp {
                        "warps"
                    } else {
                        "blocks"
                    },
                    r.buffer,
                    r.offset,
                    scope.describe()
                ),
            ),
            _ => (
                Code::GlobalRace,
                Severity::Error,
                format!(
                    "data race on global memory ({}) at `{}` + {} bytes, {}",
                    hazard(true, r.second.write),
                    r.buffer,
                    r.offset,
                    scope.describe()
                ),
            ),
        };
        let second_what = match (kind, r.second.write) {
            (RaceKind::ReadWrite, true) => {
                "(2) write whose value depended on the other unit's writes,"
            }
            (_, true) => "(2) write",
            (_, false) => "(2) read",
        };
        let first = match kind {
            RaceKind::AtomicWrite | RaceKind::AtomicRead => who(&r.first, "(1) atomic"),
            _ => who(&r.first, "(1) write"),
        };
        let second = who(&r.second, second_what);
        let mut f = Finding::new(code, severity, message).kernel(kernel.to_string());
        f = match (l2, l1) {
            (Some(l2), Some(l1)) => f.at(l2, second).related(l1, first),
            (Some(l2), None) => f.at(l2, second).note(first),
            (None, Some(l1)) => f.at(l1, first).note(second),
            (None, None) => f.note(first).note(second),
        };
        f.occurrences = n;
        f = f
            .note("found by GPU mode: the two units' private copies differ (LD two-pass value comparison)")
            .help(scope.help());
        out.push(f);
    }
    out
}

/// Notes on what GPU mode did not check in this kernel.
pub fn limits(inst: &Instrumented, kernel: &str) -> Vec<Finding> {
    let mut out = Vec::new();
    let plan = &inst.plan;
    let mut scopes = vec!["between lanes of one warp"];
    if plan.has_barriers {
        scopes.push("between warps of one block on global buffers (the kernel has barriers: copies are per block)");
    }
    if plan.uses_shared {
        scopes.push("on shared memory");
    }
    out.push(
        Finding::new(
            Code::GpuScopeUnchecked,
            Severity::Note,
            format!("GPU mode did not look for races {}", scopes.join("; nor ")),
        )
        .kernel(kernel.to_string())
        .help("`warpcheck check` without `--gpu` checks every scope on the CPU"),
    );
    if plan.untracked_stores {
        out.push(
            Finding::new(
                Code::GpuStoresUnchecked,
                Severity::Note,
                "stores through pointers that are not kernel parameters (loaded from memory, or module variables) were not privatised and not checked in GPU mode",
            )
            .kernel(kernel.to_string()),
        );
    }
    out
}
