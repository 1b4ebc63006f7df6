//! Unsupported or invalid input gives clear errors with the right span, all of them,
//! and never a panic.

use crate::common;

use common::{HEADER, kernel, lower_errors};

/// Errors for one instruction placed in the test kernel; the instruction is on line 17.
fn errors_for(instruction: &str) -> Vec<String> {
    lower_errors(&kernel(&format!("\t{instruction};")))
}

fn assert_error(instruction: &str, expected: &str) {
    let errors = errors_for(instruction);
    assert_eq!(errors, vec![expected.to_string()], "for `{instruction}`");
}

#[test]
fn unsupported_modifier_names_the_modifier_and_the_manual_section() {
    assert_error(
        "ld.global.foo.f32 %f1, [%rd1]",
        "17:11: unsupported instruction `ld.global.foo.f32`: modifier `.foo` is not supported for `ld` (PTX ISA §9.7.8.8, §9.7.8.9)",
    );
    assert_error(
        "add.s32.wrap %r1, %r2, %r3",
        "17:9: unsupported instruction `add.s32.wrap`: modifier `.wrap` is not supported for `add` (PTX ISA §9.7.1.1, §9.7.3.3, §9.7.4.1, §9.7.2.1)",
    );
}

#[test]
fn unknown_opcodes_and_removed_forms() {
    assert_error(
        "foo.bar.baz %r1",
        "17:2: unsupported instruction `foo.bar.baz`: `foo` is not in warpcheck's instruction table",
    );
    let errors = errors_for("vote.ballot.b32 %r1, %p1");
    assert_eq!(
        errors,
        vec!["17:2: unsupported instruction `vote.ballot.b32`: `vote` is not in warpcheck's instruction table\n  help: supported forms start with `vote.sync`, `vote.ballot.sync`".to_string()]
    );
}

#[test]
fn invalid_modifier_combinations() {
    assert_error(
        "add.rn.s32 %r1, %r2, %r3",
        "17:2: unsupported instruction `add.rn.s32`: `.rn` applies only to floating-point types (PTX ISA §9.7.1.1, §9.7.3.3, §9.7.4.1, §9.7.2.1)",
    );
    assert_error(
        "add.rn.rz.f32 %f1, %f2, %f3",
        "17:8: unsupported instruction `add.rn.rz.f32`: modifier `.rz` conflicts with `.rn` (PTX ISA §9.7.1.1, §9.7.3.3, §9.7.4.1, §9.7.2.1)",
    );
    assert_error(
        "mul.s32 %r1, %r2, %r3",
        "17:2: unsupported instruction `mul.s32`: integer multiplication needs `.lo`, `.hi` or `.wide` (PTX ISA §9.7.1.3, §9.7.3.5, §9.7.4.3)",
    );
    assert_error(
        "ld.relaxed.global.u32 %r1, [%rd1]",
        "17:2: unsupported instruction `ld.relaxed.global.u32`: `.relaxed`, `.acquire` and `.release` need a scope (`.cta`, `.cluster`, `.gpu`, `.sys`) (PTX ISA §9.7.8.8, §9.7.8.9)",
    );
    assert_error(
        "cvt.f32.s32 %f1, %r1",
        "17:2: unsupported instruction `cvt.f32.s32`: integer-to-float conversions need a rounding modifier (`.rn`, `.rz`, `.rm`, `.rp`) (PTX ISA §9.7.8.20)",
    );
    assert_error(
        "atom.global.add.b32 %r1, [%rd1], 1",
        "17:2: unsupported instruction `atom.global.add.b32`: type `.b32` is not supported here; expected one of .u32 .u64 .s32 .f32 .f64 .f16 .f16x2 .bf16 .bf16x2 (PTX ISA §9.7.12.5)",
    );
    assert_error(
        "ld.shared.nc.f32 %f1, [%rd1]",
        "17:2: unsupported instruction `ld.shared.nc.f32`: `.nc` is only valid with `.global` (PTX ISA §9.7.8.8, §9.7.8.9)",
    );
}

#[test]
fn missing_modifiers_list_the_choices() {
    assert_error(
        "setp.s32 %p1, %r1, %r2",
        "17:2: unsupported instruction `setp.s32`: `setp` needs a comparison (PTX ISA §9.7.5.2, §9.7.6.2)\n  help: add one of `.eq` `.ne` `.lt` `.le` `.gt` `.ge` `.lo` `.ls` `.hi` `.hs` `.equ` `.neu` `.ltu` `.leu` `.gtu` `.geu` `.num` `.nan`",
    );
    assert_error(
        "add %r1, %r2, %r3",
        "17:2: unsupported instruction `add`: `add` needs an instruction type (PTX ISA §9.7.1.1, §9.7.3.3, §9.7.4.1, §9.7.2.1)",
    );
}

