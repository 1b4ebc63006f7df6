//! Which global buffers a kernel writes, and whether every use of their pointers can be
//! followed (the target-variable analysis of LD §5.1, for kernel pointer parameters).
//!
//! A register is *derived* from pointer parameter `k` when an instruction computes it from
//! a register derived from `k` (or loads it with `ld.param` from `k` itself). The analysis
//! is flow-insensitive: it iterates over all instructions until no register changes. A
//! memory access's result is never derived (it is data, not an address).
//!
//! A parameter is a *target* when a plain `st` (global or generic) goes through an address
//! derived from it. Privatisation changes the value of a target pointer, so every use of a
//! derived value must be one whose meaning does not depend on the pointer's value; the
//! analysis refuses the kernel, naming the instruction, when a derived value
//! * is stored to memory, passed to a call, or used as the value of an atomic;
//! * is compared with a value not derived from the same parameter;
//! * mixes two parameters (a register derived from both);
//! * addresses shared, local, constant or parameter memory;
//! * or when the parameter's address is taken, or it is loaded other than as 64 bits.
//!
//! Atomics and reductions through a target pointer are not privatised (they act on the
//! real buffer); the rewrite adds back the difference between the real and the private
//! base. Stores through addresses derived from no parameter are not privatised.

use std::collections::HashMap;

use warpcheck_ir::access::AccessKind;
use warpcheck_ir::defuse;
use warpcheck_ir::modifiers::MemSpace;
use warpcheck_ir::{
    AddressBase, Body, EntityRef, FuncId, InstId, Op, Operand, Program, Reg, SourceLoc, Symbol,
    VarId,
};

use crate::GpuError;

/// A kernel pointer parameter that the kernel writes through with plain stores.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Target {
    /// The parameter's position in the kernel's parameter list.
    pub param: usize,
    /// The parameter's PTX name.
    pub ptx_name: String,
}

/// Whether a site loads or stores.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SiteKind {
    Load,
    Store,
    /// An atomic or reduction (acts on the real buffer).
    Atomic,
}

/// A load, store or atomic through a target pointer: a site of the attribution run.
#[derive(Clone, Debug, PartialEq)]
pub struct Site {
    pub inst: InstId,
    pub kind: SiteKind,
    /// Bytes per thread.
    pub bytes: u32,
    /// Index into [`Plan::targets`].
    pub target: usize,
    pub loc: Option<SourceLoc>,
}

/// What the rewrite does at one instruction, keyed by the instruction's span start.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Edit {
    /// `ld.param` of target `t`: becomes a copy of the block's private base.
    LoadParam { target: usize },
    /// An atomic or reduction through target `t` (site index `site`): its address is moved
    /// back to the real buffer.
    Atomic { target: usize, site: usize },
    /// A plain access through target `t` (site index `site`): recorded by the attribution
    /// variant.
    Access { target: usize, site: usize },
}

/// The result of the analysis: targets, edits and sites of one kernel.
#[derive(Clone, Debug)]
pub struct Plan {
    pub kernel: FuncId,
    pub targets: Vec<Target>,
    pub edits: HashMap<u32, Edit>,
    pub sites: Vec<Site>,
    /// Whether some atomic or reduction goes through a target pointer.
    pub atomics_on_targets: bool,
    /// Whether some store goes through an address derived from no parameter.
    pub untracked_stores: bool,
    /// Whether the kernel (or any function of its module) has a block barrier: warps of
    /// a block then communicate legitimately, and buffers are privatised per block only.
    pub has_barriers: bool,
    /// Whether the kernel accesses shared memory.
    pub uses_shared: bool,
    /// Whether and how its shared memory is checked ([`crate::shared`]).
    pub shared: crate::shared::SharedScope,
}

/// Derivation state of one register.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Taint {
    Clean,
    From(usize),
}

