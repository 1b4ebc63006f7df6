//! Helpers shared by the integration tests.
#![allow(dead_code)]

use warpcheck_ir::{FuncId, InstId, Program};

pub const HEADER: &str = ".version 8.0\n.target sm_80\n.address_size 64\n";

/// Parses and lowers `text`, panicking with every parse or lowering error.
pub fn lower(text: &str) -> Program {
    let parsed = warpcheck_ptx::parse(text);
    let index = warpcheck_ptx::LineIndex::new(text);
    let parse_errors: Vec<String> = parsed.errors.iter().map(|e| e.display_with(text, &index)).collect();
    assert!(parse_errors.is_empty(), "parse errors:\n{}\n--- in ---\n{text}", parse_errors.join("\n"));
    match warpcheck_ir::lower(&parsed.module) {
        Ok(p) => p,
        Err(errors) => {
            let msgs: Vec<String> = errors.iter().map(|e| e.display_with(text, &index)).collect();
            panic!("lowering errors:\n{}\n--- in ---\n{text}", msgs.join("\n"))
        }
    }
}

/// Parses (which must succeed) and lowers `text`, returning the lowering errors as
/// `line:col: message` strings (empty if it lowered).
pub fn lower_errors(text: &str) -> Vec<String> {
    let parsed = warpcheck_ptx::parse(text);
    let index = warpcheck_ptx::LineIndex::new(text);
    assert!(parsed.errors.is_empty(), "parse errors: {:?}\n--- in ---\n{text}", parsed.errors);
    match warpcheck_ir::lower(&parsed.module) {
        Ok(_) => Vec::new(),
        Err(errors) => errors.iter().map(|e| e.display_with(text, &index)).collect(),
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
    program.function_by_name(name).unwrap_or_else(|| panic!("no function `{name}`"))
}

/// Every instruction of a function printed, one per entry.
pub fn printed_insts(program: &Program, name: &str) -> Vec<String> {
    let f = func(program, name);
    let body = program.function(f).body.as_ref().expect("function has a body");
    body.insts.keys().map(|i: InstId| warpcheck_ir::format_inst(program, body, i)).collect()
}
