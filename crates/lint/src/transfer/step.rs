//! The transfer function's entry, [`Analysis::step`]: one exhaustive `match` over the
//! IR's [`Op`], so that an opcode added to the ISA table fails to compile here until
//! the lint says what it does. Each family has its helper: integer arithmetic in
//! [`super::arith`], logic, shifts and comparisons in [`super::logic`], calls in
//! [`super::call`], memory accesses in [`super::memory`], and here moves,
//! conversions, barriers and warp collectives. Everything else (floating point,
//! texture reads, `cp.async`, control flow, fences) defines its results, if any, as
//! opaque values with the dependence of the registers it reads.

use warpcheck_ir::modifiers::BarrierMode;
use warpcheck_ir::operand::Operand;
use warpcheck_ir::{BlockId, InstId, Op, Type};
use warpcheck_sym::{Cond, Deps, Expr};

use crate::analysis::{Analysis, Key, Loc, State, Val};

/// One instruction being stepped: where it is, its operands, and the condition under
/// which it executes.
pub(super) struct StepCx {
    pub(super) inst: InstId,
    pub(super) b: BlockId,
    pub(super) ops: Vec<Operand>,
    /// Operand 0, or [`Operand::Sink`].
    pub(super) dst: Operand,
    /// The instruction's own predicate guard, if any.
    pub(super) guard: Option<Cond>,
    /// The block's condition and the guard.
    pub(super) exec_cond: Cond,
}

