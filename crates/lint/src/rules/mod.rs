//! The lints: uncoalesced global accesses, shared-memory bank conflicts, data-dependent
//! global accesses and barrier divergence, each turned into [`Finding`]s at the CUDA
//! source line. One file per rule, each opening with what the rule checks, why it
//! matters and an example:
//!
//! * [`uncoalesced`]: `uncoalesced-access` (warning);
//! * [`bank_conflict`]: `bank-conflict` (warning);
//! * [`data_dependent`]: `uncoalesced-data-dependent` (warning, only with
//!   `--data-dependent`);
//! * [`barrier_divergence`]: `barrier-divergence` (error);
//! * [`unknown`]: without a launch, what holds for every value (warnings), what
//!   depends on parameters (`depends-on` notes) and what the lint cannot decide
//!   (`lint-undecided` notes);
//! * [`record`]: record accesses split by the compiler, judged as one access by the
//!   two access rules;
//! * [`judge`]: the verdict on one access for the two access rules, with or without a
//!   launch.
//!
//! This module drives them ([`lint`]) and holds what they share: source locations,
//! readable addresses for messages, what varies within a warp, and the grouping of
//! findings by line.

mod bank_conflict;
mod barrier_divergence;
mod data_dependent;
mod judge;
mod record;
mod uncoalesced;
mod unknown;

use std::collections::{BTreeMap, BTreeSet, HashMap};

use warpcheck_ir::access::AccessKind;
use warpcheck_ir::modifiers::MemSpace;
use warpcheck_ir::{EntityRef, InstId};
use warpcheck_report::{Code, Finding, Location};
use warpcheck_sym::{Axis, Deps, Expr, Symbol};

use crate::LintOptions;
use crate::analysis::{Access, Analysis, Region};
use crate::dependence::lane_offsets;
use crate::instantiate::{Instance, Launch, Metric, Outcome};
use barrier_divergence::barrier_divergence;
use data_dependent::{data_dependent, range_starts};
use judge::{instantiated, symbolic};
use record::{RecordUnit, record_note, record_units};

/// A finding before grouping by line.
struct Raw {
    finding: Finding,
    degree: u32,
    /// The instructions it stands for (the pieces of a split record access).
    instructions: u64,
}

pub fn lint(a: &Analysis<'_>, options: &LintOptions) -> Vec<Finding> {
    let mut raw: Vec<Raw> = Vec::new();
    let scalars: HashMap<String, i128> = options
        .scalars
        .iter()
        .map(|(k, v)| (k.clone(), *v))
        .collect();
    let instance = options.launch.map(|launch| Instance {
        analysis: a,
        launch,
        scalars: &scalars,
        granularity: options.granularity,
    });
    let starts = if options.data_dependent {
        range_starts(a)
    } else {
        BTreeSet::new()
    };
    let mut candidates: Vec<(&Access, Location, Metric)> = Vec::new();
    for access in &a.accesses {
        let Some(location) = location_of(a, access.inst) else {
            continue;
        };
        if matches!(
            access.kind,
            AccessKind::Atomic(_) | AccessKind::Reduction(_)
        ) {
            // Atomics are judged only as scatters through addresses read from memory.
            if options.data_dependent
                && access.space == MemSpace::Global
                && let Some(f) = data_dependent(a, access, options.launch.as_ref(), &starts)
            {
                raw.push(Raw {
                    finding: f
                        .at(location, "atomic at a data-dependent address")
                        .kernel(kernel_name(a)),
                    degree: 0,
                    instructions: 1,
                });
            }
            continue;
        }
        if !matches!(access.kind, AccessKind::Load | AccessKind::Store) {
            continue;
        }
        let metric = match access.space {
            MemSpace::Global => Metric::Sectors,
            MemSpace::Shared => Metric::Banks,
            _ => continue,
        };
        candidates.push((access, location, metric));
    }
    for unit in record_units(candidates) {
        judge_unit(a, options, instance.as_ref(), &starts, unit, &mut raw);
    }
    for &(inst, block) in &a.barriers {
        if let Some(f) = barrier_divergence(a, inst, block)
            && let Some(location) = location_of(a, inst)
        {
            raw.push(Raw {
                finding: f
                    .at(location, "barrier reached by only some threads")
                    .kernel(kernel_name(a)),
                degree: 1,
                instructions: 1,
            });
        }
    }
    group(raw)
}

