//! Decoding tests, one table per instruction family: PTX text in, the printed decoded
//! form out. The printed form spells every modifier canonically, in manual order, with
//! implied ones written out, so each line checks what the decoder understood.

use crate::common;

use common::{kernel, lower, printed_insts};
use warpcheck_ir::isa::Op;
use warpcheck_ir::modifiers::*;
use warpcheck_ir::{Operand, Type};

/// Lowers each `(input, expected)` instruction inside the test kernel and compares the
/// printed form (the instruction after `mov.u32 %r0, 0`).
fn check(cases: &[(&str, &str)]) {
    for (input, expected) in cases {
        let program = lower(&kernel(&format!("\t{input};")));
        let insts = printed_insts(&program, "k");
        assert_eq!(
            insts.get(1).map(String::as_str),
            Some(*expected),
            "decoding `{input}`"
        );
    }
}

/// The decoded op of a single instruction.
fn op_of(input: &str) -> Op {
    let program = lower(&kernel(&format!("\t{input};")));
    let f = program.function_by_name("k").unwrap();
    let body = program.function(f).body.as_ref().unwrap();
    body.insts.values().nth(1).unwrap().op
}

#[test]
fn memory_loads_and_stores() {
    check(&[
        ("ld.param.u64 %rd1, [k_p0]", "ld.param.u64 %rd1, [k_p0]"),
        ("ld.global.f32 %f1, [%rd1+8]", "ld.global.f32 %f1, [%rd1+8]"),
        (
            "ld.global.f32 %f1, [%rd1+-8]",
            "ld.global.f32 %f1, [%rd1+-8]",
        ),
        ("ld.f32 %f1, [%rd1]", "ld.f32 %f1, [%rd1]"),
        (
            "ld.shared.v4.f32 {%f1, %f2, %f3, %f4}, [sbuf+16]",
            "ld.shared.v4.f32 {%f1, %f2, %f3, %f4}, [sbuf+16]",
        ),
        (
            "ld.shared::cta.u32 %r1, [sbuf]",
            "ld.shared.u32 %r1, [sbuf]",
        ),
        (
            "ld.global.nc.v2.f32 {%f1, %f2}, [%rd2]",
            "ld.global.nc.v2.f32 {%f1, %f2}, [%rd2]",
        ),
        (
            "ld.global.nc.L1::no_allocate.L2::256B.f32 %f1, [%rd2]",
            "ld.global.nc.L1::no_allocate.L2::256B.f32 %f1, [%rd2]",
        ),
        (
            "ld.global.cg.u32 %r1, [%rd1]",
            "ld.global.cg.u32 %r1, [%rd1]",
        ),
        (
            "ld.global.L2::cache_hint.u32 %r1, [%rd1], %rd2",
            "ld.global.L2::cache_hint.u32 %r1, [%rd1], %rd2",
        ),
        (
            "ld.volatile.shared.u32 %r1, [%rd1]",
            "ld.volatile.shared.u32 %r1, [%rd1]",
        ),
        (
            "ld.relaxed.gpu.global.u32 %r1, [%rd1]",
            "ld.relaxed.gpu.global.u32 %r1, [%rd1]",
        ),
        (
            "ld.acquire.sys.u32 %r1, [%rd1]",
            "ld.acquire.sys.u32 %r1, [%rd1]",
        ),
        ("ld.local.u8 %rs1, [%rd1]", "ld.local.u8 %rs1, [%rd1]"),
        ("ld.const.f32 %f1, [gbuf]", "ld.const.f32 %f1, [gbuf]"),
        ("ld.global.u32 %r1, [1024]", "ld.global.u32 %r1, [1024]"),
        ("ldu.global.f32 %f1, [%rd1]", "ldu.global.f32 %f1, [%rd1]"),
        ("st.global.f32 [%rd1], %f1", "st.global.f32 [%rd1], %f1"),
        (
            "st.shared.v2.u32 [sbuf], {%r1, %r2}",
            "st.shared.v2.u32 [sbuf], {%r1, %r2}",
        ),
        (
            "st.global.v4.f32 [%rd1], {%f1, %f2, %f3, 0f00000000}",
            "st.global.v4.f32 [%rd1], {%f1, %f2, %f3, 0f00000000}",
        ),
        (
            "st.volatile.global.u32 [%rd1], 7",
            "st.volatile.global.u32 [%rd1], 7",
        ),
        (
            "st.release.gpu.global.u32 [%rd1], %r1",
            "st.release.gpu.global.u32 [%rd1], %r1",
        ),
        (
            "st.global.wb.u32 [%rd1], %r1",
            "st.global.wb.u32 [%rd1], %r1",
        ),
        ("prefetch.global.L2 [%rd1]", "prefetch.global.L2 [%rd1]"),
        (
            "prefetch.global.L2::evict_last [%rd1]",
            "prefetch.global.L2::evict_last [%rd1]",
        ),
        ("prefetchu.L1 [%rd1]", "prefetchu.L1 [%rd1]"),
    ]);
}

