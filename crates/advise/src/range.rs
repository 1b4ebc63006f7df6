//! Symbolic ranges of an expression over a box of loop counters (Juravle §8.3 and the
//! monotonicity technique of §5.1–5.2).
//!
//! The box gives each counter symbolic bounds `lo ≤ k ≤ hi`. Without selections, the
//! lower bound of `e` is found by replacing each counter in turn by the end of its range
//! where `e` is smallest, which monotonicity decides (`Context::monotonicity`, assuming
//! unknown-sign parameters positive and reporting it); the upper bound likewise. A
//! selection `c ? a : b` is split: `a` is bounded with the box narrowed by `c` (linear
//! conditions on one counter narrow its range: `k ≥ 1` in `k ≥ 1 ? k − 1 : k`) and `b`
//! with the box narrowed by `!c`, and the two ranges are joined with a symbolic min/max
//! that stays explicit where the bounds cannot be compared (§7.1). When an expression is
//! not monotonic in a counter, or a bound cannot be expressed, there is no range.

use warpcheck_sym::{Assumption, Atom, CmpOp, Cond, Context, Expr, Monotonicity, Relation, Symbol};

/// `lo ≤ symbol ≤ hi`.
#[derive(Clone, Debug, PartialEq)]
pub struct Bound {
    pub symbol: Symbol,
    pub lo: Expr,
    pub hi: Expr,
}

/// A symbolic interval and the assumptions it needed.
#[derive(Clone, Debug, PartialEq)]
pub struct SymRange {
    pub lo: Expr,
    pub hi: Expr,
    pub assuming: Vec<Assumption>,
}

const MAX_SPLITS: usize = 6;

/// The range of `e` over the box.
pub fn range(e: &Expr, bounds: &[Bound], ctx: &Context) -> Option<SymRange> {
    range_split(e, bounds, ctx, MAX_SPLITS)
}

fn range_split(e: &Expr, bounds: &[Bound], ctx: &Context, budget: usize) -> Option<SymRange> {
    if let Some((c, a, b)) = first_select(e) {
        if budget == 0 {
            return None;
        }
        let target = Atom::Select(
            Box::new(c.clone()),
            Box::new(a.clone()),
            Box::new(b.clone()),
        );
        let mut parts = Vec::new();
        for (cond, value) in [(c.clone(), a), (c.not(), b)] {
            let Some(narrowed) = narrow(bounds, &cond, ctx) else {
                continue; // the branch cannot be taken inside the box
            };
            let branch = replace_atom(e, &target, &value);
            parts.push(range_split(&branch, &narrowed, ctx, budget - 1)?);
        }
        let mut it = parts.into_iter();
        let mut acc = it.next()?;
        for p in it {
            acc.lo = smin(&acc.lo, &p.lo, ctx);
            acc.hi = smax(&acc.hi, &p.hi, ctx);
            acc.assuming.extend(p.assuming);
        }
        acc.assuming.sort();
        acc.assuming.dedup();
        return Some(acc);
    }
    let ctx = with_bounds(ctx, bounds);
    let mut assuming = Vec::new();
    let mut lo = e.clone();
    let mut hi = e.clone();
    for b in bounds {
        for (cur, want_low) in [(&mut lo, true), (&mut hi, false)] {
            let m = ctx.monotonicity(cur, &b.symbol);
            assuming.extend(m.assuming);
            let end = match (m.value, want_low) {
                (Monotonicity::Constant, _) => continue,
                (Monotonicity::Increasing { .. }, true)
                | (Monotonicity::Decreasing { .. }, false) => &b.lo,
                (Monotonicity::Increasing { .. }, false)
                | (Monotonicity::Decreasing { .. }, true) => &b.hi,
                (Monotonicity::Unknown, _) => return None,
            };
            *cur = cur.subst_one(&b.symbol, end);
        }
    }
    assuming.sort();
    assuming.dedup();
    Some(SymRange { lo, hi, assuming })
}

/// A context that also knows the box.
pub fn with_bounds(ctx: &Context, bounds: &[Bound]) -> Context {
    let mut c = ctx.clone();
    for b in bounds {
        c.facts
            .bound(b.symbol.clone(), Some(b.lo.clone()), Some(b.hi.clone()));
    }
    c
}

