//! # Record accesses split by the compiler (both access lints)
//!
//! ## What it does
//! Groups the narrow accesses into which clang splits one source-level access of a
//! vector or small struct (a `float4` copy into two 8-byte halves, or four 4-byte loads
//! at `-O0`; a `uchar4` of which three components are used into three byte loads), so
//! that `uncoalesced-access` and `bank-conflict` judge them together as one access of
//! the record, as nvcc's single 16-byte access would be. The loads (or stores) of one
//! source line with the same kind, space, region, condition and loops, whose addresses
//! differ by constants and whose bytes fit in a record of `R` bytes (`R` the largest
//! power of two up to 16 that the stride along `threadIdx.x` is a multiple of) form one
//! unit. When the record access is coalesced and conflict-free none of its pieces is
//! reported; otherwise the line is reported with each instruction's own cost, as the
//! hardware and `warpcheck check` count it, and a note names the pieces. The grouping
//! is per line, not per expression: two fields of one 16-byte record read on one line
//! (`z[2*i] + z[2*i+1]`) count as one access too.
//!
//! ## Why is this bad?
//! It is not: each piece alone has its lanes a record apart and looks strided (17
//! sectors for a misaligned `float4` read as floats), although together the warp reads
//! the records contiguously. Judging pieces alone would report false positives.
//!
//! ## Example
//! ```cuda
//! __global__ void copy(float4 *out, const float4 *in) {
//!     int i = blockIdx.x * blockDim.x + threadIdx.x;
//!     out[i] = in[i]; // at -O0: four 4-byte loads 16 bytes apart, judged as one 16-byte load
//! }
//! ```

use std::collections::HashMap;

use warpcheck_report::Location;
use warpcheck_sym::{Axis, Expr, Symbol};

use crate::analysis::Access;
use crate::instantiate::Metric;

/// One access to judge: a load or store, or the components of one record access that the
/// compiler split (see [`record_units`]).
pub(super) struct RecordUnit<'x> {
    /// The component at the lowest address (the access itself when alone).
    pub(super) access: &'x Access,
    pub(super) location: Location,
    pub(super) metric: Metric,
    /// What each lane touches: (byte offset from `access`'s address, bytes), by offset.
    pub(super) pieces: Vec<(i128, u32)>,
}

/// The widest record that clang's pieces are taken to form: a vector access moves at most
/// 16 bytes per lane.
pub(super) const MAX_RECORD: i128 = 16;

/// Groups the components of split record accesses. clang turns one source-level access
/// of a vector or small struct (`float4`, `uchar4`, a struct copy) into several narrower
/// accesses: at `-O0` a `float4` is four 4-byte loads at +0, +4, +8, +12, at `-O3` often
/// two 8-byte halves, and unused components are not loaded at all (`uchar4` as three
/// bytes). Each piece alone has its lanes a record apart and looks strided, although
/// together they read the record contiguously, as nvcc's single 16-byte access does.
///
/// The accesses of one source line with the same kind, space, region, condition and
/// enclosing loops whose addresses differ by constants (so the same base and the same
/// thread-dependent stride) form a record when their bytes fit in `R` bytes, `R` the
/// largest power of two up to 16 that divides the stride along `threadIdx.x` (a record
/// never spans two lanes' records); pieces sorted by offset are split greedily into such
/// records. What is left alone is judged alone.
pub(super) fn record_units<'x>(
    candidates: Vec<(&'x Access, Location, Metric)>,
) -> Vec<RecordUnit<'x>> {
    // Clusters: accesses of one line that may be components of one record, with their
    // offsets from the first member; indexed by source line.
    // Members: (access, offset, its line, its position among the candidates).
    type Member<'x> = (&'x Access, i128, Location, usize);
    let mut clusters: Vec<(Metric, Vec<Member<'x>>)> = Vec::new();
    let mut by_line: HashMap<(String, u32), Vec<usize>> = HashMap::new();
    for (n, (access, location, metric)) in candidates.into_iter().enumerate() {
        let line = by_line
            .entry((location.file.clone(), location.line))
            .or_default();
        let joined = line.iter().find_map(|&c| {
            let (m, members) = &mut clusters[c];
            let first = members[0].0;
            let same = *m == metric
                && first.kind == access.kind
                && first.space == access.space
                && first.region == access.region
                && first.loops == access.loops
                && first.cond == access.cond;
            if !same {
                return None;
            }
            let d = access.addr.sub(&first.addr).as_integer()?;
            members.push((access, d, location.clone(), n));
            Some(())
        });
        if joined.is_none() {
            line.push(clusters.len());
            clusters.push((metric, vec![(access, 0, location, n)]));
        }
    }
    let mut out = Vec::new();
    for (metric, mut members) in clusters {
        let record = if members.len() > 1 {
            record_size(&members[0].0.addr)
        } else {
            0
        };
        members.sort_by_key(|m| (m.1, m.3));
        let mut i = 0;
        while i < members.len() {
            let (base, start, ref location, _) = members[i];
            let mut pieces = vec![(0, base.bytes)];
            let mut first = members[i].3;
            let mut j = i + 1;
            while j < members.len() {
                let (x, d, _, n) = members[j];
                if d + x.bytes as i128 - start > record {
                    break;
                }
                pieces.push((d - start, x.bytes));
                first = first.min(n);
                j += 1;
            }
            out.push((
                first,
                RecordUnit {
                    access: base,
                    location: location.clone(),
                    metric,
                    pieces,
                },
            ));
            i = j;
        }
    }
    // In the order of the accesses.
    out.sort_by_key(|u| u.0);
    out.into_iter().map(|u| u.1).collect()
}

/// The largest record size up to [`MAX_RECORD`] that the access's stride along
/// `threadIdx.x` is a multiple of (a power of two); 0 when the stride is not known to be
/// a multiple of anything.
pub(super) fn record_size(addr: &Expr) -> i128 {
    let stride = addr.difference(&Symbol::ThreadIdx(Axis::X), &Expr::one());
    if stride.is_unknown() {
        return 0;
    }
    // The gcd of the integer coefficients (0 for a stride of 0: any record fits).
    let mut g = 0;
    for t in stride.terms() {
        match t.coef.as_integer() {
            Some(c) => g = warpcheck_sym::gcd_i128(g, c),
            None => return 0,
        }
    }
    let mut r = MAX_RECORD;
    while r > 1 && g % r != 0 {
        r /= 2;
    }
    r
}

/// The note of a finding on a record access.
pub(super) fn record_note(access: &Access, pieces: &[(i128, u32)]) -> String {
    let span = pieces
        .iter()
        .map(|&(o, b)| o + b as i128)
        .max()
        .unwrap_or(access.bytes as i128);
    let list: Vec<String> = pieces
        .iter()
        .map(|&(o, b)| format!("{b} bytes at +{o}"))
        .collect();
    format!(
        "judged as one {span}-byte record access per thread, with the other accesses of this line \
         to the same record ({}), as a vector access would be (clang splits vector and struct \
         copies): the record access is uncoalesced or conflicting too; each instruction costs as \
         reported",
        list.join(", ")
    )
}
