//! Ranges, signs and monotonicity of expressions, under recorded assumptions
//! (Juravle §7.2 "Expression signs", "Monotonicity"; §8.5).
//!
//! # Facts
//!
//! Launch indices carry built-in facts that always hold: `0 ≤ threadIdx.a ≤ blockDim.a - 1`,
//! `0 ≤ blockIdx.a ≤ gridDim.a - 1`, `1 ≤ blockDim.{x,y} ≤ 1024`, `1 ≤ blockDim.z ≤ 64`,
//! `1 ≤ gridDim.x ≤ 2³¹ - 1`, `1 ≤ gridDim.{y,z} ≤ 65535`, and iteration counters are
//! at least 0. A [`Context`] adds facts of its own ([`Facts`]: bounds for any symbol, e.g.
//! `0 ≤ i ≤ n - 1` for a loop index) and may *assume* that parameters whose sign is
//! unknown are positive — the usual case for sizes. An assumption is only made when a
//! question cannot be answered without it, and every answer lists the assumptions it
//! needed ([`Answer::assuming`]), so a report can say "assuming n > 0".
//!
//! # Algorithm
//!
//! The bounds of an expression come from the *substitution method* of §7.2: a symbol `s`
//! with symbolic bounds `[lo, hi]` that occurs linearly, `e = c·s + r`, is replaced by
//! `lo` or `hi` according to the sign of `c` (for the lower bound of `e`, `lo` when
//! `c ≥ 0`), so `blockDim.x - threadIdx.x - 1 ≥ 0` is proved by substituting
//! `threadIdx.x := blockDim.x - 1`. What remains is bounded by interval arithmetic over
//! the numeric ranges of the symbols; floor division, modulo, min, max and the bit
//! functions have interval rules of their own. The sign of `c` is found by interval
//! arithmetic alone, which breaks the cycle between signs and monotonicity that §7.2
//! notes.

use std::cmp::Ordering;
use std::collections::{BTreeMap, BTreeSet};
use std::fmt;

use crate::expr::{Atom, Expr};
use crate::func::FuncKind;
use crate::rational::Rational;
use crate::symbol::{Axis, Symbol};

/// A closed interval of rationals; `None` bounds are infinite.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Interval {
    pub lo: Option<Rational>,
    pub hi: Option<Rational>,
}

impl Interval {
    pub const FULL: Interval = Interval { lo: None, hi: None };

    pub fn point(v: Rational) -> Interval {
        Interval {
            lo: Some(v),
            hi: Some(v),
        }
    }

    pub fn new(lo: Option<Rational>, hi: Option<Rational>) -> Interval {
        Interval { lo, hi }
    }

    pub fn ints(lo: i128, hi: i128) -> Interval {
        Interval::new(Some(Rational::int(lo)), Some(Rational::int(hi)))
    }

    pub fn at_least(lo: i128) -> Interval {
        Interval::new(Some(Rational::int(lo)), None)
    }

    fn add(self, o: Interval) -> Interval {
        let add = |a: Option<Rational>, b: Option<Rational>| a?.checked_add(b?);
        Interval::new(add(self.lo, o.lo), add(self.hi, o.hi))
    }

    /// Product, with `0·∞ = 0`.
    fn mul(self, o: Interval) -> Interval {
        #[derive(Clone, Copy, PartialEq, PartialOrd)]
        enum Ext {
            NegInf,
            Fin(Rational),
            PosInf,
        }
        let lo = |b: Option<Rational>| b.map_or(Ext::NegInf, Ext::Fin);
        let hi = |b: Option<Rational>| b.map_or(Ext::PosInf, Ext::Fin);
        let sign = |e: Ext| match e {
            Ext::NegInf => -1,
            Ext::PosInf => 1,
            Ext::Fin(r) => r.signum(),
        };
        let mul = |a: Ext, b: Ext| -> Option<Ext> {
            match (a, b) {
                (Ext::Fin(x), Ext::Fin(y)) => x.checked_mul(y).map(Ext::Fin),
                _ => Some(match sign(a) * sign(b) {
                    0 => Ext::Fin(Rational::ZERO),
                    s if s > 0 => Ext::PosInf,
                    _ => Ext::NegInf,
                }),
            }
        };
        let cands = [
            mul(lo(self.lo), lo(o.lo)),
            mul(lo(self.lo), hi(o.hi)),
            mul(hi(self.hi), lo(o.lo)),
            mul(hi(self.hi), hi(o.hi)),
        ];
        let Some(cands) = cands.into_iter().collect::<Option<Vec<Ext>>>() else {
            return Interval::FULL;
        };
        let min = cands
            .iter()
            .copied()
            .fold(Ext::PosInf, |m, x| if x < m { x } else { m });
        let max = cands
            .iter()
            .copied()
            .fold(Ext::NegInf, |m, x| if x > m { x } else { m });
        let fin = |e: Ext| match e {
            Ext::Fin(r) => Some(r),
            _ => None,
        };
        Interval::new(fin(min), fin(max))
    }

