//! The PTX lexer: source text to a flat vector of zero-copy tokens.
//!
//! A token is a kind and a byte [`Span`]; its text is `&source[span]`, so lexing allocates
//! nothing per token. Whitespace, a byte-order mark and comments (`// …` to end of line,
//! `/* … */`) are skipped. Text that forms no token (a stray `#`, an unterminated string or comment) is
//! reported as a [`LexError`] and skipped, so lexing always finishes.
//!
//! Token classes follow PTX ISA 8.x §4.1–§4.5:
//! * identifiers `[a-zA-Z][a-zA-Z0-9_$]*`, `[_$][a-zA-Z0-9_$]*` and `%[a-zA-Z0-9_$]+`
//!   (`%r1`, `$L__BB0_2`, `_`); a lone `%` is the remainder operator;
//! * dotted words, i.e. directives and instruction modifiers, `.global`, `.v4`, `.1d`,
//!   `.L1::no_allocate`, `.shared::cta`;
//! * numbers: one token class `[0-9][a-zA-Z0-9_]*` covers decimal, octal (`017`), hex
//!   (`0x1F`), binary (`0b101`) integers with an optional `U` suffix and the bit-pattern
//!   floats `0f3F800000` / `0d3FF0000000000000`; a second class covers decimal floats
//!   `1.5`, `1.5e-3`, `2e+8`. The parser classifies and range-checks number text with
//!   [`classify_number`], so that a malformed literal such as `0f3F80` is one token with a
//!   precise error instead of two confusing ones;
//! * strings `"…"` with C escapes;
//! * punctuation and operators.

use logos::{FilterResult, Logos};

use crate::span::Span;

/// What a token is. Its text is recovered from the source with the token's span.
#[derive(Logos, Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[logos(error = LexErrorKind)]
#[logos(skip r"[ \t\r\n\x0B\x0C]+")]
#[logos(skip r"//[^\n]*")]
#[logos(skip "\u{feff}")]
pub enum TokenKind {
    /// Never produced: `/* … */` comments are skipped by their callback.
    #[token("/*", skip_block_comment)]
    BlockComment,

    #[regex(r"[a-zA-Z][a-zA-Z0-9_$]*")]
    #[regex(r"[_$][a-zA-Z0-9_$]*")]
    #[regex(r"%[a-zA-Z0-9_$]+")]
    Ident,
    /// `.global`, `.v4`, `.1d`, `.L1::no_allocate`.
    #[regex(r"\.[a-zA-Z0-9_$]+(::[a-zA-Z0-9_$]+)*")]
    DotWord,
    /// Integer or bit-pattern float; see [`classify_number`].
    #[regex(r"[0-9][a-zA-Z0-9_]*")]
    Number,
    /// A decimal floating-point literal such as `1.5` or `2.5e-3`.
    #[regex(r"[0-9]+\.[0-9]+([eE][+-]?[0-9]+)?")]
    #[regex(r"[0-9]+[eE][+-][0-9]+")]
    DecimalFloat,
    #[regex(r#""([^"\\\n]|\\[^\n])*""#)]
    String,
    /// A string with no closing quote on its line; [`lex`] reports it and turns it into a
    /// [`TokenKind::String`].
    #[regex(r#""([^"\\\n]|\\[^\n])*"#)]
    UnterminatedString,

    #[token(",")]
    Comma,
    #[token(";")]
    Semi,
    #[token(":")]
    Colon,
    #[token("{")]
    LBrace,
    #[token("}")]
    RBrace,
    #[token("(")]
    LParen,
    #[token(")")]
    RParen,
    #[token("[")]
    LBracket,
    #[token("]")]
    RBracket,
    #[token("<")]
    Lt,
    #[token(">")]
    Gt,
    #[token("=")]
    Eq,
    #[token("+")]
    Plus,
    #[token("-")]
    Minus,
    #[token("*")]
    Star,
    #[token("/")]
    Slash,
    #[token("%")]
    Percent,
    #[token("&")]
    Amp,
    #[token("|")]
    Pipe,
    #[token("^")]
    Caret,
    #[token("~")]
    Tilde,
    #[token("!")]
    Bang,
    #[token("@")]
    At,
    #[token("?")]
    Question,
    #[token("<<")]
    Shl,
    #[token(">>")]
    Shr,
    /// Comparison and logical operators: legal in PTX constant expressions (§4.6) but never
    /// emitted by compilers; lexed so that the parser can name them in its error.
    #[token("&&")]
    AndAnd,
    #[token("||")]
    OrOr,
    #[token("==")]
    EqEq,
    #[token("!=")]
    NotEq,
    #[token("<=")]
    LtEq,
    #[token(">=")]
    GtEq,

