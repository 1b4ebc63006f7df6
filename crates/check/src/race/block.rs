//! The race checker's observer of one block: the event log, the block's shadows, the
//! per-lane check of each access against the unit's recorded accesses, and the summary of
//! the block's global accesses for the comparison between blocks.

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

use rustc_hash::FxHashMap as HashMap;

use warpcheck_emu::{BarrierEvent, MemEvent, MemKind, Observer, Stored, WarpSyncEvent};
use warpcheck_ir::modifiers::MemSpace;
use warpcheck_ir::{EntityRef, FuncId, InstId};

use super::clocks::Clocks;
use super::release::{Acquire, Release, SyncSet, View, intern, keep_latest};
use super::report::{Found, FoundKey, Values};
use super::shadow::{Cell, PAGE_WORDS, READ_SHARED, Second, Shadow, unit_mask};
use super::{Access, AccessKind};
use crate::{IntraWarp, Site};

/// One warp-instruction's memory event as the race checker remembers it.
#[derive(Clone, Copy, PartialEq, Eq)]
struct EventRecord {
    func: FuncId,
    inst: InstId,
    /// The warp's own warp-clock at the access.
    warp_clock: u32,
    /// The index of the snapshot of the warp's lane-clocks (independent scheduling).
    lane_snapshot: u32,
    warp: u16,
    kind: AccessKind,
    /// The acquires ordered before the event, as an index into `RaceBlock::acq_sets`
    /// (0: none).
    acquired: u8,
    /// A store that reported the values it stored (a `st`): the unit's stored bytes in
    /// the shadow are its own.
    valued: bool,
}

/// What a store stores at one unit of the shadow: its bytes there, in their place in
/// the word (`mask`), and the store's element that holds them (for messages).
#[derive(Clone, Copy)]
struct UnitStore {
    mask: u32,
    bytes: u32,
    element: u64,
}

impl UnitStore {
    /// Lane `l`'s store of `stored` at the unit of `len` bytes at `a`, `offset` bytes
    /// into the lane's access.
    #[inline(always)]
    fn of(stored: &Stored<'_>, l: usize, offset: u64, a: u64, len: u64) -> UnitStore {
        UnitStore {
            mask: unit_mask(a, len),
            bytes: stored.bytes(l, offset, len) << (8 * (a % 4)),
            element: stored.element_at(l, offset).0,
        }
    }

    /// Lane `l`'s store of an aligned word (`stored` of 4 bytes).
    #[inline(always)]
    fn word(stored: &Stored<'_>, l: usize) -> UnitStore {
        if stored.elem_size == 4 {
            let v = stored.elements[0][l] as u32;
            return UnitStore {
                mask: u32::MAX,
                bytes: v,
                element: v as u64,
            };
        }
        Self::of(stored, l, 0, 0, 4)
    }

    /// Records the store in the unit's word of stored bytes.
    #[inline(always)]
    fn apply(store: Option<UnitStore>, word: &mut u32) {
        if let Some(u) = store {
            *word = (*word & !u.mask) | u.bytes;
        }
    }
}

/// What a write-write occurrence stored: the earlier write's bytes at the unit (in their
/// place in the word; `None`: not known) and the later store's.
type Pair = (Option<u32>, Option<UnitStore>);

/// Event references are `(event + 1) << 5 | lane` below 2^31; `SUPERSEDED` (bit 31) marks a
/// write slot whose unit also has a superseded write (see `RaceBlock::superseded`).
const MAX_EVENTS: usize = (1 << 26) - 2;
const SUPERSEDED: u32 = 1 << 31;
/// Recent events remembered per warp for reuse (direct-mapped by instruction).
const RECENT: usize = 8;