    fn pow(self, p: u32) -> Interval {
        let mut out = Interval::point(Rational::ONE);
        if p.is_multiple_of(2)
            && self.lo.is_some_and(|l| l.is_negative())
            && !self.hi.is_some_and(|h| h.is_negative())
        {
            // Contains 0 (or is unbounded across it): even powers are ≥ 0.
            let m = match (self.lo, self.hi) {
                (Some(l), Some(h)) => Some(l.abs().max(h.abs())),
                _ => None,
            };
            let b = Interval::new(Some(Rational::ZERO), m);
            for _ in 0..p {
                out = out.mul(b);
            }
            return Interval::new(Some(Rational::ZERO), out.hi);
        }
        for _ in 0..p.min(16) {
            out = out.mul(self);
        }
        if p > 16 {
            return Interval::FULL;
        }
        out
    }

    pub fn union(self, o: Interval) -> Interval {
        let lo = match (self.lo, o.lo) {
            (Some(a), Some(b)) => Some(a.min(b)),
            _ => None,
        };
        let hi = match (self.hi, o.hi) {
            (Some(a), Some(b)) => Some(a.max(b)),
            _ => None,
        };
        Interval::new(lo, hi)
    }

    pub fn intersect(self, o: Interval) -> Interval {
        let lo = match (self.lo, o.lo) {
            (Some(a), Some(b)) => Some(a.max(b)),
            (a, b) => a.or(b),
        };
        let hi = match (self.hi, o.hi) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        };
        Interval::new(lo, hi)
    }

    /// The signs the interval allows.
    pub fn sign(self) -> Sign {
        let zero = Rational::ZERO;
        Sign {
            negative: self.lo.is_none_or(|l| l < zero),
            zero: self.lo.is_none_or(|l| l <= zero) && self.hi.is_none_or(|h| h >= zero),
            positive: self.hi.is_none_or(|h| h > zero),
        }
    }
}

impl fmt::Display for Interval {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.lo {
            Some(l) => write!(f, "[{l}, ")?,
            None => write!(f, "(-∞, ")?,
        }
        match self.hi {
            Some(h) => write!(f, "{h}]"),
            None => write!(f, "∞)"),
        }
    }
}

/// The set of signs a value may have (Juravle §8.5: subsets of {-, 0, +}).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Sign {
    pub negative: bool,
    pub zero: bool,
    pub positive: bool,
}

impl Sign {
    pub fn is_nonnegative(self) -> bool {
        !self.negative
    }

    pub fn is_positive(self) -> bool {
        !self.negative && !self.zero
    }

    pub fn is_nonpositive(self) -> bool {
        !self.positive
    }

    pub fn is_negative(self) -> bool {
        !self.positive && !self.zero
    }

    pub fn is_zero(self) -> bool {
        !self.positive && !self.negative
    }

    pub fn is_unknown(self) -> bool {
        self.negative && self.zero && self.positive
    }
}

/// How an expression changes when a symbol grows.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Monotonicity {
    Constant,
    /// Never decreases (strictly: always increases).
    Increasing {
        strict: bool,
    },
    Decreasing {
        strict: bool,
    },
    Unknown,
}

/// An assumption made to answer a question: the symbol is positive.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Assumption {
    pub symbol: Symbol,
}

impl fmt::Display for Assumption {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} > 0", self.symbol)
    }
}

/// An answer and the assumptions it needed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Answer<T> {
    pub value: T,
    pub assuming: Vec<Assumption>,
}

impl<T> Answer<T> {
    fn exact(value: T) -> Answer<T> {
        Answer {
            value,
            assuming: Vec::new(),
        }
    }
}

