//! Turning detected races into findings (the cold path): a race seen in a block is
//! recorded once per (memory space, scope, pair of instructions and kinds) with an
//! occurrence count, named at the end of the launch, and at the end of the session
//! grouped by pair of source lines into `shared-race` and `global-race` errors, with the
//! `race-check-sampled` and `race-check-incomplete` notes.

use rustc_hash::FxHashMap as HashMap;

use warpcheck_ir::modifiers::{BarrierMode, MemSpace};
use warpcheck_ir::{BlockId, EntityRef, Op};
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
    /// What the racing writes stored, over all occurrences ([`Values`]).
    pub(super) values: Values,
    /// Between blocks: one of the two accesses came after an acquire, but the other was
    /// not published by a release it learnt ([`super::release`]).
    pub(super) unpublished: bool,
}

/// What the two writes of a race's occurrences stored at the byte or word where they
/// met: what tells a write-write race of equal values (`benign-race`) from one that
/// changes memory.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Values {
    /// In every occurrence the later write stored the bytes the earlier one had stored
    /// there. `value` is the later write's value in the witness (the store's element
    /// holding the unit, or between blocks the unit's bytes), `uniform` whether every
    /// occurrence stored that value.
    Same { value: u64, uniform: bool },
    /// An occurrence whose writes stored different bytes at the witness's address: the
    /// earlier write's and the later one's (the unit's bytes, a word or a byte).
    Differ { first: u32, second: u32 },
    /// Not decided by value: a read, an atomic, or a write whose values the checker
    /// does not know (a matrix store, an asynchronous copy).
    Unknown,
}

impl Values {
    /// The two writes' bytes `first` and `second` at a unit (`None`: not both known),
    /// the later write's value `value` there.
    pub(super) fn of(first: Option<u32>, second: Option<u32>, value: u64) -> Values {
        match (first, second) {
            (Some(a), Some(b)) if a == b => Values::Same {
                value,
                uniform: true,
            },
            (Some(first), Some(second)) => Values::Differ { first, second },
            _ => Values::Unknown,
        }
    }

    /// The values of a race's occurrences so far (`self`) and of a later one: an
    /// occurrence of different values decides (the first one found stays the example),
    /// then one of unknown values; equal values stay equal.
    pub(super) fn join(self, later: Values) -> Values {
        match (self, later) {
            (Values::Differ { .. }, _) => self,
            (_, Values::Differ { .. }) => later,
            (Values::Unknown, _) | (_, Values::Unknown) => Values::Unknown,
            (
                Values::Same { value, uniform },
                Values::Same {
                    value: v,
                    uniform: u,
                },
            ) => Values::Same {
                value,
                uniform: uniform && u && value == v,
            },
        }
    }

    /// Whether `later` is the first occurrence of different values: it then becomes the
    /// race's witness, the example its error shows.
    pub(super) fn first_differ(self, later: Values) -> bool {
        !matches!(self, Values::Differ { .. }) && matches!(later, Values::Differ { .. })
    }

    /// The value the witness's later write stored, if the race is benign by value.
    pub fn benign(self) -> Option<u64> {
        match self {
            Values::Same { value, .. } => Some(value),
            _ => None,
        }
    }
}