/// The race checker's observer for one block.
pub struct RaceBlock {
    pub(super) block: [u32; 3],
    intra_warp: IntraWarp,
    clocks: Option<Clocks>,
    warps: u32,
    events: Vec<EventRecord>,
    /// Per warp, the last events of a few instructions (`RECENT` slots), for reuse.
    recent: Vec<u32>,
    /// Writes superseded by a later write of the same thread in the same synchronisation
    /// interval at another instruction, by (shared?, unit address), with the bytes they
    /// stored there (in their place in the word); `SUPERSEDED` in the unit's write slot
    /// says an entry is current. Sparse: one per such unit.
    superseded: HashMap<(bool, u64), (u32, u32)>,
    /// Per warp, the last few events found ordered before every lane of the warp (by a
    /// barrier or a whole-warp synchronisation). Clocks only grow, so an event once
    /// ordered before the warp stays ordered before all its later accesses: later lanes
    /// and later events of the warp skip the comparison with it.
    safe: Vec<[u32; 4]>,
    /// Boxed so that taking them out for an event moves a pointer.
    shared: Option<Box<Shadow>>,
    pub(super) global: Option<Box<Shadow>>,
    pub(super) found: Vec<Found>,
    pub(super) found_index: HashMap<FoundKey, usize>,
    pub(super) saturated: bool,
    /// After the block ended, its global shadow's references name `(site, kind)` pairs
    /// of this table (`(index + 1) << 10 | thread`), not the event log, which is cleared:
    /// the shadow is then the block's summary for the comparison between blocks, per unit
    /// one write and one read, kept until the launch merges it.
    pub(super) sites: Vec<(Site, AccessKind)>,
    site_index: HashMap<(Site, AccessKind, u32), u32>,
    /// Per entry of `sites`, whether it is a store that reported its values: the
    /// summary's stored bytes of its units are its own.
    pub(super) site_valued: Vec<bool>,
    /// Recycled for a block that has not started: cleared when it starts, on the host
    /// thread that runs it (see [`crate::Launch`]).
    stale: bool,
    /// Per warp, the lanes that executed a fence at GPU or system scope.
    fenced: Vec<u32>,
    /// The block's releases and acquires through global memory ([`super::release`]).
    releases: Vec<Release>,
    acquires: Vec<Acquire>,
    /// Sets of acquires (bit `i`: `acquires[i]`), `[0]` being none.
    acq_sets: Vec<u32>,
    /// The launch's order of releases and acquires.
    seq: Arc<AtomicU64>,
    /// Per entry of `sites`, its synchronisation as an index into `sync_sets` (0: none).
    pub(super) site_syncs: Vec<u32>,
    pub(super) sync_sets: Vec<SyncSet>,
    sync_index: HashMap<SyncSet, u32>,
}

/// Whether the recorded access `r` cannot race with the current access `me`: none, this
/// very access, or of an event found ordered before the whole warp (`safe`). A flagged
/// write (`SUPERSEDED` set) is never quiet: `r >> 5` is then above any event.
#[inline(always)]
fn is_quiet(r: u32, me: u32, safe: [u32; 4]) -> bool {
    let e = r >> 5;
    // Most likely first: the event the warp's previous lanes were ordered after.
    e == safe[0] || r == me || r == 0 || e == safe[1] || e == safe[2] || e == safe[3]
}

impl RaceBlock {
    pub(super) fn new(
        block: [u32; 3],
        intra_warp: IntraWarp,
        warps: u32,
        seq: Arc<AtomicU64>,
    ) -> RaceBlock {
        RaceBlock {
            block,
            intra_warp,
            clocks: None,
            warps,
            events: Vec::new(),
            recent: Vec::new(),
            superseded: HashMap::default(),
            safe: Vec::new(),
            shared: Some(Box::new(Shadow::dense())),
            global: Some(Box::new(Shadow::default())),
            found: Vec::new(),
            found_index: HashMap::default(),
            saturated: false,
            sites: Vec::new(),
            site_index: HashMap::default(),
            site_valued: Vec::new(),
            stale: false,
            fenced: Vec::new(),
            releases: Vec::new(),
            acquires: Vec::new(),
            acq_sets: vec![0],
            seq,
            site_syncs: Vec::new(),
            sync_sets: Vec::new(),
            sync_index: HashMap::default(),
        }
    }

    /// Makes a merged observer watch `block`, keeping its allocations: only the block's
    /// identity is set here, the rest is cleared when the block starts
    /// ([`Observer::on_block_start`]).
    pub(super) fn renew(
        &mut self,
        block: [u32; 3],
        intra_warp: IntraWarp,
        warps: u32,
        seq: &Arc<AtomicU64>,
    ) {
        if !Arc::ptr_eq(&self.seq, seq) {
            self.seq = Arc::clone(seq);
        }
        self.block = block;
        self.intra_warp = intra_warp;
        self.warps = warps;
        self.stale = true;
    }

    fn decode(&self, r: u32) -> (&EventRecord, u32) {
        (&self.events[(r >> 5) as usize - 1], r & 31)
    }

