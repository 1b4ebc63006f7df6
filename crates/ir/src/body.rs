//! Lowering of one function body: declarations, scopes, blocks, source locations.
//!
//! The body is walked once, in text order, nested `{ }` scopes included:
//!
//! * **Scopes.** Each `{ }` opens a scope; declarations bind names in the innermost one
//!   and lookups search from the innermost outwards, then the module. Because the IR has
//!   one flat namespace per function, a declaration whose name was already declared in
//!   this function (clang declares `param0` and `temp_param_reg` in every call sequence)
//!   gets a fresh name `name$N`.
//! * **Registers.** `.reg .b32 %r<5>` declares `%r0` … `%r4`; `.reg .v4 .f32 %v`
//!   declares `%v.x` … `%v.w` (a vector register is its components; `%v` alone is the
//!   vector of them).
//! * **Blocks.** A new block starts at a label that something branches to and after a
//!   terminator. Labels nothing refers to (clang's `$L__tmp…` debug labels) do not split
//!   blocks. Labels that name a `.branchtargets` list are not block labels.
//! * **Labels** may be used before they are defined: label operands are recorded by
//!   label number and patched once all blocks exist.
//! * **Source locations.** Each instruction gets the most recent `.loc`.

use std::collections::{HashMap, HashSet};

use warpcheck_ptx::Span;
use warpcheck_ptx::ast::{self, OperandKind, StateSpace, Statement};

use crate::cfg::Cfg;
use crate::dom::{DomTree, PostDomTree};
use crate::entity::{BlockId, EntityRef, EntityVec, FuncId, InstId, Reg, VarId};
use crate::error::LowerError;
use crate::loops::LoopForest;
use crate::operand::{Operand, OperandList, Symbol};
use crate::program::{Block, Body, BranchTable, CallTargetList, Inst, RegInfo};
use crate::source_map::{InlinedAt, SourceLoc};
use crate::symbols::{self, Linkage, PtrAttributes, VarRole, VarScope, Variable};
use crate::types::Type;

/// The largest `%r<N>` range accepted (compilers declare at most a few thousand).
pub const MAX_REGISTER_RANGE: u32 = 1 << 20;

/// What a name in a function scope refers to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Binding {
    Reg(Reg),
    /// A `.v2`/`.v4` vector register: its first component and the number of components
    /// (components are consecutive registers).
    VectorReg(Reg, u8),
    Var(VarId),
    Prototype(u32),
}

/// State of the lowering of one function body.
pub(crate) struct BodyLowering<'a> {
    pub(crate) func: FuncId,
    pub(crate) func_name: &'a str,
    pub(crate) variables: &'a mut EntityVec<VarId, Variable>,
    pub(crate) module_symbols: &'a HashMap<String, Symbol>,
    pub(crate) errors: Vec<LowerError>,

    scopes: Vec<HashMap<String, Binding>>,
    declared: HashMap<String, u32>,

    pub(crate) regs: EntityVec<Reg, RegInfo>,
    locals: Vec<VarId>,
    insts: EntityVec<InstId, Inst>,
    pub(crate) operands: Vec<Operand>,
    inst_spans: Vec<Span>,
    inst_locs: Vec<Option<SourceLoc>>,
    inst_block: Vec<BlockId>,
    blocks: Vec<Block>,
    /// Whether the last block accepts more instructions (false after a terminator).
    block_open: bool,
    pending_labels: Vec<String>,
    current_loc: Option<SourceLoc>,
    pub(crate) prototypes: Vec<symbols::Prototype>,

    /// Names used as operands anywhere in the body: the labels among them start blocks.
    referenced: HashSet<String>,
    /// Every label of the body, numbered; label operands hold this number until patched.
    pub(crate) label_numbers: HashMap<String, u32>,
    label_names: Vec<String>,
    /// `.branchtargets` lists by the label that names them.
    pub(crate) table_numbers: HashMap<String, u32>,
    tables: Vec<(String, Vec<ast::Ident>)>,
    label_blocks: HashMap<String, BlockId>,
    /// `.calltargets` lists by the label that names them.
    pub(crate) call_target_numbers: HashMap<String, u32>,
    call_target_lists: Vec<(String, Vec<ast::Ident>)>,
}

