//! The device heap of in-kernel `malloc` and `free` (CUDA C++ Programming Guide,
//! "Dynamic Global Memory Allocation and Operations").
//!
//! # What the GPU promises, and what the emulator does
//!
//! * The heap is a fixed-size region of global memory, [`DEFAULT_HEAP_SIZE`] (8 MiB)
//!   unless the program asks for another size with
//!   `cudaDeviceSetLimit(cudaLimitMallocHeapSize, n)` before the first launch of a kernel
//!   that calls `malloc` or `free` (afterwards the call fails, as on the GPU), or kernel
//!   mode's `--malloc-heap SIZE`. It is placed in [`crate::GlobalMemory`] as one
//!   allocation (labelled `device heap`, contents uninitialised) by the first such launch
//!   and stays for the rest of the session: memory one launch allocates can be used and
//!   freed by a later one.
//! * `malloc(n)` returns a 16-byte aligned pointer to at least `n` bytes, or NULL when the
//!   heap has no room left. The Programming Guide does not say what `malloc(0)` returns;
//!   the emulator gives a distinct pointer to a block of no bytes (every access to it is
//!   out of bounds, freeing it is fine), as glibc does.
//! * `free(NULL)` does nothing (the Programming Guide: "the call to free() is ignored").
//!   Freeing a pointer twice, or a pointer `malloc` did not return, is undefined on the
//!   GPU; the emulator stops the block with a fault ([`crate::FaultKind::HeapDoubleFree`],
//!   [`crate::FaultKind::HeapInvalidFree`]).
//!
//! # Each block is a buffer of its own
//!
//! Every kernel access that lands in the heap allocation is checked against the table of
//! heap blocks: it must lie inside one live block. Blocks are [`HEAP_ALIGN`]-aligned and
//! followed by at least [`REDZONE`] bytes that belong to no block, so an access just past
//! the end of one block is out of bounds ([`crate::FaultKind::HeapOutOfBounds`]) rather
//! than in the next; an access into a freed block is a use after free
//! ([`crate::FaultKind::HeapUseAfterFree`]). To keep freed blocks recognisable as long as
//! possible, space is handed out from the never-used end of the heap first; only when
//! that is exhausted is freed space reused (first fit, lowest address), which forgets the
//! freed blocks it overlaps.
//!
//! # Determinism
//!
//! Blocks of a launch normally run in parallel on host threads, which would make the
//! order of `malloc` calls, and so the addresses they return, depend on scheduling. A
//! kernel that calls `malloc` or `free` ([`uses_heap`]) therefore runs its blocks one
//! after another in block order whatever `--threads` says (as order-sensitive kernels do
//! by default, see `translate/order.rs`); within a block the emulator's schedule is
//! deterministic, and the lanes of a warp allocate in lane order. The same input gives
//! the same addresses. Kernels that only read or write heap memory allocated earlier run
//! in parallel as usual: the block table is behind a read-write lock, and such kernels
//! only read it.

use std::collections::BTreeMap;
use std::sync::RwLock;

use warpcheck_ir::{FuncId, Operand, Program, Symbol};

use crate::memory::DeviceAddr;

/// The heap size when the program sets none (as on the GPU).
pub const DEFAULT_HEAP_SIZE: u64 = 8 << 20;
/// Alignment of the pointers `malloc` returns (the Programming Guide guarantees 16).
pub const HEAP_ALIGN: u64 = 16;
/// Bytes after each block that belong to no block.
pub const REDZONE: u64 = 16;

/// One block `malloc` returned.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct HeapBlock {
    size: u64,
    live: bool,
}

/// The heap's bookkeeping: blocks by offset, the free ranges, the never-used end.
#[derive(Default)]
struct Table {
    blocks: BTreeMap<u64, HeapBlock>,
    /// Freed ranges (offset to length), merged with their neighbours.
    free: BTreeMap<u64, u64>,
    /// The start of the never-used end of the heap.
    top: u64,
}

