//! The PTX parser: tokens to the syntax tree of [`crate::ast`].
//!
//! Hand-written recursive descent over the token vector of [`crate::lexer`], one function
//! per grammar rule, each named after the rule and documented with the rule in the notation
//! of the PTX ISA 8.x manual (chapter and section given).
//!
//! # Error recovery
//!
//! Parsing never fails as a whole. A rule that meets an unexpected token records one
//! [`ParseError`] ("expected X, found Y") and returns [`Fail`]; the nearest enclosing loop
//! then skips to a synchronisation point and continues:
//!
//! * inside a function body: past the next `;`, or up to (not past) the `}` closing the
//!   current block, skipping balanced `{ … }` on the way (a statement that failed inside a
//!   brace list, such as a vector operand, first has its open braces closed);
//! * at module level: past the next `;` or past a balanced `{ … }` group, or up to the next
//!   directive that starts a module item (`.visible`, `.entry`, `.global`, …) on a new line;
//! * directives that end at the end of their line (`.loc`, `.version`, `.target`, `.file`,
//!   `.address_size`) skip to the end of that line;
//! * in a `.section` body: up to the next data directive, label or `}`.
//!
//! Every loop consumes at least one token per iteration or stops, so parsing terminates in
//! time linear in the number of tokens. Nesting (blocks, brace lists, parentheses, unary
//! operators, operand vectors, chains of binary operators) is limited to [`MAX_NESTING`]
//! levels; deeper input gets an error instead of exhausting the stack. The recursive paths
//! keep small stack frames: at the limit, a debug build needs about 640 KiB of stack and a
//! release build about 210 KiB (measured with `examples/stack_probe.rs`), well inside the
//! 2 MiB of a test thread.

use crate::ast::*;
use crate::lexer::{self, NumberValue, Token, TokenKind};
use crate::span::{LineIndex, Span, Spanned};

/// The deepest nesting of blocks, brace lists, parentheses and unary operators accepted.
/// Compilers emit at most a handful of levels; the limit only guards the stack.
pub const MAX_NESTING: u32 = 256;

fn nesting_message() -> String {
    format!("nesting deeper than {MAX_NESTING} levels is not supported")
}

/// One syntax error: where it is and what was expected there.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ParseError {
    pub span: Span,
    pub message: String,
}

impl ParseError {
    /// Formats the error as `line:col: message`, with the position of the span's start.
    /// `index` must have been built from `text`.
    pub fn display_with(&self, text: &str, index: &LineIndex) -> String {
        format!(
            "{}: {}",
            index.line_col(text, self.span.start),
            self.message
        )
    }
}

/// Shows the message alone; use [`ParseError::display_with`] for the position.
impl std::fmt::Display for ParseError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for ParseError {}

/// The result of [`parse`]: the module built from everything that parsed, and all errors,
/// ordered by position.
#[derive(Clone, Debug, PartialEq)]
pub struct Parsed {
    pub module: Module,
    pub errors: Vec<ParseError>,
}

/// Parses PTX text. Never panics; see the crate documentation for the guarantees.
pub fn parse(text: &str) -> Parsed {
    if text.len() > u32::MAX as usize {
        return Parsed {
            module: Module {
                items: Vec::new(),
                span: Span::DUMMY,
            },
            errors: vec![ParseError {
                span: Span::DUMMY,
                message: "input of 4 GiB or more is not supported (spans are 32-bit)".to_string(),
            }],
        };
    }
    let (tokens, lex_errors) = lexer::lex(text);
    let mut parser = Parser {
        text,
        tokens,
        pos: 0,
        errors: lex_errors
            .into_iter()
            .map(|e| ParseError {
                span: e.span,
                message: e.message,
            })
            .collect(),
        depth: 0,
        in_section: false,
    };
    let module = parser.module();
    let mut errors = parser.errors;
    // Lexer errors come first in the vector; a stable sort interleaves them by position.
    errors.sort_by_key(|e| e.span.start);
    Parsed { module, errors }
}

/// Marks a rule that failed after recording its error; the caller recovers.
#[derive(Debug)]
struct Fail;

type PResult<T> = Result<T, Fail>;

struct Parser<'s> {
    text: &'s str,
    /// Always ends with one `Eof` token; `pos` never moves past it.
    tokens: Vec<Token>,
    pos: usize,
    errors: Vec<ParseError>,
    depth: u32,
    /// Inside `.section { … }`, where `.debug_abbrev` is a symbol operand.
    in_section: bool,
}

/// Directives that start a module-level item; recovery stops in front of them.
const ITEM_DIRECTIVES: &[&str] = &[
    ".version",
    ".target",
    ".address_size",
    ".file",
    ".visible",
    ".extern",
    ".weak",
    ".common",
    ".entry",
    ".func",
    ".global",
    ".const",
    ".shared",
    ".section",
    ".alias",
];

fn linkage_from_name(word: &str) -> Option<Linkage> {
    Some(match word {
        ".visible" => Linkage::Visible,
        ".extern" => Linkage::Extern,
        ".weak" => Linkage::Weak,
        ".common" => Linkage::Common,
        _ => return None,
    })
}

fn state_space_from_word(word: &str) -> Option<StateSpace> {
    word.strip_prefix('.').and_then(StateSpace::from_name)
}

fn component_from_word(word: &str) -> Option<Component> {
    Some(match word {
        ".x" | ".r" => Component::X,
        ".y" | ".g" => Component::Y,
        ".z" | ".b" => Component::Z,
        ".w" | ".a" => Component::W,
        _ => return None,
    })
}

/// Binding power of binary operators in constant expressions (PTX ISA §4.6.2, C order).
fn binary_op(kind: TokenKind) -> Option<(BinaryOp, u8)> {
    Some(match kind {
        TokenKind::Star => (BinaryOp::Mul, 6),
        TokenKind::Slash => (BinaryOp::Div, 6),
        TokenKind::Percent => (BinaryOp::Rem, 6),
        TokenKind::Plus => (BinaryOp::Add, 5),
        TokenKind::Minus => (BinaryOp::Sub, 5),
        TokenKind::Shl => (BinaryOp::Shl, 4),
        TokenKind::Shr => (BinaryOp::Shr, 4),
        TokenKind::Amp => (BinaryOp::And, 3),
        TokenKind::Caret => (BinaryOp::Xor, 2),
        TokenKind::Pipe => (BinaryOp::Or, 1),
        _ => return None,
    })
}

