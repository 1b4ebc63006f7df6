//! Racy variants: one planted race per kernel, at a known pair of lines.
//!
//! Each plant adds one line (or, for a missing barrier, deletes one) to a race-free kernel,
//! so the only unordered conflicting accesses are the planted pair:
//!
//! * `SharedWriteWrite`: thread A also writes thread B's slot of a shared phase, with an even
//!   constant while the phase's own store is made odd (`| 1u`), so the values differ and the
//!   race is not an equal-value (benign) one;
//! * `SharedReadWrite`: thread A reads thread B's slot before the phase's barrier;
//! * `SharedMissingBarrier`: the barrier between a phase's reads (`sh[(tid + c) % B]`,
//!   `c != 0`) and the next phase's writes is removed;
//! * `GlobalWriteWrite`, `GlobalReadWrite`: thread A writes (an even constant) or reads
//!   output slot 0 of thread B, which B stores once, unconditionally (odd);
//! * `AtomicPlain`: thread A (not thread 0) stores plainly to the bin that thread 0 updates
//!   with the atomic just before, which no other atomic statement uses.
//!
//! Planted reads store into output slot 5, which nothing else writes, so the compiler cannot
//! delete them.

use crate::kernel::{ACC_BINS, Kernel, Line, Tag, U_SLOTS};
use crate::rng::Rng;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PlantKind {
    SharedWriteWrite,
    SharedReadWrite,
    SharedMissingBarrier,
    GlobalWriteWrite,
    GlobalReadWrite,
    AtomicPlain,
}

impl PlantKind {
    pub fn name(self) -> &'static str {
        match self {
            PlantKind::SharedWriteWrite => "shared-write-write",
            PlantKind::SharedReadWrite => "shared-read-write",
            PlantKind::SharedMissingBarrier => "shared-missing-barrier",
            PlantKind::GlobalWriteWrite => "global-write-write",
            PlantKind::GlobalReadWrite => "global-read-write",
            PlantKind::AtomicPlain => "atomic-plain",
        }
    }

    /// The finding code a correct checker reports for this race.
    pub fn code(self) -> &'static str {
        match self {
            PlantKind::SharedWriteWrite
            | PlantKind::SharedReadWrite
            | PlantKind::SharedMissingBarrier => "shared-race",
            _ => "global-race",
        }
    }
}

/// A planted race: its kind and the indices of its two lines in the kernel's lines.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PlantedRace {
    pub kind: PlantKind,
    pub lines: (usize, usize),
}

/// An even constant: planted writes never equal the odd values of the stores they race with.
const PLANT_VALUE: &str = "0xdeadbeeeu";

/// Plants one race in `kernel` (changing its lines) and says where.
pub fn plant(kernel: &mut Kernel, rng: &mut Rng) -> PlantedRace {
    let kinds = eligible(kernel);
    let kind = *rng.pick(&kinds);
    let lines = &mut kernel.lines;
    let (a, b) = two_distinct(rng, kernel.block);
    let threads = kernel.grid * kernel.block;
    match kind {
        PlantKind::SharedWriteWrite | PlantKind::SharedReadWrite => {
            let stores: Vec<usize> = indices(lines, |t| matches!(t, Tag::SharedStore { .. }));
            let s = *rng.pick(&stores);
            let text = if kind == PlantKind::SharedWriteWrite {
                let Tag::SharedStore { expr, .. } = &lines[s].tag else {
                    unreachable!()
                };
                lines[s].text = format!("  sh[tid] = ({expr}) | 1u;");
                format!("  if (tid == {a}u) sh[{b}u] = {PLANT_VALUE};")
            } else {
                format!("  if (tid == {a}u) out_u[gid * {U_SLOTS}u + 5u] = sh[{b}u];")
            };
            lines.insert(s + 1, plain(text));
            PlantedRace {
                kind,
                lines: (s, s + 1),
            }
        }
        PlantKind::SharedMissingBarrier => {
            let (read, barrier, store) = *rng.pick(&missing_barrier_sites(lines));
            lines.remove(barrier);
            PlantedRace {
                kind,
                lines: (read, store - 1),
            }
        }
        PlantKind::GlobalWriteWrite | PlantKind::GlobalReadWrite => {
            let s = indices(lines, |t| *t == Tag::Slot0Store)[0];
            let (a, b) = two_distinct(rng, threads);
            let text = if kind == PlantKind::GlobalWriteWrite {
                format!(
                    "  if (gid == {a}u) out_u[{}u] = {PLANT_VALUE};",
                    b * U_SLOTS
                )
            } else {
                format!(
                    "  if (gid == {a}u) out_u[gid * {U_SLOTS}u + 5u] = out_u[{}u];",
                    b * U_SLOTS
                )
            };
            lines.insert(s + 1, plain(text));
            PlantedRace {
                kind,
                lines: (s, s + 1),
            }
        }
        PlantKind::AtomicPlain => {
            let (s, bin) = *rng.pick(&atomic_sites(lines));
            let a = rng.range(1, threads - 1);
            lines.insert(
                s + 1,
                plain(format!("  if (gid == {a}u) acc[{bin}u] = {PLANT_VALUE};")),
            );
            PlantedRace {
                kind,
                lines: (s, s + 1),
            }
        }
    }
}