impl<'a> BodyLowering<'a> {
    pub(crate) fn new(
        func: FuncId,
        func_name: &'a str,
        variables: &'a mut EntityVec<VarId, Variable>,
        module_symbols: &'a HashMap<String, Symbol>,
    ) -> Self {
        BodyLowering {
            func,
            func_name,
            variables,
            module_symbols,
            errors: Vec::new(),
            scopes: vec![HashMap::new()],
            declared: HashMap::new(),
            regs: EntityVec::new(),
            locals: Vec::new(),
            insts: EntityVec::new(),
            operands: Vec::new(),
            inst_spans: Vec::new(),
            inst_locs: Vec::new(),
            inst_block: Vec::new(),
            blocks: vec![Block {
                labels: Vec::new(),
                start: InstId::new(0),
                end: InstId::new(0),
            }],
            block_open: true,
            pending_labels: Vec::new(),
            current_loc: None,
            prototypes: Vec::new(),
            referenced: HashSet::new(),
            label_numbers: HashMap::new(),
            label_names: Vec::new(),
            table_numbers: HashMap::new(),
            tables: Vec::new(),
            label_blocks: HashMap::new(),
            call_target_numbers: HashMap::new(),
            call_target_lists: Vec::new(),
        }
    }

    pub(crate) fn error(&mut self, message: impl Into<String>, span: Span) {
        self.errors.push(LowerError::new(message, span));
    }

    /// Binds the function's parameters and return parameters in the outermost scope.
    pub(crate) fn bind_params(&mut self, params: &[VarId]) {
        for &p in params {
            let name = self.variables[p].name.clone();
            self.declared.insert(name.clone(), 1);
            self.scopes[0].insert(name, Binding::Var(p));
        }
    }

    /// Lowers the body and returns it with its CFG and analyses.
    pub(crate) fn lower(mut self, block: &ast::Block) -> (Body, Vec<LowerError>) {
        self.prescan(&block.statements);
        self.walk(&block.statements);
        self.finish_blocks();
        self.patch_labels();
        let branch_tables = self.resolve_tables();
        let call_targets = self.resolve_call_targets();

        let blocks: EntityVec<BlockId, Block> = self.blocks.into_iter().collect();
        let cfg = Cfg::compute(&blocks, &self.insts, &self.operands, &branch_tables);
        let dominators = DomTree::compute(&cfg);
        let post_dominators = PostDomTree::compute(&cfg, &dominators);
        let loops = LoopForest::compute(&cfg, &dominators);
        let body = Body {
            regs: self.regs,
            locals: self.locals,
            insts: self.insts,
            operands: self.operands,
            inst_spans: self.inst_spans,
            inst_locs: self.inst_locs,
            inst_block: self.inst_block,
            blocks,
            branch_tables,
            prototypes: self.prototypes,
            call_targets,
            cfg,
            dominators,
            post_dominators,
            loops,
        };
        (body, self.errors)
    }

    /// Collects referenced names, labels and `.branchtargets` lists before the walk.
    fn prescan(&mut self, statements: &[Statement]) {
        for (i, s) in statements.iter().enumerate() {
            match s {
                Statement::Label(label)
                    if matches!(statements.get(i + 1), Some(Statement::CallTargets { .. })) =>
                {
                    if let Some(Statement::CallTargets { targets, .. }) = statements.get(i + 1) {
                        let n = self.call_target_lists.len() as u32;
                        self.call_target_numbers.insert(label.value.clone(), n);
                        self.call_target_lists
                            .push((label.value.clone(), targets.clone()));
                    }
                }
                Statement::Label(label) => {
                    let is_table =
                        matches!(statements.get(i + 1), Some(Statement::BranchTargets { .. }));
                    if let Some(Statement::BranchTargets { targets, .. }) =
                        statements.get(i + 1).filter(|_| is_table)
                    {
                        let n = self.tables.len() as u32;
                        self.table_numbers.insert(label.value.clone(), n);
                        self.tables.push((label.value.clone(), targets.clone()));
                        for t in targets {
                            self.referenced.insert(t.value.clone());
                        }
                    } else if !self.label_numbers.contains_key(&label.value) {
                        self.label_numbers
                            .insert(label.value.clone(), self.label_names.len() as u32);
                        self.label_names.push(label.value.clone());
                    } else {
                        self.error(
                            format!("label `{}` is defined twice", label.value),
                            label.span,
                        );
                    }
                }
                Statement::Instruction(instr) => {
                    for op in &instr.operands {
                        collect_names(op, &mut self.referenced);
                    }
                }
                Statement::Block(b) => self.prescan(&b.statements),
                _ => {}
            }
        }
    }

