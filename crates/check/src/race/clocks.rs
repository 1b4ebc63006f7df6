//! Happens-before clocks of one block: vector clocks per warp over the block's warps
//! (joined at CTA barriers), and under independent thread scheduling per lane over its
//! warp's lanes (joined at `__syncwarp` and barriers).
//!
//! An access records its warp's own warp-clock and a snapshot of its lanes' own
//! lane-clocks; a later access by another warp is ordered after it iff that warp's
//! vector has caught up with the recorded warp-clock ([`Clocks::knows_warp`]), and a
//! later access by another lane of the same warp iff that lane's vector has caught up
//! with the recorded lane-clock ([`Clocks::knows_lane`]). Clocks only grow.
//!
//! A barrier generation ([`Clocks::arrive`], [`Clocks::release`]) joins the arrived
//! warps' vectors; waiting warps take the join and advance their own clock, `bar.arrive`
//! warps only publish (they advance their own clock at once and learn nothing). The
//! lanes that arrived are joined as by a `__syncwarp` of those lanes.

use warpcheck_emu::BarrierEvent;

/// Happens-before clocks of one block.
pub(super) struct Clocks {
    warps: usize,
    /// `warp_vc[w * warps + v]`: what warp `w` knows of warp `v`'s clock.
    warp_vc: Vec<u32>,
    /// Per warp, `lane_vc[l][k]`: what lane `l` knows of lane `k`'s clock (independent
    /// scheduling only; allocated at the warp's first synchronisation).
    lane_vc: Vec<Option<Box<[[u32; 32]; 32]>>>,
    /// Per warp, the snapshot index of its lanes' own clocks.
    pub(super) lane_snapshot: Vec<u32>,
    /// Per warp, the snapshot created by its last synchronisation of all its live lanes:
    /// accesses of the warp recorded with an older snapshot are ordered before every
    /// later access of the warp.
    pub(super) full_sync: Vec<u32>,
    /// Per warp, its lanes that exist and have not exited.
    pub(super) live: Vec<u32>,
    /// Snapshots of lanes' own clocks (`[l] = lane_vc[l][l]`).
    pub(super) snapshots: Vec<[u32; 32]>,
    /// Per barrier id: the join of the arrived warps' clocks, and who arrived.
    pending: Vec<Pending>,
    /// Per `mbarrier` object (shared offset): the arrivals of its current phase and of
    /// its last completed phase.
    mbarriers: Vec<(u64, Pending, Pending)>,
}

#[derive(Default, Clone)]
struct Pending {
    join: Vec<u32>,
    /// (warp, lanes, waits): `bar.arrive` lanes do not wait.
    arrived: Vec<(u32, u32, bool)>,
}

impl Clocks {
    pub(super) fn new(warps: usize, independent: bool) -> Clocks {
        let mut warp_vc = vec![0u32; warps * warps];
        for w in 0..warps {
            warp_vc[w * warps + w] = 1;
        }
        Clocks {
            warps,
            warp_vc,
            lane_vc: if independent {
                (0..warps).map(|_| None).collect()
            } else {
                Vec::new()
            },
            lane_snapshot: vec![0; warps],
            full_sync: vec![0; warps],
            live: vec![u32::MAX; warps],
            snapshots: vec![[1; 32]],
            pending: vec![Pending::default(); 16],
            mbarriers: Vec::new(),
        }
    }

    #[inline]
    pub(super) fn own(&self, w: usize) -> u32 {
        self.warp_vc[w * self.warps + w]
    }

    #[inline]
    pub(super) fn knows_warp(&self, w: usize, v: usize) -> u32 {
        self.warp_vc[w * self.warps + v]
    }

    /// What warp `w` knows of every warp's clock.
    pub(super) fn warp_row(&self, w: usize) -> &[u32] {
        &self.warp_vc[w * self.warps..(w + 1) * self.warps]
    }

    /// What lane `l` of warp `w` knows of lane `k`'s clock.
    #[inline]
    pub(super) fn knows_lane(&self, w: usize, l: usize, k: usize) -> u32 {
        match self.lane_vc.get(w).and_then(|m| m.as_ref()) {
            Some(m) => m[l][k],
            None => u32::from(l == k),
        }
    }

    fn lanes_of(&mut self, w: usize) -> &mut [[u32; 32]; 32] {
        self.lane_vc[w].get_or_insert_with(|| {
            let mut m = Box::new([[0u32; 32]; 32]);
            for (l, row) in m.iter_mut().enumerate() {
                row[l] = 1;
            }
            m
        })
    }

    /// Joins the clocks of `lanes` of warp `w` and advances each lane's own clock.
    pub(super) fn sync_lanes(&mut self, w: usize, lanes: u32) {
        #[cfg(target_arch = "x86_64")]
        if std::arch::is_x86_feature_detected!("avx2") {
            // SAFETY: the CPU has AVX2, checked just above.
            unsafe { self.sync_lanes_avx2(w, lanes) };
            return;
        }
        self.sync_lanes_portable(w, lanes);
    }

