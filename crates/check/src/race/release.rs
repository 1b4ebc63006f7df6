//! Ordering between blocks by release and acquire through global memory: the pattern of
//! the CUDA Programming Guide's `__threadfence()` example and of NVIDIA's
//! `threadFenceReduction` sample (each block writes its partial result, fences, and takes
//! a ticket with an atomic; the block that draws the last ticket reads every partial
//! result).
//!
//! * A **release** is a strong write to global memory (an atomic, or a `.volatile`,
//!   `.relaxed` or `.release` store) by a thread that executed a fence at GPU or system
//!   scope (`__threadfence()`, `membar.gl`, `fence.sc.gpu`) earlier in the block. It
//!   publishes every access that happens before it in its block (by the block's clocks)
//!   to the released word.
//! * An **acquire** is a strong read of global memory (an atomic, or a strong load). It
//!   learns every release to the same word that the emulator executed before it: atomics
//!   on one word form a release sequence, and a load returns the latest store, so what it
//!   reads was written by the last of those releases or after it. Accesses that happen
//!   after the acquire in its block (by the block's clocks) are ordered after what those
//!   releases published.
//!
//! An access of one block and an access of another are then ordered when the first was
//! published by a release that the second's acquire learnt (or the other way round), and
//! the race checker does not report them. The PTX memory model asks for a fence after the
//! acquiring read too; the Programming Guide's example and the sample have a barrier
//! there, and this checker accepts either. A thread's accesses after its release in the
//! same interval between synchronisations are not published: the release starts a new
//! interval of its lane.
//!
//! Each block keeps at most [`MAX_SYNC`] releases and acquires (one per word and thread,
//! the latest): beyond that, later ones are not modelled and their orderings are missed
//! (a race may then be reported that these would have ordered).

/// The most releases, and the most acquires, a block keeps.
pub(super) const MAX_SYNC: usize = 32;

/// What a thread knew at its release: decides whether a recorded access of its block
/// happens before the release.
pub(super) struct View {
    pub(super) warp: usize,
    /// What the releasing warp knew of each warp's clock.
    pub(super) warp_row: Vec<u32>,
    /// What the releasing lane knew of each lane of its warp (independent scheduling).
    pub(super) lane_row: [u32; 32],
    /// The releasing warp's last full synchronisation snapshot.
    pub(super) full_sync: u32,
    /// The release's event: under lock-step warps, the warp's events up to it precede it.
    pub(super) event: u32,
}

/// A release: the word, its place in the launch's order of releases and acquires, and
/// the releasing thread's view.
pub(super) struct Release {
    pub(super) word: u64,
    pub(super) seq: u64,
    pub(super) thread: u32,
    pub(super) view: View,
}

/// An acquire: the word, its place in the launch's order, and its event reference
/// (`(event + 1) << 5 | lane`).
#[derive(Clone, Copy)]
pub(super) struct Acquire {
    pub(super) word: u64,
    pub(super) seq: u64,
    pub(super) thread: u32,
    pub(super) event: u32,
}

/// The synchronisation a summarised access takes part in: the releases it happens
/// before and the acquires that happen before it, as (word, sequence number).
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
pub(super) struct SyncSet {
    pub(super) released: Vec<(u64, u64)>,
    pub(super) acquired: Vec<(u64, u64)>,
}

impl SyncSet {
    pub(super) fn is_empty(&self) -> bool {
        self.released.is_empty() && self.acquired.is_empty()
    }
}

/// Whether an access with synchronisation `a` and one of another block with `b` are
/// ordered: one was published by a release the other's acquire learnt.
pub(super) fn ordered_between(a: &SyncSet, b: &SyncSet) -> bool {
    let learns = |x: &SyncSet, y: &SyncSet| {
        x.released
            .iter()
            .any(|&(word, s)| y.acquired.iter().any(|&(other, q)| other == word && s < q))
    };
    learns(a, b) || learns(b, a)
}

/// Adds `item` to `list` (at most [`MAX_SYNC`]), replacing the entry that `same` finds.
pub(super) fn keep_latest<T>(list: &mut Vec<T>, item: T, same: impl Fn(&T) -> bool) {
    match list.iter().position(same) {
        Some(i) => list[i] = item,
        None if list.len() < MAX_SYNC => list.push(item),
        None => {}
    }
}

/// Interns `set` in `sets` (index 0 is the empty set); returns its index.
pub(super) fn intern(
    sets: &mut Vec<SyncSet>,
    index: &mut rustc_hash::FxHashMap<SyncSet, u32>,
    set: SyncSet,
) -> u32 {
    if set.is_empty() {
        return 0;
    }
    if sets.is_empty() {
        sets.push(SyncSet::default());
    }
    let next = sets.len() as u32;
    let i = *index.entry(set.clone()).or_insert(next);
    if i == next {
        sets.push(set);
    }
    i
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_release_orders_only_acquires_of_its_word_that_come_after_it() {
        let released = SyncSet {
            released: vec![(0x100, 3)],
            acquired: vec![],
        };
        let later = SyncSet {
            released: vec![],
            acquired: vec![(0x100, 7)],
        };
        let earlier = SyncSet {
            released: vec![],
            acquired: vec![(0x100, 2)],
        };
        let other_word = SyncSet {
            released: vec![],
            acquired: vec![(0x104, 9)],
        };
        assert!(ordered_between(&released, &later));
        assert!(ordered_between(&later, &released));
        assert!(!ordered_between(&released, &earlier));
        assert!(!ordered_between(&released, &other_word));
        assert!(!ordered_between(&SyncSet::default(), &later));
    }

    #[test]
    fn lists_keep_the_latest_per_key_and_stay_bounded() {
        let mut list = Vec::new();
        for i in 0..100u64 {
            keep_latest(&mut list, (i % 40, i), |x: &(u64, u64)| x.0 == i % 40);
        }
        assert_eq!(list.len(), MAX_SYNC);
        assert!(list.contains(&(0, 80)));
    }
}
