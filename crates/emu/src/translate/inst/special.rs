//! Special registers: `%tid`, `%ntid`, `%laneid`, ... each get one slot per function
//! that the executor fills per thread; the clocks and timers are read only by `mov`,
//! into a dedicated op.

use warpcheck_ir::{Operand, SpecialOperand, SpecialReg};

use super::{InstCx, unsupported};
use crate::fault::EmuError;
use crate::ops::*;

impl InstCx<'_, '_> {
    /// Whether `s` is a clock or timer, which only `mov` may read.
    pub(super) fn is_clock(s: SpecialOperand) -> bool {
        matches!(
            s.reg,
            SpecialReg::Clock
                | SpecialReg::ClockHi
                | SpecialReg::Clock64
                | SpecialReg::GlobalTimer
                | SpecialReg::GlobalTimerLo
                | SpecialReg::GlobalTimerHi
        )
    }

    /// The slot of special register `s` (allocated on first use).
    pub(super) fn special(&mut self, s: SpecialOperand) -> Result<Slot, EmuError> {
        if Self::is_clock(s) {
            return unsupported(format!("{s} outside `mov`"));
        }
        if let Some(&slot) = self.t.specials.get(&s) {
            return Ok(slot);
        }
        let slot = self.t.nslots;
        self.t.nslots += 1;
        self.t.specials.insert(s, slot);
        Ok(slot)
    }

    /// `mov d, %clock` (and the 64-bit clock and the global timer).
    pub(super) fn clock(&mut self, s: SpecialOperand, d: &Operand) -> Result<OpKind, EmuError> {
        Ok(OpKind::Clock {
            d: self.dst(d)?,
            wide: matches!(s.reg, SpecialReg::Clock64 | SpecialReg::GlobalTimer),
        })
    }
}