/// Evaluates an integer constant expression with 64-bit wrapping arithmetic; `None` if it
/// names a symbol, holds a float, or divides by zero.
pub(crate) fn eval_int(expr: &Expr) -> Option<u64> {
    Some(match &expr.kind {
        ExprKind::Int(v) => *v,
        ExprKind::Unary(op, inner) => {
            let v = eval_int(inner)?;
            match op {
                UnaryOp::Neg => v.wrapping_neg(),
                UnaryOp::Not => !v,
                UnaryOp::LogicalNot => (v == 0) as u64,
            }
        }
        ExprKind::Binary(op, a, b) => {
            let (a, b) = (eval_int(a)?, eval_int(b)?);
            match op {
                BinaryOp::Add => a.wrapping_add(b),
                BinaryOp::Sub => a.wrapping_sub(b),
                BinaryOp::Mul => a.wrapping_mul(b),
                BinaryOp::Div => (a as i64).checked_div(b as i64)? as u64,
                BinaryOp::Rem => (a as i64).checked_rem(b as i64)? as u64,
                BinaryOp::Shl => a.checked_shl(b.try_into().ok()?).unwrap_or(0),
                BinaryOp::Shr => ((a as i64) >> b.min(63)) as u64,
                BinaryOp::And => a & b,
                BinaryOp::Or => a | b,
                BinaryOp::Xor => a ^ b,
            }
        }
        ExprKind::F32(_) | ExprKind::F64(_) | ExprKind::Name(_) | ExprKind::Call(..) => {
            return None;
        }
    })
}

/// What a [`Parser::variable_decl`] is declaring: parameters take one declarator and no
/// initialiser; statements take a declarator list with initialisers.
#[derive(Clone, Copy, PartialEq, Eq)]
enum DeclContext {
    Parameter,
    Statement,
}

impl<'s> Parser<'s> {
    // ----- token access -------------------------------------------------------------------

    fn peek(&self) -> Token {
        self.tokens[self.pos]
    }

    fn peek_at(&self, ahead: usize) -> Token {
        self.tokens[(self.pos + ahead).min(self.tokens.len() - 1)]
    }

    fn kind(&self) -> TokenKind {
        self.peek().kind
    }

