//! Shadow memory: a [`Cell`] (last write, last read) per 4-byte word touched, or per byte
//! of words that sub-word accesses split, in [`Page`]s of 64 words; dense for shared
//! memory, paged and lazily allocated for global memory. A whole word that threads read
//! without anything ordering the reads also keeps a second read (a [`Second`] slot), so
//! that a write meets a read of another thread whichever thread read last.
//!
//! Also the comparison between blocks ([`RaceLaunch::merge_block`]): each block's global
//! shadow, summarised at its end, is compared with the launch's shadow of all earlier
//! blocks and added to it.

use rustc_hash::FxHashMap as HashMap;
use warpcheck_ir::modifiers::MemSpace;

use super::release::SyncSet;
use super::report::{Found, Values};
use super::{AccessKind, RaceBlock, RaceLaunch, Scope};
use crate::Site;

/// A shadow word: the last write and the last read of one byte, as references into the
/// block's event log (`(event + 1) << 5 | lane`, 0 = none). Bit 31 of `read`
/// ([`READ_SHARED`]) says a second read, by another thread and not ordered before the
/// last one, is kept in the unit's [`Second`] slot.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(super) struct Cell {
    pub(super) write: u32,
    pub(super) read: u32,
}

pub(super) const PAGE_WORDS: usize = 64;

/// Bit 31 of [`Cell::read`]: the unit also has a second read ([`Second`]).
pub(super) const READ_SHARED: u32 = 1 << 31;

/// The byte cells of a page's split words; a whole word `k` keeps its second read in
/// `[k][0].read` (its byte cells are unused while it is whole).
type ByteCells = [[Cell; 3]; PAGE_WORDS];

/// The second-read slot of a unit: for a whole word, in its page's byte cells (allocated
/// on first use); a byte of a split word has none (it keeps one read).
pub(super) struct Second<'a>(Option<(&'a mut Option<Box<ByteCells>>, usize)>);

impl Second<'_> {
    /// No slot (a byte of a split word, or memory whose reads need no history).
    pub(super) fn none() -> Second<'static> {
        Second(None)
    }

    /// The recorded second read (0 = none).
    pub(super) fn get(&self) -> u32 {
        match &self.0 {
            Some((Some(bytes), k)) => bytes[*k][0].read,
            _ => 0,
        }
    }

    /// Records `r` as the second read; false when the unit has no slot.
    pub(super) fn set(&mut self, r: u32) -> bool {
        match &mut self.0 {
            Some((bytes, k)) => {
                let bytes =
                    bytes.get_or_insert_with(|| Box::new([[Cell::default(); 3]; PAGE_WORDS]));
                bytes[*k][0].read = r;
                true
            }
            None => false,
        }
    }
}

/// The shadow of 64 words (256 bytes) of memory: a [`Cell`] per word, or per byte for
/// words that sub-word accesses split (different bytes of one word never race). A split
/// word keeps byte 0's history in its word cell and bytes 1–3 in the page's byte cells,
/// allocated when the page's first word splits. A whole word's second read ([`Second`])
/// lives in its unused byte cells, so pages with such words allocate them too. Beside
/// the cells, each word keeps the bytes its recorded writes stored (`values`). So shadow
/// takes 12 bytes per word touched only whole and read in order (3 per byte), and at most
/// 9 bytes per byte on pages with split words or second reads, plus 16 bytes of
/// bookkeeping per page.
#[derive(Clone)]
pub(super) struct Page {
    pub(super) cells: [Cell; PAGE_WORDS],
    /// Per word, the bytes stored by the recorded write of each of its bytes (the word's
    /// write, or each byte's of a split word), little endian; meaningful where that
    /// write's values are known (a `st`, see [`super::Values`]).
    pub(super) values: [u32; PAGE_WORDS],
    /// Bit `k`: word `k` is split.
    pub(super) split: u64,
    bytes: Option<Box<ByteCells>>,
}

impl Default for Page {
    fn default() -> Self {
        Page {
            cells: [Cell::default(); PAGE_WORDS],
            values: [0; PAGE_WORDS],
            split: 0,
            bytes: None,
        }
    }
}

impl Page {
    /// The cell of byte `b` (0–3) of split word `k`, and the word's stored bytes.
    #[inline(always)]
    fn byte(&mut self, k: usize, b: usize) -> (&mut Cell, &mut u32) {
        let values = &mut self.values[k];
        match (b, &mut self.bytes) {
            (1..=3, Some(bytes)) => (&mut bytes[k][b - 1], values),
            _ => (&mut self.cells[k], values),
        }
    }