/// Bounds a caller knows for symbols: `lo ≤ s ≤ hi`, either bound possibly symbolic.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Facts {
    bounds: BTreeMap<Symbol, (Option<Expr>, Option<Expr>)>,
}

impl Facts {
    pub fn new() -> Facts {
        Facts::default()
    }

    /// Records `lo ≤ symbol ≤ hi` (replacing what was known of the symbol).
    pub fn bound(&mut self, symbol: Symbol, lo: Option<Expr>, hi: Option<Expr>) {
        self.bounds.insert(symbol, (lo, hi));
    }

    /// Records `symbol = value`.
    pub fn fix(&mut self, symbol: Symbol, value: i128) {
        self.bound(symbol, Some(Expr::int(value)), Some(Expr::int(value)));
    }

    pub fn get(&self, symbol: &Symbol) -> Option<&(Option<Expr>, Option<Expr>)> {
        self.bounds.get(symbol)
    }
}

/// The built-in symbolic bounds of a launch index.
fn builtin_bounds(s: &Symbol) -> Option<(Option<Expr>, Option<Expr>)> {
    match s {
        Symbol::ThreadIdx(a) => Some((
            Some(Expr::zero()),
            Some(Expr::sym(Symbol::BlockDim(*a)).sub(&Expr::one())),
        )),
        Symbol::BlockIdx(a) => Some((
            Some(Expr::zero()),
            Some(Expr::sym(Symbol::GridDim(*a)).sub(&Expr::one())),
        )),
        _ => None,
    }
}

/// The built-in numeric range of a symbol.
fn builtin_interval(s: &Symbol) -> Interval {
    match s {
        Symbol::ThreadIdx(Axis::Z) => Interval::ints(0, 63),
        Symbol::ThreadIdx(_) => Interval::ints(0, 1023),
        Symbol::BlockDim(Axis::Z) => Interval::ints(1, 64),
        Symbol::BlockDim(_) => Interval::ints(1, 1024),
        Symbol::BlockIdx(Axis::X) => Interval::ints(0, (1 << 31) - 2),
        Symbol::BlockIdx(_) => Interval::ints(0, 65534),
        Symbol::GridDim(Axis::X) => Interval::ints(1, (1 << 31) - 1),
        Symbol::GridDim(_) => Interval::ints(1, 65535),
        Symbol::Iteration { .. } => Interval::at_least(0),
        _ => Interval::FULL,
    }
}

/// The range of an expression from the built-in facts alone, without assumptions; the
/// expression constructors use it to simplify.
pub fn builtin_range(e: &Expr) -> Interval {
    static EMPTY: Context = Context {
        facts: Facts {
            bounds: BTreeMap::new(),
        },
        assume_positive_params: false,
    };
    let mut used = BTreeSet::new();
    EMPTY.range_with(e, false, &mut used)
}

/// Facts and the assumption policy under which questions are answered.
#[derive(Clone, Debug, Default)]
pub struct Context {
    pub facts: Facts,
    /// Whether parameters of unknown sign may be assumed positive (and reported).
    pub assume_positive_params: bool,
}

impl Context {
    pub fn new() -> Context {
        Context::default()
    }

    /// A context that assumes parameters positive when it must.
    pub fn assuming_positive_params() -> Context {
        Context {
            facts: Facts::new(),
            assume_positive_params: true,
        }
    }

    /// The range of `e`, making assumptions only when a bound would otherwise be
    /// infinite on a side where an assumption bounds it.
    pub fn range(&self, e: &Expr) -> Answer<Interval> {
        let mut used = BTreeSet::new();
        let exact = self.range_with(e, false, &mut used);
        if !self.assume_positive_params || (exact.lo.is_some() && exact.hi.is_some()) {
            return Answer::exact(exact);
        }
        let mut used = BTreeSet::new();
        let assumed = self.range_with(e, true, &mut used);
        if assumed == exact {
            return Answer::exact(exact);
        }
        Answer {
            value: assumed,
            assuming: used
                .into_iter()
                .map(|symbol| Assumption { symbol })
                .collect(),
        }
    }

    /// The possible signs of `e`.
    pub fn sign(&self, e: &Expr) -> Answer<Sign> {
        let mut used = BTreeSet::new();
        let exact = self.range_with(e, false, &mut used).sign();
        let decided = |s: Sign| s.is_nonnegative() || s.is_nonpositive();
        if decided(exact) || !self.assume_positive_params {
            return Answer::exact(exact);
        }
        let mut used = BTreeSet::new();
        let assumed = self.range_with(e, true, &mut used).sign();
        if decided(assumed) {
            Answer {
                value: assumed,
                assuming: used
                    .into_iter()
                    .map(|symbol| Assumption { symbol })
                    .collect(),
            }
        } else {
            Answer::exact(exact)
        }
    }

