//! Symbol table tests: parameter layout, variables, initialisers, dynamic shared memory,
//! shadowed names in nested scopes, tuning directives, declarations, demangled lookups.

use crate::common;

use common::{HEADER, lower};
use warpcheck_ir::operand::Symbol;
use warpcheck_ir::symbols::PtrAttributes;
use warpcheck_ir::{Linkage, Operand, Relocation, Type, VarRole, VarScope};
use warpcheck_ptx::ast::{FunctionKind, StateSpace};

#[test]
fn kernel_parameters_are_laid_out_with_alignment() {
    let p = lower(&format!(
        "{HEADER}.visible .entry _Z1kPfcd4int2(\n\t.param .u64 .ptr .global .align 16 _Z1k_p0,\n\t.param .u8 _Z1k_p1,\n\
         \t.param .f64 _Z1k_p2,\n\t.param .align 8 .b8 _Z1k_p3[8],\n\t.param .u32 _Z1k_p4\n)\n{{\n\tret;\n}}\n"
    ));
    let f = p.function(p.function_by_name("_Z1kPfcd4int2").unwrap());
    assert_eq!(f.kind, FunctionKind::Entry);
    assert_eq!(f.linkage, Linkage::Visible);
    let layout: Vec<(String, u64, u64, u32)> = f
        .params
        .iter()
        .map(|&v| {
            let var = p.variable(v);
            let VarRole::Param { offset, .. } = var.role else {
                panic!("not a param")
            };
            (var.name.clone(), offset, var.size.unwrap(), var.align)
        })
        .collect();
    assert_eq!(
        layout,
        vec![
            ("_Z1k_p0".to_string(), 0, 8, 8),
            ("_Z1k_p1".to_string(), 8, 1, 1),
            ("_Z1k_p2".to_string(), 16, 8, 8),
            ("_Z1k_p3".to_string(), 24, 8, 8),
            ("_Z1k_p4".to_string(), 32, 4, 4),
        ]
    );
    assert_eq!(f.param_space_size, 36);
    let p0 = p.variable(f.params[0]);
    assert_eq!(
        p0.ptr,
        Some(PtrAttributes {
            space: Some(StateSpace::Global),
            align: Some(16)
        })
    );
    assert_eq!(
        p0.scope,
        VarScope::Function(p.function_by_name("_Z1kPfcd4int2").unwrap())
    );
    assert_eq!(p0.space, StateSpace::Param);
}

#[test]
fn function_returns_and_declarations_without_body() {
    let p = lower(&format!(
        "{HEADER}.extern .func (.param .b32 func_retval0) vprintf(.param .b64 vprintf_param_0, .param .b64 vprintf_param_1);\n\
         .extern .func __assertfail(.param .b64 a, .param .b64 b, .param .b32 c, .param .b64 d, .param .b64 e);\n\
         .func (.param .b64 f_ret) f(.param .b32 f_p);\n\
         .func (.param .b64 f_ret) f(.param .b32 f_p)\n{{\n\t.reg .b32 %r1;\n\tld.param.u32 %r1, [f_p];\n\tret;\n}}\n"
    ));
    let vprintf = p.function(p.function_by_name("vprintf").unwrap());
    assert!(vprintf.body.is_none());
    assert_eq!(vprintf.linkage, Linkage::Extern);
    assert_eq!(vprintf.params.len(), 2);
    assert_eq!(vprintf.returns.len(), 1);
    assert_eq!(
        p.variable(vprintf.returns[0]).role,
        VarRole::Return {
            index: 0,
            offset: 0
        }
    );
    assert_eq!(
        p.function(p.function_by_name("__assertfail").unwrap())
            .param_space_size,
        40
    );
    // A declaration followed by the definition is one function, with the body.
    assert_eq!(p.functions_named("f").len(), 1);
    let f = p.function(p.function_by_name("f").unwrap());
    assert!(f.body.is_some());
    assert_eq!(f.kind, FunctionKind::Func);
    assert_eq!(p.kernels().count(), 0);
}

