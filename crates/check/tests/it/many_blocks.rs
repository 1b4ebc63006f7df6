//! Launches of many blocks: the checkers' per-block observers are recycled from block to
//! block and chunks are merged while the next one runs, so a finding of one block must
//! neither leak into later blocks nor get lost, and every count must be the same on one
//! host thread as on several.

use crate::common;

use common::*;
use warpcheck_report::{Code, Finding};

const KERNEL: &str = r#"
__global__ void manyBlocks(float* out, float* scratch)
{
    __shared__ float tile[128];
    __shared__ float never[64];
    int t = threadIdx.x;
    int b = blockIdx.x;
    int stride = (b % 3) + 1;
    tile[t] = 0.0f;
    tile[t + 64] = 0.0f;
    if (b != 777) never[t] = 1.0f;
    __syncthreads();
    tile[(t * stride) % 128] = t;
    __syncthreads();
    float v = tile[t];
    if (b == 777 && t == 5) v += never[t];
    if (b == 901 && t < 32) __syncthreads();
    out[b * 64 + t] = v;
    scratch[b * 64 + t] = 2.0f * v;
}
"#;

const BLOCKS: u32 = 1000;

fn check(threads: usize) -> (Vec<Finding>, warpcheck_check::KernelTotals) {
    let mut s = Session::new(compile_source("many_blocks", KERNEL), "all");
    s.threads = threads;
    let out = s.zeros("out", BLOCKS as usize * 64 * 4);
    let scratch = s.zeros("scratch", BLOCKS as usize * 64 * 4);
    s.launch(
        "manyBlocks",
        [BLOCKS, 1, 1],
        [64, 1, 1],
        0,
        &[A::Ptr(out), A::Ptr(scratch)],
    );
    let totals = s.checker.totals()[0].clone();
    (s.findings(), totals)
}

#[test]
fn findings_of_single_blocks_are_kept_and_do_not_leak() {
    let (findings, totals) = check(2);
    // Blocks with b % 3 == 1 (333 of them) store with a stride of 2 words: 2-way, one
    // conflict per warp; every other shared access is conflict-free.
    let bank = by_code(&findings, Code::BankConflict);
    assert_eq!(bank.len(), 1, "{findings:#?}");
    assert_eq!(bank[0].0, 13, "{findings:#?}");
    assert_eq!(bank[0].1.occurrences, 333 * 2, "{:#?}", bank[0].1);
    assert_eq!(totals.shared_store_bank_conflicts, 333 * 2);
    assert_eq!(totals.shared_load_bank_conflicts, 0);
    // Two unit-stride float stores per warp: 4 sectors each.
    assert_eq!(totals.global_store_requests, u64::from(BLOCKS) * 2 * 2);
    assert_eq!(totals.global_store_sectors, u64::from(BLOCKS) * 2 * 2 * 4);
    // The uninitialised read and the divergent barrier happen in one block each (block
    // wrote `never`, in its own shared memory, the others with the same observers).
    let uninit = by_code(&findings, Code::UninitRead);
    assert_eq!(uninit.len(), 1, "{findings:#?}");
    assert_eq!(uninit[0].0, 16);
    let text = format!("{:?}", uninit[0].1);
    assert!(text.contains("block (777,0,0)"), "{text}");
    let divergence = by_code(&findings, Code::BarrierDivergence);
    assert_eq!(divergence.len(), 1, "{findings:#?}");
    assert_eq!(divergence[0].1.occurrences, 1);
    let text = format!("{:?}", divergence[0].1);
    assert!(text.contains("block (901,0,0)"), "{text}");
    assert!(
        by_code(&findings, Code::SharedRace).is_empty(),
        "{findings:#?}"
    );
    assert!(
        by_code(&findings, Code::GlobalRace).is_empty(),
        "{findings:#?}"
    );
}

#[test]
fn one_host_thread_and_several_agree() {
    let (one, one_totals) = check(1);
    let (three, three_totals) = check(3);
    assert_eq!(format!("{one:?}"), format!("{three:?}"));
    assert_eq!(format!("{one_totals:?}"), format!("{three_totals:?}"));
}