/// Whether `a ≥ b` is shown; when the engine cannot decide, a symbol known (or assumed)
/// positive that divides every term of `a − b` is cancelled first (`4·c·r − 4·c ≥ 0`
/// from `r ≥ 1`), since interval arithmetic loses the correlation between the terms.
/// A `min`/`max` on either side is decided argument by argument.
pub fn proves_ge(a: &Expr, b: &Expr, ctx: &Context) -> bool {
    if let Some((is_min, args)) = lone_min_max(a) {
        return if is_min {
            args.iter().all(|x| proves_ge(x, b, ctx))
        } else {
            args.iter().any(|x| proves_ge(x, b, ctx))
        };
    }
    if let Some((is_min, args)) = lone_min_max(b) {
        return if is_min {
            args.iter().any(|x| proves_ge(a, x, ctx))
        } else {
            args.iter().all(|x| proves_ge(a, x, ctx))
        };
    }
    nonnegative(&a.sub(b), ctx, 3)
}

/// `min(args)` or `max(args)` as a whole expression.
fn lone_min_max(e: &Expr) -> Option<(bool, Vec<Expr>)> {
    let [t] = e.terms() else { return None };
    if !t.coef.is_one() {
        return None;
    }
    match t.mono.factors() {
        [(Atom::Min(args), 1)] => Some((true, args.clone())),
        [(Atom::Max(args), 1)] => Some((false, args.clone())),
        _ => None,
    }
}

fn nonnegative(d: &Expr, ctx: &Context, depth: u32) -> bool {
    if ctx.decide(Relation::Ge, d, &Expr::zero()).value == Some(true) {
        return true;
    }
    if depth == 0 {
        return false;
    }
    for s in d.symbols() {
        let se = Expr::sym(s.clone());
        if !ctx.sign(&se).value.is_positive() {
            continue;
        }
        if d.terms().iter().all(|t| {
            t.mono
                .factors()
                .iter()
                .any(|(a, _)| *a == Atom::Sym(s.clone()))
        }) && let Some(q) = d.exact_quotient(&se)
        {
            return nonnegative(&q, ctx, depth - 1);
        }
    }
    false
}

/// The smaller of two expressions, explicit `min` when they cannot be compared.
pub fn smin(a: &Expr, b: &Expr, ctx: &Context) -> Expr {
    if proves_ge(b, a, ctx) {
        a.clone()
    } else if proves_ge(a, b, ctx) {
        b.clone()
    } else {
        a.minimum(b)
    }
}

/// The larger of two expressions, explicit `max` when they cannot be compared.
pub fn smax(a: &Expr, b: &Expr, ctx: &Context) -> Expr {
    if proves_ge(a, b, ctx) {
        a.clone()
    } else if proves_ge(b, a, ctx) {
        b.clone()
    } else {
        a.maximum(b)
    }
}

/// Replaces selections whose condition the context decides by their branch, also inside
/// floors and other atoms (`(h + (h < 0 ? 1 : 0)) / 2`, clang's signed division by 2,
/// is `h / 2` for `h > 0`). Returns the assumptions used.
pub fn simplify_selects(e: &Expr, ctx: &Context, assuming: &mut Vec<Assumption>) -> Expr {
    let mut out = Expr::zero();
    for t in e.terms() {
        let mut term = Expr::constant(t.coef);
        for (atom, power) in t.mono.factors() {
            let base = match atom {
                Atom::Select(c, a, b) => match decide_cond(c, ctx, assuming) {
                    Some(true) => simplify_selects(a, ctx, assuming),
                    Some(false) => simplify_selects(b, ctx, assuming),
                    None => Expr::select(
                        (**c).clone(),
                        simplify_selects(a, ctx, assuming),
                        simplify_selects(b, ctx, assuming),
                    ),
                },
                Atom::FloorDiv(a, b) => simplify_selects(a, ctx, assuming)
                    .floor_div(&simplify_selects(b, ctx, assuming)),
                Atom::Mod(a, b) => {
                    simplify_selects(a, ctx, assuming).modulo(&simplify_selects(b, ctx, assuming))
                }
                other => atom_expr(other),
            };
            term = term.mul(&base.pow(*power));
        }
        out = out.add(&term);
    }
    out
}

