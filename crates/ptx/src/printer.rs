//! The PTX printer: a [`Module`] back to PTX text.
//!
//! The output is valid PTX in the layout clang emits (directives at column 0, statements
//! indented by one tab per block level, labels at column 0). It is canonical rather than a
//! copy of the input: comments are gone, numbers are printed in one spelling (integers in
//! decimal, floats as `0f`/`0d` bit patterns, so no precision is lost) and declaration
//! modifiers in one order. The property the tests check is
//!
//! ```text
//! erase_spans(parse(print(m))) == erase_spans(m)    for every m = parse(x).module
//! ```
//!
//! i.e. printing loses nothing the tree holds. Spans of the reparsed tree point into the
//! printed text, so the comparison ignores them (see [`crate::erase_spans`]).

use std::fmt::{self, Write};

use crate::ast::*;

/// Prints a module as PTX text.
pub fn print(module: &Module) -> String {
    module.to_string()
}

impl fmt::Display for Module {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut previous_was_header = false;
        for item in &self.items {
            let is_header = matches!(
                item,
                Item::Version { .. } | Item::Target { .. } | Item::AddressSize { .. }
            );
            // A blank line between groups keeps the output readable; it has no meaning.
            if previous_was_header && !is_header {
                f.write_char('\n')?;
            }
            previous_was_header = is_header;
            write_item(f, item)?;
        }
        Ok(())
    }
}

fn write_item(f: &mut fmt::Formatter<'_>, item: &Item) -> fmt::Result {
    match item {
        Item::Version { major, minor, .. } => writeln!(f, ".version {major}.{minor}"),
        Item::Target { targets, .. } => {
            f.write_str(".target ")?;
            write_separated(f, targets, ", ", |f, t| f.write_str(&t.value))?;
            f.write_char('\n')
        }
        Item::AddressSize { bits, .. } => writeln!(f, ".address_size {bits}"),
        Item::File(file) => {
            write!(f, ".file {} ", file.index)?;
            write_string(f, &file.path.value)?;
            for extra in &file.extra {
                write!(f, ", {}", extra.value)?;
            }
            f.write_char('\n')
        }
        Item::Variable(decl) => {
            write_variable_decl(f, decl)?;
            f.write_str(";\n")
        }
        Item::Function(function) => write_function(f, function),
        Item::Section(section) => write_section(f, section),
        Item::Pragma { args, .. } => {
            write_pragma(f, args)?;
            f.write_char('\n')
        }
        Item::Alias { alias, aliasee, .. } => {
            writeln!(f, ".alias {}, {};", alias.value, aliasee.value)
        }
    }
}