/// Analyses kernel `kernel` of `program`. `is_pointer(i)` says whether parameter `i` may
/// be a pointer (from the source's signature); only those, and only when loaded as 64
/// bits, are followed, so 64-bit integers added to pointers are not mistaken for them.
pub fn analyse(
    program: &Program,
    kernel: FuncId,
    is_pointer: &dyn Fn(usize) -> bool,
) -> Result<Plan, GpuError> {
    let f = program.function(kernel);
    let body = f.body.as_ref().ok_or_else(|| {
        GpuError::Unsupported(format!("kernel `{}` has no body", f.display_name()))
    })?;
    let params: HashMap<VarId, usize> = f
        .params
        .iter()
        .enumerate()
        .filter(|&(i, &v)| is_pointer(i) && program.variable(v).size == Some(8))
        .map(|(i, &v)| (v, i))
        .collect();
    let (taint, mixed) = propagate(body, &params);
    let name = |p: usize| program.variable(f.params[p]).name.clone();
    let cx = Cx {
        body,
        params: &params,
        taint: &taint,
    };
    // Targets first: parameters written by plain stores.
    let mut written: Vec<usize> = Vec::new();
    for id in body.insts.keys() {
        if let Some((p, AccessKind::Store)) = cx.access_through(id)
            && !written.contains(&p)
        {
            written.push(p);
        }
    }
    written.sort_unstable();
    let index_of = |p: usize| written.iter().position(|&w| w == p);
    if let Some(&(reg, a, b)) = mixed
        .iter()
        .find(|(_, a, b)| index_of(*a).is_some() || index_of(*b).is_some())
    {
        return Err(GpuError::Unsupported(format!(
            "register `{}` is computed from both pointers `{}` and `{}`; GPU mode cannot privatise a buffer whose pointer is mixed with another",
            body.reg_name(reg),
            name(a),
            name(b)
        )));
    }
    let mut plan = Plan {
        kernel,
        targets: written
            .iter()
            .map(|&p| Target {
                param: p,
                ptx_name: name(p),
            })
            .collect(),
        edits: HashMap::new(),
        sites: Vec::new(),
        atomics_on_targets: false,
        untracked_stores: false,
        has_barriers: program.functions.values().any(|g| {
            g.body
                .as_ref()
                .is_some_and(|b| b.insts.values().any(|i| matches!(i.op, Op::Barrier { .. })))
        }),
        uses_shared: body.insts.values().any(|i| {
            i.op.memory_access()
                .is_some_and(|a| a.space == MemSpace::Shared)
        }),
        shared: crate::shared::analyse(program, kernel),
    };
    for id in body.insts.keys() {
        cx.visit(id, &index_of, &name, &mut plan)?;
    }
    Ok(plan)
}

/// Flow-insensitive propagation of derivation to a fixed point; also returns registers
/// found derived from two parameters (register, first, second).
fn propagate(
    body: &Body,
    params: &HashMap<VarId, usize>,
) -> (Vec<Taint>, Vec<(Reg, usize, usize)>) {
    let mut taint = vec![Taint::Clean; body.regs.len()];
    let mut mixed = Vec::new();
    let mut changed = true;
    while changed {
        changed = false;
        for id in body.insts.keys() {
            let Some(from) = source_taint(body, id, params, &taint) else {
                continue;
            };
            for d in defuse::defs(body, id) {
                if body.regs[d].ty.is_pred() {
                    continue;
                }
                match taint[d.index()] {
                    Taint::Clean => {
                        taint[d.index()] = Taint::From(from);
                        changed = true;
                    }
                    Taint::From(p) if p != from => {
                        if !mixed.iter().any(|&(r, _, _)| r == d) {
                            mixed.push((d, p, from));
                        }
                    }
                    Taint::From(_) => {}
                }
            }
        }
    }
    (taint, mixed)
}

/// The parameter an instruction's result is derived from, if any.
fn source_taint(
    body: &Body,
    id: InstId,
    params: &HashMap<VarId, usize>,
    taint: &[Taint],
) -> Option<usize> {
    let inst = body.inst(id);
    if matches!(inst.op, Op::Setp { .. }) {
        return None;
    }
    if let Some(acc) = inst.op.memory_access() {
        if acc.space == MemSpace::Param
            && acc.kind == AccessKind::Load
            && let Operand::Address(a) = body.operands_of(id)[acc.address_slot]
            && let AddressBase::Var(v) = a.base
            && acc.bytes == Some(8)
        {
            return params.get(&v).copied();
        }
        return None;
    }
    let guard = inst.guard.map(|g| g.pred);
    defuse::uses(body, id)
        .into_iter()
        .filter(|&r| Some(r) != guard)
        .find_map(|r| match taint[r.index()] {
            Taint::From(p) => Some(p),
            Taint::Clean => None,
        })
}

