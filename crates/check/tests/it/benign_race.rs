//! Value-based benign races (as LD, Li et al., defines them): threads that all write the
//! same value to one location race in the access sense but change nothing. The race
//! checker reports such a write-write race as a `benign-race` warning with the value,
//! judged per location (other locations may receive other values); a racy write of a
//! different value at some location stays an error, and `strict_races` makes the benign
//! ones errors too.

use crate::common;

use common::*;
use warpcheck_check::{CheckOptions, Checker, Tools};
use warpcheck_report::{Code, Severity};

const KERNEL: &str = r#"
__global__ void sameValue(int* out, int* flag)
{
    __shared__ int found;
    if (threadIdx.x == 0) found = 0;
    __syncthreads();
    if (threadIdx.x % 3 == 0) found = 1;
    flag[0] = 7;
    __syncthreads();
    out[blockIdx.x * blockDim.x + threadIdx.x] = found;
}

__global__ void differentValues(int* out, int* last)
{
    __shared__ int who;
    if (threadIdx.x % 3 == 0) who = threadIdx.x;
    last[0] = blockIdx.x;
    __syncthreads();
    out[blockIdx.x * blockDim.x + threadIdx.x] = who;
}
"#;

fn run(kernel: &str, strict: bool) -> Vec<warpcheck_report::Finding> {
    let mut s = Session::new(compile_source(&format!("benign_{kernel}"), KERNEL), "race");
    s.checker = Checker::new(CheckOptions {
        tools: Tools::parse("race").unwrap(),
        strict_races: strict,
        ..CheckOptions::default()
    });
    let out = s.zeros("out", 4 * 128 * 4);
    let other = s.zeros("other", 16);
    s.launch(
        kernel,
        [4, 1, 1],
        [128, 1, 1],
        0,
        &[A::Ptr(out), A::Ptr(other)],
    );
    s.findings()
}

#[test]
fn same_value_writes_are_a_benign_race_warning_with_the_value() {
    let f = run("sameValue", false);
    let benign = by_code(&f, Code::BenignRace);
    // `found = 1` between warps and lanes of a block, and `flag[0] = 7` within and
    // between blocks: warnings, no error.
    assert!(f.iter().all(|x| x.severity != Severity::Error), "{f:#?}");
    let lines: Vec<u32> = benign.iter().map(|b| b.0).collect();
    assert!(lines.contains(&7) && lines.contains(&8), "{f:#?}");
    let found = benign.iter().find(|b| b.0 == 7).unwrap().1;
    assert!(found.message.contains("same value (1)"), "{found:#?}");
    let flag = benign.iter().find(|b| b.0 == 8).unwrap().1;
    assert!(flag.message.contains("same value (7)"), "{flag:#?}");
    assert_eq!(found.severity, Severity::Warning);
}

#[test]
fn strict_races_makes_same_value_writes_errors() {
    let f = run("sameValue", true);
    assert!(by_code(&f, Code::BenignRace).is_empty(), "{f:#?}");
    let shared = by_code(&f, Code::SharedRace);
    assert_eq!(shared.len(), 1, "{f:#?}");
    assert_eq!(shared[0].0, 7);
    let global = by_code(&f, Code::GlobalRace);
    assert!(
        global.iter().all(|g| g.0 == 8) && !global.is_empty(),
        "{f:#?}"
    );
}

#[test]
fn writes_of_different_values_stay_errors() {
    let f = run("differentValues", false);
    assert!(by_code(&f, Code::BenignRace).is_empty(), "{f:#?}");
    let shared = by_code(&f, Code::SharedRace);
    assert_eq!(shared.len(), 1, "{f:#?}");
    assert_eq!((shared[0].0, shared[0].1.severity), (16, Severity::Error));
    // `last[0] = blockIdx.x`: the same value within a block, different between blocks.
    let global = by_code(&f, Code::GlobalRace);
    assert_eq!(global.len(), 1, "{f:#?}");
    assert_eq!(global[0].0, 17);
    assert!(
        global[0].1.message.contains("between blocks"),
        "{:#?}",
        global[0].1
    );
    let benign_within: Vec<_> = f.iter().filter(|x| x.code == Code::BenignRace).collect();
    assert!(benign_within.is_empty());
}

