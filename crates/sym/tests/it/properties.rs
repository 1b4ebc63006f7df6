//! Simplification preserves values: random expressions built through the simplifying
//! constructors evaluate, under random values that satisfy the built-in facts, to what
//! the same expressions compute with plain integer arithmetic; and the computed ranges
//! contain the values.

use proptest::prelude::*;
use warpcheck_sym::*;

#[derive(Clone, Debug)]
enum Raw {
    Const(i64),
    Sym(usize),
    Add(Box<Raw>, Box<Raw>),
    Sub(Box<Raw>, Box<Raw>),
    Mul(Box<Raw>, Box<Raw>),
    Div(Box<Raw>, i64),
    Mod(Box<Raw>, i64),
    Min(Box<Raw>, Box<Raw>),
    Max(Box<Raw>, Box<Raw>),
    Xor(Box<Raw>, Box<Raw>),
    Select(Box<Raw>, Box<Raw>, Box<Raw>),
}

fn symbols() -> Vec<Symbol> {
    vec![
        Symbol::ThreadIdx(Axis::X),
        Symbol::BlockDim(Axis::X),
        Symbol::BlockIdx(Axis::X),
        Symbol::param("n"),
        Symbol::iteration(0, "k"),
    ]
}

fn raw() -> impl Strategy<Value = Raw> {
    let leaf = prop_oneof![
        (-40i64..40).prop_map(Raw::Const),
        (0usize..5).prop_map(Raw::Sym)
    ];
    leaf.prop_recursive(5, 40, 3, |inner| {
        let divisor = prop_oneof![1i64..=16, Just(32), Just(-4)];
        prop_oneof![
            (inner.clone(), inner.clone()).prop_map(|(a, b)| Raw::Add(Box::new(a), Box::new(b))),
            (inner.clone(), inner.clone()).prop_map(|(a, b)| Raw::Sub(Box::new(a), Box::new(b))),
            (inner.clone(), inner.clone()).prop_map(|(a, b)| Raw::Mul(Box::new(a), Box::new(b))),
            (inner.clone(), divisor.clone()).prop_map(|(a, d)| Raw::Div(Box::new(a), d)),
            (inner.clone(), divisor).prop_map(|(a, d)| Raw::Mod(Box::new(a), d)),
            (inner.clone(), inner.clone()).prop_map(|(a, b)| Raw::Min(Box::new(a), Box::new(b))),
            (inner.clone(), inner.clone()).prop_map(|(a, b)| Raw::Max(Box::new(a), Box::new(b))),
            (inner.clone(), inner.clone()).prop_map(|(a, b)| Raw::Xor(Box::new(a), Box::new(b))),
            (inner.clone(), inner.clone(), inner).prop_map(|(c, a, b)| Raw::Select(
                Box::new(c),
                Box::new(a),
                Box::new(b)
            )),
        ]
    })
}

fn build(r: &Raw, syms: &[Symbol]) -> Expr {
    match r {
        Raw::Const(c) => Expr::int(*c as i128),
        Raw::Sym(i) => Expr::sym(syms[*i].clone()),
        Raw::Add(a, b) => build(a, syms) + build(b, syms),
        Raw::Sub(a, b) => build(a, syms) - build(b, syms),
        Raw::Mul(a, b) => build(a, syms) * build(b, syms),
        Raw::Div(a, d) => build(a, syms).floor_div(&Expr::int(*d as i128)),
        Raw::Mod(a, d) => build(a, syms).modulo(&Expr::int(*d as i128)),
        Raw::Min(a, b) => build(a, syms).minimum(&build(b, syms)),
        Raw::Max(a, b) => build(a, syms).maximum(&build(b, syms)),
        Raw::Xor(a, b) => Expr::func(
            Func::new(FuncKind::Xor, 64),
            vec![build(a, syms), build(b, syms)],
        ),
        Raw::Select(c, a, b) => Expr::select(
            Cond::compare(Relation::Lt, &build(c, syms), &Expr::zero()),
            build(a, syms),
            build(b, syms),
        ),
    }
}

fn floor_div(x: i128, d: i128) -> i128 {
    let q = x / d;
    if x % d != 0 && ((x < 0) != (d < 0)) {
        q - 1
    } else {
        q
    }
}

/// Plain integer semantics; `None` when a value leaves a comfortable range.
fn eval(r: &Raw, vals: &[i128]) -> Option<i128> {
    let v = match r {
        Raw::Const(c) => *c as i128,
        Raw::Sym(i) => vals[*i],
        Raw::Add(a, b) => eval(a, vals)?.checked_add(eval(b, vals)?)?,
        Raw::Sub(a, b) => eval(a, vals)?.checked_sub(eval(b, vals)?)?,
        Raw::Mul(a, b) => eval(a, vals)?.checked_mul(eval(b, vals)?)?,
        Raw::Div(a, d) => floor_div(eval(a, vals)?, *d as i128),
        Raw::Mod(a, d) => {
            let x = eval(a, vals)?;
            let d = *d as i128;
            x - d * floor_div(x, d)
        }
        Raw::Min(a, b) => eval(a, vals)?.min(eval(b, vals)?),
        Raw::Max(a, b) => eval(a, vals)?.max(eval(b, vals)?),
        Raw::Xor(a, b) => {
            let (x, y) = (eval(a, vals)?, eval(b, vals)?);
            (x as i64 ^ y as i64) as i128
        }
        Raw::Select(c, a, b) => {
            if eval(c, vals)? < 0 {
                eval(a, vals)?
            } else {
                eval(b, vals)?
            }
        }
    };
    (v.abs() < 1 << 60).then_some(v)
}

/// Symbol values satisfying the built-in facts: 1 ≤ blockDim ≤ 1024,
/// 0 ≤ threadIdx < blockDim, 0 ≤ blockIdx, any n, k ≥ 0.
fn values() -> impl Strategy<Value = Vec<i128>> {
    (
        1i128..=1024,
        0i128..1024,
        0i128..5000,
        -100i128..100,
        0i128..50,
    )
        .prop_map(|(dim, t, b, n, k)| vec![t % dim, dim, b, n, k])
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 3000, ..ProptestConfig::default() })]

    #[test]
    fn simplification_preserves_value(r in raw(), vals in values()) {
        let syms = symbols();
        if let Some(expected) = eval(&r, &vals) {
            let e = build(&r, &syms);
            let env = |s: &Symbol| syms.iter().position(|x| x == s).map(|i| Rational::int(vals[i]));
            if !e.is_unknown() {
                prop_assert_eq!(e.eval(&env), Some(Rational::int(expected)), "{}", e);
            }
            // Substituting the numbers folds to the same value.
            let folded = e.subst(&|s| env(s).map(Expr::constant));
            if !folded.is_unknown() {
                prop_assert_eq!(folded.as_constant(), Some(Rational::int(expected)), "{}", e);
            }
            let _ = e.to_string();
        }
    }

    #[test]
    fn ranges_contain_the_values(r in raw(), vals in values()) {
        let syms = symbols();
        if let Some(v) = eval(&r, &vals) {
            let e = build(&r, &syms);
            let range = Context::new().range(&e).value;
            let v = Rational::int(v);
            prop_assert!(range.lo.is_none_or(|l| l <= v), "{} in {} but {}", e, range, v);
            prop_assert!(range.hi.is_none_or(|h| h >= v), "{} in {} but {}", e, range, v);
        }
    }
}