/// Judges one record unit (see [`record_units`]) and records its finding, if any: the
/// instantiated verdict with a launch, the symbolic one otherwise; a data-dependent
/// address that neither judges is `uncoalesced-data-dependent` when that is asked for.
fn judge_unit(
    a: &Analysis<'_>,
    options: &LintOptions,
    instance: Option<&Instance<'_, '_>>,
    starts: &BTreeSet<u32>,
    unit: RecordUnit<'_>,
    raw: &mut Vec<Raw>,
) {
    let RecordUnit {
        access,
        location,
        metric,
        pieces,
    } = unit;
    let verdict = match instance {
        Some(inst) => match inst.run_record(access, &pieces, metric) {
            Outcome::Evaluated {
                worst,
                approximate,
                executions,
            } => Some(instantiated(
                a,
                access,
                metric,
                worst,
                approximate,
                executions,
                options,
            )),
            Outcome::Unevaluable => None,
        },
        None => None,
    };
    let verdict =
        verdict.unwrap_or_else(|| symbolic(a, access, metric, &pieces, options.granularity));
    if verdict.is_none()
        && options.data_dependent
        && metric == Metric::Sectors
        && let Some(f) = data_dependent(a, access, options.launch.as_ref(), starts)
    {
        raw.push(Raw {
            finding: f
                .at(
                    location,
                    format!("{} at a data-dependent address", kind_word(access)),
                )
                .kernel(kernel_name(a)),
            degree: 0,
            instructions: pieces.len() as u64,
        });
        return;
    }
    if let Some((degree, mut finding)) = verdict {
        if pieces.len() > 1 {
            finding = finding.note(record_note(access, &pieces));
        }
        if let Region::ReadPointer(_) = access.region {
            finding = finding.note(
                "generic access through a pointer read from memory: taken to point to global memory",
            );
        }
        let label = match finding.code {
            Code::DependsOn => "depends on values",
            Code::LintUndecided => "undecided",
            _ => label(access, metric),
        };
        raw.push(Raw {
            finding: finding.at(location, label).kernel(kernel_name(a)),
            degree,
            instructions: pieces.len() as u64,
        });
    }
}

fn kernel_name(a: &Analysis<'_>) -> String {
    a.program.function(a.kernel()).instance_name().to_string()
}

fn label(access: &Access, metric: Metric) -> &'static str {
    match (metric, access.kind) {
        (Metric::Sectors, AccessKind::Store) => "uncoalesced store",
        (Metric::Sectors, _) => "uncoalesced load",
        (Metric::Banks, AccessKind::Store) => "conflicting shared store",
        (Metric::Banks, _) => "conflicting shared load",
    }
}

fn kind_word(access: &Access) -> &'static str {
    match access.kind {
        AccessKind::Store => "store",
        AccessKind::Atomic(_) | AccessKind::Reduction(_) => "atomic",
        _ => "load",
    }
}

/// One finding per code and line: the worst degree, the number of instructions merged.
fn group(raw: Vec<Raw>) -> Vec<Finding> {
    let mut by_key: BTreeMap<(Code, String, u32), (Raw, u64)> = BTreeMap::new();
    for r in raw {
        let loc = r
            .finding
            .primary
            .as_ref()
            .map(|p| (p.location.file.clone(), p.location.line))
            .unwrap_or_default();
        let key = (r.finding.code, loc.0, loc.1);
        match by_key.get_mut(&key) {
            Some((best, n)) => {
                *n += r.instructions;
                if r.degree > best.degree {
                    *best = r;
                }
            }
            None => {
                let n = r.instructions;
                by_key.insert(key, (r, n));
            }
        }
    }
    let mut out: Vec<Finding> = by_key
        .into_values()
        .map(|(r, n)| {
            let mut f = r.finding;
            if matches!(f.code, Code::UncoalescedAccess | Code::BankConflict) {
                f.degree = Some(u64::from(r.degree));
            }
            if n > 1 {
                f.notes.push(format!(
                    "{n} instructions on this line; the worst is reported"
                ));
            }
            f
        })
        .collect();
    out.sort_by(|a, b| {
        let la = a
            .primary
            .as_ref()
            .map(|p| (p.location.line, p.location.column));
        let lb = b
            .primary
            .as_ref()
            .map(|p| (p.location.line, p.location.column));
        la.cmp(&lb).then(a.code.cmp(&b.code))
    });
    out
}

