//! Source attribution of a round's races (only when it found some): one or two runs of
//! the attribution variant, whose site maps stay on the device. The read witnesses of
//! read-write races are searched there ([`kernels::read_witness`]); of the maps the host
//! reads only the 16 entries before each witness byte ([`kernels::gather`]).
//!
//! The runs give the racing copies their units and every other unit one spare copy,
//! whose maps are not read.

use std::cell::RefCell;
use std::collections::{BTreeSet, HashMap};

use crate::GpuError;
use crate::analysis::SiteKind;
use crate::device::{self, Allocs, Pass1, SiteMaps};
use crate::exec::{DeviceBuffer, Executor};
use crate::kernels::{self, ReadMap, Seed};
use crate::passes::{ATOMIC, Cx, Launch, OFFSETS_PER_PAIR, Race, RaceKind, RawRace, Side};

/// Map entries a site lookup reads: the byte's own and the 15 before it.
const WINDOW: u64 = 16;
/// Bytes per map entry (site + 1, unit).
const ENTRY: u64 = 8;

/// Attributes the round's write-write races and the read-write races of `partners`
/// (reader copy, writer copy or [`ATOMIC`]); returns the races and the runs made.
pub(crate) fn attribute(
    exec: &mut dyn Executor,
    cx: &Cx<'_>,
    launch: &Launch,
    state: &Pass1,
    partners: &[(u32, u32)],
    mismatches: &[(u32, usize, usize)],
) -> Result<(Vec<Race>, usize), GpuError> {
    let mut allocs = Allocs::default();
    let out = attribute_in(exec, cx, launch, state, partners, mismatches, &mut allocs);
    allocs.free(exec);
    out
}

/// Zeroed site maps for `copies` copies of every target.
fn site_maps(
    exec: &mut dyn Executor,
    allocs: &mut Allocs,
    cx: &Cx<'_>,
    copies: usize,
) -> Result<Vec<SiteMaps>, GpuError> {
    let mut out = Vec::new();
    for l in &cx.layout.targets {
        let per = l.stride as u64 * ENTRY;
        out.push(SiteMaps {
            write: allocs.alloc(exec, per * copies as u64)?,
            read: allocs.alloc(exec, per * copies as u64)?,
            atomic: allocs.alloc(exec, per)?,
        });
    }
    Ok(out)
}

#[allow(clippy::too_many_arguments)]
fn attribute_in(
    exec: &mut dyn Executor,
    cx: &Cx<'_>,
    launch: &Launch,
    state: &Pass1,
    partners: &[(u32, u32)],
    mismatches: &[(u32, usize, usize)],
    allocs: &mut Allocs,
) -> Result<(Vec<Race>, usize), GpuError> {
    let mut involved: Vec<u32> = state
        .races
        .iter()
        .flat_map(|r| [r.first, r.second])
        .collect();
    involved.extend(partners.iter().flat_map(|&(i, j)| [i, j]));
    involved.retain(|&c| c != ATOMIC);
    involved.sort_unstable();
    involved.dedup();
    let spare = involved.len() as u32;
    let renumber = |c: u32| involved.binary_search(&c).map_or(spare, |i| i as u32);
    let amap: Vec<u32> = state.map.iter().map(|&c| renumber(c)).collect();
    let amap = device::upload_map(exec, allocs, &amap)?;
    let copies = spare as usize + 1;
    let set = device::stale_sets(exec, allocs, cx.res, cx.layout, copies)?;
    let maps1 = site_maps(exec, allocs, cx, copies)?;
    let (inst, res, layout) = (cx.inst, cx.res, cx.layout);
    device::run_variant(exec, inst, launch, res, layout, amap, &set, Some(&maps1))?;
    let mut runs = 1;
    let mut maps2 = Vec::new();
    let mut witnesses = Vec::new();
    if !partners.is_empty() {
        let mut seeds = vec![Seed::default(); copies];
        for &c in &involved {
            if let Some(p) = partners.iter().find(|p| p.0 == c) {
                seeds[renumber(c) as usize].from = vec![p.1];
            }
        }
        let mut set2 = Vec::new();
        for (t, l) in layout.targets.iter().enumerate() {
            let s = allocs.alloc(exec, (l.stride * copies) as u64)?;
            kernels::seed(exec, &state.target(res, layout, t), &seeds, s)?;
            set2.push(s);
        }
        maps2 = site_maps(exec, allocs, cx, copies)?;
        device::run_variant(exec, inst, launch, res, layout, amap, &set2, Some(&maps2))?;
        runs += 1;
        witnesses = read_witnesses(exec, cx, state, &maps2, partners, &renumber)?;
    }
    // Built twice: the first time learns which map entries are needed, the second reads
    // them from one gather per map.
    let mut windows = Windows::default();
    for fetched in [false, true] {
        let attr = Attribution {
            cx,
            state,
            renumber: &renumber,
            windows: &windows,
        };
        let mut races: Vec<Race> = state
            .races
            .iter()
            .map(|&r| attr.write_write(r, &maps1))
            .collect();
        for (k, &(i, j)) in partners.iter().enumerate() {
            races.extend(attr.read_write(i, j, &witnesses[k], &maps1, &maps2, mismatches));
        }
        if fetched {
            return Ok((races, runs));
        }
        windows.fetch(exec)?;
    }
    unreachable!("the loop returns on its second iteration")
}

