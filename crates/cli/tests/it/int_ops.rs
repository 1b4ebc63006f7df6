//! Everything else the differential generator emits, against an H100 bit for bit:
//! `tools/gpu/int_ops.cu` (integer arithmetic, division and remainder including by zero,
//! shifts by any count, bit operations, byte permutes, funnel shifts, compares and selects
//! with NaN, every float/integer and f32/f64 conversion in every rounding mode, f64
//! arithmetic in every rounding mode, warp shuffles, votes, reductions and matches, and
//! the final values of order-independent atomics, on 4096 inputs each) runs under
//! `warpcheck run`, and each op's results must hash to what the GPU gave
//! (`tests/gpu-truth/int-ops.tsv`, made by `tools/gpu/int_ops.sh`; the hash is
//! `tools/gpu/op_hashes.py`'s FNV-1a over the last field of each of the op's lines).
//! `tools/gpu/float_ops.cu` and `float_ops.rs` do the same for f32 arithmetic.

use super::op_truth::{hashes, run_program, truth};

/// Ops whose results differ from the H100's. A listed op that agrees fails the test, so
/// the list stays honest.
///
/// All five are clang's PTX not being nvcc's (the H100 ran nvcc's), not the emulator: clang
/// writes `-x`, `fabsf`, `-d` and `fabs` as `xor`/`and` on the bits (which keep a NaN's
/// payload and flip or clear its sign, on a GPU too), where nvcc writes `neg` and `abs`,
/// which give the H100's canonical or quietened NaN. (clang's `copysignf`, `abs.f32` and
/// `neg.f32` into `selp`, agrees: ptxas folds them into one `FSEL`, which keeps the
/// payload as `copysign.f32` does; `translate::fold` in the emulator.) With
/// `--compiler nvcc` all 260 ops agree.
const KNOWN_DIFFERENCES: &[&str] = &["fabsf", "fneg", "fneg_of_add", "dabs", "dneg"];

#[test]
fn integer_conversion_f64_and_warp_operations_equal_the_h100_bit_for_bit() {
    let expected = truth(
        "int-ops.tsv",
        "`bash tools/gpu/int_ops.sh OUT` (copy OUT/int-ops.tsv)",
    );
    let output = run_program("int_ops.cu");
    let got = hashes(&output, |f| Some((*f.first()?, *f.last()?)));
    let unrecorded: Vec<&String> = got
        .keys()
        .filter(|op| !expected.contains_key(*op))
        .collect();
    let missing: Vec<&String> = expected
        .keys()
        .filter(|op| !got.contains_key(*op))
        .collect();
    assert!(
        unrecorded.is_empty() && missing.is_empty(),
        "tools/gpu/int_ops.cu and tests/gpu-truth/int-ops.tsv have different ops (rerun \
         tools/gpu/int_ops.sh on the GPU after changing the program): printed but not \
         recorded {unrecorded:?}; recorded but not printed {missing:?}"
    );
    let differing: Vec<&String> = expected
        .iter()
        .filter(|(op, h)| got.get(*op) != Some(h) && !KNOWN_DIFFERENCES.contains(&op.as_str()))
        .map(|(op, _)| op)
        .collect();
    let agreeing: Vec<&&str> = KNOWN_DIFFERENCES
        .iter()
        .filter(|op| got.contains_key(**op) && got.get(**op) == expected.get(**op))
        .collect();
    assert!(
        agreeing.is_empty(),
        "listed in KNOWN_DIFFERENCES but equal to the H100 now: {agreeing:?}"
    );
    assert!(
        differing.is_empty(),
        "{} of {} ops differ from the H100 (besides KNOWN_DIFFERENCES) (named as in tools/gpu/int_ops.cu; compare the \
         lines of `warpcheck run tools/gpu/int_ops.cu` with the GPU's int_ops.txt): \
         {differing:?}",
        differing.len(),
        expected.len()
    );
}
