//! Reads of uninitialised memory.
//!
//! # Semantics
//!
//! A load (or atomic, which reads before it writes) is an *uninitialised read* when one of
//! the bytes it reads was never written:
//!
//! * **Global memory**: only allocations the host left uninitialised (`:uninit` buffers,
//!   [`Allocation::initialized`](warpcheck_emu::Allocation::initialized) `== false`) are
//!   tracked; every other allocation is initialised by the host. A byte becomes
//!   initialised when a thread stores to it (or an atomic writes it), and stays so for the
//!   rest of the session: writes of earlier launches count. Within a launch, blocks run in
//!   parallel; the policy is that **a block sees the writes of its own threads made
//!   earlier in the emulated execution, and the writes of every block with a smaller
//!   linear index** (blocks are merged in that order). A read of bytes written only by a
//!   block with a larger index is reported: without a grid-wide barrier nothing orders
//!   the blocks. (To bound memory, a block keeps at most [`MAX_DEFERRED`] such reads for
//!   the merge; further ones are judged on the launch's starting state and the block's
//!   own writes.)
//! * **Shared memory** starts uninitialised in every block; a byte is initialised once a
//!   thread of the block wrote it (earlier in the emulated execution). A read of bytes
//!   that *another* thread writes later in the same barrier interval is not reported:
//!   the two accesses race (the race checker reports that), and which one comes first is
//!   an accident of the schedule. A read followed only by writes after a barrier, or by
//!   the reading thread itself, is reported.
//! * **Local memory** (per-thread stack, e.g. local arrays) is initialised once the thread
//!   itself wrote it.
//!
//! Shadow state is one bit per byte: per tracked global allocation (the session's state),
//! per block for shared memory and per thread for local memory, grown lazily to the
//! highest byte written, and for a block's own global writes in 4 KiB pages allocated on
//! first write. Findings (`uninit-read`, error) are per load instruction, with the buffer
//! or variable, a witness thread and how many lane reads were affected.

use std::collections::HashMap;
use std::sync::Arc;

use warpcheck_emu::{
    GlobalMemory, MemEvent, MemKind, Observer, ObserverFactory, RunOutcome, SharedVar,
};
use warpcheck_ir::modifiers::MemSpace;
use warpcheck_report::{Code, Finding, Location, Severity};

use crate::coalesce::LANE_BIT;
use crate::{Check, CheckOptions, LaunchCheck, LaunchInfo, ReportCx, Site, fmt3, shared_name};

/// At most this many reads per block wait for the writes of earlier blocks (see the
/// module docs).
pub const MAX_DEFERRED: usize = 4096;

const PAGE_BITS: u32 = 12;
const PAGE: u64 = 1 << PAGE_BITS;

/// The word index and mask of bytes `start..start + len` when they lie in one 64-byte
/// word (always true for aligned accesses of up to 16 bytes).
#[inline]
fn word_mask(start: u64, len: u64) -> Option<(usize, u64)> {
    let bit = start % 64;
    if len == 0 || bit + len > 64 {
        return None;
    }
    let mask = if len == 64 {
        u64::MAX
    } else {
        ((1u64 << len) - 1) << bit
    };
    Some(((start / 64) as usize, mask))
}

/// Sets the bits of bytes `start..start + len`, growing the vector as needed: the
/// partial words at the ends bit by bit, whole words at once.
fn set_bits(bits: &mut Vec<u64>, start: u64, len: u64) {
    let end = start + len;
    let words = end.div_ceil(64) as usize;
    if bits.len() < words {
        bits.resize(words, 0);
    }
    if let Some((w, mask)) = word_mask(start, len) {
        bits[w] |= mask;
        return;
    }
    let (first_full, last_full) = (start.div_ceil(64), end / 64);
    if first_full >= last_full {
        for b in start..end {
            bits[(b / 64) as usize] |= 1 << (b % 64);
        }
        return;
    }
    for b in start..first_full * 64 {
        bits[(b / 64) as usize] |= 1 << (b % 64);
    }
    bits[first_full as usize..last_full as usize].fill(u64::MAX);
    for b in last_full * 64..end {
        bits[(b / 64) as usize] |= 1 << (b % 64);
    }
}

/// Whether every byte of `start..start + len` has its bit set (whole words at once).
fn all_set(bits: &[u64], start: u64, len: u64) -> bool {
    if let Some((w, mask)) = word_mask(start, len) {
        return bits.get(w).is_some_and(|x| x & mask == mask);
    }
    let end = start + len;
    let (first_full, last_full) = (start.div_ceil(64), end / 64);
    let bit = |b: u64| {
        bits.get((b / 64) as usize)
            .is_some_and(|w| w & (1 << (b % 64)) != 0)
    };
    if first_full >= last_full {
        return (start..end).all(bit);
    }
    (start..first_full * 64).all(bit)
        && bits
            .get(first_full as usize..last_full as usize)
            .is_some_and(|w| w.iter().all(|&x| x == u64::MAX))
        && (last_full * 64..end).all(bit)
}

