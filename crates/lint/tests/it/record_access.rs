//! Record accesses that clang splits: a `float4` copied through global and shared memory
//! is two 8-byte halves at `-O3` and at `-O0` (generic accesses there), and a `uchar4` of
//! which three components are used is three 1-byte loads. Each piece alone looks strided
//! (its lanes are a record apart); the lint judges the pieces of one line together, as one
//! access of the record, as nvcc's single vector access would be: the coalesced copies are
//! clean, and the strided ones are reported with each instruction's own cost (what
//! `warpcheck check` measures on the same PTX: 32 sectors per request, 4-way on each
//! 8-byte half of the shared store).

use crate::common;

use std::collections::BTreeMap;

use common::compile_source_at;
use warpcheck_lint::{Launch, LintOptions, lint_kernel};
use warpcheck_report::Code;

const SOURCE: &str = r#"
__global__ void copy_float4(const float4 *in, float4 *out, float4 *strided) {
  __shared__ float4 tile[256];
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  tile[threadIdx.x] = in[i];
  __syncthreads();
  out[i] = tile[blockDim.x - 1 - threadIdx.x];
  strided[2 * i] = in[4 * i];
  __syncthreads();
  tile[2 * threadIdx.x] = out[i];
}

__global__ void luma(const uchar4 *px, unsigned char *gray) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  uchar4 p = px[i];
  gray[i] = p.x / 4 + p.y / 2 + p.z / 4;
}
"#;

/// (line, code) → worst degree of the coalescing and bank-conflict findings, and whether
/// every one of them says it judged a record.
fn findings(opt_level: u8, launch: Option<Launch>) -> (BTreeMap<(u32, Code), u32>, bool) {
    let program = compile_source_at("record_access", SOURCE, opt_level);
    let mut out = BTreeMap::new();
    let mut all_records = true;
    for kernel in program.kernels() {
        let options = LintOptions {
            launch,
            ..LintOptions::default()
        };
        for f in lint_kernel(&program, kernel, &options) {
            if f.code != Code::UncoalescedAccess && f.code != Code::BankConflict {
                continue;
            }
            let line = f.primary.as_ref().map_or(0, |p| p.location.line);
            let degree = f.degree.map_or(0, |d| d as u32);
            all_records &= f
                .notes
                .iter()
                .any(|n| n.contains("judged as one 16-byte record access"));
            out.insert((line, f.code), degree);
        }
    }
    (out, all_records)
}

fn expected() -> BTreeMap<(u32, Code), u32> {
    BTreeMap::from([
        // strided[2 * i] = in[4 * i]: 16-byte records 64 and 32 bytes apart.
        ((8, Code::UncoalescedAccess), 32),
        // tile[2 * threadIdx.x]: each 8-byte half is 4-way (the whole float4 2-way).
        ((10, Code::BankConflict), 4),
    ])
}

const LAUNCH: Launch = Launch {
    grid: [4, 1, 1],
    block: [128, 1, 1],
};

#[test]
fn split_float4_copies_are_judged_as_records_at_o3() {
    for launch in [None, Some(LAUNCH)] {
        let (found, records) = findings(3, launch);
        assert_eq!(found, expected(), "launch {launch:?}");
        assert!(records, "every finding notes the record: launch {launch:?}");
    }
}

#[test]
fn split_float4_copies_are_judged_as_records_at_o0() {
    for launch in [None, Some(LAUNCH)] {
        let (found, records) = findings(0, launch);
        assert_eq!(found, expected(), "launch {launch:?}");
        assert!(records, "every finding notes the record: launch {launch:?}");
    }
}
