//! GPU mode's races as findings, in the race checker's words (`warpcheck_report::race`):
//! the same codes (`global-race`), message shape, witness labels and help, so that a
//! kernel gives the same lines whichever way it was checked. Block pairs are the witness
//! (GPU mode does not know threads); races of one pair of source lines are one finding.

use warpcheck_ir::InstId;
use warpcheck_report::race::{Scope, hazard};
use warpcheck_report::{Code, Finding, Location, Severity};

use crate::passes::{Race, RaceKind, Side};
use crate::shared::{SharedRace, SharedScope, SharedSide};
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
    let mut out = shared_findings(inst, verdict, grid, kernel, locate);
    out.extend(sampled_note(verdict, kernel));
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

/// The note of a launch whose units were sampled ([`crate::passes::unit_maps`]).
fn sampled_note(verdict: &Verdict, kernel: &str) -> Option<Finding> {
    let s = verdict.sampled?;
    let unit = if verdict.per_warp { "warps" } else { "blocks" };
    let watched = if verdict.per_warp {
        format!("; their {} warps had private copies", s.units)
    } else {
        String::new()
    };
    Some(
        Finding::new(
            Code::RaceCheckSampled,
            Severity::Note,
            format!(
                "GPU mode watched {} of the {} blocks (the first and last blocks along each grid dimension and pairs of neighbouring blocks{watched}): checking all {} {unit} would have taken {} memory-adaptive rounds, the sample took {}; the other blocks shared one private copy, so races between two of them were not checked (races between one of them and a watched block were)",
                s.blocks, s.total_blocks, verdict.units, s.full_rounds, verdict.rounds.len()
            ),
        )
        .kernel(kernel.to_string())
        .help("`--race-blocks all` checks every unit (in more rounds); more `--gpu-memory` or `--gpu-rounds` checks every unit in fewer or more rounds"),
    )
}

/// The findings of the shared-memory races: one per kind and pair of source lines.
fn shared_findings(
    inst: &Instrumented,
    verdict: &Verdict,
    grid: [u32; 3],
    kernel: &str,
    locate: &dyn Fn(InstId) -> Option<Location>,
) -> Vec<Finding> {
    let SharedScope::Checked(plan) = &inst.plan.shared else {
        return Vec::new();
    };
    if let Some(why) = &verdict.shared.skipped {
        return vec![
            Finding::new(
                Code::GpuScopeUnchecked,
                Severity::Note,
                format!("GPU mode did not look for races on shared memory in this launch: {why}"),
            )
            .kernel(kernel.to_string()),
        ];
    }
    let site_loc = |s: &SharedSide| s.site.and_then(|i| locate(plan.sites[i].inst));
    type Key = (RaceKind, Option<Location>, Option<Location>);
    let mut groups: Vec<(Key, &SharedRace, u64)> = Vec::new();
    for r in &verdict.shared.races {
        let key = (r.kind, site_loc(&r.first), site_loc(&r.second));
        match groups.iter_mut().find(|g| g.0 == key) {
            Some(g) => g.2 += 1,
            None => groups.push((key, r, 1)),
        }
    }
    groups
        .into_iter()
        .map(|((kind, l1, l2), r, n)| {
            let mut f = shared_finding(kind, r, kernel);
            let who = |s: &SharedSide, what: &str| {
                format!("{what} by block {} warp {}", block_index(grid, r.block), s.warp)
            };
            let first = who(&r.first, "(1) write");
            let second = who(&r.second, if r.second.write { "(2) write" } else { "(2) read" });
            f = match (l2, l1) {
                (Some(l2), Some(l1)) => f.at(l2, second).related(l1, first),
                (Some(l2), None) => f.at(l2, second).note(first),
                (None, Some(l1)) => f.at(l1, first).note(second),
                (None, None) => f.note(first).note(second),
            };
            f.occurrences = n;
            f.note("found by GPU mode: the warps' private copies of shared memory, compared at the barrier that ends the region (or at the kernel's end)")
                .help(Scope::InterWarp.help())
        })
        .collect()
}

/// A shared race's finding without its locations.
fn shared_finding(kind: RaceKind, r: &SharedRace, kernel: &str) -> Finding {
    let at = format!("`{}` + {} bytes", r.var, r.offset);
    let scope = Scope::InterWarp.describe();
    let region = match r.region {
        0 => "in the kernel's last region".to_string(),
        k => format!("in the region ending at barrier {k}"),
    };
    let (code, severity, message) = match kind {
        RaceKind::BenignWriteWrite => (
            Code::BenignRace,
            Severity::Warning,
            format!(
                "warps write the same value to shared memory at {at}, {scope} {region} (benign by value; still unordered)"
            ),
        ),
        _ => (
            Code::SharedRace,
            Severity::Error,
            format!(
                "data race on shared memory ({}) at {at}, {scope} {region}",
                hazard(true, r.second.write)
            ),
        ),
    };
    Finding::new(code, severity, message).kernel(kernel.to_string())
}

/// Notes on what GPU mode did not check in this kernel.
pub fn limits(inst: &Instrumented, kernel: &str) -> Vec<Finding> {
    let mut out = Vec::new();
    let plan = &inst.plan;
    let mut scopes = vec!["between lanes of one warp"];
    if plan.has_barriers {
        scopes.push("between warps of one block on global buffers (the kernel has barriers: copies are per block)");
    }
    let shared_why;
    if let SharedScope::Unchecked(why) = &plan.shared {
        shared_why = format!("on shared memory ({why})");
        scopes.push(&shared_why);
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