    /// Whether `a R b` holds for every value of the symbols (`Some(true)`), for none
    /// (`Some(false)`), or neither can be shown (`None`).
    pub fn decide(&self, rel: crate::cond::Relation, a: &Expr, b: &Expr) -> Answer<Option<bool>> {
        use crate::cond::Relation::*;
        let d = a.sub(b);
        let s = self.sign(&d);
        let v = s.value;
        let value = match rel {
            Eq if v.is_zero() => Some(true),
            Eq if !v.zero => Some(false),
            Ne if v.is_zero() => Some(false),
            Ne if !v.zero => Some(true),
            Lt if v.is_negative() => Some(true),
            Lt if v.is_nonnegative() => Some(false),
            Le if v.is_nonpositive() => Some(true),
            Le if v.is_positive() => Some(false),
            Gt if v.is_positive() => Some(true),
            Gt if v.is_nonpositive() => Some(false),
            Ge if v.is_nonnegative() => Some(true),
            Ge if v.is_negative() => Some(false),
            _ => None,
        };
        Answer {
            value,
            assuming: if value.is_some() {
                s.assuming
            } else {
                Vec::new()
            },
        }
    }

    /// Compares two expressions (§7.2 "Expression comparison": the sign of `a - b`).
    pub fn compare(&self, a: &Expr, b: &Expr) -> Answer<Option<Ordering>> {
        let s = self.sign(&a.sub(b));
        let v = s.value;
        let value = if v.is_zero() {
            Some(Ordering::Equal)
        } else if v.is_positive() {
            Some(Ordering::Greater)
        } else if v.is_negative() {
            Some(Ordering::Less)
        } else {
            None
        };
        Answer {
            value,
            assuming: if value.is_some() {
                s.assuming
            } else {
                Vec::new()
            },
        }
    }

    /// How `e` changes when the integer `symbol` grows by one (§7.2 Algorithm 5, with
    /// the fresh positive δ taken as 1 since the symbols are integers).
    pub fn monotonicity(&self, e: &Expr, symbol: &Symbol) -> Answer<Monotonicity> {
        let d = e.difference(symbol, &Expr::one());
        if d.is_zero() {
            return Answer::exact(Monotonicity::Constant);
        }
        let s = self.sign(&d);
        let v = s.value;
        let value = if v.is_zero() {
            Monotonicity::Constant
        } else if v.is_nonnegative() {
            Monotonicity::Increasing {
                strict: v.is_positive(),
            }
        } else if v.is_nonpositive() {
            Monotonicity::Decreasing {
                strict: v.is_negative(),
            }
        } else {
            return Answer::exact(Monotonicity::Unknown);
        };
        Answer {
            value,
            assuming: s.assuming,
        }
    }

    /// Symbolic bounds of a symbol: the context's facts, else the built-in ones.
    fn symbolic_bounds(&self, s: &Symbol) -> Option<(Option<Expr>, Option<Expr>)> {
        if let Some((lo, hi)) = self.facts.get(s) {
            let symbolic = |b: &Option<Expr>| b.as_ref().is_some_and(|e| e.as_constant().is_none());
            if symbolic(lo) || symbolic(hi) {
                return Some((lo.clone(), hi.clone()));
            }
            return None;
        }
        builtin_bounds(s)
    }