#[test]
fn address_conversion_and_moves() {
    check(&[
        (
            "cvta.to.global.u64 %rd1, %rd2",
            "cvta.to.global.u64 %rd1, %rd2",
        ),
        ("cvta.local.u64 %rd1, %rd2", "cvta.local.u64 %rd1, %rd2"),
        ("cvta.shared.u64 %rd1, sbuf", "cvta.shared.u64 %rd1, sbuf"),
        ("cvta.global.u64 %rd1, gbuf", "cvta.global.u64 %rd1, gbuf"),
        ("isspacep.shared %p1, %rd1", "isspacep.shared %p1, %rd1"),
        ("mov.u64 %rd1, sbuf", "mov.u64 %rd1, sbuf"),
        ("mov.u64 %rd1, gbuf+8", "mov.u64 %rd1, gbuf+8"),
        ("mov.u64 %rd1, callee", "mov.u64 %rd1, callee"),
        ("mov.u32 %r1, %tid.x", "mov.u32 %r1, %tid.x"),
        ("mov.u32 %r1, %ctaid.y", "mov.u32 %r1, %ctaid.y"),
        ("mov.u32 %r1, %laneid", "mov.u32 %r1, %laneid"),
        ("mov.u64 %rd1, %clock64", "mov.u64 %rd1, %clock64"),
        ("mov.u32 %r1, %lanemask_lt", "mov.u32 %r1, %lanemask_lt"),
        (
            "mov.u32 %r1, %dynamic_smem_size",
            "mov.u32 %r1, %dynamic_smem_size",
        ),
        ("mov.u32 %r1, %envreg3", "mov.u32 %r1, %envreg3"),
        (
            "mov.u32 %r1, %reserved_smem_offset_1",
            "mov.u32 %r1, %reserved_smem_offset_1",
        ),
        ("mov.u32 %r1, WARP_SZ", "mov.u32 %r1, 32"),
        ("add.s32 %r1, %r2, WARP_SZ-1", "add.s32 %r1, %r2, 31"),
        ("mov.u32 %r1, -1", "mov.u32 %r1, -1"),
        ("mov.f32 %f1, 0f3F800000", "mov.f32 %f1, 0f3F800000"),
        (
            "mov.f64 %fd1, 0d4008000000000000",
            "mov.f64 %fd1, 0d4008000000000000",
        ),
        ("mov.pred %p1, %p2", "mov.pred %p1, %p2"),
        ("mov.b64 %rd1, {%r1, %r2}", "mov.b64 %rd1, {%r1, %r2}"),
        ("mov.b64 {%r1, %r2}, %rd1", "mov.b64 {%r1, %r2}, %rd1"),
        ("mov.b32 %r1, {%rs1, %rs2}", "mov.b32 %r1, {%rs1, %rs2}"),
    ]);
}

#[test]
fn conversions() {
    check(&[
        ("cvt.rn.f32.s32 %f1, %r1", "cvt.rn.f32.s32 %f1, %r1"),
        ("cvt.rzi.s32.f32 %r1, %f1", "cvt.rzi.s32.f32 %r1, %f1"),
        ("cvt.rni.f32.f32 %f1, %f2", "cvt.rni.f32.f32 %f1, %f2"),
        ("cvt.f64.f32 %fd1, %f1", "cvt.f64.f32 %fd1, %f1"),
        ("cvt.rn.f32.f64 %f1, %fd1", "cvt.rn.f32.f64 %f1, %fd1"),
        (
            "cvt.rn.ftz.sat.f32.f64 %f1, %fd1",
            "cvt.rn.ftz.sat.f32.f64 %f1, %fd1",
        ),
        ("cvt.u64.u32 %rd1, %r1", "cvt.u64.u32 %rd1, %r1"),
        ("cvt.s64.s32 %rd1, %r1", "cvt.s64.s32 %rd1, %r1"),
        ("cvt.sat.u8.s32 %rs1, %r1", "cvt.sat.u8.s32 %rs1, %r1"),
        ("cvt.u16.u32 %rs1, %r1", "cvt.u16.u32 %rs1, %r1"),
        ("cvt.rn.f16.f32 %rs1, %f1", "cvt.rn.f16.f32 %rs1, %f1"),
        ("cvt.f32.f16 %f1, %rs1", "cvt.f32.f16 %f1, %rs1"),
        ("cvt.rn.bf16.f32 %rs1, %f1", "cvt.rn.bf16.f32 %rs1, %f1"),
        (
            "cvt.rn.f16x2.f32 %r1, %f1, %f2",
            "cvt.rn.f16x2.f32 %r1, %f1, %f2",
        ),
        (
            "cvt.rn.relu.bf16x2.f32 %r1, %f1, %f2",
            "cvt.rn.relu.bf16x2.f32 %r1, %f1, %f2",
        ),
        ("cvt.rna.tf32.f32 %r1, %f1", "cvt.rna.tf32.f32 %r1, %f1"),
        ("cvt.rpi.s64.f64 %rd1, %fd1", "cvt.rpi.s64.f64 %rd1, %fd1"),
    ]);
}

