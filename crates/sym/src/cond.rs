//! Conditions: comparisons of expressions combined with and/or/not.
//!
//! A comparison is kept as `e OP 0` with `OP` one of `=`, `≠`, `<`, `≤`, so `a > b` is
//! `b - a < 0`; negation moves into the comparison (`¬(e < 0)` is `-e ≤ 0`), and
//! equalities are stored with a positive leading coefficient so that `a = b` and `b = a`
//! are the same condition. Comparisons that the built-in ranges decide fold to constants
//! (`threadIdx.x < blockDim.x` is true).

use std::collections::BTreeSet;

use crate::expr::Expr;
use crate::rational::Rational;
use crate::sign;
use crate::symbol::{Deps, Opaque, Symbol};

/// The relation of a comparison `a R b`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Relation {
    Eq,
    Ne,
    Lt,
    Le,
    Gt,
    Ge,
}

impl Relation {
    pub fn symbol(self) -> &'static str {
        match self {
            Relation::Eq => "==",
            Relation::Ne => "!=",
            Relation::Lt => "<",
            Relation::Le => "<=",
            Relation::Gt => ">",
            Relation::Ge => ">=",
        }
    }

    /// The relation that holds exactly when this one does not.
    pub fn negate(self) -> Relation {
        match self {
            Relation::Eq => Relation::Ne,
            Relation::Ne => Relation::Eq,
            Relation::Lt => Relation::Ge,
            Relation::Le => Relation::Gt,
            Relation::Gt => Relation::Le,
            Relation::Ge => Relation::Lt,
        }
    }
}

/// The relation of a normalised comparison `e OP 0`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum CmpOp {
    Eq,
    Ne,
    Lt,
    Le,
}

impl CmpOp {
    /// Whether `v OP 0` holds.
    pub fn holds(self, v: Rational) -> bool {
        match self {
            CmpOp::Eq => v.is_zero(),
            CmpOp::Ne => !v.is_zero(),
            CmpOp::Lt => v.is_negative(),
            CmpOp::Le => !v.is_positive(),
        }
    }
}

/// Kleene (three-valued) conjunction of the items' values: `Some(false)` as soon as one is false
/// (the rest are not evaluated), else `None` if one is unknown, else `Some(true)`.
pub fn kleene_all<T>(
    items: impl IntoIterator<Item = T>,
    eval: impl Fn(T) -> Option<bool>,
) -> Option<bool> {
    let mut all = Some(true);
    for item in items {
        match eval(item) {
            Some(false) => return Some(false),
            Some(true) => {}
            None => all = None,
        }
    }
    all
}

/// Kleene (three-valued) disjunction: `Some(true)` as soon as one is true (the rest are
/// not evaluated), else `None` if one is unknown, else `Some(false)`.
pub fn kleene_any<T>(
    items: impl IntoIterator<Item = T>,
    eval: impl Fn(T) -> Option<bool>,
) -> Option<bool> {
    let mut any = Some(false);
    for item in items {
        match eval(item) {
            Some(true) => return Some(true),
            Some(false) => {}
            None => any = None,
        }
    }
    any
}

/// A condition over the symbols of its expressions.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Cond {
    Const(bool),
    /// `e OP 0`.
    Cmp(CmpOp, Expr),
    /// Negation of an opaque condition (other negations are pushed inwards).
    Not(Box<Cond>),
    And(Vec<Cond>),
    Or(Vec<Cond>),
    /// A condition the engine cannot express, e.g. a comparison of floats.
    Opaque(Opaque),
}

impl Cond {
    pub fn truth() -> Cond {
        Cond::Const(true)
    }

    /// `a R b`.
    pub fn compare(rel: Relation, a: &Expr, b: &Expr) -> Cond {
        let (op, e) = match rel {
            Relation::Eq => (CmpOp::Eq, a.sub(b)),
            Relation::Ne => (CmpOp::Ne, a.sub(b)),
            Relation::Lt => (CmpOp::Lt, a.sub(b)),
            Relation::Le => (CmpOp::Le, a.sub(b)),
            Relation::Gt => (CmpOp::Lt, b.sub(a)),
            Relation::Ge => (CmpOp::Le, b.sub(a)),
        };
        Cond::cmp(op, e)
    }