/// Whether every active lane's `size` bytes of shared memory end at or below `limit`.
///
/// One branch-free pass over the 32 lanes that vectorises: the largest low half of an
/// active lane's address (shared offsets are below 2^32) is compared once with
/// `limit - size`, and the high halves of all lanes, active or not, are OR-ed together;
/// if any is non-zero the answer comes from the exact per-lane loop instead. The answer
/// is exact either way. (A maximum, not a per-lane comparison: AVX2 has an unsigned
/// 32-bit maximum but no unsigned comparison, which cost a third more instructions.)
#[inline(always)]
fn below(addresses: &[u64; 32], lanes: u32, size: u64, limit: u64) -> bool {
    let Some(last_start) = limit.checked_sub(size) else {
        return lanes == 0;
    };
    let last_start_low = last_start.min(u64::from(u32::MAX)) as u32;
    let mut high = 0u64;
    let mut top = 0u32;
    for (l, &a) in addresses.iter().enumerate() {
        high |= a >> 32;
        let active = 0u32.wrapping_sub(u32::from(lanes & LANE_BIT[l] != 0));
        top = top.max(a as u32 & active);
    }
    if high == 0 {
        return top <= last_start_low;
    }
    let mut m = lanes;
    while m != 0 {
        let l = m.trailing_zeros() as usize;
        m &= m - 1;
        if addresses[l] > last_start {
            return false;
        }
    }
    true
}

/// The lowest `n` bits set (`n` up to 64).
fn low_bits(n: u64) -> u64 {
    if n >= 64 { u64::MAX } else { (1u64 << n) - 1 }
}

/// Whether every active lane's `size` bytes from its address have their bits set, when
/// that can be told in one branch-free pass over the 32 lanes that vectorises (a gather
/// of one bit word per lane); `None` when it cannot: a size that is not a power of two
/// up to 64 bytes, or a lane whose address is not a multiple of it (its bytes might then
/// span two bit words). Each lane's bytes are then within one 64-byte word of `bits`.
/// Bytes past the end of `bits` are unset.
#[inline(always)]
fn all_lanes_set(bits: &[u64], addresses: &[u64; 32], lanes: u32, size: u64) -> Option<bool> {
    if !size.is_power_of_two() || size > 64 {
        return None;
    }
    let Some(last) = bits.len().checked_sub(1) else {
        return Some(lanes == 0);
    };
    let ones = low_bits(size);
    let (mut misaligned, mut missing) = (0u64, 0u64);
    for (l, &a) in addresses.iter().enumerate() {
        let active = 0u64.wrapping_sub(u64::from(lanes & LANE_BIT[l] != 0));
        misaligned |= a & (size - 1) & active;
        let w = a / 64;
        let outside = 0u64.wrapping_sub(u64::from(w > last as u64));
        // SAFETY: the index is at most `last`, the last index of `bits`.
        let word = unsafe { *bits.get_unchecked(w.min(last as u64) as usize) };
        let mask = ones << (a % 64);
        missing |= ((word & mask) ^ mask | outside) & active;
    }
    if misaligned != 0 {
        return None;
    }
    Some(missing == 0)
}

/// Sets the bits of every active lane's `size` bytes from its address, growing `bits` as
/// needed, when `size` is a power of two up to 64 and every active lane's address is a
/// multiple of it, so that its bytes lie in one bit word. A branch-free pass over the
/// lanes that vectorises finds the alignment and the span of words; lanes within four
/// words (a warp's 4-byte elements at a stride up to 2) OR their masks per word in a
/// second such pass, others one lane at a time, gathered per word while consecutive
/// lanes stay in it (an OR into memory per lane would wait on the previous lane's). Each
/// word is stored once. Returns `false`, having changed nothing, for other accesses.
#[inline(always)]
fn set_lanes(bits: &mut Vec<u64>, addresses: &[u64; 32], lanes: u32, size: u64) -> bool {
    const SPAN: u64 = 4;
    if lanes == 0 || !size.is_power_of_two() || size > 64 {
        return lanes == 0;
    }
    let (mut misaligned, mut lo, mut hi) = (0u64, u64::MAX, 0u64);
    for (l, &a) in addresses.iter().enumerate() {
        let active = 0u64.wrapping_sub(u64::from(lanes & LANE_BIT[l] != 0));
        misaligned |= a & (size - 1) & active;
        lo = lo.min((a / 64) | !active);
        hi = hi.max((a / 64) & active);
    }
    // (Shared and local offsets are far below 2^32; the bound only keeps a wild address
    // from growing the vector without limit.)
    if misaligned != 0 || hi >= u64::from(u32::MAX) {
        return false;
    }
    if bits.len() <= hi as usize {
        bits.resize(hi as usize + 1, 0);
    }
    let ones = low_bits(size);
    if hi - lo < SPAN {
        let mut words = [0u64; SPAN as usize];
        for (j, word) in words.iter_mut().enumerate() {
            let w = lo + j as u64;
            for (l, &a) in addresses.iter().enumerate() {
                let here = (lanes & LANE_BIT[l] != 0) & (a / 64 == w);
                *word |= (ones << (a % 64)) & 0u64.wrapping_sub(u64::from(here));
            }
        }
        for (j, word) in words.iter().enumerate().take((hi - lo + 1) as usize) {
            bits[lo as usize + j] |= word;
        }
        return true;
    }
    let (mut word, mut gathered) = (addresses[lanes.trailing_zeros() as usize] / 64, 0u64);
    let mut m = lanes;
    while m != 0 {
        let l = m.trailing_zeros() as usize;
        m &= m - 1;
        let a = addresses[l];
        if a / 64 != word {
            bits[word as usize] |= gathered;
            (word, gathered) = (a / 64, 0);
        }
        gathered |= ones << (a % 64);
    }
    bits[word as usize] |= gathered;
    true
}

/// Whether any byte of `start..start + len` has its bit set.
fn any_set(bits: &[u64], start: u64, len: u64) -> bool {
    if let Some((w, mask)) = word_mask(start, len) {
        return bits.get(w).is_some_and(|x| x & mask != 0);
    }
    (start..start + len).any(|b| {
        bits.get((b / 64) as usize)
            .is_some_and(|w| w & (1 << (b % 64)) != 0)
    })
}

