//! The facts the advisor reads off `warpcheck-lint`'s analysis of a C function compiled at
//! `-O0`: accesses with named bases (struct fields loaded through parameters become the
//! symbols `c->data`, `in_image->width`), loops with their trip counts and induction
//! variables, the cells that hold the parameters, and the calls.
//!
//! # Naming loaded values (Juravle §4.2 "nested patterns")
//!
//! A load from `p + off` where `p` is a pointer parameter (or a pointer already named) and
//! `off` a constant is the field at `off` of the struct `p` points to; its value becomes
//! the symbol `p->field` everywhere. A pointer loaded that way is a *nested* pointer whose
//! root is the parameter. Like the thesis, the advisor has no alias analysis: it assumes
//! that the loops do not write the structs that parameters point to, and that different
//! pointer parameters do not overlap (as if they were `restrict`); the report says so.

use std::collections::{BTreeMap, BTreeSet, HashMap};

use warpcheck_ir::access::AccessKind;
use warpcheck_ir::operand::Operand;
use warpcheck_ir::{AddressBase, BlockId, FuncId, InstId, Linkage, Op, Program};
use warpcheck_lint::analysis::{Analysis, Loc, Region};
use warpcheck_sym::{CmpOp, Cond, Expr, Rational, Symbol};

use crate::source::{StructLayout, pointee_struct};

/// Where an access points.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Base {
    /// A pointer parameter or a pointer reached through one (`c->data`).
    Pointer(String),
    /// A module-scope variable; `is_static` for internal linkage.
    Global {
        name: String,
        is_static: bool,
    },
    Unknown,
}

impl Base {
    pub fn name(&self) -> String {
        match self {
            Base::Pointer(n) => n.clone(),
            Base::Global { name, .. } => name.clone(),
            Base::Unknown => "(unknown pointer)".into(),
        }
    }
}

/// A memory access with its names resolved.
#[derive(Clone, Debug)]
pub struct Acc {
    pub inst: InstId,
    pub block: BlockId,
    pub kind: AccessKind,
    pub bytes: u32,
    pub base: Base,
    /// Byte offset from the base.
    pub offset: Expr,
    pub cond: Cond,
    /// Enclosing loops, outermost first.
    pub loops: Vec<usize>,
    pub line: u32,
}

/// What a pointer name stands for.
#[derive(Clone, Debug)]
pub struct PointerInfo {
    /// The parameter it is reached through (itself for a parameter).
    pub root: String,
    pub nested: bool,
    /// The struct it points to, when known.
    pub pointee: Option<StructLayout>,
}

/// A loop, normalised.
#[derive(Clone, Debug)]
pub struct LoopFacts {
    pub index: usize,
    pub parent: Option<usize>,
    pub blocks: Vec<BlockId>,
    pub counter: Symbol,
    pub line: u32,
    pub last_line: u32,
    /// Iterations: exact (integer) and rational (for solving, §6.1).
    pub trip: Option<Expr>,
    pub trip_rational: Option<Expr>,
    /// The loop variable's cell, initial value and step.
    pub induction: Option<(Loc, Expr, Expr)>,
}

impl LoopFacts {
    pub fn contains(&self, b: BlockId) -> bool {
        self.blocks.binary_search(&b).is_ok()
    }
}

/// A call instruction.
#[derive(Clone, Debug)]
pub struct CallSite {
    pub callee: String,
    pub block: BlockId,
    pub line: u32,
}

/// Everything the advisor's analyses use.
pub struct Facts<'a> {
    pub analysis: Analysis<'a>,
    pub accs: Vec<Acc>,
    pub loops: Vec<LoopFacts>,
    pub pointers: BTreeMap<String, PointerInfo>,
    /// Parameter name → the `.local` cell `-O0` code keeps it in.
    pub param_cells: BTreeMap<String, Loc>,
    pub calls: Vec<CallSite>,
    /// Assumptions made simplifying selections (`filter->height > 0`).
    pub assumed: Vec<String>,
    /// Substitution from loaded-value symbols to named symbols.
    names: HashMap<Symbol, Expr>,
}

impl<'a> Facts<'a> {
    pub fn rename(&self, e: &Expr) -> Expr {
        if self.names.is_empty() {
            return e.clone();
        }
        e.subst(&|s| self.names.get(s).cloned())
    }