fn write_separated<T>(
    f: &mut fmt::Formatter<'_>,
    items: &[T],
    separator: &str,
    mut write_one: impl FnMut(&mut fmt::Formatter<'_>, &T) -> fmt::Result,
) -> fmt::Result {
    for (i, item) in items.iter().enumerate() {
        if i > 0 {
            f.write_str(separator)?;
        }
        write_one(f, item)?;
    }
    Ok(())
}

/// Writes a string literal, escaping what the lexer would otherwise misread.
fn write_string(f: &mut fmt::Formatter<'_>, value: &str) -> fmt::Result {
    f.write_char('"')?;
    for c in value.chars() {
        match c {
            '"' => f.write_str("\\\"")?,
            '\\' => f.write_str("\\\\")?,
            '\n' => f.write_str("\\n")?,
            '\t' => f.write_str("\\t")?,
            '\r' => f.write_str("\\r")?,
            c if (c as u32) < 0x20 || c == '\x7f' => write!(f, "\\{:03o}", c as u32)?,
            c => f.write_char(c)?,
        }
    }
    f.write_char('"')
}

fn write_pragma(f: &mut fmt::Formatter<'_>, args: &[crate::span::Spanned<String>]) -> fmt::Result {
    f.write_str(".pragma ")?;
    write_separated(f, args, ", ", |f, a| write_string(f, &a.value))?;
    f.write_char(';')
}

fn write_variable_decl(f: &mut fmt::Formatter<'_>, decl: &VariableDecl) -> fmt::Result {
    for linkage in &decl.linkage {
        write!(f, ".{} ", linkage.value.name())?;
    }
    write!(f, ".{}", decl.space.value.name())?;
    for attribute in &decl.attributes {
        write!(f, " .attribute(.{})", attribute.value)?;
    }
    if let Some(align) = &decl.align {
        write!(f, " .align {}", align.value)?;
    }
    if let Some(vector) = &decl.vector {
        write!(f, " .v{}", vector.value)?;
    }
    write!(f, " .{}", decl.ty.value.name())?;
    if let Some(ptr) = &decl.ptr {
        f.write_str(" .ptr")?;
        if let Some(space) = &ptr.space {
            write!(f, " .{}", space.value.name())?;
        }
        if let Some(align) = &ptr.align {
            write!(f, " .align {}", align.value)?;
        }
    }
    f.write_char(' ')?;
    write_separated(f, &decl.declarators, ", ", write_declarator)
}

fn write_declarator(f: &mut fmt::Formatter<'_>, declarator: &Declarator) -> fmt::Result {
    f.write_str(&declarator.name.value)?;
    if let Some(range) = &declarator.range {
        write!(f, "<{}>", range.value)?;
    }
    for dim in &declarator.dims {
        match dim {
            Some(n) => write!(f, "[{n}]")?,
            None => f.write_str("[]")?,
        }
    }
    if let Some(init) = &declarator.init {
        f.write_str(" = ")?;
        write_initializer(f, init)?;
    }
    Ok(())
}

fn write_initializer(f: &mut fmt::Formatter<'_>, init: &Initializer) -> fmt::Result {
    match init {
        Initializer::Expr(e) => write!(f, "{e}"),
        Initializer::List { items, .. } => {
            f.write_char('{')?;
            write_separated(f, items, ", ", write_initializer)?;
            f.write_char('}')
        }
    }
}

fn write_param_list(
    f: &mut fmt::Formatter<'_>,
    params: &[VariableDecl],
    multiline: bool,
) -> fmt::Result {
    f.write_char('(')?;
    if multiline && !params.is_empty() {
        f.write_str("\n\t")?;
        write_separated(f, params, ",\n\t", write_variable_decl)?;
        f.write_char('\n')?;
    } else {
        write_separated(f, params, ", ", write_variable_decl)?;
    }
    f.write_char(')')
}

fn write_function(f: &mut fmt::Formatter<'_>, function: &Function) -> fmt::Result {
    for linkage in &function.linkage {
        write!(f, ".{} ", linkage.value.name())?;
    }
    f.write_str(match function.kind.value {
        FunctionKind::Entry => ".entry ",
        FunctionKind::Func => ".func ",
    })?;
    if !function.returns.is_empty() {
        write_param_list(f, &function.returns, false)?;
        f.write_char(' ')?;
    }
    f.write_str(&function.name.value)?;
    write_param_list(f, &function.params, true)?;
    for attribute in &function.attributes {
        write!(f, " .{}", attribute.value)?;
    }
    f.write_char('\n')?;
    for directive in &function.directives {
        write!(f, ".{}", directive.name.value)?;
        for (i, arg) in directive.args.iter().enumerate() {
            f.write_str(if i == 0 { " " } else { ", " })?;
            match arg {
                DirectiveArg::Expr(e) => write!(f, "{e}")?,
                DirectiveArg::String(s) => write_string(f, &s.value)?,
            }
        }
        f.write_char('\n')?;
    }
    match &function.body {
        Some(body) => {
            write_block(f, body, 0)?;
            f.write_str("\n\n")
        }
        None => f.write_str(";\n\n"),
    }
}

fn indent(f: &mut fmt::Formatter<'_>, level: usize) -> fmt::Result {
    for _ in 0..level {
        f.write_char('\t')?;
    }
    Ok(())
}

/// Writes `{ … }` whose braces sit at `level` tabs and whose statements at `level + 1`.
fn write_block(f: &mut fmt::Formatter<'_>, block: &Block, level: usize) -> fmt::Result {
    indent(f, level)?;
    f.write_str("{\n")?;
    for statement in &block.statements {
        write_statement(f, statement, level + 1)?;
    }
    indent(f, level)?;
    f.write_char('}')
}

fn write_statement(f: &mut fmt::Formatter<'_>, statement: &Statement, level: usize) -> fmt::Result {
    match statement {
        Statement::Label(label) => return writeln!(f, "{}:", label.value),
        Statement::Block(block) => write_block(f, block, level)?,
        _ => {
            indent(f, level)?;
            match statement {
                Statement::Instruction(instruction) => write!(f, "{instruction}")?,
                Statement::Variable(decl) => {
                    write_variable_decl(f, decl)?;
                    f.write_char(';')?;
                }
                Statement::Loc(loc) => write_loc(f, loc)?,
                Statement::Pragma { args, .. } => write_pragma(f, args)?,
                Statement::BranchTargets { targets, .. }
                | Statement::CallTargets { targets, .. } => {
                    f.write_str(if matches!(statement, Statement::BranchTargets { .. }) {
                        ".branchtargets "
                    } else {
                        ".calltargets "
                    })?;
                    write_separated(f, targets, ", ", |f, t| f.write_str(&t.value))?;
                    f.write_char(';')?;
                }
                Statement::CallPrototype(prototype) => {
                    write!(f, "{} : .callprototype ", prototype.label.value)?;
                    write_param_list(f, &prototype.returns, false)?;
                    f.write_str(" _ ")?;
                    write_param_list(f, &prototype.params, false)?;
                    for attribute in &prototype.attributes {
                        write!(f, " .{}", attribute.value)?;
                    }
                    f.write_char(';')?;
                }
                Statement::Label(_) | Statement::Block(_) => {}
            }
        }
    }
    f.write_char('\n')
}

fn write_loc(f: &mut fmt::Formatter<'_>, loc: &Loc) -> fmt::Result {
    write!(f, ".loc {} {} {}", loc.file, loc.line, loc.column)?;
    if let Some(name) = &loc.function_name {
        write!(f, ", function_name {}", name.value)?;
        if loc.function_name_offset != 0 {
            write!(f, "+{}", loc.function_name_offset)?;
        }
    }
    if let Some((file, line, column)) = loc.inlined_at {
        write!(f, ", inlined_at {file} {line} {column}")?;
    }
    Ok(())
}

fn write_section(f: &mut fmt::Formatter<'_>, section: &Section) -> fmt::Result {
    writeln!(f, ".section {}\n{{", section.name.value)?;
    for entry in &section.entries {
        match entry {
            SectionEntry::Label(label) => writeln!(f, "{}:", label.value)?,
            SectionEntry::Data { ty, values, .. } => {
                write!(f, "\t.{} ", ty.value.name())?;
                write_separated(f, values, ", ", |f, v| write!(f, "{v}"))?;
                f.write_char('\n')?;
            }
        }
    }
    f.write_str("}\n")
}

impl fmt::Display for Instruction {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if let Some(guard) = &self.guard {
            write!(
                f,
                "@{}{} ",
                if guard.negated { "!" } else { "" },
                guard.predicate.value
            )?;
        }
        f.write_str(&self.opcode.value)?;
        for modifier in &self.modifiers {
            write!(f, ".{}", modifier.value)?;
        }
        for (i, operand) in self.operands.iter().enumerate() {
            f.write_str(if i == 0 { "\t" } else { ", " })?;
            write!(f, "{operand}")?;
        }
        f.write_char(';')
    }
}

