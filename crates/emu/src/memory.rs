//! The device address space: global memory (allocations the caller makes and reads back),
//! and the generic-address windows that map generic pointers to state spaces.
//!
//! # Generic addressing (PTX ISA §6.4.1.1, `cvta` §9.7.8.19)
//!
//! A generic address is a 64-bit number that names a byte of global, shared, local, const
//! or kernel-parameter memory. We choose disjoint windows, as the hardware does:
//!
//! | window | generic addresses | state-space address |
//! |---|---|---|
//! | local (per thread) | `LOCAL_WINDOW + a` | `a` < 4 GiB |
//! | shared (per block) | `SHARED_WINDOW + a` | `a` < 4 GiB |
//! | const | `CONST_WINDOW + a` | `a` < 4 GiB |
//! | kernel parameters | `PARAM_WINDOW + a` | `a` < 4 GiB |
//! | global | `GLOBAL_BASE` and above | the same number (`cvta.global` is the identity, as in CUDA) |
//!
//! Everything else — in particular the null pointer and small integers — is in no window,
//! and a generic access there is a [`crate::FaultKind::BadGenericAddress`].
//!
//! # Global allocations
//!
//! [`GlobalMemory::alloc`] hands out 256-byte aligned blocks (like `cudaMalloc`) separated
//! by unmapped gaps of at least [`GUARD_GAP`] bytes, so an access just past the end of a
//! buffer lands in no allocation and is reported out of bounds.
//!
//! # Concurrency
//!
//! Blocks run on several host threads and share global memory. Each allocation is a boxed
//! slice of `AtomicU64` (so it is `Sync` and 8-byte aligned), and every kernel access goes
//! through an atomic of the access width, created in place with `AtomicU{8,16,32,64}::from_ptr`
//! on the naturally aligned address: relaxed loads and stores compile to plain moves, and
//! `atom`/`red` use real read-modify-write atomics (`fetch_add`, `compare_exchange` …).
//! There are therefore no data races in the Rust sense, only atomic accesses; the one
//! caveat is that Rust's memory model leaves *concurrent mixed-size* atomic accesses to
//! the same bytes unspecified. Such accesses only happen when the kernel itself races on
//! global memory between blocks (a bug the race checker reports), and on x86-64 and
//! AArch64, for which this crate is built, aligned accesses of every size are single-copy
//! atomic, so the emulated values are still some interleaving of the writes. Misaligned
//! accesses never reach memory: they are faults first.

use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, AtomicU8, AtomicU16, AtomicU32, AtomicU64, Ordering::Relaxed};

use warpcheck_ir::modifiers::AtomOp;

/// An address in the device's global (= generic) address space.
pub type DeviceAddr = u64;

/// Generic window of per-thread local memory.
pub const LOCAL_WINDOW: u64 = 0x0000_0100_0000_0000;
/// Generic window of the block's shared memory.
pub const SHARED_WINDOW: u64 = 0x0000_0200_0000_0000;
/// Generic window of constant memory.
pub const CONST_WINDOW: u64 = 0x0000_0300_0000_0000;
/// Generic window of the kernel parameters.
pub const PARAM_WINDOW: u64 = 0x0000_0400_0000_0000;
/// Size of each of the windows above.
pub const WINDOW_SIZE: u64 = 1 << 32;
/// The first global allocation's address.
pub const GLOBAL_BASE: u64 = 0x0000_7f00_0000_0000;
/// The smallest unmapped gap between two allocations.
pub const GUARD_GAP: u64 = 4096;
/// Alignment of allocations (as `cudaMalloc`).
pub const ALLOC_ALIGN: u64 = 256;

/// The state space a generic address falls in, and the address within it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum GenericTarget {
    Global(u64),
    Shared(u64),
    Local(u64),
    Const(u64),
    Param(u64),
    None,
}

/// Maps a generic address to its state space (see the module documentation).
#[inline]
pub fn resolve_generic(address: u64) -> GenericTarget {
    if address >= GLOBAL_BASE {
        GenericTarget::Global(address)
    } else if address.wrapping_sub(LOCAL_WINDOW) < WINDOW_SIZE {
        GenericTarget::Local(address - LOCAL_WINDOW)
    } else if address.wrapping_sub(SHARED_WINDOW) < WINDOW_SIZE {
        GenericTarget::Shared(address - SHARED_WINDOW)
    } else if address.wrapping_sub(CONST_WINDOW) < WINDOW_SIZE {
        GenericTarget::Const(address - CONST_WINDOW)
    } else if address.wrapping_sub(PARAM_WINDOW) < WINDOW_SIZE {
        GenericTarget::Param(address - PARAM_WINDOW)
    } else {
        GenericTarget::None
    }
}

/// One global allocation.
pub struct Allocation {
    base: DeviceAddr,
    size: u64,
    words: Box<[AtomicU64]>,
    initialized: bool,
    label: Option<String>,
    /// Set by the first kernel store or atomic into the allocation (the only writes
    /// through shared references), cleared by [`GlobalMemory::note_kernel_ran`], which
    /// logs the allocation as written: what lets a caller that caches hashes or fill
    /// records keep those of the allocations a launch did not write.
    kernel_wrote: AtomicBool,
    /// Whether this is the device heap (`crate::heap`), whose accesses are checked
    /// against its block table.
    heap: bool,
}

impl Allocation {
    pub fn base(&self) -> DeviceAddr {
        self.base
    }

