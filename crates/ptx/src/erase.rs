//! Visiting every span of a tree, and comparing trees while ignoring their spans.
//!
//! Two parses of equivalent text (the input and its printed form) give trees that differ
//! only in their spans. [`erase_spans`] sets every span in a tree to [`Span::DUMMY`], after
//! which `==` compares structure alone. This is the comparison behind the printer's
//! round-trip guarantee (`crate::printer`). [`for_each_span_mut`] is the visitor both are
//! built on; the fuzz tests use it to check that every span lies inside the input.

use crate::ast::*;
use crate::span::{Span, Spanned};

/// Sets every span in `module` to [`Span::DUMMY`].
pub fn erase_spans(module: &mut Module) {
    for_each_span_mut(module, |span| *span = Span::DUMMY);
}

/// A copy of `module` with every span set to [`Span::DUMMY`].
pub fn without_spans(module: &Module) -> Module {
    let mut copy = module.clone();
    erase_spans(&mut copy);
    copy
}

/// Calls `visit` on every span in `module`: the module's, every node's and every token's.
pub fn for_each_span_mut(module: &mut Module, mut visit: impl FnMut(&mut Span)) {
    let mut visitor = Visitor { visit: &mut visit };
    module.visit_spans(&mut visitor);
}

/// The span callback, passed down the tree.
struct Visitor<'a> {
    visit: &'a mut dyn FnMut(&mut Span),
}