/// The CUDA source line of an instruction; code inlined from a header is reported at
/// its call site.
pub fn location_of(a: &Analysis<'_>, inst: InstId) -> Option<Location> {
    let loc = a.body.inst_locs.get(inst.index()).copied().flatten()?;
    let (mut file, mut line, mut col) = (loc.file, loc.line, loc.column);
    let path = a.program.files.path(file);
    if (path.ends_with(".h") || path.ends_with(".hpp"))
        && let Some(at) = loc.inlined_at
    {
        file = at.file;
        line = at.line;
        col = at.column;
    }
    if line == 0 {
        return None;
    }
    Some(Location {
        file: a.program.files.path(file),
        line,
        column: col,
    })
}

/// Replaces base-address symbols by the names of what they point to, for messages.
fn readable(a: &Analysis<'_>, e: &Expr) -> String {
    let _ = a;
    e.to_string()
}

fn element_of(a: &Analysis<'_>, access: &Access) -> String {
    match &access.region {
        Region::Global(name) => name.clone(),
        Region::Shared(v) | Region::Local(v) | Region::Variable(v, _) => {
            a.program.variable(*v).display_name().to_string()
        }
        Region::ReadPointer(origin) => origin.clone(),
        _ => "memory".to_string(),
    }
}

/// The address relative to its base, for messages.
fn offset_expr(a: &Analysis<'_>, access: &Access) -> Expr {
    let mut e = access.addr.clone();
    for t in access.addr.terms() {
        if !t.coef.is_one() {
            continue;
        }
        if let [(warpcheck_sym::Atom::Sym(s), 1)] = t.mono.factors() {
            let is_base = match s {
                Symbol::Param(n) => a.pointer_params.contains(&**n),
                Symbol::Opaque(_) => a.base_var(s).is_some() || a.read_pointer(s).is_some(),
                _ => false,
            };
            if is_base {
                e = e.sub(&Expr::sym(s.clone()));
                break;
            }
        }
    }
    e
}

/// Whether a value of dependence `deps` may differ between the lanes of one warp: lanes
/// are consecutive linear thread ids, so `threadIdx.y` varies within a warp only when
/// `blockDim.x < 32` (with a launch; without one, `blockDim.x` is taken to be a multiple of
/// 32) and `threadIdx.z` only when `blockDim.x·blockDim.y < 32`.
fn varies_in_warp(deps: Deps, launch: Option<&Launch>) -> bool {
    match launch {
        None => deps.contains(Deps::THREAD_X),
        Some(l) => {
            let [x, y, z] = l.block;
            (x > 1 && deps.contains(Deps::THREAD_X))
                || (x < 32 && y > 1 && deps.contains(Deps::THREAD_Y))
                || (x * y < 32 && z > 1 && deps.contains(Deps::THREAD_Z))
        }
    }
}

/// Whether `e` is the same on every lane of a warp: it names no value that varies within
/// a warp other than `threadIdx.x` (`threadIdx.y` and `.z` and opaque values vary as
/// [`varies_in_warp`] says), and 32 consecutive `threadIdx.x` give one value
/// (`rowPtr[threadIdx.x / 32]`).
fn warp_uniform(e: &Expr, launch: Option<&Launch>) -> bool {
    affine_in_lanes(e, launch) && lane_offsets(e).is_some_and(|offs| offs.iter().all(|&o| o == 0))
}

/// Whether `e` is known and nothing in it but `threadIdx.x` varies within a warp, so that
/// [`lane_offsets`] gives its values on the lanes.
fn affine_in_lanes(e: &Expr, launch: Option<&Launch>) -> bool {
    !e.is_unknown()
        && !e.symbols().iter().any(|s| match s {
            Symbol::ThreadIdx(Axis::X) => false,
            Symbol::ThreadIdx(axis) => varies_in_warp(Deps::thread(*axis), launch),
            Symbol::Opaque(o) => varies_in_warp(o.deps, launch),
            _ => false,
        })
}

/// What would make the access cheaper.
fn help(
    a: &Analysis<'_>,
    access: &Access,
    metric: Metric,
    stride: Option<i128>,
    degree: u32,
) -> Option<String> {
    match metric {
        Metric::Sectors => uncoalesced::help(a, access),
        Metric::Banks => bank_conflict::help(a, access, stride, degree),
    }
}