    /// [`Clocks::sync_lanes_portable`] compiled for AVX2: the 32×32 join is unsigned
    /// 32-bit maxima, which the x86-64 baseline (SSE2) lacks and does lane by lane.
    ///
    /// # Safety
    /// The CPU must support AVX2.
    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx2")]
    unsafe fn sync_lanes_avx2(&mut self, w: usize, lanes: u32) {
        self.sync_lanes_portable(w, lanes)
    }

    #[inline(always)]
    fn sync_lanes_portable(&mut self, w: usize, lanes: u32) {
        if self.lane_vc.is_empty() || lanes == 0 {
            return;
        }
        let m = self.lanes_of(w);
        let mut join = [0u32; 32];
        for (l, row) in m.iter().enumerate() {
            if lanes >> l & 1 == 1 {
                for (j, &c) in join.iter_mut().zip(row) {
                    *j = (*j).max(c);
                }
            }
        }
        let mut own = [0u32; 32];
        for l in 0..32 {
            if lanes >> l & 1 == 1 {
                m[l] = join;
                m[l][l] += 1;
            }
            own[l] = m[l][l];
        }
        self.lane_snapshot[w] = self.snapshots.len() as u32;
        if lanes & self.live[w] == self.live[w] {
            self.full_sync[w] = self.lane_snapshot[w];
        }
        self.snapshots.push(own);
    }

    pub(super) fn arrive(&mut self, e: &BarrierEvent, waits: bool) {
        let w = e.warp as usize;
        let p = &mut self.pending[e.id as usize & 15];
        if p.join.is_empty() {
            p.join = vec![0; self.warps];
        }
        let row = &self.warp_vc[w * self.warps..(w + 1) * self.warps];
        for (j, &c) in p.join.iter_mut().zip(row) {
            *j = (*j).max(c);
        }
        p.arrived.push((e.warp, e.lanes, waits));
        if !waits {
            self.warp_vc[w * self.warps + w] += 1;
        }
    }

    fn mbarrier(&mut self, addr: u64) -> usize {
        match self.mbarriers.iter().position(|m| m.0 == addr) {
            Some(i) => i,
            None => {
                self.mbarriers
                    .push((addr, Pending::default(), Pending::default()));
                self.mbarriers.len() - 1
            }
        }
    }

    /// Lanes of warp `w` arrive on the `mbarrier` at `addr`: they publish their warp's
    /// clock into the current phase (a release) and go on with an advanced clock.
    pub(super) fn mbarrier_arrive(&mut self, w: usize, lanes: u32, addr: u64) {
        let i = self.mbarrier(addr);
        let row = self.warp_vc[w * self.warps..(w + 1) * self.warps].to_vec();
        let p = &mut self.mbarriers[i].1;
        if p.join.is_empty() {
            p.join = vec![0; row.len()];
        }
        for (j, c) in p.join.iter_mut().zip(row) {
            *j = (*j).max(c);
        }
        p.arrived.push((w as u32, lanes, false));
        self.warp_vc[w * self.warps + w] += 1;
    }

    /// The current phase of the `mbarrier` at `addr` completed.
    pub(super) fn mbarrier_complete(&mut self, addr: u64) {
        let i = self.mbarrier(addr);
        let phase = std::mem::take(&mut self.mbarriers[i].1);
        self.mbarriers[i].2 = phase;
    }

    /// Lanes of warp `w` saw the last completed phase of the `mbarrier` at `addr`: they
    /// learn the clocks its arrivals published (an acquire); lanes of their own warp
    /// that arrived are joined with them as by a `__syncwarp`.
    pub(super) fn mbarrier_wait(&mut self, w: usize, lanes: u32, addr: u64) {
        let i = self.mbarrier(addr);
        let done = &self.mbarriers[i].2;
        if done.join.is_empty() {
            return;
        }
        let own_arrived = done
            .arrived
            .iter()
            .filter(|a| a.0 as usize == w)
            .fold(0, |m, a| m | a.1);
        let row = &mut self.warp_vc[w * self.warps..(w + 1) * self.warps];
        for (c, &j) in row.iter_mut().zip(&done.join) {
            *c = (*c).max(j);
        }
        self.sync_lanes(w, lanes | own_arrived);
    }

    pub(super) fn release(&mut self, id: u32) {
        let p = std::mem::take(&mut self.pending[id as usize & 15]);
        let mut lanes_by_warp: Vec<(usize, u32)> = Vec::new();
        for &(w, lanes, waits) in &p.arrived {
            let w = w as usize;
            if waits {
                let row = &mut self.warp_vc[w * self.warps..(w + 1) * self.warps];
                for (c, &j) in row.iter_mut().zip(&p.join) {
                    *c = (*c).max(j);
                }
            }
            match lanes_by_warp.iter_mut().find(|(x, _)| *x == w) {
                Some((_, m)) => *m |= lanes,
                None => lanes_by_warp.push((w, lanes)),
            }
        }
        for &(w, lanes) in &lanes_by_warp {
            if p.arrived
                .iter()
                .any(|&(x, _, waits)| x as usize == w && waits)
            {
                self.warp_vc[w * self.warps + w] += 1;
            }
            self.sync_lanes(w, lanes);
        }
    }
}
