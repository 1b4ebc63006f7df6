//! f32 arithmetic against an H100, bit for bit: `tools/gpu/float_ops.cu` (every rounding
//! mode of add, mul, div, fma, sqrt and rcp, `.sat`, `rint`, narrowing from f64 and two
//! conversions, on 4096 input triples with subnormals, zeros, infinities and NaNs) runs
//! under `warpcheck run`, and each op's results must hash to what the GPU gave
//! (`tests/gpu-truth/float-ops.tsv`, made by `tools/gpu/float_ops.sh`; the hash is
//! `tools/gpu/op_hashes.py`'s FNV-1a over the printed result words). Found by the
//! differential generator: directed-rounding products, quotients and roots with
//! subnormal results, NaN results, and `.sat` of -0.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// Op number to the FNV-1a of its result words, each as eight hex digits and a newline.
fn hashes(output: &str) -> BTreeMap<u32, u64> {
    let mut by_op = BTreeMap::new();
    for line in output.lines() {
        let fields: Vec<&str> = line.split_whitespace().collect();
        let (Some(op), Some(result)) = (fields.first(), fields.get(5)) else {
            panic!("unexpected line {line:?}");
        };
        let h = by_op
            .entry(op.parse::<u32>().expect("op number"))
            .or_insert(0xcbf2_9ce4_8422_2325u64);
        for b in result.bytes().chain(std::iter::once(b'\n')) {
            *h = (*h ^ b as u64).wrapping_mul(0x0000_0100_0000_01b3);
        }
    }
    by_op
}

#[test]
fn f32_operations_equal_the_h100_bit_for_bit() {
    let truth = std::fs::read_to_string(root().join("tests/gpu-truth/float-ops.tsv")).unwrap();
    let expected: BTreeMap<u32, u64> = truth
        .lines()
        .filter(|l| !l.starts_with('#'))
        .map(|l| {
            let (op, hash) = l.split_once('\t').expect("OP\tHASH");
            (op.parse().unwrap(), u64::from_str_radix(hash, 16).unwrap())
        })
        .collect();
    let out = Command::new(env!("CARGO_BIN_EXE_warpcheck"))
        .args(["run", "--compiler", "clang"])
        .arg(root().join("tools/gpu/float_ops.cu"))
        .output()
        .expect("warpcheck runs");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let got = hashes(&String::from_utf8_lossy(&out.stdout));
    assert_eq!(got.len(), 34, "34 ops");
    let differing: Vec<u32> = expected
        .iter()
        .filter(|(op, h)| got.get(op) != Some(h))
        .map(|(op, _)| *op)
        .collect();
    assert!(
        differing.is_empty(),
        "ops whose results differ from the H100 (numbered as in tools/gpu/float_ops.cu): {differing:?}"
    );
}
