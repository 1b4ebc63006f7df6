//! The bank-conflict checker against hand-computed counts, Nsight Compute's numbers
//! measured on an H200 (tests/kernels/README.md, "Checked on a GPU") and the corpus
//! markers.

use crate::common;

use common::*;
use warpcheck_check::bank::{access_cost, histogram_text};
use warpcheck_report::Code;

fn lanes_at(f: impl Fn(u64) -> u64) -> [u64; 32] {
    std::array::from_fn(|l| f(l as u64))
}

#[test]
fn cost_of_typical_patterns() {
    // Unit stride, 4 bytes: one wavefront.
    let c = access_cost(&lanes_at(|l| 4 * l), u32::MAX, 4);
    assert_eq!(
        (c.phases, c.wavefronts, c.degree, c.conflicts()),
        (1, 1, 1, 0)
    );
    // Broadcast: every lane reads the same word.
    let c = access_cost(&lanes_at(|_| 64), u32::MAX, 4);
    assert_eq!((c.wavefronts, c.degree), (1, 1));
    // Stride 32 words: 32 distinct words in bank 0.
    let c = access_cost(&lanes_at(|l| 128 * l), u32::MAX, 4);
    assert_eq!((c.wavefronts, c.degree, c.conflicts()), (32, 32, 31));
    assert_eq!(histogram_text(&c.histogram), "bank 0: 32 words, others: 0");
    // Stride 2 words: 2-way.
    let c = access_cost(&lanes_at(|l| 8 * l), u32::MAX, 4);
    assert_eq!((c.wavefronts, c.degree), (2, 2));
    // Bytes of one word: a broadcast.
    let c = access_cost(&lanes_at(|l| l), u32::MAX, 1);
    assert_eq!((c.wavefronts, c.degree), (1, 1));
    // 8-byte unit stride: two half-warp phases, no conflict.
    let c = access_cost(&lanes_at(|l| 8 * l), u32::MAX, 8);
    assert_eq!((c.phases, c.wavefronts, c.conflicts()), (2, 2, 0));
    // 8-byte stride 16 bytes: each half-warp covers 64 words, 2 per bank.
    let c = access_cost(&lanes_at(|l| 16 * l), u32::MAX, 8);
    assert_eq!(
        (c.phases, c.wavefronts, c.degree, c.conflicts()),
        (2, 4, 2, 2)
    );
    // 16-byte unit stride (float4): four quarter-warp phases, no conflict.
    let c = access_cost(&lanes_at(|l| 16 * l), u32::MAX, 16);
    assert_eq!((c.phases, c.wavefronts, c.conflicts()), (4, 4, 0));
    // 16-byte, every lane the same float4: broadcast; the two quarters of each half-warp
    // share a wavefront (Nsight Compute on an H200: 2 per request in nbody_float4.cu).
    let c = access_cost(&lanes_at(|_| 32), u32::MAX, 16);
    assert_eq!((c.phases, c.wavefronts, c.conflicts()), (4, 2, 0));
    // 16-byte stride 32 bytes: 8 lanes x 4 words over 64 words: 2-way.
    let c = access_cost(&lanes_at(|l| 32 * l), u32::MAX, 16);
    assert_eq!((c.phases, c.wavefronts, c.degree), (4, 8, 2));
    // Half of the warp active, 8 bytes: one phase.
    let c = access_cost(&lanes_at(|l| 8 * l), 0xffff, 8);
    assert_eq!((c.phases, c.wavefronts), (1, 1));
}

const TILE: &str = r#"
#define TILE 32
__global__ void transposeTile(float* out, const float* in)
{
    __shared__ float tile[TILE][TILE];
    int x = threadIdx.x, y = threadIdx.y;
    tile[y][x] = in[y * TILE + x];
    __syncthreads();
    out[y * TILE + x] = tile[x][y];
}

__global__ void transposePadded(float* out, const float* in)
{
    __shared__ float padded[TILE][TILE + 1];
    int x = threadIdx.x, y = threadIdx.y;
    padded[y][x] = in[y * TILE + x];
    __syncthreads();
    out[y * TILE + x] = padded[x][y];
}

