//! The transfer function: what each instruction does to the abstract state.
//!
//! Integer arithmetic is exact over the integers (no wrap-around, see the symbolic
//! engine): `add`, `sub`, `mul.lo`/`.wide`, `mad`, `neg`, `min`, `max`, shifts by a
//! constant (`shl` multiplies, `shr` floor-divides — an arithmetic shift *is* floor
//! division), masks `and 2^k-1` (modulo) and `and -2^k`, `or`/`xor` of disjoint bits
//! (addition), unsigned division and remainder (floor), signed ones when the dividend is
//! provably non-negative, integer conversions (identity), `cvta` (identity: generic and
//! state-space addresses are tracked by their base symbols), `selp`, `setp`. Other integer
//! operations become evaluable functions of their operands (xor, and, `mul.hi`,
//! truncating division …). Floating-point results, loads, atomics, shuffles and call
//! results are opaque values with the dependence of what produced them (§4.2).
//!
//! This module holds the operand evaluation and the state updates every family uses;
//! [`step`] is the entry, one exhaustive `match` over the opcodes that hands each to
//! its family: [`arith`] (integer arithmetic), [`logic`] (logic, shifts, comparisons),
//! [`call`] (calls and what they may write) and [`memory`] (loads, stores, atomics).

mod arith;
mod call;
mod logic;
mod memory;
mod step;

use warpcheck_ir::modifiers::CmpOp as PtxCmp;
use warpcheck_ir::operand::{Operand, SpecialOperand};
use warpcheck_ir::{
    AddressBase, BlockId, Component, EntityRef, InstId, Op, Reg, SpecialReg, Symbol as IrSymbol,
    Type, VarId, VarRole, defuse,
};
use warpcheck_ptx::ast::StateSpace;
use warpcheck_sym::{Axis, Cond, Deps, Expr, Relation, Symbol};

use crate::analysis::{Analysis, Key, Loc, Region, State, Val};

fn axis(c: Option<Component>) -> Axis {
    match c {
        Some(Component::Y) => Axis::Y,
        Some(Component::Z) => Axis::Z,
        _ => Axis::X,
    }
}

/// A literal as a signed value of the instruction's width.
fn imm_value(bits: u64, ty: Type) -> i128 {
    let w = ty.bits().clamp(1, 64);
    let masked = if w >= 64 {
        bits
    } else {
        bits & ((1u64 << w) - 1)
    };
    if ty.is_signed() || !ty.is_integer() || w == 64 {
        // Two's complement at the width.
        if w < 64 && masked >> (w - 1) & 1 == 1 {
            masked as i128 - (1i128 << w)
        } else if w == 64 {
            masked as i64 as i128
        } else {
            masked as i128
        }
    } else if w < 64 && masked >> (w - 1) & 1 == 1 {
        // Unsigned and bit types: a literal with the top bit set is most often a negative
        // constant written in two's complement (`add.u32 %r, %r, -1`); wrap-around
        // arithmetic makes both readings agree, and the signed one keeps values small.
        masked as i128 - (1i128 << w)
    } else {
        masked as i128
    }
}

/// The largest argument expression (in nodes, [`Expr::size`]) bound to a callee's parameter
/// as it is; a bigger one becomes an opaque value with its dependence.
const MAX_BOUND_SIZE: usize = 64;

fn is_pow2_minus_1(v: i128) -> Option<u32> {
    (v > 0 && (v + 1) & v == 0).then(|| (v + 1).trailing_zeros())
}

fn is_neg_pow2(v: i128) -> Option<u32> {
    (v < 0 && (-v) & (-v - 1) == 0).then(|| (-v).trailing_zeros())
}