    /// Whether the access recorded as `r` happens before the current access by lane `l`
    /// of warp `w` (whose event is `current`).
    fn ordered(&self, r: u32, w: usize, l: usize, current: u32) -> bool {
        let (e, k) = self.decode(r);
        let Some(clocks) = &self.clocks else {
            return true;
        };
        let v = e.warp as usize;
        if v != w {
            return e.warp_clock <= clocks.knows_warp(w, v);
        }
        match self.intra_warp {
            IntraWarp::LockStep => (r >> 5) != current,
            IntraWarp::Independent => {
                if e.lane_snapshot < clocks.full_sync[w] {
                    return true;
                }
                let lane_clock = clocks.snapshots[e.lane_snapshot as usize][k as usize];
                lane_clock <= clocks.knows_lane(w, l, k as usize)
            }
        }
    }

    pub(super) fn access_of(&self, r: u32) -> Access {
        let (e, k) = self.decode(r);
        Access {
            site: (e.func, e.inst),
            kind: e.kind,
            block: self.block,
            thread: e.warp as u32 * 32 + k,
        }
    }

    /// [`visit`](Self::visit)'s outcome when nothing can race, decided inline: the
    /// recorded accesses the current one would be compared with are none, its own, or of
    /// an event already found ordered before its whole warp (`safe`), and
    /// no superseded write is kept for the unit. Then the access only takes its place in
    /// the cell, exactly as `visit` would leave it. Most accesses of a race-free kernel
    /// end here (a warp's second and later lanes once the first found the earlier event
    /// ordered), without the call and the event-log look-ups of `visit`.
    ///
    /// A read also ends here when the unit already holds two reads (the read and the
    /// second) of this very warp-instruction by other lanes: a later write by either of
    /// them meets the other, and a write by this lane or another warp meets both, so
    /// a third lane of a broadcast read (a tile element every thread of a row reads) adds
    /// nothing.
    ///
    /// A write also records what it stores (`store`) in the unit's word of stored bytes
    /// (`values`).
    #[inline(always)]
    #[allow(clippy::too_many_arguments)]
    fn visit_quiet(
        cell: &mut Cell,
        second: &Second<'_>,
        me: u32,
        safe: [u32; 4],
        write: bool,
        values: &mut u32,
        store: Option<UnitStore>,
    ) -> bool {
        let quiet = |r: u32| is_quiet(r, me, safe);
        if write {
            // `visit` keeps an overwritten write as superseded only if it is the same
            // thread's in the same synchronisation interval, never one ordered before the
            // whole warp.
            if quiet(cell.write) && quiet(cell.read) {
                cell.write = me;
                UnitStore::apply(store, values);
                return true;
            }
        } else if quiet(cell.write) {
            if quiet(cell.read) {
                // The recorded read (none, or ordered before the whole warp) is subsumed
                // by this one; a read of another thread that may be unordered goes to
                // `visit`, which keeps both.
                cell.read = me;
                return true;
            }
            let event = me >> 5;
            if cell.read & READ_SHARED != 0
                && (cell.read & !READ_SHARED) >> 5 == event
                && second.get() >> 5 == event
            {
                return true;
            }
        }
        false
    }

    /// [`visit`](Self::visit)'s outcome for a strong access (an atomic, a volatile or
    /// relaxed access) over another thread's strong write, decided with one look-up of the
    /// recorded write's kind: strong accesses never race with each other, so unless a
    /// read recorded for the unit may race with it, the access only takes its place in
    /// the cell, as `visit` would leave it (no superseded write is kept for another
    /// thread's write). Contended atomics (a histogram's shared bins) end here instead
    /// of in `visit` for every lane.
    #[inline(always)]
    #[allow(clippy::too_many_arguments)]
    fn visit_strong_quiet(
        events: &[EventRecord],
        (cell, values): (&mut Cell, &mut u32),
        me: u32,
        safe: [u32; 4],
        (w, l): (usize, usize),
        kind: AccessKind,
        store: Option<UnitStore>,
    ) -> bool {
        let r = cell.write;
        if r & SUPERSEDED != 0 || r == 0 {
            return false;
        }
        let Some(e) = events.get((r >> 5) as usize - 1) else {
            return false;
        };
        if e.kind.conflicts(kind) || (e.warp as usize == w && (r & 31) as usize == l) {
            return false;
        }
        if is_quiet(cell.read, me, safe) {
            if !kind.is_write() {
                cell.read = me;
                return true;
            }
            cell.write = me;
            UnitStore::apply(store, values);
            return true;
        }
        false
    }

