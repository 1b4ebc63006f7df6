//! Cooperative launches: every block is resident at once, so the grid-wide barrier
//! (`__warpcheck_grid_sync`, what warpcheck's `cooperative_groups` header makes of
//! `this_grid().sync()`) orders all blocks; a barrier that can never complete is a
//! deadlock fault.

use crate::common;
use common::*;
use warpcheck_emu::{FaultKind, GlobalMemory, LaunchConfig, WaitKind, run};

/// clang 14's PTX (-O3) of
/// ```cuda
/// __global__ void neighbours(unsigned *out, int exit_block) {
///   unsigned b = blockIdx.x, n = gridDim.x;
///   if ((int)b == exit_block) return;
///   if (threadIdx.x == 0) out[b] = b + 1;
///   cg::this_grid().sync();
///   if (threadIdx.x == 0) out[n + b] = out[(b + 1) % n];
/// }
/// ```
const NEIGHBOURS: &str = r#"
.version 7.0
.target sm_80
.address_size 64
.func _ZN18cooperative_groups7detailsL12grid_barrierEv
()
;
.extern .func __warpcheck_grid_sync
()
;
.visible .entry _Z10neighboursPji(
	.param .u64 _Z10neighboursPji_param_0,
	.param .u32 _Z10neighboursPji_param_1
)
{
	.reg .pred 	%p<4>;
	.reg .b32 	%r<9>;
	.reg .b64 	%rd<9>;
	ld.param.u32 	%r5, [_Z10neighboursPji_param_1];
	mov.u32 	%r1, %ctaid.x;
	setp.eq.s32 	%p1, %r1, %r5;
	@%p1 bra 	LBB0_5;
	ld.param.u64 	%rd3, [_Z10neighboursPji_param_0];
	cvta.to.global.u64 	%rd1, %rd3;
	mov.u32 	%r3, %tid.x;
	setp.ne.s32 	%p2, %r3, 0;
	add.s32 	%r4, %r1, 1;
	@%p2 bra 	LBB0_3;
	mul.wide.u32 	%rd4, %r1, 4;
	add.s64 	%rd2, %rd1, %rd4;
	st.global.u32 	[%rd2], %r4;
LBB0_3:
	{ // callseq 0, 0
	.reg .b32 temp_param_reg;
	call.uni 
	_ZN18cooperative_groups7detailsL12grid_barrierEv, 
	(
	);
	} // callseq 0
	@%p2 bra 	LBB0_5;
	mov.u32 	%r2, %nctaid.x;
	rem.u32 	%r6, %r4, %r2;
	mul.wide.u32 	%rd5, %r6, 4;
	add.s64 	%rd6, %rd1, %rd5;
	ld.global.u32 	%r7, [%rd6];
	add.s32 	%r8, %r2, %r1;
	mul.wide.u32 	%rd7, %r8, 4;
	add.s64 	%rd8, %rd1, %rd7;
	st.global.u32 	[%rd8], %r7;
LBB0_5:
	ret;
}
.func _ZN18cooperative_groups7detailsL12grid_barrierEv()
{
	bar.sync 	0;
	{ // callseq 1, 0
	.reg .b32 temp_param_reg;
	call.uni 
	__warpcheck_grid_sync, 
	(
	);
	} // callseq 1
	bar.sync 	0;
	ret;
}
"#;

/// Runs `neighbours` on `blocks` blocks of 64 threads; returns the output and the faults.
fn neighbours(blocks: u32, exit_block: i32, cooperative: bool) -> (Vec<u32>, Vec<FaultKind>) {
    let p = lower_ptx(NEIGHBOURS);
    let k = kernel(&p, "_Z10neighboursPji");
    let mut m = GlobalMemory::new();
    let out = buf_u32(&mut m, &vec![0; 2 * blocks as usize]);
    let prm = params(&p, k, &[A::Ptr(out), A::I32(exit_block)]);
    let config = LaunchConfig {
        cooperative,
        ..config([blocks, 1, 1], [64, 1, 1])
    };
    let o = run(&p, k, &prm, &mut m, &config).unwrap();
    let faults = o.faults.into_iter().map(|f| f.kind).collect();
    (read_u32(&m, out, 2 * blocks as usize), faults)
}

fn grid_waiters(kind: &FaultKind) -> Vec<bool> {
    match kind {
        FaultKind::Deadlock { waiting, .. } => waiting
            .iter()
            .filter_map(|w| match w.what {
                WaitKind::GridSync { cooperative } => Some(cooperative),
                _ => None,
            })
            .collect(),
        _ => Vec::new(),
    }
}

#[test]
fn every_block_sees_the_others_writes_after_the_grid_barrier() {
    let (out, faults) = neighbours(5, -1, true);
    assert!(faults.is_empty(), "{faults:?}");
    // Block b reads what block b + 1 (which runs after it) wrote before the barrier.
    assert_eq!(out, [1, 2, 3, 4, 5, 2, 3, 4, 5, 1]);
}

#[test]
fn a_single_block_passes_the_barrier_in_any_launch() {
    let (out, faults) = neighbours(1, -1, false);
    assert!(faults.is_empty(), "{faults:?}");
    assert_eq!(out, [1, 1]);
}

#[test]
fn a_grid_barrier_outside_a_cooperative_launch_deadlocks() {
    let (_, faults) = neighbours(3, -1, false);
    assert_eq!(faults.len(), 3, "{faults:?}");
    for f in &faults {
        let waiters = grid_waiters(f);
        assert!(!waiters.is_empty() && waiters.iter().all(|&c| !c), "{f:?}");
        assert!(f.to_string().contains("not cooperative"), "{f}");
    }
}

#[test]
fn a_block_that_exits_leaves_the_others_waiting() {
    let (out, faults) = neighbours(4, 2, true);
    // Blocks 0, 1 and 3 wrote, then wait for block 2 for ever.
    assert_eq!(&out[..4], [1, 2, 0, 4]);
    assert_eq!(&out[4..], [0, 0, 0, 0]);
    assert_eq!(faults.len(), 3, "{faults:?}");
    for f in &faults {
        assert!(grid_waiters(f).iter().all(|&c| c), "{f:?}");
        assert!(f.to_string().contains("exited"), "{f}");
    }
}