    /// `e OP 0`, folded when the built-in ranges decide it.
    pub fn cmp(op: CmpOp, e: Expr) -> Cond {
        if e.is_unknown() {
            return Cond::Cmp(op, e);
        }
        let e = Cond::oriented(op, e);
        let r = sign::builtin_range(&e);
        let zero = Rational::ZERO;
        let below = r.hi.is_some_and(|h| h < zero);
        let above = r.lo.is_some_and(|l| l > zero);
        let at_most = r.hi.is_some_and(|h| h <= zero);
        let at_least = r.lo.is_some_and(|l| l >= zero);
        let decided = match op {
            CmpOp::Eq if below || above => Some(false),
            CmpOp::Eq if at_most && at_least => Some(true),
            CmpOp::Ne if below || above => Some(true),
            CmpOp::Ne if at_most && at_least => Some(false),
            CmpOp::Lt if below => Some(true),
            CmpOp::Lt if at_least => Some(false),
            CmpOp::Le if at_most => Some(true),
            CmpOp::Le if above => Some(false),
            _ => None,
        };
        match decided {
            Some(b) => Cond::Const(b),
            None => Cond::Cmp(op, e),
        }
    }

    /// `e` as `e OP 0` stores it: equalities with a positive leading coefficient.
    fn oriented(op: CmpOp, e: Expr) -> Expr {
        match op {
            CmpOp::Eq | CmpOp::Ne
                if e.terms()
                    .iter()
                    .next_back()
                    .is_some_and(|t| t.coef.is_negative()) =>
            {
                e.neg()
            }
            _ => e,
        }
    }

    /// The negation of a comparison or an opaque condition without asking the ranges
    /// whether it folds: what [`Cond::not`] gives unless that is a constant. Others:
    /// `None`.
    fn negation_unfolded(&self) -> Option<Cond> {
        let (op, e) = match self {
            Cond::Cmp(CmpOp::Eq, e) => (CmpOp::Ne, e.clone()),
            Cond::Cmp(CmpOp::Ne, e) => (CmpOp::Eq, e.clone()),
            Cond::Cmp(CmpOp::Lt, e) => (CmpOp::Le, e.neg()),
            Cond::Cmp(CmpOp::Le, e) => (CmpOp::Lt, e.neg()),
            Cond::Not(c) => return Some((**c).clone()),
            Cond::Opaque(_) => return Some(Cond::Not(Box::new(self.clone()))),
            _ => return None,
        };
        Some(Cond::Cmp(op, Cond::oriented(op, e)))
    }

    pub fn as_const(&self) -> Option<bool> {
        match self {
            Cond::Const(b) => Some(*b),
            _ => None,
        }
    }

    pub fn not(&self) -> Cond {
        match self {
            Cond::Const(b) => Cond::Const(!b),
            Cond::Cmp(op, e) => match op {
                CmpOp::Eq => Cond::cmp(CmpOp::Ne, e.clone()),
                CmpOp::Ne => Cond::cmp(CmpOp::Eq, e.clone()),
                CmpOp::Lt => Cond::cmp(CmpOp::Le, e.neg()),
                CmpOp::Le => Cond::cmp(CmpOp::Lt, e.neg()),
            },
            Cond::Not(c) => (**c).clone(),
            Cond::And(cs) => Cond::or_all(cs.iter().map(Cond::not).collect()),
            Cond::Or(cs) => Cond::and_all(cs.iter().map(Cond::not).collect()),
            Cond::Opaque(_) => Cond::Not(Box::new(self.clone())),
        }
    }

    pub fn and(&self, other: &Cond) -> Cond {
        Cond::and_all(vec![self.clone(), other.clone()])
    }