/// For each partner pair (reader `i`, writer `j`), the first [`OFFSETS_PER_PAIR`]
/// bytes, in target then offset order, that `j` wrote (the atomics changed) and a load
/// of `i` covers in the second attribution run's read map.
fn read_witnesses(
    exec: &mut dyn Executor,
    cx: &Cx<'_>,
    state: &Pass1,
    maps2: &[SiteMaps],
    partners: &[(u32, u32)],
    renumber: &dyn Fn(u32) -> u32,
) -> Result<Vec<Vec<(usize, u64)>>, GpuError> {
    let load_bytes: Vec<u8> = cx
        .inst
        .plan
        .sites
        .iter()
        .map(|s| match s.kind {
            SiteKind::Load => s.bytes.min(255) as u8,
            _ => 0,
        })
        .collect();
    let mut found: Vec<Vec<(usize, u64)>> = vec![Vec::new(); partners.len()];
    for (t, maps) in maps2.iter().enumerate() {
        let tc = state.target(cx.res, cx.layout, t);
        let reads = ReadMap {
            map: maps.read,
            load_bytes: &load_bytes,
        };
        // Pairs still searching this target, with the byte to search from.
        let mut open: Vec<(usize, u64)> = (0..partners.len())
            .filter(|&k| found[k].len() < OFFSETS_PER_PAIR)
            .map(|k| (k, 0))
            .collect();
        while !open.is_empty() {
            let pairs: Vec<(u32, u32)> = open
                .iter()
                .map(|&(k, _)| (partners[k].1, renumber(partners[k].0)))
                .collect();
            let starts: Vec<u64> = open.iter().map(|o| o.1).collect();
            let next = kernels::read_witness(exec, &tc, &reads, &pairs, &starts)?;
            let mut still = Vec::new();
            for (&(k, _), o) in open.iter().zip(next) {
                if let Some(o) = o {
                    found[k].push((t, o));
                    if found[k].len() < OFFSETS_PER_PAIR {
                        still.push((k, o + 1));
                    }
                }
            }
            open = still;
        }
    }
    Ok(found)
}

/// Windows of site-map entries: wanted ones recorded while races are built without
/// them, then fetched.
#[derive(Default)]
struct Windows {
    /// (map, first entry) of each window wanted.
    wanted: RefCell<BTreeSet<(u32, u64)>>,
    got: HashMap<(u32, u64), Vec<u8>>,
}

impl Windows {
    /// The window of `map` starting at entry `start`, or `None` (recorded as wanted).
    fn get(&self, map: DeviceBuffer, start: u64) -> Option<&[u8]> {
        match self.got.get(&(map.0, start)) {
            Some(w) => Some(w),
            None => {
                self.wanted.borrow_mut().insert((map.0, start));
                None
            }
        }
    }

    /// Gathers every wanted window, one launch per map.
    fn fetch(&mut self, exec: &mut dyn Executor) -> Result<(), GpuError> {
        let wanted = std::mem::take(&mut *self.wanted.borrow_mut());
        let mut by_map: HashMap<u32, Vec<u64>> = HashMap::new();
        for (m, s) in wanted {
            by_map.entry(m).or_default().push(s);
        }
        for (m, starts) in by_map {
            let bytes: Vec<u64> = starts.iter().map(|s| s * ENTRY).collect();
            let data = kernels::gather(exec, DeviceBuffer(m), &bytes, WINDOW * ENTRY)?;
            for (s, w) in starts
                .iter()
                .zip(data.chunks_exact((WINDOW * ENTRY) as usize))
            {
                self.got.insert((m, *s), w.to_vec());
            }
        }
        Ok(())
    }
}

