//! Translation of the IR into flat ops, once per launch.
//!
//! The translator
//! 1. collects the functions reachable from the kernel (direct calls, and every function
//!    whose address is taken, for indirect calls);
//! 2. assigns register-file slots: one per non-predicate register of every reachable
//!    function (functions get disjoint ranges, so a call does not clobber its caller's
//!    registers), one per distinct immediate (converted to the instruction type), one per
//!    special register read, and predicate slots for predicate registers;
//! 3. lays out memory: static `.shared` variables (module and function scope) at
//!    increasing offsets, the dynamic `extern .shared` array after them; `.const`
//!    variables in one constant bank with their initialisers; each function's call frame
//!    (its parameters, return values, `.local` variables and call-sequence `.param`s);
//! 4. translates every instruction into one [`FlatOp`], resolving operands to slots,
//!    addresses to [`Addr`] modes, branch targets to program counters, and each divergent
//!    branch's reconvergence point to the first op of its block's immediate
//!    post-dominator ([`warpcheck_ir::Body::ipdom`]).
//!
//! Anything the emulator cannot run is an [`EmuError::Unsupported`] naming the
//! instruction and its source line, found here before the launch starts.

use std::collections::HashMap;

use warpcheck_ir::modifiers::{
    BarrierMode, IntRounding, MemSpace, Mul24Mode, MulMode, RoundingMode, VoteMode,
};
use warpcheck_ir::operand::{AddressBase, Symbol};
use warpcheck_ir::symbols::VarRole;
use warpcheck_ir::{
    EntityRef, FuncId, Imm, InstId, Op, Operand, Program, Reg, SpecialOperand, SpecialReg, Type,
    VarId,
};
use warpcheck_ptx::ast::StateSpace;

use crate::calls::Native;
use crate::exec::cvt::CvtSpec;
use crate::fault::EmuError;
use crate::ops::*;

/// Where a variable lives.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum VarLoc {
    /// A kernel parameter at this offset of the parameter block.
    KernelParam(u64),
    /// In the owning function's call frame.
    Frame(u64),
    Shared(u64),
    Global(u64),
    Const(u64),
}

/// One reachable function.
#[derive(Clone, Debug)]
pub(crate) struct FlatFunc {
    pub id: FuncId,
    /// The pc of its first op.
    pub base: u32,
    /// Bytes of its call frame.
    pub frame_size: u64,
    /// Whether it is part of a recursive cycle of the call graph.
    pub recursive: bool,
    /// Its register slots (for saving them around recursive calls).
    pub slot_range: (Slot, Slot),
    pub pred_range: (PSlot, PSlot),
    /// Frame offsets and sizes of its parameters and return values (device functions).
    pub param_offsets: Vec<(u64, u32)>,
    pub ret_offsets: Vec<(u64, u32)>,
}

/// The translated kernel.
pub(crate) struct Flat {
    pub ops: Vec<FlatOp>,
    /// For each op: the flat function and the instruction it came from.
    pub origin: Vec<(u32, InstId)>,
    pub funcs: Vec<FlatFunc>,
    pub nslots: usize,
    pub npreds: usize,
    pub const_slots: Vec<(Slot, u64)>,
    pub specials: Vec<(Slot, SpecialOperand)>,
    /// Bytes of static shared memory; the dynamic array starts at `dynamic_shared_offset`.
    pub static_shared: u64,
    pub dynamic_shared_offset: u64,
    pub const_bank: Vec<u8>,
    pub params: Vec<u8>,
    /// Per-thread stack bytes (the deepest chain of call frames).
    pub stack_size: u64,
    /// Flat function index of each reachable function.
    pub func_by_id: HashMap<FuncId, u32>,
    /// Register slots that some path may read before writing them (live at the entry of
    /// their function): zeroed at the start of every block so that runs are
    /// deterministic whatever ran before on the host thread.
    pub maybe_uninit: Vec<Slot>,
}

pub(crate) const SINK: Slot = 0;
pub(crate) const CARRY: Slot = 1;
pub(crate) const PRED_FALSE: PSlot = 0;
pub(crate) const PRED_TRUE: PSlot = 1;
/// Reconvergence at the virtual exit: the paths meet only when the threads exit.
pub(crate) const NO_PC: u32 = u32::MAX;
/// The per-thread stack of a recursive kernel.
pub(crate) const RECURSIVE_STACK: u64 = 16 << 10;

/// Addresses of module-scope `.global` variables, placed by the launcher.
pub(crate) type GlobalPlacement = HashMap<VarId, u64>;

struct Translator<'p> {
    program: &'p Program,
    params: &'p [u8],
    globals: &'p GlobalPlacement,
    funcs: Vec<FlatFunc>,
    func_index: HashMap<FuncId, u32>,
    /// Per flat function: slot (or predicate slot) of each register.
    reg_slots: Vec<Vec<u32>>,
    nslots: u32,
    npreds: u32,
    consts: HashMap<u64, Slot>,
    specials: HashMap<SpecialOperand, Slot>,
    vars: HashMap<VarId, VarLoc>,
    ops: Vec<FlatOp>,
    origin: Vec<(u32, InstId)>,
}

pub(crate) fn translate(
    program: &Program,
    kernel: FuncId,
    params: &[u8],
    globals: &GlobalPlacement,
) -> Result<Flat, EmuError> {
    let mut t = Translator {
        program,
        params,
        globals,
        funcs: Vec::new(),
        func_index: HashMap::new(),
        reg_slots: Vec::new(),
        nslots: 2,
        npreds: 2,
        consts: HashMap::new(),
        specials: HashMap::new(),
        vars: HashMap::new(),
        ops: Vec::new(),
        origin: Vec::new(),
    };
    t.collect_functions(kernel)?;
    let (static_shared, dynamic_shared_offset) = t.layout_shared();
    let const_bank = t.layout_const();
    for (&v, &addr) in globals {
        t.vars.insert(v, VarLoc::Global(addr));
    }
    t.layout_frames();
    t.assign_registers();
    let stack_size = t.stack_size();
    for f in 0..t.funcs.len() {
        t.translate_function(f as u32)?;
    }
    let mut maybe_uninit = Vec::new();
    for f in 0..t.funcs.len() {
        if let Some(body) = &program.function(t.funcs[f].id).body {
            for r in live_at_entry(body) {
                let slot = t.reg_slots[f][r.index()];
                if !body.regs[r].ty.is_pred() {
                    maybe_uninit.push(slot);
                }
            }
        }
    }
    let const_slots = t.consts.iter().map(|(&v, &s)| (s, v)).collect();
    let specials = t.specials.iter().map(|(&o, &s)| (s, o)).collect();
    Ok(Flat {
        ops: t.ops,
        origin: t.origin,
        funcs: t.funcs,
        nslots: t.nslots as usize,
        npreds: t.npreds as usize,
        const_slots,
        specials,
        static_shared,
        dynamic_shared_offset,
        const_bank,
        params: params.to_vec(),
        stack_size,
        func_by_id: t.func_index,
        maybe_uninit,
    })
}

/// Registers that may be read before they are written on some path from the entry:
/// backward liveness over the CFG (a guarded write does not kill the old value).
fn live_at_entry(body: &warpcheck_ir::Body) -> Vec<Reg> {
    use warpcheck_ir::defuse::visit_regs;
    use warpcheck_ir::operand::Role;
    let nregs = body.regs.len();
    let words = nregs.div_ceil(64);
    let nblocks = body.blocks.len();
    // Per block: registers used before any (unguarded) def, and registers killed.
    let mut gen_ = vec![vec![0u64; words]; nblocks];
    let mut kill = vec![vec![0u64; words]; nblocks];
    for (b, block) in body.blocks.iter() {
        let (g, k) = (&mut gen_[b.index()], &mut kill[b.index()]);
        for inst in block.insts() {
            let guarded = body.insts[inst].guard.is_some();
            let mut defs = Vec::new();
            visit_regs(body, inst, |r, role| {
                let (w, bit) = (r.index() / 64, 1u64 << (r.index() % 64));
                match role {
                    Role::Use => {
                        if k[w] & bit == 0 {
                            g[w] |= bit;
                        }
                    }
                    Role::Def => defs.push((w, bit)),
                }
            });
            if !guarded {
                for (w, bit) in defs {
                    k[w] |= bit;
                }
            }
        }
    }
    let mut live_in = gen_.clone();
    let mut changed = true;
    while changed {
        changed = false;
        for b in (0..nblocks).rev() {
            let mut out = vec![0u64; words];
            for s in body.cfg.succs(warpcheck_ir::BlockId::new(b)) {
                for (o, x) in out.iter_mut().zip(&live_in[s.index()]) {
                    *o |= x;
                }
            }
            for w in 0..words {
                let v = gen_[b][w] | (out[w] & !kill[b][w]);
                if v != live_in[b][w] {
                    live_in[b][w] = v;
                    changed = true;
                }
            }
        }
    }
    let entry = live_in.first().cloned().unwrap_or_default();
    (0..nregs)
        .filter(|&r| entry[r / 64] >> (r % 64) & 1 == 1)
        .map(Reg::new)
        .collect()
}

