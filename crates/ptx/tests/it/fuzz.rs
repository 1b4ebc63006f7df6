//! Property tests: `parse` never panics on any input, every span it returns (error spans and
//! every span in the tree) lies inside the input, and the tree it returns, valid or not,
//! round-trips through the printer: printing it gives text that parses without errors back
//! to the same tree (spans aside).
//!
//! Inputs are random bytes, random soups of PTX tokens, and the sample files under
//! `tests/data/` with random edits (deletions, insertions of tokens, duplicated and
//! swapped ranges). Edits that keep a sample valid are covered by the same round-trip
//! assertion, which holds for every input.
//!
//! The default case counts keep `cargo test` fast. To fuzz longer:
//!
//! ```text
//! PROPTEST_CASES=100000 cargo test -p warpcheck-ptx --release --test it fuzz::
//! ```
//!
//! A failure prints the minimal input proptest found; add it to `tests/errors.rs` or
//! `tests/constructs.rs` as a regression test once fixed.

use std::sync::OnceLock;

use proptest::prelude::*;
use proptest::test_runner::Config;
use warpcheck_ptx::{LineIndex, Span, for_each_span_mut, parse, print, without_spans};

/// Asserts everything the crate documentation promises for `text`.
fn check_invariants(text: &str) {
    let parsed = parse(text);
    let len = text.len() as u32;
    let index = LineIndex::new(text);
    for error in &parsed.errors {
        assert!(
            error.span.start <= error.span.end && error.span.end <= len,
            "error span {:?} outside input of {len} bytes: {}",
            error.span,
            error.message
        );
        assert!(!error.message.is_empty());
        // Formatting the position must not panic either.
        let _ = error.display_with(text, &index);
    }
    let mut module = parsed.module.clone();
    let mut bad_span: Option<Span> = None;
    for_each_span_mut(&mut module, |span| {
        if span.start > span.end || span.end > len {
            bad_span.get_or_insert(*span);
        }
    });
    assert_eq!(
        bad_span, None,
        "a tree span lies outside the input of {len} bytes"
    );

    let printed = print(&parsed.module);
    let reparsed = parse(&printed);
    assert!(
        reparsed.errors.is_empty(),
        "printed tree does not parse: {:?}\n--- input ---\n{text}\n--- printed ---\n{printed}",
        reparsed.errors
    );
    assert!(
        without_spans(&reparsed.module) == without_spans(&parsed.module),
        "round trip changed the tree\n--- input ---\n{text}\n--- printed ---\n{printed}"
    );
}

/// Fragments that PTX is made of, including malformed ones.
const VOCABULARY: &[&str] = &[
    ".version",
    "8.0",
    ".target",
    "sm_80",
    ",",
    "debug",
    ".address_size",
    "64",
    ".file",
    "1",
    "\"k.cu\"",
    "\"",
    ".visible",
    ".extern",
    ".weak",
    ".common",
    ".entry",
    ".func",
    "k",
    "(",
    ")",
    "{",
    "}",
    "[",
    "]",
    ";",
    ":",
    "<",
    ">",
    "=",
    "+",
    "-",
    "*",
    "/",
    "%",
    "&",
    "|",
    "^",
    "~",
    "!",
    "@",
    "_",
    ".param",
    ".reg",
    ".local",
    ".shared",
    ".global",
    ".const",
    ".u64",
    ".b32",
    ".f32",
    ".pred",
    ".v4",
    ".align",
    "16",
    ".ptr",
    ".attribute",
    ".managed",
    "%r<5>",
    "%r1",
    "%rd1",
    "%p1",
    "%tid",
    ".x",
    "ld",
    "st",
    "mov",
    "add",
    "bra",
    "call",
    "ret",
    "$L__BB0_1",
    "0f3F800000",
    "0d3FF0000000000000",
    "0x1F",
    "017",
    "0b101",
    "42U",
    "-1",
    "1.5",
    "0f3F80",
    "09",
    "generic",
    ".loc",
    "function_name",
    "inlined_at",
    ".pragma",
    "\"nounroll\"",
    ".section",
    ".debug_info",
    ".b8",
    ".debug_abbrev",
    ".branchtargets",
    ".calltargets",
    ".callprototype",
    "prototype_0",
    ".noreturn",
    ".maxntid",
    "256",
    "//",
    "/*",
    "*/",
    "\n",
    "==",
    "<<",
    ">>",
    "&&",
    "#",
    "\u{e9}",
    ".L1::no_allocate",
    ".1d",
    ".alias",
    "[]",
    "99999999999999999999999",
];

fn samples() -> &'static [String] {
    static SAMPLES: OnceLock<Vec<String>> = OnceLock::new();
    SAMPLES.get_or_init(|| {
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data");
        let mut texts = Vec::new();
        for dir in ["clang", "nvcc", "handwritten"] {
            let mut paths: Vec<_> = std::fs::read_dir(root.join(dir))
                .expect("test data directory exists")
                .map(|e| e.expect("readable directory entry").path())
                .filter(|p| p.extension().is_some_and(|e| e == "ptx"))
                .collect();
            paths.sort();
            for path in paths {
                texts.push(std::fs::read_to_string(path).expect("sample is UTF-8"));
            }
        }
        texts
    })
}

