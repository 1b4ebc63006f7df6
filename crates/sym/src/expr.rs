//! Symbolic integer expressions in a canonical form.
//!
//! An [`Expr`] is a polynomial with rational coefficients over *atoms*: symbols and a few
//! non-polynomial nodes — floor division, modulo, min, max, evaluable integer functions
//! and selections. The representation is canonical (Juravle §7.1, "normal form"): a sum
//! of [`Term`]s sorted by monomial, each monomial a sorted product of atoms with powers,
//! no zero coefficients, equal monomials combined. Two expressions that the rules below
//! prove equal compare equal with `==`.
//!
//! Every constructor simplifies:
//! * sums and products are expanded and collected (`(x + 1)·4 - 4 = 4·x`);
//! * `⌊e / d⌋` for a positive integer `d` splits `e = d·q + r` with every coefficient of
//!   `r` in `[0, d)` and gives `q + ⌊r / d⌋`, then drops `⌊r / d⌋` when the built-in
//!   ranges put `r` in `[0, d)` (`⌊(4·k + 3) / 4⌋ = k`, `⌊(4·k) / 4⌋ = k`); nested floor
//!   divisions merge (`⌊⌊x / a⌋ / b⌋ = ⌊x / (a·b)⌋`) and common factors cancel;
//! * `e mod d` keeps only the remainders of the coefficients and is dropped when the
//!   remainder already lies in `[0, d)`; `(x mod a) mod b = x mod b` when `b` divides `a`;
//! * in a sum, `c·d·⌊x / d⌋ + c·(x mod d)` becomes `c·x` — so `(tid / 4)·4 + tid % 4`
//!   is `tid`, the identity that GPUDrano could not see (§6, false positives);
//! * `min`/`max` flatten, fold numbers and drop arguments that the built-in ranges show to
//!   be dominated; functions fold when their arguments are numbers.
//!
//! Division and modulo are *floor* operations (the remainder has the sign of the
//! divisor), which is what arithmetic shifts and masks compute on two's-complement
//! values; C's truncating division is the function [`FuncKind::TruncDiv`].
//!
//! Coefficient overflow does not wrap: it turns the whole expression into
//! [`Expr::unknown`], which absorbs every operation it takes part in.

use std::collections::BTreeSet;
use std::ops;

use crate::cond::Cond;
use crate::func::{Func, FuncKind};
use crate::rational::{Rational, gcd_i128};
use crate::sign;
use crate::symbol::{Deps, Symbol};

/// A factor of a monomial.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Atom {
    Sym(Symbol),
    /// `⌊a / b⌋`.
    FloorDiv(Box<Expr>, Box<Expr>),
    /// `a mod b = a - b·⌊a / b⌋`.
    Mod(Box<Expr>, Box<Expr>),
    /// The least argument (at least two, sorted).
    Min(Vec<Expr>),
    /// The greatest argument (at least two, sorted).
    Max(Vec<Expr>),
    Func(Func, Vec<Expr>),
    /// `c ? a : b`.
    Select(Box<Cond>, Box<Expr>, Box<Expr>),
    /// The result of an overflow; only ever a whole expression ([`Expr::unknown`]).
    Unknown,
}

/// A product of atoms with positive powers, sorted by atom; empty for the constant 1.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Default)]
pub struct Monomial(Vec<(Atom, u32)>);

impl Monomial {
    pub fn one() -> Monomial {
        Monomial(Vec::new())
    }

    pub fn of(atom: Atom) -> Monomial {
        Monomial(vec![(atom, 1)])
    }

    pub fn is_one(&self) -> bool {
        self.0.is_empty()
    }

    pub fn factors(&self) -> &[(Atom, u32)] {
        &self.0
    }

    /// Total degree.
    pub fn degree(&self) -> u32 {
        self.0.iter().map(|(_, p)| *p).sum()
    }

    fn mul(&self, other: &Monomial) -> Monomial {
        let (a, b) = (&self.0, &other.0);
        let mut out = Vec::with_capacity(a.len() + b.len());
        let (mut i, mut j) = (0, 0);
        while i < a.len() && j < b.len() {
            match a[i].0.cmp(&b[j].0) {
                std::cmp::Ordering::Less => {
                    out.push(a[i].clone());
                    i += 1;
                }
                std::cmp::Ordering::Greater => {
                    out.push(b[j].clone());
                    j += 1;
                }
                std::cmp::Ordering::Equal => {
                    out.push((a[i].0.clone(), a[i].1.saturating_add(b[j].1)));
                    i += 1;
                    j += 1;
                }
            }
        }
        out.extend_from_slice(&a[i..]);
        out.extend_from_slice(&b[j..]);
        Monomial(out)
    }

