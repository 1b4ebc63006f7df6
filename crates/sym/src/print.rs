//! C-like printing: `4·n + 8`, `threadIdx.x / 32`, `(threadIdx.x + 1) % 4`,
//! `min(n, 256)`, `threadIdx.x < 16 && n > 0`.
//!
//! Division and `%` are floor operations; in index expressions, whose operands are
//! non-negative, they read as C's. A rational coefficient prints as `(1/2)·x`.

use std::fmt;

use crate::cond::{CmpOp, Cond};
use crate::expr::{Atom, Expr, Monomial, Term};
use crate::func::FuncKind;
use crate::rational::Rational;

impl fmt::Display for Expr {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write_sum(f, self.terms())
    }
}

/// Non-constant terms first, in canonical order, then the constant.
fn write_sum(f: &mut fmt::Formatter<'_>, terms: &[Term]) -> fmt::Result {
    if terms.is_empty() {
        return f.write_str("0");
    }
    let mut ordered: Vec<&Term> = terms.iter().filter(|t| !t.mono.is_one()).collect();
    ordered.extend(terms.iter().filter(|t| t.mono.is_one()));
    for (i, t) in ordered.iter().enumerate() {
        let negative = t.coef.is_negative();
        match (i, negative) {
            (0, true) => f.write_str("-")?,
            (0, false) => {}
            (_, true) => f.write_str(" - ")?,
            (_, false) => f.write_str(" + ")?,
        }
        write_term(f, t.coef.abs(), &t.mono)?;
    }
    Ok(())
}

fn write_term(f: &mut fmt::Formatter<'_>, coef: Rational, mono: &Monomial) -> fmt::Result {
    if mono.is_one() {
        return write!(f, "{coef}");
    }
    let alone = coef.is_one() && mono.factors().len() == 1 && mono.factors()[0].1 == 1;
    if !coef.is_one() {
        if coef.is_integer() {
            write!(f, "{coef}·")?;
        } else {
            write!(f, "({coef})·")?;
        }
    }
    for (i, (atom, p)) in mono.factors().iter().enumerate() {
        if i > 0 {
            f.write_str("·")?;
        }
        let wrap = (!alone || *p > 1) && needs_parens(atom);
        if wrap {
            f.write_str("(")?;
        }
        write_atom(f, atom)?;
        if wrap {
            f.write_str(")")?;
        }
        if *p > 1 {
            write!(f, "^{p}")?;
        }
    }
    Ok(())
}

/// Atoms printed with an infix operator need parentheses inside a product.
fn needs_parens(atom: &Atom) -> bool {
    match atom {
        Atom::FloorDiv(..) | Atom::Mod(..) | Atom::Select(..) => true,
        Atom::Func(func, _) => func.operator().is_some(),
        _ => false,
    }
}

/// An operand of an infix operator: parenthesised unless it is a number or one symbol.
fn write_operand(f: &mut fmt::Formatter<'_>, e: &Expr) -> fmt::Result {
    let simple = e.as_constant().is_some_and(|c| !c.is_negative())
        || matches!(e.terms(), [t] if t.coef.is_one() && matches!(t.mono.factors(), [(a, 1)] if !needs_parens(a)));
    if simple {
        write!(f, "{e}")
    } else {
        write!(f, "({e})")
    }
}

/// Arguments with the numbers moved to the end (`min(n, 3)`, `threadIdx.x ^ 16`);
/// only used for commutative operations, whose arguments are stored sorted.
fn numbers_last(xs: &[Expr]) -> Vec<&Expr> {
    let mut out: Vec<&Expr> = xs.iter().filter(|x| x.as_constant().is_none()).collect();
    out.extend(xs.iter().filter(|x| x.as_constant().is_some()));
    out
}

/// Commutative functions print their numbers last; the others keep their order.
fn ordered_args(func: crate::func::Func, xs: &[Expr]) -> Vec<&Expr> {
    match func.kind {
        FuncKind::And | FuncKind::Or | FuncKind::Xor | FuncKind::MulHi { .. } => numbers_last(xs),
        _ => xs.iter().collect(),
    }
}

