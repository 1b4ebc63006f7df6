//! Loads, stores and atomics over a warp's lanes, in every state space (PTX ISA §5.1,
//! §9.7.8.8–11, §9.7.12.5–6).
//!
//! Each lane's address is checked before anything is written: alignment (the whole
//! vector's size, §5.4.5), then bounds of the space (global: inside one allocation;
//! shared: inside the block's static plus dynamic shared memory; local: inside the
//! thread's stack; const: inside the constant bank; param: inside the parameter block).
//! A failing lane makes the whole warp-instruction a fault and nothing is stored.
//!
//! Global accesses go through a last-hit allocation cache: if the cached allocation holds
//! every active lane's access (the usual case: a warp reads one array), the per-lane
//! lookups are skipped.

use warpcheck_ir::modifiers::{AtomOp, MemSpace};

mod cp_async;
mod matrix;

use super::Lanes;
use crate::fault::FaultKind;
use crate::heap::HeapHit;
use crate::memory::{
    AtomType, CONST_WINDOW, GLOBAL_BASE, GenericTarget, GlobalMemory, LOCAL_WINDOW, PARAM_WINDOW,
    SHARED_WINDOW, WINDOW_SIZE, atomic_new_value, resolve_generic,
};
use crate::ops::{Addr, MemShape, VecSlots};

/// `cvta` (§9.7.8.19): state-space address to generic, or back with `.to`.
#[inline]
pub(crate) fn cvta(space: MemSpace, to: bool, x: u64) -> u64 {
    let window = match space {
        MemSpace::Global | MemSpace::Generic => 0,
        MemSpace::Shared | MemSpace::SharedCluster => SHARED_WINDOW,
        MemSpace::Local => LOCAL_WINDOW,
        MemSpace::Const => CONST_WINDOW,
        MemSpace::Param => PARAM_WINDOW,
    };
    if window == 0 {
        return x;
    }
    if to {
        if x.wrapping_sub(window) < WINDOW_SIZE {
            x - window
        } else {
            x.wrapping_sub(window)
        }
    } else {
        x.wrapping_add(window)
    }
}

/// `isspacep.space` (§9.7.8.18).
pub(crate) fn isspacep(space: MemSpace, x: u64) -> bool {
    matches!(
        (space, resolve_generic(x)),
        (MemSpace::Global, GenericTarget::Global(_))
            | (
                MemSpace::Shared | MemSpace::SharedCluster,
                GenericTarget::Shared(_)
            )
            | (MemSpace::Local, GenericTarget::Local(_))
            | (MemSpace::Const, GenericTarget::Const(_))
            | (MemSpace::Param, GenericTarget::Param(_))
    )
}

/// The memories one warp can reach.
pub(crate) struct MemCtx<'a> {
    pub global: &'a GlobalMemory,
    pub shared: &'a mut [u8],
    /// This warp's local memory: lane `l` owns `local[l*stack .. (l+1)*stack]`.
    pub local: &'a mut [u8],
    pub stack: u64,
    pub consts: &'a [u8],
    pub params: &'a [u8],
    /// Index of the last global allocation hit.
    pub cache: &'a mut usize,
}

impl<'a> MemCtx<'a> {
    /// The memories of one warp of a launch of `flat`: `local` is the warp's local memory
    /// and `cache` the allocation cache of the op (or warp) making the access.
    #[inline(always)]
    pub(crate) fn new(
        flat: &'a crate::translate::Flat,
        global: &'a GlobalMemory,
        shared: &'a mut [u8],
        local: &'a mut [u8],
        cache: &'a mut usize,
    ) -> MemCtx<'a> {
        MemCtx {
            global,
            shared,
            local,
            stack: flat.stack_size,
            consts: &flat.const_bank,
            params: &flat.params,
            cache,
        }
    }
}

/// A faulting lane and why.
pub(crate) type LaneFault = (u32, FaultKind);

#[inline]
fn read_le(bytes: &[u8], off: u64, size: u32) -> Option<u64> {
    let off = usize::try_from(off).ok()?;
    let s = bytes.get(off..off.checked_add(size as usize)?)?;
    let mut buf = [0u8; 8];
    buf[..size as usize].copy_from_slice(s);
    Some(u64::from_le_bytes(buf))
}

