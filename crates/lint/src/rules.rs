//! The lints: uncoalesced global accesses, shared-memory bank conflicts and barrier
//! divergence, each turned into [`Finding`]s at the CUDA source line.
//!
//! # `uncoalesced-access` (warning)
//!
//! *What it does*: finds global loads and stores whose warp touches many more 32-byte
//! sectors than its bytes need (`S ≥ 2·I` and `S ≥ I + 2`, the corpus convention).
//! *Why is this bad?* Each sector is a separate DRAM transaction; a warp reading 32
//! floats 128 bytes apart moves 1024 bytes for 128 useful ones (GPUDrano §3.2).
//! With a launch (`--block`, `--grid`, `--arg`) the symbolic address is instantiated and
//! the worst execution is reported exactly; without one, the lanes of a warp are taken as
//! 32 consecutive `threadIdx.x` (assuming `blockDim.x` is a multiple of 32), and a
//! symbolic stride such as `4·height` gives an upper bound. A single active lane per warp
//! (`if (threadIdx.x % 32 == 0)`) is never uncoalesced. Data-dependent addresses are
//! not flagged by this rule: whether a gather or a per-thread range read from memory
//! coalesces depends on the data (GPUDrano flags them all; the corpus has both kinds);
//! `--data-dependent` reports them separately (below).
//! One data-dependent case is modelled: a warp-uniform index read from memory times a
//! record size of at least a transaction (`knodes[currKnode[b]].keys[threadIdx.x]` with a
//! 2,068-byte node) makes the base known only modulo `gcd(size, 128)`; when some such base
//! makes the warp touch more lines than needed, the access is flagged with the padding that
//! aligns every record (GPUDrano's "incorrect padding").
//! The help proposes a mapping of threads to indices that would coalesce (Juravle §5.1
//! "what if"): another thread index or an enclosing loop along which the address
//! advances by one element.
//! *Example*: `odata[x * height + y]` with `x = blockIdx.x * 32 + threadIdx.x`.
//!
//! # Record accesses split by the compiler (both lints)
//!
//! clang often turns one source-level access of a vector or small struct into several
//! narrower ones: a `float4` copy into two 8-byte halves (or four 4-byte loads at `-O0`),
//! a `uchar4` of which three components are used into three byte loads. Each piece alone
//! has its lanes a record apart and looks strided (17 sectors for a misaligned `float4`
//! read as floats), although together the warp reads the records contiguously, exactly
//! as nvcc's single 16-byte access. So the loads (or stores) of one source line with the
//! same space, region, condition and loops, whose addresses differ by constants (the same
//! base and thread-dependent stride) and whose bytes fit in a record of `R` bytes — `R`
//! the largest power of two up to 16 that the stride along `threadIdx.x` is a multiple
//! of — are judged together as one access of the record (the union of their bytes;
//! for shared memory, phases per the record's width), symbolically and per execution
//! when instantiated. When the record access is coalesced and conflict-free, none of its
//! pieces is reported; otherwise the line is reported with each instruction's own cost,
//! as the hardware counts it and as `warpcheck check` reports it (its "split vector
//! record" siblings, `crates/check/src/coalesce.rs`), and a note names the pieces.
//! Like the dynamic checker's, the grouping is per line, not per expression: two fields
//! of one 16-byte record read on one line (`z[2*i] + z[2*i+1]`) count as one access too.
//!
//! # `uncoalesced-data-dependent` (warning, only with `--data-dependent`)
//!
//! *What it does*: finds global loads, stores and atomics whose address varies across the
//! threads of a warp through values read from memory: gathers `x[col[j]]`, scatters
//! `cost[edges[i]]` (and `atomicOr(&dst[pos[tid] / 32], …)` where the kernel walks a range
//! from `pos[tid] / 32`), per-thread ranges `a[start[tid] + i]`. The note names the loaded
//! values the address depends on.
//! *Why is this bad?* Nothing bounds how far apart the lanes land: for typical graph or
//! sparse inputs each lane touches its own line. Whether they do depends on the data, so
//! the finding says so and asks for a measurement (`warpcheck check` with representative
//! inputs). Off by default (`LintOptions::data_dependent`): GPUDrano reports these, and
//! the Rodinia comparison uses the option for that reason.
//! Not reported: a loaded index that is the same across the warp
//! (`a[ptr[blockIdx.x] + threadIdx.x]`: a known lane pattern, judged by the rules above,
//! including the record-layout one), an access reported by `uncoalesced-access`, one
//! executed by a single lane, and an index read from a per-thread table (a dense array
//! whose adjacent entries adjacent lanes read, `variables[neighbours[tid + j·n]]`) unless
//! the kernel walks a range from it: such tables usually map threads to nearby elements
//! (Rodinia's cfd mesh neighbours are coalesced in practice; GPUDrano counts cfd's 22 as
//! false).
//! *Example*: `g_cost[g_graph_edges[i]]` with `i` running over `g_graph_nodes[tid]`'s edges.
//!
//! # `bank-conflict` (warning)
//!
//! *What it does*: finds shared loads and stores whose lanes hit a bank with several
//! distinct words (phases per the access width). *Why is this bad?* The bank serves them
//! one after the other: an N-way conflict takes N wavefronts. *Example*:
//! `tile[threadIdx.x][j]` with 32-float rows: word stride 32, 32-way; pad rows to 33.
//!
//! # `barrier-divergence` (error)
//!
//! *What it does*: finds `__syncthreads()` under thread-dependent control: some threads
//! of a block reach it and others do not, while those others have not exited (PTX
//! §9.7.12.1: behaviour is undefined). Threads that only return before the barrier are
//! exempt (`if (i >= n) return;` then `__syncthreads()` is fine): a thread-dependent
//! branch counts when the threads that skip the barrier go on to execute code that the
//! threads after the barrier also execute, or pass another barrier or a loop.

