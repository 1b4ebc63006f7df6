//! Which blocks of a big launch the race checker watches (block sampling); GPU mode
//! (`warpcheck-gpu`) watches the same blocks when checking every unit would take too many
//! memory-adaptive rounds.
//!
//! Race checking costs 5–15× the emulation of the accesses it watches, mostly in shadow
//! memory and in comparing every block's global accesses with earlier blocks'. On big
//! grids that cost buys little: the blocks of a launch run the same code on shifted data,
//! so a race that one block has, its peers have too (Park, Sen, Iancu, ICS 2013: sampling
//! with the instances that matter kept found every known race at ≤ 50 % overhead). Which
//! instances matter on a GPU:
//!
//! * the **first and last blocks** along each grid dimension: partial tiles, bounds
//!   checks and off-by-one errors live at the edges of the grid;
//! * **pairs of neighbouring blocks**: most races between blocks are between neighbours
//!   (halos, overlapping tiles, an element written by one block and read by the next);
//!   a pair of far-apart blocks catches the rest (every block writing one element);
//! * the **same coordinates in every dimension**, so that a block and its transposed
//!   partner (block (x, y) writing the tile block (y, x) reads) are both watched when
//!   the grid is square.
//!
//! So per dimension of extent `g` the sample keeps coordinates 0, 1, g−2, g−1 and then
//! adjacent pairs (k, k+1) at seeded pseudo-random positions until the product over the
//! dimensions reaches the budget; a block is watched when each of its coordinates is
//! kept. Every block still runs, and every other checker (sync, init, bank, coalescing,
//! memory faults) still sees every block: sampling changes only which blocks' accesses
//! the race checker compares (in GPU mode the unwatched blocks share one private copy).
//! Grids of at most `budget` blocks are watched entirely.

/// How many blocks of a launch the race checker watches.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RaceBlocks {
    /// Every block.
    All,
    /// At most this many blocks (at least 16), chosen as the module describes.
    Sample(u32),
}

impl Default for RaceBlocks {
    fn default() -> Self {
        RaceBlocks::Sample(RaceBlocks::DEFAULT_BUDGET)
    }
}

impl RaceBlocks {
    /// The default budget: grids up to this many blocks are checked entirely.
    pub const DEFAULT_BUDGET: u32 = 256;

    /// Parses `all` or a number of blocks (at least 16).
    pub fn parse(s: &str) -> Result<RaceBlocks, String> {
        if s == "all" {
            return Ok(RaceBlocks::All);
        }
        match s.parse::<u32>() {
            Ok(n) if n >= 16 => Ok(RaceBlocks::Sample(n)),
            Ok(_) => Err("--race-blocks needs at least 16 blocks (or `all`)".into()),
            Err(_) => Err(format!(
                "--race-blocks expects `all` or a number of blocks, not `{s}`"
            )),
        }
    }
}

/// The blocks of one launch that the race checker watches.
#[derive(Clone, Debug)]
pub struct BlockSample {
    /// Per dimension, the coordinates kept (sorted); `None` when every block is watched.
    kept: Option<[Vec<u32>; 3]>,
    watched: u64,
    total: u64,
}

impl BlockSample {
    pub fn new(grid: [u32; 3], policy: RaceBlocks, seed: u64) -> BlockSample {
        let total: u64 = grid.iter().map(|&g| u64::from(g)).product();
        let budget = match policy {
            RaceBlocks::All => u64::MAX,
            RaceBlocks::Sample(n) => u64::from(n),
        };
        if total <= budget {
            return BlockSample {
                kept: None,
                watched: total,
                total,
            };
        }
        // Per dimension: the coordinates in the order they join the sample. Each
        // dimension draws from the same seed, so dimensions of equal extent keep the
        // same coordinates.
        let order: [Vec<u32>; 3] = std::array::from_fn(|d| {
            let g = grid[d];
            let mut rng = SplitMix(seed ^ 0x9e37_79b9_7f4a_7c15);
            let mut out: Vec<u32> = Vec::new();
            let mut seen = std::collections::HashSet::new();
            let mut push = |c: u32, out: &mut Vec<u32>| {
                if c < g && seen.insert(c) {
                    out.push(c);
                }
            };
            for c in [0, 1, g.saturating_sub(2), g.saturating_sub(1)] {
                push(c, &mut out);
            }
            // Then adjacent pairs at seeded positions; enough candidates for any budget
            // (the loop below stops taking them when the budget is reached).
            let wanted = (budget.min(u64::from(g))) as usize;
            let mut tries = 0;
            while out.len() < wanted && tries < 4 * wanted + 64 {
                tries += 1;
                let k = (rng.next() % u64::from(g.max(2) - 1)) as u32;
                push(k, &mut out);
                push(k + 1, &mut out);
            }
            out
        });
        // Grow the dimensions in turn, one pair (or edge set) at a time, while the
        // product stays within the budget. Every dimension starts with its edges (at
        // most 4 coordinates), or one coordinate if even that would exceed the budget.
        let mut take: [usize; 3] = std::array::from_fn(|d| order[d].len().min(4));
        let product = |t: &[usize; 3]| t.iter().map(|&x| x as u64).product::<u64>();
        while product(&take) > budget {
            // Shrink the largest dimension's edge set (keeps coordinate 0 at least).
            let d = (0..3).max_by_key(|&d| take[d]).unwrap_or(0);
            if take[d] <= 1 {
                break;
            }
            take[d] -= 1;
        }
        let mut grew = true;
        while grew {
            grew = false;
            for d in 0..3 {
                let next = (take[d] + 2).min(order[d].len());
                if next == take[d] {
                    continue;
                }
                let mut t = take;
                t[d] = next;
                if product(&t) <= budget {
                    take = t;
                    grew = true;
                }
            }
        }
        let kept: [Vec<u32>; 3] = std::array::from_fn(|d| {
            let mut v = order[d][..take[d]].to_vec();
            v.sort_unstable();
            v
        });
        BlockSample {
            kept: Some(kept),
            watched: product(&take),
            total,
        }
    }

