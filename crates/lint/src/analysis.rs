//! Thread dependence and symbolic values of a kernel's registers, by abstract
//! interpretation over the IR's control-flow graph (GPUDrano §4; Juravle §8.4).
//!
//! # Domain
//!
//! Every integer register (and every `.local`/call-`.param` cell at a constant offset,
//! which is where `-O0` code keeps its variables) holds a [`Val`]: an [`Expr`] of the
//! symbolic engine over launch indices, kernel parameters, loop iteration counters and
//! opaque symbols; predicate registers hold a [`Cond`]. The expression *is* the
//! thread-dependence abstraction, only finer: GPUDrano's integer lattice
//! `{0, 1, -1, ⊤}` with respect to `threadIdx.a` is the difference
//! `e[threadIdx.a + 1] - e` being `0`, `1`, `-1` or anything else
//! ([`crate::dependence::IntDep`]), and its boolean lattice follows from the comparison
//! ([`crate::dependence::BoolDep`]). What the engine cannot express becomes an opaque
//! symbol that still records which launch indices it may depend on: a load from a
//! thread-dependent address is thread-dependent, a load from a uniform address is
//! uniform (§4.2), a float computation depends on what its operands depend on.
//!
//! # Control flow
//!
//! Blocks are visited in reverse postorder; a block's entry state joins its predecessors'
//! exit states along feasible edges (an edge whose branch condition folds to false is
//! infeasible, so `-O0` code with constant conditions keeps exact values). Where
//! different values meet, the result is a fresh opaque value whose dependence is the
//! union of the incoming ones and, when a branch between the meeting paths depends on the
//! thread, of that branch's condition — GPUDrano's conservative merge (`y = tid < N ? 10
//! : 20` depends on `tid` although both values are constants).
//!
//! # Loops
//!
//! Back edges are not joined. At a loop header, every location the loop writes is given
//! a value according to its *classification*, which starts as an opaque placeholder and
//! is refined from the values at the latches after each pass, until nothing changes:
//! * `v' = v + c` with `c` invariant in the loop: an induction variable,
//!   `v = init + c·k` for the loop's iteration counter `k` — this also catches pointers
//!   that `-O3` strength-reduces into `p += 4·n`;
//! * `v' = c·v` or `v' = v / c`: a geometric recurrence (`offset *= 2`, `d >>= 1`), kept
//!   as a symbol whose values instantiation computes iteration by iteration;
//! * `v' = v`: invariant;
//! * anything else: an opaque value whose dependence is the fixpoint of the union of its
//!   initial and updated values' dependences.
//!
//! Leaving a loop, the iteration counter becomes the (opaque) trip count, which depends
//! on the thread when an exit condition does (temporal divergence).
//!
//! # Conditions
//!
//! Each block gets the condition under which a thread executes it in the current
//! iteration of its loops: a block that post-dominates its immediate dominator inherits
//! the dominator's condition; any other block joins its incoming edge conditions.
//! Accesses are recorded with their block's condition and their guard.
//!
//! # Budget
//!
//! Inside a caller's [`warpcheck_sym::budget`] scope (the porting advisor opens one; the
//! lints do not), the analysis pays steps for its own work besides the engine's: one per
//! instruction, a copy of the block's condition per instruction, a write to a state
//! (`WRITE_STEPS`), and at a join the locations that differ between the ways in. When
//! the steps run out the pass stops ([`Analysis::out_of_budget`]) and the results are
//! incomplete. A caller may also bound the size of values ([`AnalysisOptions::widen_above`]).

use std::collections::{BTreeMap, BTreeSet, HashMap};

use warpcheck_ir::access::AccessKind;
use warpcheck_ir::modifiers::MemSpace;
use warpcheck_ir::{BlockId, Body, EntityRef, FuncId, InstId, Op, Program, Reg, VarId, defuse};
use warpcheck_ptx::ast::StateSpace;
use warpcheck_sym::{Cond, Deps, Expr, Symbol};

/// A location that holds a value: a register or a cell of per-thread memory.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Loc {
    Reg(Reg),
    /// A `.local` or call-sequence `.param` variable at a constant byte offset.
    Cell(VarId, i64),
}

/// The abstract value of a location.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Val {
    Int(Expr),
    Pred(Cond),
}

impl Val {
    pub fn deps(&self) -> Deps {
        match self {
            Val::Int(e) => e.deps(),
            Val::Pred(c) => c.deps(),
        }
    }

    /// Number of nodes ([`Expr::size`], [`Cond::size`]).
    pub fn size(&self) -> usize {
        match self {
            Val::Int(e) => e.size(),
            Val::Pred(c) => c.size(),
        }
    }
}

/// Where an address points.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Region {
    /// Global memory through a pointer parameter.
    Global(String),
    Shared(VarId),
    Local(VarId),
    /// A module-scope variable of another space (`.global`, `.const`).
    Variable(VarId, StateSpace),
    /// A call-sequence `.param` variable.
    CallParam(VarId),
    /// Memory reached through a pointer read from global or constant memory by a
    /// generic access (`d_unique[bx].d_in2[i]` with `d_unique` a `__constant__` array
    /// of structs holding device pointers): taken to be global memory, since pointers
    /// the host stores in memory are device (global) pointers; the string says where
    /// the pointer was read.
    ReadPointer(String),
    /// A kernel parameter's own storage.
    KernelParam(VarId),
    Unknown,
}

/// One memory access of the kernel.
#[derive(Clone, Debug)]
pub struct Access {
    pub inst: InstId,
    pub block: BlockId,
    pub kind: AccessKind,
    /// The space, resolved from the pointer's origin for generic accesses.
    pub space: MemSpace,
    /// Bytes per thread.
    pub bytes: u32,
    /// The byte address (relative to the base of its region, which is a symbol).
    pub addr: Expr,
    /// When a thread executes it, within the current iterations of its loops.
    pub cond: Cond,
    /// Enclosing loops, outermost first.
    pub loops: Vec<usize>,
    pub region: Region,
}

/// A load or store of a per-thread cell (a `.local` or call-`.param` variable at a
/// constant offset: where `-O0` code keeps its scalar variables). The porting advisor
/// reads these to find scalars carried from one loop iteration to the next.
#[derive(Clone, Debug)]
pub struct CellAccess {
    pub inst: InstId,
    pub block: BlockId,
    pub kind: AccessKind,
    pub loc: Loc,
}

/// How the values of a geometric recurrence evolve.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum GeoStep {
    Mul(i128),
    Div(i128),
}