    /// The numeric range of a symbol.
    fn symbol_interval(&self, s: &Symbol, assume: bool, used: &mut BTreeSet<Symbol>) -> Interval {
        let mut iv = builtin_interval(s);
        if let Some((lo, hi)) = self.facts.get(s) {
            // Bounds of the bounds: numeric intervals of the bound expressions.
            let lo = lo.as_ref().and_then(|e| self.interval(e, assume, used).lo);
            let hi = hi.as_ref().and_then(|e| self.interval(e, assume, used).hi);
            iv = iv.intersect(Interval::new(lo, hi));
        } else if let Symbol::ThreadIdx(a) = s {
            // threadIdx.a ≤ blockDim.a - 1 with the facts about blockDim.a.
            let dim = self.symbol_interval(&Symbol::BlockDim(*a), assume, used);
            let one = Rational::ONE;
            iv = iv.intersect(Interval::new(
                Some(Rational::ZERO),
                dim.hi.and_then(|h| h.checked_sub(one)),
            ));
        } else if let Symbol::BlockIdx(a) = s {
            let dim = self.symbol_interval(&Symbol::GridDim(*a), assume, used);
            iv = iv.intersect(Interval::new(
                Some(Rational::ZERO),
                dim.hi.and_then(|h| h.checked_sub(Rational::ONE)),
            ));
        }
        if assume && matches!(s, Symbol::Param(_)) && iv.lo.is_none_or(|l| !l.is_positive()) {
            let lo_ok = iv.hi.is_none_or(|h| h >= Rational::ONE);
            if lo_ok {
                used.insert(s.clone());
                iv = iv.intersect(Interval::at_least(1));
            }
        }
        iv
    }

    fn range_with(&self, e: &Expr, assume: bool, used: &mut BTreeSet<Symbol>) -> Interval {
        if let Some(c) = e.as_constant() {
            return Interval::point(c);
        }
        // With the budget spent, any value (see [`crate::budget`]).
        if !crate::budget::charge(1 + e.terms().len() as u64) {
            return Interval::FULL;
        }
        let lo = self.eliminate(e, false, assume, used);
        let hi = self.eliminate(e, true, assume, used);
        Interval::new(
            self.interval(&lo, assume, used).lo,
            self.interval(&hi, assume, used).hi,
        )
    }

    /// Substitutes symbols with symbolic bounds that occur linearly by the bound that
    /// minimises (or maximises, `upper`) the expression.
    fn eliminate(&self, e: &Expr, upper: bool, assume: bool, used: &mut BTreeSet<Symbol>) -> Expr {
        let mut e = e.clone();
        for _round in 0..8 {
            let mut changed = false;
            for s in e.symbols() {
                if !crate::budget::charge(1 + e.terms().len() as u64) {
                    return e;
                }
                let Some((lo, hi)) = self.symbolic_bounds(&s) else {
                    continue;
                };
                let Some(c) = e.linear_coefficient(&s) else {
                    continue;
                };
                if c.is_zero() {
                    continue;
                }
                let sign = self.interval(&c, assume, used).sign();
                let pick_hi = if sign.is_nonnegative() {
                    upper
                } else if sign.is_nonpositive() {
                    !upper
                } else {
                    continue;
                };
                let Some(bound) = (if pick_hi { hi } else { lo }) else {
                    continue;
                };
                let rest = e.without_symbol(&s);
                e = rest.add(&c.mul(&bound));
                changed = true;
            }
            if !changed {
                break;
            }
        }
        e
    }

    /// Interval arithmetic over the numeric ranges of the symbols.
    fn interval(&self, e: &Expr, assume: bool, used: &mut BTreeSet<Symbol>) -> Interval {
        if e.is_unknown() || !crate::budget::charge(e.terms().len() as u64) {
            return Interval::FULL;
        }
        let mut sum = Interval::point(Rational::ZERO);
        for t in e.terms() {
            let mut prod = Interval::point(t.coef);
            for (atom, p) in t.mono.factors() {
                let a = self.atom_interval(atom, assume, used);
                prod = prod.mul(a.pow(*p));
            }
            sum = sum.add(prod);
        }
        sum
    }

