//! Random instructions — known and unknown opcodes, any mix of modifiers, operands of
//! every shape — never make lowering panic; and everything that lowers satisfies the IR
//! invariants.

use crate::common;

use common::{check_invariants, kernel};
use proptest::prelude::*;

const OPCODES: &[&str] = &[
    "add",
    "sub",
    "mul",
    "mad",
    "fma",
    "div",
    "rem",
    "abs",
    "neg",
    "min",
    "max",
    "setp",
    "set",
    "selp",
    "slct",
    "and",
    "or",
    "xor",
    "not",
    "shl",
    "shr",
    "mov",
    "ld",
    "st",
    "ldu",
    "cvt",
    "cvta",
    "atom",
    "red",
    "bar",
    "barrier",
    "membar",
    "fence",
    "shfl",
    "vote",
    "match",
    "redux",
    "bra",
    "brx",
    "call",
    "ret",
    "exit",
    "trap",
    "tex",
    "suld",
    "sust",
    "cp",
    "prmt",
    "lop3",
    "shf",
    "bfe",
    "bfi",
    "popc",
    "testp",
    "rcp",
    "sqrt",
    "ex2",
    "activemask",
    "isspacep",
    "prefetch",
    "nanosleep",
    "frobnicate",
];

const MODIFIERS: &[&str] = &[
    "s32",
    "u32",
    "b32",
    "f32",
    "f64",
    "f16",
    "f16x2",
    "bf16",
    "u64",
    "s64",
    "b64",
    "pred",
    "u8",
    "b16",
    "global",
    "shared",
    "local",
    "param",
    "const",
    "shared::cta",
    "nc",
    "v2",
    "v4",
    "v8",
    "rn",
    "rz",
    "rm",
    "rp",
    "rni",
    "rzi",
    "ftz",
    "sat",
    "approx",
    "full",
    "lo",
    "hi",
    "wide",
    "cc",
    "eq",
    "ne",
    "lt",
    "gtu",
    "and",
    "or",
    "xor",
    "add",
    "cas",
    "exch",
    "inc",
    "min",
    "max",
    "sync",
    "aligned",
    "arrive",
    "red",
    "popc",
    "warp",
    "up",
    "down",
    "bfly",
    "idx",
    "ballot",
    "all",
    "any",
    "uni",
    "to",
    "volatile",
    "relaxed",
    "acquire",
    "release",
    "acq_rel",
    "sc",
    "cta",
    "gpu",
    "sys",
    "gl",
    "async",
    "ca",
    "cg",
    "commit_group",
    "wait_group",
    "2d",
    "trap",
    "L2::cache_hint",
    "L1::no_allocate",
    "NaN",
    "relu",
    "zz",
];

const OPERANDS: &[&str] = &[
    "%r1",
    "%r2",
    "%rd1",
    "%f1",
    "%fd1",
    "%p1",
    "%rs1",
    "!%p2",
    "%p1|%p2",
    "%r1|%p1",
    "_",
    "1",
    "-1",
    "0f3F800000",
    "0d3FF0000000000000",
    "[%rd1]",
    "[%rd1+8]",
    "[sbuf]",
    "[gbuf+4]",
    "[1024]",
    "{%f1, %f2}",
    "{%r1, %r2, %r3, %r4}",
    "$L_target",
    "callee",
    "(%r1)",
    "(%r1, %r2)",
    "%tid.x",
    "%laneid",
    "%tid",
    "gbuf",
    "sbuf+8",
    "[%rd1, {%f1, %f2}]",
    "%nope",
    "$nowhere",
    "%r1.x",
];

fn instruction() -> impl Strategy<Value = String> {
    (
        prop::option::of(prop::sample::select(&["@%p1 ", "@!%p3 ", "@%r1 "][..])),
        prop::sample::select(OPCODES),
        prop::collection::vec(prop::sample::select(MODIFIERS), 0..5),
        prop::collection::vec(prop::sample::select(OPERANDS), 0..6),
    )
        .prop_map(|(guard, op, mods, operands)| {
            let mut s = guard.unwrap_or("").to_string();
            s.push_str(op);
            for m in mods {
                s.push('.');
                s.push_str(m);
            }
            if !operands.is_empty() {
                s.push(' ');
                s.push_str(&operands.join(", "));
            }
            s
        })
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 512, ..ProptestConfig::default() })]

    #[test]
    fn random_instructions_never_panic(instructions in prop::collection::vec(instruction(), 1..6)) {
        let body: String = instructions.iter().map(|i| format!("\t{i};\n")).collect();
        let text = kernel(&body);
        let parsed = warpcheck_ptx::parse(&text);
        match warpcheck_ir::lower(&parsed.module) {
            Ok(program) => check_invariants(&program),
            Err(errors) => {
                for e in errors {
                    prop_assert!(!e.message.is_empty());
                    prop_assert!((e.span.end as usize) <= text.len());
                }
            }
        }
    }
}