    pub fn rename_cond(&self, c: &Cond) -> Cond {
        if self.names.is_empty() {
            return c.clone();
        }
        c.subst(&|s| self.names.get(s).cloned())
    }
}

/// Reads the facts of function `func`; values bigger than `widen_above` nodes become
/// opaque ([`warpcheck_lint::AnalysisOptions::widen_above`]).
pub fn collect<'a>(
    program: &'a Program,
    func: FuncId,
    param_names: &[String],
    param_types: &[String],
    structs: &[StructLayout],
    widen_above: Option<usize>,
) -> Option<Facts<'a>> {
    let analysis = warpcheck_lint::analyze(
        program,
        func,
        warpcheck_lint::AnalysisOptions {
            param_names: param_names.to_vec(),
            widen_above,
        },
    )?;
    let mut pointers = param_pointers(&analysis, param_names, param_types, structs);
    let names = name_loaded_values(&analysis, &mut pointers, structs);
    let mut accs = named_accesses(program, &analysis, &names, &pointers);
    let mut loops = named_loops(&analysis, &names);
    let (param_cells, calls) = param_cells_and_calls(program, func, &analysis, param_names);
    let assumed = simplify_selections(&mut accs, &mut loops);
    Some(Facts {
        assumed,
        analysis,
        accs,
        loops,
        pointers,
        param_cells,
        calls,
        names,
    })
}

/// The pointer parameters: those the analysis saw used as pointers or declared with a `*`.
fn param_pointers(
    analysis: &Analysis<'_>,
    param_names: &[String],
    param_types: &[String],
    structs: &[StructLayout],
) -> BTreeMap<String, PointerInfo> {
    let mut pointers = BTreeMap::new();
    for (i, name) in param_names.iter().enumerate() {
        let ty = param_types.get(i).map(String::as_str).unwrap_or("");
        if analysis.pointer_params.contains(name) || ty.contains('*') {
            pointers.insert(
                name.clone(),
                PointerInfo {
                    root: name.clone(),
                    nested: false,
                    pointee: pointee_struct(structs, ty).cloned(),
                },
            );
        }
    }
    pointers
}

/// The symbols of loaded values that appear in the accesses' addresses and conditions
/// and in the loops' exits and inductions, by the load that produced them.
fn loaded_symbols(analysis: &Analysis<'_>) -> HashMap<InstId, Vec<Symbol>> {
    let mut loaded: HashMap<InstId, Vec<Symbol>> = HashMap::new();
    let mut all = BTreeSet::new();
    for a in &analysis.accesses {
        all.extend(a.addr.symbols());
        all.extend(a.cond.symbols());
    }
    for l in &analysis.loops {
        for e in &l.exits {
            all.extend(e.cond.symbols());
        }
        for (_, init, step) in &l.inductions {
            all.extend(init.symbols());
            all.extend(step.symbols());
        }
    }
    for s in all {
        if let Some(inst) = analysis.loaded_by(&s) {
            loaded.entry(inst).or_default().push(s);
        }
    }
    loaded
}

/// Names the values loaded through pointers (see the module documentation), adding the
/// nested pointers to `pointers`: the substitution from loaded-value symbols to names.
fn name_loaded_values(
    analysis: &Analysis<'_>,
    pointers: &mut BTreeMap<String, PointerInfo>,
    structs: &[StructLayout],
) -> HashMap<Symbol, Expr> {
    let loaded = loaded_symbols(analysis);
    let mut names: HashMap<Symbol, Expr> = HashMap::new();
    // Several rounds: a pointer named in one names the fields loaded through it.
    for _ in 0..3 {
        for a in &analysis.accesses {
            if a.kind != AccessKind::Load {
                continue;
            }
            let Some(syms) = loaded.get(&a.inst) else {
                continue;
            };
            if syms.iter().all(|s| names.contains_key(s)) {
                continue;
            }
            let addr = a.addr.subst(&|s| names.get(s).cloned());
            let Some((root, offset)) = pointer_base(&addr, pointers) else {
                continue;
            };
            let Some(path) = loaded_path(&root, &offset, a.bytes, pointers, structs) else {
                continue;
            };
            for s in syms {
                names.insert(s.clone(), Expr::sym(Symbol::param(&path)));
            }
        }
    }
    names
}