#[test]
fn module_variables_and_initialisers() {
    let p = lower(&format!(
        "{HEADER}.global .align 1 .b8 _$_str[7] = {{37, 100, 32, 37, 117, 10}};\n\
         .visible .global .align 4 .u32 counter;\n\
         .visible .global .align 4 .b8 table[16] = {{1, 0, 0, 0, 2, 0, 0, 0, 3, 0, 0, 0, 4}};\n\
         .visible .global .align 8 .u64 ptr = generic(counter);\n\
         .visible .global .align 8 .u64 ptrs[2] = {{table+4, counter}};\n\
         .const .align 4 .f32 coeffs[3] = {{0f3F800000, 0f40000000, 1.5}};\n\
         .global .f64 one = 1;\n\
         .global .s32 grid[2][3] = {{{{1, 2, 3}}, {{-4, 5, 6}}}};\n\
         .global .f16 half = 0f3F800000;\n"
    ));
    let var = |name: &str| p.variable(p.variables_named(name)[0]);
    let s = var("_$_str");
    assert_eq!(s.size, Some(7));
    assert_eq!(
        s.init.as_ref().unwrap().bytes,
        vec![37, 100, 32, 37, 117, 10, 0]
    );
    let counter = var("counter");
    assert_eq!(
        (counter.size, counter.align, counter.init.is_none()),
        (Some(4), 4, true)
    );
    assert_eq!(counter.scope, VarScope::Module);
    assert_eq!(
        var("table").init.as_ref().unwrap().bytes,
        vec![1, 0, 0, 0, 2, 0, 0, 0, 3, 0, 0, 0, 4, 0, 0, 0]
    );
    let counter_id = Symbol::Var(p.variables_named("counter")[0]);
    let table_id = Symbol::Var(p.variables_named("table")[0]);
    let ptr = var("ptr").init.clone().unwrap();
    assert_eq!(ptr.bytes, vec![0; 8]);
    assert_eq!(
        ptr.relocations,
        vec![Relocation {
            offset: 0,
            size: 8,
            symbol: counter_id,
            generic: true
        }]
    );
    let ptrs = var("ptrs").init.clone().unwrap();
    assert_eq!(&ptrs.bytes[0..8], &4u64.to_le_bytes());
    assert_eq!(
        ptrs.relocations,
        vec![
            Relocation {
                offset: 0,
                size: 8,
                symbol: table_id,
                generic: false
            },
            Relocation {
                offset: 8,
                size: 8,
                symbol: counter_id,
                generic: false
            },
        ]
    );
    let coeffs = var("coeffs");
    assert_eq!(coeffs.space, StateSpace::Const);
    let c = &coeffs.init.as_ref().unwrap().bytes;
    let floats: Vec<f32> = c
        .chunks(4)
        .map(|b| f32::from_le_bytes(b.try_into().unwrap()))
        .collect();
    assert_eq!(floats, vec![1.0, 2.0, 1.5]);
    assert_eq!(
        var("one").init.as_ref().unwrap().bytes,
        1.0f64.to_le_bytes().to_vec()
    );
    let grid = &var("grid").init.as_ref().unwrap().bytes;
    let ints: Vec<i32> = grid
        .chunks(4)
        .map(|b| i32::from_le_bytes(b.try_into().unwrap()))
        .collect();
    assert_eq!(ints, vec![1, 2, 3, -4, 5, 6]);
    assert_eq!(var("grid").dims, vec![Some(2), Some(3)]);
    assert_eq!(var("half").init.as_ref().unwrap().bytes, vec![0x00, 0x3c]);
    assert_eq!(p.globals.len(), 9);
}

#[test]
fn dynamic_shared_memory_and_unsized_initialised_arrays() {
    let p = lower(&format!(
        "{HEADER}.extern .shared .align 16 .b8 smem[];\n.extern .shared .align 4 .f32 other[];\n\
         .global .u32 lut[] = {{1, 2, 3}};\n.shared .align 4 .b8 fixed[256];\n"
    ));
    let dynamic: Vec<&str> = p
        .dynamic_shared()
        .map(|v| p.variable(v).name.as_str())
        .collect();
    assert_eq!(dynamic, vec!["smem", "other"]);
    let smem = p.variable(p.variables_named("smem")[0]);
    assert_eq!(
        (smem.size, smem.align, smem.linkage),
        (None, 16, Linkage::Extern)
    );
    assert!(smem.is_dynamic_shared());
    assert!(
        !p.variable(p.variables_named("fixed")[0])
            .is_dynamic_shared()
    );
    assert_eq!(p.variable(p.variables_named("lut")[0]).size, Some(12));
}

#[test]
fn extern_variable_then_definition_is_one_variable() {
    let p = lower(&format!(
        "{HEADER}.extern .global .u32 x;\n.visible .global .u32 x = 5;\n"
    ));
    assert_eq!(p.globals.len(), 1);
    let x = p.variable(p.variables_named("x")[0]);
    assert_eq!(
        (x.linkage, x.init.as_ref().map(|i| i.bytes.clone())),
        (Linkage::Visible, Some(vec![5, 0, 0, 0]))
    );
}