__global__ void broadcast(float* out)
{
    __shared__ float s[32];
    if (threadIdx.x == 0) s[5] = 1.0f;
    __syncthreads();
    out[threadIdx.x] = s[5];
}

__global__ void wide(float* out, int stride)
{
    __shared__ double d[1024];
    __shared__ float4 q[512];
    int t = threadIdx.x;
    d[t * stride] = t;
    q[t * stride] = make_float4(t, t, t, t);
    __syncthreads();
    int u = (t + 1) % 32;
    float4 v = q[u * stride];
    out[t] = d[u * stride] + v.x + v.y + v.z + v.w;
}
"#;

#[test]
fn transpose_tile_without_padding_has_32_way_conflicts() {
    let mut s = Session::new(compile_source("bank_tile", TILE), "bank");
    let input: Vec<f32> = (0..1024).map(|i| i as f32).collect();
    let inp = s.f32s("in", &input);
    let out = s.zeros("out", 4096);
    s.launch(
        "transposeTile",
        [1, 1, 1],
        [32, 32, 1],
        0,
        &[A::Ptr(out), A::Ptr(inp)],
    );
    let findings = s.findings();
    let bank = by_code(&findings, Code::BankConflict);
    assert_eq!(bank.len(), 1, "{findings:#?}");
    let (line, f) = bank[0];
    assert_eq!(line, 9, "the column read tile[x][y]");
    assert_eq!(f.message, "shared load with 32-way bank conflict");
    assert!(
        f.notes.iter().any(|n| n.contains(": 32 words, others: 0")),
        "{:?}",
        f.notes
    );
    // 32 warps, each reading one column: 32 wavefronts, 31 conflicts.
    let totals = s.checker.totals();
    assert_eq!(totals[0].shared_load_wavefronts, 32 * 32);
    assert_eq!(totals[0].shared_load_bank_conflicts, 32 * 31);
    assert_eq!(totals[0].shared_store_wavefronts, 32);
    assert_eq!(totals[0].shared_store_bank_conflicts, 0);
    assert_eq!(f.occurrences, 32);
}

#[test]
fn padded_transpose_tile_is_clean() {
    let mut s = Session::new(compile_source("bank_tile_padded", TILE), "bank");
    let input: Vec<f32> = (0..1024).map(|i| i as f32).collect();
    let inp = s.f32s("in", &input);
    let out = s.zeros("out", 4096);
    s.launch(
        "transposePadded",
        [1, 1, 1],
        [32, 32, 1],
        0,
        &[A::Ptr(out), A::Ptr(inp)],
    );
    assert!(by_code(&s.findings(), Code::BankConflict).is_empty());
    let totals = s.checker.totals();
    assert_eq!(totals[0].shared_load_wavefronts, 32);
    assert_eq!(totals[0].shared_load_bank_conflicts, 0);
}

#[test]
fn broadcast_is_not_a_conflict() {
    let mut s = Session::new(compile_source("bank_broadcast", TILE), "bank");
    let out = s.zeros("out", 128);
    s.launch("broadcast", [1, 1, 1], [32, 1, 1], 0, &[A::Ptr(out)]);
    assert!(s.findings().is_empty());
    assert_eq!(s.checker.totals()[0].shared_load_wavefronts, 1);
}