#[test]
fn integer_arithmetic() {
    check(&[
        ("add.s32 %r1, %r2, %r3", "add.s32 %r1, %r2, %r3"),
        ("add.sat.s32 %r1, %r2, 5", "add.sat.s32 %r1, %r2, 5"),
        ("add.cc.u32 %r1, %r2, %r3", "add.cc.u32 %r1, %r2, %r3"),
        ("addc.cc.u32 %r1, %r2, %r3", "addc.cc.u32 %r1, %r2, %r3"),
        ("addc.u32 %r1, %r2, %r3", "addc.u32 %r1, %r2, %r3"),
        ("sub.cc.u64 %rd1, %rd2, %rd3", "sub.cc.u64 %rd1, %rd2, %rd3"),
        ("subc.u32 %r1, %r2, %r3", "subc.u32 %r1, %r2, %r3"),
        ("mul.lo.s32 %r1, %r2, %r3", "mul.lo.s32 %r1, %r2, %r3"),
        ("mul.hi.u64 %rd1, %rd2, %rd3", "mul.hi.u64 %rd1, %rd2, %rd3"),
        ("mul.wide.s32 %rd1, %r2, 4", "mul.wide.s32 %rd1, %r2, 4"),
        (
            "mad.lo.s32 %r1, %r2, %r3, %r4",
            "mad.lo.s32 %r1, %r2, %r3, %r4",
        ),
        (
            "mad.wide.u32 %rd1, %r2, %r3, %rd4",
            "mad.wide.u32 %rd1, %r2, %r3, %rd4",
        ),
        (
            "mad.hi.sat.s32 %r1, %r2, %r3, %r4",
            "mad.hi.sat.s32 %r1, %r2, %r3, %r4",
        ),
        (
            "mad.lo.cc.u32 %r1, %r2, %r3, %r4",
            "mad.lo.cc.u32 %r1, %r2, %r3, %r4",
        ),
        (
            "madc.hi.cc.u32 %r1, %r2, %r3, %r4",
            "madc.hi.cc.u32 %r1, %r2, %r3, %r4",
        ),
        ("mul24.lo.u32 %r1, %r2, %r3", "mul24.lo.u32 %r1, %r2, %r3"),
        (
            "mad24.hi.sat.s32 %r1, %r2, %r3, %r4",
            "mad24.hi.sat.s32 %r1, %r2, %r3, %r4",
        ),
        ("sad.u32 %r1, %r2, %r3, %r4", "sad.u32 %r1, %r2, %r3, %r4"),
        ("div.s32 %r1, %r2, %r3", "div.s32 %r1, %r2, %r3"),
        ("div.u64 %rd1, %rd2, %rd3", "div.u64 %rd1, %rd2, %rd3"),
        ("rem.s32 %r1, %r2, %r3", "rem.s32 %r1, %r2, %r3"),
        ("abs.s32 %r1, %r2", "abs.s32 %r1, %r2"),
        ("neg.s64 %rd1, %rd2", "neg.s64 %rd1, %rd2"),
        ("min.u32 %r1, %r2, %r3", "min.u32 %r1, %r2, %r3"),
        ("max.s32 %r1, %r2, 0", "max.s32 %r1, %r2, 0"),
        ("max.relu.s32 %r1, %r2, %r3", "max.relu.s32 %r1, %r2, %r3"),
        ("popc.b32 %r1, %r2", "popc.b32 %r1, %r2"),
        ("popc.b64 %r1, %rd2", "popc.b64 %r1, %rd2"),
        ("clz.b32 %r1, %r2", "clz.b32 %r1, %r2"),
        ("brev.b32 %r1, %r2", "brev.b32 %r1, %r2"),
        ("bfind.u32 %r1, %r2", "bfind.u32 %r1, %r2"),
        (
            "bfind.shiftamt.s64 %r1, %rd2",
            "bfind.shiftamt.s64 %r1, %rd2",
        ),
        ("bfe.u32 %r1, %r2, 8, 4", "bfe.u32 %r1, %r2, 8, 4"),
        ("bfi.b32 %r1, %r2, %r3, 8, 4", "bfi.b32 %r1, %r2, %r3, 8, 4"),
        ("fns.b32 %r1, %r2, %r3, 1", "fns.b32 %r1, %r2, %r3, 1"),
        (
            "bmsk.clamp.b32 %r1, %r2, %r3",
            "bmsk.clamp.b32 %r1, %r2, %r3",
        ),
        ("bmsk.wrap.b32 %r1, 1, 2", "bmsk.wrap.b32 %r1, 1, 2"),
        (
            "dp4a.s32.s32 %r1, %r2, %r3, %r4",
            "dp4a.s32.s32 %r1, %r2, %r3, %r4",
        ),
        (
            "dp2a.lo.u32.s32 %r1, %r2, %r3, %r4",
            "dp2a.lo.u32.s32 %r1, %r2, %r3, %r4",
        ),
    ]);
}

