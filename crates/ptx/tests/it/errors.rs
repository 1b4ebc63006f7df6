//! Malformed PTX: each error names what was expected and what was found, at the right
//! line:column, and parsing goes on after it.

use warpcheck_ptx::ast::*;
use warpcheck_ptx::parser::MAX_NESTING;
use warpcheck_ptx::{LineIndex, parse};

fn errors(text: &str) -> Vec<String> {
    let parsed = parse(text);
    let index = LineIndex::new(text);
    parsed
        .errors
        .iter()
        .map(|e| e.display_with(text, &index))
        .collect()
}

fn kernel(body: &str) -> String {
    format!(".version 8.0\n.target sm_80\n.address_size 64\n.entry k()\n{{\n{body}\n}}\n")
}

/// Statements of the first function of `text`, which may have errors.
fn statements(text: &str) -> Vec<Statement> {
    parse(text)
        .module
        .items
        .into_iter()
        .find_map(|i| match i {
            Item::Function(f) => f.body.map(|b| b.statements),
            _ => None,
        })
        .expect("a function with a body")
}

fn opcodes(statements: &[Statement]) -> Vec<String> {
    statements
        .iter()
        .filter_map(|s| match s {
            Statement::Instruction(i) => Some(i.opcode.value.clone()),
            _ => None,
        })
        .collect()
}

#[test]
fn missing_semicolon_before_closing_brace() {
    let text = kernel("\tadd.s32 %r1, %r2, %r3");
    assert_eq!(
        errors(&text),
        ["7:1: expected `;` after instruction, found `}`"]
    );
}

#[test]
fn error_then_parsing_continues_with_next_statement() {
    let text = kernel("\tmov.u32 %r1, ;\n\tadd.s32 %r1, %r2, 1;\n\tret;");
    assert_eq!(
        errors(&text),
        ["6:15: expected an operand or constant expression, found `;`"]
    );
    assert_eq!(opcodes(&statements(&text)), ["add", "ret"]);
}

#[test]
fn unknown_directive_in_body() {
    let text = kernel("\t.bogus 1;\n\tret;");
    assert_eq!(
        errors(&text),
        [
            "6:2: unknown directive `.bogus` in function body: expected `.reg`, `.local`, `.shared`, `.param`, `.loc`, `.pragma` or an instruction"
        ]
    );
    assert_eq!(opcodes(&statements(&text)), ["ret"]);
}

#[test]
fn malformed_literals() {
    let text =
        kernel("\tmov.f32 %f1, 0f3F80;\n\tmov.u32 %r1, 09;\n\tmov.u32 %r1, 99999999999999999999;");
    assert_eq!(
        errors(&text),
        [
            "6:15: invalid float literal `0f3F80`: `0f` must be followed by exactly 8 hex digits",
            "7:15: invalid octal integer `09`",
            "8:15: integer `99999999999999999999` does not fit in 64 bits",
        ]
    );
}

#[test]
fn lexical_errors() {
    let text = ".version 8.0\n.target sm_80 # junk\n.file 1 \"open\n/* never closed";
    let parsed = parse(text);
    let Some(Item::File(file)) = parsed.module.items.last() else {
        panic!("{:?}", parsed.module)
    };
    assert_eq!(file.path.value, "open");
    assert_eq!(
        errors(text),
        [
            "2:15: unexpected character \"#\"",
            "2:17: expected a module directive such as `.version`, `.entry` or `.global`, found `junk`",
            "3:9: unterminated string: expected `\"` before end of line",
            "4:1: unterminated block comment: expected `*/` before end of input",
        ]
    );
}

#[test]
fn unclosed_function_body() {
    let text = ".entry k()\n{\n\tret;\n";
    assert_eq!(
        errors(text),
        ["4:1: expected `}` to close the block, found end of input"]
    );
    assert_eq!(opcodes(&statements(text)), ["ret"]);
}

#[test]
fn loc_error_recovers_at_end_of_line() {
    let text = kernel("\t.loc 1 2\n\tmov.u32 %r1, 1;\n\t.loc 1 x 3\n\tret;");
    assert_eq!(
        errors(&text),
        [
            "7:2: expected a column number in `.loc`, found `mov`",
            "8:9: expected a line number in `.loc`, found `x`"
        ]
    );
    assert_eq!(opcodes(&statements(&text)), ["mov", "ret"]);
}

#[test]
fn module_level_recovery_keeps_the_next_item() {
    let text = ".global .b32 x\n.visible .entry k()\n{\n\tret;\n}\n";
    assert_eq!(
        errors(text),
        ["2:1: expected `;` after variable declaration, found `.visible`"]
    );
    let module = parse(text).module;
    assert!(
        matches!(&module.items[..], [Item::Function(f)] if f.name.value == "k" && f.linkage.len() == 1)
    );
}