    pub fn size(&self) -> u64 {
        self.size
    }

    /// Whether the caller declared the contents initialised (`alloc(.., true)`); the
    /// initialisation checker starts from this.
    pub fn initialized(&self) -> bool {
        self.initialized
    }

    /// The name given to the allocation (a kernel argument or a module variable).
    pub fn label(&self) -> Option<&str> {
        self.label.as_deref()
    }

    /// Notes a kernel write (see `kernel_wrote`): a load of a line the executing
    /// thread already holds, and a store only for the first write.
    #[inline(always)]
    fn mark_written(&self) {
        if !self.kernel_wrote.load(Relaxed) {
            self.kernel_wrote.store(true, Relaxed);
        }
    }

    /// Whether this allocation is the device heap of in-kernel `malloc`.
    #[inline]
    pub fn is_heap(&self) -> bool {
        self.heap
    }

    #[inline]
    fn byte_ptr(&self) -> *mut u8 {
        // `AtomicU64` has interior mutability, so writing through a pointer derived from
        // a shared reference to it is allowed (all writes are atomic, see the module docs).
        self.words.as_ptr() as *mut u8
    }

    /// Loads `size` (1, 2, 4, 8) bytes at byte `offset`, zero-extended.
    ///
    /// The caller guarantees `offset + size <= self.size` and `offset % size == 0`.
    #[inline]
    pub(crate) fn load(&self, offset: u64, size: u32) -> u64 {
        debug_assert!(offset + size as u64 <= self.size && offset.is_multiple_of(size as u64));
        let p = self.byte_ptr().wrapping_add(offset as usize);
        // SAFETY: `p` is in bounds of `words` (checked by the caller against `size`, which
        // is at most the slice's byte length), naturally aligned for the width (the base is
        // 8-aligned and `offset` is a multiple of `size`), and the memory is only ever
        // accessed atomically while shared (see the module documentation).
        unsafe {
            match size {
                1 => AtomicU8::from_ptr(p).load(Relaxed) as u64,
                2 => AtomicU16::from_ptr(p as *mut u16).load(Relaxed) as u64,
                4 => AtomicU32::from_ptr(p as *mut u32).load(Relaxed) as u64,
                _ => AtomicU64::from_ptr(p as *mut u64).load(Relaxed),
            }
        }
    }

    /// Stores the low `size` bytes of `value` at byte `offset` (same contract as `load`).
    #[inline]
    pub(crate) fn store(&self, offset: u64, size: u32, value: u64) {
        self.mark_written();
        debug_assert!(offset + size as u64 <= self.size && offset.is_multiple_of(size as u64));
        let p = self.byte_ptr().wrapping_add(offset as usize);
        // SAFETY: as in `load`.
        unsafe {
            match size {
                1 => AtomicU8::from_ptr(p).store(value as u8, Relaxed),
                2 => AtomicU16::from_ptr(p as *mut u16).store(value as u16, Relaxed),
                4 => AtomicU32::from_ptr(p as *mut u32).store(value as u32, Relaxed),
                _ => AtomicU64::from_ptr(p as *mut u64).store(value, Relaxed),
            }
        }
    }

    /// An atomic read-modify-write of `size` (2, 4 or 8) bytes; returns the old value.
    /// `rmw` computes the new value from the old one (`None`: leave memory unchanged, as
    /// a failing compare-and-swap does). Implemented with a compare-exchange loop, which
    /// serves every operation and type uniformly (float adds, min/max, inc/dec, CAS).
    #[inline]
    pub(crate) fn atomic_rmw(
        &self,
        offset: u64,
        size: u32,
        rmw: impl Fn(u64) -> Option<u64>,
    ) -> u64 {
        self.mark_written();
        let p = self.byte_ptr().wrapping_add(offset as usize);
        // SAFETY: as in `load`.
        unsafe {
            match size {
                2 => {
                    let a = AtomicU16::from_ptr(p as *mut u16);
                    let mut old = a.load(Relaxed);
                    loop {
                        let Some(new) = rmw(old as u64) else {
                            return old as u64;
                        };
                        match a.compare_exchange_weak(old, new as u16, Relaxed, Relaxed) {
                            Ok(_) => return old as u64,
                            Err(x) => old = x,
                        }
                    }
                }
                4 => {
                    let a = AtomicU32::from_ptr(p as *mut u32);
                    let mut old = a.load(Relaxed);
                    loop {
                        let Some(new) = rmw(old as u64) else {
                            return old as u64;
                        };
                        match a.compare_exchange_weak(old, new as u32, Relaxed, Relaxed) {
                            Ok(_) => return old as u64,
                            Err(x) => old = x,
                        }
                    }
                }
                _ => {
                    let a = AtomicU64::from_ptr(p as *mut u64);
                    let mut old = a.load(Relaxed);
                    loop {
                        let Some(new) = rmw(old) else { return old };
                        match a.compare_exchange_weak(old, new, Relaxed, Relaxed) {
                            Ok(_) => return old,
                            Err(x) => old = x,
                        }
                    }
                }
            }
        }
    }

    /// The hot integer adds use `fetch_add` directly.
    #[inline]
    pub(crate) fn atomic_add_int(&self, offset: u64, size: u32, value: u64) -> u64 {
        self.mark_written();
        let p = self.byte_ptr().wrapping_add(offset as usize);
        // SAFETY: as in `load`.
        unsafe {
            match size {
                4 => AtomicU32::from_ptr(p as *mut u32).fetch_add(value as u32, Relaxed) as u64,
                _ => AtomicU64::from_ptr(p as *mut u64).fetch_add(value, Relaxed),
            }
        }
    }

