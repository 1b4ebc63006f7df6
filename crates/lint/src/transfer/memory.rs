//! Memory accesses: loads, stores and atomics. Each access's address is an expression
//! over the symbols; its region (which variable or pointer it goes through) refines a
//! generic space. Kernel parameters load their values (or, in a call-site context, the
//! caller's arguments); `.local` and call-`.param` cells at constant offsets hold
//! values like registers; other loads are opaque values that depend on the address.
//! Every access outside per-thread memory is recorded for the rules.

use warpcheck_ir::access::{AccessKind, MemAccess};
use warpcheck_ir::modifiers::MemSpace;
use warpcheck_ir::operand::Operand;
use warpcheck_ir::{BlockId, InstId, Op, Reg, VarId, VarRole};
use warpcheck_ptx::ast::StateSpace;
use warpcheck_sym::{Cond, Deps, Expr, Symbol};

use super::{MAX_BOUND_SIZE, store_type};
use crate::analysis::{Access, Analysis, Key, Loc, Region, State, Val};

/// The state space a generic access goes to, as far as its region tells.
fn refined_space(space: MemSpace, region: &Region) -> MemSpace {
    match (space, region) {
        (MemSpace::Generic, Region::Global(_) | Region::ReadPointer(_)) => MemSpace::Global,
        (MemSpace::Generic, Region::Shared(_)) => MemSpace::Shared,
        (MemSpace::Generic, Region::Local(_)) => MemSpace::Local,
        (MemSpace::Generic, Region::Variable(_, StateSpace::Global)) => MemSpace::Global,
        (s, _) => s,
    }
}