/// A block's own global writes: bits per byte in 4 KiB pages allocated on first write,
/// found through a map with a one-entry cache (the lanes of a warp mostly share a page).
#[derive(Default)]
struct Pages {
    pages: Vec<(u64, Box<[u64; 64]>)>,
    index: HashMap<u64, usize>,
    last: Option<(u64, usize)>,
    /// Pages of an earlier block, kept for reuse (see [`Pages::clear`]); boxed as in
    /// `pages`, so that they move between the two without copying.
    #[allow(clippy::vec_box)]
    spare: Vec<Box<[u64; 64]>>,
}

impl Pages {
    /// Forgets every write, keeping the pages for reuse.
    fn clear(&mut self) {
        self.spare
            .extend(self.pages.drain(..).map(|(_, page)| page));
        self.index.clear();
        self.last = None;
    }

    fn find(&mut self, page: u64) -> Option<usize> {
        if let Some((p, i)) = self.last
            && p == page
        {
            return Some(i);
        }
        let i = *self.index.get(&page)?;
        self.last = Some((page, i));
        Some(i)
    }

    fn find_or_insert(&mut self, page: u64) -> usize {
        if let Some(i) = self.find(page) {
            return i;
        }
        let i = self.pages.len();
        let bits = match self.spare.pop() {
            Some(mut bits) => {
                *bits = [0; 64];
                bits
            }
            None => Box::new([0; 64]),
        };
        self.pages.push((page, bits));
        self.index.insert(page, i);
        self.last = Some((page, i));
        i
    }

    /// Whether every byte of `address..address + len` (within one page) was written.
    fn all_written(&mut self, address: u64, len: u64) -> bool {
        let page = address >> PAGE_BITS;
        if (address + len - 1) >> PAGE_BITS != page {
            return (address..address + len).all(|b| self.all_written(b, 1));
        }
        match self.find(page) {
            Some(i) => all_set(&self.pages[i].1[..], address & (PAGE - 1), len),
            None => false,
        }
    }

    fn write(&mut self, address: u64, len: u64) {
        let page = address >> PAGE_BITS;
        if (address + len - 1) >> PAGE_BITS != page {
            for b in address..address + len {
                self.write(b, 1);
            }
            return;
        }
        let i = self.find_or_insert(page);
        let o = address & (PAGE - 1);
        let bits = &mut self.pages[i].1;
        if let Some((w, mask)) = word_mask(o, len) {
            bits[w] |= mask;
        } else {
            for b in o..o + len {
                bits[(b / 64) as usize] |= 1 << (b % 64);
            }
        }
    }
}

/// A global allocation that started uninitialised, with one bit per byte written.
#[derive(Clone, Debug)]
struct Tracked {
    base: u64,
    size: u64,
    name: Option<String>,
    /// 1 = written. Sized to the allocation.
    written: Vec<u64>,
    fully_written: bool,
}

/// The tracked allocations, sorted by base address.
#[derive(Clone, Debug, Default)]
struct Shadow {
    allocs: Vec<Tracked>,
}

impl Shadow {
    /// The tracked allocation holding `address`, if any and not fully written.
    fn find(&self, address: u64) -> Option<usize> {
        let i = self.allocs.partition_point(|a| a.base <= address);
        let i = i.checked_sub(1)?;
        let a = &self.allocs[i];
        (address < a.base + a.size && !a.fully_written).then_some(i)
    }

    /// Whether any not fully written allocation overlaps `lo..hi`.
    fn overlaps(&self, lo: u64, hi: u64) -> bool {
        self.allocs
            .iter()
            .any(|a| !a.fully_written && a.base < hi && lo < a.base + a.size)
    }
}

/// Where an uninitialised read happened.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ReadPlace {
    /// A global allocation by name (or address) and the offset in it.
    Global { buffer: Option<String>, offset: u64 },
    /// A shared-memory offset of the block.
    Shared { offset: u64 },
    /// An offset in the thread's local memory.
    Local { offset: u64 },
}

impl ReadPlace {
    fn space(&self) -> &'static str {
        match self {
            ReadPlace::Global { .. } => "global",
            ReadPlace::Shared { .. } => "shared",
            ReadPlace::Local { .. } => "local",
        }
    }
}

/// The first uninitialised read of a load instruction, and how many there were.
#[derive(Clone, Debug)]
pub struct UninitRead {
    pub place: ReadPlace,
    pub block: [u32; 3],
    /// Linear thread index in the block.
    pub thread: u32,
    pub size: u32,
    pub atomic: bool,
    /// Lane reads of uninitialised bytes.
    pub count: u64,
}

/// Uninitialised reads of a session.
#[derive(Default)]
pub struct InitState {
    shadow: Arc<Shadow>,
    kernels: Vec<String>,
    /// Per kernel: block dimensions and the shared-memory layout (for names).
    block_dims: Vec<[u32; 3]>,
    shared_vars: Vec<Vec<SharedVar>>,
    reads: Vec<((u32, Site), UninitRead)>,
}

impl Check for InitState {
    type Launch<'s> = InitLaunch<'s>;
    type Block = InitBlock;

    fn new(_options: &CheckOptions) -> InitState {
        InitState::default()
    }

