//! Which registers an instruction reads and writes, derived from the operand signature
//! of the instruction table ([`crate::isa::Op::slots`]).
//!
//! * The guard predicate is read.
//! * Registers in a `Def` slot are written: a register, both sides of `d|p`, every element
//!   of a destination vector, registers in a call's return list.
//! * Registers in a `Use` slot are read, and so is the base register of every address
//!   (addresses only appear in `Use` slots).
//! * The carry flag `CC.CF` of `add.cc`/`addc` … is not a register; see
//!   [`crate::isa::Op::reads_carry`] and [`crate::isa::Op::writes_carry`].
//!
//! A guarded instruction writes its destinations only in the lanes where the guard holds,
//! so for liveness a guarded def does not kill the previous value.

use crate::entity::{InstId, Reg};
use crate::operand::{AddressBase, Operand, Role};
use crate::program::Body;

/// Calls `visit(reg, role)` for every register the instruction reads or writes, in
/// operand order (the guard first). A register may be visited more than once.
pub fn visit_regs(body: &Body, inst: InstId, mut visit: impl FnMut(Reg, Role)) {
    let i = body.inst(inst);
    if let Some(g) = i.guard {
        visit(g.pred, Role::Use);
    }
    let slots = i.op.slots();
    for (slot, operand) in slots.iter().zip(body.operands_of(inst)) {
        visit_operand(body, operand, slot.role, &mut visit);
    }
}

fn visit_operand(body: &Body, operand: &Operand, role: Role, visit: &mut impl FnMut(Reg, Role)) {
    match *operand {
        Operand::Reg(r) | Operand::NegPred(r) => visit(r, role),
        Operand::Pair(a, b) => {
            for r in [a, b].into_iter().flatten() {
                visit(r, role);
            }
        }
        Operand::Address(a) => {
            if let AddressBase::Reg(r) = a.base {
                visit(r, Role::Use);
            }
        }
        Operand::Vector(list) | Operand::List(list) => {
            for e in body.list(list) {
                visit_operand(body, e, role, visit);
            }
        }
        Operand::Image(list) => {
            for e in body.list(list) {
                visit_operand(body, e, Role::Use, visit);
            }
        }
        Operand::Imm(_)
        | Operand::Special(_)
        | Operand::SymbolAddress { .. }
        | Operand::Label(_)
        | Operand::BranchTable(_)
        | Operand::Prototype(_)
        | Operand::CallTargets(_)
        | Operand::Func(_)
        | Operand::Sink
        | Operand::Absent => {}
    }
}

/// The registers an instruction writes, without duplicates, in operand order.
pub fn defs(body: &Body, inst: InstId) -> Vec<Reg> {
    let mut out = Vec::new();
    visit_regs(body, inst, |r, role| {
        if role == Role::Def && !out.contains(&r) {
            out.push(r);
        }
    });
    out
}

/// The registers an instruction reads, without duplicates, in operand order.
pub fn uses(body: &Body, inst: InstId) -> Vec<Reg> {
    let mut out = Vec::new();
    visit_regs(body, inst, |r, role| {
        if role == Role::Use && !out.contains(&r) {
            out.push(r);
        }
    });
    out
}
