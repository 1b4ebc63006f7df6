//! Generic accesses through device pointers that the host stored in memory (heartwall's
//! `d_unique[bx].d_in2[i]`, a `__constant__` array of structs of pointers): clang cannot
//! tell which state space such a pointer reaches and emits generic loads and stores. The
//! lint takes them to be global (pointers the host stores are device pointers), names the
//! pointer's origin and says so in a note; a unit-stride access through one stays clean.

use crate::common;

use common::*;
use warpcheck_lint::warp::Granularity;
use warpcheck_report::{Code, Finding};

const SOURCE: &str = r#"
struct Buffers { float *columns; float *sums; };
__constant__ Buffers tables[4];

__global__ void through_stored_pointers(int n) {
  const Buffers &t = tables[blockIdx.x];
  float s = 0.0f;
  for (int i = 0; i < 16; ++i)
    s += t.columns[threadIdx.x * n + i];
  t.sums[blockIdx.x * 64 + threadIdx.x] = s;
}
"#;

/// The `depends-on` notes: without a launch, a stride of `4·n` bytes is uncoalesced only
/// for some `n`.
fn findings(granularity: Granularity) -> Vec<(String, Vec<Finding>)> {
    findings_by_kernel(
        &compile_source("pointers", SOURCE),
        &ParamNames::new(),
        granularity,
        false,
        Code::DependsOn,
    )
}

#[test]
fn strided_access_through_a_stored_pointer_is_flagged_and_unit_stride_is_not() {
    let all = findings(Granularity::Lines);
    let found = of(&all, "through_stored_pointers");
    let lines: Vec<u32> = found
        .iter()
        .filter_map(|f| f.primary.as_ref().map(|p| p.location.line))
        .collect();
    assert_eq!(lines, vec![9], "{found:#?}");
    let f = &found[0];
    assert!(f.message.contains("pointer read from tables"), "{f:#?}");
    assert!(
        f.notes
            .iter()
            .any(|n| n.contains("taken to point to global memory")),
        "{f:#?}"
    );
}
