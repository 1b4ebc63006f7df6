//! The lowered program: functions, variables, and each function's body.
//!
//! Data layout (Cranelift style): instructions live in one table per function
//! ([`Body::insts`]), their operands in one pool ([`Body::operands`]), and blocks refer to
//! contiguous ranges of instruction ids. Instruction ids are in text order and blocks are
//! in layout order, so `InstId` doubles as the emulator's program counter and the
//! instruction after the last one of a block is the first one of the next block.
//!
//! Invariants of a [`Body`]:
//! * block 0 is the entry block; blocks partition the instructions in order, and every
//!   block except possibly the last is non-empty;
//! * a block ends with its only terminator (`bra`, `brx.idx`, `ret`, `exit`, `trap`) or
//!   falls through to the next block in layout order; falling off the last block leaves
//!   the function, as `ret` does;
//! * every instruction has exactly `op.slots().len()` operands, in slot order, omitted
//!   optional operands being [`Operand::Absent`];
//! * side tables indexed by `InstId` (`inst_spans`, `inst_locs`, `inst_block`) have one
//!   entry per instruction.

use std::collections::HashMap;

use warpcheck_ptx::Span;
use warpcheck_ptx::ast::FunctionKind;

use crate::cfg::Cfg;
use crate::demangle::Demangled;
use crate::dom::{DomTree, PostDomTree};
use crate::entity::{BlockId, EntityRef, EntityVec, FuncId, InstId, Reg, VarId};
use crate::isa::Op;
use crate::loops::LoopForest;
use crate::operand::{Operand, OperandList, Symbol};
use crate::source_map::{SourceFiles, SourceLoc};
use crate::symbols::{Linkage, Prototype, Tuning, Variable};
use crate::types::Type;

/// A lowered PTX module.
#[derive(Clone, Debug)]
pub struct Program {
    /// `.version major.minor`.
    pub version: Option<(u32, u32)>,
    /// `.target` entries, e.g. `sm_80`.
    pub targets: Vec<String>,
    /// `.address_size`: 64 unless the module says 32.
    pub address_size: u32,
    pub functions: EntityVec<FuncId, Function>,
    /// Every variable of the program: module-scope ones, function-scope ones and
    /// parameters. [`Program::globals`] and [`Function::params`]/[`Body::locals`] say which
    /// belong where.
    pub variables: EntityVec<VarId, Variable>,
    /// Module-scope variables in declaration order.
    pub globals: Vec<VarId>,
    pub files: SourceFiles,
    pub(crate) module_symbols: HashMap<String, Symbol>,
}

/// A kernel or device function.
#[derive(Clone, Debug)]
pub struct Function {
    pub name: String,
    pub demangled: Option<Demangled>,
    pub kind: FunctionKind,
    pub linkage: Linkage,
    /// Parameters in order, with their offsets in [`crate::VarRole::Param`].
    pub params: Vec<VarId>,
    /// Return parameters of a `.func`.
    pub returns: Vec<VarId>,
    /// Bytes of parameter space the parameters occupy.
    pub param_space_size: u64,
    pub tuning: Tuning,
    /// `None` for a declaration without body (`vprintf`, `__assertfail`, libdevice).
    pub body: Option<Body>,
    pub span: Span,
}

impl Function {
    pub fn is_kernel(&self) -> bool {
        self.kind == FunctionKind::Entry
    }

    /// The demangled short name if mangled, else the name.
    pub fn display_name(&self) -> &str {
        self.demangled.as_ref().map_or(&self.name, |d| &d.short)
    }

    /// The name of this instance as findings show it: the short name with its template
    /// arguments (`reduce<256>`), so that two instances of one template stay apart.
    pub fn instance_name(&self) -> &str {
        self.demangled.as_ref().map_or(&self.name, |d| &d.instance)
    }
}