    /// `self / other` if `other` divides it.
    fn div(&self, other: &Monomial) -> Option<Monomial> {
        let mut out = self.0.clone();
        for (atom, p) in &other.0 {
            let pos = out.iter().position(|(a, _)| a == atom)?;
            if out[pos].1 < *p {
                return None;
            }
            out[pos].1 -= p;
            if out[pos].1 == 0 {
                out.remove(pos);
            }
        }
        Some(Monomial(out))
    }

    /// The power of `symbol` as a direct factor.
    fn power_of(&self, symbol: &Symbol) -> u32 {
        self.0
            .iter()
            .find(|(a, _)| matches!(a, Atom::Sym(s) if s == symbol))
            .map_or(0, |(_, p)| *p)
    }

    fn without(&self, symbol: &Symbol) -> Monomial {
        Monomial(
            self.0
                .iter()
                .filter(|(a, _)| !matches!(a, Atom::Sym(s) if s == symbol))
                .cloned()
                .collect(),
        )
    }
}

/// `coef · mono`.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Term {
    pub mono: Monomial,
    pub coef: Rational,
}

/// A symbolic expression in canonical form (see the module documentation).
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Default)]
pub struct Expr {
    /// Sorted by monomial (the constant term, if any, first); no zero coefficients.
    terms: Vec<Term>,
}

impl Expr {
    pub fn zero() -> Expr {
        Expr { terms: Vec::new() }
    }

    pub fn one() -> Expr {
        Expr::int(1)
    }

    pub fn int(value: i128) -> Expr {
        Expr::constant(Rational::int(value))
    }

    pub fn constant(value: Rational) -> Expr {
        if value.is_zero() {
            Expr::zero()
        } else {
            Expr {
                terms: vec![Term {
                    mono: Monomial::one(),
                    coef: value,
                }],
            }
        }
    }

    pub fn sym(symbol: Symbol) -> Expr {
        Expr::atom(Atom::Sym(symbol))
    }

    /// The value of an overflowing computation: unknown, absorbing.
    pub fn unknown() -> Expr {
        Expr::atom(Atom::Unknown)
    }

    fn atom(atom: Atom) -> Expr {
        Expr {
            terms: vec![Term {
                mono: Monomial::of(atom),
                coef: Rational::ONE,
            }],
        }
    }

    pub fn is_unknown(&self) -> bool {
        matches!(self.terms.as_slice(), [t] if matches!(t.mono.0.as_slice(), [(Atom::Unknown, _)]))
    }

    pub fn is_zero(&self) -> bool {
        self.terms.is_empty()
    }

    pub fn terms(&self) -> &[Term] {
        &self.terms
    }

    /// The value, if the expression is a number.
    pub fn as_constant(&self) -> Option<Rational> {
        match self.terms.as_slice() {
            [] => Some(Rational::ZERO),
            [t] if t.mono.is_one() => Some(t.coef),
            _ => None,
        }
    }

    pub fn as_integer(&self) -> Option<i128> {
        self.as_constant()?.as_integer()
    }

    /// The symbol, if the expression is exactly one symbol.
    pub fn as_symbol(&self) -> Option<&Symbol> {
        match self.terms.as_slice() {
            [t] if t.coef.is_one() => match t.mono.0.as_slice() {
                [(Atom::Sym(s), 1)] => Some(s),
                _ => None,
            },
            _ => None,
        }
    }

    /// The constant term.
    pub fn constant_term(&self) -> Rational {
        self.terms
            .first()
            .filter(|t| t.mono.is_one())
            .map_or(Rational::ZERO, |t| t.coef)
    }

    /// The expression without its constant term.
    pub fn without_constant(&self) -> Expr {
        Expr {
            terms: self
                .terms
                .iter()
                .filter(|t| !t.mono.is_one())
                .cloned()
                .collect(),
        }
    }

    /// Builds a canonical expression from unsorted terms.
    fn from_terms(mut terms: Vec<Term>) -> Expr {
        crate::budget::charge(terms.len() as u64);
        if terms
            .iter()
            .any(|t| matches!(t.mono.0.first(), Some((Atom::Unknown, _))))
        {
            return Expr::unknown();
        }
        terms.sort_by(|a, b| a.mono.cmp(&b.mono));
        let mut out: Vec<Term> = Vec::with_capacity(terms.len());
        for t in terms {
            match out.last_mut() {
                Some(last) if last.mono == t.mono => match last.coef.checked_add(t.coef) {
                    Some(c) => last.coef = c,
                    None => return Expr::unknown(),
                },
                _ => out.push(t),
            }
        }
        out.retain(|t| !t.coef.is_zero());
        Expr { terms: out }.recombine_floor_mod()
    }

