//! Decoding of one AST instruction into an [`Inst`].
//!
//! 1. The opcode and its leading modifiers select a table entry ([`isa::lookup`]); the
//!    remaining modifiers, after the ones the spelling implies, decode into an [`Op`].
//! 2. Operands resolve by name: registers and variables of the enclosing scopes, special
//!    registers, module variables and functions, labels, `.branchtargets` lists and
//!    `.callprototype`s; constant expressions evaluate to literals or symbol addresses.
//! 3. The resolved operands are matched to the op's signature ([`Op::slots`]): each
//!    operand to the next slot whose class fits it, optional slots being skipped when
//!    needed (a small backtracking search, since `bar.red.popc.u32 d, a, c` omits an
//!    operand in the middle). Omitted optional operands become [`Operand::Absent`].
//! 4. Each operand is checked against its slot (predicates where predicates are needed,
//!    vector widths matching `.v2`/`.v4`), and the guard is resolved.
//!
//! Every failure becomes a [`LowerError`] with the span of the offending text; nothing is
//! dropped silently and nothing panics.

use warpcheck_ptx::Span;
use warpcheck_ptx::ast::{self, OperandKind};

use crate::body::{Binding, BodyLowering};
use crate::entity::{BlockId, EntityRef};
use crate::error::LowerError;
use crate::isa::{self, ModifierError, Op, OpcodeInfo};
use crate::operand::{
    Address, AddressBase, Class, Component, Imm, Operand, Role, Slot, SpecialOperand, SpecialReg,
    Symbol,
};
use crate::program::{Guard, Inst};
use crate::symbols::{self, ConstValue};
use crate::types::Type;

/// `WARP_SZ`, the predefined identifier for the warp size (PTX ISA §4.3.1): a constant 32.
pub(crate) const WARP_SIZE_NAME: &str = "WARP_SZ";

/// The instruction as written, e.g. `ld.global.nc.v4.f32`.
pub(crate) fn instruction_text(instr: &ast::Instruction) -> String {
    let mut s = instr.opcode.value.clone();
    for m in &instr.modifiers {
        s.push('.');
        s.push_str(&m.value);
    }
    s
}

impl Op {
    /// The vector width that `.v2`/`.v4`/`.v8` gives the data operand, if any.
    pub fn vector_width(&self) -> Option<u32> {
        match *self {
            Op::Ld { vec, .. } | Op::Ldu { vec, .. } | Op::St { vec, .. } | Op::Mov { vec, .. } => {
                vec.map(|v| v.lanes())
            }
            Op::Suld { vec, .. } | Op::Sust { vec, .. } => vec.map(|v| v.lanes()),
            Op::Tex { vec, .. } => Some(vec.lanes()),
            _ => None,
        }
    }
}

