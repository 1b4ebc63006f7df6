//! Comparing syntax trees while ignoring where they came from.
//!
//! Two parses of equivalent text (the input and its printed form) give trees that differ
//! only in their spans. [`erase_spans`] sets every span in a tree to [`Span::DUMMY`], after
//! which `==` compares structure alone. This is the comparison behind the printer's
//! round-trip guarantee (`crate::printer`).

use crate::ast::*;
use crate::span::{Span, Spanned};

/// Sets every span in `module` to [`Span::DUMMY`].
pub fn erase_spans(module: &mut Module) {
    module.erase();
}

/// A copy of `module` with every span set to [`Span::DUMMY`].
pub fn without_spans(module: &Module) -> Module {
    let mut copy = module.clone();
    copy.erase();
    copy
}

trait Erase {
    fn erase(&mut self);
}

impl Erase for Span {
    fn erase(&mut self) {
        *self = Span::DUMMY;
    }
}

impl<T: EraseValue> Erase for Spanned<T> {
    fn erase(&mut self) {
        self.span = Span::DUMMY;
        self.value.erase_value();
    }
}

/// Values inside a [`Spanned`]: leaves have nothing to erase.
trait EraseValue {
    fn erase_value(&mut self) {}
}

impl EraseValue for String {}
impl EraseValue for u32 {}
impl EraseValue for u64 {}
impl EraseValue for u8 {}
impl EraseValue for Linkage {}
impl EraseValue for StateSpace {}
impl EraseValue for ScalarType {}
impl EraseValue for FunctionKind {}
impl EraseValue for Component {}

impl<T: Erase> Erase for Vec<T> {
    fn erase(&mut self) {
        for item in self {
            item.erase();
        }
    }
}

impl<T: Erase> Erase for Option<T> {
    fn erase(&mut self) {
        if let Some(inner) = self {
            inner.erase();
        }
    }
}

impl<T: Erase> Erase for Box<T> {
    fn erase(&mut self) {
        (**self).erase();
    }
}

impl Erase for Module {
    fn erase(&mut self) {
        self.span.erase();
        self.items.erase();
    }
}

impl Erase for Item {
    fn erase(&mut self) {
        match self {
            Item::Version { span, .. } | Item::AddressSize { span, .. } => span.erase(),
            Item::Target { targets, span } => {
                targets.erase();
                span.erase();
            }
            Item::File(file) => {
                file.path.erase();
                file.extra.erase();
                file.span.erase();
            }
            Item::Variable(decl) => decl.erase(),
            Item::Function(function) => function.erase(),
            Item::Section(section) => section.erase(),
            Item::Pragma { args, span } => {
                args.erase();
                span.erase();
            }
            Item::Alias {
                alias,
                aliasee,
                span,
            } => {
                alias.erase();
                aliasee.erase();
                span.erase();
            }
        }
    }
}

impl Erase for VariableDecl {
    fn erase(&mut self) {
        self.linkage.erase();
        self.space.erase();
        self.attributes.erase();
        self.align.erase();
        self.vector.erase();
        self.ty.erase();
        if let Some(ptr) = &mut self.ptr {
            ptr.space.erase();
            ptr.align.erase();
            ptr.span.erase();
        }
        self.declarators.erase();
        self.span.erase();
    }
}

impl Erase for Declarator {
    fn erase(&mut self) {
        self.name.erase();
        self.range.erase();
        self.init.erase();
        self.span.erase();
    }
}

impl Erase for Initializer {
    fn erase(&mut self) {
        match self {
            Initializer::Expr(e) => e.erase(),
            Initializer::List { items, span } => {
                items.erase();
                span.erase();
            }
        }
    }
}

impl Erase for Expr {
    fn erase(&mut self) {
        self.span.erase();
        match &mut self.kind {
            ExprKind::Int(_) | ExprKind::F32(_) | ExprKind::F64(_) | ExprKind::Name(_) => {}
            ExprKind::Unary(_, inner) => inner.erase(),
            ExprKind::Binary(_, a, b) => {
                a.erase();
                b.erase();
            }
            ExprKind::Call(name, args) => {
                name.erase();
                args.erase();
            }
        }
    }
}

impl Erase for Function {
    fn erase(&mut self) {
        self.linkage.erase();
        self.kind.erase();
        self.attributes.erase();
        self.returns.erase();
        self.name.erase();
        self.params.erase();
        self.directives.erase();
        self.body.erase();
        self.span.erase();
    }
}

impl Erase for FunctionDirective {
    fn erase(&mut self) {
        self.name.erase();
        for arg in &mut self.args {
            match arg {
                DirectiveArg::Expr(e) => e.erase(),
                DirectiveArg::String(s) => s.erase(),
            }
        }
        self.span.erase();
    }
}

impl Erase for Block {
    fn erase(&mut self) {
        self.statements.erase();
        self.span.erase();
    }
}

impl Erase for Statement {
    fn erase(&mut self) {
        match self {
            Statement::Label(label) => label.erase(),
            Statement::Instruction(instruction) => instruction.erase(),
            Statement::Variable(decl) => decl.erase(),
            Statement::Loc(loc) => {
                loc.function_name.erase();
                loc.span.erase();
            }
            Statement::Pragma { args, span } => {
                args.erase();
                span.erase();
            }
            Statement::Block(block) => block.erase(),
            Statement::BranchTargets { targets, span }
            | Statement::CallTargets { targets, span } => {
                targets.erase();
                span.erase();
            }
            Statement::CallPrototype(prototype) => {
                prototype.label.erase();
                prototype.returns.erase();
                prototype.params.erase();
                prototype.attributes.erase();
                prototype.span.erase();
            }
        }
    }
}

impl Erase for Instruction {
    fn erase(&mut self) {
        if let Some(guard) = &mut self.guard {
            guard.predicate.erase();
            guard.span.erase();
        }
        self.opcode.erase();
        self.modifiers.erase();
        self.operands.erase();
        self.span.erase();
    }
}

impl Erase for Operand {
    fn erase(&mut self) {
        self.span.erase();
        match &mut self.kind {
            OperandKind::Name { name, component } => {
                name.erase();
                component.erase();
            }
            OperandKind::Expr(e) => e.erase(),
            OperandKind::Address(address) => {
                address.base.erase();
                address.extra.erase();
                address.span.erase();
            }
            OperandKind::Vector(items) | OperandKind::List(items) => items.erase(),
            OperandKind::Pair(a, b) => {
                a.erase();
                b.erase();
            }
            OperandKind::Not(inner) => inner.erase(),
            OperandKind::Sink => {}
        }
    }
}

impl Erase for Section {
    fn erase(&mut self) {
        self.name.erase();
        for entry in &mut self.entries {
            match entry {
                SectionEntry::Label(label) => label.erase(),
                SectionEntry::Data { ty, values, span } => {
                    ty.erase();
                    values.erase();
                    span.erase();
                }
            }
        }
        self.span.erase();
    }
}
