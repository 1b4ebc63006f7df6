//! Dominators and post-dominators, by the iterative algorithm of Cooper, Harvey and
//! Kennedy ("A Simple, Fast Dominance Algorithm", 2001).
//!
//! The algorithm numbers the nodes reachable from the root in postorder, then repeats
//! `idom(b) = intersect(idom over the processed predecessors of b)` in reverse postorder
//! until nothing changes; `intersect` walks two candidates up the current tree, always
//! moving the one with the smaller postorder number, until they meet.
//!
//! Post-dominators run the same algorithm on the reversed graph rooted at a virtual exit
//! node that every exiting block (`ret`, `exit`, `trap`, falling off the end) leads to.
//! Blocks that cannot reach an exit — the inside of an infinite loop — would be left out;
//! as LLVM does, we then connect one of them to the virtual exit (the unreached block
//! latest in reverse postorder, i.e. the deepest one, such as the latch of the loop) and
//! repeat until every block reaches the exit. Their immediate post-dominator is then the
//! virtual exit or another block of the same loop, which is the graceful answer for a
//! reconvergence point: such threads only meet again when the function ends.

use crate::cfg::Cfg;
use crate::entity::{BlockId, EntityRef};

/// The dominator tree of the blocks reachable from the entry.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct DomTree {
    idom: Vec<Option<BlockId>>,
    reachable: Vec<bool>,
    rpo: Vec<BlockId>,
    rpo_index: Vec<u32>,
}

impl DomTree {
    pub(crate) fn compute(cfg: &Cfg) -> DomTree {
        let n = cfg.num_blocks();
        let rpo = cfg.reverse_postorder();
        let mut rpo_index = vec![u32::MAX; n];
        for (i, b) in rpo.iter().enumerate() {
            rpo_index[b.index()] = i as u32;
        }
        let order: Vec<usize> = rpo.iter().map(|b| b.index()).collect();
        let idom_raw = chk(n, &order, |b| {
            cfg.preds(BlockId::new(b))
                .iter()
                .map(|p| p.index())
                .collect()
        });
        let mut idom = vec![None; n];
        let mut reachable = vec![false; n];
        for b in 0..n {
            reachable[b] = rpo_index[b] != u32::MAX;
            if let Some(d) = idom_raw[b]
                && d != b
            {
                idom[b] = Some(BlockId::new(d));
            }
        }
        DomTree {
            idom,
            reachable,
            rpo,
            rpo_index,
        }
    }

    /// The immediate dominator; `None` for the entry and for unreachable blocks.
    pub fn idom(&self, block: BlockId) -> Option<BlockId> {
        self.idom.get(block.index()).copied().flatten()
    }

    /// Whether the block is reachable from the entry.
    pub fn is_reachable(&self, block: BlockId) -> bool {
        self.reachable.get(block.index()).copied().unwrap_or(false)
    }

    /// Whether `a` dominates `b` (every block dominates itself; nothing dominates or is
    /// dominated by an unreachable block).
    pub fn dominates(&self, a: BlockId, b: BlockId) -> bool {
        if !self.is_reachable(a) || !self.is_reachable(b) {
            return false;
        }
        let mut x = b;
        loop {
            if x == a {
                return true;
            }
            match self.idom(x) {
                Some(up) => x = up,
                None => return false,
            }
        }
    }

    /// Reachable blocks in reverse postorder.
    pub fn reverse_postorder(&self) -> &[BlockId] {
        &self.rpo
    }

    /// Position in reverse postorder (`None` if unreachable).
    pub fn rpo_index(&self, block: BlockId) -> Option<u32> {
        self.rpo_index
            .get(block.index())
            .copied()
            .filter(|&i| i != u32::MAX)
    }
}

/// The post-dominator tree, rooted at a virtual exit.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct PostDomTree {
    /// `None`: the virtual exit.
    ipdom: Vec<Option<BlockId>>,
    /// Blocks given an artificial edge to the exit because they could not reach one.
    artificial_exits: Vec<BlockId>,
}

