//! What one warp-level access costs, from its lanes' addresses (README conventions of
//! `tests/kernels`, which match Nsight Compute's counters).
//!
//! * Global memory: `S` = distinct 32-byte sectors touched by the active lanes,
//!   `I = ⌈distinct bytes / 32⌉` the fewest sectors that could hold them; the access is
//!   uncoalesced when `S ≥ 2·I` and `S ≥ I + 2`.
//! * Global memory by GPUDrano's definition (§3.2, [`Granularity::Lines`]): `L` = distinct
//!   128-byte lines touched, `I = ⌈distinct bytes / 128⌉`; uncoalesced when `L > I`. This
//!   counts a warp of 16-float rows two rows apart, or a unit-stride warp shifted off a line
//!   boundary, as uncoalesced (Kepler's 128-byte transactions), where sectors do not.
//! * Shared memory: 32 banks of 4-byte words; accesses up to 4 bytes are served for the
//!   whole warp at once, 8-byte ones per half-warp and 16-byte ones per quarter-warp; in
//!   each phase a bank serves its distinct words one after the other (equal words are
//!   broadcast). The degree is the largest number of distinct words a bank serves.

/// The unit in which global accesses are counted, and when an access is uncoalesced.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Granularity {
    /// 32-byte sectors, uncoalesced when `S ≥ 2·I` and `S ≥ I + 2` (Nsight Compute's
    /// counters; the corpus convention).
    #[default]
    Sectors,
    /// 128-byte cache lines, uncoalesced when a warp touches more lines than its bytes
    /// need (GPUDrano §3.2 with the threshold at the ideal).
    Lines,
}

impl Granularity {
    /// Bytes per transaction.
    pub fn bytes(self) -> i128 {
        match self {
            Granularity::Sectors => 32,
            Granularity::Lines => 128,
        }
    }

    /// The unit's name in messages, plural.
    pub fn unit(self) -> &'static str {
        match self {
            Granularity::Sectors => "sectors",
            Granularity::Lines => "128-byte lines",
        }
    }
}

/// Transactions (sectors or lines) touched and the fewest the bytes need.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Sectors {
    pub touched: u32,
    pub ideal: u32,
    pub granularity: Granularity,
}

impl Sectors {
    pub fn is_uncoalesced(self) -> bool {
        match self.granularity {
            Granularity::Sectors => {
                self.touched >= 2 * self.ideal && self.touched >= self.ideal + 2
            }
            Granularity::Lines => self.touched > self.ideal,
        }
    }
}

/// 32-byte sectors of one warp-level access. `lanes`: (lane, byte address) of the active
/// lanes; `bytes` per lane.
pub fn sectors(lanes: &[(u32, i128)], bytes: u32) -> Sectors {
    transactions(lanes, bytes, Granularity::Sectors)
}

/// Sectors or lines of one warp-level access.
pub fn transactions(lanes: &[(u32, i128)], bytes: u32, granularity: Granularity) -> Sectors {
    record_transactions(lanes, &[(0, bytes)], granularity)
}

/// Sectors or lines of one record access: each lane touches `pieces` (byte offset from its
/// address, bytes; at most 16 bytes each), and the warp's bytes are their union. One piece
/// `(0, bytes)` is a plain access.
pub fn record_transactions(
    lanes: &[(u32, i128)],
    pieces: &[(i128, u32)],
    granularity: Granularity,
) -> Sectors {
    let size = granularity.bytes();
    let mut units: Vec<i128> = Vec::with_capacity(lanes.len() * pieces.len() * 2);
    let mut ranges: Vec<(i128, i128)> = Vec::with_capacity(lanes.len() * pieces.len());
    for &(_, a) in lanes {
        for &(off, bytes) in pieces {
            let a = a + off;
            let bytes = bytes.max(1) as i128;
            // Accesses are at most 16 bytes: their first and last byte name every unit.
            units.push(a.div_euclid(size));
            units.push((a + bytes - 1).div_euclid(size));
            ranges.push((a, a + bytes));
        }
    }
    units.sort_unstable();
    units.dedup();
    // Distinct bytes: the length of the union of the lanes' ranges.
    ranges.sort_unstable();
    let mut distinct = 0i128;
    let mut end = i128::MIN;
    for (lo, hi) in ranges {
        let lo = lo.max(end);
        if hi > lo {
            distinct += hi - lo;
        }
        end = end.max(hi);
    }
    Sectors {
        touched: units.len() as u32,
        ideal: (distinct as u32).div_ceil(size as u32),
        granularity,
    }
}

/// The bank-conflict degree of one warp-level shared access.
pub fn bank_degree(lanes: &[(u32, i128)], bytes: u32) -> u32 {
    record_bank_degree(lanes, &[(0, bytes)])
}