    fn walk(&mut self, statements: &[Statement]) {
        for s in statements {
            match s {
                Statement::Label(label) => {
                    if self.table_numbers.contains_key(&label.value)
                        || self.call_target_numbers.contains_key(&label.value)
                        || !self.referenced.contains(&label.value)
                    {
                        continue;
                    }
                    let current = self.blocks.len() - 1;
                    if self.block_open
                        && self.blocks[current].is_empty()
                        && self.pending_labels.is_empty()
                    {
                        // Attach to the empty open block (the entry before any instruction).
                        self.blocks[current].labels.push(label.value.clone());
                        self.label_blocks
                            .insert(label.value.clone(), BlockId::new(current));
                    } else {
                        self.block_open = false;
                        self.pending_labels.push(label.value.clone());
                    }
                }
                Statement::Instruction(instr) => self.instruction(instr),
                Statement::Variable(decl) => self.declare(decl),
                Statement::Loc(loc) => {
                    self.current_loc = Some(SourceLoc {
                        file: loc.file,
                        line: loc.line,
                        column: loc.column,
                        inlined_at: loc.inlined_at.map(|(file, line, column)| InlinedAt {
                            file,
                            line,
                            column,
                        }),
                    });
                }
                Statement::Pragma { .. } => {}
                Statement::Block(b) => {
                    self.scopes.push(HashMap::new());
                    self.walk(&b.statements);
                    self.scopes.pop();
                }
                Statement::BranchTargets { .. } => {}
                Statement::CallTargets { .. } => {}
                Statement::CallPrototype(proto) => self.prototype(proto),
            }
        }
    }

    /// Appends a decoded instruction to the current block (opening a block if needed).
    pub(crate) fn push_inst(&mut self, inst: Inst, span: Span) {
        if !self.block_open {
            let start = self.insts.next_key();
            let labels = std::mem::take(&mut self.pending_labels);
            let id = BlockId::new(self.blocks.len());
            for l in &labels {
                self.label_blocks.insert(l.clone(), id);
            }
            self.blocks.push(Block {
                labels,
                start,
                end: start,
            });
            self.block_open = true;
        }
        let terminator = inst.op.is_terminator();
        let id = self.insts.push(inst);
        self.inst_spans.push(span);
        self.inst_locs.push(self.current_loc);
        let b = self.blocks.len() - 1;
        self.inst_block.push(BlockId::new(b));
        self.blocks[b].end = InstId::new(id.index() + 1);
        if terminator {
            self.block_open = false;
        }
    }

    /// Labels at the end of the body that something branches to get an empty block.
    fn finish_blocks(&mut self) {
        if !self.pending_labels.is_empty() {
            let start = self.insts.next_key();
            let labels = std::mem::take(&mut self.pending_labels);
            let id = BlockId::new(self.blocks.len());
            for l in &labels {
                self.label_blocks.insert(l.clone(), id);
            }
            self.blocks.push(Block {
                labels,
                start,
                end: start,
            });
        }
    }

    /// Replaces label numbers in label operands by block ids.
    fn patch_labels(&mut self) {
        for i in 0..self.operands.len() {
            if let Operand::Label(number) = self.operands[i] {
                let name = self
                    .label_names
                    .get(number.index())
                    .cloned()
                    .unwrap_or_default();
                match self.label_blocks.get(&name) {
                    Some(&b) => self.operands[i] = Operand::Label(b),
                    None => {
                        // Cannot happen for labels found by the prescan; keep the IR
                        // well-formed anyway.
                        self.operands[i] = Operand::Label(BlockId::new(0));
                        self.errors.push(LowerError::new(
                            format!("label `{name}` does not start a block"),
                            Span::DUMMY,
                        ));
                    }
                }
            }
        }
    }

