//! The CUDA shim headers compile with every installed clang (14 to 20), at -O0 and -O3, and
//! each group of device functions becomes the PTX instruction nvcc would emit for it.

use crate::common;
use common::*;

/// (fixture, what, accepted opcodes)
const EXPECTATIONS: &[(&str, &str, &[&str])] = &[
    (
        "atomics.cu",
        "atomicAdd(float *)",
        &["atom.add.f32", "red.add.f32"],
    ),
    (
        "atomics.cu",
        "atomicAdd(double *)",
        &["atom.add.f64", "red.add.f64"],
    ),
    (
        "atomics.cu",
        "atomicAdd(int *)",
        &["atom.add.u32", "atom.add.s32", "red.add.u32", "red.add.s32"],
    ),
    ("atomics.cu", "atomicExch", &["atom.exch.b32"]),
    ("atomics.cu", "atomicMin(int *)", &["atom.min.s32"]),
    (
        "atomics.cu",
        "atomicMax(unsigned long long *)",
        &["atom.max.u64"],
    ),
    ("atomics.cu", "atomicMin(long long *)", &["atom.min.s64"]),
    ("atomics.cu", "atomicInc", &["atom.inc.u32"]),
    ("atomics.cu", "atomicDec", &["atom.dec.u32"]),
    ("atomics.cu", "atomicCAS", &["atom.cas.b32"]),
    ("atomics.cu", "atomicAnd", &["atom.and.b32"]),
    ("atomics.cu", "atomicOr", &["atom.or.b32"]),
    (
        "atomics.cu",
        "atomicXor(unsigned long long *)",
        &["atom.xor.b64"],
    ),
    (
        "atomics.cu",
        "atomicAdd_block",
        &["atom.cta.add.s32", "atom.cta.add.u32"],
    ),
    (
        "atomics.cu",
        "atomicAdd_system",
        &["atom.sys.add.s32", "atom.sys.add.u32"],
    ),
    ("warp.cu", "__syncthreads", &["bar.sync", "barrier.sync"]),
    ("warp.cu", "__syncthreads_count", &["bar.red.popc.u32"]),
    ("warp.cu", "__syncwarp", &["bar.warp.sync"]),
    ("warp.cu", "__threadfence", &["membar.gl", "fence.sc.gpu"]),
    (
        "warp.cu",
        "__threadfence_block",
        &["membar.cta", "fence.sc.cta"],
    ),
    (
        "warp.cu",
        "__threadfence_system",
        &["membar.sys", "fence.sc.sys"],
    ),
    ("warp.cu", "__shfl_down_sync", &["shfl.sync.down.b32"]),
    ("warp.cu", "__shfl_up_sync", &["shfl.sync.up.b32"]),
    ("warp.cu", "__shfl_xor_sync", &["shfl.sync.bfly.b32"]),
    ("warp.cu", "__shfl_sync", &["shfl.sync.idx.b32"]),
    ("warp.cu", "__ballot_sync", &["vote.sync.ballot.b32"]),
    ("warp.cu", "__any_sync", &["vote.sync.any.pred"]),
    ("warp.cu", "__all_sync", &["vote.sync.all.pred"]),
    ("warp.cu", "__activemask", &["activemask.b32"]),
    ("warp.cu", "__match_any_sync", &["match.any.sync.b32"]),
    (
        "warp.cu",
        "__reduce_add_sync",
        &["redux.sync.add.s32", "redux.sync.add.u32"],
    ),
    ("intrinsics.cu", "__popc", &["popc.b32"]),
    ("intrinsics.cu", "__clz", &["clz.b32"]),
    ("intrinsics.cu", "__brev", &["brev.b32"]),
    ("intrinsics.cu", "__mul24", &["mul24.lo.s32"]),
    ("intrinsics.cu", "__mulhi", &["mul.hi.s32"]),
    ("intrinsics.cu", "__byte_perm", &["prmt.b32"]),
    ("intrinsics.cu", "__funnelshift_l", &["shf.l.wrap.b32"]),
    ("intrinsics.cu", "__sad", &["sad.s32"]),
    (
        "intrinsics.cu",
        "__ldg",
        &["ld.nc.u32", "ld.nc.s32", "ld.nc.b32"],
    ),
    ("intrinsics.cu", "__float2int_rn", &["cvt.rni.s32.f32"]),
    ("intrinsics.cu", "__uint2float_rz", &["cvt.rz.f32.u32"]),
    ("intrinsics.cu", "__int2float_rz", &["cvt.rz.f32.s32"]),
    ("intrinsics.cu", "__ll2double_rz", &["cvt.rz.f64.s64"]),
    ("intrinsics.cu", "__float2uint_rz", &["cvt.rzi.u32.f32"]),
    ("intrinsics.cu", "__double2int_rz", &["cvt.rzi.s32.f64"]),
    (
        "intrinsics.cu",
        "__fmul_rn (not contracted)",
        &["mul.rn.f32"],
    ),
    (
        "intrinsics.cu",
        "__fadd_rn (not contracted)",
        &["add.rn.f32"],
    ),
    (
        "intrinsics.cu",
        "__dmul_rn (not contracted)",
        &["mul.rn.f64"],
    ),
    (
        "intrinsics.cu",
        "__dadd_rn (not contracted)",
        &["add.rn.f64"],
    ),
    (
        "intrinsics.cu",
        "__expf",
        &["ex2.approx.f32", "ex2.approx.ftz.f32"],
    ),
    (
        "intrinsics.cu",
        "__sinf",
        &["sin.approx.f32", "sin.approx.ftz.f32"],
    ),
    (
        "intrinsics.cu",
        "__fdividef",
        &["div.approx.f32", "div.approx.ftz.f32"],
    ),
    ("intrinsics.cu", "__saturatef", &["cvt.sat.f32.f32"]),
    ("intrinsics.cu", "sqrtf", &["sqrt.rn.f32"]),
    (
        "intrinsics.cu",
        "rsqrtf",
        &["rsqrt.approx.f32", "rsqrt.approx.ftz.f32"],
    ),
    ("intrinsics.cu", "fmaf", &["fma.rn.f32"]),
    ("intrinsics.cu", "fminf", &["min.f32"]),
    ("intrinsics.cu", "floorf", &["cvt.rmi.f32.f32"]),
    ("fp16_groups.cu", "__hadd", &["add.f16", "add.rn.f16"]),
    ("fp16_groups.cu", "__hfma", &["fma.rn.f16"]),
    (
        "fp16_groups.cu",
        "__hmul (operator*)",
        &["mul.f16", "mul.rn.f16"],
    ),
    ("fp16_groups.cu", "__float2half", &["cvt.rn.f16.f32"]),
    ("fp16_groups.cu", "__half2float", &["cvt.f32.f16"]),
    (
        "fp16_groups.cu",
        "thread_block::sync",
        &["bar.sync", "barrier.sync"],
    ),
    (
        "fp16_groups.cu",
        "thread_block_tile::sync",
        &["bar.warp.sync"],
    ),
    (
        "fp16_groups.cu",
        "thread_block_tile::shfl_down",
        &["shfl.sync.down.b32"],
    ),
    (
        "fp16_groups.cu",
        "cooperative_groups::reduce",
        &["shfl.sync.bfly.b32"],
    ),
];