#[test]
fn nested_scopes_rename_shadowed_declarations() {
    let p = lower(&format!(
        "{HEADER}.func (.param .b32 func_retval0) g(.param .b32 g_p)\n{{\n\tret;\n}}\n\
         .visible .entry k()\n{{\n\t.local .align 8 .b8 __local_depot0[16];\n\t.reg .b64 %SP;\n\t.reg .b64 %SPL;\n\t.reg .b32 %r<3>;\n\
         \tmov.u64 %SPL, __local_depot0;\n\tcvta.local.u64 %SP, %SPL;\n\
         \t{{\n\t.reg .b32 temp_param_reg;\n\t.param .b32 param0;\n\tst.param.b32 [param0], %r1;\n\t.param .b32 retval0;\n\
         \tcall.uni (retval0), g, (param0);\n\tld.param.b32 %r2, [retval0];\n\t}}\n\
         \t{{\n\t.reg .b32 temp_param_reg;\n\t.param .b32 param0;\n\tst.param.b32 [param0], %r2;\n\t.param .b32 retval0;\n\
         \tcall.uni (retval0), g, (param0);\n\tld.param.b32 %r1, [retval0];\n\t}}\n\tret;\n}}\n"
    ));
    let k = p.function_by_name("k").unwrap();
    let body = p.function(k).body.as_ref().unwrap();
    let locals: Vec<(&str, StateSpace)> = body
        .locals
        .iter()
        .map(|&v| (p.variable(v).name.as_str(), p.variable(v).space))
        .collect();
    assert_eq!(
        locals,
        vec![
            ("__local_depot0", StateSpace::Local),
            ("param0", StateSpace::Param),
            ("retval0", StateSpace::Param),
            ("param0$1", StateSpace::Param),
            ("retval0$1", StateSpace::Param),
        ]
    );
    let regs: Vec<&str> = body.regs.values().map(|r| r.name.as_str()).collect();
    assert_eq!(
        regs,
        vec![
            "%SP",
            "%SPL",
            "%r0",
            "%r1",
            "%r2",
            "temp_param_reg",
            "temp_param_reg$1"
        ]
    );
    let printed = common::printed_insts(&p, "k");
    assert_eq!(printed[2], "st.param.b32 [param0], %r1");
    assert_eq!(printed[3], "call.uni (retval0), g, (param0)");
    assert_eq!(printed[5], "st.param.b32 [param0$1], %r2");
    assert_eq!(printed[6], "call.uni (retval0$1), g, (param0$1)");
    assert_eq!(printed[7], "ld.param.b32 %r1, [retval0$1]");
    // `%SPL` holds the address of the local depot.
    let first = body.operands_of(body.blocks[body.entry()].start);
    assert_eq!(
        first[1],
        Operand::SymbolAddress {
            symbol: Symbol::Var(body.locals[0]),
            offset: 0
        }
    );
}

#[test]
fn indirect_call_with_prototype() {
    let p = lower(&format!(
        "{HEADER}.visible .entry k(.param .u64 fp)\n{{\n\t.reg .b64 %rd<2>;\n\t.reg .b32 %r<2>;\n\tld.param.u64 %rd1, [fp];\n\
         \t{{\n\t.param .b32 param0;\n\tst.param.b32 [param0], 7;\n\t.param .b32 retval0;\n\
         \tprototype_0 : .callprototype (.param .b32 _) _ (.param .b32 _);\n\
         \tcall (retval0), %rd1, (param0), prototype_0;\n\tld.param.b32 %r1, [retval0];\n\t}}\n\tret;\n}}\n"
    ));
    let body = p
        .function(p.function_by_name("k").unwrap())
        .body
        .as_ref()
        .unwrap();
    assert_eq!(body.prototypes.len(), 1);
    assert_eq!(body.prototypes[0].name, "prototype_0");
    assert_eq!(
        (
            body.prototypes[0].returns.len(),
            body.prototypes[0].params.len()
        ),
        (1, 1)
    );
    assert_eq!(body.prototypes[0].params[0].ty, Type::B32);
    assert_eq!(
        common::printed_insts(&p, "k")[2],
        "call (retval0), %rd1, (param0), prototype_0"
    );
}

#[test]
fn indirect_call_with_calltargets() {
    let p = lower(&format!(
        "{HEADER}.func twice(.param .b32 x)\n{{\n\tret;\n}}\n.func thrice(.param .b32 x)\n{{\n\tret;\n}}\n\
         .visible .entry k(.param .u64 fp)\n{{\n\t.reg .b64 %rd<2>;\n\tld.param.u64 %rd1, [fp];\n\
         \t{{\n\t.param .b32 param0;\n\tst.param.b32 [param0], 7;\n\
         $L_calltargets_0: .calltargets twice, thrice;\n\tcall %rd1, (param0), $L_calltargets_0;\n\t}}\n\tret;\n}}\n"
    ));
    let body = p
        .function(p.function_by_name("k").unwrap())
        .body
        .as_ref()
        .unwrap();
    assert_eq!(body.call_targets.len(), 1);
    let names: Vec<&str> = body.call_targets[0]
        .targets
        .iter()
        .map(|&f| p.function(f).name.as_str())
        .collect();
    assert_eq!(names, vec!["twice", "thrice"]);
    // The list's label is not a block label.
    assert_eq!(body.blocks.len(), 1);
    assert_eq!(
        common::printed_insts(&p, "k")[2],
        "call %rd1, (param0), $L_calltargets_0"
    );
}