/// The bank-conflict degree of one record access (`pieces` as for [`record_transactions`]),
/// served as one access as wide as the record's footprint (the first to the last byte of
/// its pieces: up to 4 bytes a whole warp per phase, 8 a half-warp, 16 a quarter-warp), on
/// the distinct words its pieces touch.
pub fn record_bank_degree(lanes: &[(u32, i128)], pieces: &[(i128, u32)]) -> u32 {
    let lo = pieces.iter().map(|p| p.0).min().unwrap_or(0);
    let hi = pieces
        .iter()
        .map(|p| p.0 + p.1.max(1) as i128)
        .max()
        .unwrap_or(4);
    let per_phase = match hi - lo {
        ..=4 => 32,
        5..=8 => 16,
        _ => 8,
    };
    let mut worst = 0;
    let sorted;
    let lanes = if lanes.windows(2).all(|w| w[0].0 <= w[1].0) {
        lanes
    } else {
        let mut v = lanes.to_vec();
        v.sort_unstable_by_key(|l| l.0);
        sorted = v;
        &sorted[..]
    };
    // Lanes are in ascending order; a phase is a run of lanes with one `lane / per_phase`.
    let mut words: Vec<i128> = Vec::with_capacity(32 * 4);
    let mut start = 0;
    while start < lanes.len() {
        let phase = lanes[start].0 / per_phase;
        let mut end = start;
        words.clear();
        while end < lanes.len() && lanes[end].0 / per_phase == phase {
            for &(off, bytes) in pieces {
                // A piece of up to 4 bytes is one (aligned) word; wider ones are whole words.
                let first = (lanes[end].1 + off).div_euclid(4);
                let n = (bytes.max(4) / 4) as i128;
                words.extend(first..first + n);
            }
            end += 1;
        }
        words.sort_unstable();
        words.dedup();
        let mut per_bank = [0u32; 32];
        for w in &words {
            per_bank[w.rem_euclid(32) as usize] += 1;
        }
        worst = worst.max(per_bank.into_iter().max().unwrap_or(0));
        start = end;
    }
    worst
}

/// The lanes of the piece at byte offset `off` of a record access.
fn piece_lanes(lanes: &[(u32, i128)], off: i128) -> Vec<(u32, i128)> {
    lanes.iter().map(|&(l, a)| (l, a + off)).collect()
}

/// A record access's global cost, judged on the record (the union of its pieces: the
/// components of one record that the compiler split into narrower accesses, see
/// `rules`): `None` when the record access is not uncoalesced; otherwise the worst
/// piece's own sectors, which is what the hardware (and `warpcheck check`) counts per
/// instruction. For one piece, the access's own sectors when uncoalesced.
pub fn judge_sectors(
    lanes: &[(u32, i128)],
    pieces: &[(i128, u32)],
    granularity: Granularity,
) -> Option<Sectors> {
    if let [(0, bytes)] = pieces {
        let s = transactions(lanes, *bytes, granularity);
        return s.is_uncoalesced().then_some(s);
    }
    if !record_transactions(lanes, pieces, granularity).is_uncoalesced() {
        return None;
    }
    pieces
        .iter()
        .map(|&(off, bytes)| transactions(&piece_lanes(lanes, off), bytes, granularity))
        .max_by_key(|s| (s.touched, std::cmp::Reverse(s.ideal)))
}

