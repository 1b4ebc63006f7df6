//! # `uncoalesced-data-dependent` (warning, only with `--data-dependent`)
//!
//! ## What it does
//! Finds global loads, stores and atomics whose address varies across the threads of a
//! warp through values read from memory: gathers `x[col[j]]`, scatters
//! `cost[edges[i]]` (and `atomicOr(&dst[pos[tid] / 32], …)` where the kernel walks a
//! range from `pos[tid] / 32`), per-thread ranges `a[start[tid] + i]`. The note names
//! the loaded values the address depends on. Not reported: a loaded index that is the
//! same across the warp (`a[ptr[blockIdx.x] + threadIdx.x]`: a known lane pattern,
//! judged by `uncoalesced-access`, including its record-layout case), an access
//! reported by `uncoalesced-access`, one executed by a single lane, and an index read
//! from a per-thread table (a dense array whose adjacent entries adjacent lanes read,
//! `variables[neighbours[tid + j·n]]`) unless the kernel walks a range from it
//! ([`range_starts`]): such tables usually map threads to nearby elements (Rodinia's cfd
//! mesh neighbours are coalesced in practice).
//!
//! ## Why is this bad?
//! Nothing bounds how far apart the lanes land: for typical graph or sparse inputs each
//! lane touches its own line. Whether they do depends on the data, so the finding says
//! so and asks for a measurement (`warpcheck check` with representative inputs). Off by
//! default (`LintOptions::data_dependent`): GPUDrano reports these, and the Rodinia
//! comparison uses the option for that reason.
//!
//! ## Example
//! ```cuda
//! int tid = blockIdx.x * blockDim.x + threadIdx.x;
//! for (int i = g_graph_nodes[tid].starting; i < g_graph_nodes[tid].starting + g_graph_nodes[tid].no_of_edges; i++) {
//!     int id = g_graph_edges[i];  // a per-thread range read from memory
//!     g_cost[id] = g_cost[tid] + 1; // a scatter through loaded indices
//! }
//! ```

use std::collections::BTreeSet;

use warpcheck_ir::modifiers::MemSpace;
use warpcheck_report::{Code, Finding, Severity};
use warpcheck_sym::{Expr, Symbol};

use super::{
    affine_in_lanes, element_of, kind_word, location_of, offset_expr, readable, varies_in_warp,
    warp_uniform,
};
use crate::analysis::{Access, Analysis, Region};
use crate::dependence::{BoolDep, bool_dep, lane_offsets};
use crate::instantiate::Launch;

/// The loaded values (opaque ids) from which some thread walks a range: a global access
/// whose address adds one to an enclosing loop's counter (`edges[start[tid] + k]`) or to
/// a loop's trip count (`dst[pos[tid] / 32 + i]` after the loop over `i`). Such a value
/// is a per-thread position, not a neighbour index, wherever the kernel uses it.
pub(super) fn range_starts(a: &Analysis<'_>) -> BTreeSet<u32> {
    let mut out = BTreeSet::new();
    for access in &a.accesses {
        if access.space != MemSpace::Global || access.addr.is_unknown() {
            continue;
        }
        let offset = offset_expr(a, access);
        let walks = access.loops.iter().any(|&l| {
            let d = offset.difference(&a.loops[l].counter, &Expr::one());
            !d.is_zero() && !d.is_unknown()
        }) || offset.symbols().iter().any(|s| a.is_trip_count(s));
        if !walks {
            continue;
        }
        for s in offset.symbols() {
            if let Symbol::Opaque(o) = &s
                && a.load_of(&s).is_some()
            {
                out.insert(o.id);
            }
        }
    }
    out
}

/// Whether the lanes of a warp read `e` (the byte offset of a `bytes`-wide load) as one
/// entry each of a dense array, adjacent lanes adjacent entries: affine in `threadIdx.x`
/// with a stride of `±bytes`, and nothing else in it varies within the warp. A field of
/// an array of records (`p[tid].assign`) is not such a table.
pub(super) fn per_thread_entry(e: &Expr, bytes: u32, launch: Option<&Launch>) -> bool {
    affine_in_lanes(e, launch)
        && lane_offsets(e).is_some_and(|offs| {
            let stride = offs[1] - offs[0];
            stride.abs() == bytes as i128 && offs.windows(2).all(|w| w[1] - w[0] == stride)
        })
}

