//! One test per construct the compilers emit: the tree the parser builds for it, and that the
//! printed form parses back to the same tree.

use warpcheck_ptx::ast::*;
use warpcheck_ptx::{LineIndex, parse, print, without_spans};

/// Parses `text`, asserting that it has no errors and that it round-trips through the printer.
fn parse_ok(text: &str) -> Module {
    let parsed = parse(text);
    let index = LineIndex::new(text);
    let errors: Vec<_> = parsed
        .errors
        .iter()
        .map(|e| e.display_with(text, &index))
        .collect();
    assert!(errors.is_empty(), "unexpected errors: {errors:#?}");
    let printed = print(&parsed.module);
    let reparsed = parse(&printed);
    assert!(
        reparsed.errors.is_empty(),
        "printed text has errors {:?}:\n{printed}",
        reparsed.errors
    );
    assert_eq!(
        without_spans(&reparsed.module),
        without_spans(&parsed.module),
        "printed:\n{printed}"
    );
    parsed.module
}

/// Parses `body` as the body of a kernel and returns its statements.
fn body(body: &str) -> Vec<Statement> {
    let text =
        format!(".version 8.0\n.target sm_80\n.address_size 64\n.entry k()\n{{\n{body}\n}}\n");
    let module = parse_ok(&text);
    match module.items.into_iter().last() {
        Some(Item::Function(f)) => f.body.expect("kernel has a body").statements,
        other => panic!("expected a function, got {other:?}"),
    }
}

fn instruction(text: &str) -> Instruction {
    match body(text).into_iter().next() {
        Some(Statement::Instruction(i)) => i,
        other => panic!("expected an instruction, got {other:?}"),
    }
}

fn only_item(text: &str) -> Item {
    let mut items = parse_ok(text).items;
    assert_eq!(items.len(), 1, "{items:?}");
    items.remove(0)
}

fn names(idents: &[Ident]) -> Vec<&str> {
    idents.iter().map(|i| i.value.as_str()).collect()
}

fn operand_text(op: &Operand) -> String {
    op.to_string()
}

#[test]
fn module_header_directives() {
    let module = parse_ok(
        ".version 8.3\n.target sm_90a, debug\n.address_size 64\n.file 1 \"/a b/k.cu\", 1700000000, 1234\n.file 2 \"x.h\"\n",
    );
    match &module.items[..] {
        [
            Item::Version {
                major: 8, minor: 3, ..
            },
            Item::Target { targets, .. },
            Item::AddressSize { bits: 64, .. },
            Item::File(f1),
            Item::File(f2),
        ] => {
            assert_eq!(names(targets), ["sm_90a", "debug"]);
            assert_eq!((f1.index, f1.path.value.as_str()), (1, "/a b/k.cu"));
            assert_eq!(
                f1.extra.iter().map(|e| e.value).collect::<Vec<_>>(),
                [1_700_000_000, 1234]
            );
            assert_eq!(
                (f2.index, f2.path.value.as_str(), f2.extra.len()),
                (2, "x.h", 0)
            );
        }
        other => panic!("{other:?}"),
    }
}