/// A function body: registers, instructions, blocks and the analyses over them.
#[derive(Clone, Debug)]
pub struct Body {
    pub regs: EntityVec<Reg, RegInfo>,
    /// Function-scope variables (`.local`, `.shared`, call-sequence `.param`s).
    pub locals: Vec<VarId>,
    pub insts: EntityVec<InstId, Inst>,
    /// The operand pool; [`Inst::operands`] and nested vectors/lists index into it.
    pub operands: Vec<Operand>,
    /// Span of each instruction's text.
    pub inst_spans: Vec<Span>,
    /// Source location of each instruction (most recent `.loc`).
    pub inst_locs: Vec<Option<SourceLoc>>,
    /// The block of each instruction.
    pub inst_block: Vec<BlockId>,
    pub blocks: EntityVec<BlockId, Block>,
    pub branch_tables: Vec<BranchTable>,
    pub prototypes: Vec<Prototype>,
    /// `.calltargets` lists used by indirect calls.
    pub call_targets: Vec<CallTargetList>,
    pub cfg: Cfg,
    pub dominators: DomTree,
    pub post_dominators: PostDomTree,
    pub loops: LoopForest,
}

/// A register: its name as written (or renamed when shadowed) and type.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RegInfo {
    pub name: String,
    pub ty: Type,
}

/// A basic block: a contiguous range of instructions.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Block {
    /// The labels that name the block (branch targets), in text order.
    pub labels: Vec<String>,
    /// First instruction.
    pub start: InstId,
    /// One past the last instruction.
    pub end: InstId,
}

impl Block {
    pub fn insts(&self) -> impl DoubleEndedIterator<Item = InstId> + ExactSizeIterator + use<> {
        (self.start.index()..self.end.index()).map(InstId::new)
    }

    pub fn len(&self) -> usize {
        self.end.index() - self.start.index()
    }

    pub fn is_empty(&self) -> bool {
        self.start == self.end
    }
}

/// A `.branchtargets` list used by `brx.idx`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BranchTable {
    pub name: String,
    pub targets: Vec<BlockId>,
}

/// A `.calltargets` list: the functions an indirect call may call (§11.3.3).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CallTargetList {
    pub name: String,
    pub targets: Vec<FuncId>,
}

/// One decoded instruction.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Inst {
    pub op: Op,
    /// `@%p` / `@!%p`.
    pub guard: Option<Guard>,
    /// The operands, in slot order, in [`Body::operands`].
    pub operands: OperandList,
}

/// An instruction guard (§9.3).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Guard {
    pub pred: Reg,
    /// `@!%p`: execute when the predicate is false.
    pub negated: bool,
}

impl Body {
    pub fn inst(&self, id: InstId) -> &Inst {
        &self.insts[id]
    }

    /// The operands of an instruction, one per slot.
    pub fn operands_of(&self, id: InstId) -> &[Operand] {
        self.list(self.insts[id].operands)
    }

    /// The operands of a vector, list or image operand (or of an instruction).
    pub fn list(&self, list: OperandList) -> &[Operand] {
        self.operands.get(list.range()).unwrap_or(&[])
    }

    /// The last instruction of a block, if it is a terminator.
    pub fn terminator(&self, block: BlockId) -> Option<InstId> {
        let b = &self.blocks[block];
        if b.is_empty() {
            return None;
        }
        let last = InstId::new(b.end.index() - 1);
        self.insts[last].op.is_terminator().then_some(last)
    }

    /// The entry block.
    pub fn entry(&self) -> BlockId {
        BlockId::new(0)
    }

    /// The immediate dominator of a block (`None` for the entry and unreachable blocks).
    pub fn idom(&self, block: BlockId) -> Option<BlockId> {
        self.dominators.idom(block)
    }

    /// The immediate post-dominator of a block: the reconvergence point of a branch at
    /// its end. `None` means the virtual exit: the paths from the block only meet again
    /// when the function returns (see [`PostDomTree`]).
    pub fn ipdom(&self, block: BlockId) -> Option<BlockId> {
        self.post_dominators.ipdom(block)
    }

    /// The name of a register.
    pub fn reg_name(&self, reg: Reg) -> &str {
        self.regs.get(reg).map_or("%<invalid>", |r| r.name.as_str())
    }