/// A location updated geometrically in a loop, represented by `symbol`.
#[derive(Clone, Debug)]
pub struct Recurrence {
    pub symbol: Symbol,
    pub init: Expr,
    pub step: GeoStep,
}

/// A way out of a loop: taken by a thread in the iteration where `cond` holds.
#[derive(Clone, Debug)]
pub struct LoopExit {
    pub block: BlockId,
    pub cond: Cond,
}

/// A natural loop with what the analysis learnt of it.
#[derive(Clone, Debug)]
pub struct LoopInfo {
    pub header: BlockId,
    pub blocks: Vec<BlockId>,
    pub parent: Option<usize>,
    /// `k`: 0 in the first iteration.
    pub counter: Symbol,
    pub recurrences: Vec<Recurrence>,
    pub exits: Vec<LoopExit>,
    /// What the exit conditions depend on.
    pub exit_deps: Deps,
    /// Additive induction variables found: location, initial value and step.
    pub inductions: Vec<(Loc, Expr, Expr)>,
    /// After the loop: the symbol of the iteration in which it was left.
    pub trip: Option<Symbol>,
    /// After the loop: (symbol, recurrence symbol) — the recurrence's value in the
    /// iteration in which the loop was left.
    pub finals: Vec<(Symbol, Symbol)>,
}

impl LoopInfo {
    pub fn contains(&self, b: BlockId) -> bool {
        self.blocks.binary_search(&b).is_ok()
    }
}

/// The classification of a location written in a loop.
#[derive(Clone, Debug, PartialEq)]
enum Carried {
    Placeholder,
    Invariant,
    Additive(Expr),
    Geometric(GeoStep),
    Opaque(Deps),
}

/// What an opaque symbol stands for; the key gives it a stable identity across passes.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub(crate) enum Key {
    Special(String),
    Value(InstId, u32),
    Merge(BlockId, Loc),
    Placeholder(usize, Loc),
    Geometric(usize, Loc),
    Carried(usize, Loc),
    TripCount(usize),
    Out(usize, u32),
    Base(VarId),
    Undefined(Loc),
    Cell(BlockId, Loc),
    /// A callee's argument (parameter index, byte offset) too big to bind as it is.
    Arg(u32, i64),
    /// A value too big to keep ([`AnalysisOptions::widen_above`]), written to a location.
    Widened(InstId, Loc),
}

#[derive(Clone, Debug, Default)]
pub(crate) struct Symbols {
    /// The first id this table hands out: a callee analysed in a call-site context
    /// continues its caller's numbering, so that the caller's symbols in the bound
    /// arguments keep their meaning (see [`crate::calls`]).
    first: u32,
    ids: HashMap<Key, u32>,
    /// The block an opaque value is created in (for loop variance).
    created_in: HashMap<u32, BlockId>,
    /// Base addresses of variables.
    bases: HashMap<u32, VarId>,
    /// Pointers read from global or constant memory (8-byte loads whose value is used
    /// as an address): the opaque symbol's id and a description of where it was read.
    read_pointers: HashMap<u32, String>,
    /// Values replaced because they outgrew [`AnalysisOptions::widen_above`]: the opaque
    /// symbol's id, the instruction that computed the value and its size in nodes.
    widened: HashMap<u32, (InstId, usize)>,
}

impl Symbols {
    fn id(&mut self, key: Key, block: Option<BlockId>) -> u32 {
        let next = self.first + self.ids.len() as u32;
        let id = *self.ids.entry(key).or_insert(next);
        if let Some(b) = block {
            self.created_in.entry(id).or_insert(b);
        }
        id
    }

    /// The table a callee analysed in this function's context starts from: ids continue
    /// after this table's, base addresses of variables keep their symbols (a pointer to a
    /// `__shared__` array passed as an argument names the same region in the callee), and
    /// pointers read from memory stay known as such. Nothing else is carried: the callee's
    /// instructions and blocks are its own.
    pub(crate) fn for_callee(&self) -> Symbols {
        let mut ids = HashMap::new();
        for (k, &id) in &self.ids {
            if matches!(k, Key::Base(_)) {
                ids.insert(k.clone(), id);
            }
        }
        let first = self.first + self.ids.len() as u32 + 1;
        Symbols {
            first: first.max(self.ids.values().max().map_or(0, |m| m + 1)),
            ids,
            created_in: HashMap::new(),
            bases: self.bases.clone(),
            read_pointers: self.read_pointers.clone(),
            widened: HashMap::new(),
        }
    }
}

/// The values of the locations: a persistent map (shared structure, O(1) copies).
pub(crate) type Vals = imbl::OrdMap<Loc, Val>;

#[derive(Clone, Debug, Default)]
pub(crate) struct State {
    /// A persistent map (shared structure): the analysis keeps a state per block entry and
    /// per CFG edge, and copying them was most of the time on big kernels (heartwall).
    pub(crate) vals: Vals,
}

/// Options of the analysis.
#[derive(Clone, Debug, Default)]
pub struct AnalysisOptions {
    /// Source names of the kernel's parameters, by position.
    pub param_names: Vec<String>,
    /// A value bigger than this many nodes ([`Val::size`]) is replaced, where an
    /// instruction writes it, by an opaque value with its dependence, and recorded
    /// ([`Analysis::widened`]): a bound on the memory a long chain of arithmetic (a
    /// macro that expands to a huge polynomial) can make the values take. `None`: no
    /// bound (kernels; a call-site context has its own, [`crate::calls::MAX_VALUE_SIZE`]).
    pub widen_above: Option<usize>,
}

/// A value that outgrew a call-site context's limit: where it was computed and its size.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Oversized {
    pub inst: InstId,
    pub size: usize,
}

