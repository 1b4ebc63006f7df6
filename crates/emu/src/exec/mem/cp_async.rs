//! The data movement of `cp.async` (PTX ISA §9.7.8.24.3): each active lane copies
//! `cp_size` (4, 8 or 16) bytes from global to shared memory; when the optional
//! `src-size` operand is smaller, only that many bytes are read and the rest of the
//! destination is filled with zeros.
//!
//! The copy is performed when the instruction issues. The memory model lets the copy
//! complete at any moment before the `cp.async.wait_group`/`wait_all` that covers it, so
//! completing it at once is one legal execution; the block loop reports the shared-memory
//! write to the observers at the wait (see `crate::async_copy`), which is where other
//! threads may first rely on it.

use super::{LaneFault, MemCtx};
use crate::exec::Lanes;
use warpcheck_ir::modifiers::MemSpace;

impl MemCtx<'_> {
    /// Copies for every lane of `mask`: `src[l]` (global) to `dst[l]` (shared), `size`
    /// bytes, of which `src_sizes[l]` (all of them when `None`) are read from the source.
    /// Both addresses must be aligned to `size`. Faults name the first faulting lane.
    pub(crate) fn cp_async(
        &mut self,
        dst: &Lanes,
        src: &Lanes,
        size: u32,
        src_sizes: Option<&Lanes>,
        mask: u32,
    ) -> Result<(), LaneFault> {
        let mut m = mask;
        while m != 0 {
            let l = m.trailing_zeros();
            m &= m - 1;
            let read = src_sizes.map_or(size, |s| (s[l as usize] as u32).min(size));
            let (d, s) = (dst[l as usize], src[l as usize]);
            self.check(MemSpace::Shared, d, size, size, true)
                .map_err(|f| (l, f))?;
            if read > 0 {
                self.check(MemSpace::Global, s, read, size, false)
                    .map_err(|f| (l, f))?;
            }
            for b in 0..size {
                let v = if b < read {
                    self.load_one(MemSpace::Global, s + b as u64, 1, l)
                        .map_err(|f| (l, f))?
                } else {
                    0
                };
                self.store_one(MemSpace::Shared, d + b as u64, 1, l, v)
                    .map_err(|f| (l, f))?;
            }
        }
        Ok(())
    }
}