    /// End of input; [`lex`] appends exactly one, with an empty span at the end.
    Eof,
}

/// Why a stretch of text formed no token.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum LexErrorKind {
    #[default]
    UnexpectedCharacter,
    UnterminatedComment,
}

/// A lexing error: the span of the text that formed no token and why.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LexError {
    pub span: Span,
    pub message: String,
}

/// One token: its kind and the byte span of its text.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Token {
    pub kind: TokenKind,
    pub span: Span,
}

fn skip_block_comment(lex: &mut logos::Lexer<TokenKind>) -> FilterResult<(), LexErrorKind> {
    let rest = lex.remainder();
    match rest.find("*/") {
        Some(end) => {
            lex.bump(end + 2);
            FilterResult::Skip
        }
        None => {
            lex.bump(rest.len());
            FilterResult::Error(LexErrorKind::UnterminatedComment)
        }
    }
}

/// Splits `text` into tokens, always ending with one [`TokenKind::Eof`] token.
///
/// Errors do not stop lexing: an unexpected character is reported and skipped (runs of
/// them are merged into one error), an unterminated string is reported and kept as a string token that ends with its line, an
/// unterminated comment swallows the rest of the text. Callers must ensure `text.len()`
/// fits a `u32` (see [`crate::parse`]).
pub fn lex(text: &str) -> (Vec<Token>, Vec<LexError>) {
    // Typical PTX has about one token per 5 bytes; reserving avoids repeated regrowth.
    let mut tokens = Vec::with_capacity(text.len() / 5 + 1);
    let mut errors: Vec<LexError> = Vec::new();
    let mut lexer = TokenKind::lexer(text);
    while let Some(result) = lexer.next() {
        let span = Span::from(lexer.span());
        match result {
            Ok(TokenKind::UnterminatedString) => {
                errors.push(LexError {
                    span,
                    message: "unterminated string: expected `\"` before end of line".to_string(),
                });
                // Parse on as if the string were closed at the end of the line.
                tokens.push(Token {
                    kind: TokenKind::String,
                    span,
                });
            }
            Ok(kind) => tokens.push(Token { kind, span }),
            Err(LexErrorKind::UnterminatedComment) => errors.push(LexError {
                span,
                message: "unterminated block comment: expected `*/` before end of input"
                    .to_string(),
            }),
            Err(LexErrorKind::UnexpectedCharacter) => {
                // Merge adjacent bad characters into one error so that binary garbage does not
                // yield one error per byte.
                if let Some(last) = errors.last_mut()
                    && last.span.end == span.start
                    && last.message.starts_with("unexpected character")
                {
                    last.span.end = span.end;
                    last.message = "unexpected characters".to_string();
                } else {
                    let found = &text[span.range()];
                    errors.push(LexError {
                        span,
                        message: format!("unexpected character {found:?}"),
                    });
                }
            }
        }
    }
    let end = text.len();
    tokens.push(Token {
        kind: TokenKind::Eof,
        span: Span::new(end, end),
    });
    (tokens, errors)
}

/// The meaning of a [`TokenKind::Number`] or [`TokenKind::DecimalFloat`] token's text.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum NumberValue {
    Int(u64),
    F32Bits(u32),
    F64Bits(u64),
}