fn align_up(x: u64, a: u64) -> u64 {
    x.div_ceil(a.max(1)) * a.max(1)
}

impl Translator<'_> {
    fn collect_functions(&mut self, kernel: FuncId) -> Result<(), EmuError> {
        let mut work = vec![kernel];
        let mut taken = Vec::new();
        while let Some(f) = work.pop() {
            if self.func_index.contains_key(&f) {
                continue;
            }
            let func = self.program.function(f);
            let Some(body) = &func.body else { continue };
            self.func_index.insert(f, self.funcs.len() as u32);
            self.funcs.push(FlatFunc {
                id: f,
                base: 0,
                frame_size: 0,
                recursive: false,
                slot_range: (0, 0),
                pred_range: (0, 0),
                param_offsets: Vec::new(),
                ret_offsets: Vec::new(),
            });
            for op in &body.operands {
                match op {
                    Operand::Func(g) => work.push(*g),
                    Operand::SymbolAddress {
                        symbol: Symbol::Func(g),
                        ..
                    } => {
                        work.push(*g);
                        taken.push(*g);
                    }
                    _ => {}
                }
            }
        }
        // Recursion: a function that can reach itself through direct calls.
        let n = self.funcs.len();
        for i in 0..n {
            let start = self.funcs[i].id;
            let mut seen = vec![false; n];
            let mut stack: Vec<u32> = self.callees(start);
            while let Some(c) = stack.pop() {
                if self.funcs[c as usize].id == start {
                    self.funcs[i].recursive = true;
                    break;
                }
                if !seen[c as usize] {
                    seen[c as usize] = true;
                    stack.extend(self.callees(self.funcs[c as usize].id));
                }
            }
        }
        Ok(())
    }

    fn callees(&self, f: FuncId) -> Vec<u32> {
        let Some(body) = &self.program.function(f).body else {
            return Vec::new();
        };
        body.operands
            .iter()
            .filter_map(|o| match o {
                Operand::Func(g) => self.func_index.get(g).copied(),
                _ => None,
            })
            .collect()
    }

    /// Static shared variables used by the reachable functions, then the dynamic array.
    fn layout_shared(&mut self) -> (u64, u64) {
        let mut offset = 0u64;
        let mut dynamic_align = 16u64;
        let mut dynamic = Vec::new();
        let mut vars: Vec<VarId> = self
            .program
            .globals
            .iter()
            .copied()
            .filter(|&v| self.program.variable(v).space == StateSpace::Shared)
            .collect();
        for f in &self.funcs {
            if let Some(body) = &self.program.function(f.id).body {
                vars.extend(
                    body.locals
                        .iter()
                        .copied()
                        .filter(|&v| self.program.variable(v).space == StateSpace::Shared),
                );
            }
        }
        for v in vars {
            let var = self.program.variable(v);
            match var.size {
                Some(size) => {
                    offset = align_up(offset, var.align as u64);
                    self.vars.insert(v, VarLoc::Shared(offset));
                    offset += size;
                }
                None => {
                    dynamic_align = dynamic_align.max(var.align as u64);
                    dynamic.push(v);
                }
            }
        }
        let dynamic_offset = align_up(offset, dynamic_align);
        for v in dynamic {
            self.vars.insert(v, VarLoc::Shared(dynamic_offset));
        }
        (offset, dynamic_offset)
    }

    /// Module `.const` variables, with initialisers (relocations resolved for global and
    /// const symbols).
    fn layout_const(&mut self) -> Vec<u8> {
        let mut bank = Vec::new();
        let consts: Vec<VarId> = self
            .program
            .globals
            .iter()
            .copied()
            .filter(|&v| self.program.variable(v).space == StateSpace::Const)
            .collect();
        for v in &consts {
            let var = self.program.variable(*v);
            let size = var
                .size
                .or(var.init.as_ref().map(|i| i.bytes.len() as u64))
                .unwrap_or(0);
            let off = align_up(bank.len() as u64, var.align as u64);
            bank.resize(off as usize, 0);
            self.vars.insert(*v, VarLoc::Const(off));
            match &var.init {
                Some(init) => bank.extend_from_slice(&init.bytes),
                None => bank.resize((off + size) as usize, 0),
            }
            bank.resize((off + size) as usize, 0);
        }
        for v in consts {
            let var = self.program.variable(v);
            let Some(init) = &var.init else { continue };
            let Some(VarLoc::Const(base)) = self.vars.get(&v).copied() else {
                continue;
            };
            for r in &init.relocations {
                let target = match r.symbol {
                    Symbol::Var(t) => match self
                        .vars
                        .get(&t)
                        .copied()
                        .or(self.globals.get(&t).map(|&a| VarLoc::Global(a)))
                    {
                        Some(VarLoc::Global(a)) => a,
                        Some(VarLoc::Const(o)) if r.generic => crate::memory::CONST_WINDOW + o,
                        Some(VarLoc::Const(o)) => o,
                        _ => continue,
                    },
                    Symbol::Func(f) => crate::exec::control::FUNC_ADDR_BASE + f.index() as u64,
                };
                let at = (base + r.offset) as usize;
                let n = r.size as usize;
                if let Some(bytes) = bank.get_mut(at..at + n) {
                    let mut buf = [0u8; 8];
                    buf[..n].copy_from_slice(bytes);
                    let v = u64::from_le_bytes(buf).wrapping_add(target);
                    bytes.copy_from_slice(&v.to_le_bytes()[..n]);
                }
            }
        }
        bank
    }

    fn layout_frames(&mut self) {
        for i in 0..self.funcs.len() {
            let f = self.funcs[i].id;
            let func = self.program.function(f);
            let kernel = func.is_kernel();
            let mut offset = 0u64;
            for &p in &func.params {
                let var = self.program.variable(p);
                if let VarRole::Param { offset: o, .. } = var.role {
                    self.funcs[i]
                        .param_offsets
                        .push((o, var.size.unwrap_or(0) as u32));
                    let loc = if kernel {
                        VarLoc::KernelParam(o)
                    } else {
                        VarLoc::Frame(o)
                    };
                    self.vars.insert(p, loc);
                }
            }
            if !kernel {
                offset = align_up(func.param_space_size, 16);
                let ret_base = offset;
                for &r in &func.returns {
                    let var = self.program.variable(r);
                    if let VarRole::Return { offset: o, .. } = var.role {
                        self.vars.insert(r, VarLoc::Frame(ret_base + o));
                        self.funcs[i]
                            .ret_offsets
                            .push((ret_base + o, var.size.unwrap_or(0) as u32));
                        offset = offset.max(ret_base + o + var.size.unwrap_or(8));
                    }
                }
            }
            if let Some(body) = &func.body {
                for &v in &body.locals {
                    let var = self.program.variable(v);
                    if matches!(var.space, StateSpace::Local | StateSpace::Param) {
                        offset = align_up(offset, var.align.max(1) as u64);
                        self.vars.insert(v, VarLoc::Frame(offset));
                        offset += var.size.unwrap_or(0);
                    }
                }
            }
            self.funcs[i].frame_size = align_up(offset, 16);
        }
    }

    fn assign_registers(&mut self) {
        for i in 0..self.funcs.len() {
            let body = self.program.function(self.funcs[i].id).body.as_ref();
            let mut slots = Vec::new();
            let (s0, p0) = (self.nslots, self.npreds);
            if let Some(body) = body {
                for (_, info) in body.regs.iter() {
                    if info.ty.is_pred() {
                        slots.push(self.npreds);
                        self.npreds += 1;
                    } else {
                        slots.push(self.nslots);
                        self.nslots += 1;
                    }
                }
            }
            self.funcs[i].slot_range = (s0, self.nslots);
            self.funcs[i].pred_range = (p0, self.npreds);
            self.reg_slots.push(slots);
        }
    }

    /// The deepest chain of frames from the kernel (a fixed stack when recursive).
    fn stack_size(&self) -> u64 {
        if self.funcs.iter().any(|f| f.recursive) {
            return RECURSIVE_STACK;
        }
        fn depth(t: &Translator, f: u32, memo: &mut HashMap<u32, u64>) -> u64 {
            if let Some(&d) = memo.get(&f) {
                return d;
            }
            let own = t.funcs[f as usize].frame_size;
            let deepest = t
                .callees(t.funcs[f as usize].id)
                .into_iter()
                .map(|c| depth(t, c, memo))
                .max()
                .unwrap_or(0);
            memo.insert(f, own + deepest);
            own + deepest
        }
        let mut memo = HashMap::new();
        // Indirect calls may reach any address-taken function: add the largest frame.
        let indirect = self.funcs.iter().map(|f| f.frame_size).max().unwrap_or(0);
        depth(self, 0, &mut memo) + indirect
    }

    fn const_slot(&mut self, value: u64) -> Slot {
        if let Some(&s) = self.consts.get(&value) {
            return s;
        }
        let s = self.nslots;
        self.nslots += 1;
        self.consts.insert(value, s);
        s
    }

    fn translate_function(&mut self, fi: u32) -> Result<(), EmuError> {
        let f = self.funcs[fi as usize].id;
        let func = self.program.function(f);
        let Some(body) = &func.body else {
            return Ok(());
        };
        let base = self.ops.len() as u32;
        self.funcs[fi as usize].base = base;
        let block_pc = |b: warpcheck_ir::BlockId| base + body.blocks[b].start.index() as u32;
        for (id, inst) in body.insts.iter() {
            let mut cx = InstCx {
                t: self,
                fi,
                body,
                id,
                is_kernel: func.is_kernel(),
            };
            let kind = cx
                .translate(inst.op, body.operands_of(id), &block_pc)
                .map_err(|e| match e {
                    EmuError::Unsupported {
                        what,
                        location: None,
                    } => EmuError::Unsupported {
                        what,
                        location: Some(self.location(f, id)),
                    },
                    other => other,
                })?;
            let guard = match inst.guard {
                Some(g) => Some(PSrc {
                    slot: self.reg_slots[fi as usize][g.pred.index()],
                    neg: g.negated,
                }),
                None => None,
            };
            self.ops.push(FlatOp { guard, kind });
            self.origin.push((fi, id));
        }
        // Falling off the end of the body returns.
        self.ops.push(FlatOp {
            guard: None,
            kind: OpKind::Ret,
        });
        self.origin
            .push((fi, InstId::new(body.insts.len().saturating_sub(1))));
        Ok(())
    }

    fn location(&self, f: FuncId, id: InstId) -> String {
        let func = self.program.function(f);
        let loc = func
            .body
            .as_ref()
            .and_then(|b| b.inst_locs.get(id.index()).copied().flatten());
        match loc {
            Some(l) => format!(
                "{} ({} in {})",
                self.program.files.render(&l),
                id,
                func.display_name()
            ),
            None => format!("{} in {}", id, func.display_name()),
        }
    }
}