    /// `c·d·⌊x / d⌋ + c·(x mod d) → c·x`.
    fn recombine_floor_mod(self) -> Expr {
        for (i, t) in self.terms.iter().enumerate() {
            let [(Atom::Mod(x, d), 1)] = t.mono.0.as_slice() else {
                continue;
            };
            let floor = Monomial::of(Atom::FloorDiv(x.clone(), d.clone()));
            let Some(j) = self.terms.iter().position(|u| u.mono == floor) else {
                continue;
            };
            let Some(dc) = d.as_constant() else { continue };
            if t.coef.checked_mul(dc) != Some(self.terms[j].coef) {
                continue;
            }
            let c = t.coef;
            let rest = Expr {
                terms: self
                    .terms
                    .iter()
                    .enumerate()
                    .filter(|&(k, _)| k != i && k != j)
                    .map(|(_, u)| u.clone())
                    .collect(),
            };
            return rest.add(&x.scale(c));
        }
        self
    }

    pub fn add(&self, other: &Expr) -> Expr {
        if self.is_unknown() || other.is_unknown() {
            return Expr::unknown();
        }
        if other.is_zero() {
            return self.clone();
        }
        if self.is_zero() {
            return other.clone();
        }
        let mut terms = self.terms.clone();
        terms.extend(other.terms.iter().cloned());
        Expr::from_terms(terms)
    }

    pub fn neg(&self) -> Expr {
        self.scale(Rational::MINUS_ONE)
    }

    pub fn sub(&self, other: &Expr) -> Expr {
        self.add(&other.neg())
    }

    /// `c · self`.
    pub fn scale(&self, c: Rational) -> Expr {
        if self.is_unknown() {
            return Expr::unknown();
        }
        if c.is_zero() {
            return Expr::zero();
        }
        let mut terms = Vec::with_capacity(self.terms.len());
        for t in &self.terms {
            match t.coef.checked_mul(c) {
                Some(coef) => terms.push(Term {
                    mono: t.mono.clone(),
                    coef,
                }),
                None => return Expr::unknown(),
            }
        }
        Expr { terms }
    }

    pub fn mul(&self, other: &Expr) -> Expr {
        if self.is_unknown() || other.is_unknown() {
            return Expr::unknown();
        }
        if let Some(c) = other.as_constant() {
            return self.scale(c);
        }
        if let Some(c) = self.as_constant() {
            return other.scale(c);
        }
        // Paid for before it is built: a product the budget cannot pay for is never
        // allocated (see [`crate::budget`]).
        let count = self.terms.len().saturating_mul(other.terms.len());
        if !crate::budget::charge(count as u64) {
            return Expr::unknown();
        }
        let mut terms = Vec::with_capacity(count);
        for a in &self.terms {
            for b in &other.terms {
                match a.coef.checked_mul(b.coef) {
                    Some(coef) => terms.push(Term {
                        mono: a.mono.mul(&b.mono),
                        coef,
                    }),
                    None => return Expr::unknown(),
                }
            }
        }
        Expr::from_terms(terms)
    }

    pub fn pow(&self, exp: u32) -> Expr {
        let mut out = Expr::one();
        for _ in 0..exp.min(64) {
            out = out.mul(self);
        }
        out
    }

    /// Whether every coefficient is an integer (so that, atoms being integers, the value
    /// is one).
    pub fn has_integer_coefficients(&self) -> bool {
        self.terms.iter().all(|t| t.coef.is_integer())
    }

    /// The greatest common divisor of the integer coefficients (0 for zero; 1 when some
    /// coefficient is not an integer). The value is a multiple of it.
    pub fn content(&self) -> i128 {
        let mut g = 0;
        for t in &self.terms {
            match t.coef.as_integer() {
                Some(c) => g = gcd_i128(g, c),
                None => return 1,
            }
        }
        g
    }

    /// `⌊self / divisor⌋`.
    pub fn floor_div(&self, divisor: &Expr) -> Expr {
        if self.is_unknown() || divisor.is_unknown() {
            return Expr::unknown();
        }
        if let (Some(a), Some(b)) = (self.as_constant(), divisor.as_constant()) {
            return match a.checked_div(b) {
                Some(q) => Expr::int(q.floor()),
                None => Expr::unknown(),
            };
        }
        match divisor.as_integer() {
            Some(0) => Expr::unknown(),
            Some(d) if d > 0 => self.floor_div_int(d),
            Some(d) => self.neg().floor_div_int(-d),
            None => self.floor_div_symbolic(divisor),
        }
    }

