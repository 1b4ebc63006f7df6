//! The device side of a round: the launch's buffers and the private copies stay on the
//! device, the instrumented kernel runs over them, and the comparison kernels of
//! [`crate::kernels`] turn them into small results. Nothing here downloads a copy.

use crate::exec::{Arg, DeviceBuffer, DeviceLaunch, Executor, Param};
use crate::kernels::{self, ATOMIC, Seed, Start, TargetCopies};
use crate::passes::{Launch, Layout, RaceKind, RawRace};
use crate::rewrite::Variant;
use crate::{GpuError, Instrumented};

/// Device buffers allocated for one scope (a launch, a round), freed together.
#[derive(Default)]
pub(crate) struct Allocs(Vec<DeviceBuffer>);

impl Allocs {
    pub(crate) fn alloc(
        &mut self,
        exec: &mut dyn Executor,
        bytes: u64,
    ) -> Result<DeviceBuffer, GpuError> {
        let b = exec.alloc(bytes)?;
        self.0.push(b);
        Ok(b)
    }

    pub(crate) fn free(self, exec: &mut dyn Executor) {
        for b in self.0 {
            exec.free(b);
        }
    }
}

/// A launch's buffers on the device: the contents before the launch (uploaded once)
/// and the buffers each run works on (reset from them before every run).
pub(crate) struct Resident {
    pub(crate) original: Vec<DeviceBuffer>,
    pub(crate) working: Vec<DeviceBuffer>,
    pub(crate) sizes: Vec<u64>,
    pub(crate) allocs: Allocs,
}

impl Resident {
    pub(crate) fn upload(exec: &mut dyn Executor, launch: &Launch) -> Result<Resident, GpuError> {
        let mut allocs = Allocs::default();
        let mut r = Resident {
            original: Vec::new(),
            working: Vec::new(),
            sizes: Vec::new(),
            allocs: Allocs::default(),
        };
        let out = (|| {
            for b in &launch.buffers {
                let n = b.bytes.len() as u64;
                let o = allocs.alloc(exec, n)?;
                exec.upload(o, 0, &b.bytes)?;
                r.original.push(o);
                r.working.push(allocs.alloc(exec, n)?);
                r.sizes.push(n);
            }
            Ok(())
        })();
        r.allocs = allocs;
        match out {
            Ok(()) => Ok(r),
            Err(e) => {
                r.allocs.free(exec);
                Err(e)
            }
        }
    }
}

/// Fills `set` (`copies` copies `stride` bytes apart) with `n` bytes of `src` each,
/// by doubling device-to-device copies; the guards stay as allocated (zero).
fn replicate(
    exec: &mut dyn Executor,
    src: DeviceBuffer,
    set: DeviceBuffer,
    n: u64,
    stride: u64,
    copies: usize,
) -> Result<(), GpuError> {
    if copies == 0 {
        return Ok(());
    }
    exec.copy((set, 0), (src, 0), n)?;
    let mut done = 1usize;
    while done < copies {
        let k = done.min(copies - done);
        // Copies [0, k) to [done, done + k); the last copy's guard is not copied.
        let len = (k as u64 - 1) * stride + n;
        exec.copy((set, done as u64 * stride), (set, 0), len)?;
        done += k;
    }
    Ok(())
}

/// `copies` fresh copies of every target, each holding the buffer's contents.
pub(crate) fn stale_sets(
    exec: &mut dyn Executor,
    allocs: &mut Allocs,
    res: &Resident,
    layout: &Layout,
    copies: usize,
) -> Result<Vec<DeviceBuffer>, GpuError> {
    let mut out = Vec::new();
    for l in &layout.targets {
        let set = allocs.alloc(exec, (l.stride * copies) as u64)?;
        replicate(
            exec,
            res.original[l.buffer],
            set,
            l.size as u64,
            l.stride as u64,
            copies,
        )?;
        out.push(set);
    }
    Ok(out)
}

/// Per target, the attribution variant's site maps: write and read (two `u32` per byte
/// of every copy) and atomic (per byte of the real buffer).
#[derive(Clone, Copy, Debug)]
pub(crate) struct SiteMaps {
    pub(crate) write: DeviceBuffer,
    pub(crate) read: DeviceBuffer,
    pub(crate) atomic: DeviceBuffer,
}

/// Resets the working buffers to the launch's contents; the launch's parameters with its
/// buffers as the working ones.
pub(crate) fn reset_working(
    exec: &mut dyn Executor,
    launch: &Launch,
    res: &Resident,
) -> Result<Vec<Param>, GpuError> {
    for (i, &n) in res.sizes.iter().enumerate() {
        exec.copy((res.working[i], 0), (res.original[i], 0), n)?;
    }
    Ok(launch
        .args
        .iter()
        .map(|a| match a {
            Arg::Bytes(b) => Param::Bytes(b.clone()),
            Arg::Buffer(i) => Param::ptr(res.working[*i]),
        })
        .collect())
}