/// Source attribution from site maps of the attribution runs, whose copies are the
/// round's involved copies renumbered (`renumber`).
struct Attribution<'a> {
    cx: &'a Cx<'a>,
    state: &'a Pass1,
    renumber: &'a dyn Fn(u32) -> u32,
    windows: &'a Windows,
}

impl Attribution<'_> {
    /// The site and unit whose access covers byte `o` of copy `c`'s copy of target `t`
    /// in `map` (of the real buffer when `c` is [`ATOMIC`]).
    fn site(
        &self,
        map: DeviceBuffer,
        t: usize,
        c: u32,
        o: usize,
        kind: SiteKind,
    ) -> Option<(usize, u32)> {
        let l = &self.cx.layout.targets[t];
        let base = if c == ATOMIC {
            0
        } else {
            (self.renumber)(c) as u64 * l.stride as u64
        };
        let o = o as u64;
        let start = base + o - o.min(WINDOW - 1);
        let window = self.windows.get(map, start)?;
        let word = |entry: u64, at: usize| -> Option<u32> {
            let k = ((entry - start) * ENTRY) as usize + at;
            Some(u32::from_le_bytes(window.get(k..k + 4)?.try_into().ok()?))
        };
        (0..WINDOW.min(o + 1)).find_map(|d| {
            let e = base + o - d;
            let id = word(e, 0)? as usize;
            let site = self.cx.inst.plan.sites.get(id.checked_sub(1)?)?;
            (site.kind == kind && site.bytes as u64 > d).then_some((id - 1, word(e, 4)?))
        })
    }

    /// The side of copy `c` at byte `o` of target `t`, attributed from `maps` (the write,
    /// read or atomic map by `kind`; the atomic map when `c` is [`ATOMIC`]).
    fn side(&self, maps: &[SiteMaps], t: usize, c: u32, o: usize, kind: SiteKind) -> Side {
        let kind = if c == ATOMIC { SiteKind::Atomic } else { kind };
        let map = match kind {
            SiteKind::Store => maps[t].write,
            SiteKind::Load => maps[t].read,
            SiteKind::Atomic => maps[t].atomic,
        };
        let found = self.site(map, t, c, o, kind);
        let unit = found.map_or_else(
            || {
                if c == ATOMIC {
                    0
                } else {
                    self.state.unit_of(c)
                }
            },
            |f| f.1,
        );
        self.cx
            .layout
            .side(unit, found.map(|f| f.0), kind != SiteKind::Load)
    }

    fn write_write(&self, r: RawRace, maps: &[SiteMaps]) -> Race {
        Race {
            kind: r.kind,
            target: r.target,
            buffer: self.cx.layout.targets[r.target].name.clone(),
            offset: r.offset as u64,
            first: self.side(maps, r.target, r.first, r.offset, SiteKind::Store),
            second: self.side(maps, r.target, r.second, r.offset, SiteKind::Store),
        }
    }

    /// Copy `i` read copy `j`'s writes (the atomics' when `j` is [`ATOMIC`]): witnesses at
    /// the bytes of `witnesses` (ones `j` wrote that `i` read when started from `S` plus
    /// `j`'s writes); else at `i`'s first mismatching byte.
    fn read_write(
        &self,
        i: u32,
        j: u32,
        witnesses: &[(usize, u64)],
        maps1: &[SiteMaps],
        maps2: &[SiteMaps],
        mismatches: &[(u32, usize, usize)],
    ) -> Vec<Race> {
        let kind = if j == ATOMIC {
            RaceKind::AtomicRead
        } else {
            RaceKind::ReadWrite
        };
        let name = |t: usize| self.cx.layout.targets[t].name.clone();
        let mut out: Vec<Race> = witnesses
            .iter()
            .map(|&(t, o)| Race {
                kind,
                target: t,
                buffer: name(t),
                offset: o,
                first: self.side(maps1, t, j, o as usize, SiteKind::Store),
                second: self.side(maps2, t, i, o as usize, SiteKind::Load),
            })
            .collect();
        if out.is_empty()
            && let Some(&(_, t, o)) = mismatches.iter().find(|m| m.0 == i)
        {
            let second = self.side(maps2, t, i, o, SiteKind::Store);
            let mut first = self.side(maps1, t, j, o, SiteKind::Store);
            first.site = None;
            out.push(Race {
                kind,
                target: t,
                buffer: name(t),
                offset: o as u64,
                first,
                second,
            });
        }
        out
    }
}
