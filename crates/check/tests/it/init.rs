//! The initialisation checker: `:uninit` buffers, shared memory per block, local arrays,
//! writes of earlier launches and earlier blocks, and the corpus markers.

use crate::common;

use common::*;
use warpcheck_report::Code;

const KERNELS: &str = r#"
__global__ void readBuffer(float* out, const float* in, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = in[i] * 2.0f;
}

__global__ void writeBuffer(float* buf, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) buf[i] = i;
}

__global__ void sharedBeforeWrite(float* out)
{
    __shared__ float s[64];
    int t = threadIdx.x;
    if (t < 32) s[t] = t;
    __syncthreads();
    out[t] = s[t];
}

__global__ void sharedWritten(float* out)
{
    __shared__ float s[64];
    int t = threadIdx.x;
    s[t] = t;
    __syncthreads();
    out[t] = s[63 - t];
}

__global__ void neighbourBlock(float* buf, float* out)
{
    int b = blockIdx.x;
    if (threadIdx.x == 0) buf[b] = b;
    __threadfence();
    if (threadIdx.x == 0 && b > 0) out[b] = buf[b - 1];
    if (threadIdx.x == 0 && b == 0) out[b] = buf[1];
}

__global__ void atomicOnUninit(int* counter)
{
    atomicAdd(counter, 1);
}

__global__ void localArray(float* out, const int* k)
{
    float a[8];
    int t = threadIdx.x;
    for (int j = 0; j < 6; ++j) a[j] = t + j;
    out[t] = a[k[t]];
}
"#;

fn session(name: &str) -> Session {
    Session::new(compile_source(name, KERNELS), "init")
}

#[test]
fn uninit_buffer_read_is_found() {
    let mut s = session("init_buffer");
    let inp = s.uninit("in", 4 * 100);
    let out = s.zeros("out", 4 * 100);
    s.launch(
        "readBuffer",
        [1, 1, 1],
        [128, 1, 1],
        0,
        &[A::Ptr(out), A::Ptr(inp), A::I32(100)],
    );
    let findings = s.findings();
    let r = by_code(&findings, Code::UninitRead);
    assert_eq!(r.len(), 1, "{findings:#?}");
    let (line, f) = r[0];
    assert_eq!(line, 5);
    assert_eq!(f.message, "load reads uninitialised global memory");
    assert_eq!(f.occurrences, 100);
    assert!(
        f.notes[0].contains(
            "thread (0,0,0) of block (0,0,0) reads 4 bytes of global buffer `in` + 0 bytes"
        ),
        "{:?}",
        f.notes
    );
}

#[test]
fn writes_of_an_earlier_launch_initialise() {
    let mut s = session("init_launches");
    let buf = s.uninit("buf", 4 * 100);
    let out = s.zeros("out", 4 * 100);
    // Writes the first 64 elements only.
    s.launch(
        "writeBuffer",
        [1, 1, 1],
        [64, 1, 1],
        0,
        &[A::Ptr(buf), A::I32(64)],
    );
    s.launch(
        "readBuffer",
        [1, 1, 1],
        [128, 1, 1],
        0,
        &[A::Ptr(out), A::Ptr(buf), A::I32(100)],
    );
    let findings = s.findings();
    let r = by_code(&findings, Code::UninitRead);
    assert_eq!(r.len(), 1, "{findings:#?}");
    assert_eq!(r[0].1.occurrences, 36, "elements 64..99");
    assert!(
        r[0].1.notes[0].contains("thread (64,0,0)"),
        "{:?}",
        r[0].1.notes
    );
    // Writing the rest makes a further read clean.
    let mut s = session("init_launches2");
    let buf = s.uninit("buf", 4 * 100);
    let out = s.zeros("out", 4 * 100);
    s.launch(
        "writeBuffer",
        [1, 1, 1],
        [128, 1, 1],
        0,
        &[A::Ptr(buf), A::I32(100)],
    );
    s.launch(
        "readBuffer",
        [1, 1, 1],
        [128, 1, 1],
        0,
        &[A::Ptr(out), A::Ptr(buf), A::I32(100)],
    );
    assert!(s.findings().is_empty(), "{:#?}", s.findings());
}

#[test]
fn shared_read_before_write_is_found() {
    let mut s = session("init_shared");
    let out = s.zeros("out", 4 * 64);
    s.launch(
        "sharedBeforeWrite",
        [2, 1, 1],
        [64, 1, 1],
        0,
        &[A::Ptr(out)],
    );
    let findings = s.findings();
    let r = by_code(&findings, Code::UninitRead);
    assert_eq!(r.len(), 1, "{findings:#?}");
    assert_eq!(r[0].0, 20);
    assert_eq!(r[0].1.message, "load reads uninitialised shared memory");
    // Threads 32..63 of both blocks.
    assert_eq!(r[0].1.occurrences, 64);
    assert!(
        r[0].1.notes[0].contains("thread (32,0,0) of block (0,0,0)"),
        "{:?}",
        r[0].1.notes
    );
    assert!(
        r[0].1.notes[0].contains("`s` + 128 bytes"),
        "{:?}",
        r[0].1.notes
    );
}

#[test]
fn shared_written_then_read_is_clean() {
    let mut s = session("init_shared_ok");
    let out = s.zeros("out", 4 * 64);
    s.launch("sharedWritten", [3, 1, 1], [64, 1, 1], 0, &[A::Ptr(out)]);
    assert!(s.findings().is_empty(), "{:#?}", s.findings());
}