/// Decides a condition of comparisons under `and`/`or`/`not`.
fn decide_cond(c: &Cond, ctx: &Context, assuming: &mut Vec<Assumption>) -> Option<bool> {
    match c {
        Cond::Const(b) => Some(*b),
        Cond::Cmp(op, e) => {
            let rel = match op {
                CmpOp::Eq => Relation::Eq,
                CmpOp::Ne => Relation::Ne,
                CmpOp::Lt => Relation::Lt,
                CmpOp::Le => Relation::Le,
            };
            let a = ctx.decide(rel, e, &Expr::zero());
            if a.value.is_some() {
                assuming.extend(a.assuming);
            }
            a.value
        }
        Cond::Not(x) => decide_cond(x, ctx, assuming).map(|b| !b),
        Cond::And(xs) => {
            let mut all = Some(true);
            for x in xs {
                match decide_cond(x, ctx, assuming) {
                    Some(false) => return Some(false),
                    None => all = None,
                    Some(true) => {}
                }
            }
            all
        }
        Cond::Or(xs) => {
            let mut any = Some(false);
            for x in xs {
                match decide_cond(x, ctx, assuming) {
                    Some(true) => return Some(true),
                    None => any = None,
                    Some(false) => {}
                }
            }
            any
        }
        Cond::Opaque(_) => None,
    }
}

/// Narrows the box by the linear one-counter conjuncts of `cond`; `None` when a counter's
/// range becomes provably empty.
pub fn narrow(bounds: &[Bound], cond: &Cond, ctx: &Context) -> Option<Vec<Bound>> {
    let mut out = bounds.to_vec();
    let conjuncts: Vec<&Cond> = match cond {
        Cond::And(cs) => cs.iter().collect(),
        c => vec![c],
    };
    for c in conjuncts {
        let Cond::Cmp(op, lin) = c else { continue };
        // lin (op) 0 with op ∈ {≤, <}; a·k + rest.
        let strict = match op {
            CmpOp::Le => false,
            CmpOp::Lt => true,
            _ => continue,
        };
        let mut hits = out
            .iter()
            .enumerate()
            .filter(|(_, b)| lin.depends_on(&b.symbol));
        let Some((i, b)) = hits.next() else { continue };
        if hits.next().is_some() {
            continue;
        }
        let Some(a) = lin
            .linear_coefficient(&b.symbol)
            .and_then(|a| a.as_integer())
        else {
            continue;
        };
        if a == 0 {
            continue;
        }
        let rest = lin.without_symbol(&b.symbol);
        if rest.depends_on(&b.symbol) {
            continue;
        }
        // a·k ≤ -rest (- 1 when strict).
        let rhs = rest.neg().sub(&Expr::int(i128::from(strict)));
        let bound = out[i].clone();
        if a > 0 {
            let hi = rhs.floor_div(&Expr::int(a));
            out[i].hi = smin(&bound.hi, &hi, ctx);
        } else {
            // k ≥ ⌈rhs / a⌉ = -⌊-rhs / |a|⌋ … with a < 0: a·k ≤ rhs ⇔ k ≥ rhs / a.
            let lo = rhs.floor_div(&Expr::int(a.abs())).neg();
            let lo = if a == -1 { rhs.neg() } else { lo };
            out[i].lo = smax(&bound.lo, &lo, ctx);
        }
        let ctx2 = with_bounds(ctx, &out);
        if ctx2.compare(&out[i].lo, &out[i].hi).value == Some(std::cmp::Ordering::Greater) {
            return None;
        }
    }
    Some(out)
}

/// The first selection atom of an expression (outside floors and other atoms).
pub fn first_select(e: &Expr) -> Option<(Cond, Expr, Expr)> {
    for t in e.terms() {
        for (atom, _) in t.mono.factors() {
            if let Atom::Select(c, a, b) = atom {
                return Some(((**c).clone(), (**a).clone(), (**b).clone()));
            }
        }
    }
    None
}

/// The alternatives of an expression's selections, each without selections (at most
/// 16), ignoring their conditions: Juravle §5.1's "the analysis for each expression".
pub fn alternatives(e: &Expr) -> Vec<Expr> {
    let mut out = Vec::new();
    let mut work = vec![e.clone()];
    while let Some(x) = work.pop() {
        match first_select(&x) {
            Some((c, a, b)) if out.len() + work.len() < 16 => {
                let target = Atom::Select(Box::new(c), Box::new(a.clone()), Box::new(b.clone()));
                work.push(replace_atom(&x, &target, &b));
                work.push(replace_atom(&x, &target, &a));
            }
            _ => out.push(x),
        }
    }
    out
}

/// `e` with every occurrence of `target` (as a factor of a term) replaced by `value`.
pub fn replace_atom(e: &Expr, target: &Atom, value: &Expr) -> Expr {
    let mut out = Expr::zero();
    for t in e.terms() {
        let mut term = Expr::constant(t.coef);
        for (atom, power) in t.mono.factors() {
            let base = if atom == target {
                value.clone()
            } else {
                atom_expr(atom)
            };
            term = term.mul(&base.pow(*power));
        }
        out = out.add(&term);
    }
    out
}

