//! Fast evaluation of the affine expressions that most addresses are.
//!
//! [`Expr::eval`] works on rationals (a gcd per operation) and walks every atom; the race
//! walk and the instantiation evaluate the same address for every thread and iteration.
//! An expression whose terms are integer multiples of single symbols (`4·tid.x + 64·k +
//! c`) is compiled once into a list of (symbol, coefficient) pairs and evaluated with
//! checked `i128` arithmetic; anything else keeps the general evaluator. Both give the
//! same value (or both `None`), which the tests below check.

use warpcheck_sym::{Atom, Expr, Rational, Symbol};

/// An expression prepared for repeated evaluation.
#[derive(Clone, Debug)]
pub(crate) enum Compiled {
    /// `constant + Σ coefficient·symbol`.
    Affine {
        constant: i128,
        terms: Vec<(Symbol, i128)>,
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
        Compiled::Affine { constant, terms }
    }

    /// The integer value; `None` when a symbol has no value or the value is not an
    /// integer.
    pub(crate) fn eval_int(&self, env: &dyn Fn(&Symbol) -> Option<Rational>) -> Option<i128> {
        match self {
            Compiled::Affine { constant, terms } => {
                let mut sum = *constant;
                for (s, c) in terms {
                    let v = env(s)?.as_integer()?;
                    sum = sum.checked_add(c.checked_mul(v)?)?;
                }
                Some(sum)
            }
            Compiled::General(e) => e.eval(env)?.as_integer(),
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
        // A symbol without a value: no value.
        let n = Expr::sym(Symbol::param("n"));
        assert_eq!(Compiled::new(&n.add(&tid)).eval_int(&|_| None), None);
    }
}