    /// Records the allocations made since the last launch that start uninitialised.
    fn prepare(&mut self, memory: &GlobalMemory) {
        let shadow = Arc::make_mut(&mut self.shadow);
        for a in memory.allocations() {
            if a.initialized() || shadow.allocs.iter().any(|t| t.base == a.base()) {
                continue;
            }
            shadow.allocs.push(Tracked {
                base: a.base(),
                size: a.size(),
                name: a.label().map(str::to_string),
                written: vec![0; a.size().div_ceil(64) as usize],
                fully_written: a.size() == 0,
            });
        }
        shadow.allocs.sort_by_key(|t| t.base);
    }

    fn launch(&mut self, info: &LaunchInfo, _seq: u64) -> InitLaunch<'_> {
        let kernel = match self.kernels.iter().position(|k| *k == info.kernel_name) {
            Some(i) => i,
            None => {
                self.kernels.push(info.kernel_name.clone());
                self.block_dims.push(info.block);
                self.shared_vars.push(Vec::new());
                self.kernels.len() - 1
            }
        } as u32;
        // Name allocations after the launch's buffers when they have no label.
        {
            let shadow = Arc::make_mut(&mut self.shadow);
            for t in &mut shadow.allocs {
                if t.name.is_none()
                    && let Some((b, 0)) = info.buffer_at(t.base)
                {
                    t.name = Some(b.name.clone());
                }
            }
        }
        let written = vec![Vec::new(); self.shadow.allocs.len()];
        InitLaunch {
            start: Arc::clone(&self.shadow),
            written,
            kernel,
            reads: Vec::new(),
            state: self,
        }
    }

    fn findings(&self, cx: &ReportCx) -> Vec<Finding> {
        self.uninit_findings(cx)
    }
}

impl InitState {
    /// Records that the host wrote bytes `address..address + len` of global memory (a
    /// copy or memset of a runtime API): they count as initialised from now on.
    pub fn host_wrote(&mut self, memory: &GlobalMemory, address: u64, len: u64) {
        Check::prepare(self, memory);
        // Nothing to mark in an allocation already written whole (and no copy of a
        // shared shadow to make).
        if let Some(i) = self.shadow.find(address)
            && self.shadow.allocs[i].fully_written
        {
            return;
        }
        let shadow = Arc::make_mut(&mut self.shadow);
        let Some(i) = shadow.find(address) else {
            return;
        };
        let t = &mut shadow.allocs[i];
        let start = address - t.base;
        let len = len.min(t.size - start);
        set_bits(&mut t.written, start, len);
        t.fully_written = all_set(&t.written, 0, t.size);
    }

    /// The uninitialised reads found so far: (kernel name, site, first read and count).
    pub fn reads(&self) -> impl Iterator<Item = (&str, Site, &UninitRead)> {
        self.reads
            .iter()
            .map(|((k, site), r)| (self.kernels[*k as usize].as_str(), *site, r))
    }

    /// One `uninit-read` error per kernel, source line and memory space (the loads of an
    /// unrolled loop share a line), with the first read as witness.
    fn uninit_findings(&self, cx: &ReportCx) -> Vec<Finding> {
        // (kernel, location, space, first read, total count, instructions)
        type Line<'a> = (
            u32,
            Option<Location>,
            &'static str,
            &'a UninitRead,
            u64,
            usize,
        );
        let mut lines: Vec<Line> = Vec::new();
        for ((kernel, site), r) in &self.reads {
            if is_param_access(cx, *site) {
                continue;
            }
            let loc = cx.locate(*site);
            let space = r.place.space();
            let same = |l: &Line| {
                l.0 == *kernel
                    && l.2 == space
                    && match (&l.1, &loc) {
                        (Some(a), Some(b)) => a.file == b.file && a.line == b.line,
                        _ => false,
                    }
            };
            match lines.iter_mut().find(|l| same(l)) {
                Some(l) => {
                    l.4 += r.count;
                    l.5 += 1;
                }
                None => lines.push((*kernel, loc, space, r, r.count, 1)),
            }
        }
        let mut out = Vec::new();
        for (kernel, loc, space, r, count, instructions) in lines {
            let k = kernel as usize;
            let what = match &r.place {
                ReadPlace::Global { buffer, offset } => match buffer {
                    Some(b) => format!("global buffer `{b}` + {offset} bytes"),
                    None => {
                        format!("global memory at offset {offset} of an uninitialised allocation")
                    }
                },
                ReadPlace::Shared { offset } => {
                    format!(
                        "shared {}",
                        shared_name(cx.program, &self.shared_vars[k], *offset)
                    )
                }
                ReadPlace::Local { offset } => format!("local memory at offset {offset}"),
            };
            let access = if r.atomic { "atomic" } else { "load" };
            let mut f = Finding::new(
                Code::UninitRead,
                Severity::Error,
                format!("{access} reads uninitialised {space} memory"),
            )
            .kernel(self.kernels[k].clone());
            if let Some(loc) = loc {
                f = f.at(loc, format!("reads {what}"));
            }
            let thread = fmt3(thread_index(self.block_dims[k], r.thread));
            f = f.note(format!(
                "thread {thread} of block {} reads {} bytes of {what}, never written before",
                fmt3(r.block),
                r.size
            ));
            let on_line = if instructions > 1 {
                format!(" by {instructions} instructions of this line")
            } else {
                String::new()
            };
            f = f.note(format!(
                "{count} lane reads of uninitialised bytes{on_line}"
            ));
            f.occurrences = count;
            f = f.help(match r.place {
                ReadPlace::Global { .. } => {
                    "initialise the buffer before the launch (`cudaMemset`/`cudaMemcpy`) or \
                     have the kernel write it before reading"
                }
                ReadPlace::Shared { .. } => {
                    "every block starts with uninitialised shared memory: write every element \
                     the block reads (e.g. zero-fill out-of-range tile entries) and put a \
                     `__syncthreads()` between the writes and the reads"
                }
                ReadPlace::Local { .. } => "initialise the local array before reading it",
            });
            out.push(f);
        }
        out
    }
}