#[test]
fn eight_and_sixteen_byte_accesses_split_into_phases() {
    // Unit stride: 2 phases for doubles, 4 for float4, no conflict.
    let mut s = Session::new(compile_source("bank_wide", TILE), "bank");
    let out = s.zeros("out", 256);
    s.launch("wide", [1, 1, 1], [32, 1, 1], 0, &[A::Ptr(out), A::I32(1)]);
    assert!(
        by_code(&s.findings(), Code::BankConflict).is_empty(),
        "{:#?}",
        s.findings()
    );
    let t = &s.checker.totals()[0];
    assert_eq!(t.shared_store_wavefronts, 2 + 4);
    assert_eq!(t.shared_store_bank_conflicts, 0);
    // Stride 2 elements: doubles 16 bytes apart, float4s 32 bytes apart: 2-way.
    let mut s = Session::new(compile_source("bank_wide2", TILE), "bank");
    let out = s.zeros("out", 256);
    s.launch("wide", [1, 1, 1], [32, 1, 1], 0, &[A::Ptr(out), A::I32(2)]);
    let findings = s.findings();
    let bank = by_code(&findings, Code::BankConflict);
    let lines: Vec<(u32, Option<u32>)> = bank.iter().map(|(l, f)| (*l, degree(f))).collect();
    // The float4 store's `.loc` may fall on the line after it (clang sinks it next to the
    // barrier), so only the lines of the double store and of the loads are pinned.
    assert_eq!(lines.len(), 4, "{findings:#?}");
    assert!(lines.iter().all(|(_, d)| *d == Some(2)), "{findings:#?}");
    for line in [34, 38, 39] {
        assert!(
            lines.iter().any(|(l, _)| *l == line),
            "line {line}: {findings:#?}"
        );
    }
    let t = &s.checker.totals()[0];
    assert_eq!(t.shared_store_wavefronts, 4 + 8);
    assert_eq!(t.shared_store_bank_conflicts, 2 + 4);
}

/// Nsight Compute on an H200: 512 requests x 31 extra wavefronts.
#[test]
fn transpose_tiled_matches_nsight_compute() {
    let s = run_header("transpose_tiled.cu", "bank");
    let t = &s.checker.totals()[0];
    assert_eq!(t.shared_load_bank_conflicts, 15872);
    assert_eq!(t.shared_load_wavefronts, 512 * 32);
    assert_eq!(t.shared_store_bank_conflicts, 0);
    check_markers("transpose_tiled.cu", &s);
}

#[test]
fn padded_transpose_and_conflict_free_scan_are_clean() {
    for file in [
        "transpose_tiled_padded.cu",
        "scan_blelloch_conflict_free.cu",
    ] {
        let s = run_header(file, "bank");
        assert!(s.findings().is_empty(), "{file}: {:#?}", s.findings());
        let t = &s.checker.totals()[0];
        assert_eq!(
            t.shared_load_bank_conflicts + t.shared_store_bank_conflicts,
            0,
            "{file}"
        );
    }
}

/// clang stores each `float4` of the n-body tile as two 8-byte halves 16 bytes apart:
/// each half alone needs 2 wavefronts per half-warp (counted, as the hardware would count
/// that PTX), but together they are one conflict-free 16-byte store: no finding.
#[test]
fn split_float4_store_is_judged_as_one_record() {
    let s = run_header("nbody_float4.cu", "bank");
    assert!(s.findings().is_empty(), "{:#?}", s.findings());
    let t = &s.checker.totals()[0];
    assert!(
        t.shared_store_bank_conflicts > 0,
        "the halves conflict per instruction"
    );
}

/// Boyer et al. 2008, Figure 2: with the flag on, every lane owns 32 consecutive words, so
/// all lanes hit one bank; with it off, lanes stride through the banks.
#[test]
fn boyer_figure_2() {
    let s = run_header("boyer_fig2_bug_bank_conflicts_on.cu", "bank");
    check_markers("boyer_fig2_bug_bank_conflicts_on.cu", &s);
    let s = run_header("boyer_fig2_bank_conflicts_off.cu", "bank");
    assert!(s.findings().is_empty(), "{:#?}", s.findings());
}

#[test]
fn corpus_markers() {
    for file in ["bank_conflicts_bug_strides.cu", "scan_blelloch.cu"] {
        let s = run_header(file, "bank");
        check_markers(file, &s);
    }
}

/// The findings are exactly the file's `bank-conflict(N)` markers, with their degrees.
fn check_markers(file: &str, s: &Session) {
    let findings = s.findings();
    let got: Vec<(u32, Option<u32>)> = by_code(&findings, Code::BankConflict)
        .iter()
        .map(|(l, f)| (*l, degree(f)))
        .collect();
    assert_eq!(
        got,
        markers(file, Code::BankConflict.name()),
        "{file}: {findings:#?}"
    );
}