/// Translating one instruction.
struct InstCx<'a, 'p> {
    t: &'a mut Translator<'p>,
    fi: u32,
    body: &'p warpcheck_ir::Body,
    id: InstId,
    is_kernel: bool,
}

fn unsupported<T>(what: impl Into<String>) -> Result<T, EmuError> {
    Err(EmuError::unsupported(what))
}

fn int_w(ty: Type) -> W {
    W::from_bits(ty.bits())
}

fn fty(ty: Type) -> Result<FTy, EmuError> {
    Ok(match ty {
        Type::F16 => FTy::F16,
        Type::Bf16 => FTy::Bf16,
        Type::F32 => FTy::F32,
        Type::F64 => FTy::F64,
        Type::F16x2 => FTy::F16x2,
        Type::Bf16x2 => FTy::Bf16x2,
        other => return unsupported(format!("floating-point type .{other}")),
    })
}

fn fspec(ty: Type, rnd: Option<RoundingMode>, ftz: bool, sat: bool) -> Result<FSpec, EmuError> {
    Ok(FSpec {
        ty: fty(ty)?,
        rnd: rnd.unwrap_or(RoundingMode::Rn),
        ftz,
        sat,
    })
}

fn space_of(space: MemSpace) -> MemSpace {
    match space {
        MemSpace::SharedCluster => MemSpace::Shared,
        s => s,
    }
}

impl InstCx<'_, '_> {
    fn reg(&self, r: Reg) -> u32 {
        self.t.reg_slots[self.fi as usize][r.index()]
    }

    fn reg_ty(&self, r: Reg) -> Type {
        self.body.regs[r].ty
    }

    /// A source value of type `ty` as a slot.
    fn src(&mut self, op: &Operand, ty: Type) -> Result<Slot, EmuError> {
        match *op {
            Operand::Reg(r) => {
                if self.reg_ty(r).is_pred() {
                    return unsupported("a predicate register used as a value");
                }
                Ok(self.reg(r))
            }
            Operand::Imm(imm) => Ok(self.t.const_slot(imm_bits(imm, ty))),
            Operand::Special(s) => self.special(s),
            Operand::SymbolAddress { symbol, offset } => {
                match self.symbol_value(symbol, offset)? {
                    SymValue::Const(v) => Ok(self.t.const_slot(v)),
                    SymValue::Frame(_) => {
                        unsupported("the address of a .local or .param variable outside `mov`")
                    }
                }
            }
            ref other => unsupported(format!("operand {other:?} as a value")),
        }
    }

    fn special(&mut self, s: SpecialOperand) -> Result<Slot, EmuError> {
        if matches!(
            s.reg,
            SpecialReg::Clock
                | SpecialReg::ClockHi
                | SpecialReg::Clock64
                | SpecialReg::GlobalTimer
                | SpecialReg::GlobalTimerLo
                | SpecialReg::GlobalTimerHi
        ) {
            return unsupported(format!("{s} outside `mov`"));
        }
        if let Some(&slot) = self.t.specials.get(&s) {
            return Ok(slot);
        }
        let slot = self.t.nslots;
        self.t.nslots += 1;
        self.t.specials.insert(s, slot);
        Ok(slot)
    }

    fn psrc(&self, op: &Operand) -> Result<PSrc, EmuError> {
        match *op {
            Operand::Reg(r) if self.reg_ty(r).is_pred() => Ok(PSrc {
                slot: self.reg(r),
                neg: false,
            }),
            Operand::NegPred(r) => Ok(PSrc {
                slot: self.reg(r),
                neg: true,
            }),
            Operand::Imm(i) => Ok(PSrc {
                slot: if i.bits != 0 { PRED_TRUE } else { PRED_FALSE },
                neg: false,
            }),
            ref other => unsupported(format!("operand {other:?} as a predicate")),
        }
    }

    fn dst(&self, op: &Operand) -> Result<Slot, EmuError> {
        match *op {
            Operand::Reg(r) if !self.reg_ty(r).is_pred() => Ok(self.reg(r)),
            Operand::Sink | Operand::Absent => Ok(SINK),
            ref other => unsupported(format!("destination {other:?}")),
        }
    }

    fn pdst(&self, op: &Operand) -> Result<Option<PSlot>, EmuError> {
        match *op {
            Operand::Reg(r) if self.reg_ty(r).is_pred() => Ok(Some(self.reg(r))),
            Operand::Sink | Operand::Absent => Ok(None),
            ref other => unsupported(format!("predicate destination {other:?}")),
        }
    }

