//! Whether a kernel's results can depend on the order in which its blocks run.
//!
//! Blocks run on several host threads, so blocks that touch the same global memory
//! interleave differently from run to run. Plain accesses that do so race (the race
//! checker reports them); atomics do not race, but they make the outcome depend on the
//! order when the order matters to them:
//!
//! * an atomic whose old value the kernel reads (`atom` with a used destination: a
//!   ticket, a queue slot, "am I the last block"): which block gets which value is the
//!   order itself, and everything that branches on or indexes with it follows;
//! * an atomic whose effect depends on the order even unread: `exch` and `cas` (the last
//!   or first writer wins), `inc` and `dec` (wrapping at a bound), and floating-point
//!   `add` (rounding depends on the order of the additions).
//!
//! Integer `add`, `and`, `or`, `xor`, `min` and `max` whose result is never read commute:
//! any order leaves the same bytes. A kernel with any of the order-dependent atomics on
//! global (or generic, possibly global) memory is *order-sensitive*: the launcher then runs
//! its blocks one after another in block order unless the caller asked for host threads
//! explicitly, so that the same input gives the same outputs and the same report.
//! Shared-memory atomics are within a block, which one host thread runs: they never make
//! a kernel order-sensitive.

use warpcheck_ir::modifiers::{AtomOp, MemSpace};
use warpcheck_ir::{Body, EntityRef, FuncId, Op, Operand, Program, Type};

/// Whether any of `funcs` (the kernel and what it calls) has an order-dependent atomic on
/// memory that other blocks can see (see the module documentation).
pub(crate) fn order_sensitive(program: &Program, funcs: impl Iterator<Item = FuncId>) -> bool {
    funcs.into_iter().any(|f| {
        program
            .function(f)
            .body
            .as_ref()
            .is_some_and(body_is_order_sensitive)
    })
}

fn body_is_order_sensitive(body: &Body) -> bool {
    let mut read = vec![false; body.regs.len()];
    let mut atomics = Vec::new();
    for (id, inst) in body.insts.iter() {
        warpcheck_ir::defuse::visit_regs(body, id, |r, role| {
            if role == warpcheck_ir::operand::Role::Use {
                read[r.index()] = true;
            }
        });
        match inst.op {
            Op::Atom { space, op, ty, .. } if visible_to_other_blocks(space) => {
                atomics.push((Some(id), op, ty));
            }
            Op::Red { space, op, ty, .. } if visible_to_other_blocks(space) => {
                atomics.push((None, op, ty));
            }
            _ => {}
        }
    }
    atomics.into_iter().any(|(atom, op, ty)| {
        let result_read = atom.is_some_and(|id| match body.operands_of(id).first() {
            Some(Operand::Reg(d)) => read[d.index()],
            _ => false,
        });
        result_read || !commutes_unread(op, ty)
    })
}

fn visible_to_other_blocks(space: MemSpace) -> bool {
    matches!(space, MemSpace::Global | MemSpace::Generic)
}

/// Whether atomics `op` of type `ty`, their results unread, leave the same bytes in any
/// order.
fn commutes_unread(op: AtomOp, ty: Type) -> bool {
    match op {
        AtomOp::And | AtomOp::Or | AtomOp::Xor | AtomOp::Min | AtomOp::Max => true,
        AtomOp::Add => !ty.is_float(),
        AtomOp::Cas | AtomOp::Exch | AtomOp::Inc | AtomOp::Dec => false,
    }
}