    fn split_by(&self, d: i128) -> (Expr, Expr) {
        let mut q = Vec::new();
        let mut r = Vec::new();
        for t in &self.terms {
            let c = t.coef.numer();
            let (qc, rc) = (c.div_euclid(d), c.rem_euclid(d));
            if qc != 0 {
                q.push(Term {
                    mono: t.mono.clone(),
                    coef: Rational::int(qc),
                });
            }
            if rc != 0 {
                r.push(Term {
                    mono: t.mono.clone(),
                    coef: Rational::int(rc),
                });
            }
        }
        (Expr::from_terms(q), Expr::from_terms(r))
    }

    fn floor_div_int(&self, d: i128) -> Expr {
        if d == 1 && self.has_integer_coefficients() {
            return self.clone();
        }
        if !self.has_integer_coefficients() {
            return Expr::atom(Atom::FloorDiv(
                Box::new(self.clone()),
                Box::new(Expr::int(d)),
            ));
        }
        let (q, mut r) = self.split_by(d);
        if r.is_zero() {
            return q;
        }
        let mut d = d;
        let g = gcd_i128(r.content(), d);
        if g > 1 {
            r = r.scale(Rational::new(1, g).unwrap_or(Rational::ONE));
            d /= g;
        }
        let range = sign::builtin_range(&r);
        if let (Some(lo), Some(hi)) = (range.lo, range.hi) {
            let (fl, fh) = (lo.floor().div_euclid(d), hi.floor().div_euclid(d));
            if fl == fh {
                return q.add(&Expr::int(fl));
            }
        }
        // ⌊⌊x / a⌋ / d⌋ = ⌊x / (a·d)⌋ for positive integers a, d.
        if let [t] = r.terms.as_slice()
            && t.coef.is_one()
            && let [(Atom::FloorDiv(x, a), 1)] = t.mono.0.as_slice()
            && let Some(a) = a.as_integer()
            && a > 0
            && let Some(ad) = a.checked_mul(d)
        {
            return q.add(&x.floor_div_int(ad));
        }
        if let Some(e) = r.magic_quotient(d) {
            return q.add(&e);
        }
        q.add(&Expr::atom(Atom::FloorDiv(
            Box::new(r),
            Box::new(Expr::int(d)),
        )))
    }

    /// A compiler's division by a constant (multiply-high by a "magic" number and shift,
    /// Granlund and Montgomery): `⌊c·X / d⌋` with `c` the content of the numerator, `X ≥ 0` and a divisor
    /// `d ≥ 2^31` is `⌊X / q⌋` when `q = round(d / c)` and `e = c·q − d` satisfies
    /// `0 ≤ e` and `e·2^31 ≤ d`. Then `c·X/d = X/q + e·X/(q·d)`, and for `X = q·t + r`
    /// (`0 ≤ r < q`) the fraction `r/q + e·X/(q·d)` stays below 1 because `e·X < d`:
    /// exact for every `X` below `2^31` (integer values, which index expressions are taken
    /// to stay within); by the same bound, `⌊c·X / d⌋` is 0 when `c·2^31 ≤ d`. Only for
    /// divisors `q` below `2^16` (those of index arithmetic),
    /// which also ends the recursion into `⌊X / q⌋`. `None` when `self` is not of that form.
    fn magic_quotient(&self, d: i128) -> Option<Expr> {
        const LIMIT: i128 = 1 << 31;
        if !self.has_integer_coefficients() || self.is_zero() {
            return None;
        }
        let c = self.content();
        if d < LIMIT || c <= 0 {
            return None;
        }
        let x = self.scale(Rational::new(1, c)?);
        if sign::builtin_range(&x).lo.is_none_or(|lo| lo.is_negative()) {
            return None;
        }
        let launch_index = !x.mentions(&|s| {
            !matches!(
                s,
                Symbol::ThreadIdx(_)
                    | Symbol::BlockIdx(_)
                    | Symbol::BlockDim(_)
                    | Symbol::GridDim(_)
            )
        });
        if launch_index && c.checked_mul(LIMIT)? <= d {
            // `c·X < c·2^31 ≤ d`: the sign-bit shifts (`x >> 31`) of non-negative thread
            // indices (a global thread index stays below 2^31; a 64-bit value built from
            // parameters or loads may not, and is left alone).
            return Some(Expr::zero());
        }
        if c >= d {
            return None;
        }
        let q = (d + c / 2) / c;
        let e = c.checked_mul(q)? - d;
        if !(2..1 << 16).contains(&q) || e < 0 || e.checked_mul(LIMIT)? > d {
            return None;
        }
        Some(x.floor_div_int(q))
    }