/// What an access to heap memory hits.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum HeapHit {
    /// Inside one live block.
    Live,
    /// Inside the freed block at `base` of `size` bytes.
    Freed { base: DeviceAddr, size: u64 },
    /// Inside no block; the nearest block below the address, if any.
    Outside { below: Option<(DeviceAddr, u64)> },
}

/// Why a `free` failed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FreeError {
    /// The block was freed already.
    Double { size: u64 },
    /// No block starts at the address.
    NotAllocated,
}

/// The device heap: its place in global memory and its block table.
pub struct Heap {
    base: DeviceAddr,
    size: u64,
    table: RwLock<Table>,
}

impl Heap {
    pub(crate) fn new(base: DeviceAddr, size: u64) -> Heap {
        Heap {
            base,
            size,
            table: RwLock::new(Table::default()),
        }
    }

    pub fn base(&self) -> DeviceAddr {
        self.base
    }

    pub fn size(&self) -> u64 {
        self.size
    }

    fn read(&self) -> std::sync::RwLockReadGuard<'_, Table> {
        self.table
            .read()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    fn write(&self) -> std::sync::RwLockWriteGuard<'_, Table> {
        self.table
            .write()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// `malloc(bytes)`: the block's address, or 0 (NULL) when the heap has no room.
    pub fn malloc(&self, bytes: u64) -> DeviceAddr {
        let Some(footprint) = bytes
            .checked_add(HEAP_ALIGN - 1)
            .map(|b| b / HEAP_ALIGN * HEAP_ALIGN + REDZONE)
        else {
            return 0;
        };
        let mut t = self.write();
        let offset = if self.size - t.top >= footprint {
            let o = t.top;
            t.top += footprint;
            o
        } else {
            let Some((&o, &len)) = t.free.iter().find(|&(_, &len)| len >= footprint) else {
                return 0;
            };
            t.free.remove(&o);
            if len > footprint {
                t.free.insert(o + footprint, len - footprint);
            }
            // The freed blocks that lay here are forgotten.
            let stale: Vec<u64> = t.blocks.range(o..o + footprint).map(|(&k, _)| k).collect();
            for k in stale {
                t.blocks.remove(&k);
            }
            o
        };
        let block = HeapBlock {
            size: bytes,
            live: true,
        };
        t.blocks.insert(offset, block);
        self.base + offset
    }

    /// `free(address)` for a non-null address; on success the block's size.
    pub fn free(&self, address: DeviceAddr) -> Result<u64, FreeError> {
        let offset = address.wrapping_sub(self.base);
        let mut t = self.write();
        let block = match t.blocks.get_mut(&offset) {
            Some(b) if b.live => b,
            Some(b) => return Err(FreeError::Double { size: b.size }),
            None => return Err(FreeError::NotAllocated),
        };
        block.live = false;
        let size = block.size;
        let footprint = size.div_ceil(HEAP_ALIGN) * HEAP_ALIGN + REDZONE;
        // Give the range back, merged with the free ranges on either side.
        let (mut start, mut len) = (offset, footprint);
        if let Some((&o, &l)) = t.free.range(..start).next_back()
            && o + l == start
        {
            t.free.remove(&o);
            start = o;
            len += l;
        }
        if let Some(l) = t.free.remove(&(offset + footprint)) {
            len += l;
        }
        t.free.insert(start, len);
        Ok(size)
    }

    /// What the `len`-byte access at `address` (inside the heap's allocation) hits.
    pub fn hit(&self, address: DeviceAddr, len: u64) -> HeapHit {
        let offset = address.wrapping_sub(self.base);
        let t = self.read();
        match t.blocks.range(..=offset).next_back() {
            Some((&o, b)) if offset - o < b.size && offset - o + len <= b.size => {
                if b.live {
                    HeapHit::Live
                } else {
                    HeapHit::Freed {
                        base: self.base + o,
                        size: b.size,
                    }
                }
            }
            Some((&o, b)) if !b.live && offset - o < b.size => HeapHit::Freed {
                base: self.base + o,
                size: b.size,
            },
            below => HeapHit::Outside {
                below: below.map(|(&o, b)| (self.base + o, b.size)),
            },
        }
    }