    pub fn or(&self, other: &Cond) -> Cond {
        Cond::or_all(vec![self.clone(), other.clone()])
    }

    pub fn and_all(cs: Vec<Cond>) -> Cond {
        Cond::junction(cs, true)
    }

    pub fn or_all(cs: Vec<Cond>) -> Cond {
        Cond::junction(cs, false)
    }

    fn junction(cs: Vec<Cond>, is_and: bool) -> Cond {
        crate::budget::charge(cs.len() as u64);
        let mut out = Vec::new();
        for c in cs {
            match c {
                Cond::Const(b) if b == is_and => {}
                Cond::Const(_) => return Cond::Const(!is_and),
                Cond::And(xs) if is_and => out.extend(xs),
                Cond::Or(xs) if !is_and => out.extend(xs),
                c => out.push(c),
            }
        }
        out.sort();
        out.dedup();
        // `c` together with its negation (`out` is sorted, and holds no constants and no
        // junction of its own kind: those were flattened). The negation of a comparison
        // is first looked up unfolded, which is cheap: the folded one is either that or
        // a constant, so only a hit needs the real one. The negation of a junction of
        // the other kind (`¬(a ∨ b)` in a conjunction) is a junction of this kind or a
        // constant, so it is never among `out`.
        for c in &out {
            let Some(unfolded) = c.negation_unfolded() else {
                continue;
            };
            if out.binary_search(&unfolded).is_ok() && out.binary_search(&c.not()).is_ok() {
                return Cond::Const(!is_and);
            }
        }
        match out.len() {
            0 => Cond::Const(is_and),
            1 => out.pop().unwrap_or(Cond::Const(is_and)),
            _ if is_and => Cond::And(out),
            _ => Cond::Or(out),
        }
    }

    /// The truth value for the given symbol values; `None` when it cannot be decided.
    pub fn eval(&self, env: &dyn Fn(&Symbol) -> Option<Rational>) -> Option<bool> {
        match self {
            Cond::Const(b) => Some(*b),
            Cond::Cmp(op, e) => Some(op.holds(e.eval(env)?)),
            Cond::Not(c) => c.eval(env).map(|b| !b),
            Cond::And(cs) => kleene_all(cs, |c| c.eval(env)),
            Cond::Or(cs) => kleene_any(cs, |c| c.eval(env)),
            Cond::Opaque(o) => env(&Symbol::Opaque(o.clone())).map(|v| !v.is_zero()),
        }
    }

    pub fn subst(&self, f: &dyn Fn(&Symbol) -> Option<Expr>) -> Cond {
        match self {
            Cond::Const(b) => Cond::Const(*b),
            Cond::Cmp(op, e) => Cond::cmp(*op, e.subst(f)),
            Cond::Not(c) => c.subst(f).not(),
            Cond::And(cs) => Cond::and_all(cs.iter().map(|c| c.subst(f)).collect()),
            Cond::Or(cs) => Cond::or_all(cs.iter().map(|c| c.subst(f)).collect()),
            Cond::Opaque(o) => match f(&Symbol::Opaque(o.clone())) {
                Some(v) => Cond::cmp(CmpOp::Ne, v),
                None => self.clone(),
            },
        }
    }

    pub fn symbols(&self) -> BTreeSet<Symbol> {
        let mut out = BTreeSet::new();
        self.collect_symbols(&mut out);
        out
    }

    /// Number of nodes, comparisons counted with their expressions (and the conditions
    /// of selects within those): the measure [`Expr::size`] uses for a select's condition.
    pub fn size(&self) -> usize {
        match self {
            Cond::Const(_) | Cond::Opaque(_) => 1,
            Cond::Cmp(_, e) => 1 + e.size(),
            Cond::Not(c) => 1 + c.size(),
            Cond::And(cs) | Cond::Or(cs) => 1 + cs.iter().map(Cond::size).sum::<usize>(),
        }
    }

