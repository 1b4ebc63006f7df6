//! The barrier checker: divergent barriers found on the marked lines, early returns and
//! correct barrier code clean, `__syncwarp` masks and barrier counts.

use crate::common;

use common::*;
use warpcheck_report::Code;

const KERNELS: &str = r#"
__global__ void earlyReturn(float* out, const float* in, int n)
{
    __shared__ float s[64];
    int t = threadIdx.x;
    if (t >= n) return;
    s[t] = in[t];
    __syncthreads();
    out[t] = s[(t + 1) % n];
}

__global__ void divergentInLoop(float* out, const int* trips)
{
    __shared__ float s[64];
    int t = threadIdx.x;
    for (int i = 0; i < trips[t]; ++i) {
        s[t] = i;
        __syncthreads();
    }
    out[t] = s[t];
}

__global__ void badSyncwarp(int* out)
{
    int t = threadIdx.x;
    if (t < 16) {
        out[t] = t;
        __syncwarp(0xffff0000u);
    }
}

__global__ void namedBarrier(int* out)
{
    int t = threadIdx.x;
    out[t] = t;
    asm volatile("bar.sync 1, 48;" ::: "memory");
}
"#;

#[test]
fn divergent_barrier_is_found_on_the_marked_line() {
    let s = run_header("barrier_bug_divergent.cu", "sync");
    let findings = s.findings();
    let got: Vec<u32> = by_code(&findings, Code::BarrierDivergence)
        .iter()
        .map(|(l, _)| *l)
        .collect();
    let want: Vec<u32> = markers("barrier_bug_divergent.cu", Code::BarrierDivergence.name())
        .iter()
        .map(|(l, _)| *l)
        .collect();
    assert_eq!(got, want, "{findings:#?}");
    let f = by_code(&findings, Code::BarrierDivergence)[0].1;
    // Two blocks, each diverges once.
    assert_eq!(f.occurrences, 2);
    assert!(
        f.notes
            .iter()
            .any(|n| n.contains("thread (0,0,0) of block (0,0,0) arrived")),
        "{f:#?}"
    );
    assert!(
        f.notes.iter().any(|n| n.contains("ran past the barrier")),
        "{f:#?}"
    );
    assert!(f.related.iter().any(|r| r.location.line == 25), "{f:#?}");
    assert!(
        findings.iter().all(|f| f.code == Code::BarrierDivergence),
        "{findings:#?}"
    );
}

#[test]
fn barrier_left_waiting_by_a_deadlock_is_divergent() {
    let s = run_header_with("spin_wait_bug_deadlock.cu", "sync", Some(1_000_000));
    let findings = s.findings();
    let got: Vec<u32> = by_code(&findings, Code::BarrierDivergence)
        .iter()
        .map(|(l, _)| *l)
        .collect();
    assert_eq!(got, vec![30], "{findings:#?}");
}

#[test]
fn early_return_before_a_barrier_is_clean() {
    let mut s = Session::new(compile_source("sync_kernels", KERNELS), "sync");
    let inp = s.f32s("in", &[1.0; 64]);
    let out = s.zeros("out", 256);
    // Threads 40..63 return before the barrier.
    let outcome = s.launch(
        "earlyReturn",
        [2, 1, 1],
        [64, 1, 1],
        0,
        &[A::Ptr(out), A::Ptr(inp), A::I32(40)],
    );
    assert!(outcome.faults.is_empty(), "{:?}", outcome.faults);
    assert!(s.findings().is_empty(), "{:#?}", s.findings());
}

#[test]
fn barrier_in_a_loop_with_divergent_trip_counts() {
    let mut s = Session::new(compile_source("sync_kernels_loop", KERNELS), "sync");
    // Thread 5 runs one iteration fewer than the others.
    let trips: Vec<u8> = (0..64u32)
        .flat_map(|t| (if t == 5 { 2u32 } else { 3 }).to_le_bytes())
        .collect();
    let trips = s.buffer("trips", &trips, true);
    let out = s.zeros("out", 256);
    s.launch(
        "divergentInLoop",
        [1, 1, 1],
        [64, 1, 1],
        0,
        &[A::Ptr(out), A::Ptr(trips)],
    );
    let findings = s.findings();
    let div = by_code(&findings, Code::BarrierDivergence);
    assert_eq!(div.len(), 1, "{findings:#?}");
    assert_eq!(div[0].0, 18);
    assert!(
        div[0].1.notes.iter().any(|n| n.contains("thread (5,0,0)")),
        "{findings:#?}"
    );

    // Uniform trip counts: clean.
    let mut s = Session::new(compile_source("sync_kernels_loop2", KERNELS), "sync");
    let trips: Vec<u8> = (0..64u32).flat_map(|_| 3u32.to_le_bytes()).collect();
    let trips = s.buffer("trips", &trips, true);
    let out = s.zeros("out", 256);
    s.launch(
        "divergentInLoop",
        [1, 1, 1],
        [64, 1, 1],
        0,
        &[A::Ptr(out), A::Ptr(trips)],
    );
    assert!(s.findings().is_empty(), "{:#?}", s.findings());
}

#[test]
fn syncwarp_mask_excluding_the_caller() {
    let mut s = Session::new(compile_source("sync_kernels_mask", KERNELS), "sync");
    let out = s.zeros("out", 128);
    s.launch("badSyncwarp", [1, 1, 1], [32, 1, 1], 0, &[A::Ptr(out)]);
    let findings = s.findings();
    let m = by_code(&findings, Code::SyncwarpMask);
    assert_eq!(m.len(), 1, "{findings:#?}");
    assert_eq!(m[0].0, 28);
    assert!(m[0].1.notes[0].contains("thread (0,0,0)"), "{findings:#?}");
}

#[test]
fn barrier_count_not_a_multiple_of_32() {
    let mut s = Session::new(compile_source("sync_kernels_count", KERNELS), "sync");
    let out = s.zeros("out", 4 * 64);
    s.launch("namedBarrier", [1, 1, 1], [48, 1, 1], 0, &[A::Ptr(out)]);
    let findings = s.findings();
    let c = by_code(&findings, Code::BarrierCount);
    assert_eq!(c.len(), 1, "{findings:#?}");
    assert_eq!(c[0].0, 36);
    assert_eq!(
        c[0].1.message,
        "barrier thread count 48 is not a multiple of the warp size (32)"
    );
}

/// Correct corpus kernels with barriers, warp collectives and early exits.
#[test]
fn correct_barrier_code_is_clean() {
    for file in [
        "reduce_shared.cu",
        "reduce_warp_shuffle.cu",
        "reduce_two_level.cu",
        "scan_hillis_steele.cu",
        "scan_blelloch_conflict_free.cu",
        "matmul_tiled.cu",
        "stencil_1d_shared.cu",
        "stencil_2d_shared.cu",
        "bitonic_sort_shared.cu",
        "cg_reduce.cu",
        "warp_vote.cu",
        "warp_match_aggregated_atomics.cu",
        "warp_softmax_butterfly.cu",
        "dynamic_shared_argmax.cu",
        "histogram_shared_atomics.cu",
        "boyer_fig1_fixed.cu",
        "transpose_tiled_padded.cu",
        "nbody_float4.cu",
        "matmul_tiled_bug_partial_tile.cu",
        "reduce_warp_sync_bug_no_syncwarp.cu",
    ] {
        let s = run_header(file, "sync");
        assert!(s.findings().is_empty(), "{file}: {:#?}", s.findings());
    }
}