/// An atom as an expression of its own.
pub fn atom_expr(atom: &Atom) -> Expr {
    match atom {
        Atom::Sym(s) => Expr::sym(s.clone()),
        Atom::FloorDiv(a, b) => a.floor_div(b),
        Atom::Mod(a, b) => a.modulo(b),
        Atom::Min(args) => Expr::min_max(args.clone(), true),
        Atom::Max(args) => Expr::min_max(args.clone(), false),
        Atom::Func(f, args) => Expr::func(*f, args.clone()),
        Atom::Select(c, a, b) => Expr::select((**c).clone(), (**a).clone(), (**b).clone()),
        Atom::Unknown => Expr::unknown(),
    }
}

/// Whether an expression has an explicit min or max atom (a bound that could not be
/// decided symbolically).
pub fn has_min_max(e: &Expr) -> bool {
    e.terms().iter().any(|t| {
        t.mono
            .factors()
            .iter()
            .any(|(a, _)| matches!(a, Atom::Min(_) | Atom::Max(_)))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn p(n: &str) -> Expr {
        Expr::sym(Symbol::param(n))
    }

    #[test]
    fn matrix_addition_section_is_4nn_minus_4() {
        // a + 4·N·i + 4·j with 0 ≤ i, j ≤ N − 1.
        let (i, j) = (Symbol::var("i"), Symbol::var("j"));
        let n = p("N");
        let e = Expr::sym(i.clone())
            .mul(&n)
            .mul(&Expr::int(4))
            .add(&Expr::sym(j.clone()).mul(&Expr::int(4)));
        let hi = n.sub(&Expr::one());
        let b = [
            Bound {
                symbol: j,
                lo: Expr::zero(),
                hi: hi.clone(),
            },
            Bound {
                symbol: i,
                lo: Expr::zero(),
                hi,
            },
        ];
        let r = range(&e, &b, &Context::assuming_positive_params()).unwrap();
        assert_eq!(r.lo, Expr::zero());
        assert_eq!(r.hi, n.mul(&n).mul(&Expr::int(4)).sub(&Expr::int(4)));
        assert_eq!(r.assuming[0].to_string(), "N > 0");
    }

    #[test]
    fn clamped_neighbour_stays_in_range() {
        // k ≥ 1 ? k − 1 : k over 0 ≤ k ≤ R − 1 is within [0, R − 2].
        let k = Symbol::var("k");
        let ke = Expr::sym(k.clone());
        let c = Cond::compare(warpcheck_sym::Relation::Ge, &ke, &Expr::one());
        let e = Expr::select(c, ke.sub(&Expr::one()), ke.clone());
        let b = [Bound {
            symbol: k,
            lo: Expr::zero(),
            hi: p("R").sub(&Expr::one()),
        }];
        let r = range(&e, &b, &Context::assuming_positive_params()).unwrap();
        assert_eq!(r.lo, Expr::zero());
        // k − 1 for k ≥ 1 and k = 0 otherwise: at most R − 1 (R ≥ 1).
        assert_eq!(r.hi, p("R").sub(&Expr::int(2)).maximum(&Expr::zero()));
    }
}

#[cfg(test)]
mod more_tests {
    use super::*;

    #[test]
    fn clamped_row_times_width_starts_at_zero() {
        let k = Symbol::var("k");
        let ke = Expr::sym(k.clone());
        let cols = Expr::sym(Symbol::param("cols"));
        let rows = Expr::sym(Symbol::param("rows"));
        let c = Cond::compare(Relation::Lt, &ke.add(&Expr::one()), &rows);
        let e = Expr::select(c, ke.add(&Expr::one()), ke.clone())
            .mul(&cols)
            .mul(&Expr::int(4));
        let b = [Bound {
            symbol: k,
            lo: Expr::zero(),
            hi: rows.sub(&Expr::one()),
        }];
        let r = range(&e, &b, &Context::assuming_positive_params()).unwrap();
        // rows = 1 takes the else branch at k = 0: the bound stays a min.
        assert_eq!(r.lo.to_string(), "min(-4·cols + 4·cols·rows, 4·cols)");
        assert_eq!(r.hi.to_string(), "-4·cols + 4·cols·rows");
        // Joined with an unclamped access starting at 0, the min resolves.
        let ctx = Context::assuming_positive_params();
        assert_eq!(smin(&r.lo, &Expr::zero(), &ctx), Expr::zero());
    }
}
