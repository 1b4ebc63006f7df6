//! # `bank-conflict` (warning)
//!
//! ## What it does
//! Finds shared-memory loads and stores whose active lanes hit one of the 32 banks with
//! several distinct 4-byte words (in phases per the access width: 8-byte accesses in two
//! half-warps, 16-byte ones in four quarter-warps). With a launch the worst warp
//! execution is reported; without one, the lanes are 32 consecutive `threadIdx.x`. The
//! verdict is made in [`super::judge`]; this file proposes the fix.
//!
//! ## Why is this bad?
//! A bank serves one word per cycle: the lanes that hit it with different words are
//! served one after the other, so an N-way conflict takes N wavefronts and the access
//! is N times slower.
//!
//! ## Example
//! ```cuda
//! __shared__ float tile[32][32];
//! float v = tile[threadIdx.x][j]; // word stride 32: every lane in bank j, 32-way
//! ```
//! Use instead: pad the rows, `__shared__ float tile[32][33];` (word stride 33).

use crate::analysis::{Access, Analysis, Region};

/// What would remove the conflict: padding the rows of a 2-D array, or an odd word
/// stride.
pub(super) fn help(
    a: &Analysis<'_>,
    access: &Access,
    stride: Option<i128>,
    degree: u32,
) -> Option<String> {
    let words = stride? / 4;
    if words == 0 {
        return None;
    }
    let row = match &access.region {
        Region::Shared(v) => {
            let var = a.program.variable(*v);
            let dims: Vec<u64> = var.dims.iter().flatten().copied().collect();
            (dims.len() >= 2).then(|| dims[dims.len() - 1])
        }
        _ => None,
    };
    Some(match row {
        Some(r) if r as i128 * (var_elem(a, access) as i128) / 4 == words.abs() => format!(
            "stride {} words → {degree}-way; pad rows to {} elements (`[..][{}]`)",
            words.abs(),
            r + 1,
            r + 1
        ),
        _ => format!(
            "stride {} words → {degree}-way; use an odd word stride (e.g. {}) or pad every 32 words",
            words.abs(),
            words.abs() + 1
        ),
    })
}

pub(super) fn var_elem(a: &Analysis<'_>, access: &Access) -> u64 {
    match &access.region {
        Region::Shared(v) => a.program.variable(*v).element_size(),
        _ => 4,
    }
}