impl<'a> Analysis<'a> {
    pub(crate) fn pred_reg(&mut self, state: &State, r: Reg, inst: InstId, b: BlockId) -> Cond {
        match state.vals.get(&Loc::Reg(r)) {
            Some(Val::Pred(c)) => c.clone(),
            Some(Val::Int(e)) => Cond::compare(Relation::Ne, e, &Expr::zero()),
            None => {
                let _ = inst;
                self.opaque_cond(
                    Key::Undefined(Loc::Reg(r)),
                    Deps::NONE,
                    "undef".into(),
                    Some(b),
                )
            }
        }
    }

    fn reg_int(&mut self, state: &State, r: Reg, b: BlockId) -> Expr {
        match state.vals.get(&Loc::Reg(r)) {
            Some(Val::Int(e)) => e.clone(),
            Some(Val::Pred(c)) => Expr::select(c.clone(), Expr::one(), Expr::zero()),
            None => self.opaque(
                Key::Undefined(Loc::Reg(r)),
                Deps::NONE,
                "undef".into(),
                Some(b),
            ),
        }
    }

    /// The integer value of a source operand for an instruction of type `ty`.
    fn int_of(&mut self, state: &State, op: &Operand, ty: Type, b: BlockId) -> Expr {
        match *op {
            Operand::Reg(r) => self.reg_int(state, r, b),
            Operand::Imm(imm) => Expr::int(imm_value(imm.bits_as(ty), ty)),
            Operand::Special(sp) => self.special(sp),
            Operand::SymbolAddress {
                symbol: IrSymbol::Var(v),
                offset,
            } => self.base_of(v).add(&Expr::int(offset as i128)),
            Operand::Address(a) => self.address(state, &a, b),
            _ => Expr::zero(),
        }
    }

    fn pred_of(&mut self, state: &State, op: &Operand, inst: InstId, b: BlockId) -> Cond {
        match *op {
            Operand::Reg(r) => self.pred_reg(state, r, inst, b),
            Operand::NegPred(r) => self.pred_reg(state, r, inst, b).not(),
            Operand::Imm(imm) => Cond::Const(imm.bits != 0),
            _ => Cond::truth(),
        }
    }

    fn special(&mut self, sp: SpecialOperand) -> Expr {
        let a = axis(sp.component);
        match sp.reg {
            SpecialReg::Tid => Expr::sym(Symbol::ThreadIdx(a)),
            SpecialReg::Ntid => Expr::sym(Symbol::BlockDim(a)),
            SpecialReg::CtaId => Expr::sym(Symbol::BlockIdx(a)),
            SpecialReg::NCtaId => Expr::sym(Symbol::GridDim(a)),
            SpecialReg::LaneId => linear_tid().modulo(&Expr::int(32)),
            _ => {
                let deps = match sp.reg {
                    SpecialReg::WarpId
                    | SpecialReg::LanemaskEq
                    | SpecialReg::LanemaskLe
                    | SpecialReg::LanemaskLt
                    | SpecialReg::LanemaskGe
                    | SpecialReg::LanemaskGt
                    | SpecialReg::Clock
                    | SpecialReg::ClockHi
                    | SpecialReg::Clock64
                    | SpecialReg::GlobalTimer
                    | SpecialReg::GlobalTimerLo
                    | SpecialReg::GlobalTimerHi
                    | SpecialReg::SmId => Deps::ALL,
                    _ => Deps::NONE,
                };
                let name = sp.to_string();
                let id = Key::Special(name.clone());
                self.opaque(id, deps, name, None)
            }
        }
    }

    /// The value of an address operand `[base+offset]`.
    fn address(&mut self, state: &State, a: &warpcheck_ir::Address, b: BlockId) -> Expr {
        let base = match a.base {
            AddressBase::Reg(r) => self.reg_int(state, r, b),
            AddressBase::Var(v) => self.base_of(v),
            AddressBase::Absolute => Expr::zero(),
        };
        base.add(&Expr::int(a.offset as i128))
    }