#[test]
fn string_escapes_round_trip() {
    let Item::File(file) = only_item(r#".file 1 "C:\\dir\\k \"q\".cu""#) else {
        panic!()
    };
    assert_eq!(file.path.value, r#"C:\dir\k "q".cu"#);
}

#[test]
fn register_declarations() {
    let statements = body(".reg .pred %p<3>;\n.reg .b32 %r<5>;\n.reg .b64 %SP, %SPL;");
    let Statement::Variable(decl) = &statements[1] else {
        panic!()
    };
    assert_eq!(decl.space.value, StateSpace::Reg);
    assert_eq!(decl.ty.value, ScalarType::B32);
    assert_eq!(decl.declarators[0].name.value, "%r");
    assert_eq!(decl.declarators[0].range.as_ref().map(|r| r.value), Some(5));
    let Statement::Variable(decl) = &statements[2] else {
        panic!()
    };
    assert_eq!(
        decl.declarators
            .iter()
            .map(|d| d.name.value.as_str())
            .collect::<Vec<_>>(),
        ["%SP", "%SPL"]
    );
}

#[test]
fn module_variables_with_linkage_alignment_arrays_and_initialisers() {
    let module = parse_ok(
        ".visible .global .align 4 .b8 table[16] = {1, 0, 0, 0, 2};\n\
         .extern .shared .align 16 .b8 smem[];\n\
         .global .align 4 .b8 grid[4][8];\n\
         .global .align 16 .v4 .f32 v = {0f3F800000, 0f00000000, 1.5, 0d4000000000000000};\n\
         .global .align 8 .u64 ptrs[2] = {generic(table), generic(smem)+8};\n\
         .visible .global .attribute(.managed) .align 4 .u32 m;\n\
         .weak .common .global .u32 w = 7;\n",
    );
    let decls: Vec<&VariableDecl> = module
        .items
        .iter()
        .map(|i| match i {
            Item::Variable(d) => d,
            other => panic!("{other:?}"),
        })
        .collect();
    assert_eq!(
        decls[0].linkage.iter().map(|l| l.value).collect::<Vec<_>>(),
        [Linkage::Visible]
    );
    assert_eq!(decls[0].align.as_ref().map(|a| a.value), Some(4));
    assert_eq!(decls[0].declarators[0].dims, [Some(16)]);
    let Some(Initializer::List { items, .. }) = &decls[0].declarators[0].init else {
        panic!()
    };
    assert_eq!(items.len(), 5);
    assert_eq!(decls[1].linkage[0].value, Linkage::Extern);
    assert_eq!(decls[1].space.value, StateSpace::Shared);
    assert_eq!(decls[1].declarators[0].dims, [None]);
    assert_eq!(decls[2].declarators[0].dims, [Some(4), Some(8)]);
    assert_eq!(decls[3].vector.as_ref().map(|v| v.value), Some(4));
    let Some(Initializer::List { items, .. }) = &decls[3].declarators[0].init else {
        panic!()
    };
    let kinds: Vec<&ExprKind> = items
        .iter()
        .map(|i| match i {
            Initializer::Expr(e) => &e.kind,
            other => panic!("{other:?}"),
        })
        .collect();
    assert_eq!(
        kinds,
        [
            &ExprKind::F32(0x3F80_0000),
            &ExprKind::F32(0),
            &ExprKind::F64(1.5f64.to_bits()),
            &ExprKind::F64(0x4000_0000_0000_0000)
        ]
    );
    let Some(Initializer::List { items, .. }) = &decls[4].declarators[0].init else {
        panic!()
    };
    let Initializer::Expr(Expr {
        kind: ExprKind::Binary(BinaryOp::Add, call, offset),
        ..
    }) = &items[1]
    else {
        panic!("{items:?}")
    };
    let ExprKind::Call(callee, args) = &call.kind else {
        panic!()
    };
    assert_eq!(callee.value, "generic");
    assert_eq!(args[0].kind, ExprKind::Name("smem".into()));
    assert_eq!(offset.kind, ExprKind::Int(8));
    assert_eq!(names(&decls[5].attributes), ["managed"]);
    assert_eq!(
        decls[6].linkage.iter().map(|l| l.value).collect::<Vec<_>>(),
        [Linkage::Weak, Linkage::Common]
    );
}

#[test]
fn kernel_with_pointer_parameters_and_performance_directives() {
    let Item::Function(f) = only_item(
        ".visible .entry _Z3fooPf(\n\t.param .u64 .ptr .global .align 4 p,\n\t.param .align 8 .b8 s[16],\n\t.param .u32 n\n)\n\
         .maxntid 256, 1, 1\n.minnctapersm 2\n.pragma \"nounroll\"\n{\n\tret;\n}\n",
    ) else {
        panic!()
    };
    assert_eq!(f.kind.value, FunctionKind::Entry);
    assert_eq!(f.linkage[0].value, Linkage::Visible);
    assert_eq!(f.name.value, "_Z3fooPf");
    assert_eq!(f.params.len(), 3);
    let ptr = f.params[0].ptr.as_ref().expect("pointer attributes");
    assert_eq!(
        ptr.space.as_ref().map(|s| s.value),
        Some(StateSpace::Global)
    );
    assert_eq!(ptr.align.as_ref().map(|a| a.value), Some(4));
    assert_eq!(f.params[0].align, None);
    assert_eq!(f.params[1].align.as_ref().map(|a| a.value), Some(8));
    assert_eq!(f.params[1].declarators[0].dims, [Some(16)]);
    let directives: Vec<&str> = f.directives.iter().map(|d| d.name.value.as_str()).collect();
    assert_eq!(directives, ["maxntid", "minnctapersm", "pragma"]);
    assert_eq!(f.directives[0].args.len(), 3);
    assert!(matches!(&f.directives[2].args[0], DirectiveArg::String(s) if s.value == "nounroll"));
}

#[test]
fn device_function_declarations_returns_and_noreturn() {
    let module = parse_ok(
        ".extern .func (.param .b32 func_retval0) vprintf\n(\n\t.param .b64 vprintf_param_0,\n\t.param .b64 vprintf_param_1\n)\n;\n\
         .visible .func _Z5abortv()\n.noreturn\n{\n\ttrap;\n}\n\
         .func (.reg .b32 r) regfn(.reg .b32 a) { ret; }\n",
    );
    let Item::Function(decl) = &module.items[0] else {
        panic!()
    };
    assert!(decl.body.is_none());
    assert_eq!(decl.returns.len(), 1);
    assert_eq!(decl.returns[0].declarators[0].name.value, "func_retval0");
    assert_eq!(decl.params.len(), 2);
    let Item::Function(abort) = &module.items[1] else {
        panic!()
    };
    assert_eq!(names(&abort.attributes), ["noreturn"]);
    assert!(abort.params.is_empty());
    let Item::Function(regfn) = &module.items[2] else {
        panic!()
    };
    assert_eq!(regfn.returns[0].space.value, StateSpace::Reg);
}

#[test]
fn guards_labels_and_branches() {
    let statements = body("@%p1 bra $L__BB0_2;\n@!%p2 bra.uni $L__BB0_3;\n$L__BB0_2:\nret;");
    let Statement::Instruction(i) = &statements[0] else {
        panic!()
    };
    let guard = i.guard.as_ref().expect("guard");
    assert!(!guard.negated);
    assert_eq!(guard.predicate.value, "%p1");
    assert_eq!(i.opcode.value, "bra");
    let Statement::Instruction(i) = &statements[1] else {
        panic!()
    };
    assert!(i.guard.as_ref().expect("guard").negated);
    assert_eq!(names(&i.modifiers), ["uni"]);
    assert!(matches!(&statements[2], Statement::Label(l) if l.value == "$L__BB0_2"));
}

#[test]
fn opcode_modifiers_keep_order_and_cache_hints() {
    let i = instruction("ld.global.L1::no_allocate.v4.f32 {%f1, %f2, %f3, %f4}, [%rd1];");
    assert_eq!(i.opcode.value, "ld");
    assert_eq!(
        names(&i.modifiers),
        ["global", "L1::no_allocate", "v4", "f32"]
    );
    let i = instruction(
        "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%f1,%f2,%f3,%f4}, {%r1,%r2,%r3,%r4}, {%r5,%r6}, {%f5,%f6,%f7,%f8};",
    );
    assert_eq!(
        names(&i.modifiers),
        [
            "sync", "aligned", "m16n8k16", "row", "col", "f32", "f16", "f16", "f32"
        ]
    );
    assert_eq!(i.operands.len(), 4);
    let i = instruction("tex.1d.v4.s32.s32 {%r1, %r2, %r3, %r4}, [tex, {%r5}];");
    assert_eq!(names(&i.modifiers), ["1d", "v4", "s32", "s32"]);
    let i = instruction(
        "cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%r1], [%rd1], 16, [%r2];",
    );
    assert_eq!(
        names(&i.modifiers)[2..],
        ["shared::cluster", "global", "mbarrier::complete_tx::bytes"]
    );
}

#[test]
fn operand_kinds() {
    let i = instruction("mov.u32 %r1, %tid.x;");
    let OperandKind::Name { name, component } = &i.operands[1].kind else {
        panic!()
    };
    assert_eq!(name.value, "%tid");
    assert_eq!(component.as_ref().map(|c| c.value), Some(Component::X));

    let i = instruction("shfl.sync.down.b32 %r1|%p1, %r2, 1, 31, -1;");
    assert!(
        matches!(&i.operands[0].kind, OperandKind::Pair(a, b) if operand_text(a) == "%r1" && operand_text(b) == "%p1")
    );
    assert_eq!(
        i.operands[2].kind,
        OperandKind::Expr(Expr {
            kind: ExprKind::Int(1),
            span: i.operands[2].span
        })
    );
    let OperandKind::Expr(minus_one) = &i.operands[4].kind else {
        panic!()
    };
    assert!(
        matches!(&minus_one.kind, ExprKind::Unary(UnaryOp::Neg, one) if one.kind == ExprKind::Int(1))
    );

    let i = instruction("mov.b64 {%r1, %r2}, %rd1;");
    let OperandKind::Vector(items) = &i.operands[0].kind else {
        panic!()
    };
    assert_eq!(
        items.iter().map(operand_text).collect::<Vec<_>>(),
        ["%r1", "%r2"]
    );

    let i = instruction("selp.b32 %r1, 1, 0, !%p1;");
    assert!(matches!(&i.operands[3].kind, OperandKind::Not(p) if operand_text(p) == "%p1"));

    let i = instruction("mbarrier.arrive.shared::cta.b64 _, [%r1];");
    assert_eq!(i.operands[0].kind, OperandKind::Sink);

    let i = instruction("mov.f32 %f1, 0f3F800000;");
    assert!(
        matches!(&i.operands[1].kind, OperandKind::Expr(e) if e.kind == ExprKind::F32(0x3F80_0000))
    );

    let i = instruction("mov.u64 %rd1, $str;");
    assert!(
        matches!(&i.operands[1].kind, OperandKind::Name { name, component: None } if name.value == "$str")
    );
}

#[test]
fn address_operands() {
    let address = |text: &str| -> Address {
        let i = instruction(text);
        i.operands
            .into_iter()
            .find_map(|o| match o.kind {
                OperandKind::Address(a) => Some(a),
                _ => None,
            })
            .expect("an address operand")
    };
    let a = address("ld.global.f32 %f1, [%rd1+-4];");
    assert_eq!(
        (a.base.as_ref().map(|b| b.value.as_str()), a.offset),
        (Some("%rd1"), -4)
    );
    let a = address("ld.global.f32 %f1, [%rd1-8];");
    assert_eq!(a.offset, -8);
    let a = address("ld.shared.u32 %r1, [smem+8];");
    assert_eq!(
        (a.base.as_ref().map(|b| b.value.as_str()), a.offset),
        (Some("smem"), 8)
    );
    let a = address("ld.param.u64 %rd1, [_Z3fooPf_param_0];");
    assert_eq!(a.offset, 0);
    let a = address("ld.global.u32 %r1, [1024];");
    assert_eq!((a.base, a.offset), (None, 1024));
    let a = address("tex.2d.v4.f32.f32 {%f1, %f2, %f3, %f4}, [tex_ref, {%f5, %f6}];");
    assert_eq!(a.base.as_ref().map(|b| b.value.as_str()), Some("tex_ref"));
    assert_eq!(
        a.extra.iter().map(operand_text).collect::<Vec<_>>(),
        ["{%f5, %f6}"]
    );
    assert_eq!(
        print_instruction("ld.global.f32 %f1, [%rd1+-4];"),
        "ld.global.f32\t%f1, [%rd1+-4];"
    );
}

fn print_instruction(text: &str) -> String {
    instruction(text).to_string()
}

#[test]
fn clang_call_sequence_block_with_multiline_call() {
    let statements = body(
        "{ // callseq 0, 0\n\
         .param .b64 param0;\n\
         st.param.b64 \t[param0], %rd2;\n\
         .param .align 8 .b8 param1[16];\n\
         .param .b32 retval0;\n\
         call.uni (retval0), \n\
         vprintf, \n\
         (\n\
         param0, \n\
         param1\n\
         );\n\
         ld.param.b32 \t%r1, [retval0];\n\
         } // callseq 0",
    );
    let [Statement::Block(block)] = &statements[..] else {
        panic!("{statements:?}")
    };
    assert_eq!(block.statements.len(), 6);
    let Statement::Instruction(call) = &block.statements[4] else {
        panic!()
    };
    assert_eq!(call.opcode.value, "call");
    assert_eq!(
        call.operands.iter().map(operand_text).collect::<Vec<_>>(),
        ["(retval0)", "vprintf", "(param0, param1)"]
    );
}

#[test]
fn indirect_call_with_prototype() {
    let statements = body(
        "prototype_0 : .callprototype (.param .b32 _) _ (.param .b64 _, .param .b32 _);\n\
         prototype_1 : .callprototype ()_ () .noreturn;\n\
         call (retval0), %rd1, (param0, param1), prototype_0;",
    );
    let Statement::CallPrototype(p) = &statements[0] else {
        panic!()
    };
    assert_eq!(p.label.value, "prototype_0");
    assert_eq!(p.returns.len(), 1);
    assert_eq!(p.params.len(), 2);
    assert_eq!(p.params[0].declarators[0].name.value, "_");
    let Statement::CallPrototype(p) = &statements[1] else {
        panic!()
    };
    assert!(p.returns.is_empty() && p.params.is_empty());
    assert_eq!(names(&p.attributes), ["noreturn"]);
    let Statement::Instruction(call) = &statements[2] else {
        panic!()
    };
    assert_eq!(operand_text(&call.operands[3]), "prototype_0");
}

#[test]
fn jump_tables() {
    let statements = body(
        "$L_brx_0: .branchtargets\n\t$L__BB0_2,\n\t$L__BB0_3;\nbrx.idx %r1, $L_brx_0;\n.calltargets f, g;",
    );
    assert!(matches!(&statements[0], Statement::Label(l) if l.value == "$L_brx_0"));
    let Statement::BranchTargets { targets, .. } = &statements[1] else {
        panic!()
    };
    assert_eq!(names(targets), ["$L__BB0_2", "$L__BB0_3"]);
    let Statement::CallTargets { targets, .. } = &statements[3] else {
        panic!()
    };
    assert_eq!(names(targets), ["f", "g"]);
}

#[test]
fn loc_directives() {
    let statements =
        body(".loc 1 5 3\n.loc 1 5 3, function_name $L__info_string0, inlined_at 1 10 5\nret;");
    let Statement::Loc(loc) = &statements[0] else {
        panic!()
    };
    assert_eq!(
        (
            loc.file,
            loc.line,
            loc.column,
            &loc.function_name,
            loc.inlined_at
        ),
        (1, 5, 3, &None, None)
    );
    let Statement::Loc(loc) = &statements[1] else {
        panic!()
    };
    assert_eq!(
        loc.function_name.as_ref().map(|f| f.value.as_str()),
        Some("$L__info_string0")
    );
    assert_eq!(loc.inlined_at, Some((1, 10, 5)));
    assert_eq!(loc.function_name_offset, 0);
    assert!(matches!(&statements[2], Statement::Instruction(_)));
}

#[test]
fn loc_with_section_offset_function_name_as_nvcc_writes_it() {
    let statements = body(
        ".loc 1 15 3, function_name .debug_str+16, inlined_at 1 10 5\n\
         .loc 1 4 58, function_name .debug_str + 0, inlined_at 1 7 3",
    );
    let Statement::Loc(loc) = &statements[0] else {
        panic!()
    };
    assert_eq!(
        loc.function_name.as_ref().map(|f| f.value.as_str()),
        Some(".debug_str")
    );
    assert_eq!(loc.function_name_offset, 16);
    assert_eq!(loc.inlined_at, Some((1, 10, 5)));
    let Statement::Loc(loc) = &statements[1] else {
        panic!()
    };
    assert_eq!(loc.function_name_offset, 0);
}

#[test]
fn pragma_and_local_variables_in_body() {
    let statements = body(
        ".local .align 8 .b8 __local_depot0[16];\n.pragma \"nounroll\";\n.shared .align 4 .b8 tile[1024];",
    );
    assert!(matches!(&statements[0], Statement::Variable(d) if d.space.value == StateSpace::Local));
    assert!(
        matches!(&statements[1], Statement::Pragma { args, .. } if args[0].value == "nounroll")
    );
    assert!(
        matches!(&statements[2], Statement::Variable(d) if d.space.value == StateSpace::Shared)
    );
}

#[test]
fn inline_asm_nested_scope() {
    let statements =
        body("{\n\t.reg .pred p;\n\tsetp.ne.u32 p, %r1, 0;\n\t@!p bra.uni DONE0;\n\tDONE0:\n\t}");
    let [Statement::Block(block)] = &statements[..] else {
        panic!()
    };
    assert_eq!(block.statements.len(), 4);
}

#[test]
fn debug_sections() {
    let module = parse_ok(
        ".section .debug_info\n{\n.b32 $L__end-$L__start\n$L__start:\n.b8 2, 0\n.b32 .debug_abbrev\n.b64 $L__func_begin0\n$L__end:\n}\n\
         .section .debug_loc { }\n\
         .section\t.debug_str\n\t{\n$L__info_string0:\n.b8 95,90,0\n\t}\n",
    );
    let Item::Section(info) = &module.items[0] else {
        panic!()
    };
    assert_eq!(info.name.value, ".debug_info");
    let SectionEntry::Data { ty, values, .. } = &info.entries[0] else {
        panic!()
    };
    assert_eq!(ty.value, ScalarType::B32);
    let ExprKind::Binary(BinaryOp::Sub, a, b) = &values[0].kind else {
        panic!()
    };
    assert_eq!(
        (&a.kind, &b.kind),
        (
            &ExprKind::Name("$L__end".into()),
            &ExprKind::Name("$L__start".into())
        )
    );
    assert!(matches!(&info.entries[1], SectionEntry::Label(l) if l.value == "$L__start"));
    let SectionEntry::Data { values, .. } = &info.entries[3] else {
        panic!()
    };
    assert_eq!(values[0].kind, ExprKind::Name(".debug_abbrev".into()));
    let Item::Section(loc) = &module.items[1] else {
        panic!()
    };
    assert!(loc.entries.is_empty());
    let Item::Section(strings) = &module.items[2] else {
        panic!()
    };
    let SectionEntry::Data { values, .. } = &strings.entries[1] else {
        panic!()
    };
    assert_eq!(values.len(), 3);
}

#[test]
fn constant_expressions_keep_structure_and_print_with_needed_parentheses() {
    let Item::Variable(decl) = only_item(".global .u64 x[3] = {(a+b)*2, a-(b-c), -(1+2)|~4 % 3};")
    else {
        panic!()
    };
    let Some(Initializer::List { items, .. }) = &decl.declarators[0].init else {
        panic!()
    };
    let texts: Vec<String> = items
        .iter()
        .map(|i| match i {
            Initializer::Expr(e) => e.to_string(),
            other => panic!("{other:?}"),
        })
        .collect();
    assert_eq!(texts, ["(a+b)*2", "a-(b-c)", "-(1+2)|~4 % 3"]);
}

#[test]
fn integer_literal_forms() {
    let Item::Variable(decl) =
        only_item(".global .u32 x[6] = {0x1F, 017, 0b101, 42U, 0, 18446744073709551615};")
    else {
        panic!()
    };
    let Some(Initializer::List { items, .. }) = &decl.declarators[0].init else {
        panic!()
    };
    let values: Vec<&ExprKind> = items
        .iter()
        .map(|i| match i {
            Initializer::Expr(e) => &e.kind,
            other => panic!("{other:?}"),
        })
        .collect();
    assert_eq!(
        values,
        [
            &ExprKind::Int(31),
            &ExprKind::Int(15),
            &ExprKind::Int(5),
            &ExprKind::Int(42),
            &ExprKind::Int(0),
            &ExprKind::Int(u64::MAX)
        ]
    );
}

#[test]
fn alias_and_module_pragma() {
    let module = parse_ok(".pragma \"nounroll\";\n.alias f_alias, f_target;\n");
    assert!(matches!(&module.items[0], Item::Pragma { args, .. } if args[0].value == "nounroll"));
    assert!(
        matches!(&module.items[1], Item::Alias { alias, aliasee, .. } if alias.value == "f_alias" && aliasee.value == "f_target")
    );
}

#[test]
fn spans_point_at_the_source_text() {
    let text = ".entry k()\n{\n\tld.global.f32 %f1, [%rd1+4];\n}\n";
    let module = parse_ok(text);
    let Item::Function(f) = &module.items[0] else {
        panic!()
    };
    let Statement::Instruction(i) = &f.body.as_ref().expect("body").statements[0] else {
        panic!()
    };
    assert_eq!(&text[i.span.range()], "ld.global.f32 %f1, [%rd1+4];");
    assert_eq!(&text[i.opcode.span.range()], "ld");
    assert_eq!(&text[i.modifiers[1].span.range()], ".f32");
    assert_eq!(&text[i.operands[1].span.range()], "[%rd1+4]");
    assert_eq!(&text[f.span.range()], text.trim_end());
    assert_eq!(&text[f.name.span.range()], "k");
}

#[test]
fn sink_is_only_a_lone_underscore() {
    let i = instruction("mov.u64 %rd1, _(sym);");
    assert!(
        matches!(&i.operands[1].kind, OperandKind::Expr(e) if matches!(&e.kind, ExprKind::Call(name, _) if name.value == "_"))
    );
}

#[test]
fn debug_section_names_may_contain_dots() {
    // clang's DWARF for an OpenCL `__local` variable names it `kernel.variable`.
    let module = parse_ok(".section .debug_info\n{\n.b64 reduceSum.scratch\n}\n");
    let Item::Section(info) = &module.items[0] else {
        panic!()
    };
    let SectionEntry::Data { values, .. } = &info.entries[0] else {
        panic!()
    };
    assert_eq!(values[0].kind, ExprKind::Name("reduceSum.scratch".into()));
    let printed = warpcheck_ptx::print(&module);
    assert!(printed.contains("reduceSum.scratch"), "{printed}");
    assert_eq!(
        warpcheck_ptx::without_spans(&warpcheck_ptx::parse(&printed).module),
        warpcheck_ptx::without_spans(&module)
    );
}