#[inline]
fn write_le(bytes: &mut [u8], off: u64, size: u32, v: u64) -> bool {
    let Ok(off) = usize::try_from(off) else {
        return false;
    };
    let Some(end) = off.checked_add(size as usize) else {
        return false;
    };
    match bytes.get_mut(off..end) {
        Some(s) => {
            s.copy_from_slice(&v.to_le_bytes()[..size as usize]);
            true
        }
        None => false,
    }
}

/// Whether every active lane's `bytes`-byte access at `a[l]` is aligned and below `len`
/// (`bytes` is a power of two: element sizes and vector widths are).
#[inline(always)]
fn fits(a: &Lanes, mask: u32, bytes: u32, len: u64) -> bool {
    let bytes = bytes as u64;
    if mask == 0 {
        return true;
    }
    if len < bytes {
        return false;
    }
    let last = len - bytes;
    debug_assert!(last < 1 << 63, "memories are smaller than 2^63 bytes");
    // Two OR reductions with no compare and no long dependency chain: a lane's access is
    // past the end iff `last - v` wraps (its top bit, as `last < 2^63`) or `v` itself is
    // at least 2^63; misaligned iff `v` has one of the low bits. An inactive lane stands
    // in with the first active lane's address.
    let (mut or_v, mut or_d) = (0u64, 0u64);
    if mask == u32::MAX {
        for &v in a {
            or_v |= v;
            or_d |= last.wrapping_sub(v);
        }
    } else {
        let first = a[mask.trailing_zeros() as usize];
        for l in 0..32 {
            let sel = 0u64.wrapping_sub(((mask >> l) & 1) as u64);
            let v = (a[l] & sel) | (first & !sel);
            or_v |= v;
            or_d |= last.wrapping_sub(v);
        }
    }
    (or_v | or_d) >> 63 == 0 && or_v & (bytes - 1) == 0
}

/// Reads a little-endian value of 1, 2, 4 or 8 bytes at `mem[off..]` without a bounds
/// check, for the fast paths whose lanes [`fits`] has checked.
///
/// # Safety
/// `off + size <= mem.len()`.
#[inline(always)]
unsafe fn read_unchecked(mem: &[u8], off: u64, size: u32) -> u64 {
    debug_assert!(off + size as u64 <= mem.len() as u64);
    // SAFETY: in bounds by the caller's contract; unaligned reads are allowed.
    unsafe {
        let p = mem.as_ptr().add(off as usize);
        match size {
            4 => p.cast::<u32>().read_unaligned() as u64,
            8 => p.cast::<u64>().read_unaligned(),
            2 => p.cast::<u16>().read_unaligned() as u64,
            _ => *p as u64,
        }
    }
}

/// Writes the low `size` bytes of `v` little-endian at `mem[off..]` without a bounds
/// check (see [`read_unchecked`]).
///
/// # Safety
/// `off + size <= mem.len()`.
#[inline(always)]
unsafe fn write_unchecked(mem: &mut [u8], off: u64, size: u32, v: u64) {
    debug_assert!(off + size as u64 <= mem.len() as u64);
    // SAFETY: in bounds by the caller's contract; unaligned writes are allowed.
    unsafe {
        let p = mem.as_mut_ptr().add(off as usize);
        match size {
            4 => p.cast::<u32>().write_unaligned(v as u32),
            8 => p.cast::<u64>().write_unaligned(v),
            2 => p.cast::<u16>().write_unaligned(v as u16),
            _ => *p = v as u8,
        }
    }
}

/// Whether every active lane's access lies inside `alloc` and is aligned.
#[inline(always)]
fn fits_allocation(alloc: &crate::memory::Allocation, a: &Lanes, mask: u32, bytes: u32) -> bool {
    // Offsets into the allocation: addresses below the base wrap to huge offsets.
    let base = alloc.base();
    let mut off = [0u64; 32];
    for l in 0..32 {
        off[l] = a[l].wrapping_sub(base);
    }
    fits(&off, mask, bytes, alloc.size())
}