    /// Where an address points, from the base symbol it adds (with coefficient 1).
    pub(crate) fn region_of(&self, addr: &Expr) -> Region {
        let mut found = Region::Unknown;
        let mut count = 0;
        for t in addr.terms() {
            if !t.coef.is_one() {
                continue;
            }
            let [(warpcheck_sym::Atom::Sym(s), 1)] = t.mono.factors() else {
                continue;
            };
            let r = match s {
                Symbol::Param(name) if self.pointer_params.contains(&**name) => {
                    Region::Global(name.to_string())
                }
                Symbol::Opaque(_) => match self.base_var(s) {
                    Some(v) => self.region_of_var(v),
                    None => continue,
                },
                _ => continue,
            };
            found = r;
            count += 1;
        }
        if count == 1 { found } else { Region::Unknown }
    }

    /// The region of a generic address whose only base is a pointer read from global or
    /// constant memory ([`Region::ReadPointer`]), else [`Region::Unknown`].
    fn read_pointer_region(&self, addr: &Expr) -> Region {
        let mut found = None;
        for t in addr.terms() {
            if !t.coef.is_one() {
                continue;
            }
            let [(warpcheck_sym::Atom::Sym(s), 1)] = t.mono.factors() else {
                continue;
            };
            if let Some(origin) = self.read_pointer(s) {
                if found.is_some() {
                    return Region::Unknown;
                }
                found = Some(origin.to_string());
            }
        }
        found.map_or(Region::Unknown, Region::ReadPointer)
    }

    /// How a pointer load's source is named in messages: `d_unique` for a field of the
    /// `__constant__` array `d_unique`, the parameter's name for `p->data`.
    fn pointer_origin(&self, region: &Region) -> String {
        match region {
            Region::Global(name) => format!("pointer read from {name}"),
            Region::Variable(v, _) | Region::Shared(v) => format!(
                "pointer read from {}",
                self.program.variable(*v).display_name()
            ),
            Region::ReadPointer(_) => "pointer read through another pointer".to_string(),
            _ => "pointer read from memory".to_string(),
        }
    }

    fn region_of_var(&self, v: VarId) -> Region {
        let var = self.program.variable(v);
        match (var.space, var.role) {
            (StateSpace::Shared, _) => Region::Shared(v),
            (StateSpace::Local, _) => Region::Local(v),
            (StateSpace::Param, VarRole::Param { .. }) => Region::KernelParam(v),
            (StateSpace::Param, _) => Region::CallParam(v),
            (space, _) => Region::Variable(v, space),
        }
    }

    /// The per-thread cell an address names, if it is a constant offset into a `.local`
    /// or call `.param` variable.
    fn cell_of(&self, addr: &Expr) -> Option<(VarId, i64)> {
        match self.region_of(addr) {
            Region::Local(v) | Region::CallParam(v) => {
                let base = self.base_symbols.get(&v)?;
                let rest = addr.sub(&Expr::sym(base.clone()));
                let off = rest.as_integer()?;
                Some((v, i64::try_from(off).ok()?))
            }
            _ => None,
        }
    }

    /// Writes `v` to `loc` (under `guard`, selecting against the old value), checking its
    /// size in a call-site context ([`Analysis::check_size`]) and replacing it when it is
    /// too big to keep ([`Analysis::widen`]).
    fn set(&mut self, state: &mut State, loc: Loc, v: Val, guard: &Option<Cond>) {
        let v = match (guard, state.vals.get(&loc)) {
            (Some(g), Some(old)) => match (&v, old) {
                (Val::Int(new), Val::Int(old)) => {
                    Val::Int(Expr::select(g.clone(), new.clone(), old.clone()))
                }
                (Val::Pred(new), Val::Pred(old)) => Val::Pred(g.and(new).or(&g.not().and(old))),
                _ => v,
            },
            _ => v,
        };
        self.check_size(&v);
        let v = self.widen(loc, v);
        warpcheck_sym::budget::charge(crate::analysis::WRITE_STEPS);
        state.vals.insert(loc, v);
    }