struct Cx<'a> {
    body: &'a Body,
    params: &'a HashMap<VarId, usize>,
    taint: &'a [Taint],
}

impl Cx<'_> {
    fn taint_of(&self, r: Reg) -> Option<usize> {
        match self.taint[r.index()] {
            Taint::From(p) => Some(p),
            Taint::Clean => None,
        }
    }

    /// The parameter and kind of a global or generic access whose address register is
    /// derived from a parameter.
    fn access_through(&self, id: InstId) -> Option<(usize, AccessKind)> {
        let acc = self.body.inst(id).op.memory_access()?;
        let Operand::Address(a) = self.body.operands_of(id)[acc.address_slot] else {
            return None;
        };
        let AddressBase::Reg(r) = a.base else {
            return None;
        };
        Some((self.taint_of(r)?, acc.kind))
    }

    fn where_(&self, id: InstId) -> String {
        describe_inst(self.body, id)
    }

    /// Checks one instruction's uses of target pointers and records its edit.
    fn visit(
        &self,
        id: InstId,
        index_of: &dyn Fn(usize) -> Option<usize>,
        name: &dyn Fn(usize) -> String,
        plan: &mut Plan,
    ) -> Result<(), GpuError> {
        let body = self.body;
        let inst = body.inst(id);
        let key = body.inst_spans[id.index()].start;
        let refuse = |what: String| Err(GpuError::Unsupported(what));
        // Taking a target parameter's address.
        for op in body.operands_of(id) {
            if let Operand::SymbolAddress {
                symbol: Symbol::Var(v),
                ..
            } = op
                && let Some(&p) = self.params.get(v)
                && index_of(p).is_some()
            {
                return refuse(format!(
                    "{} takes the address of parameter `{}`; GPU mode cannot follow it",
                    self.where_(id),
                    name(p)
                ));
            }
        }
        let address_reg =
            inst.op
                .memory_access()
                .and_then(|acc| match body.operands_of(id)[acc.address_slot] {
                    Operand::Address(a) => match a.base {
                        AddressBase::Reg(r) => Some(r),
                        _ => None,
                    },
                    _ => None,
                });
        // Derived values of targets among the operands other than the address.
        let guard = inst.guard.map(|g| g.pred);
        let value_uses: Vec<(Reg, usize)> = value_regs(body, id)
            .into_iter()
            .filter_map(|r| Some((r, self.taint_of(r)?)))
            .filter(|(_, p)| index_of(*p).is_some())
            .collect();
        if let Some(acc) = inst.op.memory_access() {
            if let Some(&(_, p)) = value_uses.first() {
                return refuse(format!(
                    "{} writes pointer `{}` (or an address computed from it) to memory; GPU mode cannot follow a pointer that escapes",
                    self.where_(id),
                    name(p)
                ));
            }
            // `ld.param` of a target.
            if acc.space == MemSpace::Param
                && acc.kind == AccessKind::Load
                && let Operand::Address(a) = body.operands_of(id)[acc.address_slot]
                && let AddressBase::Var(v) = a.base
                && let Some(&p) = self.params.get(&v)
                && let Some(t) = index_of(p)
            {
                if acc.bytes != Some(8) || a.offset != 0 {
                    return refuse(format!(
                        "{} loads pointer parameter `{}` other than as one 64-bit value",
                        self.where_(id),
                        name(p)
                    ));
                }
                plan.edits.insert(key, Edit::LoadParam { target: t });
                return Ok(());
            }
            let through = address_reg.and_then(|r| self.taint_of(r));
            match through.and_then(|p| Some((p, index_of(p)?))) {
                Some((p, t)) => self.target_access(id, acc, p, t, name, plan)?,
                None => {
                    if through.is_none()
                        && acc.kind == AccessKind::Store
                        && matches!(acc.space, MemSpace::Global | MemSpace::Generic)
                    {
                        plan.untracked_stores = true;
                    }
                }
            }
            return Ok(());
        }
        if let Some(&(_, p)) = value_uses.first() {
            if matches!(inst.op, Op::Call { .. }) {
                return refuse(format!(
                    "{} passes pointer `{}` to a function; GPU mode does not instrument callees yet",
                    self.where_(id),
                    name(p)
                ));
            }
            if matches!(inst.op, Op::Setp { .. }) {
                let all_same = defuse::uses(body, id)
                    .into_iter()
                    .filter(|&r| Some(r) != guard && !body.regs[r].ty.is_pred())
                    .all(|r| self.taint_of(r) == Some(p));
                if !all_same {
                    return refuse(format!(
                        "{} compares pointer `{}` with a value not computed from it; privatisation would change the outcome",
                        self.where_(id),
                        name(p)
                    ));
                }
            }
        }
        Ok(())
    }

    /// Records a global or generic access through target `t` (parameter `p`).
    fn target_access(
        &self,
        id: InstId,
        acc: warpcheck_ir::access::MemAccess,
        p: usize,
        t: usize,
        name: &dyn Fn(usize) -> String,
        plan: &mut Plan,
    ) -> Result<(), GpuError> {
        let key = self.body.inst_spans[id.index()].start;
        if !matches!(acc.space, MemSpace::Global | MemSpace::Generic) {
            return Err(GpuError::Unsupported(format!(
                "{} uses pointer `{}` to address {} memory",
                self.where_(id),
                name(p),
                format!("{:?}", acc.space).to_lowercase()
            )));
        }
        let kind = match acc.kind {
            AccessKind::Load => SiteKind::Load,
            AccessKind::Store => SiteKind::Store,
            AccessKind::Atomic(_) | AccessKind::Reduction(_) => {
                plan.atomics_on_targets = true;
                SiteKind::Atomic
            }
            AccessKind::Prefetch => return Ok(()),
            AccessKind::AsyncCopy => {
                return Err(GpuError::Unsupported(format!(
                    "{} copies through pointer `{}` asynchronously; GPU mode does not support `cp.async` yet",
                    self.where_(id),
                    name(p)
                )));
            }
        };
        let bytes = acc.bytes.ok_or_else(|| {
            GpuError::Unsupported(format!("{} has no fixed access size", self.where_(id)))
        })?;
        let site = plan.sites.len();
        let edit = match kind {
            SiteKind::Atomic => Edit::Atomic { target: t, site },
            _ => Edit::Access { target: t, site },
        };
        plan.edits.insert(key, edit);
        plan.sites.push(Site {
            inst: id,
            kind,
            bytes,
            target: t,
            loc: self.body.inst_locs[id.index()],
        });
        Ok(())
    }
}

