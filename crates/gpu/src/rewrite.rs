//! PTX-to-PTX rewrite: privatisation of the target buffers per *unit* (a block, or a warp
//! of a block; LD §4.4, §4.5, §5).
//!
//! The kernel gets two parameters for the whole launch: `__wc_map`, a table of `u32`
//! giving each unit the private copy it uses, and `__wc_upb`, the units per block (1: a
//! unit is a block; the warps per block: a unit is a warp). A prologue computes the
//! linear unit `u = block * upb + warp % upb` and its copy `c = map[u]`. For each target
//! `t` (a pointer parameter the kernel stores through), the kernel gets `__wc_priv_t` (the
//! base of all private copies) and `__wc_stride_t` (bytes between two copies), and
//! computes `base_t = priv_t + c * stride_t`; every `ld.param` of the target parameter
//! becomes `mov.b64 d, base_t`. Since the analysis ([`crate::analysis`]) proved that every
//! use of the pointer is arithmetic on it, every address `p + off` the kernel forms
//! becomes `base_t + off`: the unit's private copy, at the same offset. The host chooses
//! the map: one copy per unit (full privatisation), or groups of units sharing a copy,
//! reshuffled between rounds (memory-adaptive checking).
//!
//! Atomics and reductions through the pointer get `real_p - base_t` added to their
//! address, so they act on the real buffer.
//!
//! The *attribution* variant ([`Variant::Attribution`]) also records, for every plain
//! access through a target, the access's site number and the accessing unit at the
//! accessed offset in a site map (`__wc_wsite_t` for stores, `__wc_rsite_t` for loads;
//! two `u32` per byte of the private copies, site + 1 then unit, written at the access's
//! first byte), and for every atomic the same at its offset in the real buffer
//! (`__wc_asite_t`, one copy's size). It is only run when a race was found, to name the
//! source lines and units.
//!
//! `%wcr5` holds the linear block index and then the copy only until the prologue ends;
//! the attribution variant then reuses it for the site number (a store's source is a
//! register). `%wcr6` holds the unit throughout.
//!
//! New instructions are built by parsing PTX text with the project's parser, so they are
//! exactly what the printer and the parser agree on.

use std::fmt::Write as _;

use warpcheck_ptx::ast::{
    Function, FunctionKind, Instruction, Item, Module, OperandKind, Statement,
};

use crate::GpuError;
use crate::analysis::{Edit, Plan};
use crate::shared::{SharedEdit, SharedPlan, SharedScope};
use crate::shared_ptx;

/// Which kernel the rewrite produces.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Variant {
    /// Privatisation only: the two passes run this.
    Plain,
    /// Privatisation plus site maps: run to attribute a race to source lines.
    Attribution,
    /// Shared memory privatised per warp and compared at barriers
    /// ([`crate::shared_ptx`]); global buffers are not privatised.
    Shared,
}

/// Register numbers of the added `%wcd` (64-bit) registers.
struct Regs {
    targets: usize,
}

/// `%wcd` registers per target.
const PER_TARGET: usize = 7;

impl Regs {
    const COPY: usize = 0;
    fn base(&self, t: usize) -> usize {
        1 + PER_TARGET * t
    }
    fn delta(&self, t: usize) -> usize {
        2 + PER_TARGET * t
    }
    fn private(&self, t: usize) -> usize {
        3 + PER_TARGET * t
    }
    fn wsite(&self, t: usize) -> usize {
        4 + PER_TARGET * t
    }
    fn rsite(&self, t: usize) -> usize {
        5 + PER_TARGET * t
    }
    fn asite(&self, t: usize) -> usize {
        6 + PER_TARGET * t
    }
    /// The real buffer's base (attribution variant).
    fn real(&self, t: usize) -> usize {
        7 + PER_TARGET * t
    }
    fn temp(&self) -> usize {
        1 + PER_TARGET * self.targets
    }
    fn temp2(&self) -> usize {
        2 + PER_TARGET * self.targets
    }
    fn count(&self) -> usize {
        3 + PER_TARGET * self.targets
    }
}

/// The parameters the rewrite adds for the whole launch, after the targets' ones.
pub const LAUNCH_PARAMS: [&str; 2] = ["__wc_map", "__wc_upb"];