trait VisitSpans {
    fn visit_spans(&mut self, v: &mut Visitor<'_>);
}

impl VisitSpans for Span {
    fn visit_spans(&mut self, v: &mut Visitor<'_>) {
        (v.visit)(self);
    }
}

impl<T: SpanFree> VisitSpans for Spanned<T> {
    fn visit_spans(&mut self, v: &mut Visitor<'_>) {
        (v.visit)(&mut self.span);
        self.value.no_spans();
    }
}

/// Values inside a [`Spanned`] that hold no further spans.
trait SpanFree {
    fn no_spans(&mut self) {}
}

impl SpanFree for String {}
impl SpanFree for u32 {}
impl SpanFree for u64 {}
impl SpanFree for u8 {}
impl SpanFree for Linkage {}
impl SpanFree for StateSpace {}
impl SpanFree for ScalarType {}
impl SpanFree for FunctionKind {}
impl SpanFree for Component {}

impl<T: VisitSpans> VisitSpans for Vec<T> {
    fn visit_spans(&mut self, v: &mut Visitor<'_>) {
        for item in self {
            item.visit_spans(v);
        }
    }
}

impl<T: VisitSpans> VisitSpans for Option<T> {
    fn visit_spans(&mut self, v: &mut Visitor<'_>) {
        if let Some(inner) = self {
            inner.visit_spans(v);
        }
    }
}

impl<T: VisitSpans> VisitSpans for Box<T> {
    fn visit_spans(&mut self, v: &mut Visitor<'_>) {
        (**self).visit_spans(v);
    }
}

impl VisitSpans for Module {
    fn visit_spans(&mut self, v: &mut Visitor<'_>) {
        self.span.visit_spans(v);
        self.items.visit_spans(v);
    }
}

impl VisitSpans for Item {
    fn visit_spans(&mut self, v: &mut Visitor<'_>) {
        match self {
            Item::Version { span, .. } | Item::AddressSize { span, .. } => span.visit_spans(v),
            Item::Target { targets, span } => {
                targets.visit_spans(v);
                span.visit_spans(v);
            }
            Item::File(file) => {
                file.path.visit_spans(v);
                file.extra.visit_spans(v);
                file.span.visit_spans(v);
            }
            Item::Variable(decl) => decl.visit_spans(v),
            Item::Function(function) => function.visit_spans(v),
            Item::Section(section) => section.visit_spans(v),
            Item::Pragma { args, span } => {
                args.visit_spans(v);
                span.visit_spans(v);
            }
            Item::Alias {
                alias,
                aliasee,
                span,
            } => {
                alias.visit_spans(v);
                aliasee.visit_spans(v);
                span.visit_spans(v);
            }
        }
    }
}

impl VisitSpans for VariableDecl {
    fn visit_spans(&mut self, v: &mut Visitor<'_>) {
        self.linkage.visit_spans(v);
        self.space.visit_spans(v);
        self.attributes.visit_spans(v);
        self.align.visit_spans(v);
        self.vector.visit_spans(v);
        self.ty.visit_spans(v);
        if let Some(ptr) = &mut self.ptr {
            ptr.space.visit_spans(v);
            ptr.align.visit_spans(v);
            ptr.span.visit_spans(v);
        }
        self.declarators.visit_spans(v);
        self.span.visit_spans(v);
    }
}

impl VisitSpans for Declarator {
    fn visit_spans(&mut self, v: &mut Visitor<'_>) {
        self.name.visit_spans(v);
        self.range.visit_spans(v);
        self.init.visit_spans(v);
        self.span.visit_spans(v);
    }
}

impl VisitSpans for Initializer {
    fn visit_spans(&mut self, v: &mut Visitor<'_>) {
        match self {
            Initializer::Expr(e) => e.visit_spans(v),
            Initializer::List { items, span } => {
                items.visit_spans(v);
                span.visit_spans(v);
            }
        }
    }
}

impl VisitSpans for Expr {
    fn visit_spans(&mut self, v: &mut Visitor<'_>) {
        self.span.visit_spans(v);
        match &mut self.kind {
            ExprKind::Int(_) | ExprKind::F32(_) | ExprKind::F64(_) | ExprKind::Name(_) => {}
            ExprKind::Unary(_, inner) => inner.visit_spans(v),
            ExprKind::Binary(_, a, b) => {
                a.visit_spans(v);
                b.visit_spans(v);
            }
            ExprKind::Call(name, args) => {
                name.visit_spans(v);
                args.visit_spans(v);
            }
        }
    }
}

impl VisitSpans for Function {
    fn visit_spans(&mut self, v: &mut Visitor<'_>) {
        self.linkage.visit_spans(v);
        self.kind.visit_spans(v);
        self.attributes.visit_spans(v);
        self.returns.visit_spans(v);
        self.name.visit_spans(v);
        self.params.visit_spans(v);
        self.directives.visit_spans(v);
        self.body.visit_spans(v);
        self.span.visit_spans(v);
    }
}

impl VisitSpans for FunctionDirective {
    fn visit_spans(&mut self, v: &mut Visitor<'_>) {
        self.name.visit_spans(v);
        for arg in &mut self.args {
            match arg {
                DirectiveArg::Expr(e) => e.visit_spans(v),
                DirectiveArg::String(s) => s.visit_spans(v),
            }
        }
        self.span.visit_spans(v);
    }
}

impl VisitSpans for Block {
    fn visit_spans(&mut self, v: &mut Visitor<'_>) {
        self.statements.visit_spans(v);
        self.span.visit_spans(v);
    }
}

impl VisitSpans for Statement {
    fn visit_spans(&mut self, v: &mut Visitor<'_>) {
        match self {
            Statement::Label(label) => label.visit_spans(v),
            Statement::Instruction(instruction) => instruction.visit_spans(v),
            Statement::Variable(decl) => decl.visit_spans(v),
            Statement::Loc(loc) => {
                loc.function_name.visit_spans(v);
                loc.span.visit_spans(v);
            }
            Statement::Pragma { args, span } => {
                args.visit_spans(v);
                span.visit_spans(v);
            }
            Statement::Block(block) => block.visit_spans(v),
            Statement::BranchTargets { targets, span }
            | Statement::CallTargets { targets, span } => {
                targets.visit_spans(v);
                span.visit_spans(v);
            }
            Statement::CallPrototype(prototype) => {
                prototype.label.visit_spans(v);
                prototype.returns.visit_spans(v);
                prototype.params.visit_spans(v);
                prototype.attributes.visit_spans(v);
                prototype.span.visit_spans(v);
            }
        }
    }
}

impl VisitSpans for Instruction {
    fn visit_spans(&mut self, v: &mut Visitor<'_>) {
        if let Some(guard) = &mut self.guard {
            guard.predicate.visit_spans(v);
            guard.span.visit_spans(v);
        }
        self.opcode.visit_spans(v);
        self.modifiers.visit_spans(v);
        self.operands.visit_spans(v);
        self.span.visit_spans(v);
    }
}

impl VisitSpans for Operand {
    fn visit_spans(&mut self, v: &mut Visitor<'_>) {
        self.span.visit_spans(v);
        match &mut self.kind {
            OperandKind::Name { name, component } => {
                name.visit_spans(v);
                component.visit_spans(v);
            }
            OperandKind::Expr(e) => e.visit_spans(v),
            OperandKind::Address(address) => {
                address.base.visit_spans(v);
                address.extra.visit_spans(v);
                address.span.visit_spans(v);
            }
            OperandKind::Vector(items) | OperandKind::List(items) => items.visit_spans(v),
            OperandKind::Pair(a, b) => {
                a.visit_spans(v);
                b.visit_spans(v);
            }
            OperandKind::Not(inner) => inner.visit_spans(v),
            OperandKind::Sink => {}
        }
    }
}

impl VisitSpans for Section {
    fn visit_spans(&mut self, v: &mut Visitor<'_>) {
        self.name.visit_spans(v);
        for entry in &mut self.entries {
            match entry {
                SectionEntry::Label(label) => label.visit_spans(v),
                SectionEntry::Data { ty, values, span } => {
                    ty.visit_spans(v);
                    values.visit_spans(v);
                    span.visit_spans(v);
                }
            }
        }
        self.span.visit_spans(v);
    }
}
