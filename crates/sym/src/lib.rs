//! warpcheck's symbolic engine (Juravle, "Automatic program analysis for data parallel
//! kernels", 2011, §7–8): exact expressions over launch indices, parameters, loop
//! counters and unknowns, with the queries the static analyses and the porting advisor
//! ask of them.
//!
//! * [`Expr`]: polynomials with rational coefficients over [`Symbol`]s and non-polynomial
//!   atoms (floor division, modulo, min, max, bit functions, selections), kept in a
//!   canonical form so that equal expressions compare equal; the constructors simplify
//!   exactly (`(tid / 4)·4 + tid % 4 = tid`, `(4·k) / 4 = k`).
//! * [`Cond`]: comparisons of expressions under and/or/not.
//! * [`Context`]: ranges, signs, comparisons and monotonicity under the built-in facts
//!   of the launch indices plus caller facts ([`Facts`]), optionally assuming unknown-sign
//!   parameters positive; every [`Answer`] lists the [`Assumption`]s it made.
//! * Instantiation: [`Expr::subst`] replaces symbols by expressions (numbers included)
//!   and re-simplifies; [`Expr::eval`] computes a value directly.
//! * Printing in C-like notation (`4·n + 8`).
//! * [`budget`]: a deterministic bound on the engine's work (counted steps), for callers
//!   that must finish on every input.
//!
//! The domain is the integers embedded in the rationals: symbols and atoms take integer
//! values, coefficients may be rational (the advisor divides). Machine overflow is not
//! modelled: expressions describe the mathematical values that index arithmetic computes
//! when it does not wrap, the assumption GPUDrano and Juravle make too.
//!
//! ```
//! use warpcheck_sym::{Axis, Context, Expr, Symbol};
//! let tid = Expr::sym(Symbol::ThreadIdx(Axis::X));
//! let n = Expr::sym(Symbol::param("n"));
//! // (tid / 4)·4 + tid % 4 == tid
//! let e = tid.floor_div(&Expr::int(4)) * 4 + tid.modulo(&Expr::int(4));
//! assert_eq!(e, tid);
//! // The byte stride between adjacent threads of `a[tid * n]` is 4·n ...
//! let addr = (&tid * &n) * 4;
//! let stride = addr.difference(&Symbol::ThreadIdx(Axis::X), &Expr::one());
//! assert_eq!(stride.to_string(), "4·n");
//! // ... which is positive assuming n > 0.
//! let ctx = Context::assuming_positive_params();
//! let sign = ctx.sign(&stride);
//! assert!(sign.value.is_positive());
//! assert_eq!(sign.assuming[0].to_string(), "n > 0");
//! ```

pub mod budget;
mod cond;
mod expr;
mod func;
mod print;
mod rational;
pub mod sign;
mod symbol;

pub use cond::{CmpOp, Cond, Relation, kleene_all, kleene_any};
pub use expr::{Atom, Expr, Monomial, Term};
pub use func::{Func, FuncKind};
pub use rational::{Rational, gcd_i128};
pub use sign::{Answer, Assumption, Context, Facts, Interval, Monotonicity, Sign};
pub use symbol::{Axis, Deps, Opaque, Symbol};