/// Whether the instruction at `site` is an `ld.param`/`st.param` of a device-function call:
/// the emulator keeps call parameters in the thread's stack, so they arrive as local
/// accesses, but the call itself initialises them.
fn is_param_access(cx: &ReportCx, site: Site) -> bool {
    cx.program
        .function(site.0)
        .body
        .as_ref()
        .and_then(|b| b.insts.get(site.1))
        .and_then(|i| i.op.memory_access())
        .is_some_and(|a| a.space == MemSpace::Param)
}

fn thread_index(dims: [u32; 3], linear: u32) -> [u32; 3] {
    let bx = dims[0].max(1);
    let by = dims[1].max(1);
    [linear % bx, (linear / bx) % by, linear / (bx * by)]
}

/// Adds one uninitialised lane read at `site` to a list keyed by site.
fn add_read(list: &mut Vec<(Site, UninitRead)>, site: Site, read: UninitRead) {
    match list.iter_mut().rev().find(|(s, _)| *s == site) {
        Some((_, r)) => r.count += read.count,
        None => list.push((site, read)),
    }
}

pub struct InitLaunch<'s> {
    state: &'s mut InitState,
    /// The tracked allocations as the launch started.
    start: Arc<Shadow>,
    /// Per tracked allocation: bytes written by the blocks merged so far (empty until the
    /// first write).
    written: Vec<Vec<u64>>,
    kernel: u32,
    reads: Vec<(Site, UninitRead)>,
}

impl LaunchCheck for InitLaunch<'_> {
    fn finish(self, _info: &LaunchInfo, outcome: &RunOutcome) {
        let InitLaunch {
            state,
            start,
            written,
            kernel,
            reads,
        } = self;
        drop(start);
        let shadow = Arc::make_mut(&mut state.shadow);
        for (t, w) in shadow.allocs.iter_mut().zip(&written) {
            for (dst, src) in t.written.iter_mut().zip(w) {
                *dst |= *src;
            }
            t.fully_written = t.size > 0 && all_set(&t.written, 0, t.size);
        }
        let k = kernel as usize;
        if state.shared_vars[k].is_empty() {
            state.shared_vars[k] = outcome.shared_vars.clone();
        }
        for (site, r) in reads {
            match state
                .reads
                .iter_mut()
                .find(|((kk, s), _)| *kk == kernel && *s == site)
            {
                Some((_, existing)) => existing.count += r.count,
                None => state.reads.push(((kernel, site), r)),
            }
        }
    }
}

/// A global read of bytes that were uninitialised at the launch's start and not written by
/// the block: decided at the merge, against the writes of earlier blocks.
#[derive(Clone, Debug)]
struct Deferred {
    site: Site,
    alloc: u32,
    address: u64,
    size: u8,
    atomic: bool,
    thread: u32,
}

/// One block's initialisation observer.
pub struct InitBlock {
    block: [u32; 3],
    start: Arc<Shadow>,
    /// Whether any tracked allocation is not fully written (else global events are skipped).
    any_tracked: bool,
    /// Global bytes this block wrote.
    own: Pages,
    /// Shared bytes written in the block.
    shared: Vec<u64>,
    /// Shared bytes `0..shared_prefix` are all written (a multiple of 64): reads below
    /// it need no per-lane look-up.
    shared_prefix: u64,
    /// Local bytes written, per linear thread index.
    local: Vec<Vec<u64>>,
    deferred: Vec<Deferred>,
    reads: Vec<(Site, UninitRead)>,
    /// Uninitialised shared reads of the current barrier interval, decided at its end
    /// (dropped when another thread writes the bytes in the same interval: a race).
    pending_shared: Vec<PendingShared>,
    /// Shared bytes with a pending read.
    pending_bytes: Vec<u64>,
    /// Recycled for a block that has not started: the rest is cleared when it starts,
    /// on the host thread that runs it (see [`crate::Launch`]).
    stale: bool,
}

/// An uninitialised shared read waiting for the end of its barrier interval.
#[derive(Clone, Debug)]
struct PendingShared {
    site: Site,
    thread: u32,
    offset: u64,
    size: u32,
    atomic: bool,
    racy: bool,
}

impl InitBlock {
    /// Reports the pending shared reads that no other thread's write raced with.
    fn end_interval(&mut self) {
        for p in std::mem::take(&mut self.pending_shared) {
            if p.racy {
                continue;
            }
            add_read(
                &mut self.reads,
                p.site,
                UninitRead {
                    place: ReadPlace::Shared { offset: p.offset },
                    block: self.block,
                    thread: p.thread,
                    size: p.size,
                    atomic: p.atomic,
                    count: 1,
                },
            );
        }
        self.pending_bytes.clear();
    }

    /// A write of shared bytes by `thread`: pending reads of them by other threads race
    /// (unless both are atomics, which do not race).
    fn shared_written(&mut self, thread: u32, offset: u64, len: u64, atomic: bool) {
        if self.pending_shared.is_empty() || !any_set(&self.pending_bytes, offset, len) {
            return;
        }
        for p in &mut self.pending_shared {
            if p.thread != thread
                && !(p.atomic && atomic)
                && p.offset < offset + len
                && offset < p.offset + u64::from(p.size)
            {
                p.racy = true;
            }
        }
    }

