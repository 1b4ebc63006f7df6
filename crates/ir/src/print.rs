//! Printing of decoded instructions and of whole functions for inspection
//! (`warpcheck ir FILE --kernel K`).
//!
//! Instructions print as PTX in canonical form: the canonical opcode spelling, the
//! decoded modifiers in manual order (implied ones written out: `bar.sync 0` prints as
//! `barrier.sync.aligned 0`), operands with registers and symbols by name and labels by
//! block label. Omitted optional operands are not printed.

use std::fmt::Write;

use crate::entity::{BlockId, EntityRef, FuncId, InstId};
use crate::operand::{AddressBase, Imm, Operand, Symbol};
use crate::program::{Body, Program};
use crate::symbols::{VarRole, Variable};
use crate::types::Type;

/// One instruction as PTX text, without the trailing `;`.
pub fn format_inst(program: &Program, body: &Body, inst: InstId) -> String {
    let i = body.inst(inst);
    let mut s = String::new();
    if let Some(g) = i.guard {
        let _ = write!(
            s,
            "@{}{} ",
            if g.negated { "!" } else { "" },
            body.reg_name(g.pred)
        );
    }
    s.push_str(i.op.name());
    for m in i.op.modifiers() {
        s.push('.');
        s.push_str(m);
    }
    let operands: Vec<String> = body
        .operands_of(inst)
        .iter()
        .filter(|o| !matches!(o, Operand::Absent))
        .map(|o| format_operand(program, body, o))
        .collect();
    if !operands.is_empty() {
        s.push(' ');
        s.push_str(&operands.join(", "));
    }
    s
}

/// One operand as PTX text.
pub fn format_operand(program: &Program, body: &Body, operand: &Operand) -> String {
    let list = |l, open: &str, close: &str| {
        let items: Vec<String> = body
            .list(l)
            .iter()
            .map(|o| format_operand(program, body, o))
            .collect();
        format!("{open}{}{close}", items.join(", "))
    };
    match *operand {
        Operand::Reg(r) => body.reg_name(r).to_string(),
        Operand::NegPred(r) => format!("!{}", body.reg_name(r)),
        Operand::Pair(a, b) => {
            let side = |r: Option<crate::entity::Reg>| {
                r.map_or("_".to_string(), |r| body.reg_name(r).to_string())
            };
            format!("{}|{}", side(a), side(b))
        }
        Operand::Imm(imm) => format_imm(imm),
        Operand::Special(s) => s.to_string(),
        Operand::SymbolAddress { symbol, offset } => {
            with_offset(program.symbol_name(symbol), offset)
        }
        Operand::Address(a) => {
            let base = match a.base {
                AddressBase::Reg(r) => body.reg_name(r).to_string(),
                AddressBase::Var(v) => program.symbol_name(Symbol::Var(v)).to_string(),
                AddressBase::Absolute => return format!("[{}]", a.offset),
            };
            format!("[{}]", with_offset(&base, a.offset))
        }
        Operand::Vector(l) => list(l, "{", "}"),
        Operand::List(l) => list(l, "(", ")"),
        Operand::Image(l) => {
            let items: Vec<String> = body
                .list(l)
                .iter()
                .map(|o| format_operand(program, body, o))
                .collect();
            format!("[{}]", items.join(", "))
        }
        Operand::Label(b) => body.block_name(b),
        Operand::BranchTable(t) => body
            .branch_tables
            .get(t as usize)
            .map_or(format!("<table {t}>"), |t| t.name.clone()),
        Operand::Prototype(p) => body
            .prototypes
            .get(p as usize)
            .map_or(format!("<prototype {p}>"), |p| p.name.clone()),
        Operand::CallTargets(c) => body
            .call_targets
            .get(c as usize)
            .map_or(format!("<calltargets {c}>"), |c| c.name.clone()),
        Operand::Func(f) => program.symbol_name(Symbol::Func(f)).to_string(),
        Operand::Sink => "_".to_string(),
        Operand::Absent => String::new(),
    }
}

fn with_offset(base: &str, offset: i64) -> String {
    // Negative offsets print as `+-4`, the form compilers emit.
    if offset == 0 {
        base.to_string()
    } else {
        format!("{base}+{offset}")
    }
}

/// A literal in PTX syntax: integers in decimal (negative if the 64-bit pattern is), floats
/// by their bits (`0f3F800000`, `0d4008000000000000`).
pub fn format_imm(imm: Imm) -> String {
    match imm.ty {
        Type::F32 => format!("0f{:08X}", imm.bits as u32),
        Type::F64 => format!("0d{:016X}", imm.bits),
        _ => {
            let signed = imm.bits as i64;
            if signed < 0 {
                signed.to_string()
            } else {
                imm.bits.to_string()
            }
        }
    }
}

/// One variable declaration line, e.g. `.shared .align 4 .b8 sdata[1024]`.
pub fn format_variable(v: &Variable) -> String {
    let mut s = format!(".{} .align {} ", v.space.name(), v.align);
    if let Some(n) = v.vector {
        let _ = write!(s, ".v{n} ");
    }
    let _ = write!(s, ".{} {}", v.ty, v.name);
    for d in &v.dims {
        match d {
            Some(n) => {
                let _ = write!(s, "[{n}]");
            }
            None => s.push_str("[]"),
        }
    }
    s
}