/// Block b reads what block b-1 wrote (earlier in block order: initialised); block 0
/// reads what block 1 wrote (later: reported).
#[test]
fn writes_of_earlier_blocks_count_later_ones_do_not() {
    let mut s = session("init_blocks");
    let buf = s.uninit("buf", 4 * 8);
    let out = s.zeros("out", 4 * 8);
    s.launch(
        "neighbourBlock",
        [8, 1, 1],
        [32, 1, 1],
        0,
        &[A::Ptr(buf), A::Ptr(out)],
    );
    let findings = s.findings();
    let r = by_code(&findings, Code::UninitRead);
    assert_eq!(r.len(), 1, "{findings:#?}");
    assert_eq!(r[0].0, 38);
    assert_eq!(r[0].1.occurrences, 1);
    assert!(
        r[0].1.notes[0].contains("block (0,0,0)"),
        "{:?}",
        r[0].1.notes
    );
}

#[test]
fn atomic_on_uninit_memory_reads_it() {
    let mut s = session("init_atomic");
    let c = s.uninit("counter", 4);
    s.launch("atomicOnUninit", [1, 1, 1], [32, 1, 1], 0, &[A::Ptr(c)]);
    let findings = s.findings();
    let r = by_code(&findings, Code::UninitRead);
    assert_eq!(r.len(), 1, "{findings:#?}");
    assert_eq!(r[0].1.message, "atomic reads uninitialised global memory");
    // Only the first atomic reads garbage; it writes the counter for the others.
    assert_eq!(r[0].1.occurrences, 1);
}

#[test]
fn local_array_read_beyond_the_written_part() {
    let mut s = session("init_local");
    let out = s.zeros("out", 4 * 32);
    // Thread 3 reads a[7], never written; the others read written elements.
    let k: Vec<u8> = (0..32u32)
        .flat_map(|t| (if t == 3 { 7u32 } else { t % 6 }).to_le_bytes())
        .collect();
    let k = s.buffer("k", &k, true);
    s.launch(
        "localArray",
        [1, 1, 1],
        [32, 1, 1],
        0,
        &[A::Ptr(out), A::Ptr(k)],
    );
    let findings = s.findings();
    let r = by_code(&findings, Code::UninitRead);
    assert_eq!(r.len(), 1, "{findings:#?}");
    assert_eq!(r[0].0, 51);
    assert_eq!(r[0].1.message, "load reads uninitialised local memory");
    assert_eq!(r[0].1.occurrences, 1);
    assert!(
        r[0].1.notes[0].contains("thread (3,0,0)"),
        "{:?}",
        r[0].1.notes
    );
}

#[test]
fn corpus_markers() {
    for file in [
        "accumulate_bug_uninit_global.cu",
        "stencil_1d_bug_uninit_halo.cu",
        "matmul_tiled_bug_partial_tile.cu",
    ] {
        let s = run_header(file, "init");
        let findings = s.findings();
        let mut got: Vec<u32> = by_code(&findings, Code::UninitRead)
            .iter()
            .map(|(l, _)| *l)
            .collect();
        got.dedup();
        let want: Vec<u32> = markers(file, Code::UninitRead.name())
            .iter()
            .map(|(l, _)| *l)
            .collect();
        assert_eq!(got, want, "{file}: {findings:#?}");
    }
}

#[test]
fn correct_corpus_files_are_clean() {
    for file in [
        "stencil_1d_shared.cu",
        "local_array_median.cu",
        "reduce_two_level.cu",
        "dynamic_shared_argmax.cu",
        "dynamic_shared_reverse.cu",
        "matmul_tiled.cu",
        "scan_blelloch_conflict_free.cu",
        "histogram_shared_atomics.cu",
        "bitonic_sort_shared.cu",
        "stencil_2d_shared.cu",
        "device_functions.cu",
    ] {
        let s = run_header(file, "init");
        assert!(s.findings().is_empty(), "{file}: {:#?}", s.findings());
    }
}

/// A read racing with another thread's write in the same barrier interval is the race
/// checker's finding, whichever comes first in the schedule (Boyer et al. Fig. 1).
#[test]
fn racy_read_is_left_to_the_race_checker() {
    let s = run_header("boyer_fig1_bug_raw.cu", "init");
    assert!(s.findings().is_empty(), "{:#?}", s.findings());
}

const SHARED_ATOMIC: &str = r#"
__global__ void binsNotZeroed(const int* keys, int* out)
{
    __shared__ int bins[8];
    atomicAdd(&bins[keys[threadIdx.x] % 8], 1);
    __syncthreads();
    if (threadIdx.x < 8) out[threadIdx.x] = bins[threadIdx.x];
}
"#;

/// Shared atomics on bins nobody zeroed: the first atomic of each bin reads garbage; the
/// other atomics do not make it a race.
#[test]
fn shared_atomics_on_unzeroed_bins() {
    let mut s = Session::new(compile_source("init_shared_atomic", SHARED_ATOMIC), "init");
    let keys: Vec<u8> = (0..64u32).flat_map(|k| k.to_le_bytes()).collect();
    let keys = s.buffer("keys", &keys, true);
    let out = s.zeros("out", 32);
    s.launch(
        "binsNotZeroed",
        [1, 1, 1],
        [64, 1, 1],
        0,
        &[A::Ptr(keys), A::Ptr(out)],
    );
    let findings = s.findings();
    let r = by_code(&findings, Code::UninitRead);
    assert_eq!(r.len(), 1, "{findings:#?}");
    assert_eq!(r[0].0, 5);
    assert_eq!(r[0].1.message, "atomic reads uninitialised shared memory");
    assert_eq!(r[0].1.occurrences, 8, "one per bin");
}
