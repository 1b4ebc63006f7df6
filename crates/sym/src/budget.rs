//! A deterministic bound on the engine's work: a meter of *steps* that a caller opens
//! around a computation ([`metered`]) and that the engine's expensive operations draw on
//! ([`charge`]).
//!
//! # Why a meter, and why steps
//!
//! Some questions cost far more than their input's size suggests: the range of a
//! selection nested `d` deep is four ranges of depth `d − 1`, a product of two sums
//! has as many terms as the sums' sizes multiplied, a polynomial raised by repeated
//! squaring doubles its degree each time. A caller that must finish on every input (the
//! porting advisor) opens a scope with a number of steps; once they are spent, the
//! operations below stop doing work and give the answer that claims nothing, and the
//! caller, which asks [`exhausted`], reports that its bound was reached instead of
//! using those answers. Steps are counted, not timed, so the same input spends the same
//! steps and gets the same report on every host.
//!
//! A step is roughly one term of an expression visited or built:
//!
//! * [`crate::Expr::mul`] charges the product's term count *before* building it, so a
//!   product the remaining steps cannot pay for is never allocated (it is
//!   [`crate::Expr::unknown`], the value of an overflowing computation): the meter bounds
//!   memory as well as time;
//! * building an expression from terms charges their number;
//! * a range or sign query charges its expression's terms, each elimination round and
//!   each interval evaluation again; with the meter spent it answers "any value";
//! * a junction of conditions charges its operands.
//!
//! Callers charge their own work in the same unit (`warpcheck-lint`'s abstract
//! interpretation: instructions, state writes, joins; the advisor: enumerated points).
//!
//! Outside every scope, [`charge`] is free and always succeeds: the engine behaves as if
//! unmetered, which is how the kernel lints and checkers use it.
//!
//! # Scopes
//!
//! Scopes nest: an inner scope may spend at most what its enclosing scope has left, and
//! what it spends is taken from the enclosing scope when it closes. The advisor opens one
//! scope for the whole run and one per function analysis and per loop nest inside it, so
//! a nest that exhausts its own steps leaves the other nests theirs, and the run as a
//! whole has a total. The meter is per thread; a scope covers only the thread that opened
//! it.

use std::cell::Cell;

/// The meter of the innermost open scope.
#[derive(Clone, Copy, Debug)]
struct Meter {
    /// Steps this scope may still spend (its own limit and its enclosing scopes' rest).
    remaining: u64,
    /// Steps spent in this scope (nested scopes included).
    spent: u64,
    /// Whether a charge was refused in this scope.
    exhausted: bool,
}

thread_local! {
    static METER: Cell<Option<Meter>> = const { Cell::new(None) };
}

/// What a metered computation gave and what it spent.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Metered<T> {
    pub value: T,
    /// Steps spent.
    pub spent: u64,
    /// Whether the steps ran out: then `value` was computed with answers that claim
    /// nothing and must not be used as if it were exact.
    pub exhausted: bool,
}

/// Restores the enclosing scope's meter when a scope closes, also on unwinding.
struct Scope {
    outer: Option<Meter>,
}

impl Drop for Scope {
    fn drop(&mut self) {
        let inner = METER.with(Cell::get);
        let outer = self.outer.map(|mut o| {
            let spent = inner.map_or(0, |i| i.spent);
            o.spent = o.spent.saturating_add(spent);
            o.remaining = o.remaining.saturating_sub(spent);
            // The inner scope ran out because the enclosing one had nothing left.
            if inner.is_some_and(|i| i.exhausted) && o.remaining == 0 {
                o.exhausted = true;
            }
            o
        });
        METER.with(|m| m.set(outer));
    }
}

/// Runs `f` with at most `steps` steps of the engine's work (fewer when an enclosing
/// scope has fewer left).
pub fn metered<T>(steps: u64, f: impl FnOnce() -> T) -> Metered<T> {
    let outer = METER.with(Cell::get);
    let available = outer.map_or(steps, |o| steps.min(o.remaining));
    let scope = Scope { outer };
    METER.with(|m| {
        m.set(Some(Meter {
            remaining: available,
            spent: 0,
            exhausted: outer.is_some_and(|o| o.exhausted),
        }))
    });
    let value = f();
    let meter = METER.with(Cell::get);
    drop(scope);
    Metered {
        value,
        spent: meter.map_or(0, |m| m.spent),
        exhausted: meter.is_some_and(|m| m.exhausted),
    }
}