/// The results for one function.
pub struct Analysis<'a> {
    pub program: &'a Program,
    pub func: FuncId,
    pub body: &'a Body,
    pub accesses: Vec<Access>,
    /// Loads and stores of per-thread cells, in the order of the last pass.
    pub cell_accesses: Vec<CellAccess>,
    /// Whether the address of a `.local` variable may have escaped (stored to memory
    /// that is not a tracked cell, or passed to a call): then a call may write any
    /// `.local` cell.
    pub local_address_escaped: bool,
    /// `bar.sync`/`barrier.sync` instructions (not warp barriers) and their blocks.
    pub barriers: Vec<(InstId, BlockId)>,
    /// Per block: the condition under which a thread executes it (`false`: never).
    pub block_cond: Vec<Cond>,
    /// Per block ending in a conditional branch: the condition of the taken edge.
    pub branch_cond: Vec<Option<Cond>>,
    pub loops: Vec<LoopInfo>,
    /// Per block: the innermost loop containing it.
    pub innermost_loop: Vec<Option<usize>>,
    /// Names of the pointer parameters (global bases).
    pub pointer_params: BTreeSet<String>,
    /// Symbols of the variables' base addresses.
    pub base_symbols: BTreeMap<VarId, Symbol>,
    /// Whether the fixpoint iteration stopped at its round limit.
    pub unstable: bool,
    /// The calls of functions with a body, in the order of the last pass, with the
    /// abstract values of their arguments (see [`crate::calls`]).
    pub calls: Vec<crate::calls::CallSite>,
    /// For a callee analysed at a call site: the bound arguments, the call-site
    /// condition and the enclosing loops of the callers.
    pub context: Option<std::sync::Arc<crate::calls::CallContext>>,
    /// The iteration symbols of this function's loops are numbered from here (after
    /// those of its callers' loops, which the bound arguments may mention).
    pub(crate) iteration_offset: u32,
    /// In a call-site context: the largest value (in nodes) the analysis may compute
    /// before it gives up (see [`crate::calls::MAX_VALUE_SIZE`]).
    value_limit: Option<usize>,
    /// The size of a value the current instruction computed past `value_limit`.
    oversized: Option<usize>,
    /// The instruction being stepped and its block (for naming widened values).
    pub(crate) stepping: Option<(InstId, BlockId)>,
    /// Set when a value outgrew `value_limit`: the pass stopped there, so the results
    /// are incomplete and not used.
    pub(crate) gave_up: Option<Oversized>,
    /// Set when the symbolic engine's work budget ran out ([`warpcheck_sym::budget`],
    /// opened by a caller such as the porting advisor): the pass stopped after this
    /// instruction, so the results are incomplete and must not be used as exact.
    pub out_of_budget: Option<InstId>,
    pub(crate) syms: Symbols,
    options: AnalysisOptions,
    classes: Vec<BTreeMap<Loc, Carried>>,
    /// Per loop and pass: the values given to carried locations at the header.
    header_vals: Vec<Vals>,
    header_init: Vec<Vals>,
    latch_vals: Vec<Vec<Vals>>,
    pub(crate) cell_writes: Vec<BTreeSet<Loc>>,
    reg_writes: Vec<BTreeSet<Loc>>,
    pass_exits: Vec<Vec<LoopExit>>,
    out_edges: HashMap<(BlockId, BlockId), (State, Cond)>,
    /// Per block: whether the current pass reached it. (Not its entry state: a copy kept
    /// here would make every write in the block copy the persistent map's path.)
    reached: Vec<bool>,
}

/// Adds to `out` the locations whose values differ between `a` and `b` (present in one
/// only, or different), by one ordered pass over both; a value stored in storage the two
/// share is the same object and is not compared. Returns the number of entries visited.
fn differing(a: &Vals, b: &Vals, out: &mut BTreeSet<Loc>) -> usize {
    if a.ptr_eq(b) {
        return 0;
    }
    let (mut x, mut y) = (a.iter().peekable(), b.iter().peekable());
    let mut visited = 0;
    loop {
        visited += 1;
        match (x.peek(), y.peek()) {
            (Some((kx, vx)), Some((ky, vy))) => match kx.cmp(ky) {
                std::cmp::Ordering::Less => {
                    out.insert(**kx);
                    x.next();
                }
                std::cmp::Ordering::Greater => {
                    out.insert(**ky);
                    y.next();
                }
                std::cmp::Ordering::Equal => {
                    if !std::ptr::eq(*vx, *vy) && vx != vy {
                        out.insert(**kx);
                    }
                    x.next();
                    y.next();
                }
            },
            (Some((k, _)), None) => {
                out.insert(**k);
                x.next();
            }
            (None, Some((k, _))) => {
                out.insert(**k);
                y.next();
            }
            (None, None) => return visited,
        }
    }
}

const MAX_ROUNDS: usize = 8;

/// The steps ([`warpcheck_sym::budget`]) a write to a state costs: the persistent map
/// copies the nodes on the written path when they are shared, up to 64 values each.
pub(crate) const WRITE_STEPS: u64 = 16;

/// Runs the analysis on a function with a body.
pub fn analyze<'a>(
    program: &'a Program,
    func: FuncId,
    options: AnalysisOptions,
) -> Option<Analysis<'a>> {
    analyze_with(program, func, options, None)
}

