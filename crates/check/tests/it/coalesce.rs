//! The coalescing checker against hand-computed sector counts and the corpus markers
//! (GPUDrano Fig. 1 and 2, strided copies, transposes, AoS).

use crate::common;

use common::*;
use warpcheck_check::coalesce::access_shape;
use warpcheck_report::Code;

fn lanes_at(f: impl Fn(u64) -> u64) -> [u64; 32] {
    std::array::from_fn(|l| 0x1000 + f(l as u64))
}

#[test]
fn shapes_of_typical_patterns() {
    // Unit stride floats: 128 bytes, 4 sectors, 1 line.
    let s = access_shape(&lanes_at(|l| 4 * l), u32::MAX, 4);
    assert_eq!(
        (s.sectors, s.lines, s.bytes, s.ideal_sectors()),
        (4, 1, 128, 4)
    );
    assert!(!s.is_uncoalesced());
    // Shifted by one float: 5 sectors for 4 ideal (S = I + 1): not uncoalesced.
    let s = access_shape(&lanes_at(|l| 4 + 4 * l), u32::MAX, 4);
    assert_eq!((s.sectors, s.lines, s.ideal_sectors()), (5, 2, 4));
    assert!(!s.is_uncoalesced());
    // Stride 32 floats: 32 sectors, 32 lines, 4 ideal.
    let s = access_shape(&lanes_at(|l| 128 * l), u32::MAX, 4);
    assert_eq!((s.sectors, s.lines, s.ideal_sectors()), (32, 32, 4));
    assert!(s.is_uncoalesced());
    // Stride 2 floats: 8 sectors for 4 ideal.
    let s = access_shape(&lanes_at(|l| 8 * l), u32::MAX, 4);
    assert_eq!((s.sectors, s.ideal_sectors()), (8, 4));
    assert!(s.is_uncoalesced());
    // Broadcast: 1 sector for 4 bytes.
    let s = access_shape(&lanes_at(|_| 64), u32::MAX, 4);
    assert_eq!((s.sectors, s.bytes), (1, 4));
    // One lane with a stride pattern (GPUDrano Fig. 1, lane 0 only): 1 sector.
    let s = access_shape(&lanes_at(|l| 32 * l), 1, 4);
    assert_eq!((s.sectors, s.ideal_sectors()), (1, 1));
    assert!(!s.is_uncoalesced());
    // float4 unit stride: 512 bytes, 16 sectors, 4 lines.
    let s = access_shape(&lanes_at(|l| 16 * l), u32::MAX, 16);
    assert_eq!((s.sectors, s.lines, s.ideal_sectors()), (16, 4, 16));
    // Two lanes in one sector, far apart from the third: S = 2, I = 1: not flagged.
    let mut a = [0x1000u64; 32];
    a[1] = 0x1004;
    a[2] = 0x9000;
    let s = access_shape(&a, 0b111, 4);
    assert_eq!((s.sectors, s.ideal_sectors()), (2, 1));
    assert!(!s.is_uncoalesced());
}

const STRIDED: &str = r#"
__global__ void copyStrided(float* out, const float* in, int stride)
{
    int t = blockIdx.x * blockDim.x + threadIdx.x;
    out[t] = in[t * stride];
}

__global__ void copyVec(float4* out, const float4* in)
{
    int t = blockIdx.x * blockDim.x + threadIdx.x;
    float4 v = in[t];
    out[t] = make_float4(v.x + 1.0f, v.y + 1.0f, v.z + 1.0f, v.w + 1.0f);
}
"#;

#[test]
fn unit_stride_is_clean_and_counts_four_sectors_per_request() {
    let mut s = Session::new(compile_source("coalesce_unit", STRIDED), "coalesce");
    let inp = s.zeros("in", 4 * 256);
    let out = s.zeros("out", 4 * 256);
    s.launch(
        "copyStrided",
        [2, 1, 1],
        [128, 1, 1],
        0,
        &[A::Ptr(out), A::Ptr(inp), A::I32(1)],
    );
    assert!(s.findings().is_empty(), "{:#?}", s.findings());
    let t = &s.checker.totals()[0];
    assert_eq!((t.global_load_requests, t.global_load_sectors), (8, 32));
    assert_eq!((t.global_store_requests, t.global_store_sectors), (8, 32));
}