impl<'a> Analysis<'a> {
    /// Applies instruction `inst` of block `b`, reached under `block_cond`, to `state`.
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
        let dst = ops.first().copied().unwrap_or(Operand::Sink);
        let cx = StepCx {
            inst,
            b,
            ops,
            dst,
            guard,
            exec_cond,
        };
        self.dispatch(state, &cx, i.op);
    }

    /// The exhaustive dispatch of [`Analysis::step`] by opcode family.
    fn dispatch(&mut self, state: &mut State, cx: &StepCx, op: Op) {
        match op {
            Op::Add { .. }
            | Op::Sub { .. }
            | Op::Mul { .. }
            | Op::Mad { .. }
            | Op::Mul24 { .. }
            | Op::Mad24 { .. }
            | Op::Neg { .. }
            | Op::Abs { .. }
            | Op::Min { .. }
            | Op::Max { .. }
            | Op::Div { .. }
            | Op::Rem { .. } => self.step_arith(state, cx, op),
            Op::Shl { ty } => self.step_shl(state, cx, ty),
            Op::Shr { ty } => self.step_shr(state, cx, ty),
            Op::And { ty } | Op::Or { ty } | Op::Xor { ty } => self.step_logic(state, cx, op, ty),
            Op::Not { ty } => self.step_not(state, cx, ty),
            Op::Popc { ty } | Op::Clz { ty } | Op::Brev { ty } => {
                self.step_bit_count(state, cx, op, ty)
            }
            Op::Selp { ty } => self.step_selp(state, cx, ty),
            Op::Setp {
                cmp, bool_op, ty, ..
            } => self.step_setp(state, cx, cmp, bool_op, ty),
            Op::Mov { ty, vec } => self.step_mov(state, cx, ty, vec.is_none()),
            Op::Cvta { .. } => self.step_int_copy(state, cx, Type::U64),
            Op::Cvt { dty, sty, .. } if dty.is_integer() && sty.is_integer() => {
                self.step_int_copy(state, cx, sty)
            }
            Op::Barrier { mode, .. } => self.step_barrier(state, cx, mode),
            Op::ShflSync { .. } => self.step_shfl(state, cx),
            Op::VoteSync { .. }
            | Op::MatchSync { .. }
            | Op::Activemask { .. }
            | Op::ReduxSync { .. } => self.step_collective(state, cx),
            Op::Call { .. } => self.step_call(state, cx),
            // Results that are opaque functions of the operands.
            Op::Cvt { .. }
            | Op::AddC { .. }
            | Op::SubC { .. }
            | Op::MadC { .. }
            | Op::Sad { .. }
            | Op::Bfind { .. }
            | Op::Fns { .. }
            | Op::Bfe { .. }
            | Op::Bfi { .. }
            | Op::Bmsk { .. }
            | Op::Dp4a { .. }
            | Op::Dp2a { .. }
            | Op::Cnot { .. }
            | Op::Lop3 { .. }
            | Op::Shf { .. }
            | Op::Prmt { .. }
            | Op::Set { .. }
            | Op::Slct { .. }
            | Op::Isspacep { .. } => self.step_opaque(state, cx),
            // Floating point.
            Op::Testp { .. }
            | Op::Copysign { .. }
            | Op::Fma { .. }
            | Op::Rcp { .. }
            | Op::Sqrt { .. }
            | Op::Rsqrt { .. }
            | Op::Sin { .. }
            | Op::Cos { .. }
            | Op::Lg2 { .. }
            | Op::Ex2 { .. }
            | Op::Tanh { .. } => self.step_opaque(state, cx),
            // Memory instructions with an address were handled by `memory`; these
            // forms define their results, if any, opaquely.
            Op::Ld { .. }
            | Op::Ldu { .. }
            | Op::St { .. }
            | Op::Atom { .. }
            | Op::Red { .. }
            | Op::Prefetch { .. }
            | Op::Prefetchu { .. }
            | Op::CpAsync { .. }
            | Op::CpAsyncCommitGroup {}
            | Op::CpAsyncWaitGroup {}
            | Op::CpAsyncWaitAll {}
            | Op::Tex { .. }
            | Op::Suld { .. }
            | Op::Sust { .. }
            | Op::Mma { .. }
            | Op::Ldmatrix { .. }
            | Op::Stmatrix { .. }
            | Op::WmmaLoad { .. }
            | Op::WmmaStore { .. }
            | Op::WmmaMma { .. }
            | Op::MbarrierInit { .. }
            | Op::MbarrierInval { .. }
            | Op::MbarrierArrive { .. }
            | Op::MbarrierArriveDrop { .. }
            | Op::MbarrierExpectTx { .. }
            | Op::MbarrierCompleteTx { .. }
            | Op::MbarrierTestWait { .. }
            | Op::MbarrierTryWait { .. }
            | Op::MbarrierPendingCount { .. }
            | Op::CpAsyncMbarrierArrive { .. } => self.step_opaque(state, cx),
            // Control flow, fences and the like define nothing of interest.
            Op::Bra { .. }
            | Op::BrxIdx { .. }
            | Op::Ret { .. }
            | Op::Exit {}
            | Op::Trap {}
            | Op::Brkpt {}
            | Op::BarWarpSync {}
            | Op::Membar { .. }
            | Op::Fence { .. }
            | Op::FenceProxy { .. }
            | Op::Griddepcontrol { .. }
            | Op::Nanosleep { .. } => self.step_opaque(state, cx),
        }
    }

    /// Source operand `k` as an integer of type `ty` (zero when absent).
    pub(super) fn int_at(&mut self, state: &State, cx: &StepCx, k: usize, ty: Type) -> Expr {
        match cx.ops.get(k) {
            Some(op) => self.int_of(state, op, ty, cx.b),
            None => Expr::zero(),
        }
    }

    /// Source operand `k` as a predicate.
    pub(super) fn pred_at(&mut self, state: &State, cx: &StepCx, k: usize) -> Cond {
        self.pred_of(state, &cx.ops[k], cx.inst, cx.b)
    }

    /// Defines the destination operand as `v`.
    pub(super) fn def_dst(&mut self, state: &mut State, cx: &StepCx, v: Val) {
        self.def_reg(state, &cx.dst, v, &cx.guard);
    }

    /// The default: every register written gets an opaque value that depends on what
    /// the instruction reads.
    pub(super) fn step_opaque(&mut self, state: &mut State, cx: &StepCx) {
        let d = self.use_deps(state, cx.inst, cx.b);
        self.def_all_opaque(state, cx.inst, cx.b, d, &cx.guard);
    }

    /// `vote`, `match`, `activemask`, `redux`: a result that combines the lanes varies
    /// between threads as soon as one input does.
    fn step_collective(&mut self, state: &mut State, cx: &StepCx) {
        let d = self.use_deps(state, cx.inst, cx.b);
        let d = if d.varies_in_block() {
            d.union(Deps::THREAD)
        } else {
            d
        };
        self.def_all_opaque(state, cx.inst, cx.b, d, &cx.guard);
    }

    /// `barrier`: records `bar.sync`s; `bar.red` results are the same for the whole
    /// block.
    fn step_barrier(&mut self, state: &mut State, cx: &StepCx, mode: BarrierMode) {
        if mode == BarrierMode::Sync {
            self.barriers.push((cx.inst, cx.b));
        }
        self.def_all_opaque(state, cx.inst, cx.b, Deps::NONE, &cx.guard);
    }

    /// `mov` of a register, immediate or special register (not of vectors).
    fn step_mov(&mut self, state: &mut State, cx: &StepCx, ty: Type, scalar: bool) {
        let vector = matches!(cx.dst, Operand::Vector(_))
            || matches!(cx.ops.get(1), Some(Operand::Vector(_)));
        if !scalar || vector {
            return self.step_opaque(state, cx);
        }
        if ty.is_pred() {
            let c = self.pred_at(state, cx, 1);
            self.def_dst(state, cx, Val::Pred(c));
        } else {
            let v = self.int_at(state, cx, 1, ty);
            self.def_dst(state, cx, Val::Int(v));
        }
    }

    /// `cvta` and integer `cvt`: the identity on the source of type `ty`.
    fn step_int_copy(&mut self, state: &mut State, cx: &StepCx, ty: Type) {
        let v = self.int_at(state, cx, 1, ty);
        self.def_dst(state, cx, Val::Int(v));
    }

    /// `shfl.sync`: a shuffle of a uniform value is that value; otherwise it depends on
    /// the lane.
    fn step_shfl(&mut self, state: &mut State, cx: &StepCx) {
        let src = cx.ops.get(1).copied().unwrap_or(Operand::Sink);
        let v = self.int_of(state, &src, Type::B32, cx.b);
        let val = if v.deps().varies_in_block() {
            let line = self.line_of(cx.inst);
            self.opaque(
                Key::Value(cx.inst, 0),
                Deps::THREAD.union(v.deps()),
                format!("shfl@{line}"),
                Some(cx.b),
            )
        } else {
            v
        };
        if let Operand::Pair(Some(r), p) = cx.dst {
            self.set(state, Loc::Reg(r), Val::Int(val), &cx.guard);
            if let Some(p) = p {
                let c = self.opaque_cond(
                    Key::Value(cx.inst, 1),
                    Deps::THREAD,
                    "in-range".into(),
                    Some(cx.b),
                );
                self.set(state, Loc::Reg(p), Val::Pred(c), &cx.guard);
            }
        } else {
            self.def_dst(state, cx, Val::Int(val));
        }
    }
}