    /// The label of a block (its first one), or `blockN`.
    pub fn block_name(&self, block: BlockId) -> String {
        match self.blocks.get(block).and_then(|b| b.labels.first()) {
            Some(label) => label.clone(),
            None => format!("{block}"),
        }
    }
}

impl Program {
    pub fn function(&self, id: FuncId) -> &Function {
        &self.functions[id]
    }

    pub fn variable(&self, id: VarId) -> &Variable {
        &self.variables[id]
    }

    /// Kernels (`.entry` functions) in declaration order.
    pub fn kernels(&self) -> impl Iterator<Item = FuncId> + '_ {
        self.functions
            .iter()
            .filter(|(_, f)| f.is_kernel())
            .map(|(id, _)| id)
    }

    /// Functions whose mangled name, full demangled name or short demangled name is
    /// `name`. Mangled and full names are unique; a short name can match several
    /// functions (overloads, template instances).
    pub fn functions_named(&self, name: &str) -> Vec<FuncId> {
        if let Some(Symbol::Func(f)) = self.module_symbols.get(name) {
            return vec![*f];
        }
        let full: Vec<FuncId> = self
            .functions
            .iter()
            .filter(|(_, f)| f.demangled.as_ref().is_some_and(|d| d.full == name))
            .map(|(id, _)| id)
            .collect();
        if !full.is_empty() {
            return full;
        }
        self.functions
            .iter()
            .filter(|(_, f)| f.demangled.as_ref().is_some_and(|d| d.short == name))
            .map(|(id, _)| id)
            .collect::<Vec<_>>()
            .into_iter()
            .chain(
                // `reduce<256>`: a template instance as users write it.
                self.functions
                    .iter()
                    .filter(|(_, f)| {
                        name.contains('<')
                            && f.demangled
                                .as_ref()
                                .is_some_and(|d| crate::demangle::matches_user_name(&d.full, name))
                    })
                    .map(|(id, _)| id),
            )
            .collect()
    }

    /// The one function with that mangled, full demangled or short demangled name; `None`
    /// if there is none or the short name is ambiguous.
    pub fn function_by_name(&self, name: &str) -> Option<FuncId> {
        match self.functions_named(name).as_slice() {
            [one] => Some(*one),
            _ => None,
        }
    }

    /// Module-scope variables by mangled, full demangled or (unique) short demangled
    /// name; function-scope variables by their name in the IR.
    pub fn variables_named(&self, name: &str) -> Vec<VarId> {
        if let Some(Symbol::Var(v)) = self.module_symbols.get(name) {
            return vec![*v];
        }
        let mut found: Vec<VarId> = self
            .variables
            .iter()
            .filter(|(_, v)| v.name == name || v.demangled.as_ref().is_some_and(|d| d.full == name))
            .map(|(id, _)| id)
            .collect();
        if found.is_empty() {
            found = self
                .variables
                .iter()
                .filter(|(_, v)| v.demangled.as_ref().is_some_and(|d| d.short == name))
                .map(|(id, _)| id)
                .collect();
        }
        found
    }

    /// The module-scope symbol with this exact (mangled) name.
    pub fn symbol(&self, name: &str) -> Option<Symbol> {
        self.module_symbols.get(name).copied()
    }

    /// The name of a symbol.
    pub fn symbol_name(&self, symbol: Symbol) -> &str {
        match symbol {
            Symbol::Var(v) => self
                .variables
                .get(v)
                .map_or("<invalid>", |v| v.name.as_str()),
            Symbol::Func(f) => self
                .functions
                .get(f)
                .map_or("<invalid>", |f| f.name.as_str()),
        }
    }

    /// Variables of dynamically sized shared memory (all alias offset 0 of it).
    pub fn dynamic_shared(&self) -> impl Iterator<Item = VarId> + '_ {
        self.variables
            .iter()
            .filter(|(_, v)| v.is_dynamic_shared())
            .map(|(id, _)| id)
    }
}