    /// Host reads: byte by byte up to an 8-byte boundary and after the last whole word,
    /// whole words in between (relaxed loads, which compile to plain moves).
    fn read_bytes(&self, offset: u64, out: &mut [u8]) {
        let head = ((8 - offset % 8) % 8).min(out.len() as u64) as usize;
        let (head_out, rest) = out.split_at_mut(head);
        let rest_len = rest.len();
        for (i, b) in head_out.iter_mut().enumerate() {
            *b = self.load(offset + i as u64, 1) as u8;
        }
        let first_word = ((offset + head as u64) / 8) as usize;
        let mut words = rest.chunks_exact_mut(8);
        for (chunk, w) in (&mut words).zip(&self.words[first_word..]) {
            chunk.copy_from_slice(&w.load(Relaxed).to_ne_bytes());
        }
        let tail = words.into_remainder();
        let tail_at = offset + (head + rest_len - tail.len()) as u64;
        for (i, b) in tail.iter_mut().enumerate() {
            *b = self.load(tail_at + i as u64, 1) as u8;
        }
    }

    /// Host writes, with the allocation borrowed exclusively (no kernel is running): a
    /// plain copy into the words' bytes.
    fn write_bytes(&mut self, offset: u64, bytes: &[u8]) {
        debug_assert!(offset + bytes.len() as u64 <= self.words.len() as u64 * 8);
        // SAFETY: `&mut self` excludes every other access to the words; the range is in
        // bounds (the caller checked it against `size`, at most the words' byte length);
        // `AtomicU64` has the size and layout of `u64`, so its bytes may be written as
        // plain bytes; source and destination do not overlap (the source is not emulator
        // memory borrowed from this allocation, which `&mut self` excludes).
        unsafe {
            let dst = (self.words.as_mut_ptr() as *mut u8).add(offset as usize);
            std::ptr::copy_nonoverlapping(bytes.as_ptr(), dst, bytes.len());
        }
    }
}

/// Why a host-side memory operation failed.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum MemoryError {
    #[error("address range {address:#x}+{len} is not inside one allocation")]
    NotMapped { address: DeviceAddr, len: u64 },
    #[error("allocation of {0} bytes exceeds the emulator's limit")]
    TooLarge(u64),
    #[error("out of host memory for an allocation of {0} bytes")]
    OutOfMemory(u64),
}

/// `words` zeroed words, or [`MemoryError::OutOfMemory`] when the host cannot give them
/// (instead of aborting the process). The memory comes zeroed from the allocator
/// (`calloc`: untouched pages cost nothing until the kernel or a copy touches them).
fn zeroed_words(words: u64) -> Result<Box<[AtomicU64]>, MemoryError> {
    let oom = || MemoryError::OutOfMemory(words.saturating_mul(8));
    let n = usize::try_from(words).map_err(|_| oom())?;
    if n == 0 {
        return Ok(Box::new([]));
    }
    let layout = std::alloc::Layout::array::<AtomicU64>(n).map_err(|_| oom())?;
    // SAFETY: the layout's size is not zero (n > 0).
    let ptr = unsafe { std::alloc::alloc_zeroed(layout) }.cast::<AtomicU64>();
    if ptr.is_null() {
        return Err(oom());
    }
    // SAFETY: `ptr` comes from the global allocator with the layout of `[AtomicU64; n]`,
    // and all-zero bytes are a valid `AtomicU64`.
    Ok(unsafe { Box::from_raw(std::ptr::slice_from_raw_parts_mut(ptr, n)) })
}

/// The device's global memory: the allocations of the caller and of the program's
/// module-scope `.global` variables.
#[derive(Default)]
pub struct GlobalMemory {
    /// Sorted by base address.
    allocations: Vec<Allocation>,
    next: u64,
    /// Module-scope variables already placed, by name (they persist across launches, as
    /// they do on a GPU).
    symbols: HashMap<String, DeviceAddr>,
    /// Textures bound by handle (`crate::texture`).
    textures: crate::texture::Textures,
    /// The ranges host writes and kernels changed since [`GlobalMemory::take_written`]
    /// (a kernel's as the whole allocations it wrote, see [`GlobalMemory::note_kernel_ran`]),
    /// or `None` when any byte may have changed (an allocation came or went, too many
    /// ranges): what a caller that caches hashes of the contents must hash again.
    written: Option<Vec<(DeviceAddr, u64)>>,
    /// The device heap, once a launch that calls `malloc` or `free` placed it.
    heap: Option<crate::heap::Heap>,
    /// The heap's size when it is placed (`cudaLimitMallocHeapSize`).
    heap_limit: u64,
    /// Ranges known to hold one byte value throughout, recorded by
    /// [`GlobalMemory::note_filled`] (a memset), so that setting them to it again needs
    /// no look at the bytes (llm.c's benchmarks clear 50 MB before every launch). Kept
    /// under the rule `written` follows: a write logged there (host writes, and the
    /// allocations a kernel wrote) drops the records it overlaps, a free those inside,
    /// [`GlobalMemory::note_any_written`] all of them.
    fills: Vec<Fill>,
}

/// A range of one allocation known to hold `value` in every byte.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Fill {
    address: DeviceAddr,
    len: u64,
    value: u8,
}