/// Runs the analysis on a function with a body, in the context of a call site when one is
/// given: its parameters hold the caller's argument values, its accesses are executed
/// under the call-site condition, and symbols continue the caller's numbering.
pub(crate) fn analyze_with<'a>(
    program: &'a Program,
    func: FuncId,
    options: AnalysisOptions,
    context: Option<std::sync::Arc<crate::calls::CallContext>>,
) -> Option<Analysis<'a>> {
    let body = program.function(func).body.as_ref()?;
    let iteration_offset = context.as_ref().map_or(0, |c| c.next_iteration);
    let n = body.blocks.len();
    let forest = &body.loops.loops;
    let mut innermost = vec![None; n];
    for (i, l) in forest.iter().enumerate() {
        for b in &l.blocks {
            innermost[b.index()] = Some(i);
        }
    }
    let loops: Vec<LoopInfo> = forest
        .iter()
        .enumerate()
        .map(|(i, l)| LoopInfo {
            header: l.header,
            blocks: l.blocks.clone(),
            parent: l.parent,
            counter: Symbol::iteration(
                iteration_offset + i as u32,
                &format!("k{}", iteration_offset as usize + i + 1),
            ),
            recurrences: Vec::new(),
            exits: Vec::new(),
            exit_deps: Deps::NONE,
            inductions: Vec::new(),
            trip: None,
            finals: Vec::new(),
        })
        .collect();
    // Registers written in each loop.
    let mut reg_writes = vec![BTreeSet::new(); loops.len()];
    for (i, l) in loops.iter().enumerate() {
        for &b in &l.blocks {
            for inst in body.blocks[b].insts() {
                for r in defuse::defs(body, inst) {
                    reg_writes[i].insert(Loc::Reg(r));
                }
            }
        }
    }
    let nl = loops.len();
    let mut a = Analysis {
        program,
        func,
        body,
        accesses: Vec::new(),
        cell_accesses: Vec::new(),
        local_address_escaped: false,
        barriers: Vec::new(),
        block_cond: vec![Cond::Const(false); n],
        branch_cond: vec![None; n],
        loops,
        innermost_loop: innermost,
        pointer_params: BTreeSet::new(),
        base_symbols: BTreeMap::new(),
        unstable: false,
        calls: Vec::new(),
        iteration_offset,
        value_limit: context.as_ref().map(|_| crate::calls::MAX_VALUE_SIZE),
        oversized: None,
        stepping: None,
        gave_up: None,
        out_of_budget: None,
        syms: context
            .as_ref()
            .map_or_else(Symbols::default, |c| c.symbols.clone()),
        context,
        options,
        classes: vec![BTreeMap::new(); nl],
        header_vals: vec![Vals::new(); nl],
        header_init: vec![Vals::new(); nl],
        latch_vals: vec![Vec::new(); nl],
        cell_writes: vec![BTreeSet::new(); nl],
        reg_writes,
        pass_exits: vec![Vec::new(); nl],
        out_edges: HashMap::new(),
        reached: vec![false; n],
    };
    match a.context.clone() {
        // The kernel's pointer parameters are what the bound arguments point into.
        Some(c) => {
            a.pointer_params = c.pointer_params.clone();
            a.base_symbols = c.base_symbols.clone();
        }
        None => a.collect_pointer_params(),
    }
    let mut stable = false;
    for _ in 0..MAX_ROUNDS {
        let escaped_before = a.local_address_escaped;
        a.run_pass();
        if a.gave_up.is_some() || a.out_of_budget.is_some() {
            return Some(a);
        }
        // An escape found late in a pass changes what earlier calls may have written.
        if !a.reclassify() && escaped_before == a.local_address_escaped {
            stable = true;
            break;
        }
    }
    if !stable {
        // Give up on what did not settle: every carried location becomes opaque.
        for c in &mut a.classes {
            for v in c.values_mut() {
                if !matches!(v, Carried::Opaque(_)) {
                    *v = Carried::Opaque(Deps::ALL);
                }
            }
        }
        a.run_pass();
        a.unstable = true;
        if a.out_of_budget.is_some() {
            return Some(a);
        }
    }
    a.finish_loops();
    Some(a)
}

impl<'a> Analysis<'a> {
    fn collect_pointer_params(&mut self) {
        let f = self.program.function(self.func);
        for (i, &v) in f.params.iter().enumerate() {
            let var = self.program.variable(v);
            if var.size == Some(8) && !var.ty.is_float() {
                self.pointer_params.insert(self.param_name(i, v));
            }
        }
    }

    pub(crate) fn param_name(&self, index: usize, var: VarId) -> String {
        self.options
            .param_names
            .get(index)
            .cloned()
            .unwrap_or_else(|| self.program.variable(var).name.clone())
    }

    /// The kernel this analysis belongs to: the function itself, or for a callee
    /// analysed at a call site, the kernel its call chain starts from.
    pub fn kernel(&self) -> FuncId {
        self.context.as_ref().map_or(self.func, |c| c.kernel)
    }

    /// The source line of an instruction, for names.
    pub fn line_of(&self, inst: InstId) -> u32 {
        self.body
            .inst_locs
            .get(inst.index())
            .copied()
            .flatten()
            .map_or(0, |l| l.line)
    }

    pub(crate) fn opaque(
        &mut self,
        key: Key,
        deps: Deps,
        name: String,
        block: Option<BlockId>,
    ) -> Expr {
        let id = self.syms.id(key, block);
        Expr::sym(Symbol::opaque(id, deps, &name))
    }

    pub(crate) fn opaque_cond(
        &mut self,
        key: Key,
        deps: Deps,
        name: String,
        block: Option<BlockId>,
    ) -> Cond {
        let id = self.syms.id(key, block);
        match Symbol::opaque(id, deps, &name) {
            Symbol::Opaque(o) => Cond::Opaque(o),
            _ => Cond::Const(true),
        }
    }

    pub(crate) fn base_of(&mut self, var: VarId) -> Expr {
        let id = self.syms.id(Key::Base(var), None);
        self.syms.bases.insert(id, var);
        let v = self.program.variable(var);
        let sym = Symbol::opaque(id, Deps::NONE, &format!("&{}", v.display_name()));
        self.base_symbols.insert(var, sym.clone());
        Expr::sym(sym)
    }

    /// The variable whose base address `symbol` is.
    pub fn base_var(&self, symbol: &Symbol) -> Option<VarId> {
        match symbol {
            Symbol::Opaque(o) => self.syms.bases.get(&o.id).copied(),
            _ => None,
        }
    }

    /// Where the pointer that `symbol` stands for was read from, if `symbol` is a
    /// pointer loaded from global or constant memory (see [`Region::ReadPointer`]).
    pub fn read_pointer(&self, symbol: &Symbol) -> Option<&str> {
        match symbol {
            Symbol::Opaque(o) => self.syms.read_pointers.get(&o.id).map(String::as_str),
            _ => None,
        }
    }

    pub(crate) fn record_read_pointer(&mut self, key: Key, block: BlockId, origin: String) {
        let id = self.syms.id(key, Some(block));
        self.syms.read_pointers.entry(id).or_insert(origin);
    }

    /// The load instruction whose loaded value `symbol` stands for (the advisor follows
    /// pointers loaded through pointers back to their origin this way, Juravle §4.2).
    pub fn loaded_by(&self, symbol: &Symbol) -> Option<InstId> {
        self.load_producing(symbol, false)
    }

    /// The load instruction that produced `symbol`, whichever register of a vector load
    /// it stands for (`ld.v2` gives two values: [`Analysis::loaded_by`] finds the first).
    pub fn load_of(&self, symbol: &Symbol) -> Option<InstId> {
        self.load_producing(symbol, true)
    }

    /// The load whose first result register (or, with `any_register`, any of them) is
    /// `symbol`.
    fn load_producing(&self, symbol: &Symbol, any_register: bool) -> Option<InstId> {
        let Symbol::Opaque(o) = symbol else {
            return None;
        };
        self.syms.ids.iter().find_map(|(key, &id)| match key {
            Key::Value(inst, register) if id == o.id && (any_register || *register == 0) => {
                let is_load = self
                    .accesses
                    .iter()
                    .any(|a| a.inst == *inst && matches!(a.kind, AccessKind::Load));
                is_load.then_some(*inst)
            }
            _ => None,
        })
    }