/// The names of the parameters the rewrite adds for target `t`, in order.
pub fn added_params(t: usize, variant: Variant) -> Vec<String> {
    let mut v = vec![format!("__wc_priv_{t}"), format!("__wc_stride_{t}")];
    if variant == Variant::Attribution {
        v.push(format!("__wc_wsite_{t}"));
        v.push(format!("__wc_rsite_{t}"));
        v.push(format!("__wc_asite_{t}"));
    }
    v
}

/// Rewrites kernel `kernel` (its PTX name) of `module` by `plan`; returns the module.
pub fn rewrite(
    module: &Module,
    kernel: &str,
    plan: &Plan,
    variant: Variant,
) -> Result<Module, GpuError> {
    if variant == Variant::Shared {
        return rewrite_shared(module, kernel, plan);
    }
    let mut out = module.clone();
    let f = entry(&mut out, kernel)?;
    let regs = Regs {
        targets: plan.targets.len(),
    };
    check_names(f)?;
    let mut params: Vec<String> = (0..plan.targets.len())
        .flat_map(|t| added_params(t, variant))
        .map(|p| format!(".param .u64 {p}"))
        .collect();
    params.push(format!(".param .u64 {}", LAUNCH_PARAMS[0]));
    params.push(format!(".param .u32 {}", LAUNCH_PARAMS[1]));
    let snippet = parse_snippet(&params.join(",\n"), &prologue(plan, &regs, variant))?;
    f.params.extend(snippet.params.clone());
    let body = f
        .body
        .as_mut()
        .ok_or_else(|| GpuError::Internal(format!("kernel `{kernel}` has no body")))?;
    let statements = std::mem::take(&mut body.statements);
    let mut rewritten = rewrite_statements(statements, plan, &regs, variant)?;
    insert_prologue(&mut rewritten, snippet);
    body.statements = rewritten;
    Ok(out)
}

/// The entry `kernel` of `module`.
fn entry<'m>(module: &'m mut Module, kernel: &str) -> Result<&'m mut Function, GpuError> {
    module
        .items
        .iter_mut()
        .find_map(|item| match item {
            Item::Function(f) if f.name.value == kernel && f.kind.value == FunctionKind::Entry => {
                Some(&mut **f)
            }
            _ => None,
        })
        .ok_or_else(|| GpuError::Internal(format!("kernel `{kernel}` not in the module")))
}

/// Puts `snippet`'s body before the first instruction, label or block of `statements`,
/// but after the declarations that precede the first instruction (clang puts a label
/// before the kernel's `.shared` declarations, which the prologue names).
fn insert_prologue(statements: &mut Vec<Statement>, snippet: Function) {
    let code = |s: &Statement| {
        matches!(
            s,
            Statement::Instruction(_) | Statement::Label(_) | Statement::Block(_)
        )
    };
    let first_inst = statements
        .iter()
        .position(|s| matches!(s, Statement::Instruction(_) | Statement::Block(_)))
        .unwrap_or(statements.len());
    let after_decls = statements[..first_inst]
        .iter()
        .rposition(|s| matches!(s, Statement::Variable(_)))
        .map_or(0, |i| i + 1);
    let first_code = statements.iter().position(code).unwrap_or(statements.len());
    let at = first_code.max(after_decls);
    let prologue = snippet.body.map(|b| b.statements).unwrap_or_default();
    statements.splice(at..at, prologue);
}

/// [`Variant::Shared`]: shared accesses redirected to the warp's copy, the comparison
/// after every barrier, and the kernel [`shared_ptx::FINAL`] added to the module.
fn rewrite_shared(module: &Module, kernel: &str, plan: &Plan) -> Result<Module, GpuError> {
    let SharedScope::Checked(sp) = &plan.shared else {
        return Err(GpuError::Internal(
            "shared variant of a kernel whose shared memory is not checked".into(),
        ));
    };
    let mut out = module.clone();
    let f = entry(&mut out, kernel)?;
    check_names(f)?;
    let snippet = parse_snippet(
        &shared_ptx::param_decls().join(",\n"),
        &shared_ptx::prologue(sp),
    )?;
    f.params.extend(snippet.params.clone());
    let body = f
        .body
        .as_mut()
        .ok_or_else(|| GpuError::Internal(format!("kernel `{kernel}` has no body")))?;
    let statements = std::mem::take(&mut body.statements);
    let mut rewritten = shared_statements(statements, sp)?;
    insert_prologue(&mut rewritten, snippet);
    body.statements = rewritten;
    let text = format!(
        ".version 7.0\n.target sm_80\n.address_size 64\n{}",
        shared_ptx::final_kernel(sp)
    );
    let parsed = warpcheck_ptx::parse(&text);
    if let Some(e) = parsed.errors.first() {
        return Err(GpuError::Internal(format!(
            "the shared comparison kernel does not parse: {e:?}"
        )));
    }
    out.items.extend(
        parsed
            .module
            .items
            .into_iter()
            .filter(|i| matches!(i, Item::Function(_))),
    );
    Ok(out)
}

