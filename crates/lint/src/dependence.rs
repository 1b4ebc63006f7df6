//! GPUDrano's abstract values (§4.1), read off the symbolic values.
//!
//! * [`IntDep`]: `{0, 1, -1, ⊤}` with respect to one thread index — the value is the same
//!   for all threads, or `threadIdx.a + c`, or `-threadIdx.a + c`, or anything else.
//!   Computed as the difference `e[threadIdx.a + 1] - e`.
//! * [`BoolDep`]: `{TF, TT⁻, FF⁻, ⊤}` — the same for all threads, false for at most one
//!   thread, true for at most one thread, or anything. Here "one thread" means one lane
//!   of each warp, which is what matters for coalescing: `threadIdx.x % 32 == 0` is `FF⁻`.
//!   A comparison `e == c` is `FF⁻` when `e` takes 32 distinct values on the 32 lanes of a
//!   warp (checked symbolically with `threadIdx.x = 32·w + lane`, assuming `blockDim.x`
//!   is a multiple of 32).
//! * The active-thread abstraction of an access is the [`BoolDep`] of its condition:
//!   `FF⁻` means a single lane per warp executes it.

use warpcheck_sym::{Axis, CmpOp, Cond, Expr, Symbol};

/// GPUDrano's integer abstraction with respect to one thread index.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum IntDep {
    /// `0`: the same for every thread.
    Uniform,
    /// `1`: `threadIdx.a + c`.
    Plus,
    /// `-1`: `-threadIdx.a + c`.
    Minus,
    /// `⊤`.
    Top,
}

pub fn int_dep(e: &Expr, axis: Axis) -> IntDep {
    let tid = Symbol::ThreadIdx(axis);
    if e.symbols().iter().any(
        |s| matches!(s, Symbol::Opaque(o) if o.deps.contains(warpcheck_sym::Deps::thread(axis))),
    ) {
        return IntDep::Top;
    }
    let d = e.difference(&tid, &Expr::one());
    match d.as_integer() {
        Some(0) => IntDep::Uniform,
        Some(1) => IntDep::Plus,
        Some(-1) => IntDep::Minus,
        _ => IntDep::Top,
    }
}

/// GPUDrano's boolean abstraction.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BoolDep {
    /// The same for all threads.
    Uniform,
    /// False for at most one lane per warp.
    AllButOne,
    /// True for at most one lane per warp.
    AtMostOne,
    Top,
}

/// The values `e` takes on the 32 lanes of a warp, relative to lane 0's, when
/// `threadIdx.x = 32·w + lane` (other indices fixed); `None` when one is not a number.
pub fn lane_offsets(e: &Expr) -> Option<Vec<i128>> {
    let w = Expr::sym(Symbol::var("w"));
    let at = |lane: i128| {
        e.subst_one(
            &Symbol::ThreadIdx(Axis::X),
            &w.mul(&Expr::int(32)).add(&Expr::int(lane)),
        )
    };
    let base = at(0);
    (0..32).map(|l| at(l).sub(&base).as_integer()).collect()
}

fn injective_in_warp(e: &Expr) -> bool {
    if e.symbols()
        .iter()
        .any(|s| matches!(s, Symbol::Opaque(o) if o.deps.varies_in_block()))
    {
        return false;
    }
    match lane_offsets(e) {
        Some(mut offs) => {
            offs.sort();
            offs.windows(2).all(|p| p[0] != p[1])
        }
        None => false,
    }
}

pub fn bool_dep(c: &Cond) -> BoolDep {
    if !c.deps().varies_in_block() {
        return BoolDep::Uniform;
    }
    match c {
        Cond::Cmp(CmpOp::Eq, e) if injective_in_warp(e) => BoolDep::AtMostOne,
        Cond::Cmp(CmpOp::Ne, e) if injective_in_warp(e) => BoolDep::AllButOne,
        Cond::And(cs) if cs.iter().any(|c| bool_dep(c) == BoolDep::AtMostOne) => BoolDep::AtMostOne,
        Cond::Or(cs) if cs.iter().any(|c| bool_dep(c) == BoolDep::AllButOne) => BoolDep::AllButOne,
        Cond::Not(inner) => match bool_dep(inner) {
            BoolDep::AtMostOne => BoolDep::AllButOne,
            BoolDep::AllButOne => BoolDep::AtMostOne,
            d => d,
        },
        _ => BoolDep::Top,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use warpcheck_sym::Relation;

    fn tid(a: Axis) -> Expr {
        Expr::sym(Symbol::ThreadIdx(a))
    }

    #[test]
    fn integer_lattice() {
        let n = Expr::sym(Symbol::param("n"));
        assert_eq!(int_dep(&n, Axis::X), IntDep::Uniform);
        assert_eq!(int_dep(&(tid(Axis::X) + 3), Axis::X), IntDep::Plus);
        assert_eq!(int_dep(&(n.clone() - tid(Axis::X)), Axis::X), IntDep::Minus);
        assert_eq!(int_dep(&(tid(Axis::X) * 2), Axis::X), IntDep::Top);
        assert_eq!(int_dep(&(&n * &tid(Axis::X)), Axis::X), IntDep::Top);
        assert_eq!(int_dep(&tid(Axis::Y), Axis::X), IntDep::Uniform);
        assert_eq!(int_dep(&tid(Axis::Y), Axis::Y), IntDep::Plus);
        // (tid / 4)·4 + tid % 4 is tid: 1, not ⊤ as in GPUDrano.
        let four = Expr::int(4);
        let e = tid(Axis::X).floor_div(&four) * 4 + tid(Axis::X).modulo(&four);
        assert_eq!(int_dep(&e, Axis::X), IntDep::Plus);
    }

    #[test]
    fn boolean_lattice() {
        let zero = Expr::zero();
        let first = Cond::compare(Relation::Eq, &tid(Axis::X), &zero);
        assert_eq!(bool_dep(&first), BoolDep::AtMostOne);
        assert_eq!(bool_dep(&first.not()), BoolDep::AllButOne);
        let lane0 = Cond::compare(Relation::Eq, &tid(Axis::X).modulo(&Expr::int(32)), &zero);
        assert_eq!(bool_dep(&lane0), BoolDep::AtMostOne);
        let half = Cond::compare(Relation::Lt, &tid(Axis::X), &Expr::int(16));
        assert_eq!(bool_dep(&half), BoolDep::Top);
        let uniform = Cond::compare(Relation::Lt, &Expr::sym(Symbol::param("n")), &Expr::int(16));
        assert_eq!(bool_dep(&uniform), BoolDep::Uniform);
        assert_eq!(bool_dep(&first.and(&half)), BoolDep::AtMostOne);
        // Every fourth lane: not a single one.
        let quarter = Cond::compare(Relation::Eq, &tid(Axis::X).modulo(&Expr::int(4)), &zero);
        assert_eq!(bool_dep(&quarter), BoolDep::Top);
    }
}
