//! `mbarrier` phases under the race checker: an arrive publishes what its thread did
//! before it, and a `try_wait` that sees the phase complete acquires every arrival of
//! that phase. `cp.async.mbarrier.arrive` (what `cuda::memcpy_async` with a
//! `cuda::barrier` compiles to) makes the thread's earlier copies part of its arrival,
//! so reading another thread's copy after the wait is ordered, and before it is a race.

use crate::common;

use common::*;
use warpcheck_report::Code;

const KERNELS: &str = r#"
__device__ __forceinline__ unsigned sh(const void* p)
{
    unsigned r;
    asm("{ .reg .u64 a; cvta.to.shared.u64 a, %1; cvt.u32.u64 %0, a; }" : "=r"(r) : "l"(p));
    return r;
}
__device__ __forceinline__ void bar_init(unsigned long long* b, unsigned n)
{
    asm volatile("mbarrier.init.shared.b64 [%0], %1;" :: "r"(sh(b)), "r"(n) : "memory");
}
__device__ __forceinline__ unsigned long long bar_arrive(unsigned long long* b)
{
    unsigned long long st;
    asm volatile("mbarrier.arrive.shared.b64 %0, [%1];" : "=l"(st) : "r"(sh(b)) : "memory");
    return st;
}
__device__ __forceinline__ bool bar_try_wait(unsigned long long* b, unsigned long long st)
{
    unsigned ok;
    asm volatile("{ .reg .pred p; mbarrier.try_wait.shared.b64 p, [%1], %2; selp.u32 %0, 1, 0, p; }"
                 : "=r"(ok) : "r"(sh(b)), "l"(st) : "memory");
    return ok;
}
__device__ __forceinline__ bool bar_test_parity(unsigned long long* b, unsigned parity)
{
    unsigned ok;
    asm volatile("{ .reg .pred p; mbarrier.test_wait.parity.shared.b64 p, [%1], %2; selp.u32 %0, 1, 0, p; }"
                 : "=r"(ok) : "r"(sh(b)), "r"(parity) : "memory");
    return ok;
}
__device__ __forceinline__ void copy4(float* smem, const float* gmem)
{
    asm volatile("cp.async.ca.shared.global [%0], [%1], 4;" :: "r"(sh(smem)), "l"(gmem) : "memory");
}
__device__ __forceinline__ void copies_arrive(unsigned long long* b)
{
    asm volatile("cp.async.mbarrier.arrive.shared.b64 [%0];" :: "r"(sh(b)) : "memory");
}

// cuda::memcpy_async(..., barrier) + barrier.arrive_and_wait(), then read a neighbour.
__global__ void copyArriveWait(float* out, const float* in)
{
    __shared__ float s[64];
    __shared__ unsigned long long bar;
    int t = threadIdx.x;
    if (t == 0) bar_init(&bar, blockDim.x);
    __syncthreads();
    copy4(&s[t], &in[t]);
    copies_arrive(&bar);
    unsigned long long st = bar_arrive(&bar);
    while (!bar_try_wait(&bar, st)) {}
    out[t] = s[63 - t];
}

// The same, reading the neighbour's copy before waiting.
__global__ void readBeforeWait(float* out, const float* in)
{
    __shared__ float s[64];
    __shared__ unsigned long long bar;
    int t = threadIdx.x;
    if (t == 0) bar_init(&bar, blockDim.x);
    __syncthreads();
    copy4(&s[t], &in[t]);
    copies_arrive(&bar);
    unsigned long long st = bar_arrive(&bar);
    float early = s[63 - t];
    while (!bar_try_wait(&bar, st)) {}
    out[t] = early;
}

// Producer warp 0 writes and arrives; consumer warp 1 waits for phase 0 by parity.
__global__ void producerConsumer(float* out, const float* in)
{
    __shared__ float s[32];
    __shared__ unsigned long long full;
    int t = threadIdx.x;
    if (t == 0) bar_init(&full, 32);
    __syncthreads();
    if (t < 32) {
        s[t] = in[t] * 2.0f;
        bar_arrive(&full);
    } else {
        while (!bar_test_parity(&full, 0)) {}
        out[t - 32] = s[63 - t];
    }
}

// The consumer reads before it waits.
__global__ void consumerTooEarly(float* out, const float* in)
{
    __shared__ float s[32];
    __shared__ unsigned long long full;
    int t = threadIdx.x;
    if (t == 0) bar_init(&full, 32);
    __syncthreads();
    if (t < 32) {
        s[t] = in[t] * 2.0f;
        bar_arrive(&full);
    } else {
        float v = s[63 - t];
        while (!bar_test_parity(&full, 0)) {}
        out[t - 32] = v;
    }
}
"#;

fn run(kernel: &str, tools: &str) -> (Vec<warpcheck_report::Finding>, Vec<f32>) {
    let mut s = Session::new(
        compile_source(&format!("mbarrier_{kernel}"), KERNELS),
        tools,
    );
    let input: Vec<f32> = (0..64).map(|i| i as f32).collect();
    let inp = s.f32s("in", &input);
    let out = s.zeros("out", 4 * 64);
    s.launch(
        kernel,
        [1, 1, 1],
        [64, 1, 1],
        0,
        &[A::Ptr(out), A::Ptr(inp)],
    );
    let bytes = s.memory.read(out, 4 * 64).unwrap();
    let got = bytes
        .chunks(4)
        .map(|c| f32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect();
    (s.findings(), got)
}

#[test]
fn copies_covered_by_the_barrier_are_ordered_before_the_wait() {
    let (f, out) = run("copyArriveWait", "race,init");
    assert!(f.is_empty(), "{f:#?}");
    let want: Vec<f32> = (0..64).map(|t| (63 - t) as f32).collect();
    assert_eq!(out, want);
}

#[test]
fn reading_a_copy_before_the_wait_is_a_race() {
    let (f, _) = run("readBeforeWait", "race");
    assert_eq!(by_code(&f, Code::SharedRace).len(), 1, "{f:#?}");
}

#[test]
fn a_completed_phase_orders_the_producers_writes_before_the_consumer() {
    let (f, out) = run("producerConsumer", "race,init");
    assert!(f.is_empty(), "{f:#?}");
    let want: Vec<f32> = (0..32).map(|t| ((31 - t) * 2) as f32).collect();
    assert_eq!(&out[..32], &want[..]);
}

#[test]
fn reading_before_waiting_for_the_phase_is_a_race() {
    let (f, _) = run("consumerTooEarly", "race");
    assert_eq!(by_code(&f, Code::SharedRace).len(), 1, "{f:#?}");
}