#[test]
fn stride_32_floats_touches_32_sectors_per_request() {
    let mut s = Session::new(compile_source("coalesce_stride32", STRIDED), "coalesce");
    let inp = s.zeros("in", 4 * 32 * 64);
    let out = s.zeros("out", 4 * 64);
    s.launch(
        "copyStrided",
        [1, 1, 1],
        [64, 1, 1],
        0,
        &[A::Ptr(out), A::Ptr(inp), A::I32(32)],
    );
    let findings = s.findings();
    let un = by_code(&findings, Code::UncoalescedAccess);
    assert_eq!(un.len(), 1, "{findings:#?}");
    let (line, f) = un[0];
    assert_eq!(line, 5);
    assert_eq!(degree(f), Some(32));
    assert_eq!(
        f.message,
        "uncoalesced global load: a warp touches 32 sectors where 4 would do"
    );
    assert!(
        f.notes[0].contains(
            "2 requests, 32.00 sectors per request (ideal 4.00, 8.0x), 32.00 128-byte lines"
        ),
        "{:?}",
        f.notes
    );
    assert_eq!(f.occurrences, 2);
    let t = &s.checker.totals()[0];
    assert_eq!((t.global_load_requests, t.global_load_sectors), (2, 64));
    assert_eq!((t.global_store_requests, t.global_store_sectors), (2, 8));
}

#[test]
fn vector_accesses_are_one_request_per_warp_instruction() {
    let mut s = Session::new(compile_source("coalesce_vec", STRIDED), "coalesce");
    let inp = s.zeros("in", 16 * 64);
    let out = s.zeros("out", 16 * 64);
    s.launch(
        "copyVec",
        [1, 1, 1],
        [64, 1, 1],
        0,
        &[A::Ptr(out), A::Ptr(inp)],
    );
    assert!(s.findings().is_empty(), "{:#?}", s.findings());
    let t = &s.checker.totals()[0];
    assert_eq!((t.global_load_requests, t.global_load_sectors), (2, 32));
    assert_eq!((t.global_store_requests, t.global_store_sectors), (2, 32));
}

/// GPUDrano (Alur et al. 2017) Fig. 1 and Fig. 2a (Rodinia Gaussian Fan2), the strided
/// copies, the naive transpose, CSR SpMV, array of structs and Boyer Fig. 2's stores.
#[test]
fn corpus_markers() {
    for file in [
        "gpudrano_fig1_examples.cu",
        "gaussian_fan2_bug_uncoalesced.cu",
        "copy_bug_uncoalesced_strides.cu",
        "transpose_naive.cu",
        "spmv_csr.cu",
        "aos_vs_soa.cu",
        "boyer_fig2_bug_bank_conflicts_on.cu",
    ] {
        let s = run_header(file, "coalesce");
        check_markers(file, &s);
    }
}

/// GPUDrano Fig. 2b (the fix: one column per thread) and coalesced kernels. In
/// `nbody_float4.cu` and `image_grayscale_2d.cu` clang splits `float4`/`uchar4` copies
/// into narrower component accesses (nvcc emits one vector access); each component alone
/// looks uncoalesced, the record access is not.
#[test]
fn coalesced_corpus_files_are_clean() {
    for file in [
        "gaussian_fan2_fixed.cu",
        "transpose_tiled_padded.cu",
        "saxpy.cu",
        "matmul_tiled.cu",
        "stencil_2d_shared.cu",
        "nbody_float4.cu",
        "image_grayscale_2d.cu",
    ] {
        let s = run_header(file, "coalesce");
        assert!(s.findings().is_empty(), "{file}: {:#?}", s.findings());
    }
}

fn check_markers(file: &str, s: &Session) {
    let findings = s.findings();
    let got: Vec<(u32, Option<u32>)> = by_code(&findings, Code::UncoalescedAccess)
        .iter()
        .map(|(l, f)| (*l, degree(f)))
        .collect();
    assert_eq!(got, markers(file, "uncoalesced"), "{file}: {findings:#?}");
}
