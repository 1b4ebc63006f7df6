//! f32 arithmetic against an H100, bit for bit: `tools/gpu/float_ops.cu` (every rounding
//! mode of add, mul, div, fma, sqrt and rcp, `.sat`, `rint`, narrowing from f64 and two
//! conversions, on 4096 input triples with subnormals, zeros, infinities and NaNs) runs
//! under `warpcheck run`, and each op's results must hash to what the GPU gave
//! (`tests/gpu-truth/float-ops.tsv`, made by `tools/gpu/float_ops.sh`; the hash is
//! `tools/gpu/op_hashes.py`'s FNV-1a over the printed result words). Found by the
//! differential generator: directed-rounding products, quotients and roots with
//! subnormal results, NaN results, and `.sat` of -0.

use super::op_truth::{hashes, run_program, truth};

#[test]
fn f32_operations_equal_the_h100_bit_for_bit() {
    let expected = truth("float-ops.tsv", "tools/gpu/float_ops.sh");
    let output = run_program("float_ops.cu");
    let got = hashes(&output, |f| Some((*f.first()?, *f.get(5)?)));
    assert_eq!(got.len(), 34, "34 ops");
    let differing: Vec<&String> = expected
        .iter()
        .filter(|(op, h)| got.get(*op) != Some(h))
        .map(|(op, _)| op)
        .collect();
    assert!(
        differing.is_empty(),
        "ops whose results differ from the H100 (numbered as in tools/gpu/float_ops.cu): {differing:?}"
    );
}