/// The registers an instruction reads as values: its `Use` operands other than addresses
/// (an address's base register is how it accesses memory, not a value it stores).
fn value_regs(body: &Body, id: InstId) -> Vec<Reg> {
    fn walk(body: &Body, op: &Operand, out: &mut Vec<Reg>) {
        match *op {
            Operand::Reg(r) | Operand::NegPred(r) => out.push(r),
            Operand::Pair(a, b) => out.extend([a, b].into_iter().flatten()),
            Operand::Vector(list) | Operand::List(list) | Operand::Image(list) => {
                for e in body.list(list) {
                    walk(body, e, out);
                }
            }
            _ => {}
        }
    }
    let mut out = Vec::new();
    let inst = body.inst(id);
    for (slot, op) in inst.op.slots().iter().zip(body.operands_of(id)) {
        if slot.role == warpcheck_ir::operand::Role::Use {
            walk(body, op, &mut out);
        }
    }
    out
}

/// An instruction as refusals name it: its op and source line, or its index in the PTX.
pub(crate) fn describe_inst(body: &Body, id: InstId) -> String {
    let line = body.inst_locs[id.index()].map_or(0, |l| l.line);
    let op = body.inst(id).op.name();
    if line > 0 {
        format!("`{op}` at line {line}")
    } else {
        format!("`{op}` (PTX instruction {})", id.index())
    }
}