    pub(crate) fn collect_symbols(&self, out: &mut BTreeSet<Symbol>) {
        match self {
            Cond::Const(_) => {}
            Cond::Cmp(_, e) => e.collect_symbols(out),
            Cond::Not(c) => c.collect_symbols(out),
            Cond::And(cs) | Cond::Or(cs) => {
                for c in cs {
                    c.collect_symbols(out);
                }
            }
            Cond::Opaque(o) => {
                out.insert(Symbol::Opaque(o.clone()));
            }
        }
    }

    /// The launch indices the condition may depend on.
    pub fn deps(&self) -> Deps {
        let mut d = Deps::NONE;
        for s in self.symbols() {
            d = d.union(s.deps());
        }
        if let Cond::Cmp(_, e) = self
            && e.is_unknown()
        {
            d = Deps::ALL;
        }
        d
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::symbol::Axis;

    /// The junction as it was written first: every operand's negation folded and looked
    /// for among the operands.
    fn junction_reference(cs: Vec<Cond>, is_and: bool) -> Cond {
        let mut out = Vec::new();
        for c in cs {
            match c {
                Cond::Const(b) if b == is_and => {}
                Cond::Const(_) => return Cond::Const(!is_and),
                Cond::And(xs) if is_and => out.extend(xs),
                Cond::Or(xs) if !is_and => out.extend(xs),
                c => out.push(c),
            }
        }
        out.sort();
        out.dedup();
        for c in &out {
            if out.contains(&c.not()) {
                return Cond::Const(!is_and);
            }
        }
        match out.len() {
            0 => Cond::Const(is_and),
            1 => out.pop().unwrap_or(Cond::Const(is_and)),
            _ if is_and => Cond::And(out),
            _ => Cond::Or(out),
        }
    }

    /// The junction that looks negations up unfolded, and skips junctions of the other
    /// kind, gives what the reference gives, on random conditions over thread indices
    /// (whose built-in ranges fold some comparisons), parameters and opaque conditions.
    #[test]
    fn junctions_agree_with_the_reference() {
        let mut seed: u64 = 0x9e37_79b9_7f4a_7c15;
        let mut next = move |n: u64| {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            seed % n
        };
        let atoms = [
            Expr::sym(Symbol::ThreadIdx(Axis::X)),
            Expr::sym(Symbol::BlockDim(Axis::X)),
            Expr::sym(Symbol::param("n")),
            Expr::sym(Symbol::param("m")),
        ];
        let mut pool: Vec<Cond> = Vec::new();
        let mut complements = 0;
        for _ in 0..6000 {
            let c = match next(7) {
                0..=2 => {
                    let a = atoms[next(4) as usize].scale(Rational::int(next(3) as i128 - 1));
                    let b = atoms[next(4) as usize].add(&Expr::int(next(5) as i128 - 2));
                    let rel =
                        [Relation::Lt, Relation::Le, Relation::Eq, Relation::Ne][next(4) as usize];
                    Cond::compare(rel, &a, &b)
                }
                3 => match Symbol::opaque(next(3) as u32, Deps::NONE, "p") {
                    Symbol::Opaque(o) => Cond::Opaque(o),
                    _ => Cond::truth(),
                },
                _ if pool.is_empty() => Cond::truth(),
                _ => {
                    let k = 1 + next(3) as usize;
                    let parts: Vec<Cond> = (0..k)
                        .map(|_| {
                            let c = pool[next(pool.len() as u64) as usize].clone();
                            if next(2) == 0 { c.not() } else { c }
                        })
                        .collect();
                    let is_and = next(2) == 0;
                    let constants = parts.iter().any(|p| p.as_const().is_some());
                    let fast = Cond::junction(parts.clone(), is_and);
                    assert_eq!(fast, junction_reference(parts, is_and));
                    if fast.as_const().is_some() && !constants {
                        complements += 1;
                    }
                    fast
                }
            };
            if c.size() < 40 {
                pool.push(c);
            }
        }
        assert!(complements >= 10, "{complements} junctions of complements");
    }
}
