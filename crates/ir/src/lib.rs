//! warpcheck's typed IR: PTX lowered into decoded instructions, a symbol table, a
//! control-flow graph with dominators, post-dominators and loops, and a source map.
//!
//! ```text
//! warpcheck_ptx::parse(text) ──> ast::Module ──lower()──> Program
//!                                                          ├─ functions: signature, tuning, Body
//!                                                          │    Body: regs, insts (Op + operands),
//!                                                          │          blocks, cfg, dominators,
//!                                                          │          post-dominators, loops,
//!                                                          │          per-instruction span and .loc
//!                                                          ├─ variables (layout, initial bytes)
//!                                                          └─ files (.file table)
//! ```
//!
//! Consumers:
//! * the emulator matches on [`Op`] (every modifier decoded into a meaning enum), reads
//!   operands by slot position ([`Body::operands_of`]), uses `InstId` as its program
//!   counter and [`Body::ipdom`] as the reconvergence point of a divergent branch;
//! * the static analyses use [`defuse`], the CFG, dominators and loops;
//! * reports use the spans and [`SourceLoc`]s, and demangled names.
//!
//! Module map: [`isa`] (the instruction table) and [`modifiers`] (meaning enums) define
//! the instruction set; `decode` and `body` (private) lower bodies;
//! [`symbols`] holds variables and layouts; [`cfg`](mod@cfg), [`dom`], [`loops`] the graph
//! analyses; [`source_map`], [`demangle`], [`print`](mod@print) the rest.
//!
//! Invariant: lowering never panics on any module the parser returns; everything it cannot
//! represent is reported as a [`LowerError`] with a span, and all errors are collected.

// The table macros must be defined before `isa` uses them.
#[macro_use]
mod isa_macros;

pub mod access;
pub mod cfg;
pub mod defuse;
pub mod demangle;
pub mod dom;
pub mod entity;
pub mod error;
pub mod isa;
pub mod loops;
pub mod modifiers;
pub mod operand;
pub mod print;
pub mod program;
pub mod source_map;
pub mod symbols;
pub mod types;

mod body;
mod decode;
mod lower;

pub use entity::{BlockId, EntityRef, EntityVec, FuncId, InstId, Reg, VarId};
pub use error::LowerError;
pub use isa::{Op, Opcode};
pub use lower::lower;
pub use operand::{
    Address, AddressBase, Component, Imm, Operand, OperandList, SpecialOperand, SpecialReg, Symbol,
};
pub use print::{format_inst, print_function, print_globals};
pub use program::{
    Block, Body, BranchTable, CallTargetList, Function, Guard, Inst, Program, RegInfo,
};
pub use source_map::{SourceFile, SourceFiles, SourceLoc};
pub use symbols::{InitialValue, Linkage, Relocation, VarRole, VarScope, Variable};
pub use types::Type;

#[cfg(test)]
mod size_tests {
    use super::*;

    /// The instruction struct is what the emulator streams through; it must not grow by
    /// accident. Grow it on purpose by updating this number.
    #[test]
    fn inst_size_is_pinned() {
        assert_eq!(std::mem::size_of::<Inst>(), 28);
        assert_eq!(std::mem::size_of::<Op>(), 12);
        assert_eq!(std::mem::size_of::<Operand>(), 24);
    }
}