use std::collections::{BTreeMap, BTreeSet, HashMap};

use warpcheck_ir::access::AccessKind;
use warpcheck_ir::modifiers::MemSpace;
use warpcheck_ir::{BlockId, EntityRef, InstId, Op};
use warpcheck_report::{Finding, Location, Severity};
use warpcheck_sym::{Axis, Context, Deps, Expr, Symbol};

use crate::LintOptions;
use crate::analysis::{Access, Analysis, Region};
use crate::dependence::{BoolDep, bool_dep, lane_offsets};
use crate::instantiate::{Instance, Launch, Metric, Outcome};
use crate::warp;

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
        let RecordUnit {
            access,
            location,
            metric,
            pieces,
        } = unit;
        let verdict = match &instance {
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
            && let Some(f) = data_dependent(a, access, options.launch.as_ref(), &starts)
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
            continue;
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
            raw.push(Raw {
                finding: finding
                    .at(location, label(access, metric))
                    .kernel(kernel_name(a)),
                degree,
                instructions: pieces.len() as u64,
            });
        }
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

/// One access to judge: a load or store, or the components of one record access that the
/// compiler split (see [`record_units`]).
struct RecordUnit<'x> {
    /// The component at the lowest address (the access itself when alone).
    access: &'x Access,
    location: Location,
    metric: Metric,
    /// What each lane touches: (byte offset from `access`'s address, bytes), by offset.
    pieces: Vec<(i128, u32)>,
}

/// The widest record that clang's pieces are taken to form: a vector access moves at most
/// 16 bytes per lane.
const MAX_RECORD: i128 = 16;