    /// Checks the current access against a unit's recorded write and (for writes) read,
    /// then records it, and what a write stores (`store`) in the unit's word of stored
    /// bytes (`values`): a write-write race is compared by value with the bytes the
    /// recorded write stored there, which are those just before the current one landed.
    #[allow(clippy::too_many_arguments)]
    #[inline(never)]
    fn visit(
        &mut self,
        space: MemSpace,
        (cell, mut second, values): (&mut Cell, Second<'_>, &mut u32),
        me: u32,
        w: usize,
        l: usize,
        event: u32,
        kind: AccessKind,
        address: u64,
        store: Option<UnitStore>,
    ) {
        // Cheap filters first: nothing recorded, this very access, or kinds that cannot
        // race (two reads, two strong accesses).
        let may_race = |r: u32, this: &Self| {
            r != 0
                && r != me
                && !this.safe.get(w).is_some_and(|s| s.contains(&(r >> 5)))
                && this.events[(r >> 5) as usize - 1].kind.conflicts(kind)
        };
        let flagged = cell.write & SUPERSEDED != 0;
        let last_write = cell.write & !SUPERSEDED;
        let before = |word: u32| store.map(|u| word & u.mask);
        let mut raced = may_race(last_write, self)
            && self.check(
                space,
                last_write,
                me,
                (w, l, event),
                kind,
                address,
                (before(*values), store),
            );
        let key = (space == MemSpace::Shared, address);
        if flagged
            && let Some(&(old, word)) = self.superseded.get(&key)
            && may_race(old, self)
        {
            raced |= self.check(
                space,
                old,
                me,
                (w, l, event),
                kind,
                address,
                (before(word), store),
            );
        }
        let read = cell.read & !READ_SHARED;
        let second_read = if cell.read & READ_SHARED != 0 {
            second.get()
        } else {
            0
        };
        if kind.is_write() {
            // One race per access is enough: the first recorded read that races.
            for r in [read, second_read] {
                if !raced && may_race(r, self) {
                    raced = self.check(space, r, me, (w, l, event), kind, address, (None, None));
                }
            }
            // A thread overwriting its own write of the same interval at another
            // instruction: keep the first write too, it may race with another thread's
            // later access (the root clear of a Blelloch scan, then its own down-sweep).
            let mut flag = 0;
            if last_write != 0 && last_write != me {
                let (old, k) = self.decode(last_write);
                let cur = &self.events[event as usize - 1];
                let same_thread = old.warp as usize == w && k as usize == l;
                if same_thread
                    && (old.func, old.inst) != (cur.func, cur.inst)
                    && old.warp_clock == cur.warp_clock
                    && old.lane_snapshot == cur.lane_snapshot
                {
                    // Keep the latest superseded write (one per unit) and what it stored.
                    self.superseded.insert(key, (last_write, *values));
                    flag = SUPERSEDED;
                } else if same_thread && flagged {
                    flag = SUPERSEDED;
                }
            }
            cell.write = me | flag;
            UnitStore::apply(store, values);
        } else {
            let other = self.read_to_keep(read, second_read, me, w, l, event);
            cell.read = if other != 0 && second.set(other) {
                me | READ_SHARED
            } else {
                me
            };
        }
    }

    /// The read to keep beside a new read `me` by lane `l` of warp `w`, of the unit's
    /// recorded reads `read` and `second` (0 = none): a read that happens before `me`
    /// (the same thread's, or ordered by synchronisation) is subsumed by it, since every
    /// write unordered with it is unordered with `me` too (FastTrack's read epochs); of
    /// two unordered reads of other threads, the one of another warp is kept, else the
    /// later one. So a write meets a read of another thread that nothing orders before
    /// it whenever one exists, unless three or more threads read unordered and a
    /// synchronisation of part of the block (`__syncwarp`, a named barrier with a count)
    /// then orders the two kept reads, but not the forgotten one, before the write.
    fn read_to_keep(
        &mut self,
        read: u32,
        second: u32,
        me: u32,
        w: usize,
        l: usize,
        event: u32,
    ) -> u32 {
        let keep_read = self.read_unordered(read, me, w, l, event);
        let keep_second = self.read_unordered(second, me, w, l, event);
        match (keep_read, keep_second) {
            (true, true) => {
                if self.decode(read).0.warp as usize == w
                    && self.decode(second).0.warp as usize != w
                {
                    second
                } else {
                    read
                }
            }
            (true, false) => read,
            (false, true) => second,
            (false, false) => 0,
        }
    }

    /// Whether the recorded read `r` is another thread's that nothing orders before the
    /// current access by lane `l` of warp `w`. As in [`Self::check`], a read found ordered
    /// before the whole warp joins the warp's `safe` events, so that the warp's other
    /// lanes replace it inline ([`Self::visit_quiet`]).
    fn read_unordered(&mut self, r: u32, me: u32, w: usize, l: usize, event: u32) -> bool {
        if r == 0 || r == me {
            return false;
        }
        let (e, k) = self.decode(r);
        let e = *e;
        let other_warp = e.warp as usize != w;
        if (!other_warp && k as usize == l)
            || self.safe.get(w).is_some_and(|s| s.contains(&(r >> 5)))
        {
            return false;
        }
        if !self.ordered(r, w, l, event) {
            return true;
        }
        let whole_warp = other_warp
            || self
                .clocks
                .as_ref()
                .is_some_and(|c| e.lane_snapshot < c.full_sync[w]);
        if whole_warp && let Some(s) = self.safe.get_mut(w) {
            *s = [r >> 5, s[0], s[1], s[2]];
        }
        false
    }

    /// Reports a race between the recorded access `prev` and the current one by lane `l`
    /// of warp `w` (event `event`) if they conflict and are unordered; `pair`: what a
    /// write-write occurrence stored.
    #[allow(clippy::too_many_arguments)]
    fn check(
        &mut self,
        space: MemSpace,
        prev: u32,
        me: u32,
        (w, l, event): (usize, usize, u32),
        kind: AccessKind,
        address: u64,
        pair: Pair,
    ) -> bool {
        let (e, k) = self.decode(prev);
        let valued = e.valued;
        let other_warp = e.warp as usize != w;
        let same_thread = !other_warp && k as usize == l;
        if !same_thread && !e.kind.conflicts(kind) {
            return false;
        }
        // A thread's own earlier access never races with it, but may still be ordered
        // before the whole warp, which spares the other lanes the comparison.
        if same_thread || self.ordered(prev, w, l, event) {
            let whole_warp = other_warp
                || self
                    .clocks
                    .as_ref()
                    .is_some_and(|c| e.lane_snapshot < c.full_sync[w]);
            if whole_warp {
                // Every lane of the current warp is ordered after that event, now and from
                // now on (clocks only grow): remember it for the other lanes and events.
                if let Some(s) = self.safe.get_mut(w) {
                    *s = [prev >> 5, s[0], s[1], s[2]];
                }
            }
            return false;
        }
        let values = match pair {
            (Some(before), Some(u)) if valued => {
                let shift = u.mask.trailing_zeros();
                Values::of(Some(before >> shift), Some(u.bytes >> shift), u.element)
            }
            _ => Values::Unknown,
        };
        self.report(space, prev, me, address, values);
        true
    }

    /// Ends the block: the global shadow's references are rewritten in place to name
    /// `(site, kind)` pairs of `sites` and threads (the summary the launch compares between
    /// blocks, without copying it), and the rest is cleared, kept allocated for recycling.
    fn summarise(&mut self) {
        self.sites.clear();
        self.site_valued.clear();
        self.site_index.clear();
        self.site_syncs.clear();
        self.sync_sets.clear();
        self.sync_index.clear();
        let syncs = !self.releases.is_empty() || !self.acquires.is_empty();
        if let Some(mut global) = self.global.take() {
            let mut last: Option<((Site, AccessKind, u32), u32)> = None;
            global.for_each_cell_mut(|cell| {
                for r in [&mut cell.write, &mut cell.read] {
                    if *r == 0 {
                        continue;
                    }
                    let (e, lane) = self.decode(*r & !SUPERSEDED);
                    let (site, kind, warp, valued) = ((e.func, e.inst), e.kind, e.warp, e.valued);
                    let sync = if syncs {
                        self.sync_of(*r & !SUPERSEDED)
                    } else {
                        0
                    };
                    let key = (site, kind, sync);
                    let thread = warp as u32 * 32 + lane;
                    let index = match last {
                        Some((k, i)) if k == key => i,
                        _ => {
                            let next = self.sites.len() as u32;
                            let i = *self.site_index.entry(key).or_insert(next);
                            if i == next {
                                self.sites.push((site, kind));
                                self.site_syncs.push(sync);
                                self.site_valued.push(valued);
                            }
                            last = Some((key, i));
                            i
                        }
                    };
                    *r = (index + 1) << 10 | thread;
                }
            });
            self.global = Some(global);
        }
        if let Some(shared) = &mut self.shared {
            shared.clear();
        }
        self.events.clear();
        self.recent.clear();
        self.superseded.clear();
    }

    /// The synchronisation of the recorded access `r`: the block's releases it happens
    /// before and the acquires that happen before it, interned in `sync_sets`.
    fn sync_of(&mut self, r: u32) -> u32 {
        let (e, _) = self.decode(r);
        let released = self
            .releases
            .iter()
            .filter(|x| self.before_release(r, &x.view))
            .map(|x| (x.word, x.seq))
            .collect();
        let mask = self.acq_sets[e.acquired as usize];
        let acquired = (self.acquires.iter().enumerate())
            .filter(|(i, _)| mask >> i & 1 == 1)
            .map(|(_, a)| (a.word, a.seq))
            .collect();
        let set = SyncSet { released, acquired };
        intern(&mut self.sync_sets, &mut self.sync_index, set)
    }

    /// Whether the recorded access `r` happens before a release made with `view`.
    fn before_release(&self, r: u32, view: &View) -> bool {
        let (e, k) = self.decode(r);
        let v = e.warp as usize;
        if v != view.warp {
            return e.warp_clock <= view.warp_row.get(v).copied().unwrap_or(0);
        }
        match (self.intra_warp, &self.clocks) {
            (IntraWarp::LockStep, _) => r >> 5 <= view.event,
            (IntraWarp::Independent, Some(clocks)) => {
                e.lane_snapshot < view.full_sync
                    || clocks.snapshots[e.lane_snapshot as usize][k as usize]
                        <= view.lane_row[k as usize]
            }
            (IntraWarp::Independent, None) => false,
        }
    }

    /// The acquires ordered before the current access of `lanes` of warp `w`, as an
    /// index into `acq_sets` (those ordered before every lane; 0 when none or too many
    /// sets).
    fn acquired_index(&mut self, w: usize, lanes: u32) -> u8 {
        let mut mask = u32::MAX;
        let mut rest = lanes;
        while rest != 0 {
            let l = rest.trailing_zeros() as usize;
            rest &= rest - 1;
            let mut m = 0u32;
            for (i, a) in self.acquires.iter().enumerate() {
                if self.ordered(a.event, w, l, 0) {
                    m |= 1 << i;
                }
            }
            mask &= m;
        }
        if mask == 0 || lanes == 0 {
            return 0;
        }
        match self.acq_sets.iter().position(|&s| s == mask) {
            Some(i) => i as u8,
            None if self.acq_sets.len() < 256 => {
                self.acq_sets.push(mask);
                (self.acq_sets.len() - 1) as u8
            }
            None => 0,
        }
    }

    /// Notes the releases and acquires of a strong global access (event reference base
    /// `event`, see [`super::release`]).
    fn note_sync(&mut self, e: &MemEvent<'_>, w: usize, event: u32, kind: AccessKind) {
        let fenced = self.fenced.get(w).copied().unwrap_or(0) & e.lanes;
        if kind.is_write() && fenced != 0 {
            let mut lanes = fenced;
            while lanes != 0 {
                let l = lanes.trailing_zeros() as usize;
                lanes &= lanes - 1;
                let Some(clocks) = &mut self.clocks else {
                    return;
                };
                let view = View {
                    warp: w,
                    warp_row: clocks.warp_row(w).to_vec(),
                    lane_row: std::array::from_fn(|k| clocks.knows_lane(w, l, k)),
                    full_sync: clocks.full_sync.get(w).copied().unwrap_or(0),
                    event,
                };
                // The lane's later accesses are not published by this release.
                clocks.sync_lanes(w, 1 << l);
                let release = Release {
                    word: e.addresses[l] & !3,
                    seq: self.seq.fetch_add(1, Ordering::Relaxed),
                    thread: (w * 32 + l) as u32,
                    view,
                };
                let (word, thread) = (release.word, release.thread);
                keep_latest(&mut self.releases, release, |x| {
                    x.word == word && x.thread == thread
                });
            }
        }
        if !kind.is_write() || kind.is_atomic() {
            let mut lanes = e.lanes;
            while lanes != 0 {
                let l = lanes.trailing_zeros() as usize;
                lanes &= lanes - 1;
                let (word, thread) = (e.addresses[l] & !3, (w * 32 + l) as u32);
                let acquire = Acquire {
                    word,
                    seq: self.seq.fetch_add(1, Ordering::Relaxed),
                    thread,
                    event: event << 5 | l as u32,
                };
                keep_latest(&mut self.acquires, acquire, |x| {
                    x.word == word && x.thread == thread
                });
            }
        }
    }

    /// Whether the summarised global-shadow reference `r` is a store that reported its
    /// values.
    pub(super) fn summarised_valued(&self, r: u32) -> bool {
        r != 0 && self.site_valued[(r >> 10) as usize - 1]
    }

    /// The access a summarised global-shadow reference names.
    pub(super) fn summarised(&self, r: u32) -> Option<Access> {
        (r != 0).then(|| {
            let (site, kind) = self.sites[(r >> 10) as usize - 1];
            Access {
                site,
                kind,
                block: self.block,
                thread: r & 1023,
            }
        })
    }
}

impl Observer for RaceBlock {
    fn on_block_start(&mut self, _block: [u32; 3], threads: u32) {
        if std::mem::take(&mut self.stale) {
            self.events.clear();
            self.superseded.clear();
            for (shadow, dense) in [(&mut self.shared, true), (&mut self.global, false)] {
                match shadow {
                    Some(s) => s.clear(),
                    None if dense => *shadow = Some(Box::new(Shadow::dense())),
                    None => *shadow = Some(Box::default()),
                }
            }
            self.found.clear();
            self.found_index.clear();
            self.saturated = false;
            self.sites.clear();
            self.site_index.clear();
            self.site_valued.clear();
            self.site_syncs.clear();
            self.sync_sets.clear();
            self.sync_index.clear();
        }
        self.warps = threads.div_ceil(32);
        self.fenced.clear();
        self.fenced.resize(self.warps as usize, 0);
        self.releases.clear();
        self.acquires.clear();
        self.acq_sets.truncate(1);
        self.recent.clear();
        self.recent.resize(self.warps as usize * RECENT, 0);
        self.safe.clear();
        self.safe.resize(self.warps as usize, [0; 4]);
        let mut clocks = Clocks::new(
            self.warps as usize,
            self.intra_warp == IntraWarp::Independent,
        );
        if !threads.is_multiple_of(32)
            && let Some(last) = clocks.live.last_mut()
        {
            *last = (1u32 << (threads % 32)) - 1;
        }
        self.clocks = Some(clocks);
    }

