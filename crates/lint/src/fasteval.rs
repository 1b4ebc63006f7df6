//! Fast evaluation of the affine expressions that most addresses are.
//!
//! [`Expr::eval`] works on rationals (a gcd per operation) and walks every atom; the race
//! walk and the instantiation evaluate the same address for every thread and iteration.
//! An expression whose terms are integer multiples of single symbols (`4·tid.x + 64·k +
//! c`) is compiled once into a list of (symbol, coefficient) pairs and evaluated with
//! checked `i128` arithmetic; anything else keeps the general evaluator. Both give the
//! same value (or both `None`), which the tests below check.

use warpcheck_sym::{Atom, CmpOp, Cond, Expr, Rational, Symbol, kleene_all, kleene_any};

/// An expression prepared for repeated evaluation.
#[derive(Clone, Debug)]
pub(crate) enum Compiled {
    /// `constant + Σ coefficient·symbol`.
    Affine {
        constant: i128,
        terms: Vec<(Symbol, i128)>,
        /// For values that are not integers (or overflow): the general evaluator.
        expr: Expr,
    },
    General(Expr),
}

impl Compiled {
    pub(crate) fn new(e: &Expr) -> Compiled {
        let mut constant = 0i128;
        let mut terms = Vec::new();
        for t in e.terms() {
            let Some(c) = t.coef.as_integer() else {
                return Compiled::General(e.clone());
            };
            match t.mono.factors() {
                [] => constant = c,
                [(Atom::Sym(s), 1)] => terms.push((s.clone(), c)),
                _ => return Compiled::General(e.clone()),
            }
        }
        Compiled::Affine {
            constant,
            terms,
            expr: e.clone(),
        }
    }

    /// The value, as [`Expr::eval`] gives it.
    pub(crate) fn eval(&self, env: &dyn Fn(&Symbol) -> Option<Rational>) -> Option<Rational> {
        match self {
            Compiled::Affine {
                constant,
                terms,
                expr,
            } => {
                let mut sum = *constant;
                for (s, c) in terms {
                    let v = env(s)?;
                    let Some(step) = v.as_integer().and_then(|v| c.checked_mul(v)) else {
                        return expr.eval(env);
                    };
                    let Some(next) = sum.checked_add(step) else {
                        return expr.eval(env);
                    };
                    sum = next;
                }
                Some(Rational::int(sum))
            }
            Compiled::General(e) => e.eval(env),
        }
    }

    /// The integer value; `None` when a symbol has no value or the value is not an
    /// integer.
    pub(crate) fn eval_int(&self, env: &dyn Fn(&Symbol) -> Option<Rational>) -> Option<i128> {
        match self {
            Compiled::Affine { .. } => self.eval(env)?.as_integer(),
            Compiled::General(e) => e.eval(env)?.as_integer(),
        }
    }
}

/// A condition prepared for repeated evaluation: [`Cond`] with compiled comparisons.
#[derive(Clone, Debug)]
pub(crate) enum CompiledCond {
    Const(bool),
    Cmp(CmpOp, Compiled),
    Not(Box<CompiledCond>),
    And(Vec<CompiledCond>),
    Or(Vec<CompiledCond>),
    Opaque(Symbol),
}

impl CompiledCond {
    pub(crate) fn new(c: &Cond) -> CompiledCond {
        match c {
            Cond::Const(b) => CompiledCond::Const(*b),
            Cond::Cmp(op, e) => CompiledCond::Cmp(*op, Compiled::new(e)),
            Cond::Not(c) => CompiledCond::Not(Box::new(CompiledCond::new(c))),
            Cond::And(cs) => CompiledCond::And(cs.iter().map(CompiledCond::new).collect()),
            Cond::Or(cs) => CompiledCond::Or(cs.iter().map(CompiledCond::new).collect()),
            Cond::Opaque(o) => CompiledCond::Opaque(Symbol::Opaque(o.clone())),
        }
    }

    /// The truth value, as [`Cond::eval`] gives it.
    pub(crate) fn eval(&self, env: &dyn Fn(&Symbol) -> Option<Rational>) -> Option<bool> {
        match self {
            CompiledCond::Const(b) => Some(*b),
            CompiledCond::Cmp(op, e) => Some(op.holds(e.eval(env)?)),
            CompiledCond::Not(c) => c.eval(env).map(|b| !b),
            CompiledCond::And(cs) => kleene_all(cs, |c| c.eval(env)),
            CompiledCond::Or(cs) => kleene_any(cs, |c| c.eval(env)),
            CompiledCond::Opaque(s) => env(s).map(|v| !v.is_zero()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use warpcheck_sym::Axis;

    #[test]
    fn affine_and_general_agree() {
        let tid = Expr::sym(Symbol::ThreadIdx(Axis::X));
        let k = Expr::sym(Symbol::iteration(0, "k"));
        let affine = tid
            .mul(&Expr::int(4))
            .add(&k.mul(&Expr::int(64)))
            .add(&Expr::int(12));
        let general = tid.mul(&tid).add(&tid.floor_div(&Expr::int(3)));
        assert!(matches!(Compiled::new(&affine), Compiled::Affine { .. }));
        assert!(matches!(Compiled::new(&general), Compiled::General(_)));
        for t in 0..40 {
            for kv in 0..3 {
                let env = |s: &Symbol| match s {
                    Symbol::ThreadIdx(_) => Some(Rational::int(t)),
                    Symbol::Iteration { .. } => Some(Rational::int(kv)),
                    _ => None,
                };
                for e in [&affine, &general] {
                    assert_eq!(
                        Compiled::new(e).eval_int(&env),
                        e.eval(&env).and_then(|v| v.as_integer())
                    );
                }
            }
        }
        // Conditions agree with Cond::eval, also with rational values.
        let conds = [
            Cond::compare(warpcheck_sym::Relation::Lt, &affine, &Expr::int(100)),
            Cond::compare(warpcheck_sym::Relation::Eq, &general, &Expr::int(12)).or(
                &Cond::compare(warpcheck_sym::Relation::Ge, &tid, &Expr::int(7)),
            ),
        ];
        for c in &conds {
            let cc = CompiledCond::new(c);
            for t in 0..40 {
                for kv in [
                    Rational::int(1),
                    Rational::new(1, 2).unwrap_or(Rational::ZERO),
                ] {
                    let env = |s: &Symbol| match s {
                        Symbol::ThreadIdx(_) => Some(Rational::int(t)),
                        Symbol::Iteration { .. } => Some(kv),
                        _ => None,
                    };
                    assert_eq!(cc.eval(&env), c.eval(&env));
                }
            }
        }
        // A symbol without a value: no value.
        let n = Expr::sym(Symbol::param("n"));
        assert_eq!(Compiled::new(&n.add(&tid)).eval_int(&|_| None), None);
    }
}
