//! # `uncoalesced-access` (warning)
//!
//! ## What it does
//! Finds global loads and stores whose warp touches many more transactions (32-byte
//! sectors, or 128-byte lines with `--granularity line`) than its bytes need
//! (`S ≥ 2·I` and `S ≥ I + 2`, the corpus convention). With a launch (`--block`,
//! `--grid`, `--arg`) the symbolic address is instantiated and the worst warp execution
//! is reported exactly; without one, the lanes of a warp are taken as 32 consecutive
//! `threadIdx.x` (assuming `blockDim.x` is a multiple of 32), and a symbolic stride such
//! as `4·height` gives an upper bound of 32 per request ([`symbolic_stride`]). A single
//! active lane per warp (`if (threadIdx.x % 32 == 0)`) is never uncoalesced, and
//! data-dependent addresses are left to `uncoalesced-data-dependent`.
//! One data-dependent case is modelled ([`misaligned_by_layout`]): a warp-uniform index
//! read from memory times a record size of at least a transaction
//! (`knodes[currKnode[b]].keys[threadIdx.x]` with a 2,068-byte node) makes the base known
//! only modulo `gcd(size, 128)`; when some such base makes the warp touch more lines than
//! needed, the access is flagged with the padding that aligns every record (GPUDrano's
//! "incorrect padding").
//!
//! ## Why is this bad?
//! Each sector is a separate DRAM transaction: a warp reading 32 floats 128 bytes apart
//! moves 1024 bytes for 128 useful ones (GPUDrano §3.2). The help proposes a mapping of
//! threads to indices that would coalesce (Juravle §5.1 "what if"): another thread index
//! or an enclosing loop along which the address advances by one element.
//!
//! ## Example
//! ```cuda
//! __global__ void transpose(float *odata, const float *idata, int width, int height) {
//!     int x = blockIdx.x * 32 + threadIdx.x, y = blockIdx.y;
//!     odata[x * height + y] = idata[y * width + x]; // adjacent threads 4·height bytes apart
//! }
//! ```
//! Use instead: stage a tile through shared memory so that the store also walks
//! `threadIdx.x` along consecutive addresses.

use warpcheck_report::{Code, Finding, Severity};
use warpcheck_sym::{Axis, Context, Expr, Symbol};

use super::{element_of, kind_word, location_of, offset_expr, readable};
use crate::analysis::{Access, Analysis};
use crate::warp;

/// Without a launch, an address whose stride along `threadIdx.x` is symbolic
/// (`4·height`): judged by [`super::unknown::sectors`] (a warning when uncoalesced for
/// every value, a `depends-on` note with the threshold otherwise); `lint-undecided` when
/// the address is not affine in `threadIdx.x`; `None` when the stride is within the
/// access's width.
pub(super) fn symbolic_stride(
    a: &Analysis<'_>,
    access: &Access,
    offset: &Expr,
    pieces: &[(i128, u32)],
    granularity: warp::Granularity,
) -> Option<(u32, Finding)> {
    let tid = Symbol::ThreadIdx(Axis::X);
    // A symbolic stride: an upper bound, with the assumptions it needs.
    let stride = offset.difference(&tid, &Expr::one());
    if stride.is_zero() || stride.is_unknown() {
        return None;
    }
    let ctx = Context::assuming_positive_params();
    // A stride within the access's (or its record's) width is contiguous.
    let width = pieces
        .iter()
        .map(|&(o, b)| o + b as i128)
        .max()
        .unwrap_or(access.bytes as i128);
    let small = warpcheck_sym::Rational::int(width);
    let range = ctx.range(&stride).value;
    let neg_small = warpcheck_sym::Rational::int(-width);
    if range.lo.is_some_and(|v| v >= neg_small) && range.hi.is_some_and(|v| v <= small) {
        return None;
    }
    if stride.depends_on(&tid) {
        // Not affine in threadIdx.x (a division, a remainder, a product of two lanes'
        // values): no one stride to judge.
        let f = super::unknown::undecided(a, access, "coalesces", &stride, offset);
        return Some((0, f));
    }
    let (degree, mut f) = super::unknown::sectors(a, access, &stride, offset, pieces, granularity)?;
    if f.code == warpcheck_report::Code::UncoalescedAccess
        && let Some(h) = help(a, access)
    {
        f = f.help(h);
    }
    Some((degree, f))
}

/// A warp-uniform term `c·X` of an address where `X` is a value loaded from memory
/// (`knodes[currKnode[bid]].keys[threadIdx.x]`: `X = currKnode[bid]`, `c` = the size of
/// a node) and its constant coefficient `c`.
#[derive(Debug, PartialEq, Eq)]
pub(super) struct LayoutTerm {
    loaded: String,
    coefficient: i128,
}