/// The name of a `bytes`-byte value loaded at `offset` from pointer `root`, adding it to
/// `pointers` when it is itself a pointer; `None` when it has no name (an offset that
/// changes in the loops).
fn loaded_path(
    root: &str,
    offset: &Expr,
    bytes: u32,
    pointers: &mut BTreeMap<String, PointerInfo>,
    structs: &[StructLayout],
) -> Option<String> {
    let info = pointers[root].clone();
    let Some(off) = offset.as_integer() else {
        // An element of an array of pointers (`wall[t + 1]`): named by its index when the
        // index does not change in the loops.
        let invariant =
            !offset.mentions(&|s| matches!(s, Symbol::Iteration { .. } | Symbol::Opaque(_)));
        if bytes != 8 || !invariant {
            return None;
        }
        let index = offset.scale(Rational::new(1, 8).unwrap_or(Rational::ONE));
        let path = format!("{root}[{index}]");
        pointers.entry(path.clone()).or_insert(PointerInfo {
            root: info.root.clone(),
            nested: true,
            pointee: None,
        });
        return Some(path);
    };
    let field = info
        .pointee
        .as_ref()
        .and_then(|s| s.field_at(off as u64))
        .cloned();
    let path = match &field {
        Some(f) => format!("{root}->{}", f.name),
        None if off == 0 && bytes == 8 => format!("*{root}"),
        None => format!("{root}->+{off}"),
    };
    let is_pointer = bytes == 8 && field.as_ref().is_none_or(|f| f.pointee.is_some());
    if is_pointer {
        let pointee = field
            .as_ref()
            .and_then(|f| f.pointee.as_ref())
            .and_then(|p| pointee_struct(structs, &format!("{p} *")).cloned());
        pointers.entry(path.clone()).or_insert(PointerInfo {
            root: info.root.clone(),
            nested: true,
            pointee,
        });
    }
    Some(path)
}

/// The accesses with their bases and offsets named.
fn named_accesses(
    program: &Program,
    analysis: &Analysis<'_>,
    names: &HashMap<Symbol, Expr>,
    pointers: &BTreeMap<String, PointerInfo>,
) -> Vec<Acc> {
    let mut accs = Vec::new();
    for a in &analysis.accesses {
        let addr = a.addr.subst(&|s| names.get(s).cloned());
        let (base, offset) = match &a.region {
            Region::Variable(v, _) => {
                let var = program.variable(*v);
                let sym = analysis.base_symbols.get(v).cloned();
                let offset = match sym {
                    Some(s) => addr.sub(&Expr::sym(s)),
                    None => Expr::zero(),
                };
                (
                    Base::Global {
                        name: var.display_name().to_string(),
                        is_static: var.linkage == Linkage::Internal,
                    },
                    offset,
                )
            }
            _ => match pointer_base(&addr, pointers) {
                Some((root, offset)) => (Base::Pointer(root), offset),
                None => (Base::Unknown, addr.clone()),
            },
        };
        accs.push(Acc {
            inst: a.inst,
            block: a.block,
            kind: a.kind,
            bytes: a.bytes,
            base,
            offset,
            cond: a.cond.subst(&|s| names.get(s).cloned()),
            loops: a.loops.clone(),
            line: analysis.line_of(a.inst),
        });
    }
    accs
}