    /// For a value that outgrew [`AnalysisOptions::widen_above`] and was replaced by the
    /// opaque `symbol`: the instruction that computed it and its size in nodes.
    pub fn widened(&self, symbol: &Symbol) -> Option<(InstId, usize)> {
        match symbol {
            Symbol::Opaque(o) => self.syms.widened.get(&o.id).copied(),
            _ => None,
        }
    }

    /// Replaces `v`, just computed by the instruction being stepped, by an opaque value
    /// with its dependence when it is bigger than [`AnalysisOptions::widen_above`].
    pub(crate) fn widen(&mut self, loc: Loc, v: Val) -> Val {
        let (Some(limit), Some((inst, b))) = (self.options.widen_above, self.stepping) else {
            return v;
        };
        let size = v.size();
        if size <= limit {
            return v;
        }
        let name = format!("big@{}", self.line_of(inst));
        let deps = v.deps();
        let key = Key::Widened(inst, loc);
        let widened = match v {
            Val::Int(_) => Val::Int(self.opaque(key.clone(), deps, name, Some(b))),
            Val::Pred(_) => Val::Pred(self.opaque_cond(key.clone(), deps, name, Some(b))),
        };
        let id = self.syms.id(key, Some(b));
        let entry = self.syms.widened.entry(id).or_insert((inst, size));
        entry.1 = entry.1.max(size);
        widened
    }

    /// Whether `symbol` is the trip count of a loop (a loop counter's value after the loop).
    pub fn is_trip_count(&self, symbol: &Symbol) -> bool {
        let Symbol::Opaque(o) = symbol else {
            return false;
        };
        self.syms
            .ids
            .iter()
            .any(|(key, &id)| id == o.id && matches!(key, Key::TripCount(_)))
    }

    /// Whether `e` adds the base address of a `.local` variable.
    pub(crate) fn mentions_local_address(&self, e: &Expr) -> bool {
        e.symbols().iter().any(|s| {
            self.base_var(s)
                .is_some_and(|v| self.program.variable(v).space == StateSpace::Local)
        })
    }

    /// Whether the opaque symbol was created inside the loop.
    fn created_in_loop(&self, id: u32, l: usize) -> bool {
        self.syms
            .created_in
            .get(&id)
            .is_some_and(|b| self.loops[l].contains(*b))
    }

    /// Whether the expression changes between iterations of loop `l`.
    fn varies_in_loop(&self, symbols: &BTreeSet<Symbol>, l: usize) -> bool {
        symbols.iter().any(|s| match s {
            Symbol::Iteration { id, .. } => {
                // A caller's loop counter (below the offset) is invariant in the callee.
                let Some(inner) = id.checked_sub(self.iteration_offset) else {
                    return false;
                };
                let inner = inner as usize;
                inner < self.loops.len() && self.loops[l].contains(self.loops[inner].header)
            }
            Symbol::Opaque(o) => self.created_in_loop(o.id, l),
            _ => false,
        })
    }

    // -------------------------------------------------------------------------------
    // One pass over the blocks in reverse postorder.

    fn run_pass(&mut self) {
        self.accesses.clear();
        self.calls.clear();
        self.cell_accesses.clear();
        self.barriers.clear();
        self.out_edges.clear();
        for v in &mut self.latch_vals {
            v.clear();
        }
        for e in &mut self.pass_exits {
            e.clear();
        }
        for r in &mut self.loops {
            r.recurrences.clear();
            r.inductions.clear();
            r.finals.clear();
        }
        let n = self.body.blocks.len();
        self.block_cond = vec![Cond::Const(false); n];
        self.branch_cond = vec![None; n];
        self.reached = vec![false; n];
        let rpo: Vec<BlockId> = self.body.dominators.reverse_postorder().to_vec();
        for &b in &rpo {
            let Some((mut state, cond)) = self.entry_of(b) else {
                continue;
            };
            self.block_cond[b.index()] = cond.clone();
            if let Some(l) = self.header_loop(b) {
                self.enter_loop(l, &mut state, b);
            }
            self.reached[b.index()] = true;
            let block = self.body.blocks[b].clone();
            // Every instruction copies the block's condition into its own (see `step`).
            let copies = block.insts().len().saturating_mul(cond.size());
            warpcheck_sym::budget::charge(copies as u64);
            for inst in block.insts() {
                self.stepping = Some((inst, b));
                self.step(&mut state, inst, b, &cond);
                if let Some(size) = self.oversized {
                    self.gave_up = Some(Oversized { inst, size });
                    return;
                }
                // One step per instruction, so that a long function counts even where
                // its values are small (free unless a caller opened a budget).
                if !warpcheck_sym::budget::charge(1) {
                    self.out_of_budget = Some(inst);
                    return;
                }
            }
            self.leave_block(b, state, &cond);
        }
    }

    /// In a call-site context, records whether `v`, just computed by the current
    /// instruction, is bigger than the context's limit: the pass then stops after that
    /// instruction (see [`crate::calls::MAX_VALUE_SIZE`]). Kernels have no limit: their
    /// values are capped where they merge, and nothing binds big values into them.
    pub(crate) fn check_size(&mut self, v: &Val) {
        let Some(limit) = self.value_limit else {
            return;
        };
        let size = v.size();
        if size > limit {
            self.oversized = Some(self.oversized.map_or(size, |s| s.max(size)));
        }
    }

    fn header_loop(&self, b: BlockId) -> Option<usize> {
        self.loops.iter().position(|l| l.header == b)
    }

    fn is_back_edge(&self, from: BlockId, to: BlockId) -> bool {
        self.body.dominators.dominates(to, from)
    }

    /// The joined entry state and the block condition, or `None` if unreachable.
    fn entry_of(&mut self, b: BlockId) -> Option<(State, Cond)> {
        if b == self.body.entry() {
            return Some((State::default(), Cond::truth()));
        }
        let preds: Vec<BlockId> = self.body.cfg.preds(b).to_vec();
        let mut incoming: Vec<(BlockId, State, Cond)> = Vec::new();
        for (i, &p) in preds.iter().enumerate() {
            if self.is_back_edge(p, b) {
                continue;
            }
            // An edge's state is taken, not copied: this block is its only reader in a
            // pass, and a state kept alive would make every write here copy its path. A
            // predecessor listed twice (two edges here) reads it again.
            let edge = if preds[..i].contains(&p) {
                incoming
                    .iter()
                    .find(|(q, _, _)| *q == p)
                    .map(|(_, s, c)| (s.clone(), c.clone()))
            } else {
                self.out_edges.remove(&(p, b))
            };
            if let Some((s, c)) = edge {
                incoming.push((p, s, c));
            }
        }
        if incoming.is_empty() {
            return None;
        }
        // Condition: inherit the immediate dominator's when this block post-dominates it.
        let cond = match self.body.idom(b) {
            Some(d)
                if self.body.post_dominators.post_dominates(b, d) && self.reached[d.index()] =>
            {
                self.block_cond[d.index()].clone()
            }
            _ => Cond::or_all(incoming.iter().map(|(_, _, c)| c.clone()).collect()),
        };
        if incoming.len() == 1 {
            let (_, s, _) = incoming.pop()?;
            return Some((s, cond));
        }
        let state = self.join(b, &incoming);
        Some((state, cond))
    }

