//! What the op-truth tests share (`float_ops.rs`, `int_ops.rs`): a program of
//! `tools/gpu/` run under `warpcheck run`, its output hashed per op as
//! `tools/gpu/op_hashes.py` does (64-bit FNV-1a over one result field of each of the op's
//! lines, each followed by a newline), and the GPU's hashes read from `tests/gpu-truth/`.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;

pub fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../..")
        .canonicalize()
        .expect("repository root")
}

/// Op to the FNV-1a of its result fields: `field(line's fields)` gives (op, result).
pub fn hashes<'a>(
    output: &'a str,
    field: impl Fn(&[&'a str]) -> Option<(&'a str, &'a str)>,
) -> BTreeMap<String, u64> {
    let mut by_op = BTreeMap::new();
    for line in output.lines() {
        let fields: Vec<&str> = line.split_whitespace().collect();
        let Some((op, result)) = field(&fields) else {
            panic!("unexpected line {line:?}");
        };
        let h = by_op
            .entry(op.to_string())
            .or_insert(0xcbf2_9ce4_8422_2325u64);
        for b in result.bytes().chain(std::iter::once(b'\n')) {
            *h = (*h ^ b as u64).wrapping_mul(0x0000_0100_0000_01b3);
        }
    }
    by_op
}

/// The GPU's hashes (`OP\tHASH` lines after `#` comments) of `tests/gpu-truth/NAME`.
pub fn truth(name: &str, how: &str) -> BTreeMap<String, u64> {
    let path = root().join("tests/gpu-truth").join(name);
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| {
        panic!(
            "{}: {e}. It is made on the GPU host by {how}",
            path.display()
        )
    });
    text.lines()
        .filter(|l| !l.starts_with('#'))
        .map(|l| {
            let (op, hash) = l.split_once('\t').expect("OP\tHASH");
            (
                op.to_string(),
                u64::from_str_radix(hash, 16).expect("hex hash"),
            )
        })
        .collect()
}

/// The stdout of `warpcheck run --compiler clang tools/gpu/PROGRAM`, which must succeed.
pub fn run_program(program: &str) -> String {
    let out = Command::new(env!("CARGO_BIN_EXE_warpcheck"))
        .args(["run", "--compiler", "clang"])
        .arg(root().join("tools/gpu").join(program))
        .output()
        .expect("warpcheck runs");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}