    #[inline(always)]
    fn on_memory(&mut self, e: &MemEvent<'_>) {
        if self.saturated || !matches!(e.space, MemSpace::Shared | MemSpace::Global) {
            return;
        }
        if self.clocks.is_none() {
            return;
        }
        if self.events.len() + 1 >= MAX_EVENTS {
            self.saturated = true;
            return;
        }
        let w = e.warp as usize;
        let kind = AccessKind::of(e.kind, e.ordered);
        let global = e.space == MemSpace::Global;
        let acquired = if global && !self.acquires.is_empty() {
            self.acquired_index(w, e.lanes)
        } else {
            0
        };
        let Some(clocks) = &self.clocks else { return };
        let record = EventRecord {
            func: e.func,
            inst: e.inst,
            warp_clock: clocks.own(w),
            lane_snapshot: clocks.lane_snapshot.get(w).copied().unwrap_or(0),
            warp: e.warp as u16,
            kind,
            acquired,
            valued: e.values.is_some(),
        };
        // Under independent scheduling an event is only its site, warp, kind and clocks,
        // so a loop re-executing an instruction between two synchronisations reuses the
        // record (lock-step needs distinct executions: lanes of one execution race).
        let slot = w * RECENT + e.inst.index() % RECENT;
        let event = match self.recent.get(slot).copied() {
            Some(r)
                if r != 0
                    && self.intra_warp == IntraWarp::Independent
                    && self.events[r as usize - 1] == record =>
            {
                r
            }
            _ => {
                self.events.push(record);
                let r = self.events.len() as u32;
                if let Some(x) = self.recent.get_mut(slot) {
                    *x = r;
                }
                r
            }
        };
        let shared = e.space == MemSpace::Shared;
        let Some(mut shadow) = (if shared {
            self.shared.take()
        } else {
            self.global.take()
        }) else {
            return;
        };
        let me_base = event << 5;
        let write = kind.is_write();
        let strong = kind.is_strong();
        let stored = e.values.filter(|_| e.kind == MemKind::Store);
        let mut lanes = e.lanes;
        // The page of the previous lane's word: a warp's lanes mostly share a few pages.
        let mut current = (u64::MAX, 0usize);
        // The warp's safe events, re-read when `visit` may have added one.
        let mut safe = self.safe.get(w).copied().unwrap_or_default();
        while lanes != 0 {
            let l = lanes.trailing_zeros() as usize;
            lanes &= lanes - 1;
            let me = me_base | l as u32;
            let address = e.addresses[l];
            // The common case, one aligned whole word, without `for_each_unit`'s loop.
            if e.size == 4 && address.is_multiple_of(4) {
                let word = address / 4;
                let number = word / PAGE_WORDS as u64;
                if number != current.0 {
                    current = (number, shadow.page_slot(number));
                }
                let page = &mut shadow.pages[current.1];
                let k = (word % PAGE_WORDS as u64) as usize;
                if page.split >> k & 1 == 0 {
                    let (cell, second, values) = page.unit(k);
                    let store = stored.as_ref().map(|s| UnitStore::word(s, l));
                    let quiet = Self::visit_quiet(cell, &second, me, safe, write, values, store)
                        || (strong
                            && Self::visit_strong_quiet(
                                &self.events,
                                (cell, values),
                                me,
                                safe,
                                (w, l),
                                kind,
                                store,
                            ));
                    if !quiet {
                        let unit = (cell, second, values);
                        self.visit(e.space, unit, me, w, l, event, kind, address, store);
                        safe = self.safe.get(w).copied().unwrap_or_default();
                    }
                    continue;
                }
            }
            let size = e.size as u64;
            shadow.for_each_unit_with_second(address, size, |a, len, cell, second, values| {
                let store = (stored.as_ref()).map(|s| UnitStore::of(s, l, a - address, a, len));
                let quiet = Self::visit_quiet(cell, &second, me, safe, write, values, store)
                    || (strong
                        && Self::visit_strong_quiet(
                            &self.events,
                            (cell, values),
                            me,
                            safe,
                            (w, l),
                            kind,
                            store,
                        ));
                if !quiet {
                    let unit = (cell, second, values);
                    self.visit(e.space, unit, me, w, l, event, kind, a, store);
                    safe = self.safe.get(w).copied().unwrap_or_default();
                }
            });
        }
        *(if shared {
            &mut self.shared
        } else {
            &mut self.global
        }) = Some(shadow);
        if global && strong {
            self.note_sync(e, w, event, kind);
        }
    }