    /// Exact quotient by a single positive term, else an atom.
    fn floor_div_symbolic(&self, divisor: &Expr) -> Expr {
        if let Some(q) = self.exact_quotient(divisor)
            && sign::builtin_range(divisor)
                .lo
                .is_some_and(|lo| lo.is_positive())
        {
            return q;
        }
        Expr::atom(Atom::FloorDiv(
            Box::new(self.clone()),
            Box::new(divisor.clone()),
        ))
    }

    /// `self / divisor` when the divisor is one term that divides every term exactly
    /// with an integer coefficient.
    pub fn exact_quotient(&self, divisor: &Expr) -> Option<Expr> {
        let [dt] = divisor.terms.as_slice() else {
            return None;
        };
        let mut terms = Vec::new();
        for t in &self.terms {
            let mono = t.mono.div(&dt.mono)?;
            let coef = t.coef.checked_div(dt.coef)?;
            if !coef.is_integer() {
                return None;
            }
            terms.push(Term { mono, coef });
        }
        Some(Expr::from_terms(terms))
    }

    /// `self mod divisor` (floor modulo: the result has the sign of the divisor).
    pub fn modulo(&self, divisor: &Expr) -> Expr {
        if self.is_unknown() || divisor.is_unknown() {
            return Expr::unknown();
        }
        if let (Some(a), Some(b)) = (self.as_constant(), divisor.as_constant()) {
            let q = match a.checked_div(b) {
                Some(q) => Rational::int(q.floor()),
                None => return Expr::unknown(),
            };
            return match b.checked_mul(q).and_then(|bq| a.checked_sub(bq)) {
                Some(r) => Expr::constant(r),
                None => Expr::unknown(),
            };
        }
        match divisor.as_integer() {
            Some(0) => Expr::unknown(),
            Some(d) if d > 0 && self.has_integer_coefficients() => self.modulo_int(d),
            _ => {
                if self.exact_quotient(divisor).is_some() {
                    return Expr::zero();
                }
                Expr::atom(Atom::Mod(Box::new(self.clone()), Box::new(divisor.clone())))
            }
        }
    }

    fn modulo_int(&self, d: i128) -> Expr {
        if d == 1 {
            return Expr::zero();
        }
        let (_, r) = self.split_by(d);
        if r.is_zero() {
            return Expr::zero();
        }
        let g = gcd_i128(r.content(), d);
        if g > 1 {
            let r1 = r.scale(Rational::new(1, g).unwrap_or(Rational::ONE));
            return r1.modulo_int(d / g).scale(Rational::int(g));
        }
        let range = sign::builtin_range(&r);
        if let (Some(lo), Some(hi)) = (range.lo, range.hi) {
            let (kl, kh) = (lo.floor().div_euclid(d), hi.floor().div_euclid(d));
            if kl == kh {
                return r.sub(&Expr::int(kl.saturating_mul(d)));
            }
        }
        // (x mod a) mod d = x mod d when d divides a.
        if let [t] = r.terms.as_slice()
            && t.coef.is_one()
            && let [(Atom::Mod(x, a), 1)] = t.mono.0.as_slice()
            && let Some(a) = a.as_integer()
            && a > 0
            && a % d == 0
        {
            return x.modulo_int(d);
        }
        Expr::atom(Atom::Mod(Box::new(r), Box::new(Expr::int(d))))
    }

    pub fn minimum(&self, other: &Expr) -> Expr {
        Expr::min_max(vec![self.clone(), other.clone()], true)
    }

    pub fn maximum(&self, other: &Expr) -> Expr {
        Expr::min_max(vec![self.clone(), other.clone()], false)
    }