/// The most ranges [`GlobalMemory::take_written`] keeps before saying "anything".
const MAX_WRITTEN_RANGES: usize = 4096;

/// The most filled ranges kept (the oldest is forgotten first).
const MAX_FILLS: usize = 64;

/// The largest single allocation (16 GiB).
pub const MAX_ALLOCATION: u64 = 16 << 30;

impl GlobalMemory {
    pub fn new() -> GlobalMemory {
        GlobalMemory {
            allocations: Vec::new(),
            next: GLOBAL_BASE,
            symbols: HashMap::new(),
            textures: crate::texture::Textures::default(),
            written: None,
            fills: Vec::new(),
            heap: None,
            heap_limit: crate::heap::DEFAULT_HEAP_SIZE,
        }
    }

    /// The device heap's size: the size it was placed with, or the one it will have.
    pub fn heap_limit(&self) -> u64 {
        self.heap.as_ref().map_or(self.heap_limit, |h| h.size())
    }

    /// Sets the size of the device heap (`cudaDeviceSetLimit(cudaLimitMallocHeapSize)`);
    /// fails with the size in place once a launch placed the heap, as the GPU refuses the
    /// change after a kernel that uses `malloc` ran.
    pub fn set_heap_limit(&mut self, bytes: u64) -> Result<(), u64> {
        match &self.heap {
            Some(h) => Err(h.size()),
            None => {
                self.heap_limit = bytes;
                Ok(())
            }
        }
    }

    /// The device heap, if placed.
    pub fn heap(&self) -> Option<&crate::heap::Heap> {
        self.heap.as_ref()
    }

    /// Places the device heap if it is not yet there: one uninitialised allocation of
    /// [`GlobalMemory::heap_limit`] bytes labelled `device heap` (see [`crate::heap`]).
    pub fn ensure_heap(&mut self) -> Result<DeviceAddr, MemoryError> {
        if let Some(h) = &self.heap {
            return Ok(h.base());
        }
        let size = self.heap_limit;
        let base = self.alloc_labeled(size, false, Some("device heap".to_string()))?;
        let i = self.allocations.partition_point(|a| a.base < base);
        self.allocations[i].heap = true;
        self.heap = Some(crate::heap::Heap::new(base, size));
        Ok(base)
    }

    /// The ranges host writes and kernels changed since the last call (then starts a new
    /// log), or `None` when any byte may have changed since: allocations changed, the log
    /// overflowed, or a caller said so ([`GlobalMemory::note_any_written`]).
    pub fn take_written(&mut self) -> Option<Vec<(DeviceAddr, u64)>> {
        self.written.replace(Vec::new())
    }

    /// Bytes in the ranges [`GlobalMemory::take_written`] would return, or `None`.
    pub fn written_bytes(&self) -> Option<u64> {
        self.written.as_ref().map(|w| w.iter().map(|r| r.1).sum())
    }

    /// Forgets the log: any byte may have changed (see [`GlobalMemory::take_written`]).
    pub fn note_any_written(&mut self) {
        self.written = None;
        self.fills.clear();
    }

    /// After a kernel ran: logs every allocation it stored into or changed with an
    /// atomic as written (see [`GlobalMemory::take_written`]), since it wrote through
    /// shared references that the log did not see.
    pub fn note_kernel_ran(&mut self) {
        let mut wrote = Vec::new();
        for a in &mut self.allocations {
            if std::mem::take(a.kernel_wrote.get_mut()) {
                wrote.push((a.base, a.size.max(1)));
            }
        }
        for (base, size) in wrote {
            self.log_write(base, size);
        }
    }

    /// Records that the `len` bytes at `address` were all just set to `value`.
    pub fn note_filled(&mut self, address: DeviceAddr, len: u64, value: u8) {
        self.drop_fills(address, len);
        if self.fills.len() == MAX_FILLS {
            self.fills.remove(0);
        }
        self.fills.push(Fill {
            address,
            len,
            value,
        });
    }

    /// Whether every one of the `len` bytes at `address` is known to hold `value` (from a
    /// [`GlobalMemory::note_filled`] record no write has touched since). `false` means
    /// "not known", not "differs".
    pub fn holds_fill(&self, address: DeviceAddr, len: u64, value: u8) -> bool {
        self.fills
            .iter()
            .any(|f| f.value == value && f.address <= address && address + len <= f.address + f.len)
    }

    /// Forgets the fill records that overlap `[address, address + len)`.
    fn drop_fills(&mut self, address: DeviceAddr, len: u64) {
        self.fills
            .retain(|f| f.address + f.len <= address || address + len <= f.address);
    }

    fn log_write(&mut self, address: DeviceAddr, len: u64) {
        self.drop_fills(address, len);
        if let Some(w) = &mut self.written {
            match w.last_mut() {
                Some(last) if last.0 + last.1 == address => last.1 += len,
                _ => w.push((address, len)),
            }
            if w.len() > MAX_WRITTEN_RANGES {
                self.written = None;
            }
        }
    }

    /// The textures bound in this memory.
    pub fn textures(&self) -> &crate::texture::Textures {
        &self.textures
    }

    /// The textures bound in this memory, to bind and unbind.
    pub fn textures_mut(&mut self) -> &mut crate::texture::Textures {
        &mut self.textures
    }