#[test]
fn bad_function_header_skips_the_whole_function() {
    let text = ".entry k(.param .u64 1p)\n{\n\tret;\n}\n.entry j()\n{\n\tret;\n}\n";
    assert_eq!(errors(text), ["1:22: expected a variable name, found `1p`"]);
    let module = parse(text).module;
    assert!(matches!(&module.items[..], [Item::Function(f)] if f.name.value == "j"));
}

#[test]
fn bad_module_directive() {
    let text = ".version 8\n.target\n.address_size 64\nfoo bar;\n.entry k() { ret; }";
    assert_eq!(
        errors(text),
        [
            "1:10: expected a version number `major.minor` after `.version`, found `8`",
            "3:1: expected a target such as `sm_80` after `.target`, found `.address_size`",
            "4:1: expected a module directive such as `.version`, `.entry` or `.global`, found `foo`",
        ]
    );
    let module = parse(text).module;
    assert!(matches!(
        &module.items[..],
        [Item::AddressSize { bits: 64, .. }, Item::Function(_)]
    ));
}

#[test]
fn unsupported_operators_and_non_constant_offsets() {
    let text = kernel("\tmov.u32 %r1, 1==2;\n\tld.global.u32 %r1, [%rd1+%r2];\n\tret;");
    assert_eq!(
        errors(&text),
        [
            "6:16: operator `==` is not supported in constant expressions",
            "7:27: address offset must be an integer constant"
        ]
    );
}

#[test]
fn section_errors_recover_at_the_next_entry() {
    let text = ".section .debug_info\n{\n.b8 1\n.b8 ,\n.b8 3\nfoo\n}\n";
    assert_eq!(
        errors(text),
        [
            "4:5: expected an operand or constant expression, found `,`",
            "6:1: expected a label or a data directive such as `.b8` in the section, found `foo`",
        ]
    );
    let module = parse(text).module;
    let [Item::Section(section)] = &module.items[..] else {
        panic!()
    };
    assert_eq!(section.entries.len(), 2);
}

#[test]
fn deep_block_nesting_is_an_error_not_a_stack_overflow() {
    let depth = 10_000;
    let text = kernel(&format!("{}ret;{}", "{".repeat(depth), "}".repeat(depth)));
    let errors = errors(&text);
    assert_eq!(errors.len(), 1, "{errors:?}");
    assert!(
        errors[0].ends_with(&format!(
            "nesting deeper than {MAX_NESTING} levels is not supported"
        )),
        "{errors:?}"
    );
}

#[test]
fn deep_expression_nesting_is_an_error_not_a_stack_overflow() {
    let depth = 100_000;
    for body in [
        format!(
            "\tmov.u32 %r1, {}1{};",
            "(".repeat(depth),
            ")".repeat(depth)
        ),
        format!("\tmov.u32 %r1, {}1;", "-".repeat(depth)),
        format!("\tselp.u32 %r1, 1, 0, {}%p1;", "!".repeat(depth)),
        format!(
            "\tmov.b64 {}%r1{}, %rd1;",
            "{".repeat(depth),
            "}".repeat(depth)
        ),
        format!("\tmov.u32 %r1, 1{};", "+1".repeat(depth)),
    ] {
        let text = kernel(&body);
        let parsed = parse(&text);
        assert!(
            parsed
                .errors
                .iter()
                .all(|e| e.message.contains("nesting deeper")),
            "{:?}",
            &parsed.errors[..parsed.errors.len().min(3)]
        );
    }
    let initializer = format!(
        ".global .u32 x = {}1{};",
        "{".repeat(depth),
        "}".repeat(depth)
    );
    let messages: Vec<String> = parse(&initializer)
        .errors
        .into_iter()
        .map(|e| e.message)
        .collect();
    assert_eq!(
        messages,
        [format!(
            "nesting deeper than {MAX_NESTING} levels is not supported"
        )]
    );
}

#[test]
fn error_messages_truncate_long_tokens() {
    let long_name = "x".repeat(200);
    let text = format!(".global .b32 v {long_name};");
    let errors = errors(&text);
    assert_eq!(errors.len(), 1);
    assert!(
        errors[0].starts_with("1:16: expected `;` after variable declaration, found `xxxx"),
        "{errors:?}"
    );
    assert!(errors[0].len() < 120, "{errors:?}");
}

#[test]
fn empty_and_whitespace_input() {
    assert!(parse("").errors.is_empty());
    assert!(
        parse("  // only a comment\n/* and another */\n")
            .errors
            .is_empty()
    );
    assert!(parse("").module.items.is_empty());
}