#[test]
fn float_and_half_arithmetic() {
    check(&[
        ("add.f32 %f1, %f2, %f3", "add.f32 %f1, %f2, %f3"),
        (
            "add.rn.ftz.sat.f32 %f1, %f2, %f3",
            "add.rn.ftz.sat.f32 %f1, %f2, %f3",
        ),
        ("sub.rz.f64 %fd1, %fd2, %fd3", "sub.rz.f64 %fd1, %fd2, %fd3"),
        (
            "mul.rn.f32 %f1, %f2, 0f40000000",
            "mul.rn.f32 %f1, %f2, 0f40000000",
        ),
        (
            "mad.rn.f32 %f1, %f2, %f3, %f4",
            "mad.rn.f32 %f1, %f2, %f3, %f4",
        ),
        (
            "fma.rn.f32 %f1, %f2, %f3, %f4",
            "fma.rn.f32 %f1, %f2, %f3, %f4",
        ),
        (
            "fma.rn.ftz.sat.f32 %f1, %f2, %f3, %f4",
            "fma.rn.ftz.sat.f32 %f1, %f2, %f3, %f4",
        ),
        (
            "fma.rm.f64 %fd1, %fd2, %fd3, %fd4",
            "fma.rm.f64 %fd1, %fd2, %fd3, %fd4",
        ),
        ("div.rn.f32 %f1, %f2, %f3", "div.rn.f32 %f1, %f2, %f3"),
        (
            "div.approx.ftz.f32 %f1, %f2, %f3",
            "div.approx.ftz.f32 %f1, %f2, %f3",
        ),
        ("div.full.f32 %f1, %f2, %f3", "div.full.f32 %f1, %f2, %f3"),
        ("div.rn.f64 %fd1, %fd2, %fd3", "div.rn.f64 %fd1, %fd2, %fd3"),
        ("abs.ftz.f32 %f1, %f2", "abs.ftz.f32 %f1, %f2"),
        ("neg.f64 %fd1, %fd2", "neg.f64 %fd1, %fd2"),
        ("min.NaN.f32 %f1, %f2, %f3", "min.NaN.f32 %f1, %f2, %f3"),
        ("max.ftz.f32 %f1, %f2, %f3", "max.ftz.f32 %f1, %f2, %f3"),
        (
            "max.xorsign.abs.f32 %f1, %f2, %f3",
            "max.xorsign.abs.f32 %f1, %f2, %f3",
        ),
        ("rcp.rn.f32 %f1, %f2", "rcp.rn.f32 %f1, %f2"),
        (
            "rcp.approx.ftz.f64 %fd1, %fd2",
            "rcp.approx.ftz.f64 %fd1, %fd2",
        ),
        ("sqrt.rn.f64 %fd1, %fd2", "sqrt.rn.f64 %fd1, %fd2"),
        (
            "sqrt.approx.ftz.f32 %f1, %f2",
            "sqrt.approx.ftz.f32 %f1, %f2",
        ),
        ("rsqrt.approx.f32 %f1, %f2", "rsqrt.approx.f32 %f1, %f2"),
        (
            "rsqrt.approx.ftz.f64 %fd1, %fd2",
            "rsqrt.approx.ftz.f64 %fd1, %fd2",
        ),
        ("sin.approx.ftz.f32 %f1, %f2", "sin.approx.ftz.f32 %f1, %f2"),
        ("cos.approx.f32 %f1, %f2", "cos.approx.f32 %f1, %f2"),
        ("lg2.approx.ftz.f32 %f1, %f2", "lg2.approx.ftz.f32 %f1, %f2"),
        ("ex2.approx.f32 %f1, %f2", "ex2.approx.f32 %f1, %f2"),
        ("tanh.approx.f32 %f1, %f2", "tanh.approx.f32 %f1, %f2"),
        ("copysign.f32 %f1, %f2, %f3", "copysign.f32 %f1, %f2, %f3"),
        ("testp.finite.f32 %p1, %f1", "testp.finite.f32 %p1, %f1"),
        (
            "testp.notanumber.f64 %p1, %fd1",
            "testp.notanumber.f64 %p1, %fd1",
        ),
        ("add.rn.f16 %rs1, %rs2, %rs3", "add.rn.f16 %rs1, %rs2, %rs3"),
        ("add.f16x2 %r1, %r2, %r3", "add.f16x2 %r1, %r2, %r3"),
        (
            "mul.rn.bf16 %rs1, %rs2, %rs3",
            "mul.rn.bf16 %rs1, %rs2, %rs3",
        ),
        (
            "fma.rn.f16x2 %r1, %r2, %r3, %r4",
            "fma.rn.f16x2 %r1, %r2, %r3, %r4",
        ),
        (
            "fma.rn.relu.bf16 %rs1, %rs2, %rs3, %rs4",
            "fma.rn.relu.bf16 %rs1, %rs2, %rs3, %rs4",
        ),
        ("neg.bf16x2 %r1, %r2", "neg.bf16x2 %r1, %r2"),
        ("abs.f16 %rs1, %rs2", "abs.f16 %rs1, %rs2"),
        ("min.NaN.f16x2 %r1, %r2, %r3", "min.NaN.f16x2 %r1, %r2, %r3"),
        ("ex2.approx.f16x2 %r1, %r2", "ex2.approx.f16x2 %r1, %r2"),
        ("tanh.approx.bf16 %rs1, %rs2", "tanh.approx.bf16 %rs1, %rs2"),
    ]);
}