impl BodyLowering<'_> {
    pub(crate) fn instruction(&mut self, instr: &ast::Instruction) {
        if let Err(e) = self.try_instruction(instr) {
            let mut e = e;
            e.function = Some(self.func_name.to_string());
            self.errors.push(e);
        }
    }

    fn try_instruction(&mut self, instr: &ast::Instruction) -> Result<(), LowerError> {
        let text = instruction_text(instr);
        let mods: Vec<&str> = instr.modifiers.iter().map(|m| m.value.as_str()).collect();
        let opcode = instr.opcode.value.as_str();
        let Some((spelling, consumed)) = isa::lookup(opcode, &mods) else {
            let known = isa::spellings_of(opcode);
            let err = LowerError::new(
                format!(
                    "unsupported instruction `{text}`: `{opcode}` is not in warpcheck's instruction table"
                ),
                instr.opcode.span,
            );
            return Err(if known.is_empty() {
                err
            } else {
                err.with_help(format!(
                    "supported forms start with {}",
                    known
                        .iter()
                        .map(|k| format!("`{k}`"))
                        .collect::<Vec<_>>()
                        .join(", ")
                ))
            });
        };
        let info = spelling.opcode.info();
        let mut tokens: Vec<&str> = spelling.implies.to_vec();
        tokens.extend_from_slice(&mods[consumed..]);
        // The span of token `i` of `tokens`.
        let token_span = |i: usize| -> Span {
            if i < spelling.implies.len() {
                instr.opcode.span
            } else {
                instr
                    .modifiers
                    .get(consumed + i - spelling.implies.len())
                    .map_or(instr.opcode.span, |m| m.span)
            }
        };
        let op = spelling
            .opcode
            .decode_modifiers(&tokens)
            .map_err(|e| modifier_error(e, &text, opcode, info, &tokens, token_span, instr.span))?;

        // Operands.
        let mut resolved = Vec::with_capacity(instr.operands.len());
        let mut first_error = None;
        for o in &instr.operands {
            match self.resolve(o) {
                Ok(r) => resolved.push((r, o.span)),
                Err(e) => {
                    if first_error.is_none() {
                        first_error = Some(e);
                    } else {
                        self.errors.push(e);
                    }
                }
            }
        }
        if let Some(e) = first_error {
            return Err(e);
        }
        let slots = op.slots();
        let Some(assignment) = match_slots(slots, &resolved) else {
            return Err(self.signature_error(&text, info, slots, &resolved, instr.span));
        };
        let mut operands = Vec::with_capacity(slots.len());
        for (slot, assigned) in slots.iter().zip(&assignment) {
            match assigned {
                None => operands.push(Operand::Absent),
                Some(i) => {
                    let (operand, span) = resolved[*i];
                    operands.push(self.check_operand(&op, *slot, operand, span, &text, *i)?);
                }
            }
        }
        let guard = match &instr.guard {
            None => None,
            Some(g) => Some(Guard {
                pred: self.predicate(&g.predicate)?,
                negated: g.negated,
            }),
        };
        let list = self.push_operands(operands);
        self.push_inst(
            Inst {
                op,
                guard,
                operands: list,
            },
            instr.span,
        );
        Ok(())
    }

    fn predicate(&self, name: &ast::Ident) -> Result<crate::entity::Reg, LowerError> {
        match self.lookup(&name.value) {
            Some(Binding::Reg(r)) if self.regs[r].ty == Type::Pred => Ok(r),
            Some(Binding::Reg(r)) => Err(LowerError::new(
                format!(
                    "`{}` is a `.{}` register, not a predicate",
                    name.value, self.regs[r].ty
                ),
                name.span,
            )),
            _ => Err(LowerError::new(
                format!("unknown predicate register `{}`", name.value),
                name.span,
            )),
        }
    }

    /// Resolves an AST operand to an IR operand (shape only; slot checks come later).
    fn resolve(&mut self, o: &ast::Operand) -> Result<Operand, LowerError> {
        match &o.kind {
            OperandKind::Name { name, component } => self.resolve_name(
                name,
                component
                    .as_ref()
                    .map(|c| (Component::from_ast(c.value), c.span)),
            ),
            OperandKind::Expr(e) => self.resolve_expr(e),
            OperandKind::Address(a) => self.resolve_address(a),
            OperandKind::Vector(items) => {
                let mut elems = Vec::with_capacity(items.len());
                for item in items {
                    elems.push(self.resolve(item)?);
                }
                let list = self.push_operands(elems);
                Ok(Operand::Vector(list))
            }
            OperandKind::List(items) => {
                let mut elems = Vec::with_capacity(items.len());
                for item in items {
                    elems.push(self.resolve(item)?);
                }
                let list = self.push_operands(elems);
                Ok(Operand::List(list))
            }
            OperandKind::Pair(a, b) => {
                let first = self.pair_element(a)?;
                let second = self.pair_element(b)?;
                Ok(Operand::Pair(first, second))
            }
            OperandKind::Not(inner) => match self.resolve(inner)? {
                Operand::Reg(r) => Ok(Operand::NegPred(r)),
                _ => Err(LowerError::new(
                    "`!` applies only to a predicate register",
                    o.span,
                )),
            },
            OperandKind::Sink => Ok(Operand::Sink),
        }
    }

    fn pair_element(&mut self, o: &ast::Operand) -> Result<Option<crate::entity::Reg>, LowerError> {
        match self.resolve(o)? {
            Operand::Reg(r) => Ok(Some(r)),
            Operand::Sink => Ok(None),
            _ => Err(LowerError::new(
                "each side of `d|p` must be a register or `_`",
                o.span,
            )),
        }
    }

    fn resolve_name(
        &mut self,
        name: &ast::Ident,
        component: Option<(Component, Span)>,
    ) -> Result<Operand, LowerError> {
        let n = name.value.as_str();
        let no_component = |what: &str| -> Result<(), LowerError> {
            match component {
                Some((c, span)) => Err(LowerError::new(
                    format!("{what} `{n}` has no component `.{}`", c.name()),
                    span,
                )),
                None => Ok(()),
            }
        };
        match self.lookup(n) {
            Some(Binding::Reg(r)) => {
                no_component("register")?;
                return Ok(Operand::Reg(r));
            }
            Some(Binding::VectorReg(first, count)) => {
                return match component {
                    Some((c, span)) if c.index() >= count as usize => Err(LowerError::new(
                        format!(
                            "vector register `{n}` has {count} components; `.{}` is out of range",
                            c.name()
                        ),
                        span,
                    )),
                    Some((c, _)) => Ok(Operand::Reg(crate::entity::Reg::new(
                        first.index() + c.index(),
                    ))),
                    None => {
                        let regs: Vec<Operand> = (0..count as usize)
                            .map(|i| Operand::Reg(crate::entity::Reg::new(first.index() + i)))
                            .collect();
                        Ok(Operand::Vector(self.push_operands(regs)))
                    }
                };
            }
            Some(Binding::Var(v)) => {
                no_component("variable")?;
                return Ok(Operand::SymbolAddress {
                    symbol: Symbol::Var(v),
                    offset: 0,
                });
            }
            Some(Binding::Prototype(p)) => {
                no_component("prototype")?;
                return Ok(Operand::Prototype(p));
            }
            None => {}
        }
        if let Some(reg) = SpecialReg::from_name(n) {
            return match (reg.is_vector(), component) {
                (true, None) => Err(LowerError::new(
                    format!(
                        "special register `{n}` needs a component (`{n}.x`, `{n}.y` or `{n}.z`)"
                    ),
                    name.span,
                )),
                (false, Some((c, span))) => Err(LowerError::new(
                    format!("special register `{n}` has no component `.{}`", c.name()),
                    span,
                )),
                (_, Some((Component::W, span))) => Err(LowerError::new(
                    format!("special register `{n}` has no component `.w`"),
                    span,
                )),
                (_, c) => Ok(Operand::Special(SpecialOperand {
                    reg,
                    component: c.map(|(c, _)| c),
                })),
            };
        }
        if let Some(&symbol) = self.module_symbols.get(n) {
            no_component("symbol")?;
            return Ok(Operand::SymbolAddress { symbol, offset: 0 });
        }
        if let Some(&number) = self.label_numbers.get(n) {
            return Ok(Operand::Label(BlockId::from_u32(number)));
        }
        if let Some(&table) = self.table_numbers.get(n) {
            return Ok(Operand::BranchTable(table));
        }
        if let Some(&list) = self.call_target_numbers.get(n) {
            return Ok(Operand::CallTargets(list));
        }
        if n == WARP_SIZE_NAME {
            no_component("constant")?;
            return Ok(Operand::Imm(Imm::int(32)));
        }
        if n.starts_with('%') {
            Err(
                LowerError::new(format!("unknown register `{n}`"), name.span)
                    .with_help("registers must be declared with `.reg` before use"),
            )
        } else {
            Err(LowerError::new(format!("unknown name `{n}`"), name.span))
        }
    }

    fn resolve_expr(&mut self, e: &ast::Expr) -> Result<Operand, LowerError> {
        let value = {
            let resolve = |n: &str| self.resolve_symbol(n);
            symbols::eval_const(e, &resolve)?
        };
        Ok(match value {
            ConstValue::Int(v) => Operand::Imm(Imm::int(v)),
            ConstValue::F32(b) => Operand::Imm(Imm::f32_bits(b)),
            ConstValue::F64(b) => Operand::Imm(Imm::f64_bits(b)),
            ConstValue::Address { symbol, addend, .. } => Operand::SymbolAddress {
                symbol,
                offset: addend,
            },
        })
    }

    fn resolve_address(&mut self, a: &ast::Address) -> Result<Operand, LowerError> {
        let base = match &a.base {
            None => AddressBase::Absolute,
            Some(name) => match self.lookup(&name.value) {
                Some(Binding::Reg(r)) => AddressBase::Reg(r),
                Some(Binding::Var(v)) => AddressBase::Var(v),
                Some(Binding::VectorReg(..)) => {
                    return Err(LowerError::new(
                        format!("vector register `{}` cannot be an address", name.value),
                        name.span,
                    ));
                }
                Some(Binding::Prototype(_)) => {
                    return Err(LowerError::new(
                        format!("prototype `{}` cannot be an address", name.value),
                        name.span,
                    ));
                }
                None => match self.module_symbols.get(&name.value) {
                    Some(Symbol::Var(v)) => AddressBase::Var(*v),
                    Some(Symbol::Func(_)) => {
                        return Err(LowerError::new(
                            format!("function `{}` cannot be addressed as memory", name.value),
                            name.span,
                        ));
                    }
                    None if name.value.starts_with('%') => {
                        return Err(LowerError::new(
                            format!("unknown register `{}`", name.value),
                            name.span,
                        ));
                    }
                    None => {
                        return Err(LowerError::new(
                            format!("unknown variable `{}`", name.value),
                            name.span,
                        ));
                    }
                },
            },
        };
        if a.extra.is_empty() {
            return Ok(Operand::Address(Address {
                base,
                offset: a.offset,
            }));
        }
        // `[tex, {coords}]`: a texture/surface handle and coordinates.
        let handle = match base {
            AddressBase::Reg(r) => Operand::Reg(r),
            AddressBase::Var(v) => Operand::SymbolAddress {
                symbol: Symbol::Var(v),
                offset: 0,
            },
            AddressBase::Absolute => {
                return Err(LowerError::new(
                    "a texture reference needs a handle",
                    a.span,
                ));
            }
        };
        if a.offset != 0 {
            return Err(LowerError::new(
                "a texture reference takes no offset",
                a.span,
            ));
        }
        let mut parts = vec![handle];
        for extra in &a.extra {
            parts.push(self.resolve(extra)?);
        }
        Ok(Operand::Image(self.push_operands(parts)))
    }

    /// Checks one operand against its slot and normalises it (a direct call target
    /// becomes [`Operand::Func`]).
    fn check_operand(
        &self,
        op: &Op,
        slot: Slot,
        operand: Operand,
        span: Span,
        text: &str,
        index: usize,
    ) -> Result<Operand, LowerError> {
        let is_pred = |r: crate::entity::Reg| self.regs.get(r).is_some_and(|i| i.ty == Type::Pred);
        let fail = |what: &str| {
            LowerError::new(
                format!(
                    "operand {} of `{text}` must be {}, found {what}",
                    index + 1,
                    slot.class.describe()
                ),
                span,
            )
        };
        let describe = |o: &Operand| describe_operand(o);
        match (slot.class, operand) {
            (Class::Pred, Operand::Reg(r)) | (Class::Pred, Operand::NegPred(r)) if !is_pred(r) => {
                Err(fail(&format!(
                    "the `.{}` register `{}`",
                    self.regs[r].ty, self.regs[r].name
                )))
            }
            (Class::Pred, Operand::NegPred(_)) if slot.role == Role::Def => {
                Err(fail("a negated predicate"))
            }
            (Class::PredPair, Operand::Reg(r)) if !is_pred(r) => Err(fail(&format!(
                "the `.{}` register `{}`",
                self.regs[r].ty, self.regs[r].name
            ))),
            (Class::PredPair, Operand::Pair(a, b)) => {
                for r in [a, b].into_iter().flatten() {
                    if !is_pred(r) {
                        return Err(fail(&format!(
                            "the `.{}` register `{}`",
                            self.regs[r].ty, self.regs[r].name
                        )));
                    }
                }
                Ok(operand)
            }
            (Class::RegPredPair, Operand::Pair(_, Some(p))) if !is_pred(p) => Err(fail(&format!(
                "the `.{}` register `{}` after `|`",
                self.regs[p].ty, self.regs[p].name
            ))),
            (
                Class::CallTarget,
                Operand::SymbolAddress {
                    symbol: Symbol::Func(f),
                    offset: 0,
                },
            ) => Ok(Operand::Func(f)),
            (Class::CallTarget, Operand::SymbolAddress { .. }) => Err(fail("a variable")),
            (Class::Data, Operand::Vector(list)) => {
                let elems = self.operands.get(list.range()).unwrap_or(&[]);
                match op.vector_width() {
                    Some(w) if w as usize != elems.len() => {
                        return Err(LowerError::new(
                            format!(
                                "`{text}` needs a vector of {w} elements, found {}",
                                elems.len()
                            ),
                            span,
                        ));
                    }
                    None if !matches!(op, Op::Mov { .. }) => {
                        return Err(LowerError::new(
                            format!(
                                "`{text}` takes a scalar here; add `.v{}` for a vector",
                                elems.len()
                            ),
                            span,
                        ));
                    }
                    _ => {}
                }
                for e in elems {
                    let ok = matches!(
                        (slot.role, e),
                        (_, Operand::Reg(_) | Operand::Sink) | (Role::Use, Operand::Imm(_))
                    );
                    if !ok {
                        return Err(fail(&format!("a vector containing {}", describe(e))));
                    }
                }
                Ok(operand)
            }
            (Class::Fragment, Operand::Vector(list)) => {
                for e in self.operands.get(list.range()).unwrap_or(&[]) {
                    if !matches!(e, Operand::Reg(_)) {
                        return Err(fail(&format!("a vector containing {}", describe(e))));
                    }
                }
                Ok(operand)
            }
            (Class::Data, _) if op.vector_width().is_some_and(|w| w > 1) => Err(LowerError::new(
                format!(
                    "`{text}` needs a vector `{{...}}` of {} elements",
                    op.vector_width().unwrap_or(0)
                ),
                span,
            )),
            (Class::ParamList, Operand::List(list)) => {
                for e in self.operands.get(list.range()).unwrap_or(&[]) {
                    let ok = matches!(
                        e,
                        Operand::Reg(_)
                            | Operand::Imm(_)
                            | Operand::SymbolAddress {
                                symbol: Symbol::Var(_),
                                offset: 0
                            }
                    );
                    if !ok {
                        return Err(fail(&format!("a list containing {}", describe(e))));
                    }
                }
                Ok(operand)
            }
            (Class::Imm, Operand::Imm(_)) => Ok(operand),
            (_, o) if fits(slot, &o) => Ok(operand),
            (_, o) => Err(fail(&describe(&o))),
        }
    }

    fn signature_error(
        &self,
        text: &str,
        info: &OpcodeInfo,
        slots: &[Slot],
        resolved: &[(Operand, Span)],
        span: Span,
    ) -> LowerError {
        let required = slots.iter().filter(|s| !s.optional).count();
        let expected: Vec<&str> = slots.iter().map(|s| s.class.describe()).collect();
        // Point at the first operand that fits no slot in its position, if any.
        for (i, (o, ospan)) in resolved.iter().enumerate() {
            if let Some(slot) = slots.get(i)
                && !fits(*slot, o)
                && resolved.len() <= slots.len()
            {
                return LowerError::new(
                    format!(
                        "operand {} of `{text}` must be {}, found {}",
                        i + 1,
                        slot.class.describe(),
                        describe_operand(o)
                    ),
                    *ospan,
                );
            }
        }
        let count = if required == slots.len() {
            format!("{required}")
        } else {
            format!("{required} to {}", slots.len())
        };
        LowerError::new(
            format!(
                "`{text}` takes {count} operands ({}), found {} (PTX ISA {})",
                expected.join(", "),
                resolved.len(),
                info.sections()
            ),
            span,
        )
    }
}