    /// The least (`is_min`) or greatest of the arguments.
    pub fn min_max(args: Vec<Expr>, is_min: bool) -> Expr {
        let mut flat: Vec<Expr> = Vec::new();
        for a in args {
            if a.is_unknown() {
                return Expr::unknown();
            }
            let nested = match a.terms.as_slice() {
                [t] if t.coef.is_one() => match t.mono.0.as_slice() {
                    [(Atom::Min(xs), 1)] if is_min => Some(xs.clone()),
                    [(Atom::Max(xs), 1)] if !is_min => Some(xs.clone()),
                    _ => None,
                },
                _ => None,
            };
            match nested {
                Some(xs) => flat.extend(xs),
                None => flat.push(a),
            }
        }
        // Fold the numbers into one.
        let mut best: Option<Rational> = None;
        let mut rest: Vec<Expr> = Vec::new();
        for a in flat {
            match a.as_constant() {
                Some(c) => {
                    best = Some(match best {
                        Some(b) if (c < b) == is_min => c,
                        Some(b) => b,
                        None => c,
                    })
                }
                None => rest.push(a),
            }
        }
        if let Some(b) = best {
            rest.push(Expr::constant(b));
        }
        rest.sort();
        rest.dedup();
        // Drop arguments another argument dominates (when the budget pays for comparing
        // every pair; otherwise all are kept, which is as exact, only longer).
        let mut keep = vec![true; rest.len()];
        let pairs = (rest.len() as u64).saturating_mul(rest.len() as u64);
        let compare = crate::budget::charge(pairs);
        for i in 0..rest.len() {
            if !compare {
                break;
            }
            for j in 0..rest.len() {
                if i == j || !keep[i] || !keep[j] {
                    continue;
                }
                // For min, j is dominated when rest[i] ≤ rest[j].
                let diff = rest[i].sub(&rest[j]);
                let r = sign::builtin_range(&diff);
                let dominated = if is_min {
                    r.hi.is_some_and(|h| !h.is_positive())
                } else {
                    r.lo.is_some_and(|l| !l.is_negative())
                };
                if dominated {
                    keep[j] = false;
                }
            }
        }
        let mut rest: Vec<Expr> = rest
            .into_iter()
            .zip(keep)
            .filter(|(_, k)| *k)
            .map(|(e, _)| e)
            .collect();
        match rest.len() {
            0 => Expr::unknown(),
            1 => rest.pop().unwrap_or_default(),
            _ => Expr::atom(if is_min {
                Atom::Min(rest)
            } else {
                Atom::Max(rest)
            }),
        }
    }

    /// An integer function of the arguments; folds when they are numbers.
    pub fn func(func: Func, mut args: Vec<Expr>) -> Expr {
        if args.len() != func.arity() || args.iter().any(|a| a.is_unknown()) {
            return Expr::unknown();
        }
        let numbers: Option<Vec<i128>> = args.iter().map(|a| a.as_integer()).collect();
        if let Some(ns) = numbers {
            return match func.eval(&ns) {
                Some(v) => Expr::int(v),
                None => Expr::unknown(),
            };
        }
        let zero = |e: &Expr| e.is_zero();
        match func.kind {
            FuncKind::And if args.iter().any(zero) => return Expr::zero(),
            FuncKind::Or | FuncKind::Xor if zero(&args[1]) => return args.swap_remove(0),
            FuncKind::Or | FuncKind::Xor if zero(&args[0]) => return args.swap_remove(1),
            FuncKind::Shl | FuncKind::Shr { .. } if zero(&args[0]) => return Expr::zero(),
            FuncKind::MulHi { .. } if args.iter().any(zero) => return Expr::zero(),
            _ => {}
        }
        if matches!(
            func.kind,
            FuncKind::And | FuncKind::Or | FuncKind::Xor | FuncKind::MulHi { .. }
        ) {
            args.sort();
        }
        Expr::atom(Atom::Func(func, args))
    }

    /// `cond ? then : otherwise`.
    pub fn select(cond: Cond, then: Expr, otherwise: Expr) -> Expr {
        if then.is_unknown() || otherwise.is_unknown() {
            return Expr::unknown();
        }
        match cond.as_const() {
            Some(true) => return then,
            Some(false) => return otherwise,
            None => {}
        }
        if then == otherwise {
            return then;
        }
        Expr::atom(Atom::Select(
            Box::new(cond),
            Box::new(then),
            Box::new(otherwise),
        ))
    }

    /// Replaces symbols by expressions (`None` keeps the symbol) and re-simplifies.
    pub fn subst(&self, f: &dyn Fn(&Symbol) -> Option<Expr>) -> Expr {
        let mut out = Expr::zero();
        for t in &self.terms {
            let mut prod = Expr::constant(t.coef);
            for (atom, p) in &t.mono.0 {
                prod = prod.mul(&atom.subst(f).pow(*p));
            }
            out = out.add(&prod);
        }
        out
    }

    /// `self[symbol := value]`.
    pub fn subst_one(&self, symbol: &Symbol, value: &Expr) -> Expr {
        self.subst(&|s| (s == symbol).then(|| value.clone()))
    }

    /// `self[symbol := symbol + step] - self`: the change when `symbol` grows by `step`.
    pub fn difference(&self, symbol: &Symbol, step: &Expr) -> Expr {
        let moved = Expr::sym(symbol.clone()).add(step);
        self.subst_one(symbol, &moved).sub(self)
    }

