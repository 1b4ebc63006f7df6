//! PTX text to syntax tree and back.
//!
//! Invariant: parsing never panics and never stops at the first error. [`parse`] returns
//! the module it could build together with every error it met, each with the span of the
//! offending text; a statement that fails to parse is skipped up to its `;` (or up to the
//! `}` closing its block, or to the end of its line for line-based directives such as
//! `.loc`) and reported. Every error span lies inside the input. Nesting deeper than
//! [`parser::MAX_NESTING`] levels is reported, not followed, so the stack stays bounded, and
//! parsing takes time linear in the input.
//!
//! Round trip: for every input `x`, with `m = parse(x).module`,
//! `without_spans(&parse(&print(&m)).module) == without_spans(&m)`; the printer loses
//! nothing the tree holds (comments and number spellings are not in the tree).
//!
//! * [`lexer`]: text to zero-copy tokens (`logos`).
//! * [`parser`]: tokens to [`ast::Module`] with error recovery.
//! * [`printer`]: [`ast::Module`] back to PTX text.
//! * [`erase`]: a visitor over all spans; span erasure for structural comparison.
//!
//! ```
//! let text = ".version 8.0\n.target sm_80\n.address_size 64\n\
//!             .visible .entry k(.param .u64 p)\n{\n\tret;\n}\n";
//! let parsed = warpcheck_ptx::parse(text);
//! assert!(parsed.errors.is_empty());
//! let printed = warpcheck_ptx::print(&parsed.module);
//! let reparsed = warpcheck_ptx::parse(&printed);
//! assert_eq!(
//!     warpcheck_ptx::without_spans(&reparsed.module),
//!     warpcheck_ptx::without_spans(&parsed.module)
//! );
//! ```

pub mod ast;
pub mod erase;
pub mod lexer;
pub mod parser;
pub mod printer;
pub mod span;

pub use erase::{erase_spans, for_each_span_mut, without_spans};
pub use parser::{ParseError, Parsed, parse};
pub use printer::print;
pub use span::{LineCol, LineIndex, Span, Spanned};
