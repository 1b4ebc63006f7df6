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

use warpcheck_ir::operand::Symbol;
use warpcheck_ir::symbols::VarRole;
use warpcheck_ir::{EntityRef, FuncId, InstId, Operand, Program, Reg, SpecialOperand, VarId};
use warpcheck_ptx::ast::StateSpace;

use crate::fault::EmuError;
use crate::ops::*;

mod contract;
mod fold;
mod inst;
mod order;
use inst::InstCx;

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
    /// Each shared variable of the kernel and the functions it calls, at its offset.
    pub shared_vars: Vec<crate::SharedVar>,
    pub const_bank: Vec<u8>,
    pub params: Vec<u8>,
    /// Per-thread stack bytes (the deepest chain of call frames).
    pub stack_size: u64,
    /// Whether the kernel's outcome can depend on the order its blocks run in (see
    /// `order.rs`): the launcher then runs them in block order by default.
    pub order_sensitive: bool,
    /// Whether the kernel calls `malloc` or `free` (`crate::heap`): the launcher then
    /// runs its blocks in block order whatever the caller asked.
    pub uses_heap: bool,
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
/// Local memory per thread, as on NVIDIA GPUs (512 KiB).
pub(crate) const MAX_STACK_BYTES: u64 = 512 << 10;
/// Constant memory of a module (64 KiB).
pub(crate) const MAX_CONST_BYTES: u64 = 64 << 10;
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
    let mut shared_vars: Vec<crate::SharedVar> = t
        .vars
        .iter()
        .filter_map(|(&var, loc)| match loc {
            VarLoc::Shared(offset) => Some(crate::SharedVar {
                var,
                offset: *offset,
                size: program.variable(var).size,
            }),
            _ => None,
        })
        .collect();
    shared_vars.sort_by_key(|v| (v.offset, v.var.index()));
    let const_bank = t.layout_const()?;
    for (&v, &addr) in globals {
        t.vars.insert(v, VarLoc::Global(addr));
    }
    t.layout_frames();
    t.assign_registers();
    let stack_size = t.stack_size();
    if stack_size > MAX_STACK_BYTES {
        return Err(EmuError::unsupported(format!(
            "{stack_size} bytes of local memory per thread (the limit is {MAX_STACK_BYTES})"
        )));
    }
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
    let order_sensitive = order::order_sensitive(program, t.funcs.iter().map(|f| f.id));
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
        shared_vars,
        const_bank,
        params: params.to_vec(),
        stack_size,
        order_sensitive,
        uses_heap: crate::heap::uses_heap(program, kernel),
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
    x.div_ceil(a.max(1)).saturating_mul(a.max(1))
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
                    offset = offset.saturating_add(size);
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
    fn layout_const(&mut self) -> Result<Vec<u8>, EmuError> {
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
            if off.saturating_add(size) > MAX_CONST_BYTES {
                return Err(EmuError::unsupported(format!(
                    "constant memory beyond {MAX_CONST_BYTES} bytes (`{}` ends at byte {})",
                    var.name,
                    off.saturating_add(size)
                )));
            }
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
        Ok(bank)
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
                        offset = offset.max(
                            ret_base
                                .saturating_add(o)
                                .saturating_add(var.size.unwrap_or(8)),
                        );
                    }
                }
            }
            if let Some(body) = &func.body {
                for &v in &body.locals {
                    let var = self.program.variable(v);
                    if matches!(var.space, StateSpace::Local | StateSpace::Param) {
                        offset = align_up(offset, var.align.max(1) as u64);
                        self.vars.insert(v, VarLoc::Frame(offset));
                        offset = offset.saturating_add(var.size.unwrap_or(0));
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
            memo.insert(f, own.saturating_add(deepest));
            own.saturating_add(deepest)
        }
        let mut memo = HashMap::new();
        // An indirect call may reach any function but the kernel (a kernel is never
        // called): with one, add the largest such frame once, on top of the deepest
        // chain of direct calls.
        let indirect = if self.has_indirect_calls() {
            self.funcs[1..]
                .iter()
                .map(|f| f.frame_size)
                .max()
                .unwrap_or(0)
        } else {
            0
        };
        depth(self, 0, &mut memo).saturating_add(indirect)
    }

    /// Whether a collected function calls through a register.
    fn has_indirect_calls(&self) -> bool {
        self.funcs.iter().any(|f| {
            self.program
                .function(f.id)
                .body
                .as_ref()
                .is_some_and(|body| {
                    body.insts.iter().any(|(id, inst)| {
                        matches!(inst.op, warpcheck_ir::Op::Call { .. })
                            && matches!(body.operands_of(id).get(1), Some(Operand::Reg(_)))
                    })
                })
        })
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
        let contractions = contract::Contractions::analyse(body);
        let folds = fold::SignFolds::analyse(body);
        for (id, inst) in body.insts.iter() {
            let mut cx = InstCx {
                t: self,
                fi,
                body,
                id,
                is_kernel: func.is_kernel(),
                contractions: &contractions,
                folds: &folds,
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

/// `FrameAddr` offsets with this bit produce a generic address (`cvta.local` of a frame
/// variable folded into one op).
pub(crate) const FRAME_GENERIC_FLAG: u64 = 1 << 63;

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