    fn atom_interval(&self, atom: &Atom, assume: bool, used: &mut BTreeSet<Symbol>) -> Interval {
        match atom {
            Atom::Sym(s) => self.symbol_interval(s, assume, used),
            Atom::FloorDiv(a, b) => {
                let ia = self.range_with(a, assume, used);
                match b.as_constant() {
                    Some(d) if d.is_positive() => {
                        let f = |x: Option<Rational>| {
                            x.and_then(|x| x.checked_div(d))
                                .map(|q| Rational::int(q.floor()))
                        };
                        Interval::new(f(ia.lo), f(ia.hi))
                    }
                    _ => {
                        let ib = self.range_with(b, assume, used);
                        // A positive divisor ≥ 1 shrinks a non-negative numerator.
                        if ib.lo.is_some_and(|l| l >= Rational::ONE)
                            && ia.lo.is_some_and(|l| !l.is_negative())
                        {
                            Interval::new(Some(Rational::ZERO), ia.hi)
                        } else {
                            Interval::FULL
                        }
                    }
                }
            }
            Atom::Mod(a, b) => {
                let ia = self.range_with(a, assume, used);
                let ib = self.range_with(b, assume, used);
                match ib.hi {
                    Some(h) if ib.lo.is_some_and(|l| l.is_positive()) => {
                        let top = h.checked_sub(Rational::ONE);
                        let base = Interval::new(Some(Rational::ZERO), top);
                        if ia.lo.is_some_and(|l| !l.is_negative()) {
                            base.intersect(Interval::new(Some(Rational::ZERO), ia.hi))
                        } else {
                            base
                        }
                    }
                    _ => Interval::FULL,
                }
            }
            Atom::Min(xs) | Atom::Max(xs) => {
                let is_min = matches!(atom, Atom::Min(_));
                let ivs: Vec<Interval> = xs
                    .iter()
                    .map(|x| self.range_with(x, assume, used))
                    .collect();
                let pick = |vals: Vec<Option<Rational>>, want_min: bool, none_wins: bool| {
                    let mut best: Option<Rational> = None;
                    for v in vals {
                        match v {
                            None if none_wins => return None,
                            None => {}
                            Some(v) => {
                                best = Some(match best {
                                    Some(b) if (v < b) == want_min => v,
                                    Some(b) => b,
                                    None => v,
                                })
                            }
                        }
                    }
                    best
                };
                let los = ivs.iter().map(|i| i.lo).collect();
                let his = ivs.iter().map(|i| i.hi).collect();
                if is_min {
                    // min: lower bound is the least lower bound (−∞ wins), upper the least
                    // upper bound (an infinite one never wins).
                    Interval::new(pick(los, true, true), pick(his, true, false))
                } else {
                    Interval::new(pick(los, false, false), pick(his, false, true))
                }
            }
            Atom::Func(f, xs) => {
                let w = f.width as u32;
                let ivs: Vec<Interval> = xs
                    .iter()
                    .map(|x| self.range_with(x, assume, used))
                    .collect();
                let nonneg = |i: &Interval| i.lo.is_some_and(|l| !l.is_negative());
                let bits_of = |i: &Interval| -> Option<u32> {
                    let h = i.hi?.as_integer().or_else(|| Some(i.hi?.ceil()))?;
                    Some(128 - (h.max(0) as u128).leading_zeros())
                };
                match f.kind {
                    FuncKind::Popc | FuncKind::Clz => Interval::ints(0, w as i128),
                    FuncKind::And if ivs.iter().any(nonneg) => {
                        let his: Vec<Rational> = ivs
                            .iter()
                            .filter(|i| nonneg(i))
                            .filter_map(|i| i.hi)
                            .collect();
                        Interval::new(Some(Rational::ZERO), his.into_iter().min())
                    }
                    FuncKind::Or | FuncKind::Xor if ivs.iter().all(nonneg) => {
                        let b = ivs.iter().map(bits_of).collect::<Option<Vec<u32>>>();
                        match b.and_then(|b| b.into_iter().max()) {
                            Some(b) if b < 127 => Interval::ints(0, (1i128 << b) - 1),
                            _ => Interval::at_least(0),
                        }
                    }
                    FuncKind::Shr { .. } if ivs.first().is_some_and(nonneg) => {
                        Interval::new(Some(Rational::ZERO), ivs[0].hi)
                    }
                    FuncKind::MulHi { signed: false } if ivs.iter().all(nonneg) => {
                        Interval::at_least(0)
                    }
                    FuncKind::TruncDiv if ivs.iter().all(nonneg) => {
                        Interval::new(Some(Rational::ZERO), ivs[0].hi)
                    }
                    FuncKind::TruncRem if ivs.iter().all(nonneg) => {
                        let top = ivs[1].hi.and_then(|h| h.checked_sub(Rational::ONE));
                        Interval::new(Some(Rational::ZERO), top)
                    }
                    _ => {
                        if (2..=64).contains(&w) {
                            Interval::ints(-(1i128 << (w - 1)), (1i128 << w) - 1)
                        } else {
                            Interval::FULL
                        }
                    }
                }
            }
            Atom::Select(_, a, b) => self
                .range_with(a, assume, used)
                .union(self.range_with(b, assume, used)),
            Atom::Unknown => Interval::FULL,
        }
    }
}