/// Whether an operand has the shape a slot accepts (used to place operands in slots).
fn fits(slot: Slot, o: &Operand) -> bool {
    use Operand as O;
    let def = slot.role == Role::Def;
    match slot.class {
        Class::Reg => matches!(o, O::Reg(_)) || (def && matches!(o, O::Sink)),
        Class::Value => {
            !def && matches!(
                o,
                O::Reg(_) | O::Imm(_) | O::Special(_) | O::SymbolAddress { .. }
            )
        }
        Class::Pred => {
            matches!(o, O::Reg(_))
                || if def {
                    matches!(o, O::Sink)
                } else {
                    matches!(o, O::NegPred(_))
                }
        }
        Class::PredPair => matches!(o, O::Reg(_) | O::Pair(..)) || (def && matches!(o, O::Sink)),
        Class::RegPredPair => matches!(o, O::Reg(_) | O::Pair(..)),
        Class::Address => matches!(o, O::Address(_)),
        Class::Data => {
            matches!(o, O::Reg(_) | O::Vector(_))
                || if def {
                    matches!(o, O::Sink)
                } else {
                    matches!(o, O::Imm(_) | O::Special(_) | O::SymbolAddress { .. })
                }
        }
        Class::Label => matches!(o, O::Label(_)),
        Class::BranchTable => matches!(o, O::BranchTable(_)),
        Class::CallTarget => matches!(
            o,
            O::Reg(_)
                | O::SymbolAddress {
                    symbol: Symbol::Func(_),
                    ..
                }
        ),
        Class::ParamList => matches!(o, O::List(_)),
        Class::Prototype => matches!(o, O::Prototype(_) | O::CallTargets(_)),
        Class::Imm => matches!(o, O::Imm(_)),
        Class::Image => matches!(o, O::Image(_)),
        Class::Fragment => matches!(o, O::Vector(_)),
    }
}

