//! Shared-memory opportunities (Juravle §5.2): the footprint of each read on an array,
//! reads grouped by array when their footprints start a constant distance apart
//! (§5.2.2, scheme 1), and for each group the block's tile, the elements adjacent
//! threads share and the tile's bytes per block. The method is described in the
//! module documentation of [`super`], "Shared memory (§5.2)".

use std::collections::{BTreeMap, BTreeSet};

use warpcheck_ir::access::AccessKind;
use warpcheck_sym::{Expr, Rational, Symbol};

use super::{Advisor, DEFAULT_BLOCK_1D, DEFAULT_BLOCK_2D, Phase};
use crate::facts::{Acc, Base};
use crate::model::{Mapping, SharedOpportunity};
use crate::range::{self, Bound, alternatives, smax, smin};

/// The footprint of one read (or, merged, of a group of reads) on an array.
struct Foot {
    lines: Vec<u32>,
    /// The access width in bytes.
    width: i128,
    /// The footprint does not depend on the mapped counters: every thread reads it.
    uniform: bool,
    /// The block's byte range along x (the mapped counters over the block).
    x: (Expr, Expr),
    /// The block's row range, when the offset splits into rows of a symbolic width.
    y: Option<(Expr, Expr)>,
    /// Per-thread footprint extents for the overlap: x (lo(k), hi(k)).
    thread_x: (Expr, Expr),
    thread_y: Option<(Expr, Expr)>,
    /// The footprint moves with `y` only: threads of a row read the same elements.
    row_broadcast: bool,
}

/// The counters of the recommended mapping: `x` to `Grid.x` and `y`, if any, to
/// `Grid.y`.
struct Axes {
    x: Symbol,
    y: Option<Symbol>,
}

/// `blockDim.x` and `blockDim.y`.
fn block_dims() -> (Expr, Expr) {
    (
        Expr::sym(Symbol::BlockDim(warpcheck_sym::Axis::X)),
        Expr::sym(Symbol::BlockDim(warpcheck_sym::Axis::Y)),
    )
}

/// `e` with `s` over a block, `[0, bd − 1]`: (its value at 0, its value at `bd − 1`).
fn over_block(e: &Expr, s: &Symbol, bd: &Expr) -> (Expr, Expr) {
    (
        e.subst_one(s, &Expr::zero()),
        e.subst_one(s, &bd.sub(&Expr::one())),
    )
}

impl Advisor<'_, '_> {
    /// The shared-memory opportunities of the nest over `dims` under its recommended
    /// `mapping`; the assumptions the ranges rely on go to `assumptions`.
    pub(super) fn shared(
        &self,
        dims: &[usize],
        mapping: &Option<Mapping>,
        assumptions: &mut BTreeSet<String>,
    ) -> Vec<SharedOpportunity> {
        let mappings = self.mappings(dims);
        let Some(m) = mapping else { return Vec::new() };
        let Some((_, x, y)) = mappings
            .iter()
            .find(|(n, _, _)| *n == m.recommended)
            .cloned()
        else {
            return Vec::new();
        };
        let axes = Axes { x, y };
        let mut out = Vec::new();
        for (name, foots) in self.footprints(dims, &axes, assumptions) {
            for g in self.merge_footprints(foots) {
                out.extend(self.shared_opportunity(&name, g, &axes));
            }
        }
        out
    }

