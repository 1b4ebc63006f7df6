//! Which `__shared__` accesses of a kernel GPU mode can redirect to per-warp private
//! copies, and the kernel's barriers (the ends of its regions): the analysis behind
//! shared-memory checking ([`crate::shared_ptx`] writes the instrumentation,
//! [`crate::shared_run`] runs it).
//!
//! A register is *derived* from shared variable `v` when an instruction computes it from
//! `v`'s address (`mov.u32 %r, sdata`) or from a register derived from `v`
//! (flow-insensitive, to a fixed point, as [`crate::analysis`] does for pointer
//! parameters). Registers keep their values: only the accesses are redirected, so
//! comparisons and other uses of shared addresses are unaffected. Every `ld.shared` and
//! `st.shared` must address one variable (a register derived from it alone, or the
//! variable itself); shared memory is not checked, with the reason, when
//! * an access's address is derived from no variable or from two;
//! * shared memory is accessed other than by plain `ld`/`st` (atomics, `cp.async`,
//!   matrix loads), with a memory order (`.volatile`: flags polled across warps would
//!   never change in a private copy), or through a generic address derived from a
//!   shared variable;
//! * a barrier is not a whole-block `bar.sync 0` / `barrier.sync 0` / `bar.red … 0`
//!   (named barriers, thread counts, `bar.arrive`, a guarded barrier);
//! * another function of the module accesses shared memory or has a barrier.

use std::collections::HashMap;

use warpcheck_ir::access::AccessKind;
use warpcheck_ir::defuse;
use warpcheck_ir::modifiers::{BarrierMode, MemOrder, MemSpace};
use warpcheck_ir::{
    AddressBase, Body, EntityRef, FuncId, InstId, Op, Operand, Program, Reg, SourceLoc, Symbol,
    VarId,
};

/// Copies of shared variables start at multiples of this many bytes.
pub const ALIGN: u64 = 16;
/// The most access sites shared checking supports (a witness key packs two site numbers
/// in 15 bits each).
const MAX_SITES: usize = 0x7ffe;

/// A shared variable of the kernel, as laid out in a warp's private copy.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SharedVar {
    pub var: VarId,
    /// The PTX name.
    pub ptx_name: String,
    /// The source name (demangled), as the race checker names it.
    pub name: String,
    /// Offset in the copy.
    pub offset: u64,
    /// Bytes; `None` for dynamic shared memory (the launch's `shared` bytes).
    pub size: Option<u64>,
}

/// How a shared access gives its address.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Base {
    /// A 32-bit register.
    Reg32,
    /// A 64-bit register.
    Reg64,
    /// The variable itself (`[sdata+8]`).
    Symbol,
}

/// A shared load or store: a site of the witnesses.
#[derive(Clone, Debug, PartialEq)]
pub struct SharedSite {
    pub inst: InstId,
    pub store: bool,
    /// Bytes per thread.
    pub bytes: u32,
    /// Index into [`SharedPlan::vars`].
    pub var: usize,
    pub base: Base,
    pub loc: Option<SourceLoc>,
}

/// What the shared instrumentation does, keyed by instruction span start.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SharedEdit {
    /// Site `n`: redirect to the warp's copy and mark the site map.
    Access(usize),
    /// The `n`-th barrier (from 1): compare and merge the copies after it.
    Barrier(u32),
}

/// The shared-memory plan of a kernel whose shared accesses can all be redirected.
#[derive(Clone, Debug, Default)]
pub struct SharedPlan {
    pub vars: Vec<SharedVar>,
    pub sites: Vec<SharedSite>,
    pub edits: HashMap<u32, SharedEdit>,
    /// Bytes of the static variables' copies; dynamic shared memory follows.
    pub static_bytes: u64,
    pub has_dynamic: bool,
    /// Barriers (regions end at each and at the kernel's end).
    pub barriers: u32,
}