#[test]
fn vector_registers_are_their_components() {
    let p = lower(&format!(
        "{HEADER}.visible .entry k(.param .u64 a)\n{{\n\t.reg .v4 .f32 %v;\n\t.reg .b64 %rd1;\n\t.reg .f32 %f1;\n\
         \tld.param.u64 %rd1, [a];\n\tld.global.v4.f32 %v, [%rd1];\n\tadd.f32 %f1, %v.x, %v.w;\n\tret;\n}}\n"
    ));
    let body = p
        .function(p.function_by_name("k").unwrap())
        .body
        .as_ref()
        .unwrap();
    let names: Vec<&str> = body.regs.values().map(|r| r.name.as_str()).collect();
    assert_eq!(names, vec!["%v.x", "%v.y", "%v.z", "%v.w", "%rd1", "%f1"]);
    let printed = common::printed_insts(&p, "k");
    assert_eq!(
        printed[1],
        "ld.global.v4.f32 {%v.x, %v.y, %v.z, %v.w}, [%rd1]"
    );
    assert_eq!(printed[2], "add.f32 %f1, %v.x, %v.w");
}

#[test]
fn tuning_directives() {
    let p = lower(&format!(
        "{HEADER}.visible .entry k()\n.maxntid 256, 1, 1\n.minnctapersm 2\n.maxnreg 64\n{{\n\tret;\n}}\n\
         .visible .entry r()\n.reqntid 128\n{{\n\tret;\n}}\n"
    ));
    let k = &p.function(p.function_by_name("k").unwrap()).tuning;
    assert_eq!(
        (k.maxntid, k.minnctapersm, k.maxnreg),
        (Some([256, 1, 1]), Some(2), Some(64))
    );
    let r = &p.function(p.function_by_name("r").unwrap()).tuning;
    assert_eq!((r.reqntid, r.maxntid), (Some([128, 1, 1]), None));
}

#[test]
fn function_and_variable_scope_shared_memory_with_demangled_names() {
    let p = lower(&format!(
        "{HEADER}.visible .entry _Z9reduceSumPfS_(.param .u64 a, .param .u64 b)\n{{\n\
         \t.shared .align 4 .b8 _ZZ9reduceSumPfS_E5sdata[1024];\n\t.reg .b64 %rd1;\n\
         \tmov.u64 %rd1, _ZZ9reduceSumPfS_E5sdata;\n\tret;\n}}\n\
         .visible .entry _Z6vecAddPKfS0_Pfi(.param .u64 a, .param .u64 b, .param .u64 c, .param .u32 n)\n{{\n\tret;\n}}\n\
         .visible .entry _Z6reduceILi128EEvPf(.param .u64 a)\n{{\n\tret;\n}}\n\
         .visible .entry _Z6reduceILi256EEvPf(.param .u64 a)\n{{\n\tret;\n}}\n"
    ));
    let reduce_sum = p.function_by_name("reduceSum").unwrap();
    assert_eq!(p.function_by_name("_Z9reduceSumPfS_"), Some(reduce_sum));
    assert_eq!(
        p.function_by_name("reduceSum(float*, float*)"),
        Some(reduce_sum)
    );
    let f = p.function(reduce_sum);
    assert_eq!(f.display_name(), "reduceSum");
    assert_eq!(
        f.demangled.as_ref().unwrap().full,
        "reduceSum(float*, float*)"
    );
    let vec_add = p.function(p.function_by_name("vecAdd").unwrap());
    assert_eq!(
        vec_add.demangled.as_ref().unwrap().full,
        "vecAdd(float const*, float const*, float*, int)"
    );
    // Two instances of one template share a short name: ambiguous, both found.
    assert_eq!(p.functions_named("reduce").len(), 2);
    assert_eq!(p.function_by_name("reduce"), None);
    assert!(p.function_by_name("void reduce<128>(float*)").is_some());
    let sdata = p.variables_named("sdata");
    assert_eq!(sdata.len(), 1);
    let v = p.variable(sdata[0]);
    assert_eq!(
        (v.space, v.size, v.role),
        (StateSpace::Shared, Some(1024), VarRole::Local)
    );
    assert_eq!(
        v.demangled.as_ref().unwrap().full,
        "reduceSum(float*, float*)::sdata"
    );
    assert_eq!(v.display_name(), "sdata");
    assert_eq!(v.scope, VarScope::Function(reduce_sum));
}
