//! `Granularity::Lines` (GPUDrano §3.2: 128-byte lines, uncoalesced above the ideal) against
//! the default sector count, on kernels written for this test: the two kinds of access
//! that GPUDrano calls uncoalesced and 32-byte sectors do not — a 16×16 block reading
//! two rows per warp, and a unit-stride warp shifted off a line boundary — and a
//! unit-stride access that neither flags.

use crate::common;

use std::collections::BTreeSet;

use common::compile_source;
use warpcheck_lint::warp::Granularity;
use warpcheck_lint::{Launch, LintOptions, lint_kernel};
use warpcheck_report::Code;

const SOURCE: &str = r#"
__global__ void rows_and_shifts(const float *in, float *out, int n) {
  int x = blockIdx.x * 16 + threadIdx.x;
  int y = blockIdx.y * 16 + threadIdx.y;
  float v = in[y * n + x];
  int i = (blockIdx.y * gridDim.x + blockIdx.x) * 256 + threadIdx.y * 16 + threadIdx.x;
  float w = in[i + 2];
  out[i] = v + w;
}
"#;

/// The source lines flagged uncoalesced for a 16×16 block over 1024-float rows.
fn flagged(granularity: Granularity) -> BTreeSet<u32> {
    let program = compile_source("rows_and_shifts", SOURCE);
    let kernel = program.kernels().next().expect("one kernel");
    let mut scalars = std::collections::BTreeMap::new();
    scalars.insert("n".to_string(), 1024);
    let lint = LintOptions {
        param_names: vec!["in".into(), "out".into(), "n".into()],
        launch: Some(Launch {
            grid: [64, 64, 1],
            block: [16, 16, 1],
        }),
        scalars,
        granularity,
        data_dependent: false,
    };
    let findings = lint_kernel(&program, kernel, &lint);
    findings
        .iter()
        .filter(|f| f.code == Code::UncoalescedAccess)
        .filter_map(|f| f.primary.as_ref().map(|p| p.location.line))
        .collect()
}

#[test]
fn lines_flag_two_rows_per_warp_and_shifted_warps() {
    // Line 5: two 64-byte rows 4 KiB apart per warp; line 7: 128 bytes starting 8 bytes
    // into a line. Line 8 (out[i]) is aligned and contiguous.
    assert_eq!(flagged(Granularity::Lines), BTreeSet::from([5, 7]));
}

#[test]
fn sectors_flag_neither() {
    // 4 sectors for 128 bytes, and 5 for 4: within the sector convention (S ≥ 2·I).
    assert_eq!(flagged(Granularity::Sectors), BTreeSet::new());
}
