//! Natural loops (Aho, Sethi, Ullman §9.6): a back edge is an edge `t -> h` whose target
//! dominates its source; the loop of header `h` is `h` plus every block that reaches a
//! latch `t` without passing through `h`. Loops with the same header are merged. A loop
//! nests in the smallest other loop that contains its header; a block's depth is the
//! number of loops containing it.
//!
//! Retreating edges whose target does not dominate their source make the graph
//! irreducible (a loop with two entries); such cycles are not natural loops and are only
//! flagged by [`LoopForest::is_irreducible`].

use crate::cfg::Cfg;
use crate::dom::DomTree;
use crate::entity::{BlockId, EntityRef};

/// One natural loop.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Loop {
    pub header: BlockId,
    /// Sources of the back edges.
    pub latches: Vec<BlockId>,
    /// Blocks of the loop, header included, in id order.
    pub blocks: Vec<BlockId>,
    /// Index of the enclosing loop in [`LoopForest::loops`].
    pub parent: Option<usize>,
    /// 1 for an outermost loop.
    pub depth: u32,
}

impl Loop {
    pub fn contains(&self, block: BlockId) -> bool {
        self.blocks.binary_search(&block).is_ok()
    }
}

/// All natural loops of a function.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct LoopForest {
    /// Outer loops come before the loops they contain.
    pub loops: Vec<Loop>,
    innermost: Vec<Option<usize>>,
    irreducible: bool,
}

impl LoopForest {
    pub(crate) fn compute(cfg: &Cfg, dom: &DomTree) -> LoopForest {
        let n = cfg.num_blocks();
        let mut by_header: Vec<(BlockId, Vec<BlockId>)> = Vec::new();
        let mut irreducible = false;
        for &b in dom.reverse_postorder() {
            for &s in cfg.succs(b) {
                if dom.dominates(s, b) {
                    match by_header.iter_mut().find(|(h, _)| *h == s) {
                        Some((_, latches)) => latches.push(b),
                        None => by_header.push((s, vec![b])),
                    }
                } else if dom.rpo_index(s) <= dom.rpo_index(b) {
                    irreducible = true;
                }
            }
        }
        // One marker array for all loops: `mark[b] == stamp` means "in the current loop",
        // so the work is proportional to the loop bodies, not loops × blocks.
        let mut mark = vec![u32::MAX; n];
        let mut loops: Vec<Loop> = Vec::with_capacity(by_header.len());
        for (stamp, (header, latches)) in by_header.into_iter().enumerate() {
            let stamp = stamp as u32;
            let mut blocks = vec![header];
            mark[header.index()] = stamp;
            let mut stack: Vec<BlockId> = Vec::new();
            for &l in &latches {
                if mark[l.index()] != stamp {
                    mark[l.index()] = stamp;
                    blocks.push(l);
                    stack.push(l);
                }
            }
            while let Some(b) = stack.pop() {
                for &p in cfg.preds(b) {
                    if dom.is_reachable(p) && mark[p.index()] != stamp {
                        mark[p.index()] = stamp;
                        blocks.push(p);
                        stack.push(p);
                    }
                }
            }
            blocks.sort();
            loops.push(Loop {
                header,
                latches,
                blocks,
                parent: None,
                depth: 1,
            });
        }
        // Outer (larger) loops first; ties by header order for determinism.
        loops.sort_by_key(|l| (std::cmp::Reverse(l.blocks.len()), l.header));
        for i in 0..loops.len() {
            let header = loops[i].header;
            let parent = (0..i).rev().find(|&j| {
                loops[j].contains(header) && loops[j].blocks.len() > loops[i].blocks.len()
            });
            loops[i].parent = parent;
            loops[i].depth = parent.map_or(1, |p| loops[p].depth + 1);
        }
        let mut innermost: Vec<Option<usize>> = vec![None; n];
        for (i, l) in loops.iter().enumerate() {
            for b in &l.blocks {
                innermost[b.index()] = Some(i);
            }
        }
        LoopForest {
            loops,
            innermost,
            irreducible,
        }
    }

    /// The innermost loop containing the block.
    pub fn innermost(&self, block: BlockId) -> Option<&Loop> {
        self.innermost
            .get(block.index())
            .copied()
            .flatten()
            .map(|i| &self.loops[i])
    }

    /// Loop nesting depth of a block (0 outside loops).
    pub fn depth(&self, block: BlockId) -> u32 {
        self.innermost(block).map_or(0, |l| l.depth)
    }

    /// Whether the block is the header of a loop.
    pub fn is_header(&self, block: BlockId) -> bool {
        self.loops.iter().any(|l| l.header == block)
    }

    /// Whether the graph has a cycle with more than one entry.
    pub fn is_irreducible(&self) -> bool {
        self.irreducible
    }
}