    /// The value for the given symbol values; `None` when a symbol has no value, a
    /// division by zero occurs, or an argument of a function is not an integer.
    pub fn eval(&self, env: &dyn Fn(&Symbol) -> Option<Rational>) -> Option<Rational> {
        let mut sum = Rational::ZERO;
        for t in &self.terms {
            let mut prod = t.coef;
            for (atom, p) in &t.mono.0 {
                prod = prod.checked_mul(atom.eval(env)?.checked_pow(*p)?)?;
            }
            sum = sum.checked_add(prod)?;
        }
        Some(sum)
    }

    /// Every symbol the expression mentions, also inside atoms.
    pub fn symbols(&self) -> BTreeSet<Symbol> {
        let mut out = BTreeSet::new();
        self.collect_symbols(&mut out);
        out
    }

    pub(crate) fn collect_symbols(&self, out: &mut BTreeSet<Symbol>) {
        for t in &self.terms {
            for (atom, _) in &t.mono.0 {
                atom.collect_symbols(out);
            }
        }
    }

    /// Whether `symbol` occurs anywhere in the expression.
    pub fn depends_on(&self, symbol: &Symbol) -> bool {
        self.terms
            .iter()
            .any(|t| t.mono.0.iter().any(|(a, _)| a.depends_on(symbol)))
    }

    /// Whether some symbol satisfies the predicate.
    pub fn mentions(&self, pred: &dyn Fn(&Symbol) -> bool) -> bool {
        self.symbols().iter().any(pred)
    }

    /// The launch indices the value may depend on.
    pub fn deps(&self) -> Deps {
        let mut d = Deps::NONE;
        for s in self.symbols() {
            d = d.union(s.deps());
        }
        if self.is_unknown() {
            d = Deps::ALL;
        }
        d
    }

    /// If the expression is `c·symbol + rest` with `symbol` occurring nowhere else, `c`.
    pub fn linear_coefficient(&self, symbol: &Symbol) -> Option<Expr> {
        let mut coef = Vec::new();
        for t in &self.terms {
            match t.mono.power_of(symbol) {
                0 => {
                    if t.mono.0.iter().any(|(a, _)| a.depends_on(symbol)) {
                        return None;
                    }
                }
                1 => {
                    let rest = t.mono.without(symbol);
                    if rest.0.iter().any(|(a, _)| a.depends_on(symbol)) {
                        return None;
                    }
                    coef.push(Term {
                        mono: rest,
                        coef: t.coef,
                    });
                }
                _ => return None,
            }
        }
        Some(Expr::from_terms(coef))
    }

    /// The terms that do not mention `symbol`.
    pub fn without_symbol(&self, symbol: &Symbol) -> Expr {
        Expr {
            terms: self
                .terms
                .iter()
                .filter(|t| !t.mono.0.iter().any(|(a, _)| a.depends_on(symbol)))
                .cloned()
                .collect(),
        }
    }

    /// Number of nodes (conditions of selects included), a measure of size for capping
    /// growth.
    pub fn size(&self) -> usize {
        self.terms
            .iter()
            .map(|t| 1 + t.mono.0.iter().map(|(a, _)| a.size()).sum::<usize>())
            .sum()
    }
}

impl Atom {
    fn subst(&self, f: &dyn Fn(&Symbol) -> Option<Expr>) -> Expr {
        match self {
            Atom::Sym(s) => f(s).unwrap_or_else(|| Expr::sym(s.clone())),
            Atom::FloorDiv(a, b) => a.subst(f).floor_div(&b.subst(f)),
            Atom::Mod(a, b) => a.subst(f).modulo(&b.subst(f)),
            Atom::Min(xs) => Expr::min_max(xs.iter().map(|x| x.subst(f)).collect(), true),
            Atom::Max(xs) => Expr::min_max(xs.iter().map(|x| x.subst(f)).collect(), false),
            Atom::Func(func, xs) => Expr::func(*func, xs.iter().map(|x| x.subst(f)).collect()),
            Atom::Select(c, a, b) => Expr::select(c.subst(f), a.subst(f), b.subst(f)),
            Atom::Unknown => Expr::unknown(),
        }
    }