    fn join(&mut self, b: BlockId, incoming: &[(BlockId, State, Cond)]) -> State {
        // The first way in's values, shared (persistent map), changed where another way
        // in differs.
        let Some(((_, first_state, _), others)) = incoming.split_first() else {
            return State::default();
        };
        let mut locs: BTreeSet<Loc> = BTreeSet::new();
        let mut scanned = 0;
        for (_, s, _) in others {
            scanned += differing(&first_state.vals, &s.vals, &mut locs);
        }
        // A step per eight locations scanned (a pointer comparison where the states share
        // their storage, which is most of it), and for every differing location a lookup
        // in every way in and a write (see `run_pass`).
        let steps = (locs.len() as u64).saturating_mul(incoming.len() as u64 + WRITE_STEPS);
        warpcheck_sym::budget::charge(steps + scanned as u64 / 8);
        let mut out = first_state.clone();
        let mut control: Option<Deps> = None;
        for loc in locs {
            let vals: Vec<&Val> = incoming
                .iter()
                .filter_map(|(_, s, _)| s.vals.get(&loc))
                .collect();
            let first = vals[0];
            if vals.iter().all(|v| *v == first) {
                if out.vals.get(&loc) != Some(first) {
                    out.vals.insert(loc, first.clone());
                }
                continue;
            }
            // Two ways in: select by the condition of the first one, without the
            // conjuncts both share (exactly one of them holds for a thread that gets here).
            if incoming.len() == 2
                && vals.len() == 2
                && let Some(v) =
                    Self::select_merge(&incoming[0].2, &incoming[1].2, vals[0], vals[1])
            {
                out.vals.insert(loc, v);
                continue;
            }
            let control_deps = match control {
                Some(d) => d,
                None => {
                    let d = self.control_deps(b, incoming);
                    control = Some(d);
                    d
                }
            };
            let mut deps = control_deps;
            for v in &vals {
                deps = deps.union(v.deps());
            }
            let line = self.body.blocks[b]
                .insts()
                .next()
                .map_or(0, |i| self.line_of(i));
            let name = format!("merge@{line}");
            let v = match first {
                Val::Int(_) => Val::Int(self.opaque(Key::Merge(b, loc), deps, name, Some(b))),
                Val::Pred(_) => {
                    Val::Pred(self.opaque_cond(Key::Merge(b, loc), deps, name, Some(b)))
                }
            };
            out.vals.insert(loc, v);
        }
        out
    }

    fn select_merge(c1: &Cond, c2: &Cond, v1: &Val, v2: &Val) -> Option<Val> {
        let conjuncts = |c: &Cond| match c {
            Cond::And(cs) => cs.clone(),
            c => vec![c.clone()],
        };
        let (a, b) = (conjuncts(c1), conjuncts(c2));
        let only_a: Vec<Cond> = a.iter().filter(|x| !b.contains(x)).cloned().collect();
        let x = Cond::and_all(only_a);
        if x.as_const().is_some() {
            return None;
        }
        let v = match (v1, v2) {
            (Val::Int(p), Val::Int(q)) => Val::Int(Expr::select(x, p.clone(), q.clone())),
            (Val::Pred(p), Val::Pred(q)) => Val::Pred(x.and(p).or(&x.not().and(q))),
            _ => return None,
        };
        let size = match &v {
            Val::Int(e) => e.size(),
            // The tree, not only its symbols: merged predicates over a few symbols can
            // nest without bound (a chain of diamonds each selecting between two).
            Val::Pred(c) => (c.symbols().len() * 4).max(c.size()),
        };
        (size <= 64).then_some(v)
    }

    /// The dependence of the branches between the meeting paths: the conditional
    /// branches in blocks dominated by the nearest common dominator of the predecessors
    /// that reach them without passing the merge block.
    fn control_deps(&self, merge: BlockId, incoming: &[(BlockId, State, Cond)]) -> Deps {
        let preds: Vec<BlockId> = incoming.iter().map(|(p, _, _)| *p).collect();
        let mut d = preds[0];
        for &p in &preds[1..] {
            while !self.body.dominators.dominates(d, p) {
                match self.body.idom(d) {
                    Some(up) => d = up,
                    None => break,
                }
            }
        }
        let mut seen = BTreeSet::new();
        let mut stack = preds.clone();
        let mut deps = Deps::NONE;
        while let Some(x) = stack.pop() {
            if x == merge || !seen.insert(x) {
                continue;
            }
            if let Some(c) = &self.branch_cond[x.index()] {
                deps = deps.union(c.deps());
            }
            if x == d || !self.body.dominators.dominates(d, x) {
                continue;
            }
            for &p in self.body.cfg.preds(x) {
                if !self.is_back_edge(p, x) {
                    stack.push(p);
                }
            }
        }
        deps
    }

    /// The smallest source line of loop `l`'s blocks (its `for` line), 0 if none.
    fn loop_source_line(&self, l: usize) -> u32 {
        self.loops[l]
            .blocks
            .iter()
            .flat_map(|&b| self.body.blocks[b].insts())
            .map(|i| self.line_of(i))
            .filter(|&line| line > 0)
            .min()
            .unwrap_or(0)
    }