    fn resolve_tables(&mut self) -> Vec<BranchTable> {
        let tables = std::mem::take(&mut self.tables);
        tables
            .into_iter()
            .map(|(name, targets)| {
                let mut blocks = Vec::new();
                for t in targets {
                    match self.label_blocks.get(&t.value) {
                        Some(&b) => blocks.push(b),
                        None => self.error(
                            format!("unknown label `{}` in `.branchtargets`", t.value),
                            t.span,
                        ),
                    }
                }
                BranchTable {
                    name,
                    targets: blocks,
                }
            })
            .collect()
    }

    fn resolve_call_targets(&mut self) -> Vec<CallTargetList> {
        let lists = std::mem::take(&mut self.call_target_lists);
        lists
            .into_iter()
            .map(|(name, targets)| {
                let mut functions = Vec::new();
                for t in targets {
                    match self.module_symbols.get(&t.value) {
                        Some(Symbol::Func(f)) => functions.push(*f),
                        _ => self.error(
                            format!("`.calltargets` entry `{}` is not a function", t.value),
                            t.span,
                        ),
                    }
                }
                CallTargetList {
                    name,
                    targets: functions,
                }
            })
            .collect()
    }

    // --- declarations ------------------------------------------------------------------

    /// A fresh IR name for a declaration: the name itself the first time, `name$N` after.
    fn fresh_name(&mut self, name: &str) -> String {
        let count = self.declared.entry(name.to_string()).or_insert(0);
        *count += 1;
        if *count == 1 {
            name.to_string()
        } else {
            format!("{name}${}", *count - 1)
        }
    }

    fn bind(&mut self, name: &str, binding: Binding, span: Span) {
        let scope = self
            .scopes
            .last_mut()
            .expect("the outermost scope is never popped");
        if scope.insert(name.to_string(), binding).is_some() {
            self.errors.push(LowerError::new(
                format!("`{name}` is declared twice in the same scope"),
                span,
            ));
        }
    }

    pub(crate) fn lookup(&self, name: &str) -> Option<Binding> {
        self.scopes.iter().rev().find_map(|s| s.get(name).copied())
    }

    fn declare(&mut self, decl: &ast::VariableDecl) {
        let ty = Type::from_ast(decl.ty.value);
        match decl.space.value {
            StateSpace::Reg => {
                for d in &decl.declarators {
                    if !d.dims.is_empty() || d.init.is_some() {
                        self.error(
                            format!(
                                "register `{}` cannot be an array or have an initialiser",
                                d.name.value
                            ),
                            d.span,
                        );
                        continue;
                    }
                    match &d.range {
                        Some(n) if n.value > MAX_REGISTER_RANGE => self.error(
                            format!(
                                "register range `{}<{}>` is larger than the supported {MAX_REGISTER_RANGE}",
                                d.name.value, n.value
                            ),
                            n.span,
                        ),
                        Some(n) => {
                            for i in 0..n.value {
                                let name = format!("{}{}", d.name.value, i);
                                self.declare_reg(
                                    &name,
                                    ty,
                                    decl.vector.as_ref().map(|v| v.value),
                                    d.span,
                                );
                            }
                        }
                        None => self.declare_reg(
                            &d.name.value,
                            ty,
                            decl.vector.as_ref().map(|v| v.value),
                            d.span,
                        ),
                    }
                }
            }
            StateSpace::Sreg => self.error("special registers cannot be declared", decl.span),
            _ => {
                for d in &decl.declarators {
                    self.declare_local(decl, d);
                }
            }
        }
    }

    fn declare_reg(&mut self, name: &str, ty: Type, vector: Option<u8>, span: Span) {
        let ir_name = self.fresh_name(name);
        match vector {
            None | Some(1) => {
                let r = self.regs.push(RegInfo { name: ir_name, ty });
                self.bind(name, Binding::Reg(r), span);
            }
            Some(n) if n <= 4 => {
                let first = self.regs.next_key();
                for c in ['x', 'y', 'z', 'w'].iter().take(n as usize) {
                    self.regs.push(RegInfo {
                        name: format!("{ir_name}.{c}"),
                        ty,
                    });
                }
                self.bind(name, Binding::VectorReg(first, n), span);
            }
            Some(n) => self.error(
                format!("vector registers of {n} components are not supported"),
                span,
            ),
        }
    }