    fn on_barrier_arrive(&mut self, e: &BarrierEvent) {
        if let Some(c) = &mut self.clocks {
            c.arrive(e, e.waits);
        }
    }

    fn on_barrier_release(&mut self, _block: [u32; 3], id: u32) {
        if let Some(c) = &mut self.clocks {
            c.release(id);
        }
    }

    fn on_mbarrier_arrive(&mut self, warp: u32, lanes: u32, addr: u64) {
        if let Some(c) = &mut self.clocks {
            c.mbarrier_arrive(warp as usize, lanes, addr);
        }
    }

    fn on_mbarrier_complete(&mut self, addr: u64) {
        if let Some(c) = &mut self.clocks {
            c.mbarrier_complete(addr);
        }
    }

    fn on_mbarrier_wait(&mut self, warp: u32, lanes: u32, addr: u64) {
        if let Some(c) = &mut self.clocks {
            c.mbarrier_wait(warp as usize, lanes, addr);
        }
    }

    fn on_fence(&mut self, warp: u32, lanes: u32) {
        if let Some(f) = self.fenced.get_mut(warp as usize) {
            *f |= lanes;
        }
    }

    fn on_warp_sync(&mut self, e: &WarpSyncEvent) {
        if !e.orders_memory {
            return;
        }
        if let Some(c) = &mut self.clocks {
            c.sync_lanes(e.warp as usize, e.member_mask & e.lanes | e.lanes);
        }
    }

    fn on_exit(&mut self, warp: u32, lanes: u32) {
        if let Some(c) = &mut self.clocks
            && let Some(live) = c.live.get_mut(warp as usize)
        {
            *live &= !lanes;
        }
    }

    fn on_block_end(&mut self, _block: [u32; 3]) {
        self.summarise();
    }
}