    /// The cell of byte `b` (0–3) of split word `k`, by value.
    fn byte_cell(&self, k: usize, b: usize) -> Cell {
        match (b, &self.bytes) {
            (1..=3, Some(bytes)) => bytes[k][b - 1],
            _ => self.cells[k],
        }
    }

    /// Calls `f(address, len, cell, values)` for every unit of page number `n` with a
    /// recorded access, in address order (`values`: its word's stored bytes).
    fn for_each_recorded(&self, n: u64, mut f: impl FnMut(u64, u64, Cell, u32)) {
        for k in 0..PAGE_WORDS {
            let w = n * PAGE_WORDS as u64 + k as u64;
            if self.split >> k & 1 == 0 {
                if self.cells[k] != Cell::default() {
                    f(w * 4, 4, self.cells[k], self.values[k]);
                }
                continue;
            }
            for b in 0..4 {
                let c = self.byte_cell(k, b);
                if c != Cell::default() {
                    f(w * 4 + b as u64, 1, c, self.values[k]);
                }
            }
        }
    }

    /// Whole word `k`'s cell, second-read slot and stored bytes.
    #[inline(always)]
    pub(super) fn unit(&mut self, k: usize) -> (&mut Cell, Second<'_>, &mut u32) {
        (
            &mut self.cells[k],
            Second(Some((&mut self.bytes, k))),
            &mut self.values[k],
        )
    }

    /// Splits word `k`: every byte starts with the word's history (its last read; a
    /// byte keeps no second read).
    fn split_word(&mut self, k: usize) {
        self.cells[k].read &= !READ_SHARED;
        let word = self.cells[k];
        let bytes = self
            .bytes
            .get_or_insert_with(|| Box::new([[Cell::default(); 3]; PAGE_WORDS]));
        bytes[k] = [word; 3];
        self.split |= 1 << k;
    }
}

/// Shadow memory: [`Page`]s of cells for the memory touched. Dense for shared memory (page
/// `n` at index `n`), found through a map with a small direct-mapped cache for global
/// memory (allocated on first touch).
#[derive(Default)]
pub(super) struct Shadow {
    is_dense: bool,
    pub(super) pages: Vec<Page>,
    page_index: HashMap<u64, u32>,
    /// Recently used pages, direct-mapped by page number: (page number + 1, index).
    recent: [(u64, u32); 16],
}

impl Shadow {
    pub(super) fn dense() -> Shadow {
        Shadow {
            is_dense: true,
            ..Shadow::default()
        }
    }

    #[inline(always)]
    fn page(&mut self, page: u64) -> &mut Page {
        let i = self.page_slot(page);
        &mut self.pages[i]
    }

    /// The index in `pages` of page number `page`, allocated on first touch.
    #[inline(always)]
    pub(super) fn page_slot(&mut self, page: u64) -> usize {
        if self.is_dense {
            let i = page as usize;
            if i >= self.pages.len() {
                self.pages.resize(i + 1, Page::default());
            }
            return i;
        }
        let slot = page as usize % 16;
        if self.recent[slot].0 == page + 1 {
            self.recent[slot].1 as usize
        } else {
            let next = self.pages.len() as u32;
            let i = *self.page_index.entry(page).or_insert(next);
            if i == next {
                self.pages.push(Page::default());
            }
            self.recent[slot] = (page + 1, i);
            i as usize
        }
    }

    /// Calls `f(address, len, cell, values)` for each unit (a word, or a byte of a split
    /// word) of the `size` bytes from `address`, with its word's stored bytes; a sub-word
    /// access splits the words it touches.
    #[inline(always)]
    pub(super) fn for_each_unit(
        &mut self,
        address: u64,
        size: u64,
        mut f: impl FnMut(u64, u64, &mut Cell, &mut u32),
    ) {
        self.for_each_unit_with_second(address, size, |a, len, cell, _, v| f(a, len, cell, v));
    }

