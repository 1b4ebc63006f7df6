//! Kernel faults as findings.
//!
//! The emulator finds some errors itself, because it cannot go on past them: an access
//! outside memory, a misaligned access, a deadlock, a trap, a runaway loop. Each stops
//! its block and is a result of the run ([`warpcheck_emu::Fault`]: kind, block, thread,
//! instruction, and for hangs the waiting warps). Which faults a check reports is the
//! claiming checker's decision ([`crate::Check::reports_fault`]: [`crate::mem`] claims the
//! memory faults, [`crate::sync`] deadlocks); this module turns one into a finding, for
//! `check` and for a plain run alike.

use warpcheck_emu::{Fault, FaultKind, WaitKind};
use warpcheck_ir::modifiers::MemSpace;
use warpcheck_report::{Code, Finding, Severity};

use crate::ReportCx;

/// The finding code of a fault.
pub fn code(kind: &FaultKind) -> Code {
    match kind {
        FaultKind::OutOfBounds { .. }
        | FaultKind::BadGenericAddress { .. }
        | FaultKind::HeapOutOfBounds { .. } => Code::OutOfBounds,
        FaultKind::HeapUseAfterFree { .. } => Code::UseAfterFree,
        FaultKind::HeapDoubleFree { .. } => Code::DoubleFree,
        FaultKind::HeapInvalidFree { .. } => Code::InvalidFree,
        FaultKind::Misaligned { .. } => Code::Misaligned,
        FaultKind::ReadOnly { .. } => Code::ReadOnlyWrite,
        FaultKind::Trap => Code::Trap,
        FaultKind::AssertionFailed { .. } => Code::AssertionFailed,
        FaultKind::Deadlock { .. } => Code::Deadlock,
        // Threads spinning while others wait at a barrier for them: they wait forever.
        FaultKind::BudgetExhausted { waiting, .. } | FaultKind::Spin { waiting, .. }
            if waiting
                .iter()
                .any(|w| matches!(w.what, WaitKind::Barrier { .. })) =>
        {
            Code::Deadlock
        }
        FaultKind::BudgetExhausted { .. } | FaultKind::Spin { .. } => Code::InstructionBudget,
        FaultKind::LaunchLimit { .. } => Code::LaunchLimit,
        FaultKind::BadCallTarget { .. } => Code::BadCallTarget,
        FaultKind::StackOverflow { .. } => Code::StackOverflow,
        FaultKind::UnboundTexture { .. } => Code::UnboundTexture,
    }
}

/// An out-of-bounds shared-memory access of a launch that gave no dynamic shared memory
/// to a kernel that declares some (`extern __shared__`): says so, with the option that
/// sizes it, instead of leaving a bare out-of-bounds error.
pub fn explain_dynamic_shared(
    cx: &ReportCx,
    finding: Finding,
    fault: &Fault,
    info: &crate::LaunchInfo,
    outcome: &warpcheck_emu::RunOutcome,
) -> Finding {
    let FaultKind::OutOfBounds {
        space: MemSpace::Shared,
        address,
        ..
    } = fault.kind
    else {
        return finding;
    };
    let dynamic = outcome
        .shared_vars
        .iter()
        .find(|v| v.size.is_none() && address >= v.offset);
    match dynamic {
        Some(v) if info.dynamic_shared == 0 => {
            let name = &cx.program.variable(v.var).name;
            finding
                .note(format!(
                    "the kernel declares dynamic shared memory (`extern __shared__ {name}[]`) and the launch gave it none (`--shared` is 0)"
                ))
                .help("give the bytes the kernel expects with `--shared BYTES` (the third `<<<>>>` argument)")
        }
        _ => finding,
    }
}

/// An out-of-bounds global access past the end of a made-up buffer that could not grow
/// to what the kernel reached (the buffer nearest below the address, when it has
/// [`crate::Buffer::too_small`]): a `block-stopped` note that says so and which `--arg`
/// sizes the buffer, not an error, since the size was made up.
pub fn made_up_overrun(
    cx: &ReportCx,
    kernel: &str,
    fault: &Fault,
    buffers: &[crate::Buffer],
) -> Option<Finding> {
    let FaultKind::OutOfBounds {
        space: MemSpace::Global,
        address,
        ..
    } = fault.kind
    else {
        return None;
    };
    let b = buffers
        .iter()
        .filter(|b| b.address <= address)
        .max_by_key(|b| b.address)?;
    let small = b.too_small.as_ref()?;
    let [bx, by, bz] = fault.block;
    let mut f = Finding::new(
        Code::BlockStopped,
        Severity::Note,
        format!(
            "block ({bx},{by},{bz}) stopped: the kernel reached {} bytes past the end of made-up buffer `{}` ({} bytes, {}); its threads did not run on",
            address.saturating_sub(b.address + b.size),
            b.name,
            b.size,
            small.why
        ),
    )
    .kernel(kernel);
    let [tx, ty, tz] = fault.thread;
    let who = format!("by thread ({tx},{ty},{tz})");
    match cx.locate((fault.func, fault.inst)) {
        Some(at) => f = f.at(at, who),
        None => f = f.note(who),
    }
    Some(f.help(format!(
        "give the buffer with the size the kernel needs: `{}`",
        small.arg
    )))
}