    /// The footprints of the nest's reads through pointers, by array.
    fn footprints(
        &self,
        dims: &[usize],
        axes: &Axes,
        assumptions: &mut BTreeSet<String>,
    ) -> BTreeMap<String, Vec<Foot>> {
        let outer = dims[0];
        let mut groups: BTreeMap<String, Vec<Foot>> = BTreeMap::new();
        for a in self.accs_in(outer) {
            let Base::Pointer(name) = &a.base else {
                continue;
            };
            if a.kind != AccessKind::Load {
                continue;
            }
            if !self.at(Phase::Footprint { line: a.line }) {
                break; // not used: the budget ran out
            }
            if a.offset.as_integer().is_some()
                && self
                    .f
                    .pointers
                    .values()
                    .any(|p| p.nested && p.root == *name)
            {
                continue;
            }
            // Inner sequential loops of this access (inside the nest's dims).
            let inner: Vec<usize> = a
                .loops
                .iter()
                .copied()
                .filter(|l| {
                    !dims.contains(l)
                        && self.f.loops[*l].parent.is_some()
                        && self.f.loops[outer].contains(self.f.loops[*l].blocks[0])
                })
                .collect();
            let Some(inner_box) = self.bounds(&inner) else {
                continue;
            };
            for alt in alternatives(&a.offset) {
                // An index loaded from memory (`c[jE[j]]`) has no static footprint.
                if alt.mentions(&|s| matches!(s, Symbol::Opaque(_))) {
                    continue;
                }
                if let Some(foot) = self.footprint(a, &alt, &inner_box, axes, assumptions) {
                    groups.entry(name.clone()).or_default().push(foot);
                }
            }
        }
        groups
    }

    /// The footprint of read `a` at offset `alt` (one alternative of its offset) over
    /// the loops of `inner_box`, or `None` when its range is unknown.
    fn footprint(
        &self,
        a: &Acc,
        alt: &Expr,
        inner_box: &[Bound],
        Axes { x, y }: &Axes,
        assumptions: &mut BTreeSet<String>,
    ) -> Option<Foot> {
        let (bdx, bdy) = block_dims();
        let depends = alt.depends_on(x) || y.as_ref().is_some_and(|ys| alt.depends_on(ys));
        // 2-D split: W·row + col, W the coefficient of y when symbolic.
        let (row, col) = match y {
            Some(ys) => match alt.linear_coefficient(ys) {
                Some(wc) if wc.as_integer().is_none() => split_rows(alt, &wc),
                _ => (None, alt.clone()),
            },
            None => (None, alt.clone()),
        };
        let thread = |e: &Expr| range::range(e, inner_box, &self.ctx);
        let tx = thread(&col)?;
        let ty = match &row {
            Some((_, r)) => Some(thread(r)?),
            None => None,
        };
        for a in tx
            .assuming
            .iter()
            .chain(ty.iter().flat_map(|t| t.assuming.iter()))
        {
            assumptions.insert(a.to_string());
        }
        let (bx_lo, _) = over_block(&tx.lo, x, &bdx);
        let (_, bx_hi) = over_block(&tx.hi, x, &bdx);
        let mut xr = (bx_lo, bx_hi);
        let mut yr = None;
        if let (Some(t), Some(ys)) = (&ty, y) {
            let (lo, _) = over_block(&t.lo, ys, &bdy);
            let (_, hi) = over_block(&t.hi, ys, &bdy);
            yr = Some((lo, hi));
        }
        let row_broadcast = y.as_ref().is_some_and(|ys| alt.depends_on(ys)) && !alt.depends_on(x);
        if let (None, Some(ys)) = (&ty, y) {
            // 1-D offset in a 2-D nest: y moves the x range.
            xr = (
                xr.0.subst_one(ys, &Expr::zero()),
                xr.1.subst_one(ys, &bdy.sub(&Expr::one())),
            );
        }
        Some(Foot {
            lines: vec![a.line],
            width: a.bytes as i128,
            uniform: !depends,
            x: xr,
            y: yr,
            thread_x: (tx.lo.clone(), tx.hi.clone()),
            thread_y: ty.map(|t| (t.lo, t.hi)),
            row_broadcast,
        })
    }