    /// [`for_each_unit`](Self::for_each_unit) with each unit's second-read slot.
    #[inline(always)]
    pub(super) fn for_each_unit_with_second(
        &mut self,
        address: u64,
        size: u64,
        mut f: impl FnMut(u64, u64, &mut Cell, Second<'_>, &mut u32),
    ) {
        if address.is_multiple_of(4) && size.is_multiple_of(4) {
            for w in address / 4..(address + size) / 4 {
                let p = self.page(w / PAGE_WORDS as u64);
                let k = (w % PAGE_WORDS as u64) as usize;
                if p.split >> k & 1 == 0 {
                    let (cell, second, values) = p.unit(k);
                    f(w * 4, 4, cell, second, values);
                } else {
                    for b in 0..4 {
                        let (cell, values) = p.byte(k, b);
                        f(w * 4 + b as u64, 1, cell, Second::none(), values);
                    }
                }
            }
            return;
        }
        for a in address..address + size {
            let w = a / 4;
            let p = self.page(w / PAGE_WORDS as u64);
            let k = (w % PAGE_WORDS as u64) as usize;
            if p.split >> k & 1 == 0 {
                p.split_word(k);
            }
            let (cell, values) = p.byte(k, (a % 4) as usize);
            f(a, 1, cell, Second::none(), values);
        }
    }

    /// Every unit with a recorded access, in address order: (address, len, cell).
    #[cfg(test)]
    fn units(&self) -> Vec<(u64, u64, Cell)> {
        let mut out = Vec::new();
        self.for_each_recorded(|a, len, c, _| out.push((a, len, c)));
        out
    }

    /// Forgets every access, keeping the allocations (observers are recycled from block
    /// to block).
    pub(super) fn clear(&mut self) {
        self.pages.clear();
        self.page_index.clear();
        self.recent = Default::default();
    }

    /// Calls `f(cell)` for every cell (recorded or not), in no particular order.
    pub(super) fn for_each_cell_mut(&mut self, mut f: impl FnMut(&mut Cell)) {
        for page in &mut self.pages {
            page.cells.iter_mut().for_each(&mut f);
            if let Some(bytes) = &mut page.bytes {
                bytes.iter_mut().flatten().for_each(&mut f);
            }
        }
    }

    /// Calls `f(address, len, cell, values)` for every unit with a recorded access, in
    /// address order.
    #[cfg(test)]
    fn for_each_recorded(&self, mut f: impl FnMut(u64, u64, Cell, u32)) {
        self.for_each_page(|n, page| page.for_each_recorded(n, &mut f));
    }

    /// Calls `f(page number, page)` for every page, in address order.
    fn for_each_page(&self, mut f: impl FnMut(u64, &Page)) {
        let mut order: Vec<(u64, usize)> = if self.is_dense {
            (0..self.pages.len()).map(|i| (i as u64, i)).collect()
        } else {
            self.page_index
                .iter()
                .map(|(&p, &i)| (p, i as usize))
                .collect()
        };
        order.sort_unstable();
        for (n, i) in order {
            f(n, &self.pages[i]);
        }
    }
}

/// A witness of earlier blocks: (block, site, kind); the thread is packed into the
/// shadow reference.
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub(super) struct Witness {
    pub(super) block: [u32; 3],
    pub(super) site: Site,
    pub(super) kind: AccessKind,
    /// Whether its store reported the values it stored (a `st`).
    pub(super) valued: bool,
    /// Its releases and acquires between blocks: an index into the launch's sync sets
    /// (0: none).
    pub(super) sync: u32,
}

impl RaceLaunch<'_> {
    /// Whether the launch's witness `p` and the access `c` of block `o`'s summary are
    /// ordered by a release and an acquire ([`super::release`]).
    fn synchronised(&self, p: u32, o: &RaceBlock, c: u32) -> bool {
        match self.sync_pair(p, o, c) {
            (Some(a), Some(b)) => super::release::ordered_between(a, b),
            _ => false,
        }
    }

    /// The synchronisation of the launch's witness `p` and of the access `c` of block
    /// `o` (`None`: none).
    fn sync_pair<'a>(
        &'a self,
        p: u32,
        o: &'a RaceBlock,
        c: u32,
    ) -> (Option<&'a SyncSet>, Option<&'a SyncSet>) {
        let p_sync = self.witnesses[(p >> 10) as usize - 1].sync as usize;
        let c_sync = o.site_syncs[(c >> 10) as usize - 1] as usize;
        let get = |sets: &'a [SyncSet], i: usize| (i != 0).then(|| sets.get(i)).flatten();
        (get(&self.sync_sets, p_sync), get(&o.sync_sets, c_sync))
    }
}

impl RaceLaunch<'_> {
    /// Whether the launch's witness `p` or the access `c` of block `o`, racing at
    /// `address`, came after an acquire of another word (the flag): then a release
    /// did not publish the data.
    fn acquired_either(&self, p: u32, o: &RaceBlock, c: u32, address: u64) -> bool {
        let acquired = |s: Option<&SyncSet>| {
            s.is_some_and(|s| {
                !s.acquired.is_empty() && s.acquired.iter().all(|&(w, _)| w != address & !3)
            })
        };
        let (a, b) = self.sync_pair(p, o, c);
        acquired(a) || acquired(b)
    }
}

