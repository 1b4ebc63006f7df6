//! Programs of `tools/gpu/` whose whole output an H200 gave (`tests/gpu-truth/`, the GPU,
//! driver and nvcc in each file's `#` lines): under `warpcheck run` they must print the
//! same lines, bit for bit.

use std::process::Command;

use crate::op_truth::root;

/// `warpcheck run tools/gpu/PROGRAM` with `args` against `tests/gpu-truth/TRUTH`, both
/// without their `#` lines; the first differing line is named.
fn assert_output_is_the_gpus(program: &str, args: &[&str], truth: &str) {
    let out = Command::new(env!("CARGO_BIN_EXE_warpcheck"))
        .arg("run")
        .arg(root().join("tools/gpu").join(program))
        .args(args)
        .output()
        .expect("warpcheck runs");
    assert!(
        out.status.success(),
        "{program}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = std::fs::read_to_string(root().join("tests/gpu-truth").join(truth)).unwrap();
    let data = |s: &str| -> Vec<String> {
        s.lines()
            .filter(|l| !l.starts_with('#'))
            .map(str::to_string)
            .collect()
    };
    let (want, got) = (data(&text), data(&String::from_utf8_lossy(&out.stdout)));
    assert_eq!(want.len(), got.len(), "{program}: line count");
    if let Some((w, g)) = want.iter().zip(&got).find(|(w, g)| w != g) {
        panic!("{program}: the H200 printed\n  {w}\nwarpcheck printed\n  {g}");
    }
}

/// `atom.add.noftz` on `.f16x2`, `.bf16x2` and `.bf16`: round to nearest even per lane,
/// subnormals kept, NaN results the canonical `0x7fff`.
#[test]
fn half_precision_atomic_adds_equal_the_h200() {
    assert_output_is_the_gpus("half_atomics.cu", &["--arch", "sm_90"], "half-atomics.txt");
}

/// Linear filtering of a 2×2 float texture at 1,024 fractions along x and along y: the
/// weights' 8-bit fixed-point rounding.
#[test]
fn linear_texture_filtering_equals_the_h200() {
    assert_output_is_the_gpus("texture_filtering.cu", &[], "texture-filtering.txt");
}
