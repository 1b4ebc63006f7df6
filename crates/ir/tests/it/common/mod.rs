//! Helpers shared by the integration tests.
#![allow(dead_code)]

use warpcheck_ir::{FuncId, InstId, Program};

pub const HEADER: &str = ".version 8.0\n.target sm_80\n.address_size 64\n";

/// Parses and lowers `text`, panicking with every parse or lowering error.
pub fn lower(text: &str) -> Program {
    let parsed = warpcheck_ptx::parse(text);
    let index = warpcheck_ptx::LineIndex::new(text);
    let parse_errors: Vec<String> = parsed
        .errors
        .iter()
        .map(|e| e.display_with(text, &index))
        .collect();
    assert!(
        parse_errors.is_empty(),
        "parse errors:\n{}\n--- in ---\n{text}",
        parse_errors.join("\n")
    );
    match warpcheck_ir::lower(&parsed.module) {
        Ok(p) => p,
        Err(errors) => {
            let msgs: Vec<String> = errors
                .iter()
                .map(|e| e.display_with(text, &index))
                .collect();
            panic!("lowering errors:\n{}\n--- in ---\n{text}", msgs.join("\n"))
        }
    }
}

/// Parses (which must succeed) and lowers `text`, returning the lowering errors as
/// `line:col: message` strings (empty if it lowered).
pub fn lower_errors(text: &str) -> Vec<String> {
    let parsed = warpcheck_ptx::parse(text);
    let index = warpcheck_ptx::LineIndex::new(text);
    assert!(
        parsed.errors.is_empty(),
        "parse errors: {:?}\n--- in ---\n{text}",
        parsed.errors
    );
    match warpcheck_ir::lower(&parsed.module) {
        Ok(_) => Vec::new(),
        Err(errors) => errors
            .iter()
            .map(|e| e.display_with(text, &index))
            .collect(),
    }
}

/// A kernel `k` with registers of every common type, a shared and a global buffer, a
/// label `$L_target` on its first instruction, and `body` after it.
pub fn kernel(body: &str) -> String {
    format!(
        "{HEADER}.global .align 4 .b8 gbuf[64];\n\
         .func (.param .b32 func_retval0) callee(.param .b32 callee_p0);\n\
         .visible .entry k(.param .u64 k_p0, .param .u32 k_p1)\n{{\n\
         \t.reg .pred %p<5>;\n\t.reg .b16 %rs<5>;\n\t.reg .b32 %r<9>;\n\t.reg .b64 %rd<9>;\n\
         \t.reg .f32 %f<9>;\n\t.reg .f64 %fd<5>;\n\
         \t.shared .align 16 .b8 sbuf[128];\n\
         $L_target:\n\tmov.u32 %r0, 0;\n{body}\n\tret;\n}}\n"
    )
}

/// The id of the function named `name`.
pub fn func(program: &Program, name: &str) -> FuncId {
    program
        .function_by_name(name)
        .unwrap_or_else(|| panic!("no function `{name}`"))
}

/// Every instruction of a function printed, one per entry.
pub fn printed_insts(program: &Program, name: &str) -> Vec<String> {
    let f = func(program, name);
    let body = program
        .function(f)
        .body
        .as_ref()
        .expect("function has a body");
    body.insts
        .keys()
        .map(|i: InstId| warpcheck_ir::format_inst(program, body, i))
        .collect()
}

/// Checks the structural invariants the IR promises (see `program.rs`), for every body.
pub fn check_invariants(program: &Program) {
    use warpcheck_ir::{EntityRef, Operand};
    for (fid, f) in program.functions.iter() {
        let Some(body) = &f.body else { continue };
        let name = &f.name;
        // Blocks partition the instructions in order; only the last may be empty.
        let mut next = 0;
        let n_blocks = body.blocks.len();
        for (b, blk) in body.blocks.iter() {
            assert_eq!(
                blk.start.index(),
                next,
                "{name}: {b} does not start where the previous block ends"
            );
            assert!(blk.end.index() >= blk.start.index());
            if b.index() + 1 < n_blocks && b.index() != 0 {
                assert!(!blk.is_empty(), "{name}: {b} is empty but not last");
            }
            for i in blk.insts() {
                assert_eq!(body.inst_block[i.index()], b);
                // Only the last instruction of a block may be a terminator.
                if i.index() + 1 < blk.end.index() {
                    assert!(
                        !body.inst(i).op.is_terminator(),
                        "{name}: terminator {i} inside {b}"
                    );
                }
            }
            next = blk.end.index();
            // Successors are valid blocks, and predecessors mirror them.
            for &s in body.cfg.succs(b) {
                assert!(s.index() < n_blocks);
                assert!(body.cfg.preds(s).contains(&b));
            }
            if let Some(d) = body.idom(b) {
                assert!(body.dominators.dominates(d, b) && d != b);
            }
            if let Some(pd) = body.ipdom(b) {
                assert!(pd.index() < n_blocks && pd != b);
            }
        }
        assert_eq!(
            next,
            body.insts.len(),
            "{name}: blocks do not cover all instructions"
        );
        assert_eq!(body.inst_spans.len(), body.insts.len());
        assert_eq!(body.inst_locs.len(), body.insts.len());
        // Every instruction has one operand per slot.
        for (i, inst) in body.insts.iter() {
            let ops = body.operands_of(i);
            let slots = inst.op.slots();
            assert_eq!(
                ops.len(),
                slots.len(),
                "{name}: {i} `{}`",
                warpcheck_ir::format_inst(program, body, i)
            );
            for (slot, op) in slots.iter().zip(ops) {
                if matches!(op, Operand::Absent) {
                    assert!(slot.optional, "{name}: {i} omits a required operand");
                }
                if let Operand::Label(b) = op {
                    assert!(b.index() < n_blocks);
                }
            }
        }
        let _ = fid;
    }
}
