//! What one warp-level access costs, from its lanes' addresses (README conventions of
//! `tests/kernels`, which match Nsight Compute's counters).
//!
//! * Global memory: `S` = distinct 32-byte sectors touched by the active lanes,
//!   `I = ⌈distinct bytes / 32⌉` the fewest sectors that could hold them; the access is
//!   uncoalesced when `S ≥ 2·I` and `S ≥ I + 2`.
//! * Shared memory: 32 banks of 4-byte words; accesses up to 4 bytes are served for the
//!   whole warp at once, 8-byte ones per half-warp and 16-byte ones per quarter-warp; in
//!   each phase a bank serves its distinct words one after the other (equal words are
//!   broadcast). The degree is the largest number of distinct words a bank serves.

/// Sectors touched and the fewest sectors the bytes need.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Sectors {
    pub touched: u32,
    pub ideal: u32,
}

impl Sectors {
    pub fn is_uncoalesced(self) -> bool {
        self.touched >= 2 * self.ideal && self.touched >= self.ideal + 2
    }
}

/// `lanes`: (lane, byte address) of the active lanes; `bytes` per lane.
pub fn sectors(lanes: &[(u32, i128)], bytes: u32) -> Sectors {
    let bytes = bytes.max(1) as i128;
    let mut sectors: Vec<i128> = Vec::with_capacity(lanes.len() * 2);
    let mut ranges: Vec<(i128, i128)> = Vec::with_capacity(lanes.len());
    for &(_, a) in lanes {
        sectors.push(a.div_euclid(32));
        sectors.push((a + bytes - 1).div_euclid(32));
        ranges.push((a, a + bytes));
    }
    sectors.sort_unstable();
    sectors.dedup();
    // Distinct bytes: the length of the union of the lanes' ranges (accesses over 32
    // bytes do not occur, so the sectors strictly inside a range are the two ends').
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
        touched: sectors.len() as u32,
        ideal: (distinct as u32).div_ceil(32),
    }
}

/// The bank-conflict degree of one warp-level shared access.
pub fn bank_degree(lanes: &[(u32, i128)], bytes: u32) -> u32 {
    let per_phase = match bytes {
        0..=4 => 32,
        5..=8 => 16,
        _ => 8,
    };
    let words_per_lane = (bytes.max(4) / 4) as i128;
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
    let mut words: Vec<i128> = Vec::with_capacity(32 * words_per_lane as usize);
    let mut start = 0;
    while start < lanes.len() {
        let phase = lanes[start].0 / per_phase;
        let mut end = start;
        words.clear();
        while end < lanes.len() && lanes[end].0 / per_phase == phase {
            let first = lanes[end].1.div_euclid(4);
            words.extend(first..first + words_per_lane);
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

#[cfg(test)]
mod tests {
    use super::*;

    fn strided(stride: i128, _bytes: u32) -> Vec<(u32, i128)> {
        (0..32).map(|l| (l as u32, l as i128 * stride)).collect()
    }

    #[test]
    fn sectors_per_request() {
        assert_eq!(
            sectors(&strided(4, 4), 4),
            Sectors {
                touched: 4,
                ideal: 4
            }
        );
        let s2 = sectors(&strided(8, 4), 4);
        assert_eq!(
            s2,
            Sectors {
                touched: 8,
                ideal: 4
            }
        );
        assert!(s2.is_uncoalesced());
        assert_eq!(sectors(&strided(128, 4), 4).touched, 32);
        // Shifted off sector boundaries by 4 bytes: one more sector, still coalesced.
        let shifted: Vec<(u32, i128)> = (0..32).map(|l| (l, 4 + 4 * l as i128)).collect();
        assert!(!sectors(&shifted, 4).is_uncoalesced());
        // One lane: one sector.
        assert_eq!(
            sectors(&[(0, 1000)], 4),
            Sectors {
                touched: 1,
                ideal: 1
            }
        );
        // Broadcast.
        assert_eq!(sectors(&strided(0, 4), 4).touched, 1);
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
}