    /// Gives the locations the loop writes their values at the header.
    fn enter_loop(&mut self, l: usize, state: &mut State, header: BlockId) {
        let mut carried: BTreeSet<Loc> = self.reg_writes[l].clone();
        carried.extend(self.cell_writes[l].iter().copied());
        warpcheck_sym::budget::charge(carried.len() as u64);
        // Registers are named after the loop's first source line, not the PTX register.
        let source_line = self.loop_source_line(l);
        let mut header_vals = Vals::new();
        let mut inits = Vals::new();
        for loc in carried {
            let init = match state.vals.get(&loc) {
                Some(v) => v.clone(),
                None => match loc {
                    Loc::Reg(r) if self.body.regs.get(r).is_some_and(|i| i.ty.is_pred()) => {
                        Val::Pred(Cond::Const(false))
                    }
                    _ => {
                        Val::Int(self.opaque(Key::Undefined(loc), Deps::NONE, "undef".into(), None))
                    }
                },
            };
            let class = self.classes[l]
                .get(&loc)
                .cloned()
                .unwrap_or(Carried::Placeholder);
            let line = match loc {
                Loc::Reg(_) => format!("rec@{source_line}"),
                Loc::Cell(v, off) => format!("{}+{off}", self.program.variable(v).name),
            };
            let v = match (&init, class) {
                (_, Carried::Invariant) => init.clone(),
                (Val::Int(i), Carried::Additive(step)) => {
                    let k = Expr::sym(self.loops[l].counter.clone());
                    self.loops[l]
                        .inductions
                        .push((loc, i.clone(), step.clone()));
                    Val::Int(i.add(&step.mul(&k)))
                }
                (Val::Int(i), Carried::Geometric(step)) => {
                    let e =
                        self.opaque(Key::Geometric(l, loc), i.deps(), line.clone(), Some(header));
                    if let Some(sym) = e.as_symbol() {
                        self.loops[l].recurrences.push(Recurrence {
                            symbol: sym.clone(),
                            init: i.clone(),
                            step,
                        });
                    }
                    Val::Int(e)
                }
                (Val::Int(i), Carried::Placeholder) => Val::Int(self.opaque(
                    Key::Placeholder(l, loc),
                    i.deps(),
                    format!("{line}'"),
                    Some(header),
                )),
                (v, Carried::Opaque(_)) | (v @ Val::Pred(_), Carried::Placeholder) => {
                    let deps = match self.classes[l].get(&loc) {
                        Some(Carried::Opaque(d)) => d.union(v.deps()),
                        _ => v.deps(),
                    };
                    match v {
                        Val::Int(_) => Val::Int(self.opaque(
                            Key::Carried(l, loc),
                            deps,
                            format!("{line}'"),
                            Some(header),
                        )),
                        Val::Pred(_) => Val::Pred(self.opaque_cond(
                            Key::Carried(l, loc),
                            deps,
                            format!("{line}'"),
                            Some(header),
                        )),
                    }
                }
                (Val::Pred(_), _) => init.clone(),
            };
            state.vals.insert(loc, v.clone());
            header_vals.insert(loc, v);
            inits.insert(loc, init);
        }
        self.header_vals[l] = header_vals;
        self.header_init[l] = inits;
    }

    /// After the pass: classifies the carried locations from the latch values. Returns
    /// whether anything changed.
    fn reclassify(&mut self) -> bool {
        let mut changed = false;
        for l in 0..self.loops.len() {
            let exit_deps = self.pass_exits[l]
                .iter()
                .fold(Deps::NONE, |d, e| d.union(e.cond.deps()));
            if exit_deps != self.loops[l].exit_deps {
                self.loops[l].exit_deps = exit_deps;
                changed = true;
            }
            self.loops[l].exits = self.pass_exits[l].clone();
            let locs: Vec<Loc> = self.header_vals[l].keys().copied().collect();
            for loc in locs {
                let old = self.classes[l]
                    .get(&loc)
                    .cloned()
                    .unwrap_or(Carried::Placeholder);
                let new = self.classify(l, loc, &old);
                if new != old {
                    self.classes[l].insert(loc, new);
                    changed = true;
                }
            }
        }
        changed
    }

    fn classify(&self, l: usize, loc: Loc, old: &Carried) -> Carried {
        let Some(h) = self.header_vals[l].get(&loc) else {
            return old.clone();
        };
        let init = self.header_init[l].get(&loc);
        let updates: Vec<&Val> = self.latch_vals[l]
            .iter()
            .filter_map(|m| m.get(&loc))
            .collect();
        if updates.is_empty() {
            // No feasible latch: the loop does not repeat; keep what we have.
            return old.clone();
        }
        let mut deps = init.map_or(Deps::NONE, |i| i.deps());
        for u in &updates {
            deps = deps.union(u.deps());
        }
        let opaque = |old: &Carried| match old {
            Carried::Opaque(d) => Carried::Opaque(d.union(deps)),
            _ => Carried::Opaque(deps),
        };
        if let Carried::Opaque(_) = old {
            return opaque(old);
        }
        let first = updates[0];
        if updates.iter().any(|u| *u != first) {
            return opaque(old);
        }
        let (Val::Int(h), Val::Int(u)) = (h, first) else {
            return if first == h {
                Carried::Invariant
            } else {
                opaque(old)
            };
        };
        let delta = u.sub(h);
        match old {
            Carried::Invariant if delta.is_zero() => return Carried::Invariant,
            Carried::Additive(step) if delta == *step => return old.clone(),
            Carried::Geometric(step) => {
                if let Some(sym) = h.as_symbol()
                    && Self::geometric_step(u, sym) == Some(*step)
                {
                    return old.clone();
                }
                return opaque(old);
            }
            _ => {}
        }
        if delta.is_zero() {
            return Carried::Invariant;
        }
        if !delta.is_unknown() && !self.varies_in_loop(&delta.symbols(), l) {
            return Carried::Additive(delta);
        }
        if matches!(old, Carried::Placeholder)
            && let Some(sym) = h.as_symbol()
            && let Some(step) = Self::geometric_step(u, sym)
        {
            return Carried::Geometric(step);
        }
        opaque(old)
    }

    /// `u = c·v` or `u = v / c` for an integer `c ≥ 2`.
    fn geometric_step(u: &Expr, v: &Symbol) -> Option<GeoStep> {
        if let Some(c) = u.linear_coefficient(v)
            && let Some(c) = c.as_integer()
            && c >= 2
            && u.sub(&Expr::sym(v.clone()).mul(&Expr::int(c))).is_zero()
        {
            return Some(GeoStep::Mul(c));
        }
        for shift in 1..31 {
            let c = 1i128 << shift;
            if *u == Expr::sym(v.clone()).floor_div(&Expr::int(c)) {
                return Some(GeoStep::Div(c));
            }
        }
        if let [t] = u.terms()
            && t.coef.is_one()
            && let [(warpcheck_sym::Atom::FloorDiv(x, d), 1)] = t.mono.factors()
            && x.as_symbol() == Some(v)
            && let Some(d) = d.as_integer()
            && d >= 2
        {
            return Some(GeoStep::Div(d));
        }
        None
    }