    /// Allocates `bytes` zeroed bytes (at least one) at a fresh 256-byte aligned address,
    /// after an unmapped gap. `initialized` records whether the caller considers the
    /// contents defined (it fills them before the launch).
    pub fn alloc(&mut self, bytes: u64, initialized: bool) -> Result<DeviceAddr, MemoryError> {
        self.alloc_labeled(bytes, initialized, None)
    }

    /// [`GlobalMemory::alloc`] with a name for reports.
    pub fn alloc_labeled(
        &mut self,
        bytes: u64,
        initialized: bool,
        label: Option<String>,
    ) -> Result<DeviceAddr, MemoryError> {
        self.written = None;
        if bytes > MAX_ALLOCATION {
            return Err(MemoryError::TooLarge(bytes));
        }
        if self.next == 0 {
            self.next = GLOBAL_BASE;
        }
        let base = self.next;
        let words = bytes.max(1).div_ceil(8);
        let data = zeroed_words(words)?;
        self.next = (base + bytes.max(1) + GUARD_GAP).div_ceil(ALLOC_ALIGN) * ALLOC_ALIGN;
        self.insert(Allocation {
            base,
            size: bytes,
            words: data,
            initialized,
            label,
            kernel_wrote: AtomicBool::new(false),
            heap: false,
        });
        Ok(base)
    }

    /// Inserts an allocation at its place in address order.
    fn insert(&mut self, allocation: Allocation) {
        let at = self
            .allocations
            .partition_point(|a| a.base < allocation.base);
        self.allocations.insert(at, allocation);
    }

    /// Allocates `bytes` zeroed bytes at exactly `base` (a 256-byte aligned global address
    /// chosen by the caller, e.g. to mirror host memory mapped at the same address). Fails
    /// with [`MemoryError::NotMapped`] when the range, with a guard gap on either side,
    /// meets another allocation or lies below [`GLOBAL_BASE`]. Later [`GlobalMemory::alloc`]
    /// calls never hand out addresses inside it.
    pub fn alloc_at(
        &mut self,
        base: DeviceAddr,
        bytes: u64,
        initialized: bool,
        label: Option<String>,
    ) -> Result<DeviceAddr, MemoryError> {
        self.written = None;
        if bytes > MAX_ALLOCATION {
            return Err(MemoryError::TooLarge(bytes));
        }
        let size = bytes.max(1);
        let clash = base < GLOBAL_BASE
            || !base.is_multiple_of(ALLOC_ALIGN)
            || self.allocations.iter().any(|a| {
                base < a.base + a.size.max(1) + GUARD_GAP && a.base < base + size + GUARD_GAP
            })
            || (self.next > base && self.next < base + size + GUARD_GAP);
        if clash {
            return Err(MemoryError::NotMapped {
                address: base,
                len: bytes,
            });
        }
        self.insert(Allocation {
            base,
            size: bytes,
            words: zeroed_words(size.div_ceil(8))?,
            initialized,
            label,
            kernel_wrote: AtomicBool::new(false),
            heap: false,
        });
        Ok(base)
    }

    /// Frees the allocation that starts at `address`: its range becomes unmapped for good
    /// (addresses are never handed out twice, so a later access through a stale pointer
    /// is out of bounds rather than into another buffer). Returns the freed size, or
    /// `None` when no allocation starts there.
    pub fn free(&mut self, address: DeviceAddr) -> Option<u64> {
        self.written = None;
        let i = self.allocations.partition_point(|a| a.base < address);
        let a = self.allocations.get(i)?;
        // The device heap is not the caller's to free.
        if a.base != address || a.heap {
            return None;
        }
        let a = self.allocations.remove(i);
        self.drop_fills(a.base, a.size.max(1));
        if a.label.is_some() {
            // Only module variables, which carry their names, are symbols.
            self.symbols.retain(|_, &mut s| s != address);
        }
        Some(a.size)
    }

    /// Writes bytes at `address` (inside one allocation).
    pub fn write(&mut self, address: DeviceAddr, bytes: &[u8]) -> Result<(), MemoryError> {
        let len = bytes.len() as u64;
        let err = MemoryError::NotMapped { address, len };
        let i = self
            .allocations
            .partition_point(|a| a.base <= address)
            .checked_sub(1)
            .ok_or(err.clone())?;
        let a = &mut self.allocations[i];
        if address - a.base >= a.size.max(1) || address - a.base + len > a.size {
            return Err(err);
        }
        let offset = address - a.base;
        a.write_bytes(offset, bytes);
        self.log_write(address, len);
        Ok(())
    }

    /// Reads `len` bytes at `address` (inside one allocation).
    pub fn read(&self, address: DeviceAddr, len: u64) -> Result<Vec<u8>, MemoryError> {
        let mut out = vec![0; len as usize];
        self.read_into(address, &mut out)?;
        Ok(out)
    }

    /// Reads `out.len()` bytes at `address` (inside one allocation) into `out`.
    pub fn read_into(&self, address: DeviceAddr, out: &mut [u8]) -> Result<(), MemoryError> {
        let a = self.find_range(address, out.len() as u64)?;
        a.read_bytes(address - a.base, out);
        Ok(())
    }

    /// All allocations in address order.
    pub fn allocations(&self) -> &[Allocation] {
        &self.allocations
    }

