//! The def/use visitor follows the operand signatures of the instruction table.

use crate::common;

use common::{kernel, lower};
use warpcheck_ir::defuse::{defs, uses};
use warpcheck_ir::{Body, InstId, Program};

fn names(body: &Body, regs: Vec<warpcheck_ir::Reg>) -> Vec<&str> {
    regs.into_iter()
        .map(|r| body.regs[r].name.as_str())
        .collect()
}

fn def_use(program: &Program, index: usize) -> (Vec<String>, Vec<String>) {
    let f = program.function_by_name("k").unwrap();
    let body = program.function(f).body.as_ref().unwrap();
    let inst = InstId::from_u32(index as u32);
    (
        names(body, defs(body, inst))
            .into_iter()
            .map(String::from)
            .collect(),
        names(body, uses(body, inst))
            .into_iter()
            .map(String::from)
            .collect(),
    )
}

#[test]
fn defs_and_uses_per_family() {
    let cases: &[(&str, &[&str], &[&str])] = &[
        ("add.s32 %r1, %r2, %r3", &["%r1"], &["%r2", "%r3"]),
        ("@%p1 add.s32 %r1, %r1, 1", &["%r1"], &["%p1", "%r1"]),
        (
            "ld.global.v2.f32 {%f1, %f2}, [%rd1+8]",
            &["%f1", "%f2"],
            &["%rd1"],
        ),
        (
            "st.shared.v2.f32 [%rd2], {%f1, %f2}",
            &[],
            &["%rd2", "%f1", "%f2"],
        ),
        (
            "setp.lt.and.s32 %p1|%p2, %r1, %r2, !%p3",
            &["%p1", "%p2"],
            &["%r1", "%r2", "%p3"],
        ),
        (
            "shfl.sync.down.b32 %r1|%p1, %r2, 1, 31, %r3",
            &["%r1", "%p1"],
            &["%r2", "%r3"],
        ),
        (
            "atom.global.cas.b32 %r1, [%rd1], %r2, %r3",
            &["%r1"],
            &["%rd1", "%r2", "%r3"],
        ),
        ("red.global.add.u32 [%rd1], %r2", &[], &["%rd1", "%r2"]),
        ("mov.b64 {%r1, %r2}, %rd1", &["%r1", "%r2"], &["%rd1"]),
        ("mov.u32 %r1, %tid.x", &["%r1"], &[]),
        ("bar.red.popc.u32 %r1, 0, %p1", &["%r1"], &["%p1"]),
        (
            "vote.sync.ballot.b32 %r1, %p1, %r2",
            &["%r1"],
            &["%p1", "%r2"],
        ),
        ("selp.b32 %r1, %r2, 0, %p1", &["%r1"], &["%r2", "%p1"]),
        ("call (%r1), callee, (%r2)", &["%r1"], &["%r2"]),
        ("@!%p2 bra $L_target", &[], &["%p2"]),
        (
            "tex.2d.v4.f32.f32 {%f1, %f2, %f3, %f4}, [%rd1, {%f5, %f6}]",
            &["%f1", "%f2", "%f3", "%f4"],
            &["%rd1", "%f5", "%f6"],
        ),
    ];
    for (text, want_defs, want_uses) in cases {
        let program = lower(&kernel(&format!("\t{text};")));
        let (d, u) = def_use(&program, 1);
        assert_eq!(d, *want_defs, "defs of `{text}`");
        assert_eq!(u, *want_uses, "uses of `{text}`");
    }
}

#[test]
fn carry_flag_is_reported_separately() {
    let program = lower(&kernel(
        "\tadd.cc.u32 %r1, %r2, %r3;\n\taddc.u32 %r4, %r5, %r6;",
    ));
    let f = program.function_by_name("k").unwrap();
    let body = program.function(f).body.as_ref().unwrap();
    let op = |i: u32| body.inst(InstId::from_u32(i)).op;
    assert!(op(1).writes_carry() && !op(1).reads_carry());
    assert!(op(2).reads_carry() && !op(2).writes_carry());
}