    #[inline(always)]
    fn global(&mut self, e: &MemEvent<'_>, reads: bool, writes: bool, atomic: bool) {
        if !self.any_tracked {
            return;
        }
        let size = u64::from(e.size.max(1));
        // Skip events that touch no tracked allocation.
        let (mut lo, mut hi) = (u64::MAX, 0u64);
        let mut m = e.lanes;
        while m != 0 {
            let l = m.trailing_zeros() as usize;
            m &= m - 1;
            lo = lo.min(e.addresses[l]);
            hi = hi.max(e.addresses[l] + size);
        }
        if !self.start.overlaps(lo, hi) {
            return;
        }
        let start = &*self.start;
        let mut m = e.lanes;
        while m != 0 {
            let l = m.trailing_zeros() as usize;
            m &= m - 1;
            let a = e.addresses[l];
            let Some(ai) = start.find(a) else {
                continue;
            };
            let t = &start.allocs[ai];
            let offset = a - t.base;
            let len = size.min(t.size - offset);
            if reads && !all_set(&t.written, offset, len) && !self.own.all_written(a, len) {
                let thread = e.warp * 32 + l as u32;
                if self.deferred.len() < MAX_DEFERRED {
                    self.deferred.push(Deferred {
                        site: (e.func, e.inst),
                        alloc: ai as u32,
                        address: a,
                        size: len as u8,
                        atomic,
                        thread,
                    });
                } else {
                    add_read(
                        &mut self.reads,
                        (e.func, e.inst),
                        UninitRead {
                            place: ReadPlace::Global {
                                buffer: t.name.clone(),
                                offset,
                            },
                            block: self.block,
                            thread,
                            size: len as u32,
                            atomic,
                            count: 1,
                        },
                    );
                }
            }
            if writes {
                self.own.write(a, len);
            }
        }
    }

    /// Extends the fully written prefix of shared memory over the words now all set.
    fn advance_shared_prefix(&mut self) {
        let mut w = (self.shared_prefix / 64) as usize;
        while self.shared.get(w) == Some(&u64::MAX) {
            w += 1;
        }
        self.shared_prefix = w as u64 * 64;
    }

    #[inline(always)]
    fn shared_or_local(&mut self, e: &MemEvent<'_>, reads: bool, writes: bool, atomic: bool) {
        let size = u64::from(e.size.max(1));
        // Bytes below the written prefix are initialised: reading them is fine, and
        // writing them (plainly or atomically) changes nothing unless a read of the
        // barrier interval waits for them (tiles rewritten every loop iteration, and
        // atomics on zeroed bins).
        let shared = e.space == MemSpace::Shared;
        let under = shared && below(e.addresses, e.lanes, size, self.shared_prefix);
        if under && self.pending_shared.is_empty() {
            return;
        }
        // Fast paths for plain shared accesses: stores with no pending read to race
        // with, and loads of initialised bytes.
        if shared && !atomic {
            if writes && self.pending_shared.is_empty() {
                if !set_lanes(&mut self.shared, e.addresses, e.lanes, size) {
                    let mut m = e.lanes;
                    while m != 0 {
                        let l = m.trailing_zeros() as usize;
                        m &= m - 1;
                        set_bits(&mut self.shared, e.addresses[l], size);
                    }
                }
                self.advance_shared_prefix();
                return;
            }
            // Below the written prefix (tiles filled before they are read), or else
            // every lane's bytes written.
            if reads
                && (under
                    || all_lanes_set(&self.shared, e.addresses, e.lanes, size).unwrap_or_else(
                        || {
                            let mut m = e.lanes;
                            while m != 0 {
                                let l = m.trailing_zeros() as usize;
                                m &= m - 1;
                                if !all_set(&self.shared, e.addresses[l], size) {
                                    return false;
                                }
                            }
                            true
                        },
                    ))
            {
                return;
            }
        }
        let mut m = e.lanes;
        while m != 0 {
            let l = m.trailing_zeros() as usize;
            m &= m - 1;
            let a = e.addresses[l];
            let thread = e.warp * 32 + l as u32;
            let bits = if e.space == MemSpace::Local {
                let t = thread as usize;
                if self.local.len() <= t {
                    self.local.resize(t + 1, Vec::new());
                }
                &mut self.local[t]
            } else {
                &mut self.shared
            };
            let uninit = reads && !all_set(bits, a, size);
            if writes {
                set_bits(bits, a, size);
            }
            if e.space == MemSpace::Local {
                if uninit {
                    add_read(
                        &mut self.reads,
                        (e.func, e.inst),
                        UninitRead {
                            place: ReadPlace::Local { offset: a },
                            block: self.block,
                            thread,
                            size: size as u32,
                            atomic,
                            count: 1,
                        },
                    );
                }
                continue;
            }
            if writes {
                self.shared_written(thread, a, size, atomic);
            }
            if uninit {
                let p = PendingShared {
                    site: (e.func, e.inst),
                    thread,
                    offset: a,
                    size: size as u32,
                    atomic,
                    racy: false,
                };
                if self.pending_shared.len() < MAX_DEFERRED {
                    self.pending_shared.push(p);
                    set_bits(&mut self.pending_bytes, a, size);
                } else {
                    add_read(
                        &mut self.reads,
                        p.site,
                        UninitRead {
                            place: ReadPlace::Shared { offset: a },
                            block: self.block,
                            thread,
                            size: size as u32,
                            atomic,
                            count: 1,
                        },
                    );
                }
            }
        }
        if writes && e.space == MemSpace::Shared {
            self.advance_shared_prefix();
        }
    }
}