    /// Every allocation's base address and bytes, in address order, borrowed while no
    /// kernel runs (`&mut self` excludes a launch's atomic accesses).
    pub fn contents(&mut self) -> impl Iterator<Item = (DeviceAddr, &[u8])> {
        self.allocations.iter_mut().map(|a| {
            // SAFETY: `&mut` excludes every other access to the words; `AtomicU64` has
            // the layout of `u64`, so its bytes may be read as plain bytes; `size` is at
            // most the words' byte length.
            let bytes = unsafe {
                std::slice::from_raw_parts(a.words.as_ptr() as *const u8, a.size as usize)
            };
            (a.base, bytes)
        })
    }

    /// The allocation containing `address`.
    #[inline]
    pub fn allocation_at(&self, address: DeviceAddr) -> Option<&Allocation> {
        let i = self
            .allocations
            .partition_point(|a| a.base <= address)
            .checked_sub(1)?;
        let a = &self.allocations[i];
        (address - a.base < a.size.max(1)).then_some(a)
    }

    /// Index of the allocation containing `address`, for the executor's last-hit cache.
    #[inline]
    pub(crate) fn index_of(&self, address: DeviceAddr) -> Option<usize> {
        let i = self
            .allocations
            .partition_point(|a| a.base <= address)
            .checked_sub(1)?;
        let a = &self.allocations[i];
        (address - a.base < a.size).then_some(i)
    }

    #[inline]
    pub(crate) fn allocation(&self, index: usize) -> &Allocation {
        &self.allocations[index]
    }

    fn find_range(&self, address: DeviceAddr, len: u64) -> Result<&Allocation, MemoryError> {
        let err = MemoryError::NotMapped { address, len };
        let a = self.allocation_at(address).ok_or(err.clone())?;
        if address - a.base + len <= a.size {
            Ok(a)
        } else {
            Err(err)
        }
    }

    /// The address of a module-scope variable placed by an earlier launch.
    pub fn symbol(&self, name: &str) -> Option<DeviceAddr> {
        self.symbols.get(name).copied()
    }

    pub(crate) fn define_symbol(&mut self, name: &str, address: DeviceAddr) {
        self.symbols.insert(name.to_string(), address);
    }
}

/// Applies an `atom`/`red` operation (§9.7.12.5) to the old value `old` of type `ty`:
/// the new value, or `None` to leave memory unchanged. `b` and `c` are the operands (`c`
/// only for `cas`).
pub(crate) fn atomic_new_value(
    op: AtomOp,
    kind: AtomType,
    old: u64,
    b: u64,
    c: u64,
) -> Option<u64> {
    use AtomOp::*;
    Some(match (op, kind) {
        (And, _) => old & b,
        (Or, _) => old | b,
        (Xor, _) => old ^ b,
        (Exch, _) => b,
        (Cas, AtomType::U16) => {
            if old as u16 == b as u16 {
                c
            } else {
                return None;
            }
        }
        (Cas, AtomType::U32 | AtomType::S32 | AtomType::F32) => {
            if old as u32 == b as u32 {
                c
            } else {
                return None;
            }
        }
        (Cas, _) => {
            if old == b {
                c
            } else {
                return None;
            }
        }
        (Add, AtomType::U32 | AtomType::S32) => (old as u32).wrapping_add(b as u32) as u64,
        (Add, AtomType::U64 | AtomType::S64) => old.wrapping_add(b),
        (Add, AtomType::F32) => {
            (f32::from_bits(old as u32) + f32::from_bits(b as u32)).to_bits() as u64
        }
        (Add, AtomType::F64) => (f64::from_bits(old) + f64::from_bits(b)).to_bits(),
        (Add | Min | Max, AtomType::Bf16 | AtomType::F16x2 | AtomType::Bf16x2) => {
            half_lanes(op, kind, old, b)
        }
        (Add, AtomType::F16) => {
            let s =
                half::f16::from_bits(old as u16).to_f32() + half::f16::from_bits(b as u16).to_f32();
            half::f16::from_f32(s).to_bits() as u64
        }
        (Add, AtomType::U16) => (old as u16).wrapping_add(b as u16) as u64,
        (Inc, _) => {
            let (o, b) = (old as u32, b as u32);
            (if o >= b { 0 } else { o + 1 }) as u64
        }
        (Dec, _) => {
            let (o, b) = (old as u32, b as u32);
            (if o == 0 || o > b { b } else { o - 1 }) as u64
        }
        (Min, AtomType::U32) => (old as u32).min(b as u32) as u64,
        (Min, AtomType::S32) => (old as u32 as i32).min(b as u32 as i32) as u32 as u64,
        (Min, AtomType::U64) => old.min(b),
        (Min, AtomType::S64) => (old as i64).min(b as i64) as u64,
        (Max, AtomType::U32) => (old as u32).max(b as u32) as u64,
        (Max, AtomType::S32) => (old as u32 as i32).max(b as u32 as i32) as u32 as u64,
        (Max, AtomType::U64) => old.max(b),
        (Max, AtomType::S64) => (old as i64).max(b as i64) as u64,
        (Min | Max, AtomType::F32) => {
            let (x, y) = (f32::from_bits(old as u32), f32::from_bits(b as u32));
            (if op == Min { x.min(y) } else { x.max(y) }).to_bits() as u64
        }
        (Min | Max, AtomType::F64) => {
            let (x, y) = (f64::from_bits(old), f64::from_bits(b));
            (if op == Min { x.min(y) } else { x.max(y) }).to_bits()
        }
        (Min | Max, _) => {
            let (x, y) = (
                half::f16::from_bits(old as u16).to_f32(),
                half::f16::from_bits(b as u16).to_f32(),
            );
            half::f16::from_f32(if op == Min { x.min(y) } else { x.max(y) }).to_bits() as u64
        }
    })
}