impl RaceBlock {
    /// Records a race between the recorded access `prev` and the current one `cur` of
    /// this block (found by `RaceBlock::check`), or counts one more occurrence of it.
    #[cold]
    #[inline(never)]
    pub(super) fn report(
        &mut self,
        space: MemSpace,
        prev: u32,
        cur: u32,
        address: u64,
        values: Values,
    ) {
        let first = self.access_of(prev);
        let second = self.access_of(cur);
        let scope = if first.thread / 32 == second.thread / 32 {
            Scope::IntraWarp
        } else {
            Scope::InterWarp
        };
        let key = found_key(space, scope, &first, &second);
        match self.found_index.get(&key) {
            Some(&i) => {
                let f = &mut self.found[i];
                f.occurrences += 1;
                if f.values.first_differ(values) {
                    (f.first, f.second, f.address) = (first, second, address);
                }
                f.values = f.values.join(values);
            }
            None => {
                self.found_index.insert(key, self.found.len());
                self.found.push(Found {
                    space,
                    scope,
                    first,
                    second,
                    address,
                    occurrences: 1,
                    values,
                    unpublished: false,
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
            .map(|(i, occurrences, values)| {
                let benign = !self.strict && values.benign().is_some();
                self.race_finding(cx, &self.races[i], occurrences, benign.then_some(values))
            })
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
    /// that names it (the widest scope's first, preferring one whose writes store
    /// different values), the group's occurrences and what its racing writes store.
    fn line_groups(&self, cx: &ReportCx) -> Vec<(usize, u64, Values)> {
        type LineKey = (
            String,
            MemSpace,
            Option<Location>,
            AccessKind,
            Option<Location>,
            AccessKind,
        );
        let mut groups: Vec<(usize, u64, Values)> = Vec::new();
        let rank = |r: &Race| (r.scope, matches!(r.values, Values::Differ { .. }));
        let mut by_lines: HashMap<LineKey, usize> = HashMap::default();
        for (i, r) in self.races.iter().enumerate() {
            let a = (cx.locate(r.first.site), r.first.kind);
            let b = (cx.locate(r.second.site), r.second.kind);
            let (x, y) = if a <= b { (a, b) } else { (b, a) };
            let key = (r.kernel.clone(), r.space, x.0, x.1, y.0, y.1);
            match by_lines.get(&key) {
                Some(&g) => {
                    groups[g].1 += r.occurrences;
                    groups[g].2 = groups[g].2.join(r.values);
                    // The widest scope names the finding (and its fix): a race that also
                    // happens between warps needs a barrier, not a __syncwarp.
                    if rank(r) > rank(&self.races[groups[g].0]) {
                        groups[g].0 = i;
                    }
                }
                None => {
                    by_lines.insert(key, groups.len());
                    groups.push((i, r.occurrences, r.values));
                }
            }
        }
        groups
    }

    /// The finding for one race (the witness of its group): (2) the later access at its
    /// line, (1) the earlier one as a related location. An error, or a `benign-race`
    /// warning when `benign` says what the group's racing writes store (equal values).
    fn race_finding(
        &self,
        cx: &ReportCx,
        r: &Race,
        occurrences: u64,
        benign: Option<Values>,
    ) -> Finding {
        let code = match (benign, r.space) {
            (Some(_), _) => Code::BenignRace,
            (None, MemSpace::Shared) => Code::SharedRace,
            (None, _) => Code::GlobalRace,
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
        let place = format!(
            "data race on {space} memory ({hazard}) at {target}, {}",
            r.scope.describe()
        );
        let (severity, message) = match benign {
            Some(group) => (Severity::Warning, benign_message(place, group, r.values)),
            // Values stored in global memory can depend on the order in which the
            // emulator's host threads run the blocks (a block that reads what another
            // writes): shown for shared memory only, so that a report is the same run
            // after run.
            None => match r.values {
                Values::Differ { first, second } if r.space == MemSpace::Shared => (
                    Severity::Error,
                    format!(
                        "{place}: the racing writes store different values there ({}, then {})",
                        show_value(first as u64),
                        show_value(second as u64)
                    ),
                ),
                _ => (Severity::Error, place),
            },
        };
        let mut f = Finding::new(code, severity, message).kernel(r.kernel.clone());
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
        if benign.is_some() {
            return f.help("state the intent with `atomicExch` or a `volatile` store, or let one thread write; `--strict-races` reports these as errors");
        }
        if r.scope != Scope::InterBlock
            && let Some((barrier, in_loop)) = barrier_between(cx, r)
        {
            return f.help(separated_help(barrier.line, in_loop));
        }
        if r.unpublished {
            return f
                .note("one block made its access after an atomic or volatile read of a flag, but the other block's access was not published through that flag: it did not come before a `__threadfence()` followed by that block's atomic or volatile write of the flag")
                .help("in the block that writes the data, write it first, then `__threadfence()`, then the atomic or volatile write of the flag");
        }
        f.help(r.scope.help())
    }
}

/// A CTA barrier (`bar.sync`, `bar.red`) of the race's function whose source line lies
/// strictly between the lines of its two accesses (in one file), and whether a loop of
/// the function contains it and both accesses. A race between two lines that a barrier
/// separates in the source is not fixed by another barrier between them.
fn barrier_between(cx: &ReportCx, r: &Race) -> Option<(Location, bool)> {
    let (a, b) = (r.first.site, r.second.site);
    let (la, lb) = (cx.locate(a)?, cx.locate(b)?);
    if a.0 != b.0 || la.file != lb.file {
        return None;
    }
    let (lo, hi) = (la.line.min(lb.line), la.line.max(lb.line));
    let body = cx.program.function(a.0).body.as_ref()?;
    body.insts.iter().find_map(|(id, inst)| {
        if !matches!(
            inst.op,
            Op::Barrier {
                mode: BarrierMode::Sync | BarrierMode::Red,
                ..
            }
        ) {
            return None;
        }
        let at = cx.locate((a.0, id))?;
        if at.file != la.file || at.line <= lo || at.line >= hi {
            return None;
        }
        let blocks = [id, a.1, b.1].map(|i| body.inst_block[i.index()]);
        // On a path from one access to the other through the barrier, not in another
        // branch (a producer's `bar.arrive` and a consumer's `bar.sync`).
        let [k, x, y] = blocks;
        let reaches = |from, to| reachable(&body.cfg, from, to);
        if !((reaches(x, k) && reaches(k, y)) || (reaches(y, k) && reaches(k, x))) {
            return None;
        }
        let in_loop = body
            .loops
            .loops
            .iter()
            .any(|l| blocks.iter().all(|&x| l.contains(x)));
        Some((at, in_loop))
    })
}

/// Whether block `to` is reachable from block `from` in the control-flow graph (a block
/// reaches itself).
fn reachable(cfg: &warpcheck_ir::cfg::Cfg, from: BlockId, to: BlockId) -> bool {
    let mut seen = vec![false; cfg.num_blocks()];
    let mut stack = vec![from];
    while let Some(b) = stack.pop() {
        if b == to {
            return true;
        }
        if std::mem::replace(&mut seen[b.index()], true) {
            continue;
        }
        stack.extend(cfg.succs(b).iter().copied());
    }
    false
}

/// What happens instead when a barrier already lies between a race's two lines.
fn separated_help(barrier_line: u32, in_loop: bool) -> String {
    if in_loop {
        format!(
            "the barrier at line {barrier_line} already lies between these lines, but not between these two accesses: they happen in different iterations of the loop around it (one iteration's access and the next iteration's); add a `__syncthreads()` at the end of the loop body too, or alternate between two buffers"
        )
    } else {
        format!(
            "the barrier at line {barrier_line} already lies between these lines, but the run did not pass it between these two accesses: one thread skipped it in a branch, or the compiler moved one access across it (`warpcheck ptx` shows the order it emitted)"
        )
    }
}

/// A `benign-race` warning's message: the group's racing writes all store the value
/// already written at their location (`group`), one value everywhere or not; the value
/// shown is the witness's (`witness`).
fn benign_message(place: String, group: Values, witness: Values) -> String {
    let value = show_value(witness.benign().unwrap_or_default());
    match group {
        Values::Same { uniform: true, .. } => format!(
            "{place}: every racing write stores the same value ({value}) (benign by value; still unordered)"
        ),
        _ => format!(
            "{place}: every racing write stores the value already written at its location (here {value}) (benign by value; still unordered)"
        ),
    }
}

/// A stored value as a message shows it: small values in decimal, others in hex (the
/// bits of a float, say).
fn show_value(v: u64) -> String {
    if v < 1 << 16 {
        v.to_string()
    } else {
        format!("{v:#x}")
    }
}

/// The (x, y, z) index of a thread from its linear index in the block.
fn thread_index(block: [u32; 3], linear: u32) -> [u32; 3] {
    let [bx, by, _] = block;
    [linear % bx, (linear / bx) % by, linear / (bx * by)]
}
