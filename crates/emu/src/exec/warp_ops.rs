//! Warp-level data exchange: `shfl.sync` (§9.7.8.6), `vote.sync` (§9.7.12.9),
//! `match.sync` (§9.7.12.10), `redux.sync` (§9.7.12.12).
//!
//! The participating lanes are the executing lanes that are in the member mask. A lane
//! that reads from a lane outside them (a shuffle source that is not executing) gets that
//! lane's current register value; PTX leaves the result undefined and the checkers report
//! such uses.

use warpcheck_ir::modifiers::{MatchMode, ReduxOp, ShflMode, VoteMode};

use super::Lanes;

/// Computes a shuffle: the values and the in-range predicate of each lane.
pub(crate) fn shfl(mode: ShflMode, a: &Lanes, b: &Lanes, c: &Lanes) -> (Lanes, u32) {
    let mut out = [0u64; 32];
    let mut pred = 0u32;
    for lane in 0..32i32 {
        let l = lane as usize;
        let bval = (b[l] & 0x1f) as i32;
        let cval = (c[l] & 0x1f) as i32;
        let segmask = ((c[l] >> 8) & 0x1f) as i32;
        let max_lane = (lane & segmask) | (cval & !segmask);
        let min_lane = lane & segmask;
        let (j, pval) = match mode {
            ShflMode::Up => {
                let j = lane - bval;
                (j, j >= max_lane)
            }
            ShflMode::Down => {
                let j = lane + bval;
                (j, j <= max_lane)
            }
            ShflMode::Bfly => {
                let j = lane ^ bval;
                (j, j <= max_lane)
            }
            ShflMode::Idx => {
                let j = min_lane | (bval & !segmask);
                (j, j <= max_lane)
            }
        };
        let src = if pval && (0..32).contains(&j) {
            j
        } else {
            lane
        };
        out[l] = a[src as usize] & 0xffff_ffff;
        pred |= (pval as u32) << lane;
    }
    (out, pred)
}

/// `vote.sync`: the predicate result (all/any/uni) or the ballot mask, given the
/// predicate lanes `p` and the participating lanes.
pub(crate) fn vote(mode: VoteMode, p: u32, participants: u32) -> (bool, u32) {
    let set = p & participants;
    match mode {
        VoteMode::All => (set == participants, 0),
        VoteMode::Any => (set != 0, 0),
        VoteMode::Uni => (set == 0 || set == participants, 0),
        VoteMode::Ballot => (false, set),
    }
}

/// `match.sync`: per lane, the mask of participating lanes holding the same value
/// (`.any`), or for `.all` the participants if all agree (else 0) and the predicate.
pub(crate) fn match_sync(
    mode: MatchMode,
    a: &Lanes,
    wide: bool,
    participants: u32,
) -> (Lanes, u32) {
    let val = |l: usize| if wide { a[l] } else { a[l] & 0xffff_ffff };
    let mut out = [0u64; 32];
    match mode {
        MatchMode::Any => {
            for l in 0..32 {
                let mut m = 0u32;
                for k in 0..32 {
                    if (participants >> k) & 1 == 1 && val(k) == val(l) {
                        m |= 1 << k;
                    }
                }
                out[l] = m as u64;
            }
            (out, 0)
        }
        MatchMode::All => {
            let first = (0..32).find(|&k| (participants >> k) & 1 == 1);
            let all = first
                .is_none_or(|f| (0..32).all(|k| (participants >> k) & 1 == 0 || val(k) == val(f)));
            let v = if all { participants as u64 } else { 0 };
            (out.map(|_| v), if all { u32::MAX } else { 0 })
        }
    }
}

/// `redux.sync`: the reduction over the participating lanes.
pub(crate) fn redux(op: ReduxOp, signed: bool, a: &Lanes, participants: u32) -> u64 {
    let lanes = (0..32)
        .filter(|&l| (participants >> l) & 1 == 1)
        .map(|l| a[l] as u32);
    let r: u32 = match op {
        ReduxOp::Add => lanes.fold(0u32, |x, y| x.wrapping_add(y)),
        ReduxOp::And => lanes.fold(u32::MAX, |x, y| x & y),
        ReduxOp::Or => lanes.fold(0, |x, y| x | y),
        ReduxOp::Xor => lanes.fold(0, |x, y| x ^ y),
        ReduxOp::Min if signed => lanes.map(|x| x as i32).min().unwrap_or(i32::MAX) as u32,
        ReduxOp::Max if signed => lanes.map(|x| x as i32).max().unwrap_or(i32::MIN) as u32,
        ReduxOp::Min => lanes.min().unwrap_or(u32::MAX),
        ReduxOp::Max => lanes.max().unwrap_or(0),
    };
    r as u64
}

#[cfg(test)]
mod tests {
    use super::*;

    fn iota() -> Lanes {
        std::array::from_fn(|i| i as u64 * 10)
    }

    #[test]
    fn shuffle_down_clamps_at_the_segment_end() {
        let (v, p) = shfl(ShflMode::Down, &iota(), &[16; 32], &[0x1f; 32]);
        assert_eq!(v[0], 160);
        assert_eq!(v[20], 200, "out of range keeps the own value");
        assert_eq!(p, 0x0000_ffff);
        // Width 16: c = ((32-16) << 8) | 0x1f.
        let (v, _) = shfl(ShflMode::Down, &iota(), &[8; 32], &[(16 << 8) | 0x1f; 32]);
        assert_eq!((v[0], v[8], v[16], v[24]), (80, 80, 240, 240));
    }

    #[test]
    fn shuffle_up_bfly_idx() {
        let (v, p) = shfl(ShflMode::Up, &iota(), &[1; 32], &[0; 32]);
        assert_eq!((v[0], v[1], v[31]), (0, 0, 300));
        assert_eq!(p & 1, 0);
        let (v, _) = shfl(ShflMode::Bfly, &iota(), &[1; 32], &[0x1f; 32]);
        assert_eq!((v[0], v[1]), (10, 0));
        let (v, _) = shfl(ShflMode::Idx, &iota(), &[5; 32], &[0x1f; 32]);
        assert!(v.iter().all(|&x| x == 50));
    }

    #[test]
    fn votes_and_reductions() {
        assert_eq!(vote(VoteMode::Ballot, 0b1010, 0b0110).1, 0b0010);
        assert!(!vote(VoteMode::All, 0b1010, 0b0110).0);
        assert!(vote(VoteMode::Any, 0b1010, 0b0110).0);
        assert_eq!(redux(ReduxOp::Add, false, &iota(), 0b111), 30);
        let (m, _) = match_sync(
            MatchMode::Any,
            &std::array::from_fn(|i| (i % 2) as u64),
            false,
            u32::MAX,
        );
        assert_eq!(m[0], 0x5555_5555);
    }
}