/// A kernel fault that no enabled checker reports, as a `block-stopped` note at the
/// faulting instruction: the block stopped there, and its other threads did not run on.
pub fn stopped_note(cx: &ReportCx, kernel: &str, fault: &Fault) -> Finding {
    let [bx, by, bz] = fault.block;
    let [tx, ty, tz] = fault.thread;
    let owner = match code(&fault.kind) {
        Code::Deadlock => "sync",
        _ => "mem",
    };
    let mut f = Finding::new(
        Code::BlockStopped,
        Severity::Note,
        format!(
            "block ({bx},{by},{bz}) stopped: {}; its threads did not run on, so the rest of the block was not checked",
            fault.kind
        ),
    )
    .kernel(kernel);
    let who = format!("by thread ({tx},{ty},{tz})");
    match cx.locate((fault.func, fault.inst)) {
        Some(at) => f = f.at(at, who),
        None => f = f.note(who),
    }
    f.help(format!(
        "`--tool {owner}` reports this fault as an error (`{}`)",
        code(&fault.kind).name()
    ))
}

/// The faults of one launch grouped by what faulted where: one group per instruction and
/// kind of fault (blocks that overrun a buffer at the same line are one bug, whatever
/// address each reached), as its first fault and how many faulted alike.
pub fn grouped(faults: &[Fault]) -> Vec<(&Fault, u64)> {
    let mut out: Vec<(&Fault, u64)> = Vec::new();
    for f in faults {
        let alike = |g: &&Fault| {
            g.func == f.func
                && g.inst == f.inst
                && std::mem::discriminant(&g.kind) == std::mem::discriminant(&f.kind)
        };
        match out.iter_mut().find(|(g, _)| alike(g)) {
            Some(group) => group.1 += 1,
            None => out.push((f, 1)),
        }
    }
    out
}

/// [`finding`] for a group of `count` alike faults ([`grouped`]): the first one's finding,
/// counted `count` times, with a note saying the others are not shown one by one.
/// `faulted` is how many blocks of the launch faulted in all, `kept` how many faults the
/// launch kept ([`warpcheck_emu::RunOutcome::fault_count`] and its `faults`).
pub fn group_finding(
    cx: &ReportCx,
    kernel: &str,
    (first, count): (&Fault, u64),
    (faulted, kept): (usize, usize),
) -> Finding {
    let mut f = finding(cx, kernel, first);
    if count > 1 {
        let more = if faulted > kept {
            format!(" ({faulted} blocks of the launch faulted; the first {kept} faults were kept)")
        } else {
            String::new()
        };
        f = f.note(format!(
            "{count} faults of this kind at this instruction in the launch{more}; blocks stop at their first fault; the first is shown"
        ));
        f.occurrences = count;
    }
    f
}

/// A kernel fault of `kernel` (its name as reports show it) as an error at the faulting
/// instruction, by the faulting thread; for a deadlock or a hang, the first four waiting
/// warps as related locations (or notes, where their line is unknown).
pub fn finding(cx: &ReportCx, kernel: &str, fault: &Fault) -> Finding {
    let [bx, by, bz] = fault.block;
    let [tx, ty, tz] = fault.thread;
    let who = format!("thread ({tx},{ty},{tz}) of block ({bx},{by},{bz})");
    let mut f =
        Finding::new(code(&fault.kind), Severity::Error, fault.kind.to_string()).kernel(kernel);
    match cx.locate((fault.func, fault.inst)) {
        Some(at) => f = f.at(at, format!("by {who}")),
        None => f = f.note(format!("by {who}")),
    }
    if let FaultKind::Deadlock { waiting, .. }
    | FaultKind::BudgetExhausted { waiting, .. }
    | FaultKind::Spin { waiting, .. } = &fault.kind
    {
        for w in waiting.iter().take(4) {
            let what = match w.what {
                WaitKind::Barrier {
                    id,
                    arrived,
                    expected,
                } => {
                    format!(
                        "warp {} waits at barrier {id} ({arrived} of {expected} threads arrived)",
                        w.warp
                    )
                }
                WaitKind::WarpSync { mask } => {
                    format!("warp {} waits in __syncwarp({mask:#010x})", w.warp)
                }
                WaitKind::GridSync { cooperative } => format!(
                    "warp {} waits in grid.sync() {}",
                    w.warp,
                    warpcheck_emu::fault::grid_sync_reason(cooperative)
                ),
            };
            match &w.source {
                Some(loc) if loc.line > 0 => f = f.related(cx.source(loc), what),
                _ => f = f.note(what),
            }
        }
    }
    f
}