#[test]
fn comparison_selection_logic() {
    check(&[
        ("setp.lt.s32 %p1, %r1, %r2", "setp.lt.s32 %p1, %r1, %r2"),
        ("setp.ne.b16 %p1, %rs1, 0", "setp.ne.b16 %p1, %rs1, 0"),
        (
            "setp.gtu.ftz.f32 %p1, %f1, %f2",
            "setp.gtu.ftz.f32 %p1, %f1, %f2",
        ),
        (
            "setp.lt.and.f32 %p1|%p2, %f1, %f2, !%p3",
            "setp.lt.and.f32 %p1|%p2, %f1, %f2, !%p3",
        ),
        (
            "setp.eq.or.s32 %p1, %r1, 3, %p2",
            "setp.eq.or.s32 %p1, %r1, 3, %p2",
        ),
        ("setp.hs.u64 %p1, %rd1, %rd2", "setp.hs.u64 %p1, %rd1, %rd2"),
        (
            "setp.nan.f64 %p1, %fd1, %fd1",
            "setp.nan.f64 %p1, %fd1, %fd1",
        ),
        (
            "setp.eq.f16x2 %p1|%p2, %r1, %r2",
            "setp.eq.f16x2 %p1|%p2, %r1, %r2",
        ),
        (
            "set.lt.u32.f32 %r1, %f1, %f2",
            "set.lt.u32.f32 %r1, %f1, %f2",
        ),
        (
            "set.eq.and.u32.s32 %r1, %r2, %r3, %p1",
            "set.eq.and.u32.s32 %r1, %r2, %r3, %p1",
        ),
        ("selp.b32 %r1, %r2, %r3, %p1", "selp.b32 %r1, %r2, %r3, %p1"),
        (
            "selp.f32 %f1, 0f3F800000, %f2, !%p1",
            "selp.f32 %f1, 0f3F800000, %f2, !%p1",
        ),
        (
            "slct.f32.s32 %f1, %f2, %f3, %r1",
            "slct.f32.s32 %f1, %f2, %f3, %r1",
        ),
        ("and.b32 %r1, %r2, 255", "and.b32 %r1, %r2, 255"),
        ("and.pred %p1, %p2, %p3", "and.pred %p1, %p2, %p3"),
        ("or.b64 %rd1, %rd2, %rd3", "or.b64 %rd1, %rd2, %rd3"),
        ("xor.pred %p1, %p2, %p3", "xor.pred %p1, %p2, %p3"),
        ("not.b32 %r1, %r2", "not.b32 %r1, %r2"),
        ("not.pred %p1, %p2", "not.pred %p1, %p2"),
        ("cnot.b32 %r1, %r2", "cnot.b32 %r1, %r2"),
        ("shl.b32 %r1, %r2, 2", "shl.b32 %r1, %r2, 2"),
        ("shr.s32 %r1, %r2, %r3", "shr.s32 %r1, %r2, %r3"),
        ("shr.u64 %rd1, %rd2, 63", "shr.u64 %rd1, %rd2, 63"),
        (
            "lop3.b32 %r1, %r2, %r3, %r4, 150",
            "lop3.b32 %r1, %r2, %r3, %r4, 150",
        ),
        (
            "shf.l.wrap.b32 %r1, %r2, %r3, %r4",
            "shf.l.wrap.b32 %r1, %r2, %r3, %r4",
        ),
        (
            "shf.r.clamp.b32 %r1, %r2, %r3, 8",
            "shf.r.clamp.b32 %r1, %r2, %r3, 8",
        ),
        (
            "prmt.b32 %r1, %r2, %r3, 0x3210",
            "prmt.b32 %r1, %r2, %r3, 12816",
        ),
        (
            "prmt.b32.f4e %r1, %r2, %r3, %r4",
            "prmt.b32.f4e %r1, %r2, %r3, %r4",
        ),
    ]);
}

#[test]
fn control_flow() {
    check(&[
        ("bra $L_target", "bra $L_target"),
        ("bra.uni $L_target", "bra.uni $L_target"),
        ("@%p1 bra $L_target", "@%p1 bra $L_target"),
        ("@!%p1 bra.uni $L_target", "@!%p1 bra.uni $L_target"),
        ("exit", "exit"),
        ("trap", "trap"),
        ("brkpt", "brkpt"),
        ("@%p2 ret", "@%p2 ret"),
        ("call.uni callee, (%r1)", "call.uni callee, (%r1)"),
        ("call (%r1), callee, (%r2)", "call (%r1), callee, (%r2)"),
        ("nanosleep.u32 100", "nanosleep.u32 100"),
    ]);
}

