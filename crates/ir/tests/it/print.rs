//! The inspection printer (`warpcheck ir FILE --kernel K`), pinned by a snapshot.

use crate::common;

use common::{HEADER, check_invariants, lower};

const KERNEL: &str = r#".visible .entry _Z9reduceSumPfS_(
	.param .u64 .ptr .global .align 4 _Z9reduceSumPfS__param_0,
	.param .u64 _Z9reduceSumPfS__param_1
)
.maxntid 256, 1, 1
{
	.reg .pred 	%p<3>;
	.reg .b32 	%r<6>;
	.reg .f32 	%f<4>;
	.reg .b64 	%rd<6>;
	.shared .align 4 .b8 _ZZ9reduceSumPfS_E5sdata[1024];
	.loc	1 12 0
	ld.param.u64 	%rd1, [_Z9reduceSumPfS__param_0];
	cvta.to.global.u64 	%rd2, %rd1;
	mov.u32 	%r1, %tid.x;
	mul.wide.u32 	%rd3, %r1, 4;
	add.s64 	%rd4, %rd2, %rd3;
	.loc	1 15 14
	ld.global.f32 	%f1, [%rd4];
	mov.u64 	%rd5, _ZZ9reduceSumPfS_E5sdata;
	add.s64 	%rd5, %rd5, %rd3;
	st.shared.f32 	[%rd5], %f1;
	.loc	1 16 3
	bar.sync 	0;
	mov.u32 	%r2, 128;
$L__BB0_1:
	.loc	1 18 11
	setp.ge.u32 	%p1, %r1, %r2;
	@%p1 bra 	$L__BB0_3;
	.loc	1 18 28
	ld.shared.f32 	%f2, [%rd5+512];
	ld.shared.f32 	%f3, [%rd5];
	add.f32 	%f3, %f2, %f3;
	st.shared.f32 	[%rd5], %f3;
$L__BB0_3:
	.loc	1 19 5
	bar.sync 	0;
	shr.u32 	%r2, %r2, 1;
	setp.ne.s32 	%p2, %r2, 0;
	@%p2 bra 	$L__BB0_1;
	.loc	1 22 1
	ret;
}
	.file	1 "reduce.cu"
"#;

#[test]
fn print_function_shows_signature_blocks_and_analyses() {
    let program = lower(&format!("{HEADER}{KERNEL}"));
    check_invariants(&program);
    let f = program.function_by_name("reduceSum").unwrap();
    insta::assert_snapshot!(warpcheck_ir::print_function(&program, f));
}