/// Rewrites a statement list for [`Variant::Shared`] (recursing into nested blocks).
fn shared_statements(
    statements: Vec<Statement>,
    plan: &SharedPlan,
) -> Result<Vec<Statement>, GpuError> {
    let mut out = Vec::with_capacity(statements.len());
    for s in statements {
        match s {
            Statement::Instruction(inst) => match plan.edits.get(&inst.span.start) {
                Some(&SharedEdit::Access(site)) => out.extend(shared_access(inst, plan, site)?),
                Some(&SharedEdit::Barrier(k)) => {
                    out.push(Statement::Instruction(inst));
                    let f = parse_snippet("", &shared_ptx::barrier(k))?;
                    out.extend(f.body.map(|b| b.statements).unwrap_or_default());
                }
                None => out.push(Statement::Instruction(inst)),
            },
            Statement::Block(mut b) => {
                let inner = std::mem::take(&mut b.statements);
                b.statements = shared_statements(inner, plan)?;
                out.push(Statement::Block(b));
            }
            other => out.push(other),
        }
    }
    Ok(out)
}

/// A shared access redirected to the warp's copy in global memory, after the marking
/// of its site.
fn shared_access(
    mut inst: Instruction,
    plan: &SharedPlan,
    site: usize,
) -> Result<Vec<Statement>, GpuError> {
    let (base, offset) = address_of(&inst)?;
    let mut code = guarded(&shared_ptx::access(plan, site, &base, offset), &inst)?;
    *address_base(&mut inst)? = "%wcs9".to_string();
    for m in &mut inst.modifiers {
        if m.value == "shared" || m.value == "shared::cta" {
            m.value = "global".to_string();
        }
    }
    code.push(Statement::Instruction(inst));
    Ok(code)
}

/// Refuses kernels that already use the rewrite's names.
fn check_names(f: &Function) -> Result<(), GpuError> {
    let clash = |s: &str| s.starts_with("%wc") || s.starts_with("__wc_");
    let mut bad = f
        .params
        .iter()
        .flat_map(|p| &p.declarators)
        .map(|d| &d.name.value)
        .find(|n| clash(n));
    if bad.is_none()
        && let Some(b) = &f.body
    {
        bad = b
            .statements
            .iter()
            .filter_map(|s| match s {
                Statement::Variable(v) => Some(v),
                _ => None,
            })
            .flat_map(|v| &v.declarators)
            .map(|d| &d.name.value)
            .find(|n| clash(n));
    }
    match bad {
        Some(n) => Err(GpuError::Unsupported(format!(
            "the kernel declares `{n}`, a name GPU mode's instrumentation uses"
        ))),
        None => Ok(()),
    }
}

