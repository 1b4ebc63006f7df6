//! # `depends-on` and `lint-undecided` (notes)
//!
//! ## What they do
//! Without a launch (`--block`, `--arg`), the lanes of a warp are 32 consecutive
//! `threadIdx.x` and the distance between adjacent lanes is the address's difference
//! along `threadIdx.x`. When that distance is a number, the access is judged exactly
//! (`super::judge::symbolic`). Otherwise this module splits the verdict three ways:
//!
//! * **certain**: the distance, under the assumption that parameters and launch
//!   dimensions are positive, is past the threshold for every value: a warning, as for a
//!   number (`32·n` bytes apart is uncoalesced for every `n ≥ 1`; `2·stride` words apart
//!   conflicts for every `stride`);
//! * **depends on values** (`depends-on`): the distance is a polynomial in kernel
//!   parameters and launch dimensions only, and the verdict holds above a threshold
//!   ([`sectors_threshold`]: the smallest byte distance at which a warp's request is
//!   uncoalesced) or for some residues (a bank-conflict degree is `gcd(W, 32)` for a word
//!   distance `W`: 2-way or worse exactly when `W` is even). The note states the condition
//!   in the source's names;
//! * **undecided** (`lint-undecided`): the distance depends on a loop's iteration, on a
//!   value computed in the kernel that the lint does not know, or on `threadIdx.x` itself
//!   (the address is not linear in it: a remainder, a division, a product with a value
//!   that changes per lane). The note names the values; the text summary counts these
//!   accesses as undecided.
//!
//! ## Why
//! A warning claimed for all sizes that holds only above a threshold is false at the
//! sizes below it, and silence about an access whose cost the lint could not work out
//! reads as "no problem". A launch decides both: `lint --block X --arg n=V`.

use warpcheck_report::{Code, Finding, Severity};
use warpcheck_sym::{Axis, Context, Expr, Rational, Symbol};

use super::{element_of, kind_word, location_of};
use crate::analysis::{Access, Analysis};
use crate::warp;

/// How a value the distance depends on reads in a message: a parameter or launch
/// dimension by its name in backquotes, a loop's iteration by the loop's line, an
/// opaque value by what produced it and where (`a value loaded at line 12`).
pub(super) fn describe(a: &Analysis<'_>, s: &Symbol) -> String {
    match s {
        Symbol::Iteration { .. } => {
            let line = a
                .loops
                .iter()
                .find(|l| &l.counter == s)
                .map_or(String::new(), |l| loop_line(a, l));
            format!("the iteration of the loop{line} (`{s}`, counted from 0)")
        }
        Symbol::Opaque(o) => {
            let name = &*o.name;
            if let Some((l, r)) = a.loops.iter().find_map(|l| {
                l.recurrences
                    .iter()
                    .find(|r| &r.symbol == s)
                    .map(|r| (l, r))
            }) {
                return format!(
                    "a value that the loop{} multiplies or shifts each iteration, from {}",
                    loop_line(a, l),
                    r.init
                );
            }
            if name.starts_with('%') || name.contains('+') {
                return "a value carried around a loop".to_string();
            }
            match name.split_once('@') {
                Some((kind, line)) => {
                    let what = match kind {
                        "ld" => "a value loaded",
                        "call" => "the result of a call",
                        "shfl" => "a value shuffled between lanes",
                        "merge" => "a value that differs between paths joining",
                        "st" => "a value stored",
                        "rec" => "a value updated each iteration of the loop",
                        _ => "a value computed",
                    };
                    format!("{what} at line {} (`{name}`)", line.trim_end_matches('\''))
                }
                None => format!("`{name}`"),
            }
        }
        _ => format!("`{s}`"),
    }
}

/// ` at line N` for the first source line of a loop (its `for` line: the smallest line
/// of its blocks, as clang rotates the test to the bottom), or nothing.
fn loop_line(a: &Analysis<'_>, l: &crate::analysis::LoopInfo) -> String {
    l.blocks
        .iter()
        .flat_map(|&b| a.body.blocks[b].insts())
        .filter_map(|i| location_of(a, i))
        .map(|loc| loc.line)
        .min()
        .map_or(String::new(), |line| format!(" at line {line}"))
}