/// The warp-uniform, memory-loaded terms of `offset` whose constant coefficient is at least
/// a transaction wide (`unit` bytes): an index into an array of records or rows as wide as
/// a warp's request, whose size the programmer chose. `None` when such a value appears
/// non-linearly (the congruence is then not known). Smaller coefficients (`a[ptr[b] +
/// tid]`: an element index read from memory) are left alone: whether those start on a line
/// depends on the data, not on the layout.
pub(super) fn layout_terms(a: &Analysis<'_>, offset: &Expr, unit: i128) -> Option<Vec<LayoutTerm>> {
    let mut out = Vec::new();
    for t in offset.terms() {
        let loaded_uniform = |s: &Symbol| {
            matches!(s, Symbol::Opaque(o) if !o.deps.varies_in_block())
                && a.base_var(s).is_none()
                && a.loaded_by(s).is_some()
        };
        let uses_loaded = t
            .mono
            .factors()
            .iter()
            .any(|(atom, _)| matches!(atom, warpcheck_sym::Atom::Sym(s) if loaded_uniform(s)));
        if !uses_loaded {
            continue;
        }
        let [(warpcheck_sym::Atom::Sym(s), 1)] = t.mono.factors() else {
            return None;
        };
        let c = t.coef.as_integer()?;
        if c.abs() >= unit {
            let loaded = a
                .loaded_by(s)
                .and_then(|inst| a.accesses.iter().find(|x| x.inst == inst))
                .map_or_else(
                    || format!("`{s}`"),
                    |x| {
                        format!(
                            "`{}` (loaded at byte offset {})",
                            element_of(a, x),
                            readable(a, &offset_expr(a, x))
                        )
                    },
                );
            out.push(LayoutTerm {
                loaded,
                coefficient: c.abs(),
            });
        }
    }
    Some(out)
}

/// The congruence of a warp-uniform, data-dependent base (Alur et al. §3.2, GPUDrano's
/// "incorrect padding"): when the address is `Σ cᵢ·Xᵢ + k + f(threadIdx.x)` with `Xᵢ` loaded
/// from memory and uniform across the warp, the base is known only modulo
/// `g = gcd(cᵢ)`; modulo the transaction size `u` it can be `k + j·gcd(g, u)` for any `j`.
/// Kernel parameters keep their assumed 256-byte alignment. When some of those residues
/// make the warp's lanes (`lanes`, relative to lane 0) touch more transactions than their
/// bytes need, the access is uncoalesced for most values of the index: reported with the
/// worst residue, the record size and the padding that would align every record.
pub(super) fn misaligned_by_layout(
    a: &Analysis<'_>,
    access: &Access,
    offset: &Expr,
    lanes: &[(u32, i128)],
    pieces: &[(i128, u32)],
    granularity: warp::Granularity,
) -> Option<(u32, Finding)> {
    let unit = granularity.bytes();
    let terms = layout_terms(a, offset, unit)?;
    let g = terms
        .iter()
        .fold(0, |g, t| warpcheck_sym::gcd_i128(g, t.coefficient));
    if terms.is_empty() || g % unit == 0 {
        return None;
    }
    let step = warpcheck_sym::gcd_i128(g, unit);
    let constant = offset.constant_term().as_integer()?;
    let (residue, worst) = (0..unit / step)
        .filter_map(|j| {
            let r = (constant + j * step).rem_euclid(unit);
            let shifted: Vec<(u32, i128)> = lanes.iter().map(|&(l, o)| (l, o + r)).collect();
            Some((r, warp::judge_sectors(&shifted, pieces, granularity)?))
        })
        .max_by_key(|(_, s)| s.touched as i128 - s.ideal as i128)?;
    let target = element_of(a, access);
    let names: Vec<String> = terms.iter().map(|t| t.loaded.clone()).collect();
    let sizes: Vec<String> = terms.iter().map(|t| t.coefficient.to_string()).collect();
    let padded = g.div_euclid(unit) * unit + unit;
    let f = Finding::new(
        Code::UncoalescedAccess,
        Severity::Warning,
        format!(
            "uncoalesced global {} of `{target}`: {} {} per request where {} would do, depending on {}",
            kind_word(access),
            worst.touched,
            granularity.unit(),
            worst.ideal,
            names.join(", ")
        ),
    )
    .note(format!(
        "the warp's base moves by {} bytes per unit of {}, read from memory: it is only a multiple of {step} bytes \
         modulo {unit}, so for most values the request straddles a line boundary (worst: {residue} bytes past one)",
        sizes.join(", "),
        names.join(", ")
    ))
    .note(format!("byte offset: {offset}"))
    .note("assuming blockDim.x is a multiple of 32 and all 32 lanes active")
    .help(format!(
        "pad the record (or row) that {} indexes from {g} to a multiple of {unit} bytes (e.g. {padded}) so that each one starts on a line",
        names.join(", ")
    ));
    Some((worst.touched, f))
}

/// What would make the access coalesce: another index along which the address
/// advances by one element, mapped to `threadIdx.x` (Juravle §5.1 "what if").
pub(super) fn help(a: &Analysis<'_>, access: &Access) -> Option<String> {
    let offset = offset_expr(a, access);
    let bytes = access.bytes as i128;
    // Another index along which the address advances by one element.
    let mut candidates: Vec<(String, Symbol)> = vec![
        ("threadIdx.y".into(), Symbol::ThreadIdx(Axis::Y)),
        ("threadIdx.z".into(), Symbol::ThreadIdx(Axis::Z)),
    ];
    for &l in access.loops.iter().rev() {
        let header = a.loops[l].header;
        let line = a.body.blocks[header]
            .insts()
            .find_map(|i| location_of(a, i))
            .map_or(String::new(), |loc| format!(" at line {}", loc.line));
        candidates.push((
            format!("the iterations of the loop{line}"),
            a.loops[l].counter.clone(),
        ));
    }
    for (name, sym) in candidates {
        let d = offset.difference(&sym, &Expr::one());
        if let Some(v) = d.as_integer()
            && v.abs() == bytes
        {
            return Some(format!(
                "what if: mapping {name} to threadIdx.x would put adjacent threads {bytes} bytes apart, \
                 {} sectors per request",
                (32 * bytes + 31) / 32
            ));
        }
    }
    Some("make adjacent threads access adjacent elements (transpose the thread mapping or the data layout, \
          or stage the data through shared memory)".to_string())
}