/// Groups the components of split record accesses. clang turns one source-level access
/// of a vector or small struct (`float4`, `uchar4`, a struct copy) into several narrower
/// accesses: at `-O0` a `float4` is four 4-byte loads at +0, +4, +8, +12, at `-O3` often
/// two 8-byte halves, and unused components are not loaded at all (`uchar4` as three
/// bytes). Each piece alone has its lanes a record apart and looks strided, although
/// together they read the record contiguously, as nvcc's single 16-byte access does.
///
/// The accesses of one source line with the same kind, space, region, condition and
/// enclosing loops whose addresses differ by constants (so the same base and the same
/// thread-dependent stride) form a record when their bytes fit in `R` bytes, `R` the
/// largest power of two up to 16 that divides the stride along `threadIdx.x` (a record
/// never spans two lanes' records); pieces sorted by offset are split greedily into such
/// records. What is left alone is judged alone.
fn record_units<'x>(candidates: Vec<(&'x Access, Location, Metric)>) -> Vec<RecordUnit<'x>> {
    // Clusters: accesses of one line that may be components of one record, with their
    // offsets from the first member; indexed by source line.
    // Members: (access, offset, its line, its position among the candidates).
    type Member<'x> = (&'x Access, i128, Location, usize);
    let mut clusters: Vec<(Metric, Vec<Member<'x>>)> = Vec::new();
    let mut by_line: HashMap<(String, u32), Vec<usize>> = HashMap::new();
    for (n, (access, location, metric)) in candidates.into_iter().enumerate() {
        let line = by_line
            .entry((location.file.clone(), location.line))
            .or_default();
        let joined = line.iter().find_map(|&c| {
            let (m, members) = &mut clusters[c];
            let first = members[0].0;
            let same = *m == metric
                && first.kind == access.kind
                && first.space == access.space
                && first.region == access.region
                && first.loops == access.loops
                && first.cond == access.cond;
            if !same {
                return None;
            }
            let d = access.addr.sub(&first.addr).as_integer()?;
            members.push((access, d, location.clone(), n));
            Some(())
        });
        if joined.is_none() {
            line.push(clusters.len());
            clusters.push((metric, vec![(access, 0, location, n)]));
        }
    }
    let mut out = Vec::new();
    for (metric, mut members) in clusters {
        let record = if members.len() > 1 {
            record_size(&members[0].0.addr)
        } else {
            0
        };
        members.sort_by_key(|m| (m.1, m.3));
        let mut i = 0;
        while i < members.len() {
            let (base, start, ref location, _) = members[i];
            let mut pieces = vec![(0, base.bytes)];
            let mut first = members[i].3;
            let mut j = i + 1;
            while j < members.len() {
                let (x, d, _, n) = members[j];
                if d + x.bytes as i128 - start > record {
                    break;
                }
                pieces.push((d - start, x.bytes));
                first = first.min(n);
                j += 1;
            }
            out.push((
                first,
                RecordUnit {
                    access: base,
                    location: location.clone(),
                    metric,
                    pieces,
                },
            ));
            i = j;
        }
    }
    // In the order of the accesses.
    out.sort_by_key(|u| u.0);
    out.into_iter().map(|u| u.1).collect()
}

/// The largest record size up to [`MAX_RECORD`] that the access's stride along
/// `threadIdx.x` is a multiple of (a power of two); 0 when the stride is not known to be
/// a multiple of anything.
fn record_size(addr: &Expr) -> i128 {
    let stride = addr.difference(&Symbol::ThreadIdx(Axis::X), &Expr::one());
    if stride.is_unknown() {
        return 0;
    }
    // The gcd of the integer coefficients (0 for a stride of 0: any record fits).
    let mut g = 0;
    for t in stride.terms() {
        match t.coef.as_integer() {
            Some(c) => g = warpcheck_sym::gcd_i128(g, c),
            None => return 0,
        }
    }
    let mut r = MAX_RECORD;
    while r > 1 && g % r != 0 {
        r /= 2;
    }
    r
}

/// The note of a finding on a record access.
fn record_note(access: &Access, pieces: &[(i128, u32)]) -> String {
    let span = pieces
        .iter()
        .map(|&(o, b)| o + b as i128)
        .max()
        .unwrap_or(access.bytes as i128);
    let list: Vec<String> = pieces
        .iter()
        .map(|&(o, b)| format!("{b} bytes at +{o}"))
        .collect();
    format!(
        "judged as one {span}-byte record access per thread, with the other accesses of this line \
         to the same record ({}), as a vector access would be (clang splits vector and struct \
         copies): the record access is uncoalesced or conflicting too; each instruction costs as \
         reported",
        list.join(", ")
    )
}