/// Classifies and converts number text (PTX ISA §4.5.1):
///
/// * `0x`/`0X` hex, `0b`/`0B` binary, a leading `0` octal, otherwise decimal integers,
///   each with an optional `U` suffix; values must fit 64 bits;
/// * `0f`/`0F` followed by exactly 8 hex digits: an `f32` by its bits;
/// * `0d`/`0D` followed by exactly 16 hex digits: an `f64` by its bits;
/// * decimal floats (`1.5`, `2e-3`): an `f64`, as PTX specifies for decimal float literals.
///
/// The error says what is wrong with the literal.
pub fn classify_number(text: &str) -> Result<NumberValue, String> {
    let bytes = text.as_bytes();
    if bytes.len() >= 2 && bytes[0] == b'0' {
        let digits = &text[2..];
        match bytes[1] {
            b'f' | b'F' => {
                return if digits.len() == 8 && digits.bytes().all(|b| b.is_ascii_hexdigit()) {
                    u32::from_str_radix(digits, 16)
                        .map(NumberValue::F32Bits)
                        .map_err(|e| format!("invalid float literal `{text}`: {e}"))
                } else {
                    Err(format!(
                        "invalid float literal `{text}`: `0f` must be followed by exactly 8 hex digits"
                    ))
                };
            }
            b'd' | b'D' => {
                return if digits.len() == 16 && digits.bytes().all(|b| b.is_ascii_hexdigit()) {
                    u64::from_str_radix(digits, 16)
                        .map(NumberValue::F64Bits)
                        .map_err(|e| format!("invalid double literal `{text}`: {e}"))
                } else {
                    Err(format!(
                        "invalid double literal `{text}`: `0d` must be followed by exactly 16 hex digits"
                    ))
                };
            }
            b'x' | b'X' => return parse_int(text, digits, 16),
            b'b' | b'B' => return parse_int(text, digits, 2),
            _ => {}
        }
    }
    if text.contains(['.', 'e', 'E']) && !text.starts_with("0x") {
        return match text.parse::<f64>() {
            Ok(v)
                if bytes
                    .iter()
                    .all(|b| b.is_ascii_digit() || b".eE+-".contains(b)) =>
            {
                Ok(NumberValue::F64Bits(v.to_bits()))
            }
            _ => Err(format!("invalid number `{text}`")),
        };
    }
    if bytes.len() >= 2 && bytes[0] == b'0' {
        parse_int(text, &text[1..], 8)
    } else {
        parse_int(text, text, 10)
    }
}

fn parse_int(text: &str, digits: &str, radix: u32) -> Result<NumberValue, String> {
    let digits = digits.strip_suffix('U').unwrap_or(digits);
    let base_name = match radix {
        16 => "hexadecimal",
        8 => "octal",
        2 => "binary",
        _ => "decimal",
    };
    if digits.is_empty() || !digits.chars().all(|c| c.is_digit(radix)) {
        return Err(format!("invalid {base_name} integer `{text}`"));
    }
    u64::from_str_radix(digits, radix)
        .map(NumberValue::Int)
        .map_err(|_| format!("integer `{text}` does not fit in 64 bits"))
}