impl Observer for InitBlock {
    fn on_block_start(&mut self, _block: [u32; 3], _threads: u32) {
        if !std::mem::take(&mut self.stale) {
            return;
        }
        let InitBlock {
            own,
            shared,
            shared_prefix,
            local,
            deferred,
            reads,
            pending_shared,
            pending_bytes,
            ..
        } = self;
        own.clear();
        shared.clear();
        *shared_prefix = 0;
        for bits in local.iter_mut() {
            bits.clear();
        }
        deferred.clear();
        reads.clear();
        pending_shared.clear();
        pending_bytes.clear();
    }

    #[inline(always)]
    fn on_memory(&mut self, e: &MemEvent<'_>) {
        let (reads, writes, atomic) = match e.kind {
            MemKind::Load => (true, false, false),
            MemKind::Store => (false, true, false),
            MemKind::Atomic { .. } => (true, true, true),
        };
        match e.space {
            MemSpace::Global => self.global(e, reads, writes, atomic),
            MemSpace::Shared | MemSpace::Local => self.shared_or_local(e, reads, writes, atomic),
            _ => {}
        }
    }

    fn on_barrier_release(&mut self, _block: [u32; 3], _id: u32) {
        self.end_interval();
    }

    /// After the grid-wide barrier the block's shared memory and its threads' local
    /// memory keep what was written before it; the global reads already merged are done.
    fn on_block_resume(&mut self, _block: [u32; 3], _threads: u32) {
        self.stale = false;
        self.deferred.clear();
        self.reads.clear();
    }

    fn on_block_end(&mut self, _block: [u32; 3]) {
        self.end_interval();
    }
}