/// The bytes of the unit of `len` bytes (a word, or a byte) at `address` in its word's
/// stored bytes `word`, as a number.
#[inline(always)]
pub(super) fn unit_bytes(word: u32, address: u64, len: u64) -> u32 {
    let v = word >> (8 * (address % 4));
    if len >= 4 { v } else { v & 0xff }
}

/// The bits of the unit of `len` bytes at `address` in its word's stored bytes.
#[inline(always)]
pub(super) fn unit_mask(address: u64, len: u64) -> u32 {
    if len >= 4 {
        u32::MAX
    } else {
        0xff << (8 * (address % 4))
    }
}

/// Witness references (`witness << 10 | thread`) must fit in 32 bits.
const MAX_WITNESSES: usize = (1 << 22) - 2;

impl RaceLaunch<'_> {
    /// Compares one block's global accesses (its summarised shadow) with earlier
    /// blocks', then adds them.
    pub(super) fn merge_block(&mut self, o: &RaceBlock) {
        let Some(summary) = &o.global else { return };
        // The launch's witness of each of the block's (site, kind) pairs.
        let full = self.witnesses.len() + o.sites.len() > MAX_WITNESSES;
        self.saturated |= full;
        let refs: Vec<u32> = if full {
            Vec::new()
        } else {
            let syncs: Vec<u32> = (o.sync_sets.iter())
                .map(|s| {
                    super::release::intern(&mut self.sync_sets, &mut self.sync_index, s.clone())
                })
                .collect();
            (o.sites.iter().zip(&o.site_syncs).zip(&o.site_valued))
                .map(|((&(site, kind), &sync), &valued)| {
                    self.witnesses.push(Witness {
                        block: o.block,
                        site,
                        kind,
                        valued,
                        sync: syncs.get(sync as usize).copied().unwrap_or(0),
                    });
                    self.witnesses.len() as u32
                })
                .collect()
        };
        let launch_ref = |r: u32| {
            (r != 0)
                .then(|| refs.get((r >> 10) as usize - 1).map(|w| w << 10 | r & 1023))
                .flatten()
        };
        let mut shadow = std::mem::take(&mut self.global);
        // One unit of the block's summary (`c`) into the launch's cell for it, when
        // both only read (inputs read by every block): decided from the references
        // alone, small enough to be inlined into the loops below. `false` for the rest.
        let merge_reads = |this: &Self, cell: &mut Cell, c: Cell| {
            if c.write != 0 || cell.write != 0 {
                return false;
            }
            if let Some(r) = launch_ref(c.read)
                && (cell.read == 0
                    || (!o.sites[(c.read >> 10) as usize - 1].1.is_strong()
                        && this.witness(cell.read).kind.is_strong()))
            {
                cell.read = r;
            }
            true
        };
        // Any other unit: the launch's cell and stored bytes for the `len` bytes at `a`,
        // the block's summary `c` and its word's stored bytes `cv`.
        let merge_unit =
            |this: &mut Self, (cell, lv): (&mut Cell, &mut u32), (a, len), c: Cell, cv| {
                let u_write = o.summarised(c.write);
                let u_read = o.summarised(c.read);
                let (w_ref, r_ref) = (launch_ref(c.write), launch_ref(c.read));
                let prior_w = (cell.write != 0).then(|| this.witness(cell.write));
                let prior_r = (cell.read != 0).then(|| this.witness(cell.read));
                let pairs = [
                    (prior_w, cell.write, u_write, c.write),
                    (prior_w, cell.write, u_read, c.read),
                    (prior_r, cell.read, u_write, c.write),
                ];
                for (p, p_ref, c, c_ref) in pairs {
                    if let (Some(p), Some(c)) = (p, c)
                        && p.kind.conflicts(c.kind)
                        && !this.synchronised(p_ref, o, c_ref)
                    {
                        // Both writes (the launch's kept write and the block's last one): what
                        // each stored at the unit.
                        let values = if p.kind.is_write() && c.kind.is_write() {
                            let (before, after) = (unit_bytes(*lv, a, len), unit_bytes(cv, a, len));
                            Values::of(
                                this.witness_valued(cell.write).then_some(before),
                                o.summarised_valued(c_ref).then_some(after),
                                after as u64,
                            )
                        } else {
                            Values::Unknown
                        };
                        this.add_found(Found {
                            space: MemSpace::Global,
                            scope: Scope::InterBlock,
                            first: p,
                            second: c,
                            address: a,
                            occurrences: 1,
                            values,
                            unpublished: this.acquired_either(p_ref, o, c_ref, a),
                        });
                        break;
                    }
                }
                // Keep the first access, unless a plain one replaces a strong one (plain
                // accesses race with more).
                let keep = |old: u32, new: Option<u32>, this: &Self| match new {
                    None => old,
                    Some(n) if old == 0 => n,
                    Some(n) => {
                        if this.witness(old).kind.is_strong() && !this.witness(n).kind.is_strong() {
                            n
                        } else {
                            old
                        }
                    }
                };
                let write = keep(cell.write, w_ref, this);
                if write != cell.write {
                    let mask = unit_mask(a, len);
                    *lv = (*lv & !mask) | (cv & mask);
                }
                cell.write = write;
                cell.read = keep(cell.read, r_ref, this);
            };
        summary.for_each_page(|n, page| {
            // Pages whose words are all whole, in the block's summary and in the launch's
            // shadow (the common case): cell by cell, with one look-up of the launch's
            // page, not one per word.
            if page.split == 0 {
                let i = shadow.page_slot(n);
                if shadow.pages[i].split == 0 {
                    let launch = &mut shadow.pages[i];
                    for (k, &c) in page.cells.iter().enumerate() {
                        let cell = &mut launch.cells[k];
                        if c != Cell::default() && !merge_reads(self, cell, c) {
                            let a = (n * PAGE_WORDS as u64 + k as u64) * 4;
                            let unit = (cell, &mut launch.values[k]);
                            merge_unit(self, unit, (a, 4), c, page.values[k]);
                        }
                    }
                    return;
                }
            }
            page.for_each_recorded(n, |address, len, c, cv| {
                shadow.for_each_unit(address, len, |a, len, cell, lv| {
                    if !merge_reads(self, cell, c) {
                        merge_unit(self, (cell, lv), (a, len), c, cv);
                    }
                });
            });
        });
        self.global = shadow;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cell(write: u32, read: u32) -> Cell {
        Cell { write, read }
    }

    #[test]
    fn sub_word_accesses_split_a_word_and_keep_its_history_per_byte() {
        let mut s = Shadow::default();
        // A word written whole, then byte 2 read: bytes 0, 1, 3 keep the word's write.
        s.for_each_unit(0x1000, 4, |_, _, c, _| *c = cell(7, 0));
        let mut seen = Vec::new();
        s.for_each_unit(0x1002, 1, |a, len, c, _| {
            seen.push((a, len, *c));
            c.read = 9;
        });
        assert_eq!(seen, vec![(0x1002, 1, cell(7, 0))]);
        assert_eq!(
            s.units(),
            vec![
                (0x1000, 1, cell(7, 0)),
                (0x1001, 1, cell(7, 0)),
                (0x1002, 1, cell(7, 9)),
                (0x1003, 1, cell(7, 0)),
            ]
        );
        // A whole-word access to a split word visits its four bytes.
        let mut n = 0;
        s.for_each_unit(0x1000, 4, |_, len, _, _| {
            assert_eq!(len, 1);
            n += 1;
        });
        assert_eq!(n, 4);
    }

    #[test]
    fn units_come_in_address_order_across_pages() {
        for dense in [false, true] {
            let mut s = if dense {
                Shadow::dense()
            } else {
                Shadow::default()
            };
            for a in [0x2000u64, 0x10, 0x900, 0x4] {
                s.for_each_unit(a, 4, |_, _, c, _| c.write = a as u32);
            }
            let addresses: Vec<u64> = s.units().iter().map(|u| u.0).collect();
            assert_eq!(addresses, vec![0x4, 0x10, 0x900, 0x2000]);
        }
    }

    #[test]
    fn shadow_takes_at_most_9_bytes_per_byte_plus_page_bookkeeping() {
        let page_bytes = (PAGE_WORDS * 4) as f64;
        let whole = (std::mem::size_of::<[Cell; PAGE_WORDS]>()
            + std::mem::size_of::<[u32; PAGE_WORDS]>()) as f64;
        let split = whole + std::mem::size_of::<[[Cell; 3]; PAGE_WORDS]>() as f64;
        assert_eq!(whole / page_bytes, 3.0);
        assert_eq!(split / page_bytes, 9.0);
        // The rest of a page: the split bitmap and the byte cells' pointer.
        assert_eq!(std::mem::size_of::<Page>() as f64 - whole, 16.0);
    }
}