/// The fast path of `ld` from a byte slice (shared, const or param memory): when every
/// active lane's access is inside `mem` and aligned, loads it into the destination
/// registers and returns true; otherwise touches nothing and returns false.
/// Kept out of line: inside `MemCtx::load` the compiler spills the lane loop.
#[inline(never)]
fn load_bytes(
    mem: &[u8],
    a: &Lanes,
    mask: u32,
    shape: MemShape,
    dsts: &VecSlots,
    regs: &mut [Lanes],
) -> bool {
    let size = shape.size as u32;
    let n = dsts.n.max(1) as u32;
    if !fits(a, mask, size * n, mem.len() as u64) {
        return false;
    }
    for e in 0..n as usize {
        let d = &mut regs[dsts.slots[e] as usize];
        let off = e as u64 * size as u64;
        // SAFETY (every read below): `fits` checked `a[l] + size·n <= mem.len()` for
        // every active lane, and `off + size <= size·n`.
        if size == 4 && !shape.signed {
            if mask == u32::MAX {
                for l in 0..32 {
                    d[l] = unsafe { read_unchecked(mem, a[l] + off, 4) };
                }
            } else {
                for_lanes(mask, |l| {
                    d[l] = unsafe { read_unchecked(mem, a[l] + off, 4) }
                });
            }
        } else {
            let extend =
                |v: u64| crate::translate::extend(v, size * 8, shape.signed, shape.dst_bits as u32);
            for_lanes(mask, |l| {
                d[l] = extend(unsafe { read_unchecked(mem, a[l] + off, size) })
            });
        }
    }
    true
}

/// When all active lanes access one state space (always, unless a generic access mixes
/// windows): that space, with the lanes' addresses converted in place to addresses in it.
#[inline(always)]
fn uniform_space(space: MemSpace, addrs: &mut Lanes, mask: u32) -> Option<MemSpace> {
    if space != MemSpace::Generic {
        return Some(space);
    }
    let first = addrs[mask.trailing_zeros() as usize & 31];
    let (sp, base) = match resolve_generic(first) {
        GenericTarget::Global(_) => (MemSpace::Global, 0),
        GenericTarget::Shared(_) => (MemSpace::Shared, SHARED_WINDOW),
        GenericTarget::Local(_) => (MemSpace::Local, LOCAL_WINDOW),
        GenericTarget::Const(_) => (MemSpace::Const, CONST_WINDOW),
        GenericTarget::Param(_) => (MemSpace::Param, PARAM_WINDOW),
        GenericTarget::None => return None,
    };
    let mut ok = true;
    for l in 0..32 {
        let inside = if base == 0 {
            addrs[l] >= GLOBAL_BASE
        } else {
            addrs[l].wrapping_sub(base) < WINDOW_SIZE
        };
        ok &= inside || (mask >> l) & 1 == 0;
    }
    if !ok {
        return None;
    }
    if base != 0 {
        for a in addrs.iter_mut() {
            *a = a.wrapping_sub(base);
        }
    }
    Some(sp)
}

/// Calls `f(lane)` for every lane of the mask (a plain loop for a full warp).
#[inline(always)]
fn for_lanes(mask: u32, mut f: impl FnMut(usize)) {
    if mask == u32::MAX {
        for l in 0..32 {
            f(l);
        }
    } else {
        let mut m = mask;
        while m != 0 {
            let l = m.trailing_zeros() as usize;
            m &= m - 1;
            f(l);
        }
    }
}

/// Per-lane addresses of a memory op.
#[inline(always)]
pub(crate) fn addresses(addr: Addr, regs: &[Lanes], frame_base: u64) -> Lanes {
    match addr {
        Addr::Reg { slot, offset } => {
            let r = &regs[slot as usize];
            let mut out = [0u64; 32];
            for l in 0..32 {
                out[l] = r[l].wrapping_add(offset as u64);
            }
            out
        }
        Addr::Abs(a) => [a; 32],
        Addr::Frame(o) => [frame_base.wrapping_add(o); 32],
    }
}

