//! Memory errors: out-of-bounds and misaligned accesses, writes to read-only memory, wild
//! generic addresses, per-thread stack overflows and indirect calls to no function
//! (compute-sanitizer's memcheck).
//!
//! # Semantics
//!
//! An access is in bounds when all its bytes lie in one allocation of global memory, in
//! the block's shared memory (static and dynamic), in the thread's local stack, or in
//! constant or parameter memory; it is aligned when its address is a multiple of its size
//! (PTX ISA §5.4.5 requires natural alignment); a generic address must fall in one of the
//! state-space windows. Stores to constant and parameter memory are errors.
//!
//! # Algorithm
//!
//! The emulator has to check every access anyway to stay memory-safe itself, so it does
//! the whole check: the first offending lane of a warp-instruction stops its block with a
//! [`warpcheck_emu::Fault`] naming the access, the thread and the instruction, and the
//! other blocks run on (a GPU would abort the launch; the emulator reports one fault per
//! block). So this checker has no shadow state and observes nothing: it claims those
//! faults ([`Check::reports_fault`]), which makes the session report them while `mem` is
//! on ([`crate::Checker::fault_findings`], through [`crate::fault::finding`]): codes
//! `out-of-bounds`, `misaligned`, `read-only-write`, `stack-overflow`, `bad-call-target`.
//!
//! Device-side `malloc` blocks are buffers of their own (`warpcheck_emu::heap`): the
//! emulator checks every access to the device heap against its table of blocks, so an
//! access past a block's end is `out-of-bounds`, one into a freed block `use-after-free`,
//! and a device `free` of a freed block or of a pointer `malloc` did not return
//! `double-free` or `invalid-free`, each at the source line of the access or the call.

use warpcheck_emu::{FaultKind, Observer, ObserverFactory};

use crate::{Check, CheckOptions, LaunchCheck, LaunchInfo};

/// The memory checker over a session: nothing to keep, the faults are the run's.
#[derive(Default)]
pub struct MemState;

impl Check for MemState {
    type Launch<'s> = MemLaunch;
    type Block = MemBlock;

    fn new(_options: &CheckOptions) -> MemState {
        MemState
    }

    fn launch(&mut self, _info: &LaunchInfo, _seq: u64) -> MemLaunch {
        MemLaunch
    }

    fn reports_fault(kind: &FaultKind) -> bool {
        matches!(
            kind,
            FaultKind::OutOfBounds { .. }
                | FaultKind::BadGenericAddress { .. }
                | FaultKind::Misaligned { .. }
                | FaultKind::ReadOnly { .. }
                | FaultKind::StackOverflow { .. }
                | FaultKind::BadCallTarget { .. }
                | FaultKind::UnboundTexture { .. }
                | FaultKind::HeapOutOfBounds { .. }
                | FaultKind::HeapUseAfterFree { .. }
                | FaultKind::HeapDoubleFree { .. }
                | FaultKind::HeapInvalidFree { .. }
        )
    }
}

/// The memory checker over a launch.
pub struct MemLaunch;

impl LaunchCheck for MemLaunch {}

impl ObserverFactory for MemLaunch {
    type Observer = MemBlock;

    fn create(&self, _block: [u32; 3]) -> MemBlock {
        MemBlock
    }

    fn recycle(&self, _observer: &mut MemBlock, _block: [u32; 3]) {}

    fn merge(&mut self, _observers: &mut [([u32; 3], MemBlock)]) {}
}

/// The memory checker's observer of a block: every hook is the default no-op, which the
/// compiler removes from [`crate::Blocks`]' dispatch.
pub struct MemBlock;

impl Observer for MemBlock {}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Tools;

    #[test]
    fn memory_faults_are_reported_only_with_mem_and_others_as_before() {
        let oob = FaultKind::OutOfBounds {
            space: warpcheck_ir::modifiers::MemSpace::Global,
            address: 0x10,
            size: 4,
            is_write: false,
        };
        let deadlock = FaultKind::Deadlock {
            waiting: Vec::new(),
            exited: 0,
        };
        let race_only = Tools::parse("race").unwrap();
        assert!(!race_only.reports_fault(&oob));
        assert!(!race_only.reports_fault(&deadlock));
        // A trap stops the kernel whatever is checked.
        assert!(race_only.reports_fault(&FaultKind::Trap));
        let mem = Tools::parse("memcheck").unwrap();
        assert!(mem.reports_fault(&oob));
        assert!(!mem.reports_fault(&deadlock));
        assert!(Tools::parse("sync").unwrap().reports_fault(&deadlock));
    }
}