    fn declare_local(&mut self, decl: &ast::VariableDecl, d: &ast::Declarator) {
        let symbols::Layout { dims, size, align } = match symbols::layout(decl, d) {
            Ok(l) => l,
            Err(e) => return self.errors.push(e),
        };
        if d.range.is_some() {
            return self.error(
                format!("`{}<N>` ranges are only valid for registers", d.name.value),
                d.span,
            );
        }
        let ty = Type::from_ast(decl.ty.value);
        let mut size = size;
        let init = match &d.init {
            None => None,
            Some(init) => {
                let resolve = |n: &str| self.resolve_symbol(n);
                match symbols::eval_initializer(init, ty, size, d.span, &resolve) {
                    Ok((value, s)) => {
                        size = Some(s);
                        Some(value)
                    }
                    Err(e) => {
                        self.errors.push(e);
                        None
                    }
                }
            }
        };
        let name = self.fresh_name(&d.name.value);
        let var = Variable {
            demangled: symbols::demangled(&d.name.value),
            name,
            space: decl.space.value,
            ty,
            vector: decl.vector.as_ref().map(|v| v.value),
            dims,
            size,
            align,
            init,
            linkage: Linkage::from_ast(&decl.linkage),
            scope: VarScope::Function(self.func),
            role: VarRole::Local,
            ptr: decl.ptr.as_ref().map(|p| PtrAttributes {
                space: p.space.as_ref().map(|s| s.value),
                align: p.align.as_ref().map(|a| a.value),
            }),
            attributes: decl
                .attributes
                .iter()
                .map(|a| a.value.trim_start_matches('.').to_string())
                .collect(),
            span: d.span,
        };
        let id = self.variables.push(var);
        self.locals.push(id);
        self.bind(&d.name.value, Binding::Var(id), d.span);
    }

    fn prototype(&mut self, proto: &ast::CallPrototype) {
        let convert = |decls: &[ast::VariableDecl],
                       errors: &mut Vec<LowerError>|
         -> Vec<symbols::ProtoParam> {
            let mut out = Vec::new();
            for decl in decls {
                let ty = Type::from_ast(decl.ty.value);
                for d in &decl.declarators {
                    match symbols::layout(decl, d) {
                        Ok(symbols::Layout { size, align, .. }) => out.push(symbols::ProtoParam {
                            ty,
                            size: size.unwrap_or(0),
                            align,
                        }),
                        Err(e) => errors.push(e),
                    }
                }
                if decl.declarators.is_empty() {
                    out.push(symbols::ProtoParam {
                        ty,
                        size: ty.size() as u64,
                        align: ty.size(),
                    });
                }
            }
            out
        };
        let mut errors = Vec::new();
        let returns = convert(&proto.returns, &mut errors);
        let params = convert(&proto.params, &mut errors);
        self.errors.extend(errors);
        let n = self.prototypes.len() as u32;
        let name = self.fresh_name(&proto.label.value);
        self.prototypes.push(symbols::Prototype {
            name,
            returns,
            params,
            span: proto.span,
        });
        self.bind(&proto.label.value, Binding::Prototype(n), proto.label.span);
    }

    /// A variable or function visible here (function scope first, then module).
    pub(crate) fn resolve_symbol(&self, name: &str) -> Option<Symbol> {
        match self.lookup(name) {
            Some(Binding::Var(v)) => Some(Symbol::Var(v)),
            Some(_) => None,
            None => self.module_symbols.get(name).copied(),
        }
    }

    /// Pushes operands to the pool and returns their range.
    pub(crate) fn push_operands(&mut self, ops: impl IntoIterator<Item = Operand>) -> OperandList {
        let start = self.operands.len() as u32;
        self.operands.extend(ops);
        OperandList {
            start,
            len: self.operands.len() as u32 - start,
        }
    }
}

/// Every name used in an operand (registers, symbols, labels).
fn collect_names(op: &ast::Operand, out: &mut HashSet<String>) {
    match &op.kind {
        OperandKind::Name { name, .. } => {
            out.insert(name.value.clone());
        }
        OperandKind::Expr(_) | OperandKind::Sink => {}
        OperandKind::Address(a) => a.extra.iter().for_each(|o| collect_names(o, out)),
        OperandKind::Vector(v) | OperandKind::List(v) => {
            v.iter().for_each(|o| collect_names(o, out))
        }
        OperandKind::Pair(a, b) => {
            collect_names(a, out);
            collect_names(b, out);
        }
        OperandKind::Not(a) => collect_names(a, out),
    }
}