/// Whether `s` is a value the user controls at launch: a kernel parameter or a launch
/// dimension. Conditions on those are `depends-on`; anything else is undecided.
fn is_launch_value(s: &Symbol) -> bool {
    matches!(
        s,
        Symbol::Param(_) | Symbol::Var(_) | Symbol::BlockDim(_) | Symbol::GridDim(_)
    )
}

/// The symbols of `e` other than block indices (which are the same on every lane),
/// described for a message.
fn values_of(a: &Analysis<'_>, e: &Expr) -> Vec<String> {
    e.symbols()
        .iter()
        .filter(|s| !matches!(s, Symbol::BlockIdx(_)))
        .map(|s| match s {
            Symbol::ThreadIdx(Axis::X) => "`threadIdx.x` (not linearly)".to_string(),
            _ => describe(a, s),
        })
        .collect()
}

/// The `lint-undecided` note for an access whose lane distance `stride` could not be
/// judged.
pub(super) fn undecided(
    a: &Analysis<'_>,
    access: &Access,
    what: &str,
    stride: &Expr,
    offset: &Expr,
) -> Finding {
    let values = values_of(a, if stride.is_unknown() { offset } else { stride });
    let on = if values.is_empty() {
        "values the lint does not know".to_string()
    } else {
        values.join(", ")
    };
    let mut f = Finding::new(
        Code::LintUndecided,
        Severity::Note,
        format!(
            "undecided: whether this {} of `{}` {what} depends on {on}",
            kind_word(access),
            element_of(a, access)
        ),
    );
    if !stride.is_unknown() && !stride.depends_on(&Symbol::ThreadIdx(Axis::X)) {
        f = f.note(format!("adjacent threads are {stride} bytes apart"));
    } else {
        f = f.note("the distance between adjacent threads is not the same for every lane");
    }
    let printed = offset.to_string();
    if !offset.is_unknown() && printed.len() <= MAX_PRINTED {
        f = f.note(format!("byte offset: {printed}"));
    }
    f.note("give a launch (`--block`, `--arg`) to decide it, or measure it with `warpcheck check`")
}

/// The longest expression a note prints: past it, a formula helps no one.
const MAX_PRINTED: usize = 200;

/// The smallest byte distance between adjacent lanes at which a warp's request of
/// `pieces` is uncoalesced, and the smallest at which it reaches its worst count, with
/// that count and the ideal (lanes `i·s` from an aligned base).
pub(super) fn sectors_threshold(
    pieces: &[(i128, u32)],
    granularity: warp::Granularity,
) -> Option<(i128, i128, u32, u32)> {
    let judge = |s: i128| {
        let lanes: Vec<(u32, i128)> = (0..32).map(|i| (i as u32, i as i128 * s)).collect();
        warp::judge_sectors(&lanes, pieces, granularity)
    };
    let limit = 32 * granularity.bytes() + 256;
    let first = (1..=limit).find(|&s| judge(s).is_some())?;
    let worst = judge(limit)?;
    let full = (first..=limit)
        .find(|&s| judge(s).is_some_and(|j| j.touched >= worst.touched))
        .unwrap_or(limit);
    Some((first, full, worst.touched, worst.ideal))
}

/// `e ≥ bound` as the source would write it: `height ≥ 2` for `e = c·height` with
/// `c > 0`, `|e| ≥ bound` otherwise.
fn at_least(e: &Expr, bound: i128) -> String {
    if let [t] = e.terms()
        && let [(warpcheck_sym::Atom::Sym(s), 1)] = t.mono.factors()
        && let Some(c) = t.coef.as_integer()
        && c > 0
    {
        return format!("`{s}` ≥ {}", (bound + c - 1) / c);
    }
    format!("|{e}| ≥ {bound}")
}