/// `add`, `min` or `max` on each 16-bit float lane of a `.bf16`, `.f16x2` or `.bf16x2`
/// atomic (one lane for `.bf16`, two packed for the others, low half first), computed in
/// f32 and rounded to the nearest even: exact, since f32's 24 bits are at least twice a
/// half type's precision plus two, so the double rounding cannot differ from one. A NaN
/// result is the canonical `0x7fff` of either type, whatever the operands' NaNs were (as
/// an H200 gives: `tests/gpu-truth/half-atomics.txt`).
fn half_lanes(op: AtomOp, kind: AtomType, old: u64, b: u64) -> u64 {
    let brain = matches!(kind, AtomType::Bf16 | AtomType::Bf16x2);
    let lanes = if kind == AtomType::Bf16 { 1 } else { 2 };
    let widen = |h: u16| {
        if brain {
            half::bf16::from_bits(h).to_f32()
        } else {
            half::f16::from_bits(h).to_f32()
        }
    };
    let narrow = |f: f32| {
        if brain {
            half::bf16::from_f32(f).to_bits()
        } else {
            half::f16::from_f32(f).to_bits()
        }
    };
    let mut out = 0u64;
    for lane in 0..lanes {
        let (x, y) = (
            widen((old >> (16 * lane)) as u16),
            widen((b >> (16 * lane)) as u16),
        );
        let r = match op {
            AtomOp::Min => x.min(y),
            AtomOp::Max => x.max(y),
            _ => x + y,
        };
        let bits = if r.is_nan() { 0x7fff } else { narrow(r) };
        out |= u64::from(bits) << (16 * lane);
    }
    out
}

