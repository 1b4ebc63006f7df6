//! Value-based benign races (as LD, Li et al., defines them): threads that all write the
//! same value to one location race in the access sense but change nothing. The race
//! checker reports such a write-write race as a `benign-race` warning with the value;
//! a racy write of different values stays an error, and `strict_races` makes the benign
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