impl fmt::Display for Operand {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.kind {
            OperandKind::Name { name, component } => {
                f.write_str(&name.value)?;
                if let Some(component) = component {
                    write!(f, ".{}", component.value.name())?;
                }
                Ok(())
            }
            OperandKind::Expr(e) => write!(f, "{e}"),
            OperandKind::Address(address) => write!(f, "{address}"),
            OperandKind::Vector(items) => {
                f.write_char('{')?;
                write_separated(f, items, ", ", |f, o| write!(f, "{o}"))?;
                f.write_char('}')
            }
            OperandKind::Pair(a, b) => write!(f, "{a}|{b}"),
            OperandKind::Not(inner) => write!(f, "!{inner}"),
            OperandKind::Sink => f.write_char('_'),
            OperandKind::List(items) => {
                f.write_char('(')?;
                write_separated(f, items, ", ", |f, o| write!(f, "{o}"))?;
                f.write_char(')')
            }
        }
    }
}

impl fmt::Display for Address {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_char('[')?;
        match &self.base {
            Some(base) => {
                f.write_str(&base.value)?;
                if self.offset != 0 {
                    // `+-4` is how compilers write negative offsets; it reparses to -4.
                    write!(f, "+{}", self.offset)?;
                }
            }
            None => write!(f, "{}", self.offset)?,
        }
        for extra in &self.extra {
            write!(f, ", {extra}")?;
        }
        f.write_char(']')
    }
}