impl ObserverFactory for InitLaunch<'_> {
    type Observer = InitBlock;
    fn create(&self, block: [u32; 3]) -> InitBlock {
        InitBlock {
            block,
            start: Arc::clone(&self.start),
            any_tracked: self.start.allocs.iter().any(|a| !a.fully_written),
            own: Pages::default(),
            shared: Vec::new(),
            shared_prefix: 0,
            local: Vec::new(),
            deferred: Vec::new(),
            reads: Vec::new(),
            pending_shared: Vec::new(),
            pending_bytes: Vec::new(),
            stale: false,
        }
    }

    fn recycle(&self, o: &mut InitBlock, block: [u32; 3]) {
        o.block = block;
        if !Arc::ptr_eq(&o.start, &self.start) {
            o.start = Arc::clone(&self.start);
        }
        o.any_tracked = self.start.allocs.iter().any(|a| !a.fully_written);
        o.stale = true;
    }

    fn merge(&mut self, observers: &mut [([u32; 3], InitBlock)]) {
        for (_, b) in observers {
            // Reads waiting for earlier blocks' writes.
            for d in &b.deferred {
                let written = &self.written[d.alloc as usize];
                let t = &self.start.allocs[d.alloc as usize];
                let offset = d.address - t.base;
                if !written.is_empty() && all_set(written, offset, u64::from(d.size)) {
                    continue;
                }
                add_read(
                    &mut self.reads,
                    d.site,
                    UninitRead {
                        place: ReadPlace::Global {
                            buffer: t.name.clone(),
                            offset,
                        },
                        block: b.block,
                        thread: d.thread,
                        size: u32::from(d.size),
                        atomic: d.atomic,
                        count: 1,
                    },
                );
            }
            for (site, r) in b.reads.drain(..) {
                match self.reads.iter_mut().find(|(s, _)| *s == site) {
                    Some((_, existing)) => existing.count += r.count,
                    None => self.reads.push((site, r)),
                }
            }
            // This block's writes become visible to later blocks. Allocations are
            // 256-byte aligned, so a 64-byte word of a page lies in at most one.
            let mut cached: Option<usize> = None;
            for (page, bits) in &b.own.pages {
                let page_base = page << PAGE_BITS;
                for (wi, &word) in bits.iter().enumerate() {
                    if word == 0 {
                        continue;
                    }
                    let address = page_base + wi as u64 * 64;
                    let hit = cached.filter(|&ai| {
                        let t = &self.start.allocs[ai];
                        address >= t.base && address < t.base + t.size
                    });
                    let Some(ai) = hit.or_else(|| self.start.find(address)) else {
                        continue;
                    };
                    cached = Some(ai);
                    let t = &self.start.allocs[ai];
                    let w = &mut self.written[ai];
                    if w.is_empty() {
                        *w = vec![0; t.size.div_ceil(64) as usize];
                    }
                    let o = address - t.base;
                    if o.is_multiple_of(64) {
                        w[(o / 64) as usize] |= word;
                    } else {
                        let mut m = word;
                        while m != 0 {
                            let bit = u64::from(m.trailing_zeros());
                            m &= m - 1;
                            let ob = o + bit;
                            if ob < t.size {
                                w[(ob / 64) as usize] |= 1 << (ob % 64);
                            }
                        }
                    }
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {

    /// Word-at-a-time `set_bits` and `all_set` agree with a byte-at-a-time model on every
    /// range of up to 200 bytes starting in the first three words.
    #[test]
    fn bit_ranges_set_and_test_whole_words_as_bytes() {
        for start in 0..192u64 {
            for len in 1..200u64 {
                let mut bits = Vec::new();
                set_bits(&mut bits, start, len);
                for b in 0..(start + len + 70) {
                    let set = bits
                        .get((b / 64) as usize)
                        .is_some_and(|w| w & (1 << (b % 64)) != 0);
                    assert_eq!(
                        set,
                        (start..start + len).contains(&b),
                        "{start}+{len}: byte {b}"
                    );
                }
                assert!(all_set(&bits, start, len));
                assert!(!all_set(&bits, start, len + 1));
                if start > 0 {
                    assert!(!all_set(&bits, start - 1, len));
                }
            }
        }
    }
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn host_writes_count_as_initialised() {
        let mut m = GlobalMemory::new();
        let a = m.alloc(128, false).unwrap();
        let mut s = InitState::default();
        s.host_wrote(&m, a + 8, 56);
        let t = &s.shadow.allocs[0];
        assert!(all_set(&t.written, 8, 56));
        assert!(!all_set(&t.written, 0, 8));
        assert!(!all_set(&t.written, 64, 1));
        assert!(s.shadow.find(a + 100).is_some(), "still tracked");
        s.host_wrote(&m, a, 8);
        s.host_wrote(&m, a + 64, 64);
        assert!(s.shadow.allocs[0].fully_written);
        assert!(
            s.shadow.find(a).is_none(),
            "fully written: no longer tracked"
        );
    }

    proptest! {
        /// `below` agrees with its per-lane definition, for shared offsets (below 2^32),
        /// addresses with high bits (the exact fallback) and limits near 2^32, with
        /// limits at and next to the active lanes' furthest end as often as not.
        #[test]
        fn below_is_the_per_lane_test(
            addresses in proptest::collection::vec(
                prop_oneof![0u64..4096, 0u64..(1 << 33), Just(u64::from(u32::MAX))],
                32,
            ),
            lanes in any::<u32>(),
            size in 1u64..17,
            limit in prop_oneof![0u64..4200, (1u64 << 32) - 8..(1u64 << 32) + 8],
            slack in prop_oneof![Just(None), (-2i64..3).prop_map(Some)],
        ) {
            let addresses: [u64; 32] = addresses.try_into().unwrap();
            let end = (0..32)
                .filter(|l| lanes >> l & 1 == 1)
                .map(|l| addresses[l] + size)
                .max()
                .unwrap_or(0);
            let limit = slack.map_or(limit, |d| end.saturating_add_signed(d));
            let per_lane = (0..32)
                .filter(|l| lanes >> l & 1 == 1)
                .all(|l| addresses[l] + size <= limit);
            prop_assert_eq!(below(&addresses, lanes, size, limit), per_lane);
        }

        /// `all_lanes_set` agrees with `all_set` per lane whenever it answers, and
        /// answers for every power-of-two size up to 64 with aligned active lanes: over
        /// bitmaps mostly set (holes are what it must find), addresses in, at the end of
        /// and past the bitmap, and misaligned lanes, active or not.
        #[test]
        fn all_lanes_set_is_the_per_lane_test(
            words in proptest::collection::vec(
                prop_oneof![Just(u64::MAX), any::<u64>(), Just(u64::MAX ^ 1 << 63)],
                0..6,
            ),
            slots in proptest::collection::vec(0u64..450, 32),
            lanes in prop_oneof![Just(u32::MAX), any::<u32>()],
            size_log in 0u32..8,
            nudge in proptest::collection::vec(prop_oneof![9 => Just(0u64), 1 => 1u64..3], 32),
        ) {
            let size = 1u64 << size_log;
            let addresses: [u64; 32] = std::array::from_fn(|l| slots[l] * size.min(64) + nudge[l]);
            let per_lane = (0..32)
                .filter(|l| lanes >> l & 1 == 1)
                .all(|l| all_set(&words, addresses[l], size));
            let aligned = (0..32)
                .filter(|l| lanes >> l & 1 == 1)
                .all(|l| addresses[l].is_multiple_of(size));
            match all_lanes_set(&words, &addresses, lanes, size) {
                Some(answer) => prop_assert_eq!(answer, per_lane),
                None => prop_assert!(size > 64 || !aligned),
            }
        }

        /// `set_lanes` sets exactly the bits `set_bits` sets lane by lane, or declines
        /// (changing nothing) only where it says it may: sizes over 64 and misaligned
        /// active lanes; over lanes close together (its four-word path) and spread out.
        #[test]
        fn set_lanes_is_set_bits_per_lane(
            words in proptest::collection::vec(any::<u64>(), 0..4),
            base in 0u64..300,
            spread in prop_oneof![Just(1u64), Just(2), Just(4), Just(64), Just(200)],
            lanes in prop_oneof![Just(u32::MAX), any::<u32>()],
            size_log in 0u32..8,
            nudge in proptest::collection::vec(prop_oneof![9 => Just(0u64), 1 => 1u64..3], 32),
            order in proptest::collection::vec(0u64..32, 32),
        ) {
            let size = 1u64 << size_log;
            let addresses: [u64; 32] =
                std::array::from_fn(|l| (base + order[l] * spread / 4) * size + nudge[l]);
            let mut expected = words.clone();
            for l in (0..32).filter(|l| lanes >> l & 1 == 1) {
                set_bits(&mut expected, addresses[l], size);
            }
            let mut got = words.clone();
            if set_lanes(&mut got, &addresses, lanes, size) {
                // Growing past the furthest word written is allowed, not required.
                got.truncate(expected.len().max(words.len()));
                prop_assert_eq!(got, expected);
            } else {
                prop_assert_eq!(&got, &words);
                let misaligned = (0..32)
                    .filter(|l| lanes >> l & 1 == 1)
                    .any(|l| !addresses[l].is_multiple_of(size));
                prop_assert!(size > 64 || misaligned);
            }
        }
    }
}