    /// Whether every `len`-byte access at `addresses` (lanes in `mask`) lies in one live
    /// block; the warp-wide check of the executor's fast path.
    pub(crate) fn all_live(&self, addresses: &[u64; 32], mask: u32, len: u64) -> bool {
        let t = self.read();
        let mut m = mask;
        // Lanes usually fall in one block: remember the last block hit.
        let mut last: Option<(u64, u64)> = None;
        while m != 0 {
            let l = m.trailing_zeros() as usize;
            m &= m - 1;
            let offset = addresses[l].wrapping_sub(self.base);
            if let Some((o, size)) = last
                && offset.wrapping_sub(o) < size
                && offset - o + len <= size
            {
                continue;
            }
            match t.blocks.range(..=offset).next_back() {
                Some((&o, b)) if b.live && offset - o < b.size && offset - o + len <= b.size => {
                    last = Some((o, b.size));
                }
                _ => return false,
            }
        }
        true
    }

    /// The live blocks, as (address, size), in address order.
    pub fn live_blocks(&self) -> Vec<(DeviceAddr, u64)> {
        self.read()
            .blocks
            .iter()
            .filter(|(_, b)| b.live)
            .map(|(&o, b)| (self.base + o, b.size))
            .collect()
    }
}

/// Whether `kernel`, or a function it can call, calls `malloc` or `free`.
pub fn uses_heap(program: &Program, kernel: FuncId) -> bool {
    let mut work = vec![kernel];
    let mut seen = std::collections::HashSet::new();
    while let Some(f) = work.pop() {
        if !seen.insert(f) {
            continue;
        }
        let func = program.function(f);
        let Some(body) = &func.body else {
            if is_heap_function(&func.name) {
                return true;
            }
            continue;
        };
        for op in &body.operands {
            match op {
                Operand::Func(g)
                | Operand::SymbolAddress {
                    symbol: Symbol::Func(g),
                    ..
                } => work.push(*g),
                _ => {}
            }
        }
    }
    false
}

/// The external functions the heap implements.
pub(crate) fn is_heap_function(name: &str) -> bool {
    matches!(name, "malloc" | "free")
}

#[cfg(test)]
mod tests {
    use super::*;

    const BASE: u64 = 0x7f00_0000_0000;

    #[test]
    fn blocks_are_aligned_apart_and_null_when_full() {
        let h = Heap::new(BASE, 256);
        let a = h.malloc(20);
        let b = h.malloc(1);
        assert_eq!(a, BASE);
        assert_eq!(b, BASE + 32 + REDZONE);
        assert_eq!(b % HEAP_ALIGN, 0);
        assert_eq!(h.hit(a + 16, 4), HeapHit::Live);
        assert_eq!(
            h.hit(a + 20, 4),
            HeapHit::Outside {
                below: Some((a, 20))
            }
        );
        assert_eq!(h.malloc(1000), 0);
    }

    #[test]
    fn freed_space_is_reused_only_when_the_top_is_exhausted() {
        let h = Heap::new(BASE, 96);
        let a = h.malloc(16);
        let b = h.malloc(16);
        let c = h.malloc(16);
        assert_eq!(h.free(a), Ok(16));
        assert_eq!(h.hit(a, 4), HeapHit::Freed { base: a, size: 16 });
        assert_eq!(h.free(a), Err(FreeError::Double { size: 16 }));
        assert_eq!(h.free(a + 4), Err(FreeError::NotAllocated));
        assert_eq!(h.free(b), Ok(16));
        // Top exhausted: the merged range of a and b is reused from its start.
        assert_eq!(h.malloc(40), a);
        assert_eq!(h.hit(c, 16), HeapHit::Live);
        assert_eq!(h.live_blocks(), vec![(a, 40), (c, 16)]);
    }

    #[test]
    fn zero_bytes_is_a_distinct_empty_block() {
        let h = Heap::new(BASE, 256);
        let a = h.malloc(0);
        let b = h.malloc(0);
        assert_ne!(a, 0);
        assert_ne!(a, b);
        assert!(matches!(h.hit(a, 1), HeapHit::Outside { .. }));
        assert_eq!(h.free(a), Ok(0));
    }
}