    /// Whether the race checker watches this block.
    pub fn watches(&self, block: [u32; 3]) -> bool {
        match &self.kept {
            None => true,
            Some(kept) => (0..3).all(|d| kept[d].binary_search(&block[d]).is_ok()),
        }
    }

    /// Blocks watched and blocks in the launch.
    pub fn counts(&self) -> (u64, u64) {
        (self.watched, self.total)
    }

    pub fn is_complete(&self) -> bool {
        self.kept.is_none()
    }
}

/// A small deterministic generator (SplitMix64) for the sample's positions.
struct SplitMix(u64);

impl SplitMix {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn watched(s: &BlockSample, grid: [u32; 3]) -> Vec<[u32; 3]> {
        let mut out = Vec::new();
        for z in 0..grid[2] {
            for y in 0..grid[1] {
                for x in 0..grid[0] {
                    if s.watches([x, y, z]) {
                        out.push([x, y, z]);
                    }
                }
            }
        }
        out
    }

    #[test]
    fn small_grids_are_watched_entirely() {
        let s = BlockSample::new([16, 16, 1], RaceBlocks::default(), 1);
        assert!(s.is_complete());
        assert_eq!(watched(&s, [16, 16, 1]).len(), 256);
        let s = BlockSample::new([100_000, 1, 1], RaceBlocks::All, 1);
        assert!(s.is_complete() && s.watches([99_999, 0, 0]));
    }

    #[test]
    fn a_sample_keeps_edges_and_neighbour_pairs_within_the_budget() {
        let grid = [65_536, 1, 1];
        let s = BlockSample::new(grid, RaceBlocks::Sample(256), 7);
        let w = watched(&s, grid);
        assert_eq!(w.len() as u64, s.counts().0);
        assert!(w.len() <= 256 && w.len() >= 250, "{}", w.len());
        for edge in [0, 1, 65_534, 65_535] {
            assert!(s.watches([edge, 0, 0]));
        }
        // Every watched block has a watched neighbour.
        for b in &w {
            let x = b[0];
            assert!(
                (x > 0 && s.watches([x - 1, 0, 0])) || s.watches([x + 1, 0, 0]),
                "block {x} has no watched neighbour"
            );
        }
    }

    #[test]
    fn two_dimensional_samples_are_products_of_coordinates() {
        let grid = [128, 128, 1];
        let s = BlockSample::new(grid, RaceBlocks::Sample(256), 3);
        let w = watched(&s, grid);
        assert_eq!(w.len(), 256);
        for corner in [
            [0, 0, 0],
            [127, 0, 0],
            [0, 127, 0],
            [127, 127, 0],
            [1, 126, 0],
        ] {
            assert!(s.watches(corner), "{corner:?}");
        }
        // The same seed gives the same sample; x and y keep the same coordinates on a
        // square grid (transposed partners are watched together).
        let again = BlockSample::new(grid, RaceBlocks::Sample(256), 3);
        assert_eq!(watched(&again, grid), w);
    }

    #[test]
    fn budgets_parse() {
        assert_eq!(RaceBlocks::parse("all"), Ok(RaceBlocks::All));
        assert_eq!(RaceBlocks::parse("1024"), Ok(RaceBlocks::Sample(1024)));
        assert!(RaceBlocks::parse("3").is_err());
        assert!(RaceBlocks::parse("lots").is_err());
    }
}
