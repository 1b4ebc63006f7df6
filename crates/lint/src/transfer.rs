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

use warpcheck_ir::access::AccessKind;
use warpcheck_ir::modifiers::{BoolOp, CmpOp as PtxCmp, MemSpace, MulMode};
use warpcheck_ir::operand::{Operand, SpecialOperand};
use warpcheck_ir::{
    AddressBase, BlockId, Component, EntityRef, InstId, Op, Reg, SpecialReg, Symbol as IrSymbol,
    Type, VarId, VarRole, defuse,
};
use warpcheck_ptx::ast::StateSpace;
use warpcheck_sym::{Axis, Cond, Deps, Expr, Func, FuncKind, Relation, Symbol};

use crate::analysis::{Access, Analysis, Key, Loc, Region, State, Val};

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
    /// size in a call-site context ([`Analysis::check_size`]).
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

    pub(crate) fn step(&mut self, state: &mut State, inst: InstId, b: BlockId, block_cond: &Cond) {
        let i = *self.body.inst(inst);
        let ops: Vec<Operand> = self.body.operands_of(inst).to_vec();
        let guard = i.guard.map(|g| {
            let c = self.pred_reg(state, g.pred, inst, b);
            if g.negated { c.not() } else { c }
        });
        if guard.as_ref().and_then(|g| g.as_const()) == Some(false) {
            return;
        }
        let exec_cond = match &guard {
            Some(g) => block_cond.and(g),
            None => block_cond.clone(),
        };
        if let Some(access) = i.op.memory_access() {
            self.memory(state, inst, b, &i.op, &ops, access, &exec_cond, &guard);
            return;
        }
        let int = |a: &mut Self, st: &State, k: usize, ty: Type| -> Expr {
            match ops.get(k) {
                Some(op) => a.int_of(st, op, ty, b),
                None => Expr::zero(),
            }
        };
        let dst = ops.first().copied().unwrap_or(Operand::Sink);
        match i.op {
            Op::Barrier { .. } => {
                if matches!(
                    i.op,
                    Op::Barrier {
                        mode: warpcheck_ir::modifiers::BarrierMode::Sync,
                        ..
                    }
                ) {
                    self.barriers.push((inst, b));
                }
                // `bar.red` results are the same for the whole block.
                self.def_all_opaque(state, inst, b, Deps::NONE, &guard);
            }
            Op::Mov { ty, vec: None }
                if !matches!(dst, Operand::Vector(_))
                    && !matches!(ops.get(1), Some(Operand::Vector(_))) =>
            {
                if ty.is_pred() {
                    let c = self.pred_of(state, &ops[1], inst, b);
                    self.def_reg(state, &dst, Val::Pred(c), &guard);
                } else {
                    let v = int(self, state, 1, ty);
                    self.def_reg(state, &dst, Val::Int(v), &guard);
                }
            }
            Op::Cvta { .. } => {
                let v = int(self, state, 1, Type::U64);
                self.def_reg(state, &dst, Val::Int(v), &guard);
            }
            Op::Cvt { dty, sty, .. } if dty.is_integer() && sty.is_integer() => {
                let v = int(self, state, 1, sty);
                self.def_reg(state, &dst, Val::Int(v), &guard);
            }
            Op::Add { ty, cc: false, .. } | Op::Sub { ty, cc: false, .. } if ty.is_integer() => {
                let (x, y) = (int(self, state, 1, ty), int(self, state, 2, ty));
                let v = if matches!(i.op, Op::Add { .. }) {
                    x.add(&y)
                } else {
                    x.sub(&y)
                };
                self.def_reg(state, &dst, Val::Int(v), &guard);
            }
            Op::Mul { ty, mode, .. } if ty.is_integer() => {
                let (x, y) = (int(self, state, 1, ty), int(self, state, 2, ty));
                let v = match mode {
                    Some(MulMode::Hi) => Expr::func(
                        Func::new(
                            FuncKind::MulHi {
                                signed: ty.is_signed(),
                            },
                            ty.bits() as u8,
                        ),
                        vec![x, y],
                    ),
                    _ => x.mul(&y),
                };
                self.def_reg(state, &dst, Val::Int(v), &guard);
            }
            Op::Mad {
                ty,
                mode,
                cc: false,
                ..
            } if ty.is_integer() => {
                let (x, y, z) = (
                    int(self, state, 1, ty),
                    int(self, state, 2, ty),
                    int(self, state, 3, ty),
                );
                let prod = match mode {
                    Some(MulMode::Hi) => Expr::func(
                        Func::new(
                            FuncKind::MulHi {
                                signed: ty.is_signed(),
                            },
                            ty.bits() as u8,
                        ),
                        vec![x, y],
                    ),
                    _ => x.mul(&y),
                };
                let wide = if matches!(mode, Some(MulMode::Wide)) {
                    wide_type(ty)
                } else {
                    ty
                };
                let z = if wide != ty {
                    int(self, state, 3, wide)
                } else {
                    z
                };
                self.def_reg(state, &dst, Val::Int(prod.add(&z)), &guard);
            }
            Op::Mul24 { ty, .. } => {
                let (x, y) = (int(self, state, 1, ty), int(self, state, 2, ty));
                self.def_reg(state, &dst, Val::Int(x.mul(&y)), &guard);
            }
            Op::Mad24 { ty, .. } => {
                let (x, y, z) = (
                    int(self, state, 1, ty),
                    int(self, state, 2, ty),
                    int(self, state, 3, ty),
                );
                self.def_reg(state, &dst, Val::Int(x.mul(&y).add(&z)), &guard);
            }
            Op::Neg { ty, .. } if ty.is_integer() => {
                let x = int(self, state, 1, ty);
                self.def_reg(state, &dst, Val::Int(x.neg()), &guard);
            }
            Op::Abs { ty, .. } if ty.is_integer() => {
                let x = int(self, state, 1, ty);
                self.def_reg(state, &dst, Val::Int(x.maximum(&x.neg())), &guard);
            }
            Op::Min { ty, .. } | Op::Max { ty, .. } if ty.is_integer() => {
                let (x, y) = (int(self, state, 1, ty), int(self, state, 2, ty));
                let v = if matches!(i.op, Op::Min { .. }) {
                    x.minimum(&y)
                } else {
                    x.maximum(&y)
                };
                self.def_reg(state, &dst, Val::Int(v), &guard);
            }
            Op::Div { ty, .. } | Op::Rem { ty, .. } if ty.is_integer() => {
                let (x, y) = (int(self, state, 1, ty), int(self, state, 2, ty));
                let is_div = matches!(i.op, Op::Div { .. });
                let floor_ok = !ty.is_signed()
                    || (warpcheck_sym::sign::builtin_range(&x)
                        .lo
                        .is_some_and(|l| !l.is_negative())
                        && warpcheck_sym::sign::builtin_range(&y)
                            .lo
                            .is_some_and(|l| l.is_positive()));
                let v = match (floor_ok, is_div) {
                    (true, true) => x.floor_div(&y),
                    (true, false) => x.modulo(&y),
                    (false, true) => {
                        Expr::func(Func::new(FuncKind::TruncDiv, ty.bits() as u8), vec![x, y])
                    }
                    (false, false) => {
                        Expr::func(Func::new(FuncKind::TruncRem, ty.bits() as u8), vec![x, y])
                    }
                };
                self.def_reg(state, &dst, Val::Int(v), &guard);
            }
            Op::Shl { ty } => {
                let (x, y) = (int(self, state, 1, ty), int(self, state, 2, Type::U32));
                let v = match y.as_integer() {
                    Some(s) if (0..64).contains(&s) => x.mul(&Expr::int(1i128 << s)),
                    _ => Expr::func(Func::new(FuncKind::Shl, ty.bits() as u8), vec![x, y]),
                };
                self.def_reg(state, &dst, Val::Int(v), &guard);
            }
            Op::Shr { ty } => {
                let (x, y) = (int(self, state, 1, ty), int(self, state, 2, Type::U32));
                let w = ty.bits() as i128;
                let nonneg = warpcheck_sym::sign::builtin_range(&x)
                    .lo
                    .is_some_and(|l| !l.is_negative());
                let v = match y.as_integer() {
                    // The sign bit of a value that may be negative (`x >> 31` in the
                    // rounding of signed division by a power of two).
                    Some(s) if s == w - 1 && !ty.is_signed() && !nonneg => Expr::select(
                        Cond::compare(Relation::Lt, &x, &Expr::zero()),
                        Expr::one(),
                        Expr::zero(),
                    ),
                    Some(s) if (0..64).contains(&s) && (ty.is_signed() || nonneg || s == 0) => {
                        x.floor_div(&Expr::int(1i128 << s))
                    }
                    Some(s) if (0..64).contains(&s) => {
                        // An unsigned shift of a value whose sign is unknown: the value is
                        // taken as non-negative, as unsigned arithmetic without wrap-around.
                        x.floor_div(&Expr::int(1i128 << s))
                    }
                    _ => Expr::func(
                        Func::new(
                            FuncKind::Shr {
                                signed: ty.is_signed(),
                            },
                            ty.bits() as u8,
                        ),
                        vec![x, y],
                    ),
                };
                self.def_reg(state, &dst, Val::Int(v), &guard);
            }
            Op::And { ty } | Op::Or { ty } | Op::Xor { ty } if ty.is_pred() => {
                let (x, y) = (
                    self.pred_of(state, &ops[1], inst, b),
                    self.pred_of(state, &ops[2], inst, b),
                );
                let v = match i.op {
                    Op::And { .. } => x.and(&y),
                    Op::Or { .. } => x.or(&y),
                    _ => x.and(&y.not()).or(&x.not().and(&y)),
                };
                self.def_reg(state, &dst, Val::Pred(v), &guard);
            }
            Op::Not { ty } if ty.is_pred() => {
                let x = self.pred_of(state, &ops[1], inst, b);
                self.def_reg(state, &dst, Val::Pred(x.not()), &guard);
            }
            Op::Not { ty } => {
                let x = int(self, state, 1, ty);
                self.def_reg(state, &dst, Val::Int(x.neg().sub(&Expr::one())), &guard);
            }
            Op::And { ty } | Op::Or { ty } | Op::Xor { ty } => {
                let (x, y) = (int(self, state, 1, ty), int(self, state, 2, ty));
                let v = self.bitwise(i.op, ty, x, y);
                self.def_reg(state, &dst, Val::Int(v), &guard);
            }
            Op::Popc { ty } | Op::Clz { ty } | Op::Brev { ty } => {
                let x = int(self, state, 1, ty);
                let kind = match i.op {
                    Op::Popc { .. } => FuncKind::Popc,
                    Op::Clz { .. } => FuncKind::Clz,
                    _ => FuncKind::Brev,
                };
                let v = Expr::func(Func::new(kind, ty.bits() as u8), vec![x]);
                self.def_reg(state, &dst, Val::Int(v), &guard);
            }
            Op::Selp { ty } if !ty.is_float() => {
                let (x, y) = (int(self, state, 1, ty), int(self, state, 2, ty));
                let c = self.pred_of(state, &ops[3], inst, b);
                self.def_reg(state, &dst, Val::Int(Expr::select(c, x, y)), &guard);
            }
            Op::Setp {
                cmp, bool_op, ty, ..
            } => {
                let c = if ty.is_integer() {
                    let (x, y) = (int(self, state, 1, ty), int(self, state, 2, ty));
                    match relation(cmp) {
                        Some(rel) => Cond::compare(rel, &x, &y),
                        None => self.opaque_cond(
                            Key::Value(inst, 0),
                            x.deps().union(y.deps()),
                            "p".into(),
                            Some(b),
                        ),
                    }
                } else {
                    let d = self.use_deps(state, inst, b);
                    let line = self.line_of(inst);
                    self.opaque_cond(Key::Value(inst, 0), d, format!("cmp@{line}"), Some(b))
                };
                let c = match (bool_op, ops.get(3)) {
                    (Some(op), Some(p)) => {
                        let q = self.pred_of(state, p, inst, b);
                        match op {
                            BoolOp::And => c.and(&q),
                            BoolOp::Or => c.or(&q),
                            BoolOp::Xor => c.and(&q.not()).or(&c.not().and(&q)),
                        }
                    }
                    _ => c,
                };
                self.def_reg(state, &dst, Val::Pred(c), &guard);
            }
            Op::ShflSync { .. } => {
                // A shuffle of a uniform value is that value; otherwise it depends on the
                // lane.
                let src = ops.get(1).copied().unwrap_or(Operand::Sink);
                let v = self.int_of(state, &src, Type::B32, b);
                let val = if v.deps().varies_in_block() {
                    let line = self.line_of(inst);
                    self.opaque(
                        Key::Value(inst, 0),
                        Deps::THREAD.union(v.deps()),
                        format!("shfl@{line}"),
                        Some(b),
                    )
                } else {
                    v
                };
                if let Operand::Pair(Some(r), p) = dst {
                    self.set(state, Loc::Reg(r), Val::Int(val), &guard);
                    if let Some(p) = p {
                        let c = self.opaque_cond(
                            Key::Value(inst, 1),
                            Deps::THREAD,
                            "in-range".into(),
                            Some(b),
                        );
                        self.set(state, Loc::Reg(p), Val::Pred(c), &guard);
                    }
                } else {
                    self.def_reg(state, &dst, Val::Int(val), &guard);
                }
            }
            Op::Call { .. } => {
                self.record_call(state, inst, b, &ops, &exec_cond);
                // Results depend on what the arguments depend on; per-thread memory may
                // have been written through pointers.
                let mut d = self.use_deps(state, inst, b);
                for op in &ops {
                    if let Operand::List(list) = op {
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
                }
                // A callee can write a `.local` cell only through its address: when no
                // such address was passed (arguments travel in call-`.param` cells) or
                // has escaped to memory, `.local` cells keep their values (clang's -O0
                // code keeps every variable in `.local`; calls such as `rand()` would
                // otherwise make every loop variable unknown).
                let passes_local = self.call_passes_local_address(state, &ops);
                if passes_local {
                    self.local_address_escaped = true;
                }
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
                self.def_all_opaque(state, inst, b, d, &guard);
            }
            _ => {
                let d = self.use_deps(state, inst, b);
                let d = match i.op {
                    Op::VoteSync { .. }
                    | Op::MatchSync { .. }
                    | Op::Activemask { .. }
                    | Op::ReduxSync { .. } => {
                        if d.varies_in_block() {
                            d.union(Deps::THREAD)
                        } else {
                            d
                        }
                    }
                    _ => d,
                };
                self.def_all_opaque(state, inst, b, d, &guard);
            }
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

    /// `and`/`or`/`xor` of integers: masks and disjoint bits are arithmetic.
    fn bitwise(&self, op: Op, ty: Type, x: Expr, y: Expr) -> Expr {
        let (x, y) = match (x.as_integer(), y.as_integer()) {
            (Some(_), None) => (y, x),
            _ => (x, y),
        };
        let w = ty.bits() as u8;
        if let Some(c) = y.as_integer() {
            match op {
                Op::And { .. } => {
                    if let Some(k) = is_pow2_minus_1(c) {
                        return x.modulo(&Expr::int(1i128 << k));
                    }
                    if let Some(k) = is_neg_pow2(c) {
                        return x.sub(&x.modulo(&Expr::int(1i128 << k)));
                    }
                }
                Op::Or { .. } | Op::Xor { .. } => {
                    // Bits of c below the known zero bits of x: an addition.
                    let content = x.content();
                    if c >= 0 && content != 0 {
                        let zeros = content.trailing_zeros();
                        if zeros < 64 && c < (1i128 << zeros) {
                            return x.add(&y);
                        }
                    }
                }
                _ => {}
            }
        }
        let kind = match op {
            Op::And { .. } => FuncKind::And,
            Op::Or { .. } => FuncKind::Or,
            _ => FuncKind::Xor,
        };
        Expr::func(Func::new(kind, w), vec![x, y])
    }

    #[allow(clippy::too_many_arguments)]
    fn memory(
        &mut self,
        state: &mut State,
        inst: InstId,
        b: BlockId,
        op: &Op,
        ops: &[Operand],
        access: warpcheck_ir::access::MemAccess,
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
        let space = match (access.space, &region) {
            (MemSpace::Generic, Region::Global(_) | Region::ReadPointer(_)) => MemSpace::Global,
            (MemSpace::Generic, Region::Shared(_)) => MemSpace::Shared,
            (MemSpace::Generic, Region::Local(_)) => MemSpace::Local,
            (MemSpace::Generic, Region::Variable(_, StateSpace::Global)) => MemSpace::Global,
            (s, _) => s,
        };
        // Kernel parameters: their values.
        if let (AccessKind::Load, Region::KernelParam(v)) = (access.kind, &region) {
            let var = self.program.variable(*v);
            let index = match var.role {
                VarRole::Param { index, .. } => index as usize,
                _ => 0,
            };
            let offset = addr.sub(&self.base_of(*v)).as_integer();
            let whole = offset == Some(0) && access.bytes.map(u64::from) == var.size;
            // In a call-site context the parameter holds the caller's argument; one the
            // caller's analysis did not know is unknown here too (it may differ from
            // thread to thread), never a uniform parameter.
            let bound = self.context.as_ref().map(|c| {
                offset
                    .and_then(|o| i64::try_from(o).ok())
                    .and_then(|o| c.args.get(&(index as u32, o)))
                    .cloned()
            });
            let val = if let Some(bound) = bound {
                match bound {
                    // Like the joins' limit: a huge argument (selects of selects) would
                    // make every value computed from it huge; its dependence is kept.
                    Some(Val::Int(e)) if e.size() > MAX_BOUND_SIZE => self.opaque(
                        Key::Arg(index as u32, offset.unwrap_or(0) as i64),
                        e.deps(),
                        format!("arg{index}"),
                        None,
                    ),
                    Some(Val::Int(e)) => e,
                    Some(Val::Pred(c)) => Expr::select(c, Expr::one(), Expr::zero()),
                    None => {
                        let line = self.line_of(inst);
                        self.opaque(
                            Key::Value(inst, 0),
                            Deps::ALL,
                            format!("arg@{line}"),
                            Some(b),
                        )
                    }
                }
            } else if whole && !var.ty.is_float() {
                Expr::sym(Symbol::param(&self.param_name(index, *v)))
            } else {
                let line = self.line_of(inst);
                self.opaque(
                    Key::Value(inst, 0),
                    Deps::NONE,
                    format!("param@{line}"),
                    Some(b),
                )
            };
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
        match access.kind {
            AccessKind::Load => {
                let dst = ops.first().copied().unwrap_or(Operand::Sink);
                if let Some((v, off)) = cell {
                    let val = state.vals.get(&Loc::Cell(v, off)).cloned();
                    match (val, dst) {
                        (Some(val), Operand::Reg(r)) => {
                            self.set(state, Loc::Reg(r), val, guard);
                        }
                        _ => {
                            // Unknown or partial cell: opaque, dependent on whatever the
                            // variable holds.
                            let mut d = Deps::NONE;
                            for (loc, val) in &state.vals {
                                if matches!(loc, Loc::Cell(cv, _) if *cv == v) {
                                    d = d.union(val.deps());
                                }
                            }
                            self.def_data(state, inst, b, &dst, None, d, guard);
                        }
                    }
                } else {
                    if matches!(region, Region::Local(_)) {
                        // A dynamically indexed local array: anything it holds.
                        let mut d = addr.deps();
                        for (loc, val) in &state.vals {
                            if matches!((loc, &region), (Loc::Cell(cv, _), Region::Local(rv)) if cv == rv)
                            {
                                d = d.union(val.deps());
                            }
                        }
                        self.def_data(state, inst, b, &dst, None, d, guard);
                    } else {
                        let d = addr.deps();
                        self.def_data(state, inst, b, &dst, None, d, guard);
                        if access.bytes == Some(8)
                            && matches!(dst, Operand::Reg(_))
                            && matches!(space, MemSpace::Global | MemSpace::Const)
                        {
                            let origin = self.pointer_origin(&region);
                            self.record_read_pointer(Key::Value(inst, 0), b, origin);
                        }
                    }
                }
            }
            AccessKind::Store => {
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
                            Val::Int(self.opaque(
                                Key::Value(inst, 0),
                                d,
                                format!("st@{line}"),
                                Some(b),
                            ))
                        }
                    };
                    self.set(state, loc, val, guard);
                    for l in self.enclosing_loops(b) {
                        self.cell_writes[l].insert(loc);
                    }
                } else if let Region::Local(v) | Region::CallParam(v) = region {
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
                        let e =
                            self.opaque(Key::Cell(b, loc), d.union(od), "local".into(), Some(b));
                        state.vals.insert(loc, Val::Int(e));
                        for l in self.enclosing_loops(b) {
                            self.cell_writes[l].insert(loc);
                        }
                    }
                }
            }
            AccessKind::Atomic(_) => {
                let d = addr.deps().union(Deps::THREAD);
                let dst = ops.first().copied().unwrap_or(Operand::Sink);
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