    fn text_of(&self, token: Token) -> &'s str {
        &self.text[token.span.range()]
    }

    fn peek_text(&self) -> &'s str {
        self.text_of(self.peek())
    }

    fn bump(&mut self) -> Token {
        let token = self.peek();
        if token.kind != TokenKind::Eof {
            self.pos += 1;
        }
        token
    }

    fn at(&self, kind: TokenKind) -> bool {
        self.kind() == kind
    }

    fn at_word(&self, word: &str) -> bool {
        self.kind() == TokenKind::DotWord && self.peek_text() == word
    }

    fn eat(&mut self, kind: TokenKind) -> Option<Token> {
        if self.at(kind) {
            Some(self.bump())
        } else {
            None
        }
    }

    /// End of the last consumed token, for node spans.
    fn prev_end(&self) -> u32 {
        if self.pos == 0 {
            0
        } else {
            self.tokens[self.pos - 1].span.end
        }
    }

    fn span_from(&self, start: u32) -> Span {
        Span {
            start,
            end: self.prev_end().max(start),
        }
    }

    /// Whether a line break separates the current token from the previous one.
    fn at_line_start(&self) -> bool {
        if self.pos == 0 {
            return true;
        }
        let gap = self.tokens[self.pos - 1].span.end as usize..self.peek().span.start as usize;
        self.text
            .get(gap)
            .is_some_and(|between| between.contains('\n'))
    }

    // ----- errors -------------------------------------------------------------------------

    fn error(&mut self, span: Span, message: String) -> Fail {
        self.errors.push(ParseError { span, message });
        Fail
    }

    fn describe(&self, token: Token) -> String {
        match token.kind {
            TokenKind::Eof => "end of input".to_string(),
            _ => {
                let text = self.text_of(token);
                match text.char_indices().nth(40) {
                    Some((cut, _)) => format!("`{}…`", &text[..cut]),
                    None => format!("`{text}`"),
                }
            }
        }
    }

    /// Records "expected {what}, found {current token}" at the current token.
    fn expected(&mut self, what: &str) -> Fail {
        let found = self.peek();
        let message = format!("expected {what}, found {}", self.describe(found));
        self.error(found.span, message)
    }

    fn expect(&mut self, kind: TokenKind, what: &str) -> PResult<Token> {
        match self.eat(kind) {
            Some(token) => Ok(token),
            None => Err(self.expected(what)),
        }
    }

    /// Runs `rule` one nesting level deeper, or records an error if that exceeds
    /// [`MAX_NESTING`].
    fn nested<T>(&mut self, rule: impl FnOnce(&mut Self) -> PResult<T>) -> PResult<T> {
        if self.depth >= MAX_NESTING {
            let span = self.peek().span;
            return Err(self.error(span, nesting_message()));
        }
        self.depth += 1;
        let result = rule(self);
        self.depth -= 1;
        result
    }

    // ----- recovery -----------------------------------------------------------------------

    /// Skips tokens after `{` was consumed, up to and including its matching `}`.
    fn skip_balanced_braces(&mut self) {
        let mut open = 1usize;
        loop {
            match self.bump().kind {
                TokenKind::LBrace => open += 1,
                TokenKind::RBrace => {
                    open -= 1;
                    if open == 0 {
                        return;
                    }
                }
                TokenKind::Eof => return,
                _ => {}
            }
        }
    }

    /// How many `{` among the tokens consumed since `start` are still open: a statement that
    /// failed inside a brace list (a vector operand, an initialiser) leaves that many `}`
    /// for recovery to consume before it looks for the end of the statement.
    fn unmatched_open_braces(&self, start: usize) -> usize {
        let mut open = 0usize;
        for token in &self.tokens[start.min(self.pos)..self.pos] {
            match token.kind {
                TokenKind::LBrace => open += 1,
                TokenKind::RBrace => open = open.saturating_sub(1),
                _ => {}
            }
        }
        open
    }

    /// Recovery inside a block after a statement that started at token `start` failed: past
    /// the next `;`, or up to the `}` that closes the block (after closing the brace lists
    /// the statement left open).
    fn recover_statement(&mut self, start: usize) {
        let mut open = self.unmatched_open_braces(start);
        loop {
            match self.kind() {
                TokenKind::Semi => {
                    self.bump();
                    return;
                }
                TokenKind::RBrace if open > 0 => {
                    self.bump();
                    open -= 1;
                }
                TokenKind::RBrace | TokenKind::Eof => return,
                TokenKind::LBrace => {
                    self.bump();
                    self.skip_balanced_braces();
                }
                _ => {
                    self.bump();
                }
            }
        }
    }

    /// Recovery at module level after an item that started at token `item_start` failed:
    /// past `;`, past a balanced `{ … }`, or before an item directive (after closing the
    /// brace lists the item left open).
    fn recover_item(&mut self, item_start: usize) {
        let start = self.pos;
        let mut open = self.unmatched_open_braces(item_start);
        loop {
            match self.kind() {
                TokenKind::RBrace if open > 0 => {
                    self.bump();
                    open -= 1;
                }
                TokenKind::Semi | TokenKind::RBrace => {
                    self.bump();
                    return;
                }
                TokenKind::LBrace => {
                    self.bump();
                    self.skip_balanced_braces();
                    return;
                }
                TokenKind::Eof => return,
                TokenKind::DotWord
                    if (self.pos > start || self.at_line_start())
                        && ITEM_DIRECTIVES.contains(&self.peek_text()) =>
                {
                    return;
                }
                _ => {
                    self.bump();
                }
            }
        }
    }

    /// Recovery for directives that end with their line: skip the rest of the line.
    fn recover_line(&mut self) {
        while !self.at(TokenKind::Eof) && !self.at_line_start() {
            self.bump();
        }
    }

    // ----- literals -----------------------------------------------------------------------

    fn number_u64(&mut self, what: &str) -> PResult<Spanned<u64>> {
        let token = self.peek();
        if token.kind != TokenKind::Number {
            return Err(self.expected(what));
        }
        self.bump();
        match lexer::classify_number(self.text_of(token)) {
            Ok(NumberValue::Int(v)) => Ok(Spanned::new(v, token.span)),
            Ok(_) => Err(self.error(
                token.span,
                format!("expected {what}, found a float literal"),
            )),
            Err(message) => Err(self.error(token.span, message)),
        }
    }

    fn number_u32(&mut self, what: &str) -> PResult<Spanned<u32>> {
        let n = self.number_u64(what)?;
        match u32::try_from(n.value) {
            Ok(v) => Ok(Spanned::new(v, n.span)),
            Err(_) => Err(self.error(
                n.span,
                format!("{what} {} does not fit in 32 bits", n.value),
            )),
        }
    }

    fn ident(&mut self, what: &str) -> PResult<Ident> {
        let token = self.peek();
        if token.kind != TokenKind::Ident {
            return Err(self.expected(what));
        }
        self.bump();
        Ok(Spanned::new(self.text_of(token).to_string(), token.span))
    }

    fn string(&mut self, what: &str) -> PResult<Spanned<String>> {
        let token = self.expect(TokenKind::String, what)?;
        let text = self.text_of(token);
        // An unterminated string (already reported by the lexer) has no closing quote.
        let inner = text.strip_prefix('"').unwrap_or(text);
        let inner = inner.strip_suffix('"').unwrap_or(inner);
        Ok(Spanned::new(lexer::unescape_string(inner), token.span))
    }

    // ----- module -------------------------------------------------------------------------

    /// `module := item*`
    fn module(&mut self) -> Module {
        let mut items = Vec::new();
        while !self.at(TokenKind::Eof) {
            let before = self.pos;
            match self.item() {
                Ok(Some(item)) => items.push(item),
                Ok(None) => {}
                Err(Fail) => self.recover_item(before),
            }
            if self.pos == before {
                self.bump();
            }
        }
        Module {
            items,
            span: Span::new(0, self.text.len()),
        }
    }

    /// One module-level item (PTX ISA §11.1 directives, §5.4 variables, §11.3 functions).
    /// `Ok(None)`: the item was malformed, and the error is recorded and recovered from.
    fn item(&mut self) -> PResult<Option<Item>> {
        const WHAT: &str = "a module directive such as `.version`, `.entry` or `.global`";
        if !self.at(TokenKind::DotWord) {
            return Err(self.expected(WHAT));
        }
        let start = self.peek().span.start;
        let item = match self.peek_text() {
            ".version" => return self.line_directive(Self::version),
            ".target" => return self.line_directive(Self::target),
            ".address_size" => return self.line_directive(Self::address_size),
            ".file" => return self.line_directive(Self::file),
            ".section" => self.section().map(Item::Section),
            ".pragma" => {
                let (args, span) = self.pragma()?;
                Ok(Item::Pragma { args, span })
            }
            ".alias" => {
                self.bump();
                let alias = self.ident("an alias name after `.alias`")?;
                self.expect(TokenKind::Comma, "`,` between alias and aliasee")?;
                let aliasee = self.ident("the aliased function name")?;
                self.expect(TokenKind::Semi, "`;` after `.alias`")?;
                Ok(Item::Alias {
                    alias,
                    aliasee,
                    span: self.span_from(start),
                })
            }
            word if linkage_from_name(word).is_some()
                || word == ".entry"
                || word == ".func"
                || state_space_from_word(word).is_some() =>
            {
                self.declaration()
            }
            _ => Err(self.expected(WHAT)),
        };
        item.map(Some)
    }

    /// Runs a rule for a directive that ends at the end of its line, recovering to the end
    /// of that line on error rather than to the next `;`.
    fn line_directive(&mut self, rule: fn(&mut Self) -> PResult<Item>) -> PResult<Option<Item>> {
        match rule(self) {
            Ok(item) => Ok(Some(item)),
            Err(Fail) => {
                self.recover_line();
                Ok(None)
            }
        }
    }

    /// `.version major.minor` (§11.1.1)
    fn version(&mut self) -> PResult<Item> {
        let start = self.bump().span.start;
        let token = self.peek();
        const WHAT: &str = "a version number `major.minor` after `.version`";
        if token.kind != TokenKind::DecimalFloat {
            return Err(self.expected(WHAT));
        }
        self.bump();
        let text = self.text_of(token);
        let parsed = text.split_once('.').and_then(|(major, minor)| {
            Some((major.parse::<u32>().ok()?, minor.parse::<u32>().ok()?))
        });
        match parsed {
            Some((major, minor)) => Ok(Item::Version {
                major,
                minor,
                span: self.span_from(start),
            }),
            None => Err(self.error(token.span, format!("expected {WHAT}, found `{text}`"))),
        }
    }

    /// `.target stringlist` (§11.1.2), e.g. `.target sm_80, debug`
    fn target(&mut self) -> PResult<Item> {
        let start = self.bump().span.start;
        let mut targets = vec![self.ident("a target such as `sm_80` after `.target`")?];
        while self.eat(TokenKind::Comma).is_some() {
            targets.push(self.ident("a target name after `,`")?);
        }
        Ok(Item::Target {
            targets,
            span: self.span_from(start),
        })
    }

    /// `.address_size 32|64` (§11.1.3)
    fn address_size(&mut self) -> PResult<Item> {
        let start = self.bump().span.start;
        let bits = self.number_u32("an address size after `.address_size`")?;
        Ok(Item::AddressSize {
            bits: bits.value,
            span: self.span_from(start),
        })
    }

    /// `.file file_index "filename" {, timestamp, file_size}` (§11.5.2)
    fn file(&mut self) -> PResult<Item> {
        let start = self.bump().span.start;
        let index = self.number_u32("a file index after `.file`")?;
        let path = self.string("a quoted file name after the `.file` index")?;
        let mut extra = Vec::new();
        while self.eat(TokenKind::Comma).is_some() {
            extra.push(self.number_u64("a timestamp or file size after `,` in `.file`")?);
        }
        Ok(Item::File(FileDirective {
            index: index.value,
            path,
            extra,
            span: self.span_from(start),
        }))
    }

    /// `.pragma "string" {, "string"} ;` (§11.8)
    fn pragma(&mut self) -> PResult<(Vec<Spanned<String>>, Span)> {
        let start = self.bump().span.start;
        let mut args = vec![self.string("a quoted string after `.pragma`")?];
        while self.eat(TokenKind::Comma).is_some() {
            args.push(self.string("a quoted string after `,` in `.pragma`")?);
        }
        self.expect(TokenKind::Semi, "`;` after `.pragma`")?;
        Ok((args, self.span_from(start)))
    }

    /// `linkage* (function | variable ;)` (§11.6 linkage, §11.3 functions, §5.4 variables)
    fn declaration(&mut self) -> PResult<Item> {
        let start = self.peek().span.start;
        let mut linkage = Vec::new();
        while self.at(TokenKind::DotWord) {
            let token = self.peek();
            match linkage_from_name(self.text_of(token)) {
                Some(l) => {
                    self.bump();
                    linkage.push(Spanned::new(l, token.span));
                }
                None => break,
            }
        }
        let word = if self.at(TokenKind::DotWord) {
            self.peek_text()
        } else {
            ""
        };
        if word == ".entry" || word == ".func" {
            return self
                .function(linkage, start)
                .map(|f| Item::Function(Box::new(f)));
        }
        if state_space_from_word(word).is_some() {
            let decl = self.variable_decl(linkage, start, DeclContext::Statement)?;
            self.expect(TokenKind::Semi, "`;` after variable declaration")?;
            return Ok(Item::Variable(decl));
        }
        Err(self.expected("`.entry`, `.func` or a state space such as `.global` after linkage"))
    }

    // ----- functions ----------------------------------------------------------------------

    /// ```text
    /// function := (.entry | .func) attribute* [( return-param )] name [( param-list )]
    ///             (attribute | performance-directive)* ( block | ; )
    /// ```
    /// (§11.3.1 `.entry`, §11.3.2 `.func`, §11.4 performance-tuning directives)
    fn function(&mut self, linkage: Vec<Spanned<Linkage>>, start: u32) -> PResult<Function> {
        let kind_token = self.bump();
        let kind = match self.text_of(kind_token) {
            ".entry" => FunctionKind::Entry,
            _ => FunctionKind::Func,
        };
        let kind = Spanned::new(kind, kind_token.span);
        let mut attributes = Vec::new();
        self.function_attributes(&mut attributes)?;
        let returns = if kind.value == FunctionKind::Func && self.at(TokenKind::LParen) {
            self.param_list()?
        } else {
            Vec::new()
        };
        let name = self.ident("a function name")?;
        let params = if self.at(TokenKind::LParen) {
            self.param_list()?
        } else {
            Vec::new()
        };
        let mut directives = Vec::new();
        loop {
            self.function_attributes(&mut attributes)?;
            if !self.at(TokenKind::DotWord) {
                break;
            }
            directives.push(self.function_directive()?);
        }
        let body = match self.kind() {
            TokenKind::LBrace => Some(self.block()?),
            TokenKind::Semi => {
                self.bump();
                None
            }
            _ => return Err(self.expected("`{` or `;` after the function header")),
        };
        Ok(Function {
            linkage,
            kind,
            attributes,
            returns,
            name,
            params,
            directives,
            body,
            span: self.span_from(start),
        })
    }

    /// `.noreturn` (§11.3.2); `.attribute(...)` on functions is reported as unsupported.
    fn function_attributes(&mut self, attributes: &mut Vec<Ident>) -> PResult<()> {
        loop {
            if self.at_word(".noreturn") {
                let token = self.bump();
                attributes.push(Spanned::new("noreturn".to_string(), token.span));
            } else if self.at_word(".attribute") {
                let span = self.peek().span;
                return Err(self.error(
                    span,
                    "function attribute `.attribute(...)` is not supported".to_string(),
                ));
            } else {
                return Ok(());
            }
        }
    }

    /// `.maxntid 256, 1, 1`, `.minnctapersm 2`, `.pragma "nounroll"`, `.explicitcluster` …
    /// (§11.4): a directive name and comma-separated constant or string arguments.
    fn function_directive(&mut self) -> PResult<FunctionDirective> {
        let token = self.bump();
        let name = Spanned::new(self.text_of(token)[1..].to_string(), token.span);
        let mut args = Vec::new();
        if !matches!(
            self.kind(),
            TokenKind::DotWord | TokenKind::LBrace | TokenKind::Semi | TokenKind::Eof
        ) {
            loop {
                if self.at(TokenKind::String) {
                    args.push(DirectiveArg::String(self.string("a string")?));
                } else {
                    args.push(DirectiveArg::Expr(self.expr()?));
                }
                if self.eat(TokenKind::Comma).is_none() {
                    break;
                }
            }
        }
        Ok(FunctionDirective {
            name,
            args,
            span: self.span_from(token.span.start),
        })
    }

    /// `( [param {, param}] )` where `param := (.param | .reg) variable-header declarator`
    fn param_list(&mut self) -> PResult<Vec<VariableDecl>> {
        self.expect(TokenKind::LParen, "`(`")?;
        let mut params = Vec::new();
        if self.eat(TokenKind::RParen).is_some() {
            return Ok(params);
        }
        loop {
            if !(self.at_word(".param") || self.at_word(".reg")) {
                return Err(
                    self.expected("a parameter declaration starting with `.param` or `.reg`")
                );
            }
            let start = self.peek().span.start;
            params.push(self.variable_decl(Vec::new(), start, DeclContext::Parameter)?);
            if self.eat(TokenKind::Comma).is_none() {
                break;
            }
        }
        self.expect(TokenKind::RParen, "`,` or `)` in parameter list")?;
        Ok(params)
    }

    // ----- variables ----------------------------------------------------------------------

    /// ```text
    /// variable := space { .align N | .vN | type | .ptr [space] [.align N] | .attribute(.A) }
    ///             declarator {, declarator}
    /// ```
    /// (§5.4 variables, §5.1.6.1 kernel parameter attributes, §5.4.8 `.attribute`).
    /// The linkage directives have been consumed by the caller.
    fn variable_decl(
        &mut self,
        linkage: Vec<Spanned<Linkage>>,
        start: u32,
        context: DeclContext,
    ) -> PResult<VariableDecl> {
        let space_token = self.bump();
        let space_value = match state_space_from_word(self.text_of(space_token)) {
            Some(space) => space,
            None => {
                let message = format!(
                    "expected a state space such as `.global`, found {}",
                    self.describe(space_token)
                );
                return Err(self.error(space_token.span, message));
            }
        };
        let space = Spanned::new(space_value, space_token.span);
        let mut attributes = Vec::new();
        let mut align = None;
        let mut vector = None;
        let mut ty: Option<Spanned<ScalarType>> = None;
        let mut ptr = None;
        while self.at(TokenKind::DotWord) {
            let token = self.peek();
            let word = self.text_of(token);
            match word {
                ".align" => {
                    self.bump();
                    align = Some(self.number_u32("an alignment after `.align`")?);
                }
                ".v2" | ".v4" | ".v8" => {
                    self.bump();
                    vector = Some(Spanned::new(
                        word[2..].parse::<u8>().unwrap_or(0),
                        token.span,
                    ));
                }
                ".ptr" => {
                    self.bump();
                    let ptr_space = match state_space_from_word(self.peek_text()) {
                        Some(s) if self.at(TokenKind::DotWord) => {
                            Some(Spanned::new(s, self.bump().span))
                        }
                        _ => None,
                    };
                    let ptr_align = if self.at_word(".align") {
                        self.bump();
                        Some(self.number_u32("an alignment after `.align`")?)
                    } else {
                        None
                    };
                    ptr = Some(PtrAttributes {
                        space: ptr_space,
                        align: ptr_align,
                        span: self.span_from(token.span.start),
                    });
                }
                ".attribute" => {
                    self.bump();
                    self.expect(TokenKind::LParen, "`(` after `.attribute`")?;
                    let attr = self.peek();
                    if attr.kind != TokenKind::DotWord {
                        return Err(self.expected("an attribute such as `.managed`"));
                    }
                    self.bump();
                    attributes.push(Spanned::new(self.text_of(attr)[1..].to_string(), attr.span));
                    self.expect(TokenKind::RParen, "`)` after the attribute")?;
                }
                _ => match ScalarType::from_name(&word[1..]) {
                    Some(t) if ty.is_none() => {
                        self.bump();
                        ty = Some(Spanned::new(t, token.span));
                    }
                    Some(_) => {
                        let message =
                            format!("a declaration takes one type, found a second type `{word}`");
                        return Err(self.error(token.span, message));
                    }
                    None => break,
                },
            }
        }
        let Some(ty) = ty else {
            return Err(self.expected("a type such as `.b32` in the declaration"));
        };
        let mut declarators = vec![self.declarator(context)?];
        if context == DeclContext::Statement {
            while self.eat(TokenKind::Comma).is_some() {
                declarators.push(self.declarator(context)?);
            }
        }
        Ok(VariableDecl {
            linkage,
            space,
            attributes,
            align,
            vector,
            ty,
            ptr,
            declarators,
            span: self.span_from(start),
        })
    }

    /// `name [<N>] {[N] | []} [= initializer]` (§5.4.2 arrays, §5.4.4 initialisers, §5.4.6
    /// parameterised variable names)
    fn declarator(&mut self, context: DeclContext) -> PResult<Declarator> {
        let name = self.ident("a variable name")?;
        let start = name.span.start;
        let mut range = None;
        if self.eat(TokenKind::Lt).is_some() {
            range = Some(self.number_u32("a register count after `<`")?);
            self.expect(TokenKind::Gt, "`>` after the register count")?;
        }
        let mut dims = Vec::new();
        while self.eat(TokenKind::LBracket).is_some() {
            if self.eat(TokenKind::RBracket).is_some() {
                dims.push(None);
                continue;
            }
            let size = self.expr()?;
            match eval_int(&size) {
                Some(n) => dims.push(Some(n)),
                None => {
                    return Err(self.error(
                        size.span,
                        "array size must be an integer constant".to_string(),
                    ));
                }
            }
            self.expect(TokenKind::RBracket, "`]` after the array size")?;
        }
        let init = if context == DeclContext::Statement && self.eat(TokenKind::Eq).is_some() {
            Some(self.initializer()?)
        } else {
            None
        };
        Ok(Declarator {
            name,
            range,
            dims,
            init,
            span: self.span_from(start),
        })
    }

    /// `initializer := expr | { [initializer {, initializer}] }` (§5.4.4)
    fn initializer(&mut self) -> PResult<Initializer> {
        if !self.at(TokenKind::LBrace) {
            return self.expr().map(Initializer::Expr);
        }
        let open = self.bump();
        if self.depth >= MAX_NESTING {
            self.skip_balanced_braces();
            return Err(self.error(open.span, nesting_message()));
        }
        self.nested(|p| {
            let mut items = Vec::new();
            if !p.at(TokenKind::RBrace) {
                loop {
                    items.push(p.initializer()?);
                    if p.eat(TokenKind::Comma).is_none() {
                        break;
                    }
                }
            }
            p.expect(TokenKind::RBrace, "`,` or `}` in the initializer list")?;
            Ok(Initializer::List {
                items,
                span: p.span_from(open.span.start),
            })
        })
    }

    // ----- statements ---------------------------------------------------------------------

    /// `block := { statement* }` (§11.3: function bodies and nested scopes)
    fn block(&mut self) -> PResult<Block> {
        let open = self.expect(TokenKind::LBrace, "`{`")?;
        if self.depth >= MAX_NESTING {
            self.skip_balanced_braces();
            return Err(self.error(open.span, nesting_message()));
        }
        self.nested(|p| {
            let mut statements = Vec::new();
            loop {
                match p.kind() {
                    TokenKind::RBrace => {
                        p.bump();
                        break;
                    }
                    TokenKind::Eof => {
                        let found = p.peek();
                        p.error(
                            found.span,
                            "expected `}` to close the block, found end of input".to_string(),
                        );
                        break;
                    }
                    _ => {
                        let before = p.pos;
                        match p.statement(&mut statements) {
                            Ok(()) => {}
                            Err(Fail) => p.recover_statement(before),
                        }
                        if p.pos == before {
                            p.bump();
                        }
                    }
                }
            }
            Ok(Block {
                statements,
                span: p.span_from(open.span.start),
            })
        })
    }

    /// One statement of a body, pushed onto `out` (§4.3 statements, §11 directives).
    ///
    /// Nested blocks recurse through here, so this function keeps a small stack frame and
    /// leaves every other statement to [`Parser::flat_statement`].
    fn statement(&mut self, out: &mut Vec<Statement>) -> PResult<()> {
        if self.at(TokenKind::LBrace) {
            let block = self.block()?;
            out.push(Statement::Block(block));
            Ok(())
        } else {
            self.flat_statement(out)
        }
    }

    /// A statement other than a nested block.
    #[inline(never)]
    fn flat_statement(&mut self, out: &mut Vec<Statement>) -> PResult<()> {
        let token = self.peek();
        match token.kind {
            TokenKind::At => out.push(Statement::Instruction(self.instruction()?)),
            TokenKind::Ident if self.peek_at(1).kind == TokenKind::Colon => {
                let after = self.peek_at(2);
                if after.kind == TokenKind::DotWord && self.text_of(after) == ".callprototype" {
                    out.push(Statement::CallPrototype(self.call_prototype()?));
                } else {
                    let label = self.ident("a label")?;
                    self.bump();
                    out.push(Statement::Label(label));
                }
            }
            TokenKind::Ident => out.push(Statement::Instruction(self.instruction()?)),
            TokenKind::DotWord => {
                let word = self.text_of(token);
                match word {
                    ".loc" => match self.loc() {
                        Ok(loc) => out.push(Statement::Loc(loc)),
                        Err(Fail) => {
                            // `.loc` ends with its line; recovering to `;` would eat the
                            // next instruction.
                            self.recover_line();
                        }
                    },
                    ".pragma" => {
                        let (args, span) = self.pragma()?;
                        out.push(Statement::Pragma { args, span });
                    }
                    ".branchtargets" | ".calltargets" => {
                        self.bump();
                        let mut targets = vec![self.ident("a label after the directive")?];
                        while self.eat(TokenKind::Comma).is_some() {
                            targets.push(self.ident("a label after `,`")?);
                        }
                        self.expect(TokenKind::Semi, "`;` after the target list")?;
                        let span = self.span_from(token.span.start);
                        out.push(if word == ".branchtargets" {
                            Statement::BranchTargets { targets, span }
                        } else {
                            Statement::CallTargets { targets, span }
                        });
                    }
                    _ if state_space_from_word(word).is_some() => {
                        let decl = self.variable_decl(
                            Vec::new(),
                            token.span.start,
                            DeclContext::Statement,
                        )?;
                        self.expect(TokenKind::Semi, "`;` after variable declaration")?;
                        out.push(Statement::Variable(decl));
                    }
                    _ => {
                        let message = format!(
                            "unknown directive `{word}` in function body: expected `.reg`, `.local`, `.shared`, `.param`, `.loc`, `.pragma` or an instruction"
                        );
                        return Err(self.error(token.span, message));
                    }
                }
            }
            _ => return Err(self.expected("an instruction, label, directive or `}`")),
        }
        Ok(())
    }

    /// `.loc file line column [, function_name label [+ offset]] [, inlined_at file line
    /// column]` (§11.5.1). Ends at the end of its line; no `;`. The label is a symbol
    /// (`$L__info_string0`) or a section name (`.debug_str+16`, as nvcc writes it).
    fn loc(&mut self) -> PResult<Loc> {
        let start = self.bump().span.start;
        let file = self.number_u32("a file index after `.loc`")?.value;
        let line = self.number_u32("a line number in `.loc`")?.value;
        let column = self.number_u32("a column number in `.loc`")?.value;
        let mut function_name = None;
        let mut function_name_offset = 0;
        let mut inlined_at = None;
        while self.at(TokenKind::Comma) && !self.at_line_start() {
            self.bump();
            let attr = self.peek();
            match (attr.kind, self.text_of(attr)) {
                (TokenKind::Ident, "function_name") => {
                    self.bump();
                    let name = self.peek();
                    if !matches!(name.kind, TokenKind::Ident | TokenKind::DotWord) {
                        return Err(self.expected(
                            "a label such as `$L__info_string0` or `.debug_str` after `function_name`",
                        ));
                    }
                    self.bump();
                    function_name = Some(Spanned::new(self.text_of(name).to_string(), name.span));
                    function_name_offset = 0;
                    if self.eat(TokenKind::Plus).is_some() {
                        function_name_offset = self
                            .number_u64("an offset after `+` in `function_name`")?
                            .value;
                    }
                }
                (TokenKind::Ident, "inlined_at") => {
                    self.bump();
                    let f = self.number_u32("a file index after `inlined_at`")?.value;
                    let l = self.number_u32("a line number after `inlined_at`")?.value;
                    let c = self.number_u32("a column number after `inlined_at`")?.value;
                    inlined_at = Some((f, l, c));
                }
                _ => return Err(self.expected("`function_name` or `inlined_at` in `.loc`")),
            }
        }
        Ok(Loc {
            file,
            line,
            column,
            function_name,
            function_name_offset,
            inlined_at,
            span: self.span_from(start),
        })
    }

    /// `label : .callprototype [( return-param )] _ ( param-list ) [.noreturn] ;` (§11.3.3)
    fn call_prototype(&mut self) -> PResult<CallPrototype> {
        let label = self.ident("a prototype label")?;
        self.bump(); // `:`
        self.bump(); // `.callprototype`
        let returns = self.param_list()?;
        let sink = self.peek();
        if sink.kind != TokenKind::Ident || self.text_of(sink) != "_" {
            return Err(self.expected("`_` in place of the function name in `.callprototype`"));
        }
        self.bump();
        let params = if self.at(TokenKind::LParen) {
            self.param_list()?
        } else {
            Vec::new()
        };
        let mut attributes = Vec::new();
        self.function_attributes(&mut attributes)?;
        self.expect(TokenKind::Semi, "`;` after `.callprototype`")?;
        Ok(CallPrototype {
            span: self.span_from(label.span.start),
            label,
            returns,
            params,
            attributes,
        })
    }

    /// `[@[!]pred] opcode{.modifier} [operand {, operand}] ;` (§4.3, §9.1)
    fn instruction(&mut self) -> PResult<Instruction> {
        let start = self.peek().span.start;
        let guard = if let Some(at) = self.eat(TokenKind::At) {
            let negated = self.eat(TokenKind::Bang).is_some();
            let predicate = self.ident("a predicate register after `@`")?;
            Some(Guard {
                negated,
                predicate,
                span: self.span_from(at.span.start),
            })
        } else {
            None
        };
        let opcode = self.ident("an instruction opcode")?;
        let mut modifiers = Vec::new();
        while self.at(TokenKind::DotWord) {
            let token = self.bump();
            modifiers.push(Spanned::new(
                self.text_of(token)[1..].to_string(),
                token.span,
            ));
        }
        let mut operands = Vec::new();
        if !self.at(TokenKind::Semi) {
            loop {
                operands.push(self.operand()?);
                if self.eat(TokenKind::Comma).is_none() {
                    break;
                }
            }
        }
        self.expect(TokenKind::Semi, "`;` after instruction")?;
        Ok(Instruction {
            guard,
            opcode,
            modifiers,
            operands,
            span: self.span_from(start),
        })
    }

    // ----- operands -----------------------------------------------------------------------

    /// ```text
    /// operand := _ | !operand | { operand-list } | [ address ] | ( operand-list )
    ///          | name[.component] [| operand] | name binop expr | expr
    /// ```
    /// (§6.4 operand types, §9.7.12.4 call argument lists)
    fn operand(&mut self) -> PResult<Operand> {
        self.nested(Self::operand_inner)
    }

    fn operand_inner(&mut self) -> PResult<Operand> {
        let token = self.peek();
        let start = token.span.start;
        let kind = match token.kind {
            TokenKind::Bang => {
                self.bump();
                OperandKind::Not(Box::new(self.operand()?))
            }
            TokenKind::LBrace => {
                self.bump();
                OperandKind::Vector(
                    self.operand_list(TokenKind::RBrace, "`,` or `}` in vector operand")?,
                )
            }
            TokenKind::LParen => {
                self.bump();
                OperandKind::List(
                    self.operand_list(TokenKind::RParen, "`,` or `)` in argument list")?,
                )
            }
            TokenKind::LBracket => OperandKind::Address(self.address()?),
            TokenKind::Ident
                if self.text_of(token) == "_" && self.peek_at(1).kind != TokenKind::LParen =>
            {
                self.bump();
                OperandKind::Sink
            }
            TokenKind::Ident if self.peek_at(1).kind != TokenKind::LParen => {
                self.name_operand(start)?
            }
            _ => OperandKind::Expr(self.expr()?),
        };
        Ok(Operand {
            kind,
            span: self.span_from(start),
        })
    }

    /// `name[.component] [| operand]`, or `name binop expr` (an expression starting with a
    /// symbol). Kept out of [`Parser::operand_inner`] so that the recursive path stays lean.
    #[inline(never)]
    fn name_operand(&mut self, start: u32) -> PResult<OperandKind> {
        let name = self.ident("an operand")?;
        let mut component = None;
        let next = self.peek();
        if next.kind == TokenKind::DotWord && next.span.start == name.span.end {
            match component_from_word(self.text_of(next)) {
                Some(c) => {
                    self.bump();
                    component = Some(Spanned::new(c, next.span));
                }
                None => {
                    let message = format!(
                        "expected a vector component `.x`, `.y`, `.z` or `.w`, found {}",
                        self.describe(next)
                    );
                    return Err(self.error(next.span, message));
                }
            }
        }
        Ok(if self.at(TokenKind::Pipe) {
            let first = Operand {
                span: self.span_from(start),
                kind: OperandKind::Name { name, component },
            };
            self.bump();
            let second = self.operand()?;
            OperandKind::Pair(Box::new(first), Box::new(second))
        } else if component.is_none() && binary_op(self.kind()).is_some() {
            let lhs = Expr {
                span: name.span,
                kind: ExprKind::Name(name.value),
            };
            OperandKind::Expr(self.expr_continue(lhs, 0)?)
        } else {
            OperandKind::Name { name, component }
        })
    }

    /// Operands separated by `,` up to `close` (already past the opening bracket).
    fn operand_list(&mut self, close: TokenKind, what: &str) -> PResult<Vec<Operand>> {
        let mut items = Vec::new();
        if self.eat(close).is_some() {
            return Ok(items);
        }
        loop {
            items.push(self.operand()?);
            if self.eat(TokenKind::Comma).is_none() {
                break;
            }
        }
        self.expect(close, what)?;
        Ok(items)
    }

    /// `[ (name [(+|-) const] | const) {, operand} ]` (§6.4.1 addresses, §9.7.9 texture
    /// operands)
    fn address(&mut self) -> PResult<Address> {
        let open = self.bump();
        let mut base = None;
        let mut offset: u64 = 0;
        if self.at(TokenKind::Ident) {
            base = Some(self.ident("an address base")?);
            let negate = match self.kind() {
                TokenKind::Plus => Some(false),
                TokenKind::Minus => Some(true),
                _ => None,
            };
            if let Some(negate) = negate {
                self.bump();
                let value = self.address_offset()?;
                offset = if negate { value.wrapping_neg() } else { value };
            }
        } else if !self.at(TokenKind::RBracket) {
            offset = self.address_offset()?;
        } else {
            return Err(self.expected("a register, symbol or constant inside `[ ]`"));
        }
        let mut extra = Vec::new();
        while self.eat(TokenKind::Comma).is_some() {
            extra.push(self.operand()?);
        }
        self.expect(TokenKind::RBracket, "`]` to close the address")?;
        Ok(Address {
            base,
            offset: offset as i64,
            extra,
            span: self.span_from(open.span.start),
        })
    }

    fn address_offset(&mut self) -> PResult<u64> {
        let expr = self.expr()?;
        match eval_int(&expr) {
            Some(v) => Ok(v),
            None => Err(self.error(
                expr.span,
                "address offset must be an integer constant".to_string(),
            )),
        }
    }

    // ----- constant expressions -----------------------------------------------------------

    /// A constant expression (§4.6) by precedence climbing over [`binary_op`].
    fn expr(&mut self) -> PResult<Expr> {
        let lhs = self.unary_expr()?;
        self.expr_continue(lhs, 0)
    }

    /// Continues an expression whose left operand is `lhs`, taking binary operators that
    /// bind tighter than `min_power`.
    fn expr_continue(&mut self, mut lhs: Expr, min_power: u8) -> PResult<Expr> {
        // A chain `1+1+…` builds a left-leaning tree as deep as the chain is long; it counts
        // against the nesting limit so that walking or dropping the tree stays shallow.
        let mut chain_depth = self.depth;
        loop {
            let Some((op, power)) = binary_op(self.kind()) else {
                if matches!(
                    self.kind(),
                    TokenKind::AndAnd
                        | TokenKind::OrOr
                        | TokenKind::EqEq
                        | TokenKind::NotEq
                        | TokenKind::LtEq
                        | TokenKind::GtEq
                        | TokenKind::Question
                ) {
                    return Err(self.unsupported_operator());
                }
                return Ok(lhs);
            };
            if power <= min_power {
                return Ok(lhs);
            }
            chain_depth += 1;
            if chain_depth >= MAX_NESTING {
                let span = self.peek().span;
                return Err(self.error(span, nesting_message()));
            }
            self.bump();
            let rhs = self.nested(|p| {
                let first = p.unary_expr()?;
                p.expr_continue(first, power)
            })?;
            let span = lhs.span.to(rhs.span);
            lhs = Expr {
                kind: ExprKind::Binary(op, Box::new(lhs), Box::new(rhs)),
                span,
            };
        }
    }

    #[cold]
    #[inline(never)]
    fn unsupported_operator(&mut self) -> Fail {
        let token = self.peek();
        let message = format!(
            "operator `{}` is not supported in constant expressions",
            self.text_of(token)
        );
        self.error(token.span, message)
    }

    /// `unary := (- | ~ | !) unary | primary`
    fn unary_expr(&mut self) -> PResult<Expr> {
        let token = self.peek();
        let op = match token.kind {
            TokenKind::Minus => UnaryOp::Neg,
            TokenKind::Tilde => UnaryOp::Not,
            TokenKind::Bang => UnaryOp::LogicalNot,
            _ => return self.primary_expr(),
        };
        self.bump();
        let inner = self.nested(Self::unary_expr)?;
        let span = self.span_from(token.span.start);
        Ok(Expr {
            kind: ExprKind::Unary(op, Box::new(inner)),
            span,
        })
    }

    /// `primary := number | name | name ( expr {, expr} ) | ( expr )`; in sections also
    /// `.debug_abbrev`-style section names.
    fn primary_expr(&mut self) -> PResult<Expr> {
        let token = self.peek();
        if token.kind != TokenKind::LParen {
            return self.atom_expr();
        }
        self.bump();
        let inner = self.nested(Self::expr)?;
        self.expect(TokenKind::RParen, "`)` to close the parenthesis")?;
        // Parentheses only group; the tree keeps the inner expression with the span of the
        // whole parenthesised text.
        Ok(Expr {
            kind: inner.kind,
            span: self.span_from(token.span.start),
        })
    }

    /// A literal, a name, a call `generic(sym)`, or a section name; kept out of
    /// [`Parser::primary_expr`] so that the recursive path through parentheses stays lean.
    #[inline(never)]
    fn atom_expr(&mut self) -> PResult<Expr> {
        let token = self.peek();
        let kind = match token.kind {
            TokenKind::Number | TokenKind::DecimalFloat => {
                self.bump();
                match lexer::classify_number(self.text_of(token)) {
                    Ok(NumberValue::Int(v)) => ExprKind::Int(v),
                    Ok(NumberValue::F32Bits(v)) => ExprKind::F32(v),
                    Ok(NumberValue::F64Bits(v)) => ExprKind::F64(v),
                    Err(message) => return Err(self.error(token.span, message)),
                }
            }
            TokenKind::Ident => {
                let name = self.ident("a name")?;
                if self.eat(TokenKind::LParen).is_some() {
                    let mut args = Vec::new();
                    if !self.at(TokenKind::RParen) {
                        loop {
                            args.push(self.nested(Self::expr)?);
                            if self.eat(TokenKind::Comma).is_none() {
                                break;
                            }
                        }
                    }
                    self.expect(TokenKind::RParen, "`,` or `)` after the arguments")?;
                    ExprKind::Call(name, args)
                } else if self.in_section {
                    // DWARF data may name source-level symbols that contain dots, such as
                    // clang's `reduceSum.scratch` for an OpenCL `__local` variable: the
                    // name continues through dotted words written without a space.
                    let mut full = name.value;
                    let mut end = name.span.end;
                    while self.peek().kind == TokenKind::DotWord && self.peek().span.start == end {
                        let next = self.peek();
                        self.bump();
                        full.push_str(self.text_of(next));
                        end = next.span.end;
                    }
                    ExprKind::Name(full)
                } else {
                    ExprKind::Name(name.value)
                }
            }
            TokenKind::DotWord if self.in_section => {
                self.bump();
                ExprKind::Name(self.text_of(token).to_string())
            }
            _ => return Err(self.expected("an operand or constant expression")),
        };
        Ok(Expr {
            kind,
            span: self.span_from(token.span.start),
        })
    }

    // ----- debug sections -----------------------------------------------------------------

    /// ```text
    /// section := .section name { ( label : | .bN expr {, expr} )* }
    /// ```
    /// (§11.5.3 `.section`, as used for DWARF: `.debug_info`, `.debug_abbrev`, `.debug_str`,
    /// `.debug_loc`, …)
    fn section(&mut self) -> PResult<Section> {
        let start = self.bump().span.start;
        let name_token = self.peek();
        if !matches!(name_token.kind, TokenKind::DotWord | TokenKind::Ident) {
            return Err(self.expected("a section name such as `.debug_info`"));
        }
        self.bump();
        let name = Spanned::new(self.text_of(name_token).to_string(), name_token.span);
        self.expect(TokenKind::LBrace, "`{` after the section name")?;
        self.in_section = true;
        let mut entries = Vec::new();
        loop {
            match self.kind() {
                TokenKind::RBrace => {
                    self.bump();
                    break;
                }
                TokenKind::Eof => {
                    self.expected("`}` to close the section");
                    break;
                }
                _ => match self.section_entry() {
                    Ok(entry) => entries.push(entry),
                    Err(Fail) => self.recover_section_entry(),
                },
            }
        }
        self.in_section = false;
        Ok(Section {
            name,
            entries,
            span: self.span_from(start),
        })
    }

    fn section_entry(&mut self) -> PResult<SectionEntry> {
        let token = self.peek();
        if token.kind == TokenKind::Ident && self.peek_at(1).kind == TokenKind::Colon {
            let label = self.ident("a label")?;
            self.bump();
            return Ok(SectionEntry::Label(label));
        }
        let ty = match token.kind {
            TokenKind::DotWord => ScalarType::from_name(&self.text_of(token)[1..]),
            _ => None,
        };
        let Some(ty) = ty else {
            return Err(self.expected("a label or a data directive such as `.b8` in the section"));
        };
        self.bump();
        let mut values = vec![self.expr()?];
        while self.eat(TokenKind::Comma).is_some() {
            values.push(self.expr()?);
        }
        Ok(SectionEntry::Data {
            ty: Spanned::new(ty, token.span),
            values,
            span: self.span_from(token.span.start),
        })
    }

    /// Skips to the next data directive, label or `}` of a section, consuming at least one
    /// token.
    fn recover_section_entry(&mut self) {
        if self.pos < self.tokens.len() - 1 {
            self.bump();
        }
        loop {
            let token = self.peek();
            match token.kind {
                TokenKind::RBrace | TokenKind::Eof => return,
                TokenKind::DotWord
                    if ScalarType::from_name(&self.text_of(token)[1..]).is_some() =>
                {
                    return;
                }
                TokenKind::Ident if self.peek_at(1).kind == TokenKind::Colon => return,
                _ => {
                    self.bump();
                }
            }
        }
    }
}