impl SharedPlan {
    /// Bytes of one warp's copy for a launch with `dynamic` bytes of dynamic shared
    /// memory (a multiple of [`ALIGN`]).
    pub fn copy_bytes(&self, dynamic: u32) -> u64 {
        let d = if self.has_dynamic { dynamic as u64 } else { 0 };
        (self.static_bytes + d).div_ceil(ALIGN) * ALIGN
    }

    /// The variable and offset in it of byte `o` of a copy.
    pub fn locate(&self, o: u64) -> Option<(&SharedVar, u64)> {
        self.vars
            .iter()
            .rev()
            .find(|v| o >= v.offset && v.size.is_none_or(|s| o < v.offset + s))
            .map(|v| (v, o - v.offset))
    }
}

/// Whether and how GPU mode checks a kernel's shared memory.
#[derive(Clone, Debug)]
pub enum SharedScope {
    /// The kernel does not access shared memory.
    Unused,
    Checked(SharedPlan),
    /// Not checked, and why.
    Unchecked(String),
}

/// Analyses kernel `kernel`'s shared memory.
pub fn analyse(program: &Program, kernel: FuncId) -> SharedScope {
    let Some(body) = program.function(kernel).body.as_ref() else {
        return SharedScope::Unused;
    };
    let accesses = |b: &Body| {
        b.insts.values().any(|i| {
            i.op.memory_access()
                .is_some_and(|a| a.space == MemSpace::Shared)
        })
    };
    if !accesses(body) {
        return SharedScope::Unused;
    }
    // Other kernels of the module are not called; device functions may be.
    let elsewhere = program.functions.values().any(|g| {
        !g.is_kernel()
            && g.body.as_ref().is_some_and(|b| {
                accesses(b) || b.insts.values().any(|i| matches!(i.op, Op::Barrier { .. }))
            })
    });
    if elsewhere {
        return SharedScope::Unchecked(
            "a device function of the module accesses shared memory or has a barrier".into(),
        );
    }
    match plan(program, body) {
        Ok(p) => SharedScope::Checked(p),
        Err(why) => SharedScope::Unchecked(why),
    }
}

/// The shared variables that `body` names, in first-use order.
fn variables(program: &Program, body: &Body) -> Vec<VarId> {
    let mut out = Vec::new();
    for id in body.insts.keys() {
        for op in body.operands_of(id) {
            let v = match *op {
                Operand::SymbolAddress {
                    symbol: Symbol::Var(v),
                    ..
                } => v,
                Operand::Address(a) => match a.base {
                    AddressBase::Var(v) => v,
                    _ => continue,
                },
                _ => continue,
            };
            if program.variable(v).space == warpcheck_ptx::ast::StateSpace::Shared
                && !out.contains(&v)
            {
                out.push(v);
            }
        }
    }
    out
}

/// Lays out the variables in a copy: static ones in order, dynamic ones (which alias
/// one another) after them.
fn layout(program: &Program, vars: &[VarId]) -> (Vec<SharedVar>, u64, bool) {
    let mut out = Vec::new();
    let mut end = 0u64;
    let name = |v: VarId| {
        let var = program.variable(v);
        warpcheck_ir::demangle::demangle(&var.name).map_or_else(|| var.name.clone(), |d| d.short)
    };
    for &v in vars {
        if let Some(size) = program.variable(v).size {
            out.push(SharedVar {
                var: v,
                ptx_name: program.variable(v).name.clone(),
                name: name(v),
                offset: end,
                size: Some(size),
            });
            end = (end + size).div_ceil(ALIGN) * ALIGN;
        }
    }
    let dynamic: Vec<VarId> = vars
        .iter()
        .copied()
        .filter(|&v| program.variable(v).size.is_none())
        .collect();
    for &v in &dynamic {
        out.push(SharedVar {
            var: v,
            ptx_name: program.variable(v).name.clone(),
            name: name(v),
            offset: end,
            size: None,
        });
    }
    (out, end, !dynamic.is_empty())
}