/// The loops with their lines, trip counts and induction variables, names substituted.
fn named_loops(analysis: &Analysis<'_>, names: &HashMap<Symbol, Expr>) -> Vec<LoopFacts> {
    let body = analysis.body;
    let line_of = |inst: InstId| analysis.line_of(inst);
    let rename = |e: &Expr| e.subst(&|s| names.get(s).cloned());
    let mut loops = Vec::new();
    for (i, l) in analysis.loops.iter().enumerate() {
        let mut lines: Vec<u32> = l
            .blocks
            .iter()
            .flat_map(|&b| body.blocks[b].insts())
            .map(line_of)
            .filter(|&x| x > 0)
            .collect();
        lines.sort_unstable();
        let header_line = body.blocks[l.header]
            .insts()
            .map(line_of)
            .find(|&x| x > 0)
            .or_else(|| lines.first().copied())
            .unwrap_or(0);
        let exits: Vec<Cond> = l
            .exits
            .iter()
            .map(|e| e.cond.subst(&|s| names.get(s).cloned()))
            .collect();
        let (trip, trip_rational) = trip_count(&exits, &l.counter).unzip();
        let induction = l
            .inductions
            .iter()
            .find(|(loc, _, step)| matches!(loc, Loc::Cell(..)) && step.as_integer().is_some())
            .or_else(|| {
                l.inductions
                    .iter()
                    .find(|(loc, _, _)| matches!(loc, Loc::Cell(..)))
            })
            .map(|(loc, init, step)| (*loc, rename(init), rename(step)));
        loops.push(LoopFacts {
            index: i,
            parent: l.parent,
            blocks: l.blocks.clone(),
            counter: l.counter.clone(),
            line: header_line,
            last_line: lines.last().copied().unwrap_or(header_line),
            trip,
            trip_rational,
            induction,
        });
    }
    loops
}

/// The `.local` cell each parameter is kept in (`ld.param %r, [f_param_i]` then
/// `st [cell], %r`), and the calls of the function.
fn param_cells_and_calls(
    program: &Program,
    func: FuncId,
    analysis: &Analysis<'_>,
    param_names: &[String],
) -> (BTreeMap<String, Loc>, Vec<CallSite>) {
    let body = analysis.body;
    let f = program.function(func);
    let mut reg_param: HashMap<warpcheck_ir::Reg, String> = HashMap::new();
    let mut calls = Vec::new();
    for (bid, block) in body.blocks.iter() {
        for inst in block.insts() {
            let i = body.inst(inst);
            let ops = body.operands_of(inst);
            if let Op::Call { .. } = i.op {
                for op in ops {
                    if let Operand::Func(fid) = op {
                        calls.push(CallSite {
                            callee: program.function(*fid).name.clone(),
                            block: bid,
                            line: analysis.line_of(inst),
                        });
                    }
                }
                continue;
            }
            let Some(access) = i.op.memory_access() else {
                continue;
            };
            if access.kind != AccessKind::Load {
                continue;
            }
            if let (Some(Operand::Reg(dst)), Some(Operand::Address(addr))) =
                (ops.first(), ops.get(access.address_slot))
                && let AddressBase::Var(v) = addr.base
                && let Some(pos) = f.params.iter().position(|p| *p == v)
            {
                let name = param_names
                    .get(pos)
                    .cloned()
                    .unwrap_or_else(|| program.variable(v).name.clone());
                reg_param.insert(*dst, name);
            }
        }
    }
    let mut param_cells = BTreeMap::new();
    for c in &analysis.cell_accesses {
        if c.kind != AccessKind::Store {
            continue;
        }
        let ops = body.operands_of(c.inst);
        if let Some(Operand::Reg(r)) = ops.get(1)
            && let Some(name) = reg_param.get(r)
        {
            param_cells.entry(name.clone()).or_insert(c.loc);
        }
    }
    (param_cells, calls)
}

/// Simplifies the selections that the positivity of parameters decides (clang's signed
/// division by 2) in the offsets, trip counts and inductions; returns the assumptions
/// made, sorted.
fn simplify_selections(accs: &mut [Acc], loops: &mut [LoopFacts]) -> Vec<String> {
    let ctx = warpcheck_sym::Context::assuming_positive_params();
    let mut assuming = Vec::new();
    for a in accs {
        a.offset = crate::range::simplify_selects(&a.offset, &ctx, &mut assuming);
    }
    for l in loops {
        l.trip = l
            .trip
            .as_ref()
            .map(|t| crate::range::simplify_selects(t, &ctx, &mut assuming));
        if let Some((_, init, step)) = &mut l.induction {
            *init = crate::range::simplify_selects(init, &ctx, &mut assuming);
            *step = crate::range::simplify_selects(step, &ctx, &mut assuming);
        }
    }
    let mut assumed: Vec<String> = assuming.iter().map(|a| a.to_string()).collect();
    assumed.sort();
    assumed.dedup();
    assumed
}