/// Decodes the contents of a string token (without its quotes): `\\`, `\"`, `\n`, `\t`,
/// `\r`, `\a`, `\b`, `\f`, `\v`, `\xHH` and octal `\NNN` escapes, as in C. Bytes that are not
/// valid UTF-8 are replaced by U+FFFD (PTX strings hold file names and pragma words).
pub fn unescape_string(inner: &str) -> String {
    let bytes = inner.as_bytes();
    let mut out: Vec<u8> = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        let b = bytes[i];
        if b != b'\\' || i + 1 >= bytes.len() {
            out.push(b);
            i += 1;
            continue;
        }
        let e = bytes[i + 1];
        i += 2;
        match e {
            b'n' => out.push(b'\n'),
            b't' => out.push(b'\t'),
            b'r' => out.push(b'\r'),
            b'a' => out.push(7),
            b'b' => out.push(8),
            b'f' => out.push(12),
            b'v' => out.push(11),
            b'x' => {
                let mut value: u32 = 0;
                let mut n = 0;
                while n < 2 && i < bytes.len() && bytes[i].is_ascii_hexdigit() {
                    value = value * 16 + (bytes[i] as char).to_digit(16).unwrap_or(0);
                    i += 1;
                    n += 1;
                }
                if n == 0 {
                    out.extend_from_slice(b"\\x");
                } else {
                    out.push(value as u8);
                }
            }
            b'0'..=b'7' => {
                let mut value: u32 = (e - b'0') as u32;
                let mut n = 1;
                while n < 3 && i < bytes.len() && (b'0'..=b'7').contains(&bytes[i]) {
                    value = value * 8 + (bytes[i] - b'0') as u32;
                    i += 1;
                    n += 1;
                }
                out.push(value as u8);
            }
            other => out.push(other),
        }
    }
    match String::from_utf8(out) {
        Ok(s) => s,
        Err(e) => String::from_utf8_lossy(e.as_bytes()).into_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn kinds(text: &str) -> Vec<(TokenKind, &str)> {
        let (tokens, errors) = lex(text);
        assert!(errors.is_empty(), "{errors:?}");
        tokens
            .iter()
            .map(|t| (t.kind, &text[t.span.range()]))
            .collect()
    }

    #[test]
    fn instruction_with_modifiers_and_operands() {
        use TokenKind::*;
        assert_eq!(
            kinds("@!%p1 ld.global.L1::no_allocate.v4.f32 {%f1}, [%rd1+-4]; // c"),
            vec![
                (At, "@"),
                (Bang, "!"),
                (Ident, "%p1"),
                (Ident, "ld"),
                (DotWord, ".global"),
                (DotWord, ".L1::no_allocate"),
                (DotWord, ".v4"),
                (DotWord, ".f32"),
                (LBrace, "{"),
                (Ident, "%f1"),
                (RBrace, "}"),
                (Comma, ","),
                (LBracket, "["),
                (Ident, "%rd1"),
                (Plus, "+"),
                (Minus, "-"),
                (Number, "4"),
                (RBracket, "]"),
                (Semi, ";"),
                (Eof, ""),
            ]
        );
    }

    #[test]
    fn byte_order_mark_is_skipped() {
        assert_eq!(
            kinds("\u{feff}.version"),
            vec![(TokenKind::DotWord, ".version"), (TokenKind::Eof, "")]
        );
    }

    #[test]
    fn comments_are_skipped() {
        use TokenKind::*;
        assert_eq!(
            kinds("a /* x \n y */ b // z\n c"),
            vec![(Ident, "a"), (Ident, "b"), (Ident, "c"), (Eof, "")]
        );
    }

    #[test]
    fn numbers_and_floats() {
        use TokenKind::*;
        assert_eq!(
            kinds("8.0 0f3F800000 0x1fU 017 1.5e-3 2e+8 %r<5>"),
            vec![
                (DecimalFloat, "8.0"),
                (Number, "0f3F800000"),
                (Number, "0x1fU"),
                (Number, "017"),
                (DecimalFloat, "1.5e-3"),
                (DecimalFloat, "2e+8"),
                (Ident, "%r"),
                (Lt, "<"),
                (Number, "5"),
                (Gt, ">"),
                (Eof, ""),
            ]
        );
        assert_eq!(
            classify_number("0f3F800000"),
            Ok(NumberValue::F32Bits(0x3F80_0000))
        );
        assert_eq!(
            classify_number("0d3FF0000000000000"),
            Ok(NumberValue::F64Bits(0x3FF0_0000_0000_0000))
        );
        assert_eq!(classify_number("0x1fU"), Ok(NumberValue::Int(31)));
        assert_eq!(classify_number("017"), Ok(NumberValue::Int(15)));
        assert_eq!(classify_number("0b101"), Ok(NumberValue::Int(5)));
        assert_eq!(classify_number("42U"), Ok(NumberValue::Int(42)));
        assert_eq!(classify_number("0"), Ok(NumberValue::Int(0)));
        assert_eq!(
            classify_number("1.5"),
            Ok(NumberValue::F64Bits(1.5f64.to_bits()))
        );
        assert_eq!(
            classify_number("1e5"),
            Ok(NumberValue::F64Bits(1e5f64.to_bits()))
        );
        assert!(
            classify_number("0f3F80")
                .unwrap_err()
                .contains("exactly 8 hex digits")
        );
        assert!(classify_number("09").unwrap_err().contains("octal"));
        assert!(
            classify_number("18446744073709551616")
                .unwrap_err()
                .contains("64 bits")
        );
        assert!(classify_number("12abc").is_err());
    }

    #[test]
    fn strings_and_escapes() {
        use TokenKind::*;
        assert_eq!(
            kinds(r#""a\"b" x"#),
            vec![(String, r#""a\"b""#), (Ident, "x"), (Eof, "")]
        );
        assert_eq!(unescape_string(r#"a\"b\\c\n\101\x41"#), "a\"b\\c\nAA");
    }

    #[test]
    fn errors_are_reported_and_skipped() {
        let (tokens, errors) = lex("a # b \"open\n c /* never closed");
        let texts: Vec<_> = tokens.iter().map(|t| t.kind).collect();
        assert_eq!(
            texts,
            vec![
                TokenKind::Ident,
                TokenKind::Ident,
                TokenKind::String,
                TokenKind::Ident,
                TokenKind::Eof
            ]
        );
        assert_eq!(errors.len(), 3);
        assert_eq!(errors[0].span, Span::new(2, 3));
        assert!(errors[1].message.contains("unterminated string"));
        assert!(errors[2].message.contains("unterminated block comment"));
    }
}