    fn symbol_value(&mut self, symbol: Symbol, offset: i64) -> Result<SymValue, EmuError> {
        let off = offset as u64;
        match symbol {
            Symbol::Func(f) => Ok(SymValue::Const(
                crate::exec::control::FUNC_ADDR_BASE + f.index() as u64 + off,
            )),
            Symbol::Var(v) => match self.var_loc(v)? {
                VarLoc::KernelParam(o) => Ok(SymValue::Const(o.wrapping_add(off))),
                VarLoc::Frame(o) => Ok(SymValue::Frame(o.wrapping_add(off))),
                VarLoc::Shared(o) | VarLoc::Const(o) => Ok(SymValue::Const(o.wrapping_add(off))),
                VarLoc::Global(a) => Ok(SymValue::Const(a.wrapping_add(off))),
            },
        }
    }

    fn var_loc(&self, v: VarId) -> Result<VarLoc, EmuError> {
        match self.t.vars.get(&v) {
            Some(&l) => Ok(l),
            None => {
                let var = self.t.program.variable(v);
                unsupported(format!("variable `{}` in .{:?} space", var.name, var.space))
            }
        }
    }

    fn vec_dsts(&self, op: &Operand) -> Result<VecSlots, EmuError> {
        let mut v = VecSlots {
            n: 0,
            slots: [SINK; 4],
        };
        match *op {
            Operand::Vector(list) => {
                let elems = self.body.list(list);
                if elems.len() > 4 {
                    return unsupported("vectors of more than 4 elements");
                }
                for (i, e) in elems.iter().enumerate() {
                    v.slots[i] = self.dst(e)?;
                }
                v.n = elems.len() as u8;
            }
            ref o => {
                v.slots[0] = self.dst(o)?;
                v.n = 1;
            }
        }
        Ok(v)
    }

    fn vec_srcs(&mut self, op: &Operand, ty: Type) -> Result<VecSlots, EmuError> {
        let mut v = VecSlots {
            n: 0,
            slots: [SINK; 4],
        };
        match *op {
            Operand::Vector(list) => {
                let elems = self.body.list(list);
                if elems.len() > 4 {
                    return unsupported("vectors of more than 4 elements");
                }
                for (i, e) in elems.iter().enumerate() {
                    v.slots[i] = self.src(e, ty)?;
                }
                v.n = elems.len() as u8;
            }
            ref o => {
                v.slots[0] = self.src(o, ty)?;
                v.n = 1;
            }
        }
        Ok(v)
    }

    /// An address operand in `space`; returns the (possibly refined) space and mode.
    fn addr(&mut self, op: &Operand, space: MemSpace) -> Result<(MemSpace, Addr), EmuError> {
        let Operand::Address(a) = *op else {
            return unsupported(format!("address operand {op:?}"));
        };
        match a.base {
            AddressBase::Reg(r) => {
                let slot = self.reg(r);
                // A .func's `ld.param [%r]` addresses its frame; a kernel's, the
                // parameter block.
                let space = if space == MemSpace::Param && !self.is_kernel {
                    return unsupported("register-addressed .param access in a device function");
                } else {
                    space
                };
                Ok((
                    space,
                    Addr::Reg {
                        slot,
                        offset: a.offset,
                    },
                ))
            }
            AddressBase::Absolute => Ok((space, Addr::Abs(a.offset as u64))),
            AddressBase::Var(v) => {
                let off = a.offset as u64;
                match self.var_loc(v)? {
                    VarLoc::KernelParam(o) => Ok((MemSpace::Param, Addr::Abs(o.wrapping_add(off)))),
                    VarLoc::Frame(o) => Ok((MemSpace::Local, Addr::Frame(o.wrapping_add(off)))),
                    VarLoc::Shared(o) => Ok((
                        if space == MemSpace::Generic {
                            MemSpace::Shared
                        } else {
                            space
                        },
                        Addr::Abs(if space == MemSpace::Generic {
                            crate::memory::SHARED_WINDOW + o + off
                        } else {
                            o.wrapping_add(off)
                        }),
                    )),
                    VarLoc::Const(o) => Ok((MemSpace::Const, Addr::Abs(o.wrapping_add(off)))),
                    VarLoc::Global(g) => Ok((MemSpace::Global, Addr::Abs(g.wrapping_add(off)))),
                }
                .map(|(s, a)| match (s, a) {
                    // `[sdata]` in a generic access: we computed the generic address; keep
                    // the access generic so that it resolves through the window.
                    (MemSpace::Shared, Addr::Abs(x)) if space == MemSpace::Generic => {
                        (MemSpace::Generic, Addr::Abs(x))
                    }
                    other => other,
                })
            }
        }
    }