#[test]
fn operand_errors_point_at_the_operand() {
    assert_error(
        "ld.global.f32 %f1, %rd1",
        "17:21: operand 2 of `ld.global.f32` must be an address `[...]`, found a register",
    );
    assert_error(
        "add.s32 %r1, %r2",
        "17:2: `add.s32` takes 3 operands (a register, a register, literal or special register, a register, literal or special register), found 2 (PTX ISA §9.7.1.1, §9.7.3.3, §9.7.4.1, §9.7.2.1)",
    );
    assert_error(
        "ld.global.v4.f32 %f1, [%rd1]",
        "17:19: `ld.global.v4.f32` needs a vector `{...}` of 4 elements",
    );
    assert_error(
        "ld.global.v2.f32 {%f1, %f2, %f3}, [%rd1]",
        "17:19: `ld.global.v2.f32` needs a vector of 2 elements, found 3",
    );
    assert_error(
        "selp.b32 %r1, %r2, %r3, %r4",
        "17:26: operand 4 of `selp.b32` must be a predicate register, found the `.b32` register `%r4`",
    );
    assert_error(
        "mov.u32 %r1, %tid",
        "17:15: special register `%tid` needs a component (`%tid.x`, `%tid.y` or `%tid.z`)",
    );
    assert_error(
        "mov.u32 %r1, %q7",
        "17:15: unknown register `%q7`\n  help: registers must be declared with `.reg` before use",
    );
    assert_error("bra $nowhere", "17:6: unknown name `$nowhere`");
    assert_error(
        "@%r1 bra $L_target",
        "17:3: `%r1` is a `.b32` register, not a predicate",
    );
    assert_error(
        "ld.global.f32 %f1, [callee]",
        "17:22: function `callee` cannot be addressed as memory",
    );
}

#[test]
fn all_errors_are_collected_and_good_instructions_still_lower() {
    let text = kernel(
        "\tadd.rn.s32 %r1, %r2, %r3;\n\tadd.s32 %r1, %r2, %r3;\n\tfoo.u32 %r1;\n\tld.global.f32 %f1, [%q1];",
    );
    let errors = lower_errors(&text);
    assert_eq!(errors.len(), 3, "{errors:#?}");
    assert!(errors[0].starts_with("17:2: unsupported instruction `add.rn.s32`"));
    assert!(errors[1].starts_with("19:2: unsupported instruction `foo.u32`"));
    assert!(errors[2].starts_with("20:22: unknown register `%q1`"));
}

#[test]
fn module_level_errors() {
    let text = format!(
        "{HEADER}.reg .b32 %bad;\n.global .u32 twice;\n.global .u32 twice;\n.global .b8 small[2] = {{1, 2, 3}};\n\
         .func f() {{ ret; }}\n.func f() {{ ret; }}\n.global .align 3 .b8 odd[4];\n"
    );
    let errors = lower_errors(&text);
    assert_eq!(
        errors,
        vec![
            "9:7: function `f` is defined twice",
            "4:1: `.reg` variables cannot be declared at module scope",
            "6:14: variable `twice` is declared twice",
            "10:16: alignment 3 is not a power of two",
            "7:13: 3 initialisers do not fit in 2 bytes of `.b8`",
        ]
    );
}

#[test]
fn declarations_in_scope_errors() {
    let text = format!("{HEADER}.entry k()\n{{\n\t.reg .b32 %r;\n\t.reg .b32 %r;\n\tret;\n}}\n");
    assert_eq!(
        lower_errors(&text),
        vec!["7:12: `%r` is declared twice in the same scope"]
    );
    let text = format!("{HEADER}.entry k()\n{{\n$L1:\n\tret;\n$L1:\n\tret;\n}}\n");
    assert_eq!(
        lower_errors(&text),
        vec!["8:1: label `$L1` is defined twice"]
    );
}

/// Deleting any one line of a realistic kernel must give errors or a program, never a
/// panic (undeclared registers, dangling labels, unclosed scopes, missing operands).
#[test]
fn never_panics_on_damaged_input() {
    let original = kernel(
        "\t{\n\t.reg .b32 temp;\n\t.param .b32 param0;\n\tst.param.b32 [param0], %r1;\n\t.param .b32 retval0;\n\
         \tcall (retval0), callee, (param0);\n\tld.param.b32 %r2, [retval0];\n\t}\n\
         \tsetp.lt.s32 %p1, %r2, 10;\n\t@%p1 bra $L_target;\n$L_exit:\n\tbar.sync 0;\n\t@!%p1 bra $L_exit;",
    );
    let lines: Vec<&str> = original.lines().collect();
    for skip in 0..lines.len() {
        let damaged: String = lines
            .iter()
            .enumerate()
            .filter(|(i, _)| *i != skip)
            .map(|(_, l)| format!("{l}\n"))
            .collect();
        let parsed = warpcheck_ptx::parse(&damaged);
        let _ = warpcheck_ir::lower(&parsed.module);
        // Also with each line doubled (duplicate declarations and labels).
        let doubled: String = lines
            .iter()
            .enumerate()
            .map(|(i, l)| {
                if i == skip {
                    format!("{l}\n{l}\n")
                } else {
                    format!("{l}\n")
                }
            })
            .collect();
        let parsed = warpcheck_ptx::parse(&doubled);
        let _ = warpcheck_ir::lower(&parsed.module);
    }
}

/// Sizes that would exhaust memory or overflow are errors, not crashes.
#[test]
fn oversized_declarations_are_errors() {
    let text = format!(
        "{HEADER}.global .b8 huge[4000000000] = {{1}};\n.global .b64 wide[4611686018427387904][8];\n\
         .entry k()\n{{\n\t.reg .b32 %r<100000000>;\n\tret;\n}}\n"
    );
    let errors = lower_errors(&text);
    assert_eq!(
        errors,
        vec![
            "5:14: the size of `wide` overflows 64 bits",
            "4:13: initialised variables larger than 256 MiB are not supported (4000000000 bytes)",
            "8:15: register range `%r<100000000>` is larger than the supported 1048576",
        ]
    );
}