#[test]
fn device_functions_become_their_ptx_instructions() {
    for clang in clangs() {
        for opt_level in [0, 3] {
            let options = options(opt_level);
            let mut fixtures: Vec<&str> = EXPECTATIONS.iter().map(|(f, _, _)| *f).collect();
            fixtures.dedup();
            for name in fixtures {
                let module = compile_fixture(&clang, name, &options);
                let context = format!("{clang} -O{opt_level} {name}");
                for (_, what, alternatives) in EXPECTATIONS.iter().filter(|(f, _, _)| *f == name) {
                    assert_has_opcode(&module, what, alternatives, &context);
                }
                assert!(
                    module.ptx.contains(".loc"),
                    "{context}: no line information in the PTX"
                );
            }
        }
    }
}

#[test]
fn math_without_an_instruction_calls_libdevice() {
    for clang in clangs() {
        let module = compile_fixture(&clang, "intrinsics.cu", &options(3));
        let externals = external_functions(&module.ptx);
        assert_eq!(
            externals,
            vec!["__nv_sinf".to_string()],
            "{clang}: sinf must stay a call of __nv_sinf"
        );
    }
}

#[test]
fn printf_becomes_vprintf_and_assert_calls_assertfail() {
    for clang in clangs() {
        for opt_level in [0, 3] {
            let module = compile_fixture(&clang, "runtime.cu", &options(opt_level));
            let externals = external_functions(&module.ptx);
            assert!(
                externals.contains(&"vprintf".to_string()),
                "{clang}: {externals:?}"
            );
            assert!(
                externals.contains(&"__assertfail".to_string()),
                "{clang}: {externals:?}"
            );
            assert!(
                !externals.contains(&"printf".to_string()),
                "{clang}: printf must not remain"
            );
            assert_eq!(
                module.signatures.len(),
                1,
                "{clang}: only the kernel is an entry"
            );
            assert_eq!(module.signatures[0].name, "report");
        }
    }
}