/// Runs one variant over the working buffers (reset to the launch's contents first),
/// with `copies` (per target) as the private copies and `map` (unit to copy, on the
/// device) as the table. The attribution variant needs `maps`.
#[allow(clippy::too_many_arguments)]
pub(crate) fn run_variant(
    exec: &mut dyn Executor,
    inst: &Instrumented,
    launch: &Launch,
    res: &Resident,
    layout: &Layout,
    map: DeviceBuffer,
    copies: &[DeviceBuffer],
    maps: Option<&[SiteMaps]>,
) -> Result<(), GpuError> {
    let mut params = reset_working(exec, launch, res)?;
    for (t, l) in layout.targets.iter().enumerate() {
        params.push(Param::ptr(copies[t]));
        params.push(Param::u64(l.stride as u64));
        if let Some(maps) = maps {
            params.push(Param::ptr(maps[t].write));
            params.push(Param::ptr(maps[t].read));
            params.push(Param::ptr(maps[t].atomic));
        }
    }
    params.push(Param::ptr(map));
    params.push(Param::u32(layout.upb as u32));
    let (ptx, variant) = match maps {
        Some(_) => (&inst.attribution, Variant::Attribution),
        None => (&inst.plain, Variant::Plain),
    };
    debug_assert!(maps.is_some() == (variant == Variant::Attribution));
    exec.launch(&DeviceLaunch {
        ptx,
        kernel: &inst.kernel,
        grid: launch.grid,
        block: launch.block,
        shared: launch.shared,
        params: &params,
    })
}

/// A unit-to-copy table on the device.
pub(crate) fn upload_map(
    exec: &mut dyn Executor,
    allocs: &mut Allocs,
    map: &[u32],
) -> Result<DeviceBuffer, GpuError> {
    let bytes: Vec<u8> = map.iter().flat_map(|c| c.to_le_bytes()).collect();
    let b = allocs.alloc(exec, bytes.len() as u64)?;
    exec.upload(b, 0, &bytes)?;
    Ok(b)
}

/// Pass-1 state of one round, on the device, shared by checking and deterministic
/// execution.
pub(crate) struct Pass1 {
    /// Unit to copy.
    pub(crate) map: Vec<u32>,
    pub(crate) map_buffer: DeviceBuffer,
    pub(crate) copies: usize,
    /// Per target: `P¹`.
    pub(crate) p1: Vec<DeviceBuffer>,
    /// Per target: copies for the round's later runs.
    pub(crate) work: Vec<DeviceBuffer>,
    /// Per target: `U`.
    pub(crate) unions: Vec<DeviceBuffer>,
    /// Per target: one byte per copy, set where the copy wrote.
    pub(crate) wrote: Vec<DeviceBuffer>,
    /// Per launch buffer: the real buffers after pass 1 (atomics applied).
    pub(crate) real: Vec<DeviceBuffer>,
    /// Per target: bytes the atomics changed.
    pub(crate) atomic_bytes: Vec<u64>,
    /// Races in the order of the host's merge: per target, write-write by (second
    /// copy, offset), then atomic-write by (offset, copy). Not yet thinned.
    pub(crate) races: Vec<RawRace>,
    pub(crate) allocs: Allocs,
}

impl Pass1 {
    /// The first unit using copy `c`: the witness when no site map names one.
    pub(crate) fn unit_of(&self, c: u32) -> u32 {
        self.map.iter().position(|&m| m == c).unwrap_or(0) as u32
    }

    /// Target `t`'s buffers for the comparison kernels.
    pub(crate) fn target(&self, res: &Resident, layout: &Layout, t: usize) -> TargetCopies {
        let l = &layout.targets[t];
        TargetCopies {
            stale: res.original[l.buffer],
            real: self.real[l.buffer],
            pass1: self.p1[t],
            union: self.unions[t],
            n: l.size as u64,
            stride: l.stride as u64,
            copies: self.copies as u32,
        }
    }
}

