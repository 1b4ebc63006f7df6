//! Calls: the call's arguments are recorded for the callee's analysis in the
//! caller's context ([`crate::calls`]); its results depend on what the arguments
//! depend on, and memory cells the callee may write (through pointers, or `.local`
//! cells once a `.local` address has escaped) become opaque.

use warpcheck_ir::operand::Operand;
use warpcheck_ir::{AddressBase, BlockId, InstId, Symbol as IrSymbol, Type};
use warpcheck_ptx::ast::StateSpace;
use warpcheck_sym::{Cond, Deps, Expr};

use super::imm_value;
use super::step::StepCx;
use crate::analysis::{Analysis, Key, Loc, State, Val};

impl<'a> Analysis<'a> {
    /// `call`: records it, then makes its results and the cells it may write opaque.
    pub(super) fn step_call(&mut self, state: &mut State, cx: &StepCx) {
        let (inst, b) = (cx.inst, cx.b);
        self.record_call(state, inst, b, &cx.ops, &cx.exec_cond);
        // Results depend on what the arguments depend on; per-thread memory may
        // have been written through pointers.
        let d = self.call_deps(state, cx);
        // A callee can write a `.local` cell only through its address: when no
        // such address was passed (arguments travel in call-`.param` cells) or
        // has escaped to memory, `.local` cells keep their values (clang's -O0
        // code keeps every variable in `.local`; calls such as `rand()` would
        // otherwise make every loop variable unknown).
        let passes_local = self.call_passes_local_address(state, &cx.ops);
        if passes_local {
            self.local_address_escaped = true;
        }
        self.clobber_cells(state, inst, b, d);
        self.def_all_opaque(state, inst, b, d, &cx.guard);
    }

    /// What a call's results depend on: its operands and the cells of the variables
    /// whose addresses it is passed.
    fn call_deps(&mut self, state: &State, cx: &StepCx) -> Deps {
        let mut d = self.use_deps(state, cx.inst, cx.b);
        for op in &cx.ops {
            let Operand::List(list) = op else { continue };
            for e in self.body.list(*list).to_vec() {
                if let Operand::SymbolAddress {
                    symbol: IrSymbol::Var(v),
                    ..
                }
                | Operand::Address(warpcheck_ir::Address {
                    base: AddressBase::Var(v),
                    ..
                }) = e
                {
                    for (loc, val) in &state.vals {
                        if matches!(loc, Loc::Cell(cv, _) if *cv == v) {
                            d = d.union(val.deps());
                        }
                    }
                }
            }
        }
        d
    }

    /// The cells a call may write become opaque values of dependence `d` and their
    /// own.
    fn clobber_cells(&mut self, state: &mut State, inst: InstId, b: BlockId, d: Deps) {
        let may_write_locals = self.local_address_escaped;
        let line = self.line_of(inst);
        let cells: Vec<Loc> = state
            .vals
            .keys()
            .filter(|l| match l {
                Loc::Cell(v, _) => {
                    may_write_locals || self.program.variable(*v).space != StateSpace::Local
                }
                Loc::Reg(_) => false,
            })
            .copied()
            .collect();
        for (n, loc) in cells.into_iter().enumerate() {
            let old = state.vals.get(&loc).cloned();
            let od = old.as_ref().map_or(Deps::NONE, |v| v.deps());
            let v = match old {
                Some(Val::Pred(_)) => Val::Pred(self.opaque_cond(
                    Key::Cell(b, loc),
                    d.union(od),
                    format!("call@{line}"),
                    Some(b),
                )),
                _ => Val::Int(self.opaque(
                    Key::Value(inst, 1000 + n as u32),
                    d.union(od),
                    format!("call@{line}"),
                    Some(b),
                )),
            };
            state.vals.insert(loc, v);
        }
    }

    /// Records a call of a function with a body, with the abstract values of its
    /// arguments: per parameter, the values of the call-`.param` variable's cells (or of
    /// the register or constant passed directly), by byte offset. A parameter whose value
    /// is not known gets no entry, and the callee takes it as unknown (see
    /// [`crate::calls`]).
    fn record_call(
        &mut self,
        state: &State,
        inst: InstId,
        b: BlockId,
        ops: &[Operand],
        exec_cond: &Cond,
    ) {
        let Some(Operand::Func(callee)) = ops.get(1).copied() else {
            return;
        };
        if self.program.function(callee).body.is_none() {
            return;
        }
        let mut args = std::collections::BTreeMap::new();
        if let Some(Operand::List(list)) = ops.get(2).copied() {
            for (i, e) in self.body.list(list).to_vec().into_iter().enumerate() {
                let i = i as u32;
                match e {
                    Operand::SymbolAddress {
                        symbol: IrSymbol::Var(v),
                        ..
                    } => {
                        for (loc, val) in state.vals.iter() {
                            if let Loc::Cell(cv, off) = *loc
                                && cv == v
                            {
                                args.insert((i, off), val.clone());
                            }
                        }
                    }
                    Operand::Reg(r) => {
                        if let Some(val) = state.vals.get(&Loc::Reg(r)) {
                            args.insert((i, 0), val.clone());
                        }
                    }
                    Operand::Imm(imm) => {
                        let v = Expr::int(imm_value(imm.bits, Type::S64));
                        args.insert((i, 0), Val::Int(v));
                    }
                    _ => {}
                }
            }
        }
        let loops = self.enclosing_loops(b);
        self.calls.push(crate::calls::CallSite {
            inst,
            block: b,
            callee,
            args,
            cond: exec_cond.clone(),
            loops,
        });
    }

    /// Whether a call's arguments include the address of a `.local` variable, directly
    /// or through the call-`.param` cells the arguments are stored in.
    fn call_passes_local_address(&self, state: &State, ops: &[Operand]) -> bool {
        for op in ops {
            let Operand::List(list) = op else { continue };
            for e in self.body.list(*list) {
                let (Operand::SymbolAddress {
                    symbol: IrSymbol::Var(v),
                    ..
                }
                | Operand::Address(warpcheck_ir::Address {
                    base: AddressBase::Var(v),
                    ..
                })) = *e
                else {
                    continue;
                };
                if self.program.variable(v).space == StateSpace::Local {
                    return true;
                }
                let passes = state.vals.iter().any(|(loc, val)| {
                    matches!(loc, Loc::Cell(cv, _) if *cv == v)
                        && matches!(val, Val::Int(x) if self.mentions_local_address(x))
                });
                if passes {
                    return true;
                }
            }
        }
        false
    }
}