    fn eval(&self, env: &dyn Fn(&Symbol) -> Option<Rational>) -> Option<Rational> {
        match self {
            Atom::Sym(s) => env(s),
            Atom::FloorDiv(a, b) => Some(Rational::int(
                a.eval(env)?.checked_div(b.eval(env)?)?.floor(),
            )),
            Atom::Mod(a, b) => {
                let (a, b) = (a.eval(env)?, b.eval(env)?);
                let q = Rational::int(a.checked_div(b)?.floor());
                a.checked_sub(b.checked_mul(q)?)
            }
            Atom::Min(xs) => xs
                .iter()
                .map(|x| x.eval(env))
                .collect::<Option<Vec<_>>>()?
                .into_iter()
                .min(),
            Atom::Max(xs) => xs
                .iter()
                .map(|x| x.eval(env))
                .collect::<Option<Vec<_>>>()?
                .into_iter()
                .max(),
            Atom::Func(func, xs) => {
                let args: Option<Vec<i128>> = xs
                    .iter()
                    .map(|x| x.eval(env).and_then(|v| v.as_integer()))
                    .collect();
                func.eval(&args?).map(Rational::int)
            }
            Atom::Select(c, a, b) => {
                if c.eval(env)? {
                    a.eval(env)
                } else {
                    b.eval(env)
                }
            }
            Atom::Unknown => None,
        }
    }

    fn collect_symbols(&self, out: &mut BTreeSet<Symbol>) {
        match self {
            Atom::Sym(s) => {
                out.insert(s.clone());
            }
            Atom::FloorDiv(a, b) | Atom::Mod(a, b) => {
                a.collect_symbols(out);
                b.collect_symbols(out);
            }
            Atom::Min(xs) | Atom::Max(xs) | Atom::Func(_, xs) => {
                for x in xs {
                    x.collect_symbols(out);
                }
            }
            Atom::Select(c, a, b) => {
                c.collect_symbols(out);
                a.collect_symbols(out);
                b.collect_symbols(out);
            }
            Atom::Unknown => {}
        }
    }

    fn depends_on(&self, symbol: &Symbol) -> bool {
        match self {
            Atom::Sym(s) => s == symbol,
            Atom::FloorDiv(a, b) | Atom::Mod(a, b) => a.depends_on(symbol) || b.depends_on(symbol),
            Atom::Min(xs) | Atom::Max(xs) | Atom::Func(_, xs) => {
                xs.iter().any(|x| x.depends_on(symbol))
            }
            Atom::Select(c, a, b) => {
                c.symbols().contains(symbol) || a.depends_on(symbol) || b.depends_on(symbol)
            }
            Atom::Unknown => false,
        }
    }

    fn size(&self) -> usize {
        match self {
            Atom::Sym(_) | Atom::Unknown => 1,
            Atom::FloorDiv(a, b) | Atom::Mod(a, b) => 1 + a.size() + b.size(),
            Atom::Min(xs) | Atom::Max(xs) | Atom::Func(_, xs) => {
                1 + xs.iter().map(Expr::size).sum::<usize>()
            }
            // The condition counts: selects merged at joins nest in each other's
            // conditions, and a measure blind to them lets values grow without bound.
            Atom::Select(c, a, b) => 1 + c.size() + a.size() + b.size(),
        }
    }
}

impl From<Symbol> for Expr {
    fn from(s: Symbol) -> Expr {
        Expr::sym(s)
    }
}

impl From<i128> for Expr {
    fn from(v: i128) -> Expr {
        Expr::int(v)
    }
}

macro_rules! binop {
    ($trait:ident, $method:ident, $call:ident) => {
        impl ops::$trait<&Expr> for &Expr {
            type Output = Expr;
            fn $method(self, rhs: &Expr) -> Expr {
                Expr::$call(self, rhs)
            }
        }
        impl ops::$trait<Expr> for Expr {
            type Output = Expr;
            fn $method(self, rhs: Expr) -> Expr {
                Expr::$call(&self, &rhs)
            }
        }
        impl ops::$trait<&Expr> for Expr {
            type Output = Expr;
            fn $method(self, rhs: &Expr) -> Expr {
                Expr::$call(&self, rhs)
            }
        }
        impl ops::$trait<i128> for Expr {
            type Output = Expr;
            fn $method(self, rhs: i128) -> Expr {
                Expr::$call(&self, &Expr::int(rhs))
            }
        }
        impl ops::$trait<i128> for &Expr {
            type Output = Expr;
            fn $method(self, rhs: i128) -> Expr {
                Expr::$call(self, &Expr::int(rhs))
            }
        }
    };
}

binop!(Add, add, add);
binop!(Sub, sub, sub);
binop!(Mul, mul, mul);

impl ops::Neg for Expr {
    type Output = Expr;
    fn neg(self) -> Expr {
        Expr::neg(&self)
    }
}

impl ops::Neg for &Expr {
    type Output = Expr;
    fn neg(self) -> Expr {
        Expr::neg(self)
    }
}