    fn translate(
        &mut self,
        op: Op,
        ops: &[Operand],
        block_pc: &dyn Fn(warpcheck_ir::BlockId) -> u32,
    ) -> Result<OpKind, EmuError> {
        let o = |i: usize| ops.get(i).copied().unwrap_or(Operand::Absent);
        macro_rules! un {
            ($f:expr, $ty:expr) => {{
                let d = self.dst(&o(0))?;
                let a = self.src(&o(1), $ty)?;
                OpKind::Un { f: $f, d, a }
            }};
        }
        macro_rules! bin {
            ($f:expr, $ta:expr, $tb:expr) => {{
                let d = self.dst(&o(0))?;
                let a = self.src(&o(1), $ta)?;
                let b = self.src(&o(2), $tb)?;
                OpKind::Bin { f: $f, d, a, b }
            }};
        }
        macro_rules! tern {
            ($f:expr, $ta:expr, $tb:expr, $tc:expr) => {{
                let d = self.dst(&o(0))?;
                let a = self.src(&o(1), $ta)?;
                let b = self.src(&o(2), $tb)?;
                let c = self.src(&o(3), $tc)?;
                OpKind::Tern { f: $f, d, a, b, c }
            }};
        }
        Ok(match op {
            Op::Add {
                cc,
                rounding,
                ftz,
                sat,
                ty,
            } => {
                if cc {
                    self.carry(CarryOp::Add, ty, ops, false, true)?
                } else if ty.is_float() {
                    bin!(BinOp::FAdd(fspec(ty, rounding, ftz, sat)?), ty, ty)
                } else if sat {
                    bin!(BinOp::AddSatS32, ty, ty)
                } else {
                    bin!(BinOp::IAdd(int_w(ty)), ty, ty)
                }
            }
            Op::Sub {
                cc,
                rounding,
                ftz,
                sat,
                ty,
            } => {
                if cc {
                    self.carry(CarryOp::Sub, ty, ops, false, true)?
                } else if ty.is_float() {
                    bin!(BinOp::FSub(fspec(ty, rounding, ftz, sat)?), ty, ty)
                } else if sat {
                    bin!(BinOp::SubSatS32, ty, ty)
                } else {
                    bin!(BinOp::ISub(int_w(ty)), ty, ty)
                }
            }
            Op::AddC { cc, ty } => self.carry(CarryOp::Add, ty, ops, true, cc)?,
            Op::SubC { cc, ty } => self.carry(CarryOp::Sub, ty, ops, true, cc)?,
            Op::MadC { mode, cc, ty } => self.carry(
                if mode == Mul24Mode::Hi {
                    CarryOp::MadHi
                } else {
                    CarryOp::MadLo
                },
                ty,
                ops,
                true,
                cc,
            )?,
            Op::Mul {
                mode,
                rounding,
                ftz,
                sat,
                ty,
            } => {
                if ty.is_float() {
                    bin!(BinOp::FMul(fspec(ty, rounding, ftz, sat)?), ty, ty)
                } else {
                    let w = int_w(ty);
                    let signed = ty.is_signed();
                    match mode {
                        Some(MulMode::Hi) => bin!(BinOp::IMulHi { w, signed }, ty, ty),
                        Some(MulMode::Wide) => bin!(BinOp::IMulWide { w, signed }, ty, ty),
                        _ => bin!(BinOp::IMulLo(w), ty, ty),
                    }
                }
            }
            Op::Mad {
                mode,
                cc,
                rounding,
                ftz,
                sat,
                ty,
            } => {
                if cc {
                    let f = if mode == Some(MulMode::Hi) {
                        CarryOp::MadHi
                    } else {
                        CarryOp::MadLo
                    };
                    self.carry(f, ty, ops, false, true)?
                } else if ty.is_float() {
                    tern!(TernOp::Fma(fspec(ty, rounding, ftz, sat)?), ty, ty, ty)
                } else {
                    let w = int_w(ty);
                    let signed = ty.is_signed();
                    match mode {
                        Some(MulMode::Hi) => tern!(TernOp::IMadHi { w, signed, sat }, ty, ty, ty),
                        Some(MulMode::Wide) => {
                            let wide = wide_type(ty);
                            tern!(TernOp::IMadWide { w, signed }, ty, ty, wide)
                        }
                        _ => tern!(TernOp::IMadLo(w), ty, ty, ty),
                    }
                }
            }
            Op::Mul24 { mode, ty } => bin!(
                BinOp::Mul24 {
                    hi: mode == Mul24Mode::Hi,
                    signed: ty.is_signed()
                },
                ty,
                ty
            ),
            Op::Mad24 { mode, sat, ty } => {
                if sat {
                    return unsupported("mad24.hi.sat");
                }
                tern!(
                    TernOp::Mad24 {
                        hi: mode == Mul24Mode::Hi,
                        signed: ty.is_signed()
                    },
                    ty,
                    ty,
                    ty
                )
            }
            Op::Sad { ty } => tern!(
                TernOp::Sad {
                    w: int_w(ty),
                    signed: ty.is_signed()
                },
                ty,
                ty,
                ty
            ),
            Op::Div {
                approx,
                full,
                rounding,
                ftz,
                ty,
            } => {
                if ty.is_float() {
                    bin!(
                        BinOp::FDiv {
                            spec: fspec(ty, rounding, ftz, false)?,
                            approx: approx || full
                        },
                        ty,
                        ty
                    )
                } else {
                    bin!(
                        BinOp::IDiv {
                            w: int_w(ty),
                            signed: ty.is_signed()
                        },
                        ty,
                        ty
                    )
                }
            }
            Op::Rem { ty } => bin!(
                BinOp::IRem {
                    w: int_w(ty),
                    signed: ty.is_signed()
                },
                ty,
                ty
            ),
            Op::Abs { ftz, ty } => {
                if ty.is_float() {
                    un!(UnOp::FAbs(fspec(ty, None, ftz, false)?), ty)
                } else {
                    un!(UnOp::IAbs(int_w(ty)), ty)
                }
            }
            Op::Neg { ftz, ty } => {
                if ty.is_float() {
                    un!(UnOp::FNeg(fspec(ty, None, ftz, false)?), ty)
                } else {
                    un!(UnOp::INeg(int_w(ty)), ty)
                }
            }
            Op::Min {
                relu,
                ftz,
                nan,
                xorsign,
                ty,
                ..
            }
            | Op::Max {
                relu,
                ftz,
                nan,
                xorsign,
                ty,
                ..
            } => {
                if relu || xorsign {
                    return unsupported("min/max with .relu or .xorsign");
                }
                let is_min = matches!(op, Op::Min { .. });
                if ty.is_float() {
                    let spec = fspec(ty, None, ftz, false)?;
                    let f = if is_min {
                        BinOp::FMin { spec, nan }
                    } else {
                        BinOp::FMax { spec, nan }
                    };
                    bin!(f, ty, ty)
                } else {
                    let (w, signed) = (int_w(ty), ty.is_signed());
                    let f = if is_min {
                        BinOp::IMin { w, signed }
                    } else {
                        BinOp::IMax { w, signed }
                    };
                    bin!(f, ty, ty)
                }
            }
            Op::Popc { ty } => un!(UnOp::Popc(int_w(ty)), ty),
            Op::Clz { ty } => un!(UnOp::Clz(int_w(ty)), ty),
            Op::Brev { ty } => un!(UnOp::Brev(int_w(ty)), ty),
            Op::Bfind { shiftamt, ty } => {
                un!(
                    UnOp::Bfind {
                        w: int_w(ty),
                        signed: ty.is_signed(),
                        shiftamt
                    },
                    ty
                )
            }
            Op::Fns { .. } => tern!(TernOp::Fns, Type::B32, Type::U32, Type::S32),
            Op::Bfe { ty } => tern!(
                TernOp::Bfe {
                    w: int_w(ty),
                    signed: ty.is_signed()
                },
                ty,
                Type::U32,
                Type::U32
            ),
            Op::Bfi { ty } => {
                let d = self.dst(&o(0))?;
                let a = self.src(&o(1), ty)?;
                let b = self.src(&o(2), ty)?;
                let pos = self.src(&o(3), Type::U32)?;
                let len = self.src(&o(4), Type::U32)?;
                OpKind::Bfi {
                    w: int_w(ty),
                    d,
                    a,
                    b,
                    pos,
                    len,
                }
            }
            Op::Dp4a { atype, btype } => tern!(
                TernOp::Dp4a {
                    a_signed: atype.is_signed(),
                    b_signed: btype.is_signed()
                },
                Type::B32,
                Type::B32,
                Type::B32
            ),
            Op::Dp2a { mode, atype, btype } => tern!(
                TernOp::Dp2a {
                    hi: mode == warpcheck_ir::modifiers::Dp2aMode::Hi,
                    a_signed: atype.is_signed(),
                    b_signed: btype.is_signed()
                },
                Type::B32,
                Type::B32,
                Type::B32
            ),
            Op::Testp { op: t, ty } => {
                let d = self.pdst(&o(0))?.unwrap_or(PRED_FALSE);
                let a = self.src(&o(1), ty)?;
                OpKind::Testp {
                    op: t,
                    fty: fty(ty)?,
                    d,
                    a,
                }
            }
            Op::Copysign { ty } => bin!(BinOp::Copysign(fty(ty)?), ty, ty),
            Op::Fma {
                rounding,
                ftz,
                sat,
                relu,
                ty,
            } => {
                if relu {
                    return unsupported("fma.relu");
                }
                tern!(TernOp::Fma(fspec(ty, rounding, ftz, sat)?), ty, ty, ty)
            }
            Op::Rcp {
                approx,
                rounding,
                ftz,
                ty,
            } => {
                un!(
                    UnOp::FRcp {
                        spec: fspec(ty, rounding, ftz, false)?,
                        approx
                    },
                    ty
                )
            }
            Op::Sqrt {
                approx,
                rounding,
                ftz,
                ty,
            } => {
                un!(
                    UnOp::FSqrt {
                        spec: fspec(ty, rounding, ftz, false)?,
                        approx
                    },
                    ty
                )
            }
            Op::Rsqrt { ftz, ty, .. } => un!(UnOp::FRsqrt(fspec(ty, None, ftz, false)?), ty),
            Op::Sin { ftz, ty, .. } => un!(UnOp::FSin(fspec(ty, None, ftz, false)?), ty),
            Op::Cos { ftz, ty, .. } => un!(UnOp::FCos(fspec(ty, None, ftz, false)?), ty),
            Op::Lg2 { ftz, ty, .. } => un!(UnOp::FLg2(fspec(ty, None, ftz, false)?), ty),
            Op::Ex2 { ftz, ty, .. } => un!(UnOp::FEx2(fspec(ty, None, ftz, false)?), ty),
            Op::Tanh { ty, .. } => un!(UnOp::FTanh(fspec(ty, None, false, false)?), ty),
            Op::Setp {
                cmp,
                bool_op,
                ftz,
                ty,
            } => {
                let (p, q) = match o(0) {
                    Operand::Pair(p, q) => (p.map(|r| self.reg(r)), q.map(|r| self.reg(r))),
                    other => (self.pdst(&other)?, None),
                };
                let a = self.src(&o(1), ty)?;
                let b = self.src(&o(2), ty)?;
                let combine = match bool_op {
                    Some(bop) => Some((bop, self.psrc(&o(3))?)),
                    None => None,
                };
                OpKind::Setp {
                    cmp: self.cmp(cmp, ty, ftz)?,
                    p,
                    q,
                    a,
                    b,
                    combine,
                }
            }
            Op::Set {
                cmp,
                bool_op,
                ftz,
                dty,
                sty,
            } => {
                let d = self.dst(&o(0))?;
                let a = self.src(&o(1), sty)?;
                let b = self.src(&o(2), sty)?;
                let combine = match bool_op {
                    Some(bop) => Some((bop, self.psrc(&o(3))?)),
                    None => None,
                };
                if dty != Type::F32 && dty.is_float() {
                    return unsupported(format!("set with destination .{dty}"));
                }
                OpKind::Set {
                    cmp: self.cmp(cmp, sty, ftz)?,
                    float_dst: dty == Type::F32,
                    d,
                    a,
                    b,
                    combine,
                }
            }
            Op::Selp { ty } => {
                let d = self.dst(&o(0))?;
                let a = self.src(&o(1), ty)?;
                let b = self.src(&o(2), ty)?;
                let p = self.psrc(&o(3))?;
                OpKind::Selp { d, a, b, p }
            }
            Op::Slct { ftz, dty, cty } => {
                if cty == Type::F32 {
                    tern!(TernOp::SlctF32 { ftz }, dty, dty, cty)
                } else {
                    tern!(TernOp::SlctS32, dty, dty, cty)
                }
            }
            Op::And { ty } | Op::Or { ty } | Op::Xor { ty } => {
                if ty.is_pred() {
                    let d = self.pdst(&o(0))?.unwrap_or(PRED_FALSE);
                    let a = self.psrc(&o(1))?;
                    let b = self.psrc(&o(2))?;
                    let op = match op {
                        Op::And { .. } => PredOp::And,
                        Op::Or { .. } => PredOp::Or,
                        _ => PredOp::Xor,
                    };
                    OpKind::PredLogic { op, d, a, b }
                } else {
                    let f = match op {
                        Op::And { .. } => BinOp::And,
                        Op::Or { .. } => BinOp::Or,
                        _ => BinOp::Xor,
                    };
                    bin!(f, ty, ty)
                }
            }
            Op::Not { ty } => {
                if ty.is_pred() {
                    let d = self.pdst(&o(0))?.unwrap_or(PRED_FALSE);
                    let a = self.psrc(&o(1))?;
                    OpKind::PredLogic {
                        op: PredOp::Not,
                        d,
                        a,
                        b: a,
                    }
                } else {
                    un!(UnOp::Not(int_w(ty)), ty)
                }
            }
            Op::Cnot { ty } => un!(UnOp::Cnot(int_w(ty)), ty),
            Op::Lop3 { .. } => {
                let lut = match o(4) {
                    Operand::Imm(i) => i.bits as u8,
                    _ => return unsupported("lop3 with a non-literal table"),
                };
                tern!(TernOp::Lop3(lut), Type::B32, Type::B32, Type::B32)
            }
            Op::Shf { dir, mode, .. } => {
                tern!(TernOp::Shf { dir, mode }, Type::B32, Type::B32, Type::U32)
            }
            Op::Shl { ty } => bin!(BinOp::Shl(int_w(ty)), ty, Type::U32),
            Op::Shr { ty } => bin!(
                BinOp::Shr {
                    w: int_w(ty),
                    signed: ty.is_signed()
                },
                ty,
                Type::U32
            ),
            Op::Mov { vec, ty } => self.mov(vec.is_some(), ty, &o(0), &o(1))?,
            Op::ShflSync { mode, .. } => {
                let (d, p) = match o(0) {
                    Operand::Pair(d, p) => (
                        d.map(|r| self.reg(r)).unwrap_or(SINK),
                        p.map(|r| self.reg(r)),
                    ),
                    other => (self.dst(&other)?, None),
                };
                let a = self.src(&o(1), Type::B32)?;
                let b = self.src(&o(2), Type::B32)?;
                let c = self.src(&o(3), Type::B32)?;
                let membermask = self.src(&o(4), Type::B32)?;
                OpKind::Shfl {
                    mode,
                    d,
                    p,
                    a,
                    b,
                    c,
                    membermask,
                }
            }
            Op::Prmt { mode, .. } => tern!(TernOp::Prmt(mode), Type::B32, Type::B32, Type::B32),
            Op::Ld { space, vec, ty, .. } | Op::Ldu { space, vec, ty } => {
                let _ = vec;
                let ordered = matches!(op, Op::Ld { order: Some(o), .. } if o != warpcheck_ir::modifiers::MemOrder::Weak);
                let dsts = self.vec_dsts(&o(0))?;
                let (space, addr) = self.addr(&o(1), space_of(space))?;
                let dst_bits = match o(0) {
                    Operand::Reg(r) => self.reg_ty(r).bits(),
                    Operand::Vector(l) => match self.body.list(l).first() {
                        Some(Operand::Reg(r)) => self.reg_ty(*r).bits(),
                        _ => ty.bits(),
                    },
                    _ => ty.bits(),
                };
                let mut shape = mem_shape(space, ty, dst_bits)?;
                shape.ordered = ordered;
                // Kernel parameters are the same for every thread: load them now.
                if space == MemSpace::Param
                    && let Addr::Abs(off) = addr
                    && dsts.n == 1
                {
                    let v = self.param_value(off, shape.size as u32)?;
                    let v = extend(v, shape.size as u32 * 8, shape.signed, dst_bits);
                    let a = self.t.const_slot(v);
                    return Ok(OpKind::Un {
                        f: UnOp::Mov,
                        d: dsts.slots[0],
                        a,
                    });
                }
                OpKind::Ld { shape, dsts, addr }
            }
            Op::St {
                space, ty, order, ..
            } => {
                let (space, addr) = self.addr(&o(0), space_of(space))?;
                let ordered = order.is_some_and(|o| o != warpcheck_ir::modifiers::MemOrder::Weak);
                let srcs = self.vec_srcs(&o(1), ty)?;
                if space == MemSpace::Param && self.is_kernel && matches!(addr, Addr::Abs(_)) {
                    return unsupported("a store to a kernel parameter");
                }
                OpKind::St {
                    shape: MemShape {
                        ordered,
                        ..mem_shape(space, ty, ty.bits())?
                    },
                    srcs,
                    addr,
                }
            }
            Op::Prefetch { .. } | Op::Prefetchu { .. } => OpKind::Nop,
            Op::Isspacep { space } => {
                let d = self.pdst(&o(0))?.unwrap_or(PRED_FALSE);
                let a = self.src(&o(1), Type::U64)?;
                OpKind::Isspacep {
                    space: space_of(space),
                    d,
                    a,
                }
            }
            Op::Cvta { to, space, ty } => {
                // `cvta.local.u64 %SP, __local_depot0` takes a frame address.
                let d = self.dst(&o(0))?;
                let w = int_w(ty);
                if let Operand::SymbolAddress { symbol, offset } = o(1)
                    && let SymValue::Frame(off) = self.symbol_value(symbol, offset)?
                {
                    // Two ops would be needed; frame addresses in generic form are
                    // produced by `FrameAddr` followed by the window offset, which we fold
                    // by giving `FrameAddr` a generic flag through the offset.
                    return Ok(OpKind::FrameAddr {
                        d,
                        offset: off | FRAME_GENERIC_FLAG,
                    });
                }
                let a = self.src(&o(1), ty)?;
                // Global addresses are generic addresses (`cvta.global` is the identity).
                let f = if space == MemSpace::Global {
                    UnOp::Mov
                } else {
                    UnOp::Cvta {
                        space: space_of(space),
                        to,
                        w,
                    }
                };
                OpKind::Un { f, d, a }
            }
            Op::Cvt {
                irnd,
                rounding,
                ftz,
                sat,
                relu,
                satfinite,
                dty,
                sty,
            } => {
                if dty.is_packed() && sty == Type::F32 {
                    let _ = satfinite;
                    bin!(
                        BinOp::PackHalf2 {
                            bf: dty == Type::Bf16x2,
                            rnd: rounding.unwrap_or(RoundingMode::Rn),
                            relu
                        },
                        sty,
                        sty
                    )
                } else if dty.is_integer() && sty.is_integer() {
                    un!(
                        UnOp::IntCvt {
                            from: int_w(sty),
                            from_signed: sty.is_signed(),
                            to: int_w(dty),
                            to_signed: dty.is_signed(),
                            sat
                        },
                        sty
                    )
                } else {
                    let spec = CvtSpec::new(
                        dty,
                        sty,
                        irnd.map(int_rounding).or(rounding),
                        ftz,
                        sat,
                        relu,
                    )
                    .ok_or_else(|| EmuError::unsupported(format!("cvt.{dty}.{sty}")))?;
                    un!(UnOp::Cvt(spec), sty)
                }
            }
            Op::CpAsync { .. }
            | Op::CpAsyncCommitGroup {}
            | Op::CpAsyncWaitGroup {}
            | Op::CpAsyncWaitAll {} => {
                return unsupported(format!("`{}` (asynchronous copies)", op.name()));
            }
            Op::Tex { .. } | Op::Suld { .. } | Op::Sust { .. } => {
                return unsupported(format!("`{}` (textures and surfaces)", op.name()));
            }
            Op::Bra { .. } => {
                let Operand::Label(target) = o(0) else {
                    return unsupported("branch without a label");
                };
                OpKind::Bra {
                    target: block_pc(target),
                    reconverge: self.reconverge(block_pc),
                }
            }
            Op::BrxIdx { .. } => {
                let a = self.src(&o(0), Type::U32)?;
                let Operand::BranchTable(t) = o(1) else {
                    return unsupported("brx.idx without a .branchtargets list");
                };
                let table = self
                    .body
                    .branch_tables
                    .get(t as usize)
                    .ok_or_else(|| EmuError::Internal("missing branch table".into()))?;
                let targets = table.targets.iter().map(|&b| block_pc(b)).collect();
                OpKind::BrxIdx {
                    a,
                    targets,
                    reconverge: self.reconverge(block_pc),
                }
            }
            Op::Call { .. } => self.call(ops)?,
            Op::Ret { .. } => OpKind::Ret,
            Op::Exit {} => OpKind::Exit,
            Op::Trap {} | Op::Brkpt {} => OpKind::Trap,
            Op::Barrier { mode, red_op, .. } => {
                let (mut i, red) = if mode == BarrierMode::Red {
                    let p = self.psrc(&o(ops.len().saturating_sub(1)))?;
                    let op = red_op
                        .ok_or_else(|| EmuError::unsupported("bar.red without an operation"))?;
                    let d = match o(0) {
                        Operand::Reg(r) if self.reg_ty(r).is_pred() => Dst::Pred(self.reg(r)),
                        Operand::Reg(r) => Dst::Reg(self.reg(r)),
                        _ => Dst::None,
                    };
                    (1, Some((op, d, p)))
                } else {
                    (0, None)
                };
                let id = self.src(&o(i), Type::U32)?;
                i += 1;
                let count = match o(i) {
                    Operand::Absent => None,
                    Operand::Reg(r) if self.reg_ty(r).is_pred() => None,
                    Operand::NegPred(_) => None,
                    other => Some(self.src(&other, Type::U32)?),
                };
                OpKind::Barrier(BarrierOp {
                    mode,
                    id,
                    count,
                    red,
                })
            }
            Op::BarWarpSync {} => OpKind::WarpSync {
                mask: self.src(&o(0), Type::B32)?,
            },
            Op::Membar { .. } | Op::Fence { .. } | Op::FenceProxy { .. } | Op::Nanosleep { .. } => {
                OpKind::Nop
            }
            Op::Atom {
                space,
                op: aop,
                ty,
                hint,
                ..
            } => {
                let d = self.dst(&o(0))?;
                let (space, addr) = self.addr(&o(1), space_of(space))?;
                let b = self.src(&o(2), ty)?;
                let _ = hint;
                let c = if aop == warpcheck_ir::modifiers::AtomOp::Cas {
                    self.src(&o(3), ty)?
                } else {
                    SINK
                };
                let (aty, size) = atom_type(ty)?;
                OpKind::Atom {
                    space,
                    op: aop,
                    ty: aty,
                    size,
                    d: Some(d),
                    addr,
                    b,
                    c,
                }
            }
            Op::Red {
                space, op: aop, ty, ..
            } => {
                let (space, addr) = self.addr(&o(0), space_of(space))?;
                let b = self.src(&o(1), ty)?;
                let (aty, size) = atom_type(ty)?;
                OpKind::Atom {
                    space,
                    op: aop,
                    ty: aty,
                    size,
                    d: None,
                    addr,
                    b,
                    c: SINK,
                }
            }
            Op::VoteSync { mode, .. } => {
                let d = match o(0) {
                    Operand::Reg(r) if self.reg_ty(r).is_pred() => Dst::Pred(self.reg(r)),
                    Operand::Reg(r) => Dst::Reg(self.reg(r)),
                    _ => Dst::None,
                };
                let p = self.psrc(&o(1))?;
                let membermask = self.src(&o(2), Type::B32)?;
                if mode == VoteMode::Ballot && matches!(d, Dst::Pred(_)) {
                    return unsupported("vote.ballot into a predicate");
                }
                OpKind::Vote {
                    mode,
                    d,
                    p,
                    membermask,
                }
            }
            Op::MatchSync { mode, ty, .. } => {
                let (d, p) = match o(0) {
                    Operand::Pair(d, p) => (
                        d.map(|r| self.reg(r)).unwrap_or(SINK),
                        p.map(|r| self.reg(r)),
                    ),
                    other => (self.dst(&other)?, None),
                };
                let a = self.src(&o(1), ty)?;
                let membermask = self.src(&o(2), Type::B32)?;
                OpKind::Match {
                    mode,
                    wide: ty.bits() == 64,
                    d,
                    p,
                    a,
                    membermask,
                }
            }
            Op::Activemask { .. } => OpKind::Activemask {
                d: self.dst(&o(0))?,
            },
            Op::ReduxSync { op: rop, ty } => {
                let d = self.dst(&o(0))?;
                let a = self.src(&o(1), ty)?;
                let membermask = self.src(&o(2), Type::B32)?;
                OpKind::Redux {
                    op: rop,
                    signed: ty.is_signed(),
                    d,
                    a,
                    membermask,
                }
            }
        })
    }