/// `uncoalesced-data-dependent` (only with [`LintOptions::data_dependent`]): a global access
/// whose address is not known from the launch because it is computed from values read
/// from memory that differ between the lanes of a warp: a gather `x[col[j]]`, a scatter
/// `cost[edges[i]]`, a per-thread range `a[start[tid] + i]`. Whether the warp's lanes land
/// on few lines depends on the data; GPUDrano reports all of them. A loaded index that is
/// the same across the warp (`a[ptr[blockIdx.x] + threadIdx.x]`) is not a gather: the
/// address is then a warp-uniform base plus a known lane pattern, which the other rules
/// judge (the record-layout rule, [`misaligned_by_layout`]). Nor is an index read from a
/// per-thread table (`variables[neighbours[tid + j·n]]`, adjacent lanes reading adjacent
/// entries): such tables usually map threads to nearby elements (Rodinia's cfd and srad),
/// unless the kernel walks a range from the value (`dst[pos[tid] / 32 + i]` in a loop over
/// `i`: [`range_starts`]), which makes it a per-thread position.
pub(super) fn data_dependent(
    a: &Analysis<'_>,
    access: &Access,
    launch: Option<&Launch>,
    range_starts: &BTreeSet<u32>,
) -> Option<Finding> {
    if bool_dep(&access.cond) == BoolDep::AtMostOne || access.addr.is_unknown() {
        return None;
    }
    let offset = offset_expr(a, access);
    let mut loaded: Vec<(u32, String)> = Vec::new();
    for s in offset.symbols() {
        let Symbol::Opaque(o) = &s else {
            continue;
        };
        if a.base_var(&s).is_some() || !varies_in_warp(o.deps, launch) {
            continue;
        }
        let Some(inst) = a.load_of(&s) else {
            continue;
        };
        let Some(load) = a.accesses.iter().find(|x| x.inst == inst) else {
            continue;
        };
        // A value loaded from one address per warp is the same on every lane.
        let table = offset_expr(a, load);
        if warp_uniform(&table, launch) {
            continue;
        }
        // An entry of a per-thread table (`nb = neighbours[tid + j·n]`) used as an index:
        // such tables usually map a thread to elements near its own
        // (mesh neighbours, clamped row±1), which coalesce in practice; not guessed at
        // unless the kernel walks a range from it ([`range_starts`]).
        if !range_starts.contains(&o.id) && per_thread_entry(&table, load.bytes, launch) {
            continue;
        }
        let line = location_of(a, inst).map_or(0, |l| l.line);
        let name = format!("`{}[…]`", element_of(a, load));
        let described = if line > 0 {
            format!("{name} (line {line})")
        } else {
            name
        };
        if !loaded.iter().any(|(_, d)| *d == described) {
            loaded.push((line, described));
        }
    }
    if loaded.is_empty() {
        return None;
    }
    loaded.sort();
    let names: Vec<String> = loaded.iter().map(|(_, d)| d.clone()).collect();
    let short: Vec<String> = names
        .iter()
        .map(|d| d.split(" (line").next().unwrap_or(d).to_string())
        .collect();
    let target = element_of(a, access);
    Some(
        Finding::new(
            Code::UncoalescedDataDependent,
            Severity::Warning,
            format!(
                "global {} of `{target}` at an address read from memory ({}): coalescing depends on the data",
                kind_word(access),
                short.join(", ")
            ),
        )
        .note(format!(
            "the address depends on {}, which differ{} between the threads of a warp",
            names.join(", "),
            if names.len() == 1 { "s" } else { "" }
        ))
        .note(format!("byte offset: {}", readable(a, &offset)))
        .help("run `warpcheck check` with representative inputs to measure it"),
    )
    .map(|f| match access.region {
        Region::ReadPointer(_) => f.note(
            "generic access through a pointer read from memory: taken to point to global memory",
        ),
        _ => f,
    })
}