fn kernel_name(a: &Analysis<'_>) -> String {
    a.program.function(a.kernel()).display_name().to_string()
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
    let mut by_key: BTreeMap<(String, String, u32), (Raw, u64)> = BTreeMap::new();
    for r in raw {
        let loc = r
            .finding
            .primary
            .as_ref()
            .map(|p| (p.location.file.clone(), p.location.line))
            .unwrap_or_default();
        let key = (r.finding.code.clone(), loc.0, loc.1);
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
            if matches!(f.code.as_str(), "uncoalesced-access" | "bank-conflict") {
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

#[allow(clippy::too_many_arguments)]
fn instantiated(
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
            "uncoalesced-access",
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
            "bank-conflict",
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
fn symbolic(
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
    let tid = Symbol::ThreadIdx(Axis::X);
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
                        "uncoalesced-access",
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
                        "bank-conflict",
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
        return None;
    }
    if !data_dependent {
        // A symbolic stride: an upper bound, with the assumptions it needs.
        let stride = offset.difference(&tid, &Expr::one());
        if stride.is_zero() || stride.is_unknown() {
            return None;
        }
        let ctx = Context::assuming_positive_params();
        // A stride within the access's (or its record's) width is contiguous.
        let width = pieces
            .iter()
            .map(|&(o, b)| o + b as i128)
            .max()
            .unwrap_or(access.bytes as i128);
        let small = warpcheck_sym::Rational::int(width);
        let range = ctx.range(&stride).value;
        let neg_small = warpcheck_sym::Rational::int(-width);
        if range.lo.is_some_and(|v| v >= neg_small) && range.hi.is_some_and(|v| v <= small) {
            return None;
        }
        if stride
            .symbols()
            .iter()
            .any(|s| matches!(s, Symbol::ThreadIdx(_)))
            && stride.as_constant().is_none()
        {
            // Not affine in threadIdx.x: no stride to speak of.
            if lane_offsets(&offset).is_none()
                && !stride.mentions(&|s| matches!(s, Symbol::Param(_)))
            {
                return None;
            }
        }
        let sign = ctx.sign(&stride);
        let mut f = Finding::new(
            "uncoalesced-access",
            Severity::Warning,
            format!(
                "uncoalesced global {} of `{target}`: up to 32 {} per request",
                kind_word(access),
                granularity.unit()
            ),
        )
        .note(format!(
            "adjacent threads are {stride} bytes apart: 32 {} per request once |{stride}| ≥ {}",
            granularity.unit(),
            granularity.bytes()
        ))
        .note(format!("byte offset: {offset}"));
        if !sign.assuming.is_empty() {
            let list: Vec<String> = sign.assuming.iter().map(|x| x.to_string()).collect();
            f = f.note(format!("assuming {}", list.join(", ")));
        }
        if let Some(h) = help(a, access, metric, None, 32) {
            f = f.help(h);
        }
        return Some((32, f));
    }
    // Data-dependent addresses (gathers, per-thread ranges read from memory) are not
    // guessed at: whether adjacent lanes end up near each other depends on the data.
    None
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

/// The loaded values (opaque ids) from which some thread walks a range: a global access
/// whose address adds one to an enclosing loop's counter (`edges[start[tid] + k]`) or to
/// a loop's trip count (`dst[pos[tid] / 32 + i]` after the loop over `i`). Such a value
/// is a per-thread position, not a neighbour index, wherever the kernel uses it.
fn range_starts(a: &Analysis<'_>) -> BTreeSet<u32> {
    let mut out = BTreeSet::new();
    for access in &a.accesses {
        if access.space != MemSpace::Global || access.addr.is_unknown() {
            continue;
        }
        let offset = offset_expr(a, access);
        let walks = access.loops.iter().any(|&l| {
            let d = offset.difference(&a.loops[l].counter, &Expr::one());
            !d.is_zero() && !d.is_unknown()
        }) || offset.symbols().iter().any(|s| a.is_trip_count(s));
        if !walks {
            continue;
        }
        for s in offset.symbols() {
            if let Symbol::Opaque(o) = &s
                && a.load_of(&s).is_some()
            {
                out.insert(o.id);
            }
        }
    }
    out
}

/// Whether the lanes of a warp read `e` (the byte offset of a `bytes`-wide load) as one
/// entry each of a dense array, adjacent lanes adjacent entries: affine in `threadIdx.x`
/// with a stride of `±bytes`, and nothing else in it varies within the warp. A field of
/// an array of records (`p[tid].assign`) is not such a table.
fn per_thread_entry(e: &Expr, bytes: u32, launch: Option<&Launch>) -> bool {
    affine_in_lanes(e, launch)
        && lane_offsets(e).is_some_and(|offs| {
            let stride = offs[1] - offs[0];
            stride.abs() == bytes as i128 && offs.windows(2).all(|w| w[1] - w[0] == stride)
        })
}

/// `uncoalesced-data-dependent` (only with [`LintOptions::data_dependent`]): a global access
/// whose address is not known from the launch because it is computed from values read
/// from memory that differ between the lanes of a warp: a gather `x[col[j]]`, a scatter
/// `cost[edges[i]]`, a per-thread range `a[start[tid] + i]`. Whether the warp's lanes land
/// on few lines depends on the data; GPUDrano reports all of them. A loaded index that is
/// the same across the warp (`a[ptr[blockIdx.x] + threadIdx.x]`) is not a gather: the
/// address is then a warp-uniform base plus a known lane pattern, which the other rules
/// judge (the record-layout rule, [`misaligned_by_layout`]). Nor is an index read from a
/// per-thread table (`variables[neighbours[tid + j·n]]`, adjacent lanes reading adjacent
/// entries): such tables usually map threads to nearby elements (Rodinia's cfd and srad),
/// unless the kernel walks a range from the value (`dst[pos[tid] / 32 + i]` in a loop over
/// `i`: [`range_starts`]), which makes it a per-thread position.
fn data_dependent(
    a: &Analysis<'_>,
    access: &Access,
    launch: Option<&Launch>,
    range_starts: &BTreeSet<u32>,
) -> Option<Finding> {
    if bool_dep(&access.cond) == BoolDep::AtMostOne || access.addr.is_unknown() {
        return None;
    }
    let offset = offset_expr(a, access);
    let mut loaded: Vec<(u32, String)> = Vec::new();
    for s in offset.symbols() {
        let Symbol::Opaque(o) = &s else {
            continue;
        };
        if a.base_var(&s).is_some() || !varies_in_warp(o.deps, launch) {
            continue;
        }
        let Some(inst) = a.load_of(&s) else {
            continue;
        };
        let Some(load) = a.accesses.iter().find(|x| x.inst == inst) else {
            continue;
        };
        // A value loaded from one address per warp is the same on every lane.
        let table = offset_expr(a, load);
        if warp_uniform(&table, launch) {
            continue;
        }
        // An entry of a per-thread table (`nb = neighbours[tid + j·n]`) used as an index:
        // such tables usually map a thread to elements near its own
        // (mesh neighbours, clamped row±1), which coalesce in practice; not guessed at
        // unless the kernel walks a range from it ([`range_starts`]).
        if !range_starts.contains(&o.id) && per_thread_entry(&table, load.bytes, launch) {
            continue;
        }
        let line = location_of(a, inst).map_or(0, |l| l.line);
        let name = format!("`{}[…]`", element_of(a, load));
        let described = if line > 0 {
            format!("{name} (line {line})")
        } else {
            name
        };
        if !loaded.iter().any(|(_, d)| *d == described) {
            loaded.push((line, described));
        }
    }
    if loaded.is_empty() {
        return None;
    }
    loaded.sort();
    let names: Vec<String> = loaded.iter().map(|(_, d)| d.clone()).collect();
    let short: Vec<String> = names
        .iter()
        .map(|d| d.split(" (line").next().unwrap_or(d).to_string())
        .collect();
    let target = element_of(a, access);
    Some(
        Finding::new(
            "uncoalesced-data-dependent",
            Severity::Warning,
            format!(
                "global {} of `{target}` at an address read from memory ({}): coalescing depends on the data",
                kind_word(access),
                short.join(", ")
            ),
        )
        .note(format!(
            "the address depends on {}, which differ{} between the threads of a warp",
            names.join(", "),
            if names.len() == 1 { "s" } else { "" }
        ))
        .note(format!("byte offset: {}", readable(a, &offset)))
        .help("run `warpcheck check` with representative inputs to measure it"),
    )
    .map(|f| match access.region {
        Region::ReadPointer(_) => f.note(
            "generic access through a pointer read from memory: taken to point to global memory",
        ),
        _ => f,
    })
}

/// A warp-uniform term `c·X` of an address where `X` is a value loaded from memory
/// (`knodes[currKnode[bid]].keys[threadIdx.x]`: `X = currKnode[bid]`, `c` = the size of
/// a node) and its constant coefficient `c`.
#[derive(Debug, PartialEq, Eq)]
struct LayoutTerm {
    loaded: String,
    coefficient: i128,
}

/// The warp-uniform, memory-loaded terms of `offset` whose constant coefficient is at least
/// a transaction wide (`unit` bytes): an index into an array of records or rows as wide as
/// a warp's request, whose size the programmer chose. `None` when such a value appears
/// non-linearly (the congruence is then not known). Smaller coefficients (`a[ptr[b] +
/// tid]`: an element index read from memory) are left alone: whether those start on a line
/// depends on the data, not on the layout.
fn layout_terms(a: &Analysis<'_>, offset: &Expr, unit: i128) -> Option<Vec<LayoutTerm>> {
    let mut out = Vec::new();
    for t in offset.terms() {
        let loaded_uniform = |s: &Symbol| {
            matches!(s, Symbol::Opaque(o) if !o.deps.varies_in_block())
                && a.base_var(s).is_none()
                && a.loaded_by(s).is_some()
        };
        let uses_loaded = t
            .mono
            .factors()
            .iter()
            .any(|(atom, _)| matches!(atom, warpcheck_sym::Atom::Sym(s) if loaded_uniform(s)));
        if !uses_loaded {
            continue;
        }
        let [(warpcheck_sym::Atom::Sym(s), 1)] = t.mono.factors() else {
            return None;
        };
        let c = t.coef.as_integer()?;
        if c.abs() >= unit {
            let loaded = a
                .loaded_by(s)
                .and_then(|inst| a.accesses.iter().find(|x| x.inst == inst))
                .map_or_else(
                    || format!("`{s}`"),
                    |x| {
                        format!(
                            "`{}` (loaded at byte offset {})",
                            element_of(a, x),
                            readable(a, &offset_expr(a, x))
                        )
                    },
                );
            out.push(LayoutTerm {
                loaded,
                coefficient: c.abs(),
            });
        }
    }
    Some(out)
}

/// The congruence of a warp-uniform, data-dependent base (Alur et al. §3.2, GPUDrano's
/// "incorrect padding"): when the address is `Σ cᵢ·Xᵢ + k + f(threadIdx.x)` with `Xᵢ` loaded
/// from memory and uniform across the warp, the base is known only modulo
/// `g = gcd(cᵢ)`; modulo the transaction size `u` it can be `k + j·gcd(g, u)` for any `j`.
/// Kernel parameters keep their assumed 256-byte alignment. When some of those residues
/// make the warp's lanes (`lanes`, relative to lane 0) touch more transactions than their
/// bytes need, the access is uncoalesced for most values of the index: reported with the
/// worst residue, the record size and the padding that would align every record.
fn misaligned_by_layout(
    a: &Analysis<'_>,
    access: &Access,
    offset: &Expr,
    lanes: &[(u32, i128)],
    pieces: &[(i128, u32)],
    granularity: warp::Granularity,
) -> Option<(u32, Finding)> {
    let unit = granularity.bytes();
    let terms = layout_terms(a, offset, unit)?;
    let g = terms
        .iter()
        .fold(0, |g, t| warpcheck_sym::gcd_i128(g, t.coefficient));
    if terms.is_empty() || g % unit == 0 {
        return None;
    }
    let step = warpcheck_sym::gcd_i128(g, unit);
    let constant = offset.constant_term().as_integer()?;
    let (residue, worst) = (0..unit / step)
        .filter_map(|j| {
            let r = (constant + j * step).rem_euclid(unit);
            let shifted: Vec<(u32, i128)> = lanes.iter().map(|&(l, o)| (l, o + r)).collect();
            Some((r, warp::judge_sectors(&shifted, pieces, granularity)?))
        })
        .max_by_key(|(_, s)| s.touched as i128 - s.ideal as i128)?;
    let target = element_of(a, access);
    let names: Vec<String> = terms.iter().map(|t| t.loaded.clone()).collect();
    let sizes: Vec<String> = terms.iter().map(|t| t.coefficient.to_string()).collect();
    let padded = g.div_euclid(unit) * unit + unit;
    let f = Finding::new(
        "uncoalesced-access",
        Severity::Warning,
        format!(
            "uncoalesced global {} of `{target}`: {} {} per request where {} would do, depending on {}",
            kind_word(access),
            worst.touched,
            granularity.unit(),
            worst.ideal,
            names.join(", ")
        ),
    )
    .note(format!(
        "the warp's base moves by {} bytes per unit of {}, read from memory: it is only a multiple of {step} bytes \
         modulo {unit}, so for most values the request straddles a line boundary (worst: {residue} bytes past one)",
        sizes.join(", "),
        names.join(", ")
    ))
    .note(format!("byte offset: {offset}"))
    .note("assuming blockDim.x is a multiple of 32 and all 32 lanes active")
    .help(format!(
        "pad the record (or row) that {} indexes from {g} to a multiple of {unit} bytes (e.g. {padded}) so that each one starts on a line",
        names.join(", ")
    ));
    Some((worst.touched, f))
}

/// What would make the access cheaper.
fn help(
    a: &Analysis<'_>,
    access: &Access,
    metric: Metric,
    stride: Option<i128>,
    degree: u32,
) -> Option<String> {
    let offset = offset_expr(a, access);
    let bytes = access.bytes as i128;
    match metric {
        Metric::Sectors => {
            // Another index along which the address advances by one element.
            let mut candidates: Vec<(String, Symbol)> = vec![
                ("threadIdx.y".into(), Symbol::ThreadIdx(Axis::Y)),
                ("threadIdx.z".into(), Symbol::ThreadIdx(Axis::Z)),
            ];
            for &l in access.loops.iter().rev() {
                let header = a.loops[l].header;
                let line = a.body.blocks[header]
                    .insts()
                    .find_map(|i| location_of(a, i))
                    .map_or(String::new(), |loc| format!(" at line {}", loc.line));
                candidates.push((
                    format!("the iterations of the loop{line}"),
                    a.loops[l].counter.clone(),
                ));
            }
            for (name, sym) in candidates {
                let d = offset.difference(&sym, &Expr::one());
                if let Some(v) = d.as_integer()
                    && v.abs() == bytes
                {
                    return Some(format!(
                        "what if: mapping {name} to threadIdx.x would put adjacent threads {bytes} bytes apart, \
                         {} sectors per request",
                        (32 * bytes + 31) / 32
                    ));
                }
            }
            Some("make adjacent threads access adjacent elements (transpose the thread mapping or the data layout, \
                  or stage the data through shared memory)".to_string())
        }
        Metric::Banks => {
            let words = stride? / 4;
            if words == 0 {
                return None;
            }
            let row = match &access.region {
                Region::Shared(v) => {
                    let var = a.program.variable(*v);
                    let dims: Vec<u64> = var.dims.iter().flatten().copied().collect();
                    (dims.len() >= 2).then(|| dims[dims.len() - 1])
                }
                _ => None,
            };
            Some(match row {
                Some(r) if r as i128 * (var_elem(a, access) as i128) / 4 == words.abs() => format!(
                    "stride {} words → {degree}-way; pad rows to {} elements (`[..][{}]`)",
                    words.abs(),
                    r + 1,
                    r + 1
                ),
                _ => format!(
                    "stride {} words → {degree}-way; use an odd word stride (e.g. {}) or pad every 32 words",
                    words.abs(),
                    words.abs() + 1
                ),
            })
        }
    }
}

fn var_elem(a: &Analysis<'_>, access: &Access) -> u64 {
    match &access.region {
        Region::Shared(v) => a.program.variable(*v).element_size(),
        _ => 4,
    }
}

/// Whether a block does nothing but leave the function.
fn trivial_exit(a: &Analysis<'_>, b: BlockId) -> bool {
    a.body.blocks[b].insts().all(|i| {
        matches!(
            a.body.inst(i).op,
            Op::Ret { .. } | Op::Exit {} | Op::Bra { .. }
        )
    }) && a.body.cfg.succs(b).iter().all(|&s| trivial_exit(a, s))
}

fn reachable_from(a: &Analysis<'_>, start: BlockId, stop: Option<BlockId>) -> BTreeSet<BlockId> {
    let mut seen = BTreeSet::new();
    let mut stack = vec![start];
    while let Some(b) = stack.pop() {
        if Some(b) == stop || !seen.insert(b) {
            continue;
        }
        stack.extend(a.body.cfg.succs(b).iter().copied());
    }
    seen
}

fn barrier_divergence(a: &Analysis<'_>, inst: InstId, block: BlockId) -> Option<Finding> {
    let cond = &a.block_cond[block.index()];
    if !cond.deps().varies_in_block() {
        return None;
    }
    // Blocks that can reach the barrier.
    let mut reaching = BTreeSet::new();
    let mut stack = vec![block];
    while let Some(b) = stack.pop() {
        if reaching.insert(b) {
            stack.extend(a.body.cfg.preds(b).iter().copied());
        }
    }
    let after = reachable_from(a, block, None);
    let barrier_blocks: BTreeSet<BlockId> = a.barriers.iter().map(|(_, b)| *b).collect();
    for &br in &reaching {
        let Some(c) = &a.branch_cond[br.index()] else {
            continue;
        };
        if !c.deps().varies_in_block() || a.block_cond[br.index()].as_const() == Some(false) {
            continue;
        }
        for &s in a.body.cfg.succs(br) {
            if reaching.contains(&s) {
                continue;
            }
            let skip = reachable_from(a, s, None);
            let harmful = skip.iter().any(|&x| {
                (after.contains(&x) && !trivial_exit(a, x))
                    || barrier_blocks.contains(&x)
                    || a.body.loops.is_header(x)
            });
            if harmful {
                let line = a.body.terminator(br).and_then(|t| location_of(a, t));
                let mut f = Finding::new(
                    "barrier-divergence",
                    Severity::Error,
                    "barrier under thread-dependent control: some threads of the block skip it".to_string(),
                )
                .note(format!("executed only when {cond}"))
                .help("move __syncthreads() out of the thread-dependent branch, or make the condition the same for the whole block");
                if let Some(l) = line {
                    f = f.related(l, format!("threads diverge here (`{c}`)"));
                }
                let _ = inst;
                return Some(f);
            }
        }
    }
    None
}