/// Derivation of registers from shared variables (index into `vars`); registers derived
/// from two variables are `Mixed`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Taint {
    Clean,
    From(usize),
    Mixed,
}

fn propagate(body: &Body, vars: &[VarId]) -> Vec<Taint> {
    let mut taint = vec![Taint::Clean; body.regs.len()];
    let mut changed = true;
    while changed {
        changed = false;
        for id in body.insts.keys() {
            if body.inst(id).op.memory_access().is_some()
                || matches!(body.inst(id).op, Op::Setp { .. })
            {
                continue;
            }
            let from = source(body, id, vars, &taint);
            if from == Taint::Clean {
                continue;
            }
            for d in defuse::defs(body, id) {
                let old = taint[d.index()];
                let new = match (old, from) {
                    (Taint::Clean, f) => f,
                    (Taint::From(a), Taint::From(b)) if a == b => old,
                    _ => Taint::Mixed,
                };
                if new != old {
                    taint[d.index()] = new;
                    changed = true;
                }
            }
        }
    }
    taint
}

/// The derivation of an instruction's result from its operands.
fn source(body: &Body, id: InstId, vars: &[VarId], taint: &[Taint]) -> Taint {
    let guard = body.inst(id).guard.map(|g| g.pred);
    let mut from = Taint::Clean;
    let mut add = |t: Taint| {
        from = match (from, t) {
            (f, Taint::Clean) => f,
            (Taint::Clean, t) => t,
            (Taint::From(a), Taint::From(b)) if a == b => from,
            _ => Taint::Mixed,
        }
    };
    for op in body.operands_of(id) {
        if let Operand::SymbolAddress {
            symbol: Symbol::Var(v),
            ..
        } = *op
            && let Some(k) = vars.iter().position(|&x| x == v)
        {
            add(Taint::From(k));
        }
    }
    for r in defuse::uses(body, id) {
        if Some(r) != guard {
            add(taint[r.index()]);
        }
    }
    from
}

/// The plan, or why shared memory cannot be checked.
fn plan(program: &Program, body: &Body) -> Result<SharedPlan, String> {
    let ids = variables(program, body);
    let (vars, static_bytes, has_dynamic) = layout(program, &ids);
    let taint = propagate(body, &ids);
    let var_index = |v: VarId| vars.iter().position(|x| x.var == v);
    let mut plan = SharedPlan {
        vars: vars.clone(),
        static_bytes,
        has_dynamic,
        ..SharedPlan::default()
    };
    let cx = Cx {
        body,
        taint: &taint,
    };
    for id in body.insts.keys() {
        cx.visit(id, &var_index, &mut plan)?;
    }
    if plan.sites.len() > MAX_SITES {
        return Err(format!(
            "the kernel has {} shared accesses (at most {MAX_SITES})",
            plan.sites.len()
        ));
    }
    Ok(plan)
}

struct Cx<'a> {
    body: &'a Body,
    taint: &'a [Taint],
}