    fn def_reg(&mut self, state: &mut State, op: &Operand, v: Val, guard: &Option<Cond>) {
        match *op {
            Operand::Reg(r) => self.set(state, Loc::Reg(r), v, guard),
            Operand::Pair(a, bb) => {
                if let Some(a) = a {
                    self.set(state, Loc::Reg(a), v.clone(), guard);
                }
                if let (Some(p), Val::Pred(c)) = (bb, &v) {
                    self.set(state, Loc::Reg(p), Val::Pred(c.not()), guard);
                }
            }
            _ => {}
        }
    }

    /// Every register the instruction writes gets an opaque value of the given dependence.
    fn def_all_opaque(
        &mut self,
        state: &mut State,
        inst: InstId,
        b: BlockId,
        deps: Deps,
        guard: &Option<Cond>,
    ) {
        let line = self.line_of(inst);
        for (i, r) in defuse::defs(self.body, inst).into_iter().enumerate() {
            let is_pred = self.body.regs.get(r).is_some_and(|x| x.ty.is_pred());
            let key = Key::Value(inst, i as u32);
            let v = if is_pred {
                Val::Pred(self.opaque_cond(key, deps, format!("p@{line}"), Some(b)))
            } else {
                Val::Int(self.opaque(key, deps, format!("v@{line}"), Some(b)))
            };
            self.set(state, Loc::Reg(r), v, guard);
        }
    }

    /// The union of the dependences of the registers the instruction reads.
    fn use_deps(&mut self, state: &State, inst: InstId, b: BlockId) -> Deps {
        let mut d = Deps::NONE;
        for r in defuse::uses(self.body, inst) {
            if let Some(v) = state.vals.get(&Loc::Reg(r)) {
                d = d.union(v.deps());
            }
        }
        let ops: Vec<Operand> = self.body.operands_of(inst).to_vec();
        for op in &ops {
            if let Operand::Special(sp) = op {
                d = d.union(self.special(*sp).deps());
            }
            if let Operand::Address(a) = op {
                d = d.union(self.address(state, a, b).deps());
            }
        }
        d
    }

    /// Loops containing the block, outermost first.
    pub(crate) fn enclosing_loops(&self, b: BlockId) -> Vec<usize> {
        let mut out = Vec::new();
        let mut l = self.innermost_loop[b.index()];
        while let Some(i) = l {
            out.push(i);
            l = self.loops[i].parent;
        }
        out.reverse();
        out
    }
}

/// The type of twice the width (`mul.wide`/`mad.wide` results).
fn wide_type(ty: Type) -> Type {
    match ty {
        Type::U16 => Type::U32,
        Type::S16 => Type::S32,
        Type::U32 => Type::U64,
        Type::S32 => Type::S64,
        Type::B16 => Type::B32,
        Type::B32 => Type::B64,
        t => t,
    }
}

fn store_type(op: &Op) -> Type {
    match *op {
        Op::St { ty, .. } => ty,
        _ => Type::B64,
    }
}

/// `threadIdx.x + blockDim.x·(threadIdx.y + blockDim.y·threadIdx.z)`.
pub(crate) fn linear_tid() -> Expr {
    let t = |a| Expr::sym(Symbol::ThreadIdx(a));
    let d = |a| Expr::sym(Symbol::BlockDim(a));
    t(Axis::X).add(&d(Axis::X).mul(&t(Axis::Y).add(&d(Axis::Y).mul(&t(Axis::Z)))))
}

/// Integer comparisons; the unordered float ones have no integer meaning.
fn relation(cmp: PtxCmp) -> Option<Relation> {
    Some(match cmp {
        PtxCmp::Eq => Relation::Eq,
        PtxCmp::Ne => Relation::Ne,
        PtxCmp::Lt | PtxCmp::Lo => Relation::Lt,
        PtxCmp::Le | PtxCmp::Ls => Relation::Le,
        PtxCmp::Gt | PtxCmp::Hi => Relation::Gt,
        PtxCmp::Ge | PtxCmp::Hs => Relation::Ge,
        _ => return None,
    })
}