#[test]
fn synchronisation_and_atomics() {
    check(&[
        ("bar.sync 0", "barrier.sync.aligned 0"),
        ("bar.sync 1, 64", "barrier.sync.aligned 1, 64"),
        ("barrier.sync 0", "barrier.sync 0"),
        ("barrier.sync.aligned 0", "barrier.sync.aligned 0"),
        ("bar.arrive 1, 64", "barrier.arrive.aligned 1, 64"),
        (
            "bar.red.popc.u32 %r1, 0, %p1",
            "barrier.red.popc.aligned.u32 %r1, 0, %p1",
        ),
        (
            "bar.red.and.pred %p1, 0, 64, !%p2",
            "barrier.red.and.aligned.pred %p1, 0, 64, !%p2",
        ),
        ("bar.warp.sync -1", "bar.warp.sync -1"),
        ("membar.gl", "membar.gl"),
        ("membar.cta", "membar.cta"),
        ("fence.acq_rel.gpu", "fence.acq_rel.gpu"),
        ("fence.sc.sys", "fence.sc.sys"),
        ("fence.proxy.alias", "fence.proxy.alias"),
        ("griddepcontrol.wait", "griddepcontrol.wait"),
        (
            "griddepcontrol.launch_dependents",
            "griddepcontrol.launch_dependents",
        ),
        (
            "atom.global.add.u32 %r1, [%rd1], 1",
            "atom.global.add.u32 %r1, [%rd1], 1",
        ),
        (
            "atom.add.f32 %f1, [%rd1], %f2",
            "atom.add.f32 %f1, [%rd1], %f2",
        ),
        (
            "atom.shared.add.f64 %fd1, [%rd1], %fd2",
            "atom.shared.add.f64 %fd1, [%rd1], %fd2",
        ),
        (
            "atom.global.cas.b32 %r1, [%rd1], %r2, %r3",
            "atom.global.cas.b32 %r1, [%rd1], %r2, %r3",
        ),
        (
            "atom.global.exch.b64 %rd1, [%rd2], %rd3",
            "atom.global.exch.b64 %rd1, [%rd2], %rd3",
        ),
        (
            "atom.global.inc.u32 %r1, [%rd1], 100",
            "atom.global.inc.u32 %r1, [%rd1], 100",
        ),
        (
            "atom.global.dec.u32 %r1, [%rd1], 100",
            "atom.global.dec.u32 %r1, [%rd1], 100",
        ),
        (
            "atom.global.max.s32 %r1, [%rd1], %r2",
            "atom.global.max.s32 %r1, [%rd1], %r2",
        ),
        (
            "atom.shared.min.u64 %rd1, [%rd2], %rd3",
            "atom.shared.min.u64 %rd1, [%rd2], %rd3",
        ),
        (
            "atom.global.and.b32 %r1, [%rd1], %r2",
            "atom.global.and.b32 %r1, [%rd1], %r2",
        ),
        (
            "atom.global.add.noftz.f16 %rs1, [%rd1], %rs2",
            "atom.global.add.noftz.f16 %rs1, [%rd1], %rs2",
        ),
        (
            "atom.relaxed.gpu.global.add.u32 %r1, [%rd1], 1",
            "atom.relaxed.gpu.global.add.u32 %r1, [%rd1], 1",
        ),
        (
            "atom.acq_rel.sys.cas.b64 %rd1, [%rd2], %rd3, %rd4",
            "atom.acq_rel.sys.cas.b64 %rd1, [%rd2], %rd3, %rd4",
        ),
        (
            "red.global.add.u32 [%rd1], 1",
            "red.global.add.u32 [%rd1], 1",
        ),
        (
            "red.release.gpu.global.add.f32 [%rd1], %f1",
            "red.release.gpu.global.add.f32 [%rd1], %f1",
        ),
        (
            "red.shared.or.b32 [sbuf], %r1",
            "red.shared.or.b32 [sbuf], %r1",
        ),
    ]);
}

#[test]
fn warp_level_primitives() {
    check(&[
        (
            "shfl.sync.down.b32 %r1, %r2, 1, 31, -1",
            "shfl.sync.down.b32 %r1, %r2, 1, 31, -1",
        ),
        (
            "shfl.sync.bfly.b32 %r1|%p1, %r2, 16, 31, %r3",
            "shfl.sync.bfly.b32 %r1|%p1, %r2, 16, 31, %r3",
        ),
        (
            "shfl.sync.idx.b32 %r1, %r2, %r3, 31, -1",
            "shfl.sync.idx.b32 %r1, %r2, %r3, 31, -1",
        ),
        (
            "shfl.sync.up.b32 %r1, %r2, 1, 0, -1",
            "shfl.sync.up.b32 %r1, %r2, 1, 0, -1",
        ),
        (
            "vote.sync.ballot.b32 %r1, %p1, -1",
            "vote.sync.ballot.b32 %r1, %p1, -1",
        ),
        (
            "vote.ballot.sync.b32 %r1, %p1, -1",
            "vote.sync.ballot.b32 %r1, %p1, -1",
        ),
        (
            "vote.sync.all.pred %p1, %p2, -1",
            "vote.sync.all.pred %p1, %p2, -1",
        ),
        (
            "vote.sync.any.pred %p1, !%p2, %r1",
            "vote.sync.any.pred %p1, !%p2, %r1",
        ),
        (
            "vote.sync.uni.pred %p1, %p2, -1",
            "vote.sync.uni.pred %p1, %p2, -1",
        ),
        (
            "match.any.sync.b32 %r1, %r2, -1",
            "match.any.sync.b32 %r1, %r2, -1",
        ),
        (
            "match.all.sync.b64 %r1|%p1, %rd2, -1",
            "match.all.sync.b64 %r1|%p1, %rd2, -1",
        ),
        (
            "redux.sync.add.u32 %r1, %r2, -1",
            "redux.sync.add.u32 %r1, %r2, -1",
        ),
        (
            "redux.sync.min.s32 %r1, %r2, -1",
            "redux.sync.min.s32 %r1, %r2, -1",
        ),
        (
            "redux.sync.xor.b32 %r1, %r2, -1",
            "redux.sync.xor.b32 %r1, %r2, -1",
        ),
        ("activemask.b32 %r1", "activemask.b32 %r1"),
    ]);
}