impl MemCtx<'_> {
    /// Resolves a generic address to its space and state-space address.
    #[inline]
    fn resolve(&self, space: MemSpace, a: u64) -> Result<(MemSpace, u64), FaultKind> {
        if space != MemSpace::Generic {
            return Ok((space, a));
        }
        match resolve_generic(a) {
            GenericTarget::Global(x) => Ok((MemSpace::Global, x)),
            GenericTarget::Shared(x) => Ok((MemSpace::Shared, x)),
            GenericTarget::Local(x) => Ok((MemSpace::Local, x)),
            GenericTarget::Const(x) => Ok((MemSpace::Const, x)),
            GenericTarget::Param(x) => Ok((MemSpace::Param, x)),
            GenericTarget::None => Err(FaultKind::BadGenericAddress { address: a }),
        }
    }

    fn oob(space: MemSpace, address: u64, size: u32, is_write: bool) -> FaultKind {
        FaultKind::OutOfBounds {
            space,
            address,
            size,
            is_write,
        }
    }

    /// Finds the global allocation holding `[a, a+size)` (updating the cache).
    #[inline]
    fn global_alloc(
        &mut self,
        a: u64,
        size: u32,
        is_write: bool,
    ) -> Result<(usize, u64), FaultKind> {
        let allocs = self.global.allocations();
        if let Some(c) = allocs.get(*self.cache) {
            let off = a.wrapping_sub(c.base());
            if off < c.size() && off + size as u64 <= c.size() {
                return self.heap_checked(*self.cache, off, a, size, is_write);
            }
        }
        match self.global.index_of(a) {
            Some(i) => {
                let c = self.global.allocation(i);
                let off = a - c.base();
                if off + size as u64 <= c.size() {
                    *self.cache = i;
                    self.heap_checked(i, off, a, size, is_write)
                } else {
                    Err(Self::oob(MemSpace::Global, a, size, is_write))
                }
            }
            None => Err(Self::oob(MemSpace::Global, a, size, is_write)),
        }
    }

    /// `Ok((i, off))` for an access inside allocation `i`, unless that is the device heap
    /// and the access is not inside one live block of it (see `crate::heap`).
    #[inline]
    fn heap_checked(
        &self,
        i: usize,
        off: u64,
        a: u64,
        size: u32,
        is_write: bool,
    ) -> Result<(usize, u64), FaultKind> {
        if !self.global.allocation(i).is_heap() {
            return Ok((i, off));
        }
        let Some(heap) = self.global.heap() else {
            return Ok((i, off));
        };
        match heap.hit(a, size as u64) {
            HeapHit::Live => Ok((i, off)),
            HeapHit::Freed { base, size: len } => Err(FaultKind::HeapUseAfterFree {
                address: a,
                size,
                is_write,
                block: (base, len),
            }),
            HeapHit::Outside { below } => Err(FaultKind::HeapOutOfBounds {
                address: a,
                size,
                is_write,
                below,
            }),
        }
    }

    /// Checks one lane's access (alignment and bounds) without performing it.
    fn check(
        &mut self,
        space: MemSpace,
        a: u64,
        size: u32,
        align: u32,
        is_write: bool,
    ) -> Result<(), FaultKind> {
        let (space, a) = self.resolve(space, a)?;
        if a % align as u64 != 0 {
            return Err(FaultKind::Misaligned {
                space,
                address: a,
                size: align,
            });
        }
        let ok = match space {
            MemSpace::Global => {
                if a < GLOBAL_BASE {
                    false
                } else {
                    return self.global_alloc(a, size, is_write).map(|_| ());
                }
            }
            MemSpace::Shared | MemSpace::SharedCluster => a
                .checked_add(size as u64)
                .is_some_and(|e| e <= self.shared.len() as u64),
            MemSpace::Local => a.checked_add(size as u64).is_some_and(|e| e <= self.stack),
            MemSpace::Const | MemSpace::Param => {
                if is_write {
                    return Err(FaultKind::ReadOnly { space, address: a });
                }
                let len = if space == MemSpace::Const {
                    self.consts.len()
                } else {
                    self.params.len()
                };
                a.checked_add(size as u64).is_some_and(|e| e <= len as u64)
            }
            MemSpace::Generic => false,
        };
        if ok {
            Ok(())
        } else {
            Err(Self::oob(space, a, size, is_write))
        }
    }

    /// Checks every active lane's `bytes`-byte access (alignment to `bytes` and bounds),
    /// in lane order: the first faulting lane and why.
    fn check_lanes(
        &mut self,
        space: MemSpace,
        addrs: &Lanes,
        mask: u32,
        bytes: u32,
        is_write: bool,
    ) -> Result<(), LaneFault> {
        let mut m = mask;
        while m != 0 {
            let l = m.trailing_zeros();
            m &= m - 1;
            self.check(space, addrs[l as usize], bytes, bytes, is_write)
                .map_err(|f| (l, f))?;
        }
        Ok(())
    }

    /// Loads one element (already checked).
    #[inline]
    fn load_one(
        &mut self,
        space: MemSpace,
        a: u64,
        size: u32,
        lane: u32,
    ) -> Result<u64, FaultKind> {
        let (space, a) = self.resolve(space, a)?;
        let v = match space {
            MemSpace::Global => {
                let (i, off) = self.global_alloc(a, size, false)?;
                Some(self.global.allocation(i).load(off, size))
            }
            MemSpace::Shared | MemSpace::SharedCluster => read_le(self.shared, a, size),
            MemSpace::Local => {
                if a.checked_add(size as u64).is_none_or(|e| e > self.stack) {
                    None
                } else {
                    read_le(self.local, lane as u64 * self.stack + a, size)
                }
            }
            MemSpace::Const => read_le(self.consts, a, size),
            MemSpace::Param => read_le(self.params, a, size),
            MemSpace::Generic => None,
        };
        v.ok_or(Self::oob(space, a, size, false))
    }

    #[inline]
    fn store_one(
        &mut self,
        space: MemSpace,
        a: u64,
        size: u32,
        lane: u32,
        v: u64,
    ) -> Result<(), FaultKind> {
        let (space, a) = self.resolve(space, a)?;
        let ok = match space {
            MemSpace::Global => {
                let (i, off) = self.global_alloc(a, size, true)?;
                self.global.allocation(i).store(off, size, v);
                true
            }
            MemSpace::Shared | MemSpace::SharedCluster => write_le(self.shared, a, size, v),
            MemSpace::Local => {
                a.checked_add(size as u64).is_some_and(|e| e <= self.stack)
                    && write_le(self.local, lane as u64 * self.stack + a, size, v)
            }
            MemSpace::Const | MemSpace::Param => {
                return Err(FaultKind::ReadOnly { space, address: a });
            }
            MemSpace::Generic => false,
        };
        if ok {
            Ok(())
        } else {
            Err(Self::oob(space, a, size, true))
        }
    }

    /// The fast path for global memory: every active lane's whole access lies in one
    /// allocation (the cached one, or the one of the first active lane) and is aligned.
    #[inline(always)]
    fn global_fast(&mut self, a: &Lanes, mask: u32, bytes: u32) -> Option<usize> {
        let allocs = self.global.allocations();
        let fits = |i: usize| -> bool { fits_allocation(&allocs[i], a, mask, bytes) };
        let i = if *self.cache < allocs.len() && fits(*self.cache) {
            *self.cache
        } else {
            let first = a[mask.trailing_zeros() as usize & 31];
            let i = self.global.index_of(first)?;
            if !fits(i) {
                return None;
            }
            *self.cache = i;
            i
        };
        if allocs[i].is_heap() {
            // Every lane must be inside one live heap block, else the checked path says
            // which lane is not.
            let heap = self.global.heap()?;
            if !heap.all_live(a, mask, bytes as u64) {
                return None;
            }
        }
        Some(i)
    }

    /// `ld` for the active lanes.
    /// `dsts` (like `st`'s `srcs`) is borrowed from the op, not copied: in the observed
    /// interpreter loop the first read of the copy stalled (a third of this function's
    /// samples on that one read); SGEMM checked with an empty observer took 21% longer
    /// than `run`, 3% after, and its whole check 5.7 → 4.9 s on one thread.
    /// Returns the state space the lanes' addresses were resolved to (`addrs` then holds
    /// addresses in that space), or `Generic` when a generic access mixed spaces.
    pub(crate) fn load(
        &mut self,
        shape: MemShape,
        dsts: &VecSlots,
        addrs: &mut Lanes,
        mask: u32,
        regs: &mut [Lanes],
    ) -> Result<MemSpace, LaneFault> {
        let size = shape.size as u32;
        let n = dsts.n.max(1) as u32;
        let extend =
            |v: u64| crate::translate::extend(v, size * 8, shape.signed, shape.dst_bits as u32);
        // Generic addresses are converted in place; keep them for the checked path.
        let original = if shape.space == MemSpace::Generic {
            Some(*addrs)
        } else {
            None
        };
        if let Some(space) = uniform_space(shape.space, addrs, mask) {
            let a = &*addrs;
            let bytes = size * n;
            let done = match space {
                MemSpace::Global => match self.global_fast(a, mask, bytes) {
                    Some(i) => {
                        let alloc = self.global.allocation(i);
                        let base = alloc.base();
                        for e in 0..n as usize {
                            let d = &mut regs[dsts.slots[e] as usize];
                            let off = e as u64 * size as u64;
                            if size == 4 && !shape.signed {
                                for_lanes(mask, |l| d[l] = alloc.load(a[l] - base + off, 4));
                            } else {
                                for_lanes(mask, |l| {
                                    d[l] = extend(alloc.load(a[l] - base + off, size))
                                });
                            }
                        }
                        true
                    }
                    None => false,
                },
                MemSpace::Shared | MemSpace::Const | MemSpace::Param => {
                    let mem: &[u8] = match space {
                        MemSpace::Shared => self.shared,
                        MemSpace::Const => self.consts,
                        _ => self.params,
                    };
                    load_bytes(mem, a, mask, shape, dsts, regs)
                }
                MemSpace::Local if fits(a, mask, bytes, self.stack) => {
                    for e in 0..n as usize {
                        let d = dsts.slots[e] as usize;
                        let mut m = mask;
                        while m != 0 {
                            let l = m.trailing_zeros() as usize;
                            m &= m - 1;
                            let at = l as u64 * self.stack + a[l] + e as u64 * size as u64;
                            regs[d][l] = extend(read_le(self.local, at, size).unwrap_or(0));
                        }
                    }
                    true
                }
                _ => false,
            };
            if done {
                return Ok(space);
            }
            // The fast path failed: undo the conversion and take the checked path.
            if let Some(original) = original {
                *addrs = original;
            }
        }
        self.check_lanes(shape.space, addrs, mask, size * n, false)?;
        let mut m = mask;
        while m != 0 {
            let l = m.trailing_zeros();
            m &= m - 1;
            let a = addrs[l as usize];
            for e in 0..n {
                let v = self
                    .load_one(shape.space, a.wrapping_add((e * size) as u64), size, l)
                    .map_err(|f| (l, f))?;
                regs[dsts.slots[e as usize] as usize][l as usize] = extend(v);
            }
        }
        Ok(shape.space)
    }

    /// `st` for the active lanes (lanes store in lane order, so when several lanes of a
    /// warp write the same address the highest lane wins, as on NVIDIA hardware).
    pub(crate) fn store(
        &mut self,
        shape: MemShape,
        srcs: &VecSlots,
        addrs: &mut Lanes,
        mask: u32,
        regs: &[Lanes],
    ) -> Result<MemSpace, LaneFault> {
        let size = shape.size as u32;
        let n = srcs.n.max(1) as u32;
        // Generic addresses are converted in place; keep them for the checked path.
        let original = if shape.space == MemSpace::Generic {
            Some(*addrs)
        } else {
            None
        };
        if let Some(space) = uniform_space(shape.space, addrs, mask) {
            let a = &*addrs;
            let bytes = size * n;
            let done = match space {
                MemSpace::Global => match self.global_fast(a, mask, bytes) {
                    Some(i) => {
                        let alloc = self.global.allocation(i);
                        let base = alloc.base();
                        let mut m = mask;
                        while m != 0 {
                            let l = m.trailing_zeros() as usize;
                            m &= m - 1;
                            for e in 0..n as usize {
                                alloc.store(
                                    a[l] - base + e as u64 * size as u64,
                                    size,
                                    regs[srcs.slots[e] as usize][l],
                                );
                            }
                        }
                        true
                    }
                    None => false,
                },
                MemSpace::Shared if fits(a, mask, bytes, self.shared.len() as u64) => {
                    let mut m = mask;
                    while m != 0 {
                        let l = m.trailing_zeros() as usize;
                        m &= m - 1;
                        for e in 0..n as usize {
                            let at = a[l] + e as u64 * size as u64;
                            let v = regs[srcs.slots[e] as usize][l];
                            // SAFETY: `fits` checked `a[l] + bytes <= len` for every
                            // active lane, and `e·size + size <= bytes`.
                            unsafe { write_unchecked(self.shared, at, size, v) };
                        }
                    }
                    true
                }
                MemSpace::Local if fits(a, mask, bytes, self.stack) => {
                    let mut m = mask;
                    while m != 0 {
                        let l = m.trailing_zeros() as usize;
                        m &= m - 1;
                        for e in 0..n as usize {
                            let at = l as u64 * self.stack + a[l] + e as u64 * size as u64;
                            write_le(self.local, at, size, regs[srcs.slots[e] as usize][l]);
                        }
                    }
                    true
                }
                _ => false,
            };
            if done {
                return Ok(space);
            }
            if let Some(original) = original {
                *addrs = original;
            }
        }
        self.check_lanes(shape.space, addrs, mask, size * n, true)?;
        let mut m = mask;
        while m != 0 {
            let l = m.trailing_zeros();
            m &= m - 1;
            let a = addrs[l as usize];
            for e in 0..n {
                let v = regs[srcs.slots[e as usize] as usize][l as usize];
                self.store_one(shape.space, a.wrapping_add((e * size) as u64), size, l, v)
                    .map_err(|f| (l, f))?;
            }
        }
        Ok(shape.space)
    }

    /// `atom`/`red` for the active lanes, in lane order. Returns the old values.
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn atomic(
        &mut self,
        space: MemSpace,
        op: AtomOp,
        ty: AtomType,
        size: u32,
        addrs: &Lanes,
        b: &Lanes,
        c: &Lanes,
        mask: u32,
    ) -> Result<Lanes, LaneFault> {
        let mut old = [0u64; 32];
        // Shared memory belongs to this block: when every active lane's access is inside
        // it and aligned, a plain read-modify-write per lane in lane order, unchecked.
        if space == MemSpace::Shared && fits(addrs, mask, size, self.shared.len() as u64) {
            let mem = &mut *self.shared;
            let plain_add = op == AtomOp::Add && matches!(ty, AtomType::U32 | AtomType::S32);
            for_lanes(mask, |l| {
                let a = addrs[l];
                // SAFETY: `fits` checked `a + size <= mem.len()` for every active lane.
                let o = unsafe { read_unchecked(mem, a, size) };
                let new = if plain_add {
                    Some(o.wrapping_add(b[l]))
                } else {
                    atomic_new_value(op, ty, o, b[l], c[l])
                };
                if let Some(n) = new {
                    // SAFETY: as for the read.
                    unsafe { write_unchecked(mem, a, size, n) };
                }
                old[l] = o;
            });
            return Ok(old);
        }
        self.check_lanes(space, addrs, mask, size, true)?;
        let mut m = mask;
        while m != 0 {
            let l = m.trailing_zeros();
            m &= m - 1;
            let li = l as usize;
            let (sp, a) = self.resolve(space, addrs[li]).map_err(|f| (l, f))?;
            let (bv, cv) = (b[li], c[li]);
            old[li] = match sp {
                MemSpace::Global => {
                    let (i, off) = self.global_alloc(a, size, true).map_err(|f| (l, f))?;
                    let alloc = self.global.allocation(i);
                    if op == AtomOp::Add
                        && matches!(
                            ty,
                            AtomType::U32 | AtomType::S32 | AtomType::U64 | AtomType::S64
                        )
                    {
                        alloc.atomic_add_int(off, size, bv)
                    } else {
                        alloc.atomic_rmw(off, size, |o| atomic_new_value(op, ty, o, bv, cv))
                    }
                }
                // Shared and local memory belong to this block/thread: plain read-modify-write.
                _ => {
                    let o = self.load_one(sp, a, size, l).map_err(|f| (l, f))?;
                    if let Some(n) = atomic_new_value(op, ty, o, bv, cv) {
                        self.store_one(sp, a, size, l, n).map_err(|f| (l, f))?;
                    }
                    o
                }
            };
        }
        Ok(old)
    }

    /// Reads a NUL-terminated string through a generic address (for `printf`'s format
    /// and `%s`, and assertion messages); at most `limit` bytes.
    pub(crate) fn read_cstr(
        &mut self,
        address: u64,
        lane: u32,
        limit: usize,
    ) -> Result<Vec<u8>, FaultKind> {
        let mut out = Vec::new();
        while out.len() < limit {
            let b = self.load_one(
                MemSpace::Generic,
                address.wrapping_add(out.len() as u64),
                1,
                lane,
            )? as u8;
            if b == 0 {
                break;
            }
            out.push(b);
        }
        Ok(out)
    }

    /// Loads `size` bytes through a generic address for one lane.
    /// Stores `size` bytes through a generic address for one lane (natural alignment).
    pub(crate) fn store_generic(
        &mut self,
        address: u64,
        size: u32,
        lane: u32,
        value: u64,
    ) -> Result<(), FaultKind> {
        self.check(MemSpace::Generic, address, size, size, true)?;
        self.store_one(MemSpace::Generic, address, size, lane, value)
    }

    pub(crate) fn load_generic(
        &mut self,
        address: u64,
        size: u32,
        lane: u32,
    ) -> Result<u64, FaultKind> {
        self.check(MemSpace::Generic, address, size, 1, false)?;
        self.load_one(MemSpace::Generic, address, size, lane)
    }

    /// Frame memory (local) access for call argument passing; returns false when out
    /// of the stack.
    pub(crate) fn copy_local(&mut self, lane: u32, from: u64, to: u64, size: u32) -> bool {
        let base = lane as u64 * self.stack;
        if from.checked_add(size as u64).is_none_or(|e| e > self.stack)
            || to.checked_add(size as u64).is_none_or(|e| e > self.stack)
        {
            return false;
        }
        let (f, t) = ((base + from) as usize, (base + to) as usize);
        self.local.copy_within(f..f + size as usize, t);
        true
    }

    pub(crate) fn read_local(&self, lane: u32, at: u64, size: u32) -> Option<u64> {
        if at.checked_add(size as u64).is_none_or(|e| e > self.stack) {
            return None;
        }
        read_le(self.local, lane as u64 * self.stack + at, size)
    }

    pub(crate) fn write_local(&mut self, lane: u32, at: u64, size: u32, v: u64) -> bool {
        at.checked_add(size as u64).is_some_and(|e| e <= self.stack)
            && write_le(self.local, lane as u64 * self.stack + at, size, v)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cvta_round_trips() {
        for space in [
            MemSpace::Shared,
            MemSpace::Local,
            MemSpace::Const,
            MemSpace::Global,
        ] {
            let g = cvta(space, false, 40);
            assert_eq!(cvta(space, true, g), 40);
            assert!(space == MemSpace::Global || isspacep(space, g));
        }
        assert!(!isspacep(MemSpace::Shared, cvta(MemSpace::Local, false, 0)));
    }

    /// `fits` against the per-lane definition: active lanes only, aligned, inside `len`.
    #[test]
    fn fits_agrees_with_the_per_lane_check() {
        let per_lane = |a: &Lanes, mask: u32, bytes: u32, len: u64| {
            (0..32).filter(|l| mask >> l & 1 != 0).all(|l| {
                a[l].is_multiple_of(bytes as u64)
                    && a[l].checked_add(bytes as u64).is_some_and(|e| e <= len)
            })
        };
        let mut seed = 0x9e37_79b9_7f4a_7c15u64;
        let mut next = || {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            seed
        };
        let edges = [
            0,
            1,
            3,
            4,
            60,
            64,
            1020,
            1024,
            1 << 62,
            1 << 63,
            u64::MAX - 3,
            u64::MAX,
        ];
        for _ in 0..20_000 {
            let len = [0, 2, 64, 1024, 49_152][(next() % 5) as usize];
            let bytes = [1, 2, 4, 8, 16][(next() % 5) as usize];
            let mut a = [0u64; 32];
            for (l, x) in a.iter_mut().enumerate() {
                *x = match next() % 4 {
                    0 => edges[(next() % edges.len() as u64) as usize],
                    1 => next() % (len + 64),
                    _ => l as u64 * bytes as u64,
                };
            }
            let mask = match next() % 3 {
                0 => u32::MAX,
                1 => 0,
                _ => next() as u32,
            };
            let bytes = bytes as u32;
            assert_eq!(
                fits(&a, mask, bytes, len),
                per_lane(&a, mask, bytes, len),
                "{a:?} {mask:#x} {bytes} {len}"
            );
        }
    }
}