    fn finish_loops(&mut self) {
        for l in 0..self.loops.len() {
            self.loops[l].exits = self.pass_exits[l].clone();
        }
    }

    /// Propagates the block's exit state along its feasible edges.
    fn leave_block(&mut self, b: BlockId, state: State, cond: &Cond) {
        let succs: Vec<BlockId> = self.body.cfg.succs(b).to_vec();
        let term = self.body.terminator(b);
        let mut edges: Vec<(BlockId, Cond)> = Vec::new();
        match term.map(|t| (t, self.body.inst(t))) {
            Some((t, inst)) if matches!(inst.op, Op::Bra { .. }) && inst.guard.is_some() => {
                let g = inst.guard.unwrap_or(warpcheck_ir::Guard {
                    pred: Reg::new(0),
                    negated: false,
                });
                let mut taken = self.pred_reg(&state, g.pred, t, b);
                if g.negated {
                    taken = taken.not();
                }
                self.branch_cond[b.index()] = Some(taken.clone());
                if succs.len() == 2 {
                    edges.push((succs[0], taken.clone()));
                    edges.push((succs[1], taken.not()));
                } else if let Some(&s) = succs.first() {
                    edges.push((s, Cond::truth()));
                }
            }
            _ => {
                for &s in &succs {
                    edges.push((s, Cond::truth()));
                }
            }
        }
        for (s, edge) in edges {
            if edge.as_const() == Some(false) {
                continue;
            }
            let c = cond.and(&edge);
            if self.is_back_edge(b, s) {
                if let Some(l) = self.header_loop(s) {
                    self.latch_vals[l].push(state.vals.clone());
                }
                continue;
            }
            // Leaving loops: record the exit and replace the per-iteration symbols.
            let mut st = state.clone();
            let mut c_out = c.clone();
            let mut l = self.innermost_loop[b.index()];
            while let Some(li) = l {
                if self.loops[li].contains(s) {
                    break;
                }
                self.pass_exits[li].push(LoopExit {
                    block: b,
                    cond: c.clone(),
                });
                self.exit_loop_values(li, &mut st, &mut c_out);
                l = self.loops[li].parent;
            }
            self.out_edges.insert((b, s), (st, c_out));
        }
    }

    /// On leaving loop `l`: `k` becomes the trip count, and values created in the loop
    /// become values that depend on the exit conditions too.
    fn exit_loop_values(&mut self, l: usize, state: &mut State, cond: &mut Cond) {
        let exit_deps = self.loops[l].exit_deps;
        let header = self.loops[l].header;
        let trip = self.opaque(Key::TripCount(l), exit_deps, format!("last{}", l + 1), None);
        if let Some(t) = trip.as_symbol() {
            self.loops[l].trip = Some(t.clone());
        }
        let counter = self.loops[l].counter.clone();
        let recurrences: Vec<Symbol> = self.loops[l]
            .recurrences
            .iter()
            .map(|r| r.symbol.clone())
            .collect();
        let mut renames: HashMap<Symbol, Expr> = HashMap::new();
        renames.insert(counter, trip);
        let mut syms = BTreeSet::new();
        warpcheck_sym::budget::charge(state.vals.len() as u64);
        for v in state.vals.values() {
            match v {
                Val::Int(e) => syms.extend(e.symbols()),
                Val::Pred(c) => syms.extend(c.symbols()),
            }
        }
        syms.extend(cond.symbols());
        for s in syms {
            let Symbol::Opaque(o) = &s else { continue };
            if !self.created_in_loop(o.id, l) {
                continue;
            }
            // Recurrences always get their value at the exit; other values of the loop
            // only need renaming when threads leave at different iterations.
            let is_recurrence = recurrences.contains(&s);
            if !is_recurrence && exit_deps.is_empty() {
                continue;
            }
            let e = self.opaque(
                Key::Out(l, o.id),
                o.deps.union(exit_deps),
                format!("{}'", o.name),
                Some(header),
            );
            if is_recurrence
                && let Some(out) = e.as_symbol()
                && !self.loops[l].finals.iter().any(|(x, _)| x == out)
            {
                self.loops[l].finals.push((out.clone(), s.clone()));
            }
            renames.insert(s.clone(), e);
        }
        let f = |s: &Symbol| renames.get(s).cloned();
        let renamed: Vec<(Loc, Val)> = state
            .vals
            .iter()
            .filter_map(|(loc, v)| match v {
                Val::Int(e) if e.symbols().iter().any(|s| renames.contains_key(s)) => {
                    Some((*loc, Val::Int(e.subst(&f))))
                }
                Val::Pred(c) if c.symbols().iter().any(|s| renames.contains_key(s)) => {
                    Some((*loc, Val::Pred(c.subst(&f))))
                }
                _ => None,
            })
            .collect();
        for (loc, v) in renamed {
            state.vals.insert(loc, v);
        }
        *cond = cond.subst(&f);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn int(v: i128) -> Val {
        Val::Int(Expr::int(v))
    }

    /// The naive answer: every location whose values are not the same in both.
    fn naive(a: &Vals, b: &Vals) -> BTreeSet<Loc> {
        let keys: BTreeSet<Loc> = a.keys().chain(b.keys()).copied().collect();
        keys.into_iter().filter(|k| a.get(k) != b.get(k)).collect()
    }

    /// States derived from one another, over many generations, share storage at every
    /// level of the persistent map; the ordered pass finds exactly the locations that
    /// differ between any two, whatever they share. (The map's own `diff`, which skips
    /// shared subtrees, misses some of these.)
    #[test]
    fn differing_finds_every_difference_in_shared_states() {
        let mut seed: u64 = 0x2545_f491_4f6c_dd1d;
        let mut next = move |n: u64| {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            seed % n
        };
        let mut states = vec![Vals::new()];
        for i in 0..3000 {
            states[0].insert(Loc::Reg(Reg::new(i)), int(i as i128));
        }
        for _ in 0..40 {
            let mut s = states[next(states.len() as u64) as usize].clone();
            for _ in 0..1 + next(40) {
                let loc = Loc::Reg(Reg::new(next(3500) as usize));
                match next(4) {
                    0 => {
                        s.remove(&loc);
                    }
                    v => {
                        s.insert(loc, int(v as i128));
                    }
                }
            }
            states.push(s);
        }
        for a in &states {
            for b in &states {
                let mut found = BTreeSet::new();
                differing(a, b, &mut found);
                assert_eq!(found, naive(a, b));
            }
        }
    }
}
