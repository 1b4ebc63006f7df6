//! `cp.async` under the checkers: the emulator reports each copy's shared-memory write at
//! the `cp.async.wait_group` that completes it, so reading another thread's copy needs
//! that wait *and* a barrier after it, and a thread that reads its own destination before
//! its wait reads memory the checkers do not consider written yet.

use crate::common;

use common::*;
use warpcheck_report::Code;

const KERNELS: &str = r#"
__device__ __forceinline__ void copy4(float* smem, const float* gmem)
{
    asm volatile("{\n .reg .u64 a;\n .reg .u32 b;\n cvta.to.shared.u64 a, %0;\n"
                 " cvt.u32.u64 b, a;\n cp.async.ca.shared.global [b], [%1], 4;\n}\n"
                 ::"l"(smem), "l"(gmem) : "memory");
    asm volatile("cp.async.commit_group;\n" ::: "memory");
}

__device__ __forceinline__ void wait_all() { asm volatile("cp.async.wait_group 0;\n" ::: "memory"); }

__global__ void waitThenSync(float* out, const float* in)
{
    __shared__ float s[64];
    int t = threadIdx.x;
    copy4(&s[t], &in[t]);
    wait_all();
    __syncthreads();
    out[t] = s[63 - t];
}

__global__ void syncThenWait(float* out, const float* in)
{
    __shared__ float s[64];
    int t = threadIdx.x;
    copy4(&s[t], &in[t]);
    __syncthreads();
    wait_all();
    out[t] = s[63 - t];
}

__global__ void readOwnBeforeWait(float* out, const float* in)
{
    __shared__ float s[64];
    int t = threadIdx.x;
    copy4(&s[t], &in[t]);
    float early = s[t];
    wait_all();
    out[t] = early;
}
"#;

fn run(kernel: &str, tools: &str) -> Vec<warpcheck_report::Finding> {
    let mut s = Session::new(
        compile_source(&format!("cp_async_{kernel}"), KERNELS),
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
    s.findings()
}

#[test]
fn wait_then_barrier_is_clean() {
    let f = run("waitThenSync", "race,init");
    assert!(f.is_empty(), "{f:#?}");
}

#[test]
fn a_barrier_before_the_wait_is_a_race() {
    let f = run("syncThenWait", "race");
    let races = by_code(&f, Code::SharedRace);
    assert_eq!(races.len(), 1, "{f:#?}");
}

#[test]
fn reading_the_own_destination_before_the_wait_is_an_uninitialised_read() {
    let f = run("readOwnBeforeWait", "init");
    let r = by_code(&f, Code::UninitRead);
    assert_eq!(r.len(), 1, "{f:#?}");
    assert_eq!(r[0].1.occurrences, 64);
}