/// A record access's bank-conflict degree, judged on the record as [`judge_sectors`]:
/// `None` when the record access is conflict-free; otherwise the worst piece's own degree.
pub fn judge_banks(lanes: &[(u32, i128)], pieces: &[(i128, u32)]) -> Option<u32> {
    if let [(0, bytes)] = pieces {
        let d = bank_degree(lanes, *bytes);
        return (d >= 2).then_some(d);
    }
    if record_bank_degree(lanes, pieces) < 2 {
        return None;
    }
    pieces
        .iter()
        .map(|&(off, bytes)| bank_degree(&piece_lanes(lanes, off), bytes))
        .max()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn strided(stride: i128, _bytes: u32) -> Vec<(u32, i128)> {
        (0..32).map(|l| (l as u32, l as i128 * stride)).collect()
    }

    #[test]
    fn sectors_per_request() {
        let s1 = sectors(&strided(4, 4), 4);
        assert_eq!((s1.touched, s1.ideal), (4, 4));
        let s2 = sectors(&strided(8, 4), 4);
        assert_eq!((s2.touched, s2.ideal), (8, 4));
        assert!(s2.is_uncoalesced());
        assert_eq!(sectors(&strided(128, 4), 4).touched, 32);
        // Shifted off sector boundaries by 4 bytes: one more sector, still coalesced.
        let shifted: Vec<(u32, i128)> = (0..32).map(|l| (l, 4 + 4 * l as i128)).collect();
        assert!(!sectors(&shifted, 4).is_uncoalesced());
        // One lane: one sector.
        let one = sectors(&[(0, 1000)], 4);
        assert_eq!((one.touched, one.ideal), (1, 1));
        // Broadcast.
        assert_eq!(sectors(&strided(0, 4), 4).touched, 1);
    }

    #[test]
    fn lines_per_request_follow_gpudrano() {
        let lines = |lanes: &[(u32, i128)], bytes| transactions(lanes, bytes, Granularity::Lines);
        // Unit stride, aligned: one line.
        let aligned = lines(&strided(4, 4), 4);
        assert_eq!((aligned.touched, aligned.ideal), (1, 1));
        assert!(!aligned.is_uncoalesced());
        // Shifted by 8 bytes (GPUDrano §3.2's alignment example): two lines for 128 bytes.
        let shifted: Vec<(u32, i128)> = (0..32).map(|l| (l, 8 + 4 * l as i128)).collect();
        let s = lines(&shifted, 4);
        assert_eq!((s.touched, s.ideal), (2, 1));
        assert!(s.is_uncoalesced());
        // The same warp in sectors: 5 for 4, coalesced.
        assert!(!sectors(&shifted, 4).is_uncoalesced());
        // Two rows of 16 floats 8 KiB apart (a 16×16 block): 2 lines for 128 bytes, while
        // its 4 sectors are ideal.
        let rows: Vec<(u32, i128)> = (0..32)
            .map(|l| (l, (l as i128 / 16) * 8192 + 4 * (l as i128 % 16)))
            .collect();
        assert!(lines(&rows, 4).is_uncoalesced());
        assert!(!sectors(&rows, 4).is_uncoalesced());
        // Unit-stride doubles: 256 bytes need two lines; ideal.
        assert!(!lines(&strided(8, 8), 8).is_uncoalesced());
        // Stride 8 bytes for floats: 2 lines for 128 bytes.
        assert!(lines(&strided(8, 4), 4).is_uncoalesced());
        // One lane: one line.
        assert!(!lines(&[(0, 1000)], 4).is_uncoalesced());
    }

    #[test]
    fn bank_conflict_degrees() {
        assert_eq!(bank_degree(&strided(4, 4), 4), 1);
        assert_eq!(bank_degree(&strided(8, 4), 4), 2);
        assert_eq!(bank_degree(&strided(128, 4), 4), 32);
        assert_eq!(bank_degree(&strided(132, 4), 4), 1);
        assert_eq!(bank_degree(&strided(0, 4), 4), 1);
        // 8-byte accesses by half-warps: consecutive float2 are conflict-free.
        assert_eq!(bank_degree(&strided(8, 8), 8), 1);
        // 64 words apart: every lane of a phase in one bank.
        assert_eq!(bank_degree(&strided(256, 4), 4), 32);
        // Lanes out of order: the same phases.
        let mut rev = strided(8, 8);
        rev.reverse();
        assert_eq!(bank_degree(&rev, 8), 1);
        let mut rev = strided(128, 4);
        rev.reverse();
        assert_eq!(bank_degree(&rev, 4), 32);
    }

    #[test]
    fn split_records_are_judged_on_their_union() {
        // A float4 as four 4-byte pieces: each alone 16 sectors for 4, together the
        // 512 contiguous bytes of one 16-byte access.
        let quads = strided(16, 4);
        let four = [(0, 4), (4, 4), (8, 4), (12, 4)];
        assert!(sectors(&quads, 4).is_uncoalesced());
        let u = record_transactions(&quads, &four, Granularity::Sectors);
        assert_eq!((u.touched, u.ideal), (16, 16));
        assert_eq!(judge_sectors(&quads, &four, Granularity::Sectors), None);
        // Shifted by one float (misaligned float4s): 17 sectors for 16, still coalesced.
        let shifted: Vec<(u32, i128)> = (0..32).map(|l| (l, 4 + 16 * l as i128)).collect();
        assert_eq!(judge_sectors(&shifted, &four, Granularity::Sectors), None);
        // A uchar4 of which three bytes are read: 96 bytes in 4 sectors.
        let px = strided(4, 1);
        assert!(sectors(&px, 1).is_uncoalesced());
        assert_eq!(
            judge_sectors(&px, &[(0, 1), (1, 1), (2, 1)], Granularity::Sectors),
            None
        );
        // float4 records 64 bytes apart: uncoalesced as a record too; the pieces' own cost.
        let sparse = strided(64, 8);
        let halves = [(0, 8), (8, 8)];
        let s = judge_sectors(&sparse, &halves, Granularity::Sectors).expect("strided");
        assert_eq!((s.touched, s.ideal), (32, 8));
        // Shared: 8-byte halves of consecutive float4s are 2-way alone, conflict-free as a
        // 16-byte access; two float4s apart, each half is 4-way (the float4 2-way).
        assert_eq!(bank_degree(&strided(16, 8), 8), 2);
        assert_eq!(judge_banks(&strided(16, 8), &halves), None);
        assert_eq!(record_bank_degree(&strided(32, 8), &halves), 2);
        assert_eq!(judge_banks(&strided(32, 8), &halves), Some(4));
        // One piece is the plain access.
        assert_eq!(judge_banks(&strided(128, 4), &[(0, 4)]), Some(32));
    }
}