/// Spends `steps`; `false` when the current scope cannot pay for them (from then on every
/// charge in the scope fails). Always `true` outside every scope.
pub fn charge(steps: u64) -> bool {
    METER.with(|m| {
        let Some(mut meter) = m.get() else {
            return true;
        };
        if meter.exhausted {
            return false;
        }
        let ok = steps <= meter.remaining;
        if ok {
            meter.remaining -= steps;
            meter.spent = meter.spent.saturating_add(steps);
        } else {
            meter.spent = meter.spent.saturating_add(meter.remaining);
            meter.remaining = 0;
            meter.exhausted = true;
        }
        m.set(Some(meter));
        ok
    })
}

/// Spends `steps` only if the scope can pay for all of them; otherwise spends nothing
/// and the scope is not exhausted. For optional work that has a cheaper alternative
/// (enumerating an iteration space instead of leaving a section symbolic).
pub fn try_charge(steps: u64) -> bool {
    METER.with(|m| {
        let Some(mut meter) = m.get() else {
            return true;
        };
        if meter.exhausted || steps > meter.remaining {
            return false;
        }
        meter.remaining -= steps;
        meter.spent = meter.spent.saturating_add(steps);
        m.set(Some(meter));
        true
    })
}

/// Whether a charge was refused in the current scope.
pub fn exhausted() -> bool {
    METER.with(|m| m.get().is_some_and(|meter| meter.exhausted))
}

/// Steps the current scope may still spend (`None` outside every scope).
pub fn remaining() -> Option<u64> {
    METER.with(|m| m.get().map(|meter| meter.remaining))
}

/// Steps the current scope has spent so far (0 outside every scope).
pub fn spent() -> u64 {
    METER.with(|m| m.get().map_or(0, |meter| meter.spent))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{Context, Expr, Symbol};

    #[test]
    fn outside_a_scope_charges_are_free() {
        assert!(charge(u64::MAX));
        assert!(!exhausted());
        assert_eq!(spent(), 0);
    }

    #[test]
    fn a_scope_refuses_what_it_cannot_pay_and_stays_exhausted() {
        let r = metered(10, || {
            assert!(charge(4));
            assert!(!try_charge(7), "a reservation over the rest is refused");
            assert!(!exhausted(), "a refused reservation does not exhaust");
            assert!(charge(6));
            assert!(!charge(1));
            assert!(exhausted());
            assert!(!charge(0), "exhaustion is sticky");
        });
        assert!(r.exhausted);
        assert_eq!(r.spent, 10);
        assert!(!exhausted(), "the scope is closed");
    }

    #[test]
    fn nested_scopes_draw_on_the_enclosing_one() {
        let outer = metered(100, || {
            let a = metered(30, || charge(40));
            assert!(!a.value && a.exhausted, "the inner limit holds");
            assert!(!exhausted(), "the outer scope has 70 left");
            assert_eq!(spent(), 30);
            let b = metered(1000, || charge(71));
            assert!(!b.value, "the enclosing rest bounds an inner scope");
            assert!(exhausted(), "and the enclosing scope is spent");
        });
        assert!(outer.exhausted);
        assert_eq!(outer.spent, 100);
    }

    #[test]
    fn a_product_the_steps_cannot_pay_for_is_never_built() {
        // (x1 + … + x40)·(y1 + … + y40) has 1600 terms.
        let sum = |p: &str| {
            (1..=40).fold(Expr::zero(), |acc, i| {
                acc.add(&Expr::sym(Symbol::param(&format!("{p}{i}"))))
            })
        };
        let (x, y) = (sum("x"), sum("y"));
        let r = metered(1000, || x.mul(&y));
        assert!(r.exhausted);
        assert!(r.value.is_unknown());
        let r = metered(10_000, || x.mul(&y));
        assert!(!r.exhausted);
        assert_eq!(r.value.terms().len(), 1600);
    }

    #[test]
    fn a_spent_meter_answers_any_value() {
        let n = Expr::sym(Symbol::param("n"));
        let ctx = Context::assuming_positive_params();
        let r = metered(0, || ctx.sign(&n).value);
        assert!(r.exhausted);
        assert!(r.value.is_unknown());
        assert!(ctx.sign(&n).value.is_positive(), "unmetered: n > 0 assumed");
    }
}