/// Sub-groups (the `blockDim.z` sub-blocks of a block, or the blocks) that store the same
/// value at each location, different values at different locations, as llm.c's
/// `fused_residual_forward_kernel6` caches its weights. `bad_z` and `bad_block` pick a
/// sub-block and a block that store 7 at one location instead (-1: none).
const PER_LOCATION: &str = r#"
__global__ void perLocation(const int* w, int* mine, int* all, int* out, int bad_z, int bad_block)
{
    __shared__ int s_w[64];
    for (int i = threadIdx.x; i < 64; i += 32) {
        s_w[i] = (threadIdx.z == bad_z && i == 5) ? 7 : w[i];
        mine[blockIdx.x * 64 + i] = (threadIdx.z == bad_z && i == 6) ? 7 : w[i];
        if (threadIdx.z == 0) all[i] = (blockIdx.x == bad_block && i == 3) ? 7 : w[i];
    }
    __syncthreads();
    out[(blockIdx.x * blockDim.z + threadIdx.z) * 32 + threadIdx.x] = s_w[threadIdx.x];
}
"#;

/// The lines of `PER_LOCATION`'s stores: shared within a block, global within a block
/// (each block its own part of `mine`), global between blocks (one sub-block per block).
const SHARED_LINE: u32 = 6;
const MINE_LINE: u32 = 7;
const ALL_LINE: u32 = 8;

fn run_per_location(bad: i32, strict: bool) -> Vec<warpcheck_report::Finding> {
    let compiled = compile_source("benign_per_location", PER_LOCATION);
    let mut s = Session::new(compiled, "race");
    s.checker = Checker::new(CheckOptions {
        tools: Tools::parse("race").unwrap(),
        strict_races: strict,
        ..CheckOptions::default()
    });
    let w: Vec<u8> = (0..64i32).flat_map(|i| (100 + i).to_le_bytes()).collect();
    let w = s.buffer("w", &w, true);
    let mine = s.zeros("mine", 4 * 64 * 4);
    let all = s.zeros("all", 64 * 4);
    let out = s.zeros("out", 4 * 4 * 32 * 4);
    let (bad_z, bad_block) = if bad < 0 { (-1, -1) } else { (1, 2) };
    let args = [A::Ptr(w), A::Ptr(mine), A::Ptr(all), A::Ptr(out)];
    let mut args = args.to_vec();
    args.extend([A::I32(bad_z), A::I32(bad_block)]);
    s.launch("perLocation", [4, 1, 1], [32, 1, 4], 0, &args);
    s.findings()
}

#[test]
fn equal_values_per_location_from_every_sub_group_are_benign_races() {
    let f = run_per_location(-1, false);
    assert!(f.iter().all(|x| x.severity != Severity::Error), "{f:#?}");
    let benign = by_code(&f, Code::BenignRace);
    let lines: Vec<u32> = benign.iter().map(|b| b.0).collect();
    assert_eq!(lines, [SHARED_LINE, MINE_LINE, ALL_LINE], "{f:#?}");
    for (line, b) in &benign {
        assert!(
            b.message
                .contains("already written at its location (here 10"),
            "line {line}: {b:#?}"
        );
    }
    let all = benign.iter().find(|b| b.0 == ALL_LINE).unwrap().1;
    assert!(all.message.contains("between blocks"), "{all:#?}");
    let mine = benign.iter().find(|b| b.0 == MINE_LINE).unwrap().1;
    assert!(
        mine.message.contains("between warps of one block"),
        "{mine:#?}"
    );
}

#[test]
fn one_location_of_two_values_is_an_error_with_the_values() {
    let f = run_per_location(1, false);
    assert!(by_code(&f, Code::BenignRace).is_empty(), "{f:#?}");
    let shared = by_code(&f, Code::SharedRace);
    assert_eq!(shared.len(), 1, "{f:#?}");
    assert_eq!(shared[0].0, SHARED_LINE);
    assert_eq!(shared[0].1.severity, Severity::Error);
    let m = &shared[0].1.message;
    assert!(m.contains("`s_w` + 20 bytes"), "{m}");
    assert!(m.contains("different values there (105, then 7)"), "{m}");
    let global = by_code(&f, Code::GlobalRace);
    let lines: Vec<u32> = global.iter().map(|g| g.0).collect();
    assert_eq!(lines, [MINE_LINE, ALL_LINE], "{f:#?}");
    assert!(
        global[0].1.message.contains("`mine` + 24 bytes"),
        "{global:#?}"
    );
    assert!(
        global[1]
            .1
            .message
            .contains("`all` + 12 bytes, between blocks")
    );
}
