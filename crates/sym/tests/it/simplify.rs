//! The simplification rules, the queries and the printer, on the patterns the lints and
//! the advisor meet.

use warpcheck_sym::*;

fn tid() -> Expr {
    Expr::sym(Symbol::ThreadIdx(Axis::X))
}
fn ntid() -> Expr {
    Expr::sym(Symbol::BlockDim(Axis::X))
}
fn n() -> Expr {
    Expr::sym(Symbol::param("n"))
}
fn k() -> Expr {
    Expr::sym(Symbol::iteration(0, "k"))
}
fn int(v: i128) -> Expr {
    Expr::int(v)
}

#[test]
fn polynomials_are_canonical() {
    assert_eq!((tid() + 1) * 4 - 4, tid() * 4);
    assert_eq!(&tid() * &n() - &n() * &tid(), Expr::zero());
    assert_eq!(
        ((tid() + n()) * (tid() - n())).to_string(),
        "threadIdx.x^2 - n^2"
    );
    assert_eq!((n() * 4 + 8).to_string(), "4·n + 8");
    assert_eq!((int(8) - n() * 4).to_string(), "-4·n + 8");
}

#[test]
fn floor_division_and_modulo_cancel() {
    let four = int(4);
    // GPUDrano's false positives: (tid / 4)·4 + tid % 4 is tid.
    assert_eq!(tid().floor_div(&four) * 4 + tid().modulo(&four), tid());
    // (4k)/4 = k, (4k + 3)/4 = k, (4k + 3) % 4 = 3.
    assert_eq!((k() * 4).floor_div(&four), k());
    assert_eq!((k() * 4 + 3).floor_div(&four), k());
    assert_eq!((k() * 4 + 3).modulo(&four), int(3));
    // (32·blockIdx.x + threadIdx.x) / 32 keeps the uniform part outside.
    let bid = Expr::sym(Symbol::BlockIdx(Axis::X));
    assert_eq!(
        (bid.clone() * 32 + tid()).floor_div(&int(32)).to_string(),
        "blockIdx.x + threadIdx.x / 32"
    );
    // Nested divisions merge; a remainder already in range is dropped.
    assert_eq!(
        tid().floor_div(&int(2)).floor_div(&int(16)),
        tid().floor_div(&int(32))
    );
    let lane = tid().modulo(&int(32));
    assert_eq!(lane.modulo(&int(8)), tid().modulo(&int(8)));
    assert_eq!(lane.floor_div(&int(32)), Expr::zero());
    assert_eq!(lane.modulo(&int(32)), lane);
    // Common factors cancel: (2x + 2) / 4 = (x + 1) / 2.
    assert_eq!(
        (tid() * 2 + 2).floor_div(&int(4)),
        (tid() + 1).floor_div(&int(2))
    );
    // Floor semantics for negative numbers.
    assert_eq!(int(-7).floor_div(&int(2)), int(-4));
    assert_eq!(int(-7).modulo(&int(2)), int(1));
    // Exact symbolic quotient.
    assert_eq!(
        (&n() * &k()).floor_div(&ntid()).to_string(),
        "(n·k) / blockDim.x"
    );
    assert_eq!((&ntid() * &k() * 3).floor_div(&ntid()), k() * 3);
}

#[test]
fn min_max_fold_and_drop_dominated_arguments() {
    assert_eq!(tid().minimum(&ntid()), tid());
    assert_eq!(tid().maximum(&int(0)), tid());
    assert_eq!(
        n().minimum(&int(3)).minimum(&int(5)).to_string(),
        "min(n, 3)"
    );
    assert_eq!(int(3).maximum(&int(7)), int(7));
}

#[test]
fn conditions_fold_with_builtin_ranges() {
    assert_eq!(Cond::compare(Relation::Lt, &tid(), &ntid()), Cond::truth());
    assert_eq!(Cond::compare(Relation::Ge, &tid(), &int(0)), Cond::truth());
    let c = Cond::compare(Relation::Lt, &tid(), &int(16));
    assert_eq!(c.to_string(), "threadIdx.x < 16");
    assert_eq!(c.not().to_string(), "threadIdx.x >= 16");
    assert_eq!(c.and(&c.not()), Cond::Const(false));
    let eq = Cond::compare(Relation::Eq, &int(0), &tid());
    assert_eq!(eq, Cond::compare(Relation::Eq, &tid(), &int(0)));
}

#[test]
fn functions_fold_and_keep_dependence() {
    let xor = Expr::func(Func::new(FuncKind::Xor, 32), vec![tid(), int(16)]);
    assert_eq!(xor.to_string(), "threadIdx.x ^ 16");
    assert!(xor.deps().varies_in_block());
    let shl = Expr::func(Func::new(FuncKind::Shl, 32), vec![Expr::int(2), tid()]);
    assert_eq!(shl.to_string(), "2 << threadIdx.x");
    let at = xor.subst_one(&Symbol::ThreadIdx(Axis::X), &int(5));
    assert_eq!(at, int(21));
}