/// Pass 1 on the device: every copy from `S`, the run, the guard check, the merge.
pub(crate) fn pass1(
    exec: &mut dyn Executor,
    inst: &Instrumented,
    launch: &Launch,
    res: &Resident,
    layout: &Layout,
    map: Vec<u32>,
    profile: &mut crate::passes::Profile,
) -> Result<Pass1, GpuError> {
    let copies = map.iter().max().map_or(1, |&m| m as usize + 1);
    let mut allocs = Allocs::default();
    let mut state = Pass1 {
        map_buffer: DeviceBuffer(u32::MAX),
        map,
        copies,
        p1: Vec::new(),
        work: Vec::new(),
        unions: Vec::new(),
        wrote: Vec::new(),
        real: Vec::new(),
        atomic_bytes: Vec::new(),
        races: Vec::new(),
        allocs: Allocs::default(),
    };
    let out = pass1_in(
        exec,
        inst,
        launch,
        res,
        layout,
        &mut state,
        &mut allocs,
        profile,
    );
    state.allocs = allocs;
    match out {
        Ok(()) => Ok(state),
        Err(e) => {
            state.allocs.free(exec);
            Err(e)
        }
    }
}

#[allow(clippy::too_many_arguments)]
fn pass1_in(
    exec: &mut dyn Executor,
    inst: &Instrumented,
    launch: &Launch,
    res: &Resident,
    layout: &Layout,
    state: &mut Pass1,
    allocs: &mut Allocs,
    profile: &mut crate::passes::Profile,
) -> Result<(), GpuError> {
    let copies = state.copies;
    profile.time("copies", || -> Result<(), GpuError> {
        state.map_buffer = upload_map(exec, allocs, &state.map)?;
        state.p1 = stale_sets(exec, allocs, res, layout, copies)?;
        for l in &layout.targets {
            state
                .work
                .push(allocs.alloc(exec, (l.stride * copies) as u64)?);
            state.unions.push(allocs.alloc(exec, l.size as u64)?);
            state.wrote.push(allocs.alloc(exec, copies as u64)?);
        }
        for &n in &res.sizes {
            state.real.push(allocs.alloc(exec, n)?);
        }
        Ok(())
    })?;
    profile.time("pass 1", || {
        run_variant(
            exec,
            inst,
            launch,
            res,
            layout,
            state.map_buffer,
            &state.p1,
            None,
        )
    })?;
    for (i, &n) in res.sizes.iter().enumerate() {
        exec.copy((state.real[i], 0), (res.working[i], 0), n)?;
    }
    profile.time("merge", || merge_all(exec, res, layout, state))
}

/// The guard check and the merge of every target.
fn merge_all(
    exec: &mut dyn Executor,
    res: &Resident,
    layout: &Layout,
    state: &mut Pass1,
) -> Result<(), GpuError> {
    for t in 0..layout.targets.len() {
        let tc = state.target(res, layout, t);
        if let Some((copy, at)) = kernels::first_bad_guard(exec, &tc)? {
            return Err(guard_error(layout, state, t, copy, at));
        }
    }
    for t in 0..layout.targets.len() {
        let tc = state.target(res, layout, t);
        let merged = kernels::merge(exec, &tc, state.wrote[t])?;
        state.atomic_bytes.push(merged.atomic_bytes);
        let raw = |e: &kernels::Event| RawRace {
            kind: match e.kind {
                0 => RaceKind::WriteWrite,
                1 => RaceKind::BenignWriteWrite,
                _ => RaceKind::AtomicWrite,
            },
            target: t,
            offset: e.offset as usize,
            first: e.first,
            second: e.second,
        };
        let mut plain: Vec<RawRace> = merged
            .events
            .iter()
            .filter(|e| e.kind < 2)
            .map(raw)
            .collect();
        plain.sort_by_key(|r| (r.second, r.offset));
        state.races.extend(plain);
        // Already in (offset, copy) order.
        state
            .races
            .extend(merged.events.iter().filter(|e| e.kind == 2).map(raw));
    }
    Ok(())
}

/// A unit wrote past the end of its copy of a buffer (which would land in the next
/// copy): a memory error, not a race.
fn guard_error(layout: &Layout, state: &Pass1, t: usize, copy: u32, at: u64) -> GpuError {
    let l = &layout.targets[t];
    let side = layout.side(state.unit_of(copy), None, true);
    let who = match side.warp {
        Some(w) => format!("block {} (warp {w})", side.block),
        None => format!("block {}", side.block),
    };
    GpuError::Launch(format!(
        "{who} wrote past the end of buffer `{}` ({} bytes, written at byte {}); GPU mode checks races, not memory errors: run `warpcheck check` without --gpu",
        l.name,
        l.size,
        l.size as u64 + at
    ))
}

/// Per copy, its first mismatch (target, offset) against its expected end, and its
/// first change (target, offset) against its start, over all targets in order.
pub(crate) type Outcome = Vec<(Option<(usize, u64)>, Option<(usize, u64)>)>;