/// Declarations and the code that computes each target's private base.
fn prologue(plan: &Plan, regs: &Regs, variant: Variant) -> String {
    let mut s = String::new();
    let _ = writeln!(s, ".reg .b64 %wcd<{}>;\n.reg .b32 %wcr<7>;", regs.count());
    let tmp = regs.temp();
    // Linear block, linear warp in the block, unit, copy.
    s.push_str(
        "mov.u32 %wcr0, %ctaid.x;\nmov.u32 %wcr1, %ctaid.y;\nmov.u32 %wcr2, %ctaid.z;\n\
         mov.u32 %wcr3, %nctaid.x;\nmov.u32 %wcr4, %nctaid.y;\n\
         mad.lo.u32 %wcr5, %wcr4, %wcr2, %wcr1;\nmad.lo.u32 %wcr5, %wcr5, %wcr3, %wcr0;\n\
         mov.u32 %wcr0, %tid.x;\nmov.u32 %wcr1, %tid.y;\nmov.u32 %wcr2, %tid.z;\n\
         mov.u32 %wcr3, %ntid.x;\nmov.u32 %wcr4, %ntid.y;\n\
         mad.lo.u32 %wcr4, %wcr4, %wcr2, %wcr1;\nmad.lo.u32 %wcr4, %wcr4, %wcr3, %wcr0;\n\
         shr.u32 %wcr4, %wcr4, 5;\nld.param.u32 %wcr0, [__wc_upb];\nrem.u32 %wcr4, %wcr4, %wcr0;\n\
         mad.lo.u32 %wcr6, %wcr5, %wcr0, %wcr4;\n",
    );
    let _ = writeln!(s, "ld.param.u64 %wcd{tmp}, [__wc_map];");
    let _ = writeln!(s, "mul.wide.u32 %wcd{}, %wcr6, 4;", Regs::COPY);
    let _ = writeln!(s, "add.s64 %wcd{tmp}, %wcd{tmp}, %wcd{};", Regs::COPY);
    let _ = writeln!(s, "ld.global.u32 %wcr5, [%wcd{tmp}];");
    let _ = writeln!(s, "cvt.u64.u32 %wcd{}, %wcr5;", Regs::COPY);
    for (t, target) in plan.targets.iter().enumerate() {
        let (base, delta, private) = (regs.base(t), regs.delta(t), regs.private(t));
        let _ = writeln!(s, "ld.param.u64 %wcd{private}, [__wc_priv_{t}];");
        let _ = writeln!(s, "ld.param.u64 %wcd{tmp}, [__wc_stride_{t}];");
        let _ = writeln!(
            s,
            "mad.lo.s64 %wcd{base}, %wcd{}, %wcd{tmp}, %wcd{private};",
            Regs::COPY
        );
        let _ = writeln!(s, "ld.param.u64 %wcd{delta}, [{}];", target.ptx_name);
        let _ = writeln!(s, "sub.s64 %wcd{delta}, %wcd{delta}, %wcd{base};");
        if variant == Variant::Attribution {
            let _ = writeln!(s, "ld.param.u64 %wcd{}, [__wc_wsite_{t}];", regs.wsite(t));
            let _ = writeln!(s, "ld.param.u64 %wcd{}, [__wc_rsite_{t}];", regs.rsite(t));
            let _ = writeln!(s, "ld.param.u64 %wcd{}, [__wc_asite_{t}];", regs.asite(t));
            let _ = writeln!(
                s,
                "ld.param.u64 %wcd{}, [{}];",
                regs.real(t),
                target.ptx_name
            );
        }
    }
    s
}

/// Rewrites a statement list (recursing into nested blocks).
fn rewrite_statements(
    statements: Vec<Statement>,
    plan: &Plan,
    regs: &Regs,
    variant: Variant,
) -> Result<Vec<Statement>, GpuError> {
    let mut out = Vec::with_capacity(statements.len());
    for s in statements {
        match s {
            Statement::Instruction(inst) => match plan.edits.get(&inst.span.start) {
                Some(&edit) => out.extend(edit_instruction(inst, edit, plan, regs, variant)?),
                None => out.push(Statement::Instruction(inst)),
            },
            Statement::Block(mut b) => {
                let inner = std::mem::take(&mut b.statements);
                b.statements = rewrite_statements(inner, plan, regs, variant)?;
                out.push(Statement::Block(b));
            }
            other => out.push(other),
        }
    }
    Ok(out)
}