fn write_atom(f: &mut fmt::Formatter<'_>, atom: &Atom) -> fmt::Result {
    match atom {
        Atom::Sym(s) => write!(f, "{s}"),
        Atom::FloorDiv(a, b) => {
            write_operand(f, a)?;
            f.write_str(" / ")?;
            write_operand(f, b)
        }
        Atom::Mod(a, b) => {
            write_operand(f, a)?;
            f.write_str(" % ")?;
            write_operand(f, b)
        }
        Atom::Min(xs) | Atom::Max(xs) => {
            f.write_str(if matches!(atom, Atom::Min(_)) {
                "min("
            } else {
                "max("
            })?;
            for (i, x) in numbers_last(xs).into_iter().enumerate() {
                if i > 0 {
                    f.write_str(", ")?;
                }
                write!(f, "{x}")?;
            }
            f.write_str(")")
        }
        Atom::Func(func, xs) => match (func.operator(), ordered_args(*func, xs).as_slice()) {
            (Some(op), [a, b]) => {
                write_operand(f, a)?;
                write!(f, " {op} ")?;
                write_operand(f, b)
            }
            _ if func.kind == FuncKind::Not && xs.len() == 1 => {
                f.write_str("~")?;
                write_operand(f, &xs[0])
            }
            _ => {
                write!(f, "{}(", func.name())?;
                for (i, x) in xs.iter().enumerate() {
                    if i > 0 {
                        f.write_str(", ")?;
                    }
                    write!(f, "{x}")?;
                }
                f.write_str(")")
            }
        },
        Atom::Select(c, a, b) => write!(f, "{c} ? {a} : {b}"),
        Atom::Unknown => f.write_str("?"),
    }
}

impl fmt::Display for Cond {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Cond::Const(b) => write!(f, "{b}"),
            Cond::Cmp(op, e) => {
                // Positive terms on the left, negated negative terms on the right.
                let pos: Vec<Term> = e
                    .terms()
                    .iter()
                    .filter(|t| t.coef.is_positive())
                    .cloned()
                    .collect();
                let neg: Vec<Term> = e
                    .terms()
                    .iter()
                    .filter(|t| t.coef.is_negative())
                    .map(|t| Term {
                        mono: t.mono.clone(),
                        coef: t.coef.abs(),
                    })
                    .collect();
                let (l, r, sym) = match op {
                    CmpOp::Eq => (pos, neg, "=="),
                    CmpOp::Ne => (pos, neg, "!="),
                    CmpOp::Lt => (pos, neg, "<"),
                    CmpOp::Le => (pos, neg, "<="),
                };
                // Keep a symbol on the left: `16 > threadIdx.x` reads worse than
                // `threadIdx.x < 16`, so flip when the left side is only a number.
                let left_is_number = l.iter().all(|t| t.mono.is_one());
                if left_is_number && !r.is_empty() && r.iter().any(|t| !t.mono.is_one()) {
                    let flipped = match op {
                        CmpOp::Lt => ">",
                        CmpOp::Le => ">=",
                        _ => sym,
                    };
                    write_sum(f, &r)?;
                    write!(f, " {flipped} ")?;
                    write_sum(f, &l)
                } else {
                    write_sum(f, &l)?;
                    write!(f, " {sym} ")?;
                    write_sum(f, &r)
                }
            }
            Cond::Not(c) => write!(f, "!({c})"),
            Cond::And(cs) | Cond::Or(cs) => {
                let sep = if matches!(self, Cond::And(_)) {
                    " && "
                } else {
                    " || "
                };
                for (i, c) in cs.iter().enumerate() {
                    if i > 0 {
                        f.write_str(sep)?;
                    }
                    if matches!(c, Cond::And(_) | Cond::Or(_)) {
                        write!(f, "({c})")?;
                    } else {
                        write!(f, "{c}")?;
                    }
                }
                Ok(())
            }
            Cond::Opaque(o) => f.write_str(&o.name),
        }
    }
}