    /// Groups footprints of one array whose x starts differ by a constant (§5.2.2
    /// scheme 1): each group covers the union of its members' ranges.
    fn merge_footprints(&self, foots: Vec<Foot>) -> Vec<Foot> {
        let mut merged: Vec<Foot> = Vec::new();
        for f in foots {
            let slot = merged.iter_mut().find(|g| {
                g.uniform == f.uniform
                    && g.row_broadcast == f.row_broadcast
                    && g.width == f.width
                    && g.x.0.sub(&f.x.0).as_integer().is_some()
                    && match (&g.y, &f.y) {
                        (Some(a), Some(b)) => a.0.sub(&b.0).as_integer().is_some(),
                        (None, None) => true,
                        _ => false,
                    }
            });
            let Some(g) = slot else {
                merged.push(f);
                continue;
            };
            let hull = |a: &(Expr, Expr), b: &(Expr, Expr)| {
                (smin(&a.0, &b.0, &self.ctx), smax(&a.1, &b.1, &self.ctx))
            };
            g.lines.extend(f.lines);
            g.x = hull(&g.x, &f.x);
            g.thread_x = hull(&g.thread_x, &f.thread_x);
            if let (Some(a), Some(b)) = (&mut g.y, &f.y) {
                *a = hull(a, b);
            }
            if let (Some(a), Some(b)) = (&mut g.thread_y, &f.thread_y) {
                *a = hull(a, b);
            }
        }
        merged
    }

    /// The opportunity of the group of reads `g` on array `name`, or `None` when
    /// adjacent threads provably share nothing.
    fn shared_opportunity(
        &self,
        name: &str,
        mut g: Foot,
        Axes { x, y }: &Axes,
    ) -> Option<SharedOpportunity> {
        g.lines.sort_unstable();
        g.lines.dedup();
        let w = Expr::int(g.width);
        let inv_w = Rational::new(1, g.width.max(1)).unwrap_or(Rational::ONE);
        let elems = |e: &Expr| e.scale(inv_w);
        // Overlap with the x neighbour: hi(k) − lo(k + 1) + w bytes.
        let ov_x = g
            .thread_x
            .1
            .sub(
                &g.thread_x
                    .0
                    .subst_one(x, &Expr::sym(x.clone()).add(&Expr::one())),
            )
            .add(&w);
        // Overlap unless provably none; with values, decided by them.
        let ov_x_pos = g.uniform || self.may_be_positive(&ov_x);
        let ov_y = match (&g.thread_y, y) {
            (Some(t), Some(ys)) => {
                let o =
                    t.1.sub(&t.0.subst_one(ys, &Expr::sym(ys.clone()).add(&Expr::one())))
                        .add(&Expr::one());
                self.may_be_positive(&o).then_some(o)
            }
            _ => None,
        };
        if !ov_x_pos && ov_y.is_none() {
            return None; // no sharing between adjacent threads
        }
        let x_len = elems(&g.x.1.sub(&g.x.0)).add(&Expr::one());
        let rows = g.y.as_ref().map(|(lo, hi)| hi.sub(lo).add(&Expr::one()));
        let elements = match &rows {
            Some(r) => x_len.mul(r),
            None => x_len.clone(),
        };
        let elements_text = match &rows {
            Some(r) if !x_len.is_zero() && x_len.terms().len() > 1 && r.terms().len() > 1 => {
                format!("({x_len})·({r})")
            }
            _ => elements.to_string(),
        };
        let axis = if g.row_broadcast { "indexed by y" } else { "x" };
        let mut tile = vec![format!("{axis}: [{}, {}]", elems(&g.x.0), elems(&g.x.1))];
        if let Some((lo, hi)) = &g.y {
            tile.push(format!("y: [{lo}, {hi}]"));
        }
        let overlap = overlap_text(&g, ov_x_pos.then_some(&ov_x), ov_y.as_ref(), &elems);
        let block = self.block.unwrap_or(if y.is_some() {
            DEFAULT_BLOCK_2D
        } else {
            [DEFAULT_BLOCK_1D, 1]
        });
        let bytes = if self.values.is_empty() && self.block.is_none() {
            None
        } else {
            let e = elements.subst(&|s| match s {
                Symbol::BlockDim(warpcheck_sym::Axis::X) => Some(Expr::int(block[0])),
                Symbol::BlockDim(warpcheck_sym::Axis::Y) => Some(Expr::int(block[1])),
                _ => None,
            });
            self.eval(&e).map(|n| n * g.width)
        };
        Some(SharedOpportunity {
            base: name.to_string(),
            lines: g.lines,
            kind: if g.uniform { "uniform" } else { "tile" }.into(),
            tile,
            elements: Some(elements_text),
            overlap,
            bytes_per_block: bytes,
            block: bytes.map(|_| block),
        })
    }
}