/// The pointer an address adds (coefficient 1) and the offset from it.
pub fn pointer_base(
    addr: &Expr,
    pointers: &BTreeMap<String, PointerInfo>,
) -> Option<(String, Expr)> {
    let mut found = None;
    for t in addr.terms() {
        if !t.coef.is_one() {
            continue;
        }
        let [(warpcheck_sym::Atom::Sym(Symbol::Param(name)), 1)] = t.mono.factors() else {
            continue;
        };
        if pointers.contains_key(&**name) {
            if found.is_some() {
                return None;
            }
            found = Some(name.to_string());
        }
    }
    let name = found?;
    let offset = addr.sub(&Expr::sym(Symbol::param(&name)));
    Some((name, offset))
}

/// The number of iterations of a loop from its exit conditions: exactly one exit whose
/// condition has exactly one conjunct on the loop's counter `k`, of the form
/// `a − c·k ≤ 0` (exit once `k ≥ a/c`: `⌈a/c⌉` iterations) or `a − c·k < 0`
/// (`⌊a/c⌋ + 1`) with `c` a positive integer and `a` free of `k`. Returns the integer
/// count and the rational `a/c` (`a/c + 1`) that §6.1's equations use.
pub fn trip_count(exits: &[Cond], k: &Symbol) -> Option<(Expr, Expr)> {
    let mut on_k = Vec::new();
    for e in exits {
        let conj: Vec<&Cond> = match e {
            Cond::And(cs) => cs.iter().collect(),
            c => vec![c],
        };
        let mine: Vec<&Cond> = conj
            .into_iter()
            .filter(|c| c.symbols().contains(k))
            .collect();
        if mine.len() != 1 {
            return None;
        }
        on_k.push(mine[0].clone());
    }
    let [Cond::Cmp(op, e)] = on_k.as_slice() else {
        return None;
    };
    let coef = e.linear_coefficient(k)?.as_integer()?;
    if coef >= 0 {
        return None;
    }
    let c = -coef;
    let a = e.without_symbol(k);
    if a.depends_on(k) {
        return None;
    }
    let rational = a.scale(Rational::new(1, c)?);
    match op {
        CmpOp::Le => Some((a.add(&Expr::int(c - 1)).floor_div(&Expr::int(c)), rational)),
        CmpOp::Lt => Some((
            a.floor_div(&Expr::int(c)).add(&Expr::one()),
            rational.add(&Expr::one()),
        )),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn p(n: &str) -> Expr {
        Expr::sym(Symbol::param(n))
    }

    #[test]
    fn trip_count_of_the_stride_4_loop_is_the_thesis_tmp() {
        // for (i = -n; i < n; i += 4): exits when 2·n ≤ 4·k.
        let k = Symbol::iteration(0, "k1");
        let exit = Cond::compare(
            warpcheck_sym::Relation::Le,
            &p("n").mul(&Expr::int(2)),
            &Expr::sym(k.clone()).mul(&Expr::int(4)),
        );
        let (exact, rational) = trip_count(&[exit], &k).unwrap();
        assert_eq!(rational.to_string(), "(1/2)·n");
        let at = |e: &Expr, n: i128| {
            e.subst(&|s| (*s == Symbol::param("n")).then(|| Expr::int(n)))
                .as_integer()
        };
        assert_eq!(at(&exact, 200), Some(100));
        assert_eq!(at(&exact, 201), Some(101), "⌈402/4⌉ iterations");
    }

    #[test]
    fn trip_count_needs_one_exit_on_the_counter() {
        let k = Symbol::iteration(0, "k1");
        let ke = Expr::sym(k.clone());
        let a = Cond::compare(warpcheck_sym::Relation::Le, &p("n"), &ke);
        let b = Cond::compare(warpcheck_sym::Relation::Le, &p("m"), &ke);
        assert!(trip_count(std::slice::from_ref(&a), &k).is_some());
        assert!(
            trip_count(&[a, b], &k).is_none(),
            "two exits: not normalisable"
        );
        // A counter that decreases towards the exit never reaches it in this form.
        let c = Cond::compare(warpcheck_sym::Relation::Le, &ke, &p("n"));
        assert!(trip_count(&[c], &k).is_none());
    }
}