#[test]
fn async_copies_textures_and_surfaces() {
    check(&[
        (
            "cp.async.ca.shared.global [sbuf], [%rd1], 4",
            "cp.async.ca.shared.global [sbuf], [%rd1], 4",
        ),
        (
            "cp.async.cg.shared.global.L2::128B [%rd2], [%rd1], 16, %r1",
            "cp.async.cg.shared.global.L2::128B [%rd2], [%rd1], 16, %r1",
        ),
        ("cp.async.commit_group", "cp.async.commit_group"),
        ("cp.async.wait_group 1", "cp.async.wait_group 1"),
        ("cp.async.wait_all", "cp.async.wait_all"),
        (
            "tex.2d.v4.f32.f32 {%f1, %f2, %f3, %f4}, [%rd1, {%f5, %f6}]",
            "tex.2d.v4.f32.f32 {%f1, %f2, %f3, %f4}, [%rd1, {%f5, %f6}]",
        ),
        (
            "tex.level.1d.v4.s32.f32 {%r1, %r2, %r3, %r4}, [%rd1, {%f1}], %f2",
            "tex.level.1d.v4.s32.f32 {%r1, %r2, %r3, %r4}, [%rd1, {%f1}], %f2",
        ),
        (
            "suld.b.2d.v2.b32.trap {%r1, %r2}, [%rd1, {%r3, %r4}]",
            "suld.b.2d.v2.b32.trap {%r1, %r2}, [%rd1, {%r3, %r4}]",
        ),
        (
            "sust.b.1d.b32.clamp [%rd1, {%r1}], %r2",
            "sust.b.1d.b32.clamp [%rd1, {%r1}], %r2",
        ),
    ]);
}

#[test]
fn decoded_ops_carry_meanings() {
    assert_eq!(
        op_of("ld.global.nc.v4.f32 {%f1, %f2, %f3, %f4}, [%rd1]"),
        Op::Ld {
            mmio: false,
            order: None,
            scope: None,
            space: MemSpace::Global,
            cache: None,
            nc: true,
            l1: None,
            l2: None,
            hint: false,
            prefetch: None,
            vec: Some(VecWidth::V4),
            ty: Type::F32,
        }
    );
    assert_eq!(
        op_of("setp.lt.and.f32 %p1|%p2, %f1, %f2, !%p3"),
        Op::Setp {
            cmp: CmpOp::Lt,
            bool_op: Some(BoolOp::And),
            ftz: false,
            ty: Type::F32
        }
    );
    assert_eq!(
        op_of("atom.acq_rel.gpu.global.cas.b32 %r1, [%rd1], %r2, %r3"),
        Op::Atom {
            order: Some(MemOrder::AcqRel),
            scope: Some(MemScope::Gpu),
            space: MemSpace::Global,
            op: AtomOp::Cas,
            noftz: false,
            hint: false,
            ty: Type::B32,
        }
    );
    assert_eq!(
        op_of("shfl.sync.bfly.b32 %r1, %r2, 1, 31, -1"),
        Op::ShflSync {
            mode: ShflMode::Bfly,
            ty: Type::B32
        }
    );
    assert_eq!(
        op_of("vote.sync.ballot.b32 %r1, %p1, -1"),
        Op::VoteSync {
            mode: VoteMode::Ballot,
            ty: Type::B32
        }
    );
    assert_eq!(
        op_of("bar.sync 0"),
        Op::Barrier {
            cta: false,
            mode: BarrierMode::Sync,
            red_op: None,
            aligned: true,
            ty: None
        }
    );
    assert_eq!(
        op_of("cvt.rzi.s32.f32 %r1, %f1"),
        Op::Cvt {
            irnd: Some(IntRounding::Rzi),
            rounding: None,
            ftz: false,
            sat: false,
            relu: false,
            satfinite: false,
            dty: Type::S32,
            sty: Type::F32
        }
    );
    assert_eq!(
        op_of("mul.wide.u32 %rd1, %r1, %r2"),
        Op::Mul {
            mode: Some(MulMode::Wide),
            rounding: None,
            ftz: false,
            sat: false,
            ty: Type::U32
        }
    );
}