/// The report's lines on the elements adjacent threads share: for a uniform footprint,
/// all of it; otherwise the x-neighbour overlap `ov_x` (bytes, when it may be positive)
/// and the y-neighbour overlap `ov_y` (rows, when it may be positive).
fn overlap_text(
    g: &Foot,
    ov_x: Option<&Expr>,
    ov_y: Option<&Expr>,
    elems: &dyn Fn(&Expr) -> Expr,
) -> Vec<String> {
    let mut overlap = Vec::new();
    let thread_cols = || elems(&g.thread_x.1.sub(&g.thread_x.0)).add(&Expr::one());
    if g.uniform {
        overlap.push(format!(
            "{} (all threads read the same elements)",
            thread_cols()
        ));
        return overlap;
    }
    if let Some(ov_x) = ov_x {
        let cols = elems(ov_x);
        let per_thread_rows = g
            .thread_y
            .as_ref()
            .map(|(lo, hi)| hi.sub(lo).add(&Expr::one()));
        let size = match &per_thread_rows {
            Some(r) => cols.mul(r),
            None => cols,
        };
        if g.row_broadcast {
            overlap.push(format!(
                "x-axis neighbours: {size} (the same element: a broadcast)"
            ));
        } else {
            overlap.push(format!("x-axis neighbours: {size}"));
        }
    }
    if let Some(o) = ov_y {
        overlap.push(format!("y-axis neighbours: {}", thread_cols().mul(o)));
    }
    overlap
}

/// Splits `e = W·row + col`: the terms divisible by `W` form `W·row`.
fn split_rows(e: &Expr, w: &Expr) -> (Option<(Expr, Expr)>, Expr) {
    let mut row = Expr::zero();
    let mut col = Expr::zero();
    for t in e.terms() {
        let te = term_expr(t);
        match te.exact_quotient(w) {
            Some(q) if !te.is_zero() && t.mono.degree() > 0 => row = row.add(&q),
            _ => col = col.add(&te),
        }
    }
    if row.is_zero() {
        (None, e.clone())
    } else {
        (Some((w.clone(), row)), col)
    }
}

fn term_expr(t: &warpcheck_sym::Term) -> Expr {
    let mut e = Expr::constant(t.coef);
    for (atom, p) in t.mono.factors() {
        e = e.mul(&range::atom_expr(atom).pow(*p));
    }
    e
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rows_split_off_a_symbolic_width() {
        // 3·w·(y + fy) + 3·x + 2 with width 3·w.
        let w = Expr::sym(Symbol::param("w"));
        let (y, fy, x) = (
            Expr::sym(Symbol::var("y")),
            Expr::sym(Symbol::var("fy")),
            Expr::sym(Symbol::var("x")),
        );
        let width = w.mul(&Expr::int(3));
        let e = width
            .mul(&y.add(&fy))
            .add(&x.mul(&Expr::int(3)))
            .add(&Expr::int(2));
        let (row, col) = split_rows(&e, &width);
        assert_eq!(row.map(|(_, r)| r), Some(y.add(&fy)));
        assert_eq!(col, x.mul(&Expr::int(3)).add(&Expr::int(2)));
    }
}