    fn reconverge(&self, block_pc: &dyn Fn(warpcheck_ir::BlockId) -> u32) -> u32 {
        let block = self.body.inst_block[self.id.index()];
        match self.body.ipdom(block) {
            Some(b) => block_pc(b),
            None => NO_PC,
        }
    }

    fn param_value(&self, off: u64, size: u32) -> Result<u64, EmuError> {
        let bytes = self
            .t
            .params
            .get(off as usize..(off + size as u64) as usize)
            .ok_or_else(|| {
                EmuError::InvalidLaunch(format!(
                    "the kernel reads parameter bytes {off}..{} but the parameter block has {} bytes",
                    off + size as u64,
                    self.t.params.len()
                ))
            })?;
        let mut buf = [0u8; 8];
        buf[..bytes.len()].copy_from_slice(bytes);
        Ok(u64::from_le_bytes(buf))
    }

    fn cmp(
        &self,
        op: warpcheck_ir::modifiers::CmpOp,
        ty: Type,
        ftz: bool,
    ) -> Result<Cmp, EmuError> {
        let kind = if ty.is_float() {
            CmpKind::Float(fty(ty)?)
        } else if ty.is_signed() {
            CmpKind::Signed(int_w(ty))
        } else {
            CmpKind::Unsigned(int_w(ty))
        };
        Ok(Cmp { op, kind, ftz })
    }