/// Assigns operands to slots in order, skipping optional slots where needed. Returns, for
/// each slot, the index of its operand (or `None` if omitted).
fn match_slots(slots: &[Slot], ops: &[(Operand, Span)]) -> Option<Vec<Option<usize>>> {
    fn go(
        slots: &[Slot],
        ops: &[(Operand, Span)],
        si: usize,
        oi: usize,
        out: &mut Vec<Option<usize>>,
    ) -> bool {
        if si == slots.len() {
            return oi == ops.len();
        }
        let slot = slots[si];
        if oi < ops.len() && fits(slot, &ops[oi].0) {
            out.push(Some(oi));
            if go(slots, ops, si + 1, oi + 1, out) {
                return true;
            }
            out.pop();
        }
        if slot.optional {
            out.push(None);
            if go(slots, ops, si + 1, oi, out) {
                return true;
            }
            out.pop();
        }
        false
    }
    let mut out = Vec::with_capacity(slots.len());
    go(slots, ops, 0, 0, &mut out).then_some(out)
}

fn describe_operand(o: &Operand) -> String {
    match o {
        Operand::Reg(_) => "a register".into(),
        Operand::NegPred(_) => "a negated predicate".into(),
        Operand::Pair(..) => "a pair `d|p`".into(),
        Operand::Imm(_) => "a literal".into(),
        Operand::Special(s) => format!("the special register `{s}`"),
        Operand::SymbolAddress {
            symbol: Symbol::Func(_),
            ..
        } => "a function".into(),
        Operand::SymbolAddress { .. } => "a variable".into(),
        Operand::Address(_) => "an address".into(),
        Operand::Vector(_) => "a vector".into(),
        Operand::List(_) => "a parameter list".into(),
        Operand::Image(_) => "a texture reference".into(),
        Operand::Label(_) => "a label".into(),
        Operand::BranchTable(_) => "a `.branchtargets` label".into(),
        Operand::Prototype(_) => "a prototype".into(),
        Operand::CallTargets(_) => "a `.calltargets` list".into(),
        Operand::Func(_) => "a function".into(),
        Operand::Sink => "`_`".into(),
        Operand::Absent => "nothing".into(),
    }
}