impl Cx<'_> {
    fn where_(&self, id: InstId) -> String {
        crate::analysis::describe_inst(self.body, id)
    }

    /// Records one instruction's edit, or refuses it.
    fn visit(
        &self,
        id: InstId,
        var_index: &dyn Fn(VarId) -> Option<usize>,
        plan: &mut SharedPlan,
    ) -> Result<(), String> {
        let inst = self.body.inst(id);
        let key = self.body.inst_spans[id.index()].start;
        if let Op::Barrier { mode, .. } = inst.op {
            self.barrier(id, mode)?;
            plan.barriers += 1;
            plan.edits.insert(key, SharedEdit::Barrier(plan.barriers));
            return Ok(());
        }
        let Some(acc) = inst.op.memory_access() else {
            return Ok(());
        };
        let address = match self.body.operands_of(id).get(acc.address_slot) {
            Some(Operand::Address(a)) => Some(*a),
            _ => None,
        };
        if acc.space != MemSpace::Shared {
            let derived = address.is_some_and(|a| match a.base {
                AddressBase::Reg(r) => self.taint[r.index()] != Taint::Clean,
                _ => false,
            });
            if derived {
                return Err(format!(
                    "{} reaches shared memory through a generic address",
                    self.where_(id)
                ));
            }
            return Ok(());
        }
        let store = match (acc.kind, inst.op) {
            (AccessKind::Load, Op::Ld { .. }) => false,
            (AccessKind::Store, Op::St { .. }) => true,
            _ => {
                return Err(format!(
                    "{} accesses shared memory other than by a plain load or store",
                    self.where_(id)
                ));
            }
        };
        if acc.order.is_some_and(|o| o != MemOrder::Weak) {
            return Err(format!(
                "{} is a volatile or ordered shared access (warps may communicate through it)",
                self.where_(id)
            ));
        }
        let bytes = acc
            .bytes
            .ok_or_else(|| format!("{} has no fixed access size", self.where_(id)))?;
        let (var, base) = self.target(id, address, var_index)?;
        plan.edits.insert(key, SharedEdit::Access(plan.sites.len()));
        plan.sites.push(SharedSite {
            inst: id,
            store,
            bytes,
            var,
            base,
            loc: self.body.inst_locs[id.index()],
        });
        Ok(())
    }

    /// Whether a barrier is a whole-block barrier 0.
    fn barrier(&self, id: InstId, mode: BarrierMode) -> Result<(), String> {
        let ops = self.body.operands_of(id);
        let slot = usize::from(mode == BarrierMode::Red);
        let zero = matches!(ops.get(slot), Some(Operand::Imm(i)) if i.bits == 0);
        let no_count = matches!(ops.get(slot + 1), Some(Operand::Absent) | None);
        let whole = mode != BarrierMode::Arrive && zero && no_count;
        if !whole || self.body.inst(id).guard.is_some() {
            return Err(format!(
                "{} is not a whole-block barrier 0 (named barriers, thread counts, `bar.arrive` and guarded barriers are not supported)",
                self.where_(id)
            ));
        }
        Ok(())
    }

    /// The variable an access addresses and how.
    fn target(
        &self,
        id: InstId,
        address: Option<warpcheck_ir::Address>,
        var_index: &dyn Fn(VarId) -> Option<usize>,
    ) -> Result<(usize, Base), String> {
        let unknown = || {
            format!(
                "{} addresses shared memory through an address GPU mode cannot trace to one variable",
                self.where_(id)
            )
        };
        let a = address.ok_or_else(unknown)?;
        match a.base {
            AddressBase::Var(v) => Ok((var_index(v).ok_or_else(unknown)?, Base::Symbol)),
            AddressBase::Reg(r) => match self.taint[r.index()] {
                Taint::From(k) => Ok((k, self.width(r))),
                _ => Err(unknown()),
            },
            AddressBase::Absolute => Err(unknown()),
        }
    }

    fn width(&self, r: Reg) -> Base {
        if self.body.regs[r].ty.bits() == 64 {
            Base::Reg64
        } else {
            Base::Reg32
        }
    }
}

/// One side of a shared-memory race: a warp of the block and, when known, its access.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SharedSide {
    pub warp: u32,
    /// Index into [`SharedPlan::sites`].
    pub site: Option<usize>,
    pub write: bool,
}

/// A race between two warps of a block on shared memory.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SharedRace {
    /// [`crate::RaceKind::WriteWrite`], [`crate::RaceKind::BenignWriteWrite`] or
    /// [`crate::RaceKind::ReadWrite`].
    pub kind: crate::RaceKind,
    /// The variable's source name.
    pub var: String,
    /// The witness byte's offset in the variable.
    pub offset: u64,
    /// Linear block index.
    pub block: u32,
    /// The region: the barrier that ends it (from 1, in text order), 0 for the kernel's
    /// end.
    pub region: u32,
    /// The writer.
    pub first: SharedSide,
    /// The other writer, or the reader.
    pub second: SharedSide,
}