    fn carry(
        &mut self,
        f: CarryOp,
        ty: Type,
        ops: &[Operand],
        cin: bool,
        cout: bool,
    ) -> Result<OpKind, EmuError> {
        let o = |i: usize| ops.get(i).copied().unwrap_or(Operand::Absent);
        let d = self.dst(&o(0))?;
        let a = self.src(&o(1), ty)?;
        let b = self.src(&o(2), ty)?;
        let c = if matches!(f, CarryOp::MadLo | CarryOp::MadHi) {
            self.src(&o(3), ty)?
        } else {
            SINK
        };
        Ok(OpKind::Carry {
            f,
            w: int_w(ty),
            d,
            a,
            b,
            c,
            cc: CARRY,
            cin,
            cout,
        })
    }

    fn mov(&mut self, vec: bool, ty: Type, d: &Operand, a: &Operand) -> Result<OpKind, EmuError> {
        if ty.is_pred() {
            let dp = self.pdst(d)?.unwrap_or(PRED_FALSE);
            let ap = self.psrc(a)?;
            return Ok(OpKind::PredLogic {
                op: PredOp::Mov,
                d: dp,
                a: ap,
                b: ap,
            });
        }
        match (*d, *a) {
            (Operand::Vector(_), Operand::Vector(_)) if vec => {
                let dsts = self.vec_dsts(d)?;
                let srcs = self.vec_srcs(a, ty)?;
                if dsts.n != srcs.n {
                    return unsupported("`mov.v*` between vectors of different lengths");
                }
                Ok(OpKind::VecMov { dsts, srcs })
            }
            (Operand::Vector(_), _) => {
                let dsts = self.vec_dsts(d)?;
                let bits = (ty.bits() / dsts.n.max(1) as u32) as u8;
                let a = self.src(a, ty)?;
                Ok(OpKind::Unpack { dsts, a, bits })
            }
            (_, Operand::Vector(_)) => {
                let dd = self.dst(d)?;
                let n = match *a {
                    Operand::Vector(l) => self.body.list(l).len() as u32,
                    _ => 1,
                };
                let bits = ty.bits() / n.max(1);
                let elem_ty = match bits {
                    8 => Type::B8,
                    16 => Type::B16,
                    32 => Type::B32,
                    _ => Type::B64,
                };
                let srcs = self.vec_srcs(a, elem_ty)?;
                Ok(OpKind::Pack {
                    d: dd,
                    srcs,
                    bits: bits as u8,
                })
            }
            (_, Operand::Special(s))
                if matches!(
                    s.reg,
                    SpecialReg::Clock
                        | SpecialReg::ClockHi
                        | SpecialReg::Clock64
                        | SpecialReg::GlobalTimer
                        | SpecialReg::GlobalTimerLo
                        | SpecialReg::GlobalTimerHi
                ) =>
            {
                Ok(OpKind::Clock {
                    d: self.dst(d)?,
                    wide: matches!(s.reg, SpecialReg::Clock64 | SpecialReg::GlobalTimer),
                })
            }
            (_, Operand::SymbolAddress { symbol, offset }) => {
                let dd = self.dst(d)?;
                match self.symbol_value(symbol, offset)? {
                    SymValue::Const(v) => {
                        let a = self.t.const_slot(v);
                        Ok(OpKind::Un {
                            f: UnOp::Mov,
                            d: dd,
                            a,
                        })
                    }
                    SymValue::Frame(off) => Ok(OpKind::FrameAddr { d: dd, offset: off }),
                }
            }
            _ => {
                let dd = self.dst(d)?;
                let a = self.src(a, ty)?;
                Ok(OpKind::Un {
                    f: UnOp::Mov,
                    d: dd,
                    a,
                })
            }
        }
    }