fn modifier_error(
    e: ModifierError,
    text: &str,
    opcode: &str,
    info: &OpcodeInfo,
    tokens: &[&str],
    token_span: impl Fn(usize) -> Span,
    instr_span: Span,
) -> LowerError {
    let sections = info.sections();
    match e {
        ModifierError::Unsupported { position } => LowerError::new(
            format!(
                "unsupported instruction `{text}`: modifier `.{}` is not supported for `{opcode}` (PTX ISA {sections})",
                tokens.get(position).copied().unwrap_or("?")
            ),
            token_span(position),
        ),
        ModifierError::Conflict { position, previous } => LowerError::new(
            format!(
                "unsupported instruction `{text}`: modifier `.{}` conflicts with `.{previous}` (PTX ISA {sections})",
                tokens.get(position).copied().unwrap_or("?")
            ),
            token_span(position),
        ),
        ModifierError::Missing { what, expected } => {
            let article = if what.starts_with(['a', 'e', 'i', 'o', 'u']) {
                "an"
            } else {
                "a"
            };
            let err = LowerError::new(
                format!(
                    "unsupported instruction `{text}`: `{opcode}` needs {article} {what} (PTX ISA {sections})"
                ),
                instr_span,
            );
            if expected.is_empty() {
                err
            } else {
                err.with_help(format!(
                    "add one of {}",
                    expected
                        .iter()
                        .map(|s| format!("`.{s}`"))
                        .collect::<Vec<_>>()
                        .join(" ")
                ))
            }
        }
        ModifierError::Combination(message) => LowerError::new(
            format!("unsupported instruction `{text}`: {message} (PTX ISA {sections})"),
            instr_span,
        ),
    }
}