fn describe_variable(program: &Program, v: &Variable) -> String {
    let mut s = format_variable(v);
    match v.size {
        Some(size) => {
            let _ = write!(s, "  // {size} bytes");
        }
        None if v.is_dynamic_shared() => s.push_str("  // dynamic shared memory"),
        None => s.push_str("  // unsized"),
    }
    if let Some(d) = &v.demangled {
        let _ = write!(s, ", {}", d.full);
    }
    if let Some(p) = v.ptr {
        s.push_str(", .ptr");
        if let Some(space) = p.space {
            let _ = write!(s, " .{}", space.name());
        }
        if let Some(a) = p.align {
            let _ = write!(s, " .align {a}");
        }
    }
    if let Some(init) = &v.init {
        let _ = write!(s, ", initialised ({} bytes", init.bytes.len());
        for r in &init.relocations {
            let _ = write!(
                s,
                ", +{} = {}{}",
                r.offset,
                if r.generic { "generic " } else { "&" },
                program.symbol_name(r.symbol)
            );
        }
        s.push(')');
    }
    s
}

/// Module-scope variables, one per line.
pub fn print_globals(program: &Program) -> String {
    let mut out = String::new();
    for &v in &program.globals {
        let _ = writeln!(out, "{}", describe_variable(program, program.variable(v)));
    }
    out
}

/// A function for inspection: signature with parameter offsets, tuning directives,
/// registers and variables, then each block with predecessors, successors, immediate
/// dominator and post-dominator, loop information, and its instructions with source
/// locations.
pub fn print_function(program: &Program, func: FuncId) -> String {
    let f = program.function(func);
    let mut out = String::new();
    let kind = if f.is_kernel() { ".entry" } else { ".func" };
    let _ = write!(out, "{kind} {}", f.name);
    if let Some(d) = &f.demangled {
        let _ = write!(out, "  // {}", d.full);
    }
    out.push('\n');
    let _ = writeln!(
        out,
        "  linkage: {}, parameter space: {} bytes",
        f.linkage.name(),
        f.param_space_size
    );
    for &p in f.params.iter().chain(&f.returns) {
        let v = program.variable(p);
        let (what, index, offset) = match v.role {
            VarRole::Param { index, offset } => ("param", index, offset),
            VarRole::Return { index, offset } => ("return", index, offset),
            _ => ("?", 0, 0),
        };
        let _ = writeln!(
            out,
            "  {what} {index} at +{offset}: {}",
            describe_variable(program, v)
        );
    }
    let t = &f.tuning;
    let dims = |d: [u32; 3]| format!("{}, {}, {}", d[0], d[1], d[2]);
    if let Some(d) = t.maxntid {
        let _ = writeln!(out, "  .maxntid {}", dims(d));
    }
    if let Some(d) = t.reqntid {
        let _ = writeln!(out, "  .reqntid {}", dims(d));
    }
    if let Some(n) = t.minnctapersm {
        let _ = writeln!(out, "  .minnctapersm {n}");
    }
    if let Some(n) = t.maxnreg {
        let _ = writeln!(out, "  .maxnreg {n}");
    }
    if !t.attributes.is_empty() {
        let _ = writeln!(out, "  attributes: {}", t.attributes.join(", "));
    }
    let Some(body) = &f.body else {
        out.push_str("  (declaration without body)\n");
        return out;
    };
    // Registers: counts per type.
    let mut per_type: Vec<(Type, usize)> = Vec::new();
    for r in body.regs.values() {
        match per_type.iter_mut().find(|(t, _)| *t == r.ty) {
            Some((_, n)) => *n += 1,
            None => per_type.push((r.ty, 1)),
        }
    }
    let regs: Vec<String> = per_type.iter().map(|(t, n)| format!("{n} .{t}")).collect();
    let _ = writeln!(
        out,
        "  registers: {}",
        if regs.is_empty() {
            "none".to_string()
        } else {
            regs.join(", ")
        }
    );
    for &v in &body.locals {
        let _ = writeln!(
            out,
            "  local: {}",
            describe_variable(program, program.variable(v))
        );
    }
    for p in &body.prototypes {
        let _ = writeln!(
            out,
            "  prototype {}: {} returns, {} params",
            p.name,
            p.returns.len(),
            p.params.len()
        );
    }
    if body.loops.is_irreducible() {
        out.push_str("  control flow is irreducible\n");
    }
    let names = |bs: &[BlockId]| -> String {
        if bs.is_empty() {
            "-".to_string()
        } else {
            bs.iter()
                .map(|b| b.to_string())
                .collect::<Vec<_>>()
                .join(", ")
        }
    };
    for (b, block) in body.blocks.iter() {
        out.push('\n');
        let _ = write!(out, "{b}");
        if !block.labels.is_empty() {
            let _ = write!(out, " ({})", block.labels.join(", "));
        }
        if b == body.entry() {
            out.push_str(" entry");
        }
        if !body.dominators.is_reachable(b) {
            out.push_str(" unreachable");
        }
        if body.loops.is_header(b) {
            out.push_str(" loop-header");
        }
        let depth = body.loops.depth(b);
        if depth > 0 {
            let _ = write!(out, " loop-depth {depth}");
        }
        out.push_str(":\n");
        let mut succs = names(body.cfg.succs(b));
        if body.cfg.exits(b) {
            succs = if succs == "-" {
                "exit".into()
            } else {
                format!("{succs}, exit")
            };
        }
        let _ = writeln!(
            out,
            "    preds: {}; succs: {}; idom: {}; ipdom: {}",
            names(body.cfg.preds(b)),
            succs,
            body.idom(b).map_or("-".to_string(), |d| d.to_string()),
            body.ipdom(b).map_or("exit".to_string(), |d| d.to_string()),
        );
        for i in block.insts() {
            let id = i.to_string();
            let text = format_inst(program, body, i);
            match body.inst_locs.get(i.index()).copied().flatten() {
                Some(loc) => {
                    let _ = writeln!(
                        out,
                        "    {id:<8} {text:<56} // {}",
                        program.files.render_with_inlining(&loc)
                    );
                }
                None => {
                    let _ = writeln!(out, "    {id:<8} {text}");
                }
            }
        }
    }
    out
}