    fn call(&mut self, ops: &[Operand]) -> Result<OpKind, EmuError> {
        let o = |i: usize| ops.get(i).copied().unwrap_or(Operand::Absent);
        let list = |op: Operand| -> Vec<Operand> {
            match op {
                Operand::List(l) => self.body.list(l).to_vec(),
                _ => Vec::new(),
            }
        };
        let rets_ops = list(o(0));
        let args_ops = list(o(2));
        let (target, callee) = match o(1) {
            Operand::Func(f) => {
                let func = self.t.program.function(f);
                if func.body.is_some() {
                    let idx = self.t.func_index.get(&f).copied().ok_or_else(|| {
                        EmuError::Internal(format!("function `{}` was not collected", func.name))
                    })?;
                    (CallTarget::Body { func: idx }, Some(f))
                } else if matches!(func.name.as_str(), "malloc" | "free") {
                    return unsupported(format!(
                        "device-side `{}` (heap allocation in kernels)",
                        func.name
                    ));
                } else {
                    let native = Native::from_name(&func.name).ok_or_else(|| {
                        EmuError::unsupported(format!(
                            "call to the external function `{}`, which the emulator does not implement",
                            func.name
                        ))
                    })?;
                    (CallTarget::Native(native), Some(f))
                }
            }
            Operand::Reg(r) => (CallTarget::Indirect(self.reg(r)), None),
            other => return unsupported(format!("call target {other:?}")),
        };
        let mut args = Vec::new();
        for a in &args_ops {
            args.push(self.arg_src(a)?);
        }
        let mut rets = Vec::new();
        for r in &rets_ops {
            rets.push(self.arg_src(r)?);
        }
        let _ = callee;
        Ok(OpKind::Call(Box::new(CallOp { target, args, rets })))
    }

    fn arg_src(&mut self, op: &Operand) -> Result<ArgSrc, EmuError> {
        match *op {
            Operand::SymbolAddress {
                symbol: Symbol::Var(v),
                ..
            } => {
                let var = self.t.program.variable(v);
                let size = var.size.unwrap_or(0) as u32;
                match self.var_loc(v)? {
                    VarLoc::Frame(offset) => Ok(ArgSrc::Frame { offset, size }),
                    _ => unsupported("a call argument that is not a .param variable"),
                }
            }
            Operand::Reg(r) => {
                let size = self.reg_ty(r).size();
                Ok(ArgSrc::Reg {
                    slot: self.reg(r),
                    size,
                })
            }
            Operand::Imm(i) => Ok(ArgSrc::Reg {
                slot: self.t.const_slot(i.bits),
                size: 8,
            }),
            ref other => unsupported(format!("call argument {other:?}")),
        }
    }
}

/// `FrameAddr` offsets with this bit produce a generic address (`cvta.local` of a frame
/// variable folded into one op).
pub(crate) const FRAME_GENERIC_FLAG: u64 = 1 << 63;

enum SymValue {
    Const(u64),
    Frame(u64),
}

fn imm_bits(imm: Imm, ty: Type) -> u64 {
    match ty {
        Type::F16 | Type::Bf16 => {
            // Half literals are written as their bits (0xHHHH) in PTX; float literals are
            // converted.
            match imm.ty {
                Type::F32 => {
                    let f = f32::from_bits(imm.bits as u32);
                    if ty == Type::F16 {
                        half::f16::from_f32(f).to_bits() as u64
                    } else {
                        half::bf16::from_f32(f).to_bits() as u64
                    }
                }
                Type::F64 => {
                    let f = f64::from_bits(imm.bits);
                    if ty == Type::F16 {
                        half::f16::from_f64(f).to_bits() as u64
                    } else {
                        half::bf16::from_f64(f).to_bits() as u64
                    }
                }
                _ => imm.bits & 0xffff,
            }
        }
        Type::F16x2 | Type::Bf16x2 => imm.bits & 0xffff_ffff,
        _ => imm.bits_as(ty),
    }
}

fn wide_type(ty: Type) -> Type {
    match ty {
        Type::U16 => Type::U32,
        Type::S16 => Type::S32,
        Type::U32 => Type::U64,
        Type::S32 => Type::S64,
        t => t,
    }
}

fn int_rounding(r: IntRounding) -> RoundingMode {
    match r {
        IntRounding::Rni => RoundingMode::Rn,
        IntRounding::Rzi => RoundingMode::Rz,
        IntRounding::Rmi => RoundingMode::Rm,
        IntRounding::Rpi => RoundingMode::Rp,
    }
}

fn mem_shape(space: MemSpace, ty: Type, dst_bits: u32) -> Result<MemShape, EmuError> {
    let size = ty.size();
    if !matches!(size, 1 | 2 | 4 | 8) {
        return unsupported(format!("memory access of type .{ty}"));
    }
    Ok(MemShape {
        space,
        size: size as u8,
        signed: ty.is_signed(),
        dst_bits: dst_bits.max(size * 8) as u8,
        ordered: false,
    })
}

/// Sign- or zero-extends a `from`-bit value into a `to`-bit register.
pub(crate) fn extend(v: u64, from: u32, signed: bool, to: u32) -> u64 {
    let v = if from >= 64 {
        v
    } else {
        v & ((1u64 << from) - 1)
    };
    let v = if signed && from < 64 {
        let shift = 64 - from;
        (((v << shift) as i64) >> shift) as u64
    } else {
        v
    };
    if to >= 64 { v } else { v & ((1u64 << to) - 1) }
}

fn atom_type(ty: Type) -> Result<(AtomType, u8), EmuError> {
    Ok(match ty {
        Type::B16 | Type::U16 => (AtomType::U16, 2),
        Type::B32 | Type::U32 => (AtomType::U32, 4),
        Type::S32 => (AtomType::S32, 4),
        Type::B64 | Type::U64 => (AtomType::U64, 8),
        Type::S64 => (AtomType::S64, 8),
        Type::F16 => (AtomType::F16, 2),
        Type::F32 => (AtomType::F32, 4),
        Type::F64 => (AtomType::F64, 8),
        other => return unsupported(format!("atomic of type .{other}")),
    })
}