impl PostDomTree {
    pub(crate) fn compute(cfg: &Cfg, dom: &DomTree) -> PostDomTree {
        let n = cfg.num_blocks();
        let exit = n;
        // Exit edges, augmented until every block reaches the exit.
        let mut to_exit: Vec<bool> = (0..n).map(|b| cfg.exits(BlockId::new(b))).collect();
        let mut artificial_exits = Vec::new();
        let mut reaches = vec![false; n];
        let mark_from = |start: usize, reaches: &mut Vec<bool>| {
            let mut stack = vec![start];
            reaches[start] = true;
            while let Some(b) = stack.pop() {
                for p in cfg.preds(BlockId::new(b)) {
                    if !reaches[p.index()] {
                        reaches[p.index()] = true;
                        stack.push(p.index());
                    }
                }
            }
        };
        for b in 0..n {
            if to_exit[b] && !reaches[b] {
                mark_from(b, &mut reaches);
            }
        }
        while let Some(pick) = (0..n).filter(|&b| !reaches[b]).max_by_key(|&b| {
            (
                dom.rpo_index(BlockId::new(b)).map_or(0, |i| i as u64 + 1),
                b,
            )
        }) {
            to_exit[pick] = true;
            artificial_exits.push(BlockId::new(pick));
            mark_from(pick, &mut reaches);
        }

        // Reverse graph: node `exit` has reverse-successors = exiting blocks; a block's
        // reverse-successors are its CFG predecessors; its reverse-predecessors are its
        // CFG successors plus `exit` when it exits.
        let reverse_succs = |b: usize| -> Vec<usize> {
            if b == exit {
                (0..n).filter(|&x| to_exit[x]).collect()
            } else {
                cfg.preds(BlockId::new(b))
                    .iter()
                    .map(|p| p.index())
                    .collect()
            }
        };
        // Postorder DFS from the exit on the reverse graph.
        let mut visited = vec![false; n + 1];
        let mut post = Vec::with_capacity(n + 1);
        let mut stack: Vec<(usize, Vec<usize>, usize)> = vec![(exit, reverse_succs(exit), 0)];
        visited[exit] = true;
        while let Some((b, succs, i)) = stack.last_mut() {
            if let Some(&s) = succs.get(*i) {
                *i += 1;
                if !visited[s] {
                    visited[s] = true;
                    let next = reverse_succs(s);
                    stack.push((s, next, 0));
                }
            } else {
                post.push(*b);
                stack.pop();
            }
        }
        let order: Vec<usize> = post.iter().rev().copied().collect();
        let idom_raw = chk(n + 1, &order, |b| {
            if b == exit {
                Vec::new()
            } else {
                let mut v: Vec<usize> = cfg
                    .succs(BlockId::new(b))
                    .iter()
                    .map(|s| s.index())
                    .collect();
                if to_exit[b] {
                    v.push(exit);
                }
                v
            }
        });
        let ipdom = (0..n)
            .map(|b| match idom_raw[b] {
                Some(d) if d != exit && d != b => Some(BlockId::new(d)),
                _ => None,
            })
            .collect();
        PostDomTree {
            ipdom,
            artificial_exits,
        }
    }

    /// The immediate post-dominator; `None` means the virtual exit.
    pub fn ipdom(&self, block: BlockId) -> Option<BlockId> {
        self.ipdom.get(block.index()).copied().flatten()
    }

    /// Whether `a` post-dominates `b` (every block post-dominates itself).
    pub fn post_dominates(&self, a: BlockId, b: BlockId) -> bool {
        let mut x = b;
        for _ in 0..=self.ipdom.len() {
            if x == a {
                return true;
            }
            match self.ipdom(x) {
                Some(up) => x = up,
                None => return false,
            }
        }
        false
    }

    /// Blocks that could not reach an exit (infinite loops) and were connected to the
    /// virtual exit.
    pub fn artificial_exits(&self) -> &[BlockId] {
        &self.artificial_exits
    }
}

/// Cooper–Harvey–Kennedy over nodes `0..n`. `order` lists the nodes reachable from the
/// root in reverse postorder, root first; `preds` gives a node's predecessors. Returns
/// each node's immediate dominator (the root's is itself; unreachable nodes get `None`).
fn chk(n: usize, order: &[usize], preds: impl Fn(usize) -> Vec<usize>) -> Vec<Option<usize>> {
    let mut idom: Vec<Option<usize>> = vec![None; n];
    let Some(&root) = order.first() else {
        return idom;
    };
    // Postorder number: larger = closer to the root.
    let mut po = vec![usize::MAX; n];
    for (i, &b) in order.iter().enumerate() {
        po[b] = order.len() - 1 - i;
    }
    let pred_lists: Vec<Vec<usize>> = order.iter().map(|&b| preds(b)).collect();
    idom[root] = Some(root);
    let intersect = |idom: &[Option<usize>], mut a: usize, mut b: usize| -> usize {
        while a != b {
            while po[a] < po[b] {
                a = idom[a].unwrap_or(root);
            }
            while po[b] < po[a] {
                b = idom[b].unwrap_or(root);
            }
        }
        a
    };
    let mut changed = true;
    while changed {
        changed = false;
        for (i, &b) in order.iter().enumerate().skip(1) {
            let mut new_idom: Option<usize> = None;
            for &p in &pred_lists[i] {
                if p >= n || po[p] == usize::MAX || idom[p].is_none() {
                    continue;
                }
                new_idom = Some(match new_idom {
                    None => p,
                    Some(cur) => intersect(&idom, p, cur),
                });
            }
            if new_idom.is_some() && idom[b] != new_idom {
                idom[b] = new_idom;
                changed = true;
            }
        }
    }
    idom
}
