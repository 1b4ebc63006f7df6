//! The verdict on one access (or record unit) for `uncoalesced-access` and
//! `bank-conflict`: with a launch, from the worst instantiated warp execution
//! ([`instantiated`]); without one, from the lanes' symbolic byte offsets, 32
//! consecutive `threadIdx.x` ([`symbolic`]), falling back to the rules' own symbolic
//! cases ([`super::uncoalesced::symbolic_stride`],
//! [`super::uncoalesced::misaligned_by_layout`]). Both return the degree (transactions
//! or ways) and the finding with its notes and help.

use warpcheck_report::{Code, Finding, Severity};
use warpcheck_sym::{Axis, Expr, Symbol};

use super::uncoalesced::{misaligned_by_layout, symbolic_stride};
use super::{element_of, help, kind_word, offset_expr, readable};
use crate::LintOptions;
use crate::analysis::{Access, Analysis};
use crate::dependence::{BoolDep, bool_dep, lane_offsets};
use crate::instantiate::Metric;
use crate::warp;

#[allow(clippy::too_many_arguments)]
pub(super) fn instantiated(
    a: &Analysis<'_>,
    access: &Access,
    metric: Metric,
    worst: Option<crate::instantiate::Worst>,
    approximate: bool,
    executions: u64,
    options: &LintOptions,
) -> Option<(u32, Finding)> {
    let w = worst?;
    let up_to = if approximate { "up to " } else { "" };
    let offset = offset_expr(a, access);
    let target = element_of(a, access);
    let mut f = match metric {
        Metric::Sectors => Finding::new(
            Code::UncoalescedAccess,
            Severity::Warning,
            format!(
                "uncoalesced global {} of `{target}`: {up_to}{} {} per request where {} would do",
                kind_word(access),
                w.degree,
                options.granularity.unit(),
                w.ideal
            ),
        ),
        Metric::Banks => Finding::new(
            Code::BankConflict,
            Severity::Warning,
            format!(
                "{up_to}{}-way shared-memory bank conflict on {} of `{target}`",
                w.degree,
                kind_word(access)
            ),
        ),
    };
    f = f.note(format!("byte offset: {}", readable(a, &offset)));
    if let Some(s) = w.lane_stride {
        f = f.note(match metric {
            Metric::Sectors => format!("adjacent active lanes are {s} bytes apart"),
            Metric::Banks => format!("adjacent active lanes are {} words apart", s / 4),
        });
    }
    let iters = if w.iterations.is_empty() {
        String::new()
    } else {
        format!(
            ", loop iteration {}",
            w.iterations
                .iter()
                .map(|k| k.to_string())
                .collect::<Vec<_>>()
                .join("/")
        )
    };
    f = f.note(format!(
        "worst of the {executions} warp executions evaluated: block ({},{},{}), warp {}{iters}, {} active lanes",
        w.block[0], w.block[1], w.block[2], w.warp, w.active_lanes
    ));
    if approximate {
        f = f.note(
            "some conditions read memory or a loop was cut short: the count is an upper bound",
        );
    }
    if let Some(h) = help(a, access, metric, w.lane_stride, w.degree) {
        f = f.help(h);
    }
    Some((w.degree, f))
}

/// Without a launch: the lanes of a warp are 32 consecutive `threadIdx.x`.
pub(super) fn symbolic(
    a: &Analysis<'_>,
    access: &Access,
    metric: Metric,
    pieces: &[(i128, u32)],
    granularity: warp::Granularity,
) -> Option<(u32, Finding)> {
    if bool_dep(&access.cond) == BoolDep::AtMostOne {
        return None;
    }
    let offset = offset_expr(a, access);
    let target = element_of(a, access);
    let data_dependent = offset.symbols().iter().any(
        |s| matches!(s, Symbol::Opaque(o) if o.deps.varies_in_block() && a.base_var(s).is_none()),
    );
    if let (false, Some(offs)) = (data_dependent, lane_offsets(&offset)) {
        let lanes: Vec<(u32, i128)> = offs
            .iter()
            .enumerate()
            .map(|(i, o)| (i as u32, *o))
            .collect();
        let stride = offs[1] - offs[0];
        let (degree, finding) = match metric {
            Metric::Sectors => {
                let Some(s) = warp::judge_sectors(&lanes, pieces, granularity) else {
                    return misaligned_by_layout(a, access, &offset, &lanes, pieces, granularity);
                };
                (
                    s.touched,
                    Finding::new(
                        Code::UncoalescedAccess,
                        Severity::Warning,
                        format!(
                            "uncoalesced global {} of `{target}`: {} {} per request where {} would do",
                            kind_word(access),
                            s.touched,
                            granularity.unit(),
                            s.ideal
                        ),
                    )
                    .note(format!("adjacent threads are {stride} bytes apart")),
                )
            }
            Metric::Banks => {
                let d = warp::judge_banks(&lanes, pieces)?;
                (
                    d,
                    Finding::new(
                        Code::BankConflict,
                        Severity::Warning,
                        format!(
                            "{d}-way shared-memory bank conflict on {} of `{target}`",
                            kind_word(access)
                        ),
                    )
                    .note(format!("adjacent threads are {} words apart", stride / 4)),
                )
            }
        };
        let f = finding
            .note(format!("byte offset: {offset}"))
            .note("assuming blockDim.x is a multiple of 32 and all 32 lanes active");
        let f = match help(a, access, metric, Some(stride), degree) {
            Some(h) => f.help(h),
            None => f,
        };
        return Some((degree, f));
    }
    if metric == Metric::Banks {
        if data_dependent {
            return None;
        }
        let stride = offset.difference(&Symbol::ThreadIdx(Axis::X), &Expr::one());
        return super::unknown::banks(a, access, &stride, &offset, pieces);
    }
    if !data_dependent {
        return symbolic_stride(a, access, &offset, pieces, granularity);
    }
    // Data-dependent addresses (gathers, per-thread ranges read from memory) are not
    // guessed at: whether adjacent lanes end up near each other depends on the data.
    None
}