/// The value interpretation of an atomic's type.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum AtomType {
    U16,
    U32,
    S32,
    U64,
    S64,
    F16,
    F32,
    F64,
    Bf16,
    F16x2,
    Bf16x2,
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Host writes are logged (adjacent ones merged) for callers that cache hashes;
    /// anything a log cannot describe (allocations changing) makes it say "anything".
    /// A memset's record says the range holds its value until a host write overlaps
    /// it, a kernel runs or the allocation is freed.
    #[test]
    fn fill_records_last_until_the_bytes_may_have_changed() {
        let mut m = GlobalMemory::new();
        let a = m.alloc(4096, true).unwrap();
        m.note_filled(a, 4096, 0);
        assert!(m.holds_fill(a, 4096, 0) && m.holds_fill(a + 8, 8, 0));
        assert!(!m.holds_fill(a, 4096, 1), "another value");
        assert!(!m.holds_fill(a, 4097, 0), "past the record");
        m.write(a + 100, &[0]).unwrap();
        assert!(!m.holds_fill(a, 4096, 0), "a write drops what it overlaps");
        m.note_filled(a, 64, 7);
        m.note_filled(a + 64, 64, 7);
        m.write(a + 64, &[1]).unwrap();
        assert!(m.holds_fill(a, 64, 7) && !m.holds_fill(a + 64, 64, 7));
        m.note_any_written();
        assert!(!m.holds_fill(a, 64, 7), "any byte may have changed");
        m.note_filled(a, 64, 7);
        m.free(a);
        assert!(!m.holds_fill(a, 64, 7), "freed");
    }

    #[test]
    fn host_writes_are_logged_until_allocations_change() {
        let mut m = GlobalMemory::new();
        let a = m.alloc(4096, true).unwrap();
        assert_eq!(m.take_written(), None, "a new allocation: anything changed");
        m.write(a, &[1; 16]).unwrap();
        m.write(a + 16, &[2; 16]).unwrap();
        m.write(a + 100, &[3; 4]).unwrap();
        assert_eq!(m.written_bytes(), Some(36));
        assert_eq!(m.take_written(), Some(vec![(a, 32), (a + 100, 4)]));
        assert_eq!(m.take_written(), Some(vec![]));
        m.note_any_written();
        assert_eq!(m.take_written(), None);
        let b = m.alloc(64, true).unwrap();
        m.write(b, &[0; 8]).unwrap();
        assert_eq!(m.take_written(), None);
        m.free(b);
        assert_eq!(m.take_written(), None);
    }

    #[test]
    fn allocations_are_aligned_separated_and_never_null() {
        let mut m = GlobalMemory::new();
        let a = m.alloc(10, true).unwrap();
        let b = m.alloc(1000, true).unwrap();
        assert_ne!(a, 0);
        assert_eq!(a % ALLOC_ALIGN, 0);
        assert_eq!(b % ALLOC_ALIGN, 0);
        assert!(b >= a + 10 + GUARD_GAP);
        assert!(m.allocation_at(a + 10).is_none(), "the gap is unmapped");
        assert_eq!(m.allocation_at(b + 999).map(|x| x.base()), Some(b));
        assert!(m.allocation_at(b + 1000).is_none());
    }

    #[test]
    fn fixed_allocations_keep_address_order_and_freed_ranges_stay_unmapped() {
        let mut m = GlobalMemory::new();
        let high = GLOBAL_BASE + (1 << 39);
        assert_eq!(m.alloc_at(high, 100, true, None), Ok(high));
        let low = m.alloc(64, false).unwrap();
        assert!(low < high);
        let bases: Vec<u64> = m.allocations().iter().map(|a| a.base()).collect();
        assert_eq!(bases, vec![low, high], "sorted by address");
        assert_eq!(m.allocation_at(high + 99).map(|a| a.base()), Some(high));
        // Overlapping, too close (guard gap), below the window, misaligned: refused.
        assert!(m.alloc_at(high + 256, 8, true, None).is_err());
        assert!(m.alloc_at(high + 100 + 256, 8, true, None).is_err());
        assert!(m.alloc_at(ALLOC_ALIGN, 8, true, None).is_err());
        assert!(m.alloc_at(high + (1 << 20) + 8, 8, true, None).is_err());
        assert_eq!(m.free(low), Some(64));
        assert!(m.allocation_at(low).is_none());
        assert!(m.read(low, 4).is_err());
        assert_eq!(m.free(low), None, "a second free finds nothing");
        let next = m.alloc(64, false).unwrap();
        assert!(next > low, "addresses are never handed out twice");
    }

    #[test]
    fn host_reads_and_writes_round_trip() {
        let mut m = GlobalMemory::new();
        let a = m.alloc(16, true).unwrap();
        m.write(a + 3, &[1, 2, 3, 4, 5]).unwrap();
        assert_eq!(m.read(a + 2, 7).unwrap(), vec![0, 1, 2, 3, 4, 5, 0]);
        assert!(m.read(a + 10, 7).is_err());
        let alloc = m.allocation_at(a).unwrap();
        assert_eq!(alloc.load(4, 4), u32::from_le_bytes([2, 3, 4, 5]) as u64);
        alloc.store(8, 8, 0x0102_0304_0506_0708);
        assert_eq!(alloc.load(8, 2), 0x0708);
    }

    /// Host copies move whole words in the middle and single bytes at either end: every
    /// offset and length of a 40-byte allocation reads back what a byte array holds.
    #[test]
    fn host_copies_at_every_offset_and_length_match_a_byte_array() {
        let mut m = GlobalMemory::new();
        let a = m.alloc(40, true).unwrap();
        let mut model = [0u8; 40];
        let mut value = 1u8;
        for start in 0..40usize {
            for len in 0..=(40 - start) {
                let bytes: Vec<u8> = (0..len).map(|i| value.wrapping_add(i as u8)).collect();
                value = value.wrapping_add(7);
                m.write(a + start as u64, &bytes).unwrap();
                model[start..start + len].copy_from_slice(&bytes);
                let mut out = vec![0xAA; 40 - start];
                m.read_into(a + start as u64, &mut out).unwrap();
                assert_eq!(out, model[start..], "write of {len} at {start}");
            }
        }
        assert!(m.write(a + 39, &[1, 2]).is_err(), "past the end");
        assert!(
            m.write(a + 40 + GUARD_GAP, &[1]).is_err(),
            "in no allocation"
        );
    }

    #[test]
    fn frees_find_their_allocation_among_many() {
        let mut m = GlobalMemory::new();
        let bases: Vec<u64> = (0..100)
            .map(|i| m.alloc(8 * (i + 1), false).unwrap())
            .collect();
        for &b in bases.iter().step_by(2) {
            assert!(m.free(b).is_some());
        }
        assert_eq!(m.free(bases[0] + 8), None, "not the start of an allocation");
        for (i, &b) in bases.iter().enumerate() {
            assert_eq!(m.allocation_at(b).is_some(), i % 2 == 1, "allocation {i}");
        }
    }

    #[test]
    fn generic_windows_are_disjoint() {
        assert_eq!(resolve_generic(0), GenericTarget::None);
        assert_eq!(resolve_generic(LOCAL_WINDOW + 8), GenericTarget::Local(8));
        assert_eq!(resolve_generic(SHARED_WINDOW), GenericTarget::Shared(0));
        assert_eq!(resolve_generic(CONST_WINDOW + 4), GenericTarget::Const(4));
        assert_eq!(
            resolve_generic(GLOBAL_BASE + 4),
            GenericTarget::Global(GLOBAL_BASE + 4)
        );
        assert_eq!(
            resolve_generic(SHARED_WINDOW + WINDOW_SIZE),
            GenericTarget::None
        );
    }

    #[test]
    fn atomic_operations() {
        assert_eq!(
            atomic_new_value(AtomOp::Inc, AtomType::U32, 5, 5, 0),
            Some(0)
        );
        assert_eq!(
            atomic_new_value(AtomOp::Inc, AtomType::U32, 4, 5, 0),
            Some(5)
        );
        assert_eq!(
            atomic_new_value(AtomOp::Dec, AtomType::U32, 0, 7, 0),
            Some(7)
        );
        assert_eq!(
            atomic_new_value(AtomOp::Dec, AtomType::U32, 9, 7, 0),
            Some(7)
        );
        assert_eq!(
            atomic_new_value(AtomOp::Dec, AtomType::U32, 3, 7, 0),
            Some(2)
        );
        assert_eq!(
            atomic_new_value(AtomOp::Cas, AtomType::U32, 3, 3, 9),
            Some(9)
        );
        assert_eq!(atomic_new_value(AtomOp::Cas, AtomType::U32, 3, 4, 9), None);
        assert_eq!(
            atomic_new_value(AtomOp::Min, AtomType::S32, (-3i32) as u32 as u64, 2, 0),
            Some((-3i32) as u32 as u64)
        );
    }
}