impl<'a> Analysis<'a> {
    /// A memory instruction: its effect on the state, and its record for the rules.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn memory(
        &mut self,
        state: &mut State,
        inst: InstId,
        b: BlockId,
        op: &Op,
        ops: &[Operand],
        access: MemAccess,
        exec_cond: &Cond,
        guard: &Option<Cond>,
    ) {
        let Some(Operand::Address(a)) = ops.get(access.address_slot).copied() else {
            self.def_all_opaque(state, inst, b, Deps::ALL, guard);
            return;
        };
        let addr = self.address(state, &a, b);
        let mut region = self.region_of(&addr);
        if access.space == MemSpace::Generic && region == Region::Unknown {
            region = self.read_pointer_region(&addr);
        }
        let space = refined_space(access.space, &region);
        // Kernel parameters: their values.
        if let (AccessKind::Load, Region::KernelParam(v)) = (access.kind, &region) {
            let val = self.param_value(inst, b, *v, &addr, access.bytes);
            if let Some(d) = ops.first() {
                self.def_data(state, inst, b, d, Some(val), Deps::NONE, guard);
            }
            return;
        }
        let cell = self.cell_of(&addr);
        if let Some((v, off)) = cell
            && matches!(access.kind, AccessKind::Load | AccessKind::Store)
        {
            self.cell_accesses.push(crate::analysis::CellAccess {
                inst,
                block: b,
                kind: access.kind,
                loc: Loc::Cell(v, off),
            });
        }
        if access.kind == AccessKind::Store
            && !matches!(region, Region::CallParam(_))
            && cell.is_none()
            && let Some(Operand::Reg(r)) = ops.get(1).copied()
            && let Some(Val::Int(data)) = state.vals.get(&Loc::Reg(r))
            && self.mentions_local_address(data)
        {
            self.local_address_escaped = true;
        }
        let dst = ops.first().copied().unwrap_or(Operand::Sink);
        match access.kind {
            AccessKind::Load => {
                let at = Target {
                    inst,
                    b,
                    cell,
                    region: &region,
                    addr: &addr,
                };
                self.load(state, at, dst, access.bytes, space, guard);
            }
            AccessKind::Store => {
                let at = Target {
                    inst,
                    b,
                    cell,
                    region: &region,
                    addr: &addr,
                };
                self.store(state, at, op, ops, guard);
            }
            AccessKind::Atomic(_) => {
                let d = addr.deps().union(Deps::THREAD);
                self.def_data(state, inst, b, &dst, None, d, guard);
            }
            _ => {}
        }
        if !matches!(
            region,
            Region::Local(_) | Region::CallParam(_) | Region::KernelParam(_)
        ) {
            self.accesses.push(Access {
                inst,
                block: b,
                kind: access.kind,
                space,
                bytes: access.bytes.unwrap_or(0),
                addr,
                // In a call-site context, the callee's accesses execute where the call
                // does (block conditions stay the callee's own, for its barriers).
                cond: match &self.context {
                    Some(c) => c.cond.and(exec_cond),
                    None => exec_cond.clone(),
                },
                loops: self.enclosing_loops(b),
                region,
            });
        }
    }

    /// The value a load of kernel parameter `v` at `addr` reads: the parameter's
    /// symbol when the whole integer is read, the caller's argument in a call-site
    /// context, opaque otherwise.
    fn param_value(
        &mut self,
        inst: InstId,
        b: BlockId,
        v: VarId,
        addr: &Expr,
        bytes: Option<u32>,
    ) -> Expr {
        let var = self.program.variable(v);
        let index = match var.role {
            VarRole::Param { index, .. } => index as usize,
            _ => 0,
        };
        let offset = addr.sub(&self.base_of(v)).as_integer();
        let whole = offset == Some(0) && bytes.map(u64::from) == var.size;
        let is_float = var.ty.is_float();
        // In a call-site context the parameter holds the caller's argument; one the
        // caller's analysis did not know is unknown here too (it may differ from
        // thread to thread), never a uniform parameter.
        let bound = self.context.as_ref().map(|c| {
            offset
                .and_then(|o| i64::try_from(o).ok())
                .and_then(|o| c.args.get(&(index as u32, o)))
                .cloned()
        });
        let line = self.line_of(inst);
        match bound {
            // Like the joins' limit: a huge argument (selects of selects) would
            // make every value computed from it huge; its dependence is kept.
            Some(Some(Val::Int(e))) if e.size() > MAX_BOUND_SIZE => self.opaque(
                Key::Arg(index as u32, offset.unwrap_or(0) as i64),
                e.deps(),
                format!("arg{index}"),
                None,
            ),
            Some(Some(Val::Int(e))) => e,
            Some(Some(Val::Pred(c))) => Expr::select(c, Expr::one(), Expr::zero()),
            Some(None) => self.opaque(
                Key::Value(inst, 0),
                Deps::ALL,
                format!("arg@{line}"),
                Some(b),
            ),
            None if whole && !is_float => Expr::sym(Symbol::param(&self.param_name(index, v))),
            None => self.opaque(
                Key::Value(inst, 0),
                Deps::NONE,
                format!("param@{line}"),
                Some(b),
            ),
        }
    }

    /// A load into `dst`: a cell's value, or an opaque value.
    fn load(
        &mut self,
        state: &mut State,
        at: Target<'_>,
        dst: Operand,
        bytes: Option<u32>,
        space: MemSpace,
        guard: &Option<Cond>,
    ) {
        let Target {
            inst,
            b,
            cell,
            region,
            addr,
        } = at;
        if let Some((v, off)) = cell {
            let val = state.vals.get(&Loc::Cell(v, off)).cloned();
            if let (Some(val), Operand::Reg(r)) = (val, dst) {
                self.set(state, Loc::Reg(r), val, guard);
            } else {
                // Unknown or partial cell: opaque, dependent on whatever the
                // variable holds.
                let d = variable_deps(state, v, Deps::NONE);
                self.def_data(state, inst, b, &dst, None, d, guard);
            }
        } else if let Region::Local(rv) = *region {
            // A dynamically indexed local array: anything it holds.
            let d = variable_deps(state, rv, addr.deps());
            self.def_data(state, inst, b, &dst, None, d, guard);
        } else {
            let d = addr.deps();
            self.def_data(state, inst, b, &dst, None, d, guard);
            if bytes == Some(8)
                && matches!(dst, Operand::Reg(_))
                && matches!(space, MemSpace::Global | MemSpace::Const)
            {
                let origin = self.pointer_origin(region);
                self.record_read_pointer(Key::Value(inst, 0), b, origin);
            }
        }
    }

    /// A store: into a cell at a constant offset, or to every cell of a per-thread
    /// variable at an unknown offset.
    fn store(
        &mut self,
        state: &mut State,
        at: Target<'_>,
        op: &Op,
        ops: &[Operand],
        guard: &Option<Cond>,
    ) {
        let Target {
            inst,
            b,
            cell,
            region,
            ..
        } = at;
        if let Some((v, off)) = cell {
            let data = ops.get(1).copied().unwrap_or(Operand::Sink);
            let ty = store_type(op);
            let val = match data {
                Operand::Reg(r) => state.vals.get(&Loc::Reg(r)).cloned(),
                Operand::Imm(_) => Some(Val::Int(self.int_of(state, &data, ty, b))),
                _ => None,
            };
            let loc = Loc::Cell(v, off);
            let val = match val {
                Some(val) => val,
                None => {
                    let d = self.use_deps(state, inst, b);
                    let line = self.line_of(inst);
                    Val::Int(self.opaque(Key::Value(inst, 0), d, format!("st@{line}"), Some(b)))
                }
            };
            self.set(state, loc, val, guard);
            for l in self.enclosing_loops(b) {
                self.cell_writes[l].insert(loc);
            }
        } else if let Region::Local(v) | Region::CallParam(v) = *region {
            // A store at an unknown offset: every cell of the variable may change.
            let d = self.use_deps(state, inst, b);
            let cells: Vec<Loc> = state
                .vals
                .keys()
                .filter(|l| matches!(l, Loc::Cell(cv, _) if *cv == v))
                .copied()
                .collect();
            for loc in cells {
                let od = state.vals.get(&loc).map_or(Deps::NONE, |x| x.deps());
                let e = self.opaque(Key::Cell(b, loc), d.union(od), "local".into(), Some(b));
                state.vals.insert(loc, Val::Int(e));
                for l in self.enclosing_loops(b) {
                    self.cell_writes[l].insert(loc);
                }
            }
        }
    }

    /// Writes a load's destination (a register or a vector of registers): the given value,
    /// or opaque values of dependence `deps`.
    #[allow(clippy::too_many_arguments)]
    fn def_data(
        &mut self,
        state: &mut State,
        inst: InstId,
        b: BlockId,
        dst: &Operand,
        val: Option<Expr>,
        deps: Deps,
        guard: &Option<Cond>,
    ) {
        let regs: Vec<Reg> = match *dst {
            Operand::Reg(r) => vec![r],
            Operand::Vector(list) => self
                .body
                .list(list)
                .iter()
                .filter_map(|o| {
                    if let Operand::Reg(r) = o {
                        Some(*r)
                    } else {
                        None
                    }
                })
                .collect(),
            _ => Vec::new(),
        };
        let line = self.line_of(inst);
        for (i, r) in regs.into_iter().enumerate() {
            let v = match &val {
                Some(v) => v.clone(),
                None => self.opaque(
                    Key::Value(inst, i as u32),
                    deps,
                    format!("ld@{line}"),
                    Some(b),
                ),
            };
            self.set(state, Loc::Reg(r), Val::Int(v), guard);
        }
    }
}

/// Where an access goes: the instruction, its block, its cell (a variable and a
/// constant offset) if any, its region and its address.
#[derive(Clone, Copy)]
struct Target<'x> {
    inst: InstId,
    b: BlockId,
    cell: Option<(VarId, i64)>,
    region: &'x Region,
    addr: &'x Expr,
}

/// `base` joined with the dependences of every cell of variable `v`.
fn variable_deps(state: &State, v: VarId, base: Deps) -> Deps {
    let mut d = base;
    for (loc, val) in &state.vals {
        if matches!(loc, Loc::Cell(cv, _) if *cv == v) {
            d = d.union(val.deps());
        }
    }
    d
}