/// The statements that replace one edited instruction.
fn edit_instruction(
    mut inst: Instruction,
    edit: Edit,
    plan: &Plan,
    regs: &Regs,
    variant: Variant,
) -> Result<Vec<Statement>, GpuError> {
    let tmp = regs.temp();
    let text = match edit {
        Edit::LoadParam { target } => {
            let dest = register_name(inst.operands.first())
                .ok_or_else(|| GpuError::Internal("`ld.param` without a register".into()))?;
            return guarded(
                &format!("mov.b64 {dest}, %wcd{};", regs.base(target)),
                &inst,
            );
        }
        Edit::Atomic { target, site } => {
            let (_, offset) = address_of(&inst)?;
            let base = address_base(&mut inst)?;
            let mut pre = format!(
                "add.s64 %wcd{tmp}, {}, %wcd{};",
                base.clone(),
                regs.delta(target)
            );
            *base = format!("%wcd{tmp}");
            if variant == Variant::Attribution {
                // The atomic's site and unit at its offset in the real buffer.
                let t2 = regs.temp2();
                let _ = write!(
                    pre,
                    "\nadd.s64 %wcd{t2}, %wcd{tmp}, {offset};\nsub.s64 %wcd{t2}, %wcd{t2}, %wcd{};\n\
                     shl.b64 %wcd{t2}, %wcd{t2}, 3;\nadd.s64 %wcd{t2}, %wcd{t2}, %wcd{};\n\
                     mov.u32 %wcr5, {};\nst.global.v2.u32 [%wcd{t2}], {{%wcr5, %wcr6}};",
                    regs.real(target),
                    regs.asite(target),
                    site + 1
                );
            }
            pre
        }
        Edit::Access { target, site } => {
            if variant == Variant::Plain {
                return Ok(vec![Statement::Instruction(inst)]);
            }
            let (base, offset) = address_of(&inst)?;
            let map = match plan.sites[site].kind {
                crate::analysis::SiteKind::Store => regs.wsite(target),
                crate::analysis::SiteKind::Load => regs.rsite(target),
                crate::analysis::SiteKind::Atomic => regs.asite(target),
            };
            format!(
                "add.s64 %wcd{tmp}, {base}, {offset};\nsub.s64 %wcd{tmp}, %wcd{tmp}, %wcd{};\n\
                 shl.b64 %wcd{tmp}, %wcd{tmp}, 3;\nadd.s64 %wcd{tmp}, %wcd{tmp}, %wcd{map};\n\
                 mov.u32 %wcr5, {};\nst.global.v2.u32 [%wcd{tmp}], {{%wcr5, %wcr6}};",
                regs.private(target),
                site + 1
            )
        }
    };
    let mut code = guarded(&text, &inst)?;
    code.push(Statement::Instruction(inst));
    Ok(code)
}

fn register_name(op: Option<&warpcheck_ptx::ast::Operand>) -> Option<String> {
    match &op?.kind {
        OperandKind::Name { name, .. } => Some(name.value.clone()),
        _ => None,
    }
}

/// The address operand's base register, to replace.
fn address_base(inst: &mut Instruction) -> Result<&mut String, GpuError> {
    inst.operands
        .iter_mut()
        .find_map(|o| match &mut o.kind {
            OperandKind::Address(a) => a.base.as_mut().map(|b| &mut b.value),
            _ => None,
        })
        .ok_or_else(|| GpuError::Internal("an edited access has no address register".into()))
}

fn address_of(inst: &Instruction) -> Result<(String, i64), GpuError> {
    inst.operands
        .iter()
        .find_map(|o| match &o.kind {
            OperandKind::Address(a) => Some((a.base.as_ref()?.value.clone(), a.offset)),
            _ => None,
        })
        .ok_or_else(|| GpuError::Internal("an edited access has no address register".into()))
}

/// Parses instructions and gives each the guard of `like`.
fn guarded(text: &str, like: &Instruction) -> Result<Vec<Statement>, GpuError> {
    let f = parse_snippet("", text)?;
    let mut statements = f.body.map(|b| b.statements).unwrap_or_default();
    for s in &mut statements {
        if let Statement::Instruction(i) = s {
            i.guard = like.guard.clone();
        }
    }
    Ok(statements)
}

/// Parses `params` and `body` as a kernel of a scratch module.
fn parse_snippet(params: &str, body: &str) -> Result<Function, GpuError> {
    let text = format!(
        ".version 7.0\n.target sm_80\n.address_size 64\n.visible .entry __wc_snippet({params})\n{{\n{body}\n}}\n"
    );
    let parsed = warpcheck_ptx::parse(&text);
    if let Some(e) = parsed.errors.first() {
        return Err(GpuError::Internal(format!(
            "instrumentation produced PTX the parser rejects: {e:?}\n{text}"
        )));
    }
    parsed
        .module
        .items
        .into_iter()
        .find_map(|i| match i {
            Item::Function(f) => Some(*f),
            _ => None,
        })
        .ok_or_else(|| GpuError::Internal("instrumentation snippet has no function".into()))
}