/// Precedence of a binary operator when printing; must agree with the parser's table.
fn precedence(op: BinaryOp) -> u8 {
    match op {
        BinaryOp::Mul | BinaryOp::Div | BinaryOp::Rem => 6,
        BinaryOp::Add | BinaryOp::Sub => 5,
        BinaryOp::Shl | BinaryOp::Shr => 4,
        BinaryOp::And => 3,
        BinaryOp::Xor => 2,
        BinaryOp::Or => 1,
    }
}

fn binary_op_text(op: BinaryOp) -> &'static str {
    match op {
        BinaryOp::Add => "+",
        BinaryOp::Sub => "-",
        BinaryOp::Mul => "*",
        BinaryOp::Div => "/",
        // Spaces keep `a % b` from lexing as the register name `%b`.
        BinaryOp::Rem => " % ",
        BinaryOp::Shl => "<<",
        BinaryOp::Shr => ">>",
        BinaryOp::And => "&",
        BinaryOp::Or => "|",
        BinaryOp::Xor => "^",
    }
}

impl fmt::Display for Expr {
    /// Prints with the fewest parentheses that preserve the tree: a child is parenthesised
    /// when it binds less tightly than its parent (or equally, on the right, since all
    /// operators associate to the left).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.kind {
            ExprKind::Int(v) => write!(f, "{v}"),
            ExprKind::F32(bits) => write!(f, "0f{bits:08X}"),
            ExprKind::F64(bits) => write!(f, "0d{bits:016X}"),
            ExprKind::Name(name) => f.write_str(name),
            ExprKind::Unary(op, inner) => {
                f.write_str(match op {
                    UnaryOp::Neg => "-",
                    UnaryOp::Not => "~",
                    UnaryOp::LogicalNot => "!",
                })?;
                if matches!(inner.kind, ExprKind::Binary(..)) {
                    write!(f, "({inner})")
                } else {
                    write!(f, "{inner}")
                }
            }
            ExprKind::Binary(op, lhs, rhs) => {
                let power = precedence(*op);
                let needs_parens = |e: &Expr, on_right: bool| match &e.kind {
                    ExprKind::Binary(child, ..) => {
                        let child = precedence(*child);
                        child < power || (on_right && child == power)
                    }
                    _ => false,
                };
                if needs_parens(lhs, false) {
                    write!(f, "({lhs})")?
                } else {
                    write!(f, "{lhs}")?
                }
                f.write_str(binary_op_text(*op))?;
                if needs_parens(rhs, true) {
                    write!(f, "({rhs})")
                } else {
                    write!(f, "{rhs}")
                }
            }
            ExprKind::Call(name, args) => {
                write!(f, "{}(", name.value)?;
                write_separated(f, args, ", ", |f, a| write!(f, "{a}"))?;
                f.write_char(')')
            }
        }
    }
}
