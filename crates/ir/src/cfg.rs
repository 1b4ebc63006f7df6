//! The control-flow graph of a function body.
//!
//! Successors of a block, by its last instruction (PTX ISA §9.7.11):
//! * `bra L`: `L`; guarded, also the next block (the fall-through);
//! * `brx.idx i, T`: every entry of the `.branchtargets` list `T` (deduplicated, in list
//!   order); guarded, also the next block;
//! * `ret`, `exit`, `trap`: none — the block leaves the function (an edge to the virtual
//!   exit); guarded, also the next block;
//! * anything else: the next block in layout order, or the virtual exit after the last
//!   block.
//!
//! Successor lists keep the branch target first, so for a guarded `bra` `succs[0]` is the
//! taken side and `succs[1]` the fall-through (both the same block collapse to one edge).

use crate::entity::{BlockId, EntityRef, EntityVec, InstId};
use crate::isa::Op;
use crate::operand::Operand;
use crate::program::{Block, BranchTable, Inst};

/// Successors and predecessors of every block, and which blocks leave the function.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Cfg {
    succs: Vec<Vec<BlockId>>,
    preds: Vec<Vec<BlockId>>,
    /// Whether the block can leave the function (ret/exit/trap, or falling off the end).
    exits: Vec<bool>,
}

impl Cfg {
    /// Builds the graph from the blocks and their terminators.
    pub(crate) fn compute(
        blocks: &EntityVec<BlockId, Block>,
        insts: &EntityVec<InstId, Inst>,
        operands: &[Operand],
        branch_tables: &[BranchTable],
    ) -> Cfg {
        let n = blocks.len();
        let mut succs = vec![Vec::new(); n];
        let mut exits = vec![false; n];
        for (b, block) in blocks.iter() {
            let next = (b.index() + 1 < n).then(|| BlockId::new(b.index() + 1));
            let out = &mut succs[b.index()];
            let mut fall_through = true;
            if !block.is_empty() {
                let last = &insts[InstId::new(block.end.index() - 1)];
                let guarded = last.guard.is_some();
                let ops = operands.get(last.operands.range()).unwrap_or(&[]);
                match last.op {
                    Op::Bra { .. } => {
                        if let Some(Operand::Label(target)) = ops.first() {
                            out.push(*target);
                        }
                        fall_through = guarded;
                    }
                    Op::BrxIdx { .. } => {
                        if let Some(Operand::BranchTable(t)) = ops.get(1)
                            && let Some(table) = branch_tables.get(*t as usize)
                        {
                            for &target in &table.targets {
                                if !out.contains(&target) {
                                    out.push(target);
                                }
                            }
                        }
                        fall_through = guarded;
                    }
                    Op::Ret { .. } | Op::Exit {} | Op::Trap {} => {
                        exits[b.index()] = true;
                        fall_through = guarded;
                    }
                    _ => {}
                }
            }
            if fall_through {
                match next {
                    Some(next) if !out.contains(&next) => out.push(next),
                    Some(_) => {}
                    None => exits[b.index()] = true,
                }
            }
        }
        let mut preds = vec![Vec::new(); n];
        for (b, out) in succs.iter().enumerate() {
            for s in out {
                if let Some(p) = preds.get_mut(s.index()) {
                    p.push(BlockId::new(b));
                }
            }
        }
        Cfg {
            succs,
            preds,
            exits,
        }
    }

    pub fn num_blocks(&self) -> usize {
        self.succs.len()
    }

    pub fn succs(&self, block: BlockId) -> &[BlockId] {
        self.succs.get(block.index()).map_or(&[], |v| v.as_slice())
    }

    pub fn preds(&self, block: BlockId) -> &[BlockId] {
        self.preds.get(block.index()).map_or(&[], |v| v.as_slice())
    }

    /// Whether the block can leave the function (an edge to the virtual exit).
    pub fn exits(&self, block: BlockId) -> bool {
        self.exits.get(block.index()).copied().unwrap_or(false)
    }

    /// Blocks in reverse postorder of a depth-first search from the entry; blocks not
    /// reachable from the entry are left out.
    pub fn reverse_postorder(&self) -> Vec<BlockId> {
        let n = self.num_blocks();
        if n == 0 {
            return Vec::new();
        }
        let mut visited = vec![false; n];
        let mut post = Vec::with_capacity(n);
        // Iterative DFS: (block, next successor index).
        let mut stack: Vec<(usize, usize)> = vec![(0, 0)];
        visited[0] = true;
        while let Some(&mut (b, ref mut i)) = stack.last_mut() {
            if let Some(&s) = self.succs[b].get(*i) {
                *i += 1;
                if !visited[s.index()] {
                    visited[s.index()] = true;
                    stack.push((s.index(), 0));
                }
            } else {
                post.push(BlockId::new(b));
                stack.pop();
            }
        }
        post.reverse();
        post
    }
}
