//! The congruence of a warp-uniform base read from memory (GPUDrano's "incorrect padding",
//! Alur et al. §3.2): `nodes[index[b]].vals[threadIdx.x]` with a 260-byte record starts the
//! warp's 128 bytes only 4-byte aligned for most indices, so with `Granularity::Lines` it is
//! uncoalesced; padding the record to 384 bytes aligns every record and clears it. An
//! element index read from memory (`data[start[b] + threadIdx.x]`) is data, not layout,
//! and stays unreported.

use crate::common;

use common::*;
use warpcheck_lint::warp::Granularity;
use warpcheck_report::Finding;

const SOURCE: &str = r#"
struct Odd { float vals[64]; int count; };
struct __align__(128) Padded { float vals[64]; int count; };

__global__ void odd_records(const Odd *nodes, const int *index, float *out) {
  float v = nodes[index[blockIdx.x]].vals[threadIdx.x];
  out[blockIdx.x * 64 + threadIdx.x] = v;
}

__global__ void padded_records(const Padded *nodes, const int *index, float *out) {
  float v = nodes[index[blockIdx.x]].vals[threadIdx.x];
  out[blockIdx.x * 64 + threadIdx.x] = v;
}

__global__ void element_ranges(const float *data, const int *start, float *out) {
  float v = data[start[blockIdx.x] + threadIdx.x];
  out[blockIdx.x * 64 + threadIdx.x] = v;
}
"#;

fn findings(granularity: Granularity) -> Vec<(String, Vec<Finding>)> {
    uncoalesced_by_kernel(&compile_source("records", SOURCE), granularity)
}

#[test]
fn odd_sized_records_are_flagged_with_the_padding_that_fixes_them() {
    let all = findings(Granularity::Lines);
    let odd = of(&all, "odd_records");
    assert_eq!(odd.len(), 1, "{odd:#?}");
    let f = &odd[0];
    assert_eq!(f.primary.as_ref().map(|p| p.location.line), Some(6));
    assert!(
        f.message
            .contains("2 128-byte lines per request where 1 would do"),
        "{}",
        f.message
    );
    let text = format!("{f:?}");
    assert!(text.contains("moves by 260 bytes"), "{text}");
    assert!(text.contains("only a multiple of 4 bytes"), "{text}");
    assert!(
        text.contains("384"),
        "the help names the padded size: {text}"
    );
}

#[test]
fn padded_records_and_element_ranges_are_not_flagged() {
    let all = findings(Granularity::Lines);
    assert!(of(&all, "padded_records").is_empty(), "{all:#?}");
    assert!(of(&all, "element_ranges").is_empty(), "{all:#?}");
}

#[test]
fn sectors_accept_a_four_byte_shift() {
    // 5 sectors for 128 bytes: within the sector convention (S ≥ 2·I fails).
    let all = findings(Granularity::Sectors);
    assert!(all.iter().all(|(_, f)| f.is_empty()), "{all:#?}");
}
