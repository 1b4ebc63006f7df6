//! OpenCL C and C compile to PTX with every installed clang: OpenCL kernels become `.entry`
//! with no OpenCL built-in left unresolved, C functions become `.func`.

use crate::common;
use common::*;

#[test]
fn opencl_kernels_compile_without_unresolved_builtins() {
    for clang in clangs() {
        for opt_level in [0, 3] {
            let context = format!("{clang} -O{opt_level}");
            if opt_level == 0 && clang.version.major < 19 {
                // FIXME(clang < 19): LLVM's NVPTX back end aborts on __local pointer kernel
                // parameters at -O0. Pin the explanation warpcheck gives.
                match warpcheck_front::compile_with(&clang, &fixture("kernels.cl"), &options(0)) {
                    Ok(_) => {}
                    Err(error) => {
                        let message = error.to_string();
                        assert!(
                            message.contains("hint: ") && message.contains("-O1"),
                            "{context}: {message}"
                        );
                        continue;
                    }
                }
            }
            let module = compile_fixture(&clang, "kernels.cl", &options(opt_level));
            assert!(
                module.ptx.contains(".entry reduce("),
                "{context}: reduce is not an entry"
            );
            assert!(
                module.ptx.contains(".entry shapes("),
                "{context}: shapes is not an entry"
            );
            assert!(
                !module.ptx.contains(".entry helper"),
                "{context}: helper is not a kernel"
            );
            for external in external_functions(&module.ptx) {
                assert!(
                    external.starts_with("__nv_"),
                    "{context}: OpenCL built-in {external} left unresolved"
                );
            }
            assert_has_opcode(
                &module,
                "barrier(CLK_LOCAL_MEM_FENCE)",
                &["bar.sync", "barrier.sync"],
                &context,
            );
            assert_has_opcode(
                &module,
                "atomic_add",
                &["atom.add.u32", "atom.add.s32"],
                &context,
            );
            assert_has_opcode(&module, "get_local_id", &["mov.u32"], &context);
            assert!(
                module.ptx.contains("%tid.x"),
                "{context}: get_local_id must read %tid.x"
            );
            assert!(
                module.ptx.contains("%ntid.x"),
                "{context}: get_local_size must read %ntid.x"
            );
            assert!(
                module.ptx.contains("%ctaid.x"),
                "{context}: get_group_id must read %ctaid.x"
            );
            assert!(
                module.ptx.contains("%nctaid.x"),
                "{context}: get_num_groups must read %nctaid.x"
            );
            assert_has_opcode(&module, "sqrt", &["sqrt.rn.f32"], &context);
            assert_has_opcode(
                &module,
                "native_sin",
                &["sin.approx.f32", "sin.approx.ftz.f32"],
                &context,
            );
            assert!(
                module.ptx.contains(".loc"),
                "{context}: no line information"
            );
        }
    }
}

#[test]
fn c_functions_become_funcs_and_headers_work() {
    for clang in clangs() {
        for opt_level in [0, 3] {
            let module = compile_fixture(&clang, "porting.c", &options(opt_level));
            let context = format!("{clang} -O{opt_level}");
            assert!(
                !module.ptx.contains(".entry"),
                "{context}: C functions are not kernels"
            );
            for function in ["blur", "smooth"] {
                assert!(
                    module.ptx.contains(&format!(".func {function}("))
                        || module.ptx.contains(&format!(") {function}(")),
                    "{context}: {function} is not a .func"
                );
            }
            let names: Vec<&str> = module.signatures.iter().map(|s| s.name.as_str()).collect();
            assert_eq!(names, ["blur", "smooth"], "{context}");
        }
    }
}