/// Compares every target's copies after a run on the device: started as pass 2 starts
/// them, or from `seeds`.
fn outcomes(
    exec: &mut dyn Executor,
    res: &Resident,
    layout: &Layout,
    state: &Pass1,
    seeds: Option<&[Seed]>,
) -> Result<Outcome, GpuError> {
    let mut out: Outcome = vec![(None, None); state.copies];
    for t in 0..layout.targets.len() {
        let tc = state.target(res, layout, t);
        let how = match seeds {
            Some(s) => Start::Seeded(s),
            None => Start::Pass2,
        };
        let firsts = kernels::outcome(exec, &tc, how, state.work[t])?;
        for (c, &(mismatch, change)) in firsts.iter().enumerate() {
            if out[c].0.is_none() && mismatch != u64::MAX {
                out[c].0 = Some((t, mismatch));
            }
            if out[c].1.is_none() && change != u64::MAX {
                out[c].1 = Some((t, change));
            }
        }
    }
    Ok(out)
}

/// Pass 2: each copy from `U` less its own writes; returns, per copy with a mismatch,
/// its first mismatching (target, offset).
pub(crate) fn pass2(
    exec: &mut dyn Executor,
    inst: &Instrumented,
    launch: &Launch,
    res: &Resident,
    layout: &Layout,
    state: &Pass1,
) -> Result<Vec<(u32, usize, usize)>, GpuError> {
    for t in 0..layout.targets.len() {
        kernels::pass2_init(exec, &state.target(res, layout, t), state.work[t])?;
    }
    run_variant(
        exec,
        inst,
        launch,
        res,
        layout,
        state.map_buffer,
        &state.work,
        None,
    )?;
    let out = outcomes(exec, res, layout, state, None)?;
    Ok(out
        .iter()
        .enumerate()
        .filter_map(|(c, m)| m.0.map(|(t, o)| (c as u32, t, o as usize)))
        .collect())
}

/// Runs the plain variant with the round's copies seeded by `seeds` (one per copy) and
/// compares them with their expected ends.
pub(crate) fn seeded_run(
    exec: &mut dyn Executor,
    inst: &Instrumented,
    launch: &Launch,
    res: &Resident,
    layout: &Layout,
    state: &Pass1,
    seeds: &[Seed],
) -> Result<Outcome, GpuError> {
    for t in 0..layout.targets.len() {
        kernels::seed(exec, &state.target(res, layout, t), seeds, state.work[t])?;
    }
    run_variant(
        exec,
        inst,
        launch,
        res,
        layout,
        state.map_buffer,
        &state.work,
        None,
    )?;
    outcomes(exec, res, layout, state, Some(seeds))
}

/// The atomic-read run: every copy starts from `S` with the atomics' results applied; a
/// copy whose writes change read a byte the atomics changed. Returns, per such copy, its
/// first changed (target, offset).
pub(crate) fn atomic_reads(
    exec: &mut dyn Executor,
    inst: &Instrumented,
    launch: &Launch,
    res: &Resident,
    layout: &Layout,
    state: &Pass1,
) -> Result<Vec<(u32, usize, usize)>, GpuError> {
    let seeds = vec![Seed { from: vec![ATOMIC] }; state.copies];
    let out = seeded_run(exec, inst, launch, res, layout, state, &seeds)?;
    Ok(out
        .iter()
        .enumerate()
        .filter(|(_, m)| m.0.is_some())
        .map(|(c, m)| {
            let (t, o) = m.1.unwrap_or((0, 0));
            (c as u32, t, o as usize)
        })
        .collect())
}

/// Copies with at least one write in pass 1 (in any target), in copy order.
pub(crate) fn writers(exec: &mut dyn Executor, state: &Pass1) -> Result<Vec<u32>, GpuError> {
    let mut any = vec![false; state.copies];
    for &w in &state.wrote {
        let mut flags = vec![0u8; state.copies];
        exec.download(w, 0, &mut flags)?;
        for (a, f) in any.iter_mut().zip(flags) {
            *a |= f != 0;
        }
    }
    Ok((0..state.copies as u32)
        .filter(|&c| any[c as usize])
        .collect())
}

/// The launch's buffers after the round of `state`: pass 1's real buffers (atomics
/// applied) with every copy's plain writes applied in copy order, downloaded into
/// `launch.buffers`.
pub(crate) fn write_back(
    exec: &mut dyn Executor,
    launch: &mut Launch,
    res: &Resident,
    layout: &Layout,
    state: &Pass1,
) -> Result<(), GpuError> {
    for t in 0..layout.targets.len() {
        kernels::write_back(exec, &state.target(res, layout, t))?;
    }
    for (b, &real) in launch.buffers.iter_mut().zip(&state.real) {
        exec.download(real, 0, &mut b.bytes)?;
    }
    Ok(())
}