/// Every shim group in one file (with host code, templates, <cuda.h>, cooperative groups,
/// fp16): it compiles, and the only calls left are to the device runtime, libdevice and the
/// emulator's grid-wide barrier.
#[test]
fn the_whole_api_compiles_and_leaves_only_runtime_calls() {
    for clang in clangs() {
        for opt_level in [0, 3] {
            let module = compile_fixture(&clang, "shim_all.cu", &options(opt_level));
            let entries: Vec<&str> = module.signatures.iter().map(|s| s.name.as_str()).collect();
            assert_eq!(entries.len(), 3, "{clang} -O{opt_level}: {entries:?}");
            for name in ["everything", "templated"] {
                assert!(
                    entries.contains(&name),
                    "{clang} -O{opt_level}: {entries:?}"
                );
            }
            for external in external_functions(&module.ptx) {
                assert!(
                    external.starts_with("__nv_")
                        || [
                            "vprintf",
                            "malloc",
                            "free",
                            "__assertfail",
                            "__warpcheck_grid_sync",
                        ]
                        .contains(&external.as_str()),
                    "{clang} -O{opt_level}: unexpected unresolved call {external}"
                );
            }
        }
    }
}

#[test]
fn pre_volta_warp_functions_exist_below_sm_70_only() {
    for clang in clangs() {
        let old = warpcheck_front::CompileOptions {
            arch: "sm_60".into(),
            ..options(3)
        };
        let module = compile_fixture(&clang, "legacy.cu", &old);
        assert_has_opcode(
            &module,
            "__shfl_down",
            &["shfl.down.b32"],
            &clang.to_string(),
        );
        assert_has_opcode(
            &module,
            "__ballot",
            &["vote.ballot.b32"],
            &clang.to_string(),
        );
        // As in CUDA 9 and later, sm_70 code must use the *_sync forms.
        let error =
            warpcheck_front::compile_with(&clang, &fixture("legacy.cu"), &options(3)).unwrap_err();
        assert!(error.to_string().contains("__shfl_down"), "{error}");
    }
}

#[test]
fn launches_with_spaced_chevrons_compile_as_with_nvcc() {
    for clang in clangs() {
        let module = compile_fixture(&clang, "spaced_launch.cu", &options(3));
        assert_eq!(module.signatures.len(), 1, "{clang}");
        assert_eq!(module.signatures[0].name, "scale");
        assert_eq!(module.signatures[0].params[0].name, "data");
        assert!(
            module.notes.iter().any(|n| n.contains("line(s) 5 respelt")),
            "{clang}: {:?}",
            module.notes
        );
        // Line tables still name the original file.
        assert!(module.ptx.contains("spaced_launch_kernel.cuh"), "{clang}");
        assert!(
            module.ptx.lines().any(|l| l.starts_with("\t.file")
                && l.contains("tests/fixtures/spaced_launch_kernel.cuh")),
            "{clang}: the include must resolve next to the original file"
        );
    }
}