/// The largest char boundary of `text` not after `at`.
fn boundary(text: &str, at: usize) -> usize {
    let mut at = at.min(text.len());
    while !text.is_char_boundary(at) {
        at -= 1;
    }
    at
}

/// One edit of a sample; positions are fractions of the text length in 1/65536.
#[derive(Clone, Debug)]
enum Edit {
    Delete { at: u16, len: u16 },
    Insert { at: u16, fragment: &'static str },
    Duplicate { at: u16, len: u16 },
    Swap { a: u16, b: u16, len: u16 },
}

fn apply(text: &mut String, edit: &Edit) {
    let position =
        |text: &String, fraction: u16| boundary(text, text.len() * fraction as usize / 65536);
    match *edit {
        Edit::Delete { at, len } => {
            let start = position(text, at);
            let end = boundary(text, start + len as usize % 64);
            text.replace_range(start..end, "");
        }
        Edit::Insert { at, fragment } => {
            let start = position(text, at);
            text.insert_str(start, fragment);
        }
        Edit::Duplicate { at, len } => {
            let start = position(text, at);
            let end = boundary(text, start + len as usize % 200);
            let copy = text[start..end].to_string();
            text.insert_str(end, &copy);
        }
        Edit::Swap { a, b, len } => {
            let (a, b) = (position(text, a), position(text, b));
            let (first, second) = (a.min(b), a.max(b));
            let first_end = boundary(text, (first + len as usize % 100).min(second));
            let second_end = boundary(text, second + len as usize % 100);
            if first_end <= first || second_end <= second {
                return;
            }
            let x = text[first..first_end].to_string();
            let y = text[second..second_end].to_string();
            text.replace_range(second..second_end, &x);
            text.replace_range(first..first_end, &y);
        }
    }
}

fn edit_strategy() -> impl Strategy<Value = Edit> {
    prop_oneof![
        (any::<u16>(), any::<u16>()).prop_map(|(at, len)| Edit::Delete { at, len }),
        (any::<u16>(), prop::sample::select(VOCABULARY))
            .prop_map(|(at, fragment)| Edit::Insert { at, fragment }),
        (any::<u16>(), any::<u16>()).prop_map(|(at, len)| Edit::Duplicate { at, len }),
        (any::<u16>(), any::<u16>(), any::<u16>()).prop_map(|(a, b, len)| Edit::Swap { a, b, len }),
    ]
}

fn config(default_cases: u32) -> Config {
    // `PROPTEST_CASES` in the environment overrides the default case count.
    let cases = std::env::var("PROPTEST_CASES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default_cases);
    Config {
        cases,
        failure_persistence: None,
        ..Config::default()
    }
}

proptest! {
    #![proptest_config(config(256))]

    #[test]
    fn fuzz_random_bytes(bytes in prop::collection::vec(any::<u8>(), 0..2000)) {
        check_invariants(&String::from_utf8_lossy(&bytes));
    }

    #[test]
    fn fuzz_random_ascii(text in "[ -~\n\t]{0,2000}") {
        check_invariants(&text);
    }

    #[test]
    fn fuzz_token_soup(
        tokens in prop::collection::vec(
            (prop::sample::select(VOCABULARY), prop::sample::select(&[" ", "", "\n", "\t"][..])),
            0..400,
        )
    ) {
        let text: String = tokens.iter().flat_map(|(token, separator)| [*token, *separator]).collect();
        check_invariants(&text);
    }
}

proptest! {
    #![proptest_config(config(128))]

    #[test]
    fn fuzz_edited_samples(sample in any::<prop::sample::Index>(), edits in prop::collection::vec(edit_strategy(), 1..8)) {
        let samples = samples();
        let mut text = samples[sample.index(samples.len())].clone();
        for edit in &edits {
            apply(&mut text, edit);
        }
        check_invariants(&text);
    }

    /// Swapping whole lines inside a sample mostly keeps it valid (reordered statements),
    /// exercising the round trip on valid modules other than the samples themselves.
    #[test]
    fn fuzz_line_swaps(sample in any::<prop::sample::Index>(), swaps in prop::collection::vec((any::<prop::sample::Index>(), any::<prop::sample::Index>()), 1..6)) {
        let samples = samples();
        let text = &samples[sample.index(samples.len())];
        let mut lines: Vec<&str> = text.lines().collect();
        for (a, b) in &swaps {
            let (a, b) = (a.index(lines.len()), b.index(lines.len()));
            lines.swap(a, b);
        }
        check_invariants(&lines.join("\n"));
    }
}

#[test]
fn samples_satisfy_the_invariants() {
    for text in samples() {
        check_invariants(text);
    }
}
