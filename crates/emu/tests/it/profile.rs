//! The per-instruction profile ([`warpcheck_emu::profile`]): counts that add up to the
//! launch's totals, a loop body counted once per iteration, and the same profile with one
//! host thread or several.

use crate::common;
use common::*;
use warpcheck_emu::profile::{ExecCount, Profiled};
use warpcheck_emu::{GlobalMemory, LaunchConfig, NoObservers, run_observed};

const HEADER: &str = ".version 8.0\n.target sm_80\n.address_size 64\n";

/// `k(out, n)`: each thread with tid < n adds 1 to `out[tid]` three times in a loop.
const LOOP: &str = ".visible .entry k(.param .u64 pout, .param .u32 pn) {\n\
 .reg .pred %p<3>;\n .reg .b32 %r<8>;\n .reg .b64 %rd<6>;\n\
 ld.param.u64 %rd1, [pout];\n ld.param.u32 %r1, [pn];\n\
 mov.u32 %r2, %tid.x;\n mov.u32 %r6, %ctaid.x;\n mov.u32 %r7, %ntid.x;\n mad.lo.u32 %r2, %r6, %r7, %r2;\n\
 setp.ge.u32 %p1, %r2, %r1;\n @%p1 bra $done;\n\
 mul.wide.u32 %rd2, %r2, 4;\n add.s64 %rd3, %rd1, %rd2;\n mov.u32 %r3, 0;\n\
 $loop:\n ld.global.u32 %r4, [%rd3];\n add.u32 %r4, %r4, 1;\n st.global.u32 [%rd3], %r4;\n\
 add.u32 %r3, %r3, 1;\n setp.lt.u32 %p2, %r3, 3;\n @%p2 bra $loop;\n\
 $done:\n ret;\n}\n";

fn profile(threads: usize) -> (Vec<ExecCount>, warpcheck_emu::Stats, Vec<u32>) {
    let p = lower_ptx(&format!("{HEADER}{LOOP}"));
    let k = kernel(&p, "k");
    let mut m = GlobalMemory::new();
    let out = buf_u32(&mut m, &[0; 256]);
    let mut c = LaunchConfig::new([4, 1, 1], [64, 1, 1]);
    c.threads = threads;
    let mut profiled = Profiled::new(NoObservers);
    let params = params(&p, k, &[A::Ptr(out), A::U32(200)]);
    let o = run_observed(&p, k, &params, &mut m, &c, &mut profiled).unwrap();
    assert!(o.faults.is_empty(), "{:?}", o.faults);
    let (_, counts) = profiled.into_parts();
    (counts, o.stats, read_u32(&m, out, 256))
}

#[test]
fn counts_add_up_to_the_launch_totals() {
    let (counts, stats, out) = profile(1);
    assert_eq!(&out[..200], &[3; 200][..]);
    assert_eq!(&out[200..], &[0; 56][..]);
    let threads: u64 = counts.iter().map(|c| c.threads).sum();
    let warps: u64 = counts.iter().map(|c| c.warps).sum();
    assert_eq!(threads, stats.lane_instructions);
    assert_eq!(warps, stats.warp_instructions);
}

#[test]
fn a_loop_body_counts_once_per_iteration() {
    let (counts, _, _) = profile(1);
    // The first instruction: every warp once (8 warps of 32 threads).
    assert_eq!((counts[0].warps, counts[0].threads), (8, 256));
    // The loop's load: 3 iterations of the 7 warps with a thread below n = 200 (the
    // 7th warp has 8 such threads).
    let load = counts
        .iter()
        .find(|c| c.threads == 3 * 200)
        .expect("the loop body's instructions");
    assert_eq!(load.warps, 3 * 7);
}

#[test]
fn host_threads_do_not_change_the_profile() {
    assert_eq!(profile(1).0, profile(2).0);
}