/// Operands keep their positions: an omitted optional operand is `Absent`, so the
/// emulator reads `bar.red`'s predicate at position 3 whether or not a thread count is
/// given.
#[test]
fn omitted_optional_operands_keep_slot_positions() {
    let program = lower(&kernel(
        "\tbar.red.popc.u32 %r1, 0, %p1;\n\tbar.sync 0;\n\tcall.uni callee, (%r1);",
    ));
    let f = program.function_by_name("k").unwrap();
    let body = program.function(f).body.as_ref().unwrap();
    let ids: Vec<_> = body.insts.keys().collect();
    let red = body.operands_of(ids[1]);
    assert_eq!(red.len(), 4);
    assert!(matches!(red[0], Operand::Reg(_)));
    assert!(matches!(red[1], Operand::Imm(i) if i.bits == 0));
    assert_eq!(red[2], Operand::Absent);
    assert!(matches!(red[3], Operand::Reg(r) if body.regs[r].name == "%p1"));
    let sync = body.operands_of(ids[2]);
    assert_eq!(sync.len(), 2);
    assert_eq!(sync[1], Operand::Absent);
    let call = body.operands_of(ids[3]);
    assert_eq!(call.len(), 4);
    assert_eq!(call[0], Operand::Absent);
    assert!(matches!(call[1], Operand::Func(f) if program.function(f).name == "callee"));
    assert!(matches!(call[2], Operand::List(l) if l.len == 1));
    assert_eq!(call[3], Operand::Absent);
}

#[test]
fn literals_keep_their_bits() {
    let program = lower(&kernel(
        "\tmov.f32 %f1, 0fBF800000;\n\tmov.u64 %rd1, -2;\n\tmov.f64 %fd1, 0d3FF0000000000000;",
    ));
    let f = program.function_by_name("k").unwrap();
    let body = program.function(f).body.as_ref().unwrap();
    let imm = |i: usize| match body.operands_of(body.insts.keys().nth(i).unwrap())[1] {
        Operand::Imm(imm) => imm,
        other => panic!("expected a literal, found {other:?}"),
    };
    assert_eq!((imm(1).ty, imm(1).bits), (Type::F32, 0xBF80_0000));
    assert_eq!((imm(2).ty, imm(2).bits), (Type::B64, (-2i64) as u64));
    assert_eq!(imm(2).bits_as(Type::U32), 0xFFFF_FFFE);
    assert_eq!((imm(3).ty, imm(3).bits), (Type::F64, 1.0f64.to_bits()));
}

#[test]
fn matrix_and_mbarrier_instructions_as_nvcc_writes_them() {
    check(&[
        (
            "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%f1, %f2, %f3, %f4}, {%r1, %r2, %r3, %r4}, {%r5, %r6}, {%f5, %f6, %f7, %f8}",
            "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%f1, %f2, %f3, %f4}, {%r1, %r2, %r3, %r4}, {%r5, %r6}, {%f5, %f6, %f7, %f8}",
        ),
        (
            "mma.sync.aligned.m16n8k32.row.col.satfinite.s32.s8.s8.s32 {%r1, %r2, %r3, %r4}, {%r5, %r6, %r7, %r8}, {%r0, %r5}, {%r1, %r2, %r3, %r4}",
            "mma.sync.aligned.m16n8k32.row.col.satfinite.s32.s8.s8.s32 {%r1, %r2, %r3, %r4}, {%r5, %r6, %r7, %r8}, {%r0, %r5}, {%r1, %r2, %r3, %r4}",
        ),
        (
            "ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 {%r1, %r2, %r3, %r4}, [%r5]",
            "ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 {%r1, %r2, %r3, %r4}, [%r5]",
        ),
        (
            "stmatrix.sync.aligned.m8n8.x1.shared.b16 [%r5], {%r1}",
            "stmatrix.sync.aligned.m8n8.x1.shared.b16 [%r5], {%r1}",
        ),
        (
            "mbarrier.init.shared.b64 [%r1], %r2",
            "mbarrier.init.shared.b64 [%r1], %r2",
        ),
        (
            "mbarrier.arrive.shared::cta.b64 %rd1, [%r1], %r2",
            "mbarrier.arrive.shared.b64 %rd1, [%r1], %r2",
        ),
        (
            "mbarrier.arrive.expect_tx.release.cta.shared.b64 _, [%r1], %r2",
            "mbarrier.arrive.expect_tx.release.cta.shared.b64 _, [%r1], %r2",
        ),
        (
            "mbarrier.try_wait.parity.shared.b64 %p1, [%r1], %r2",
            "mbarrier.try_wait.parity.shared.b64 %p1, [%r1], %r2",
        ),
        (
            "mbarrier.test_wait.shared.b64 %p1, [%r1], %rd1",
            "mbarrier.test_wait.shared.b64 %p1, [%r1], %rd1",
        ),
        (
            "cp.async.mbarrier.arrive.noinc.shared.b64 [%r1]",
            "cp.async.mbarrier.arrive.noinc.shared.b64 [%r1]",
        ),
        (
            "wmma.load.a.sync.aligned.row.m16n16k16.global.f16 {%r1, %r2, %r3, %r4, %r5, %r6, %r7, %r8}, [%rd1], %r0",
            "wmma.load.a.sync.aligned.row.m16n16k16.global.f16 {%r1, %r2, %r3, %r4, %r5, %r6, %r7, %r8}, [%rd1], %r0",
        ),
    ]);
    assert!(matches!(
        op_of(
            "mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32 {%f1, %f2, %f3, %f4}, {%r1, %r2, %r3, %r4}, {%r5, %r6}, {%f5, %f6, %f7, %f8}"
        ),
        Op::Mma {
            shape: MatrixShape::M16n8k8,
            aty: Type::Tf32,
            ..
        }
    ));
}
