//! Bookkeeping of a warp's asynchronous copies (`cp.async`, PTX ISA §9.7.8.24.3–5), for
//! the observers.
//!
//! The emulator copies the data when `cp.async` issues (one legal execution: the copy may
//! complete at any time before the wait that covers it). What a checker must see is
//! *when the program may rely on the shared-memory write*: at the
//! `cp.async.wait_group N` / `cp.async.wait_all` that completes its group. So each
//! issued copy is remembered here (its instruction, lanes, shared addresses and size),
//! `cp.async.commit_group` closes the open copies into a numbered group, and a wait
//! returns the copies it completes, whose writes the block loop then reports as stores
//! of the `cp.async` instruction.
//!
//! Groups are numbered per warp, not per thread: a commit by some lanes of a warp closes
//! every open copy of the warp that involves one of them, and a wait completes only the
//! waiting lanes' part of each copy.

use crate::exec::Lanes;

/// One issued copy whose write the observers have not seen yet.
#[derive(Clone, Debug)]
pub(crate) struct PendingCopy {
    /// The `cp.async` op.
    pub pc: u32,
    /// Shared-memory destination per lane.
    pub addrs: Lanes,
    /// Lanes whose write is still pending.
    pub lanes: u32,
    pub size: u32,
    /// The group it was committed to (`None`: not committed yet).
    group: Option<u32>,
}

/// A warp's pending asynchronous copies.
#[derive(Clone, Debug, Default)]
pub(crate) struct AsyncCopies {
    pending: Vec<PendingCopy>,
    next_group: u32,
}

impl AsyncCopies {
    /// `cp.async` issued by `lanes`.
    pub(crate) fn issue(&mut self, pc: u32, addrs: Lanes, lanes: u32, size: u32) {
        self.pending.push(PendingCopy {
            pc,
            addrs,
            lanes,
            size,
            group: None,
        });
    }

    /// `cp.async.commit_group` by `lanes`.
    pub(crate) fn commit(&mut self, lanes: u32) {
        let group = self.next_group;
        let mut any = false;
        for c in &mut self.pending {
            if c.group.is_none() && c.lanes & lanes != 0 {
                c.group = Some(group);
                any = true;
            }
        }
        if any {
            self.next_group += 1;
        }
    }

    /// `cp.async.wait_group n` (`Some(n)`) or `cp.async.wait_all` (`None`) by `lanes`:
    /// returns the copies it completes, restricted to `lanes`, in issue order.
    pub(crate) fn complete(&mut self, keep_newest: Option<u32>, lanes: u32) -> Vec<PendingCopy> {
        let threshold = match keep_newest {
            // Groups numbered below `next_group - n` complete.
            Some(n) => Some(self.next_group.saturating_sub(n)),
            None => None,
        };
        let mut done = Vec::new();
        for c in &mut self.pending {
            let completes = match (threshold, c.group) {
                (None, _) => true,
                (Some(t), Some(g)) => g < t,
                (Some(_), None) => false,
            };
            if completes && c.lanes & lanes != 0 {
                let mut part = c.clone();
                part.lanes &= lanes;
                c.lanes &= !lanes;
                done.push(part);
            }
        }
        self.pending.retain(|c| c.lanes != 0);
        done
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pcs(v: &[PendingCopy]) -> Vec<u32> {
        v.iter().map(|c| c.pc).collect()
    }

    #[test]
    fn wait_group_keeps_the_newest_groups_pending() {
        let mut a = AsyncCopies::default();
        a.issue(1, [0; 32], u32::MAX, 16);
        a.commit(u32::MAX);
        a.issue(2, [0; 32], u32::MAX, 16);
        a.commit(u32::MAX);
        a.issue(3, [0; 32], u32::MAX, 16); // not committed
        assert!(pcs(&a.complete(Some(2), u32::MAX)).is_empty());
        assert_eq!(pcs(&a.complete(Some(1), u32::MAX)), [1]);
        assert_eq!(pcs(&a.complete(Some(0), u32::MAX)), [2]);
        // Uncommitted copies are not covered by wait_group, only by wait_all.
        assert!(a.complete(Some(0), u32::MAX).is_empty());
        assert_eq!(pcs(&a.complete(None, u32::MAX)), [3]);
        assert!(a.complete(None, u32::MAX).is_empty());
    }

    #[test]
    fn a_wait_completes_only_the_waiting_lanes() {
        let mut a = AsyncCopies::default();
        a.issue(7, [0; 32], 0b1111, 4);
        a.commit(0b1111);
        let first = a.complete(Some(0), 0b0011);
        assert_eq!((first.len(), first[0].lanes), (1, 0b0011));
        let rest = a.complete(Some(0), u32::MAX);
        assert_eq!((rest.len(), rest[0].lanes), (1, 0b1100));
    }
}
