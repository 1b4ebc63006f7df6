//! Memory accesses of the warp-level matrix instructions and `mbarrier` objects: one
//! 16-byte row of an 8x8 matrix of 16-bit elements (`ldmatrix`, `stmatrix`), and the
//! 8-byte `mbarrier` object, each checked for bounds and alignment like any access.

use super::MemCtx;
use crate::fault::FaultKind;
use warpcheck_ir::modifiers::MemSpace;

impl MemCtx<'_> {
    /// Reads the row of eight 16-bit elements at shared address `a` for `lane`.
    pub(crate) fn read_row(&mut self, a: u64, lane: u32) -> Result<[u16; 8], FaultKind> {
        self.check(MemSpace::Shared, a, 16, 16, false)?;
        let mut row = [0u16; 8];
        for (i, e) in row.iter_mut().enumerate() {
            *e = self.load_one(MemSpace::Shared, a + 2 * i as u64, 2, lane)? as u16;
        }
        Ok(row)
    }

    /// Writes a row of eight 16-bit elements at shared address `a` for `lane`.
    pub(crate) fn write_row(&mut self, a: u64, lane: u32, row: [u16; 8]) -> Result<(), FaultKind> {
        self.check(MemSpace::Shared, a, 16, 16, true)?;
        for (i, &e) in row.iter().enumerate() {
            self.store_one(MemSpace::Shared, a + 2 * i as u64, 2, lane, e as u64)?;
        }
        Ok(())
    }

    /// The shared-memory offset of the `mbarrier` object at `a` (in `space`, `.shared`
    /// or generic), checked for bounds and 8-byte alignment.
    pub(crate) fn mbarrier_at(&mut self, space: MemSpace, a: u64) -> Result<u64, FaultKind> {
        self.check(space, a, 8, 8, true)?;
        match self.resolve(space, a)? {
            (MemSpace::Shared, x) => Ok(x),
            (other, x) => Err(FaultKind::OutOfBounds {
                space: other,
                address: x,
                size: 8,
                is_write: true,
            }),
        }
    }

    /// The 8 bytes at shared offset `a` (checked by [`MemCtx::mbarrier_at`]).
    pub(crate) fn shared_word(&mut self, a: u64, lane: u32) -> Result<u64, FaultKind> {
        self.load_one(MemSpace::Shared, a, 8, lane)
    }

    pub(crate) fn set_shared_word(&mut self, a: u64, lane: u32, v: u64) -> Result<(), FaultKind> {
        self.store_one(MemSpace::Shared, a, 8, lane, v)
    }
}