fn plain(text: String) -> Line {
    Line {
        text,
        tag: Tag::Plain,
    }
}

fn two_distinct(rng: &mut Rng, n: u32) -> (u32, u32) {
    let a = rng.below(n);
    let b = (a + rng.range(1, n - 1)) % n;
    (a, b)
}

fn indices(lines: &[Line], f: impl Fn(&Tag) -> bool) -> Vec<usize> {
    (0..lines.len()).filter(|&i| f(&lines[i].tag)).collect()
}

fn eligible(kernel: &Kernel) -> Vec<PlantKind> {
    let mut kinds = vec![PlantKind::GlobalWriteWrite, PlantKind::GlobalReadWrite];
    if kernel
        .lines
        .iter()
        .any(|l| matches!(l.tag, Tag::SharedStore { .. }))
    {
        kinds.extend([PlantKind::SharedWriteWrite, PlantKind::SharedReadWrite]);
    }
    if !missing_barrier_sites(&kernel.lines).is_empty() {
        kinds.push(PlantKind::SharedMissingBarrier);
    }
    if !atomic_sites(&kernel.lines).is_empty() {
        kinds.push(PlantKind::AtomicPlain);
    }
    kinds
}

/// (read, barrier, next store) of phases whose read is shifted and whose next phase's store
/// follows the end barrier with no other barrier between.
fn missing_barrier_sites(lines: &[Line]) -> Vec<(usize, usize, usize)> {
    let mut sites = Vec::new();
    for (r, line) in lines.iter().enumerate() {
        let Tag::SharedRead {
            phase,
            shift: Some(_),
        } = line.tag
        else {
            continue;
        };
        let Some(barrier) =
            (r + 1..lines.len()).find(|&i| lines[i].tag == Tag::PhaseEndBarrier { phase })
        else {
            continue;
        };
        let next = (barrier + 1..lines.len()).find(
            |&i| matches!(&lines[i].tag, Tag::SharedStore { phase: p, .. } if *p == phase + 1),
        );
        if let Some(store) = next
            && !lines[barrier + 1..store]
                .iter()
                .any(|l| l.text.contains("__syncthreads"))
        {
            sites.push((r, barrier, store));
        }
    }
    sites
}

/// (line, acc index) of top-level atomics with an affine index whose region no other atomic
/// statement uses: thread 0 updates that index.
fn atomic_sites(lines: &[Line]) -> Vec<(usize, u32)> {
    let region_uses = |r: u32| {
        lines
            .iter()
            .filter(|l| matches!(l.tag, Tag::Atomic { region, .. } if region == r))
            .count()
    };
    lines
        .iter()
        .enumerate()
        .filter_map(|(i, l)| match l.tag {
            Tag::Atomic {
                region,
                offset: Some(d),
            } if region_uses(region) == 1 => Some((i, region * ACC_BINS + d)),
            _ => None,
        })
        .collect()
}