#[test]
fn signs_need_and_record_assumptions() {
    let exact = Context::new();
    // blockDim.x - threadIdx.x - 1 ≥ 0 by substituting threadIdx.x := blockDim.x - 1.
    let slack = ntid() - tid() - 1;
    assert!(exact.sign(&slack).value.is_nonnegative());
    assert!(exact.sign(&slack).assuming.is_empty());
    // 4·n is unknown without assumptions, positive assuming n > 0.
    assert!(exact.sign(&(n() * 4)).value.is_unknown());
    let ctx = Context::assuming_positive_params();
    let s = ctx.sign(&(n() * 4));
    assert!(s.value.is_positive());
    assert_eq!(s.assuming.len(), 1);
    assert_eq!(s.assuming[0].to_string(), "n > 0");
    // Questions answerable without assumptions make none.
    assert!(ctx.sign(&(tid() + 1)).assuming.is_empty());
    // Comparison and monotonicity.
    assert_eq!(
        exact.compare(&(tid() + 1), &tid()).value,
        Some(std::cmp::Ordering::Greater)
    );
    let addr = (&tid() * &n()) * 4;
    let m = ctx.monotonicity(&addr, &Symbol::ThreadIdx(Axis::X));
    assert_eq!(m.value, Monotonicity::Increasing { strict: true });
    assert_eq!(m.assuming[0].symbol, Symbol::param("n"));
}

#[test]
fn facts_bound_symbols() {
    let i = Expr::sym(Symbol::var("i"));
    let mut ctx = Context::new();
    ctx.facts
        .bound(Symbol::var("i"), Some(int(0)), Some(n() - 1));
    ctx.facts
        .bound(Symbol::param("n"), Some(int(1)), Some(int(100)));
    let r = ctx.range(&(i.clone() * 4)).value;
    assert_eq!(r, Interval::ints(0, 396));
    assert!(ctx.sign(&(n() - i - 1)).value.is_nonnegative());
    // Fixed block size: threadIdx.x < 256.
    let mut fixed = Context::new();
    fixed.facts.fix(Symbol::BlockDim(Axis::X), 256);
    assert_eq!(fixed.range(&tid()).value, Interval::ints(0, 255));
}

#[test]
fn instantiation_substitutes_and_evaluates() {
    let e = (tid() * 4 + n()).floor_div(&int(8));
    let env = |s: &Symbol| match s {
        Symbol::ThreadIdx(_) => Some(Rational::int(5)),
        Symbol::Param(_) => Some(Rational::int(12)),
        _ => None,
    };
    assert_eq!(e.eval(&env), Some(Rational::int(4)));
    let inst = e.subst(&|s| env(s).map(Expr::constant));
    assert_eq!(inst, int(4));
    // Missing values leave the symbol.
    let partial = e.subst_one(&Symbol::param("n"), &int(8));
    assert_eq!(partial.to_string(), "threadIdx.x / 2 + 1");
}

#[test]
fn overflow_gives_unknown() {
    let big = Expr::int(i128::MAX);
    assert!((big.clone() + 1).is_unknown());
    assert!(((big * 2) + tid()).is_unknown());
    assert!(Expr::int(1).floor_div(&Expr::zero()).is_unknown());
}

#[test]
fn sizes_count_the_conditions_of_selects() {
    // `last += stride; if (last == end) last -= 2 * stride;` once: the select's condition
    // holds `last` too. Blind to conditions, the size would stay linear while the tree
    // doubles with every step.
    let step = |last: &Expr, stride: &Expr| {
        let next = last + stride;
        let turned = Cond::compare(Relation::Eq, &next, &n());
        Expr::select(turned, &next - &(stride * 2), next.clone())
    };
    let once = step(&tid(), &int(4));
    let cond = Cond::compare(Relation::Eq, &(tid() + 4), &n());
    assert_eq!(cond.size(), 1 + (tid() - n() + 4).size());
    assert_eq!(
        once.size(),
        2 + cond.size() + (tid() - 4).size() + (tid() + 4).size()
    );
    let twice = step(&once, &int(4));
    assert!(
        twice.size() > 2 * once.size(),
        "{} vs {}",
        twice.size(),
        once.size()
    );
}

#[test]
fn magic_number_divisions_read_as_divisions() {
    // clang's `i / 7` for a signed int: x + mulhi(-1840700269, x), shifted right by 2, i.e.
    // ⌊(2^32 − 1840700269)·x / 2^34⌋.
    let i = tid() + Expr::sym(Symbol::BlockIdx(Axis::X)) * ntid();
    let hi = (i.clone() * -1840700269).floor_div(&int(1 << 32));
    let q = (i.clone() + hi).floor_div(&int(4));
    assert_eq!(q, i.floor_div(&int(7)));
    assert_eq!(q.to_string(), "(threadIdx.x + blockIdx.x·blockDim.x) / 7");
    // `x / 3` unsigned: ⌊0xAAAAAAAB·x / 2^33⌋.
    assert_eq!(
        (tid() * 0xAAAA_AAAB_i128).floor_div(&int(1 << 33)),
        tid().floor_div(&int(3))
    );
    // A constant that is not a divisor's magic number stays a division by 2^k.
    let odd = (tid() * 0x8000_1234_i128).floor_div(&int(1 << 33));
    assert_ne!(odd, tid().floor_div(&int(4)));
    // And x of unknown sign is left alone (the identity needs x ≥ 0).
    let hi = (n() * 0xAAAA_AAAB_i128).floor_div(&int(1 << 33));
    assert_ne!(hi, n().floor_div(&int(3)));
}

#[test]
fn sign_bits_of_non_negative_quotients_are_zero() {
    // clang's signed `i / 3`: mulhi(0x55555556, i) plus its sign bit (`>> 31`).
    let i = tid() + Expr::sym(Symbol::BlockIdx(Axis::X)) * ntid();
    let hi = (i.clone() * 0x5555_5556_i128).floor_div(&int(1 << 32));
    assert_eq!(hi, i.floor_div(&int(3)));
    assert_eq!(hi.floor_div(&int(1 << 31)), Expr::zero());
    // A 64-bit value built from a parameter may exceed 2^31: its high half is kept.
    assert_ne!(n().floor_div(&int(1 << 32)), Expr::zero());
}