/// The verdict on a global access whose lane distance `stride` (bytes) is symbolic and
/// affine in `threadIdx.x`: a warning when it is uncoalesced for every positive value of
/// the parameters, a `depends-on` note with the threshold when it is so only above one,
/// `lint-undecided` when the distance depends on more than launch values.
pub(super) fn sectors(
    a: &Analysis<'_>,
    access: &Access,
    stride: &Expr,
    offset: &Expr,
    pieces: &[(i128, u32)],
    granularity: warp::Granularity,
) -> Option<(u32, Finding)> {
    if !stride.symbols().iter().all(is_launch_value) {
        return Some((0, undecided(a, access, "coalesces", stride, offset)));
    }
    let (first, full, worst, ideal) = sectors_threshold(pieces, granularity)?;
    let ctx = Context::assuming_positive_params();
    let range = ctx.range(stride);
    let (lo, hi) = (range.value.lo, range.value.hi);
    let past = |b: i128| {
        lo.is_some_and(|v| v >= Rational::int(b)) || hi.is_some_and(|v| v <= Rational::int(-b))
    };
    let unit = granularity.unit();
    let target = element_of(a, access);
    let kind = kind_word(access);
    let mut f = if past(first) {
        let (count, bound) = if past(full) {
            (worst.to_string(), String::new())
        } else {
            (
                format!("up to {worst}"),
                format!(" ({worst} once {})", at_least(stride, full)),
            )
        };
        Finding::new(
            Code::UncoalescedAccess,
            Severity::Warning,
            format!("uncoalesced global {kind} of `{target}`: {count} {unit} per request where {ideal} would do"),
        )
        .note(format!(
            "adjacent threads are {stride} bytes apart, at least {first} for every value{bound}"
        ))
    } else {
        Finding::new(
            Code::DependsOn,
            Severity::Note,
            format!(
                "global {kind} of `{target}` is uncoalesced when {}: adjacent threads are {stride} bytes apart",
                at_least(stride, first)
            ),
        )
        .note(format!(
            "{worst} {unit} per request where {ideal} would do once {}",
            at_least(stride, full)
        ))
    };
    f = f.note(format!("byte offset: {offset}"));
    if !range.assuming.is_empty() {
        let list: Vec<String> = range.assuming.iter().map(|x| x.to_string()).collect();
        f = f.note(format!("assuming {}", list.join(", ")));
    }
    let degree = if f.code == Code::DependsOn { 0 } else { worst };
    Some((degree, f))
}

/// The verdict on a shared access of one 4-byte word per lane whose lane distance
/// `stride` (bytes) is symbolic: lanes `W` words apart hit `gcd(W, 32)` lanes per bank.
/// A warning when every value of `W` is even (`content(W)` even), a `depends-on` note
/// ("when `stride` is even") when `W` is a polynomial in launch values, `lint-undecided`
/// otherwise.
pub(super) fn banks(
    a: &Analysis<'_>,
    access: &Access,
    stride: &Expr,
    offset: &Expr,
    pieces: &[(i128, u32)],
) -> Option<(u32, Finding)> {
    if stride.is_zero() {
        return None;
    }
    let undecided_note = || {
        Some((
            0,
            undecided(a, access, "conflicts on banks", stride, offset),
        ))
    };
    let one_word = matches!(pieces, [(0, 4)]);
    if stride.is_unknown()
        || !one_word
        || stride.depends_on(&Symbol::ThreadIdx(Axis::X))
        || !stride.symbols().iter().all(is_launch_value)
        || !stride.has_integer_coefficients()
        || stride.content() % 4 != 0
    {
        return undecided_note();
    }
    let words = stride.scale(Rational::new(1, 4)?);
    let g = warpcheck_sym::gcd_i128(words.content(), 32);
    let target = element_of(a, access);
    let kind = kind_word(access);
    let parity = match words.terms() {
        [t] if t.coef.as_integer().is_some_and(|c| c % 2 != 0) => match t.mono.factors() {
            [(warpcheck_sym::Atom::Sym(s), 1)] => format!("`{s}` is even"),
            _ => format!("{words} is even"),
        },
        _ => format!("{words} is even"),
    };
    let f = if g >= 2 {
        Finding::new(
            Code::BankConflict,
            Severity::Warning,
            format!("{g}-way or worse shared-memory bank conflict on {kind} of `{target}`"),
        )
        .note(format!(
            "adjacent threads are {words} words apart, a multiple of {g} for every value: gcd({words}, 32)-way"
        ))
    } else {
        Finding::new(
            Code::DependsOn,
            Severity::Note,
            format!(
                "2-way or worse shared-memory bank conflict on {kind} of `{target}` when {parity}: adjacent threads are {words} words apart"
            ),
        )
        .note(format!(
            "gcd({words}, 32)-way: none when {words} is odd, 32-way when it is a multiple of 32"
        ))
    };
    let f = f.note(format!("byte offset: {offset}")).help(
        "keep the word distance between adjacent threads odd (pad the row by one word) so that 32 lanes hit 32 banks",
    );
    Some((if g >= 2 { g as u32 } else { 0 }, f))
}
