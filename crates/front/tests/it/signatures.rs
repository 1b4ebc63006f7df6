//! Kernel signatures: names and C types from clang's AST, matched to the PTX by mangled
//! name, for templates, structs, typedefs, const/volatile/__restrict__ pointers, vectors,
//! namespaces and extern "C" (CUDA), address spaces (OpenCL) and plain C functions.

use crate::common;
use common::*;
use warpcheck_front::{
    AddressSpace, KernelSignature, ParamKind, Pointee, PointerParam, ScalarType, SignatureOrigin,
    StructType,
};

fn kernel<'a>(signatures: &'a [KernelSignature], mangled: &str) -> &'a KernelSignature {
    signatures
        .iter()
        .find(|s| s.mangled_name == mangled)
        .unwrap_or_else(|| {
            panic!(
                "no kernel {mangled} among {:?}",
                signatures
                    .iter()
                    .map(|s| &s.mangled_name)
                    .collect::<Vec<_>>()
            )
        })
}

fn pointer(kind: &ParamKind) -> &PointerParam {
    match kind {
        ParamKind::Pointer(p) => p,
        other => panic!("expected a pointer, got {other:?}"),
    }
}

fn names(signature: &KernelSignature) -> Vec<&str> {
    signature.params.iter().map(|p| p.name.as_str()).collect()
}

#[test]
fn cuda_signatures() {
    for clang in clangs() {
        for opt_level in [0, 3] {
            let module = compile_fixture(&clang, "signatures.cu", &options(opt_level));
            let context = format!("{clang} -O{opt_level}");
            assert!(module.notes.is_empty(), "{context}: {:?}", module.notes);
            assert_eq!(module.signatures.len(), 5, "{context}");

            // Each template instantiation is its own kernel with substituted types.
            let float_scale = kernel(&module.signatures, "_Z5scaleIfLi128EEvPT_PKS0_S0_i");
            assert_eq!(float_scale.name, "scale");
            assert_eq!(
                float_scale.demangled_name,
                "void scale<float, 128>(float*, float const*, float, int)"
            );
            assert_eq!(float_scale.origin, SignatureOrigin::Source);
            assert_eq!(names(float_scale), ["out", "in", "factor", "n"]);
            let out = pointer(&float_scale.params[0].kind);
            assert_eq!(out.pointee, Pointee::Scalar(ScalarType::F32));
            assert!(out.is_restrict && !out.is_const, "{context}: {out:?}");
            let input = pointer(&float_scale.params[1].kind);
            assert!(input.is_restrict && input.is_const, "{context}: {input:?}");
            assert_eq!(float_scale.params[1].c_type, "const float *__restrict");
            assert_eq!(
                float_scale.params[2].kind,
                ParamKind::Scalar(ScalarType::F32)
            );
            let double_scale = kernel(&module.signatures, "_Z5scaleIdLi64EEvPT_PKS0_S0_i");
            assert_eq!(
                pointer(&double_scale.params[0].kind).pointee,
                Pointee::Scalar(ScalarType::F64)
            );
            assert_eq!(
                double_scale.params[2].kind,
                ParamKind::Scalar(ScalarType::F64)
            );

            let particles = kernel(
                &module.signatures,
                "_Z9particlesPK8ParticleS_PfPK6float47Aligned4ModehxP6__half",
            );
            assert_eq!(
                names(particles),
                [
                    "ps", "first", "energy", "extra", "aligned", "mode", "flags", "count", "h"
                ]
            );
            let ps = pointer(&particles.params[0].kind);
            // float3 (12 bytes, align 4) + float + int = 20 bytes.
            assert_eq!(ps.pointee, Pointee::Struct(particle()));
            assert!(ps.is_const);
            assert_eq!(particles.params[1].kind, ParamKind::Struct(particle()));
            assert_eq!(particles.params[1].ptx_size, Some(20));
            assert_eq!(particles.params[2].c_type, "real_t *");
            assert_eq!(
                pointer(&particles.params[2].kind).pointee,
                Pointee::Scalar(ScalarType::F32)
            );
            match &pointer(&particles.params[3].kind).pointee {
                Pointee::Vector(v) => assert_eq!(
                    (v.name.as_str(), v.lanes, v.size, v.align),
                    ("float4", 4, 16, 16)
                ),
                other => panic!("{context}: {other:?}"),
            }
            // __align__(16) rounds the one-float struct up to 16 bytes.
            assert_eq!(
                particles.params[4].kind,
                ParamKind::Struct(StructType {
                    name: "Aligned".into(),
                    size: Some(16),
                    fields: vec![field("x", 0, ScalarType::F32)],
                })
            );
            assert_eq!(particles.params[5].kind, ParamKind::Scalar(ScalarType::I32));
            assert_eq!(particles.params[6].kind, ParamKind::Scalar(ScalarType::U8));
            assert_eq!(particles.params[7].kind, ParamKind::Scalar(ScalarType::I64));
            assert_eq!(
                pointer(&particles.params[8].kind).pointee,
                Pointee::Scalar(ScalarType::F16)
            );

            let step = kernel(&module.signatures, "_ZN7physics4stepEPdPVKim");
            assert_eq!(step.name, "step");
            assert_eq!(
                step.demangled_name,
                "physics::step(double*, int const volatile*, unsigned long)"
            );
            let lock = pointer(&step.params[1].kind);
            assert!(lock.is_const && lock.is_volatile);
            assert_eq!(step.params[2].c_type, "size_t");
            assert_eq!(step.params[2].kind, ParamKind::Scalar(ScalarType::U64));

            let plain = kernel(&module.signatures, "plain");
            assert_eq!(plain.demangled_name, "plain");
            assert_eq!(pointer(&plain.params[0].kind).pointee, Pointee::Pointer);
            assert_eq!(pointer(&plain.params[1].kind).pointee, Pointee::Void);
        }
    }
}

#[test]
fn opencl_signatures_have_address_spaces() {
    for clang in clangs() {
        let module = compile_fixture(&clang, "kernels.cl", &options(3));
        let reduce = kernel(&module.signatures, "reduce");
        assert_eq!(
            names(reduce),
            ["input", "output", "scratch", "counter", "n"]
        );
        let input = pointer(&reduce.params[0].kind);
        assert_eq!(
            (input.address_space, input.is_const),
            (AddressSpace::Global, true)
        );
        assert_eq!(
            pointer(&reduce.params[2].kind).address_space,
            AddressSpace::Shared
        );
        assert_eq!(reduce.params[4].kind, ParamKind::Scalar(ScalarType::I32));
        let shapes = kernel(&module.signatures, "shapes");
        match &pointer(&shapes.params[0].kind).pointee {
            Pointee::Vector(v) => assert_eq!((v.lanes, v.size), (4, 16)),
            other => panic!("{clang}: {other:?}"),
        }
        assert_eq!(
            pointer(&shapes.params[1].kind).address_space,
            AddressSpace::Constant
        );
        assert_eq!(shapes.params[2].kind, ParamKind::Scalar(ScalarType::U32));
        // `helper` is not a kernel.
        assert_eq!(module.signatures.len(), 2, "{clang}");
    }
}

#[test]
fn c_functions_all_get_signatures() {
    for clang in clangs() {
        let module = compile_fixture(&clang, "porting.c", &options(0));
        let blur = kernel(&module.signatures, "blur");
        assert_eq!(names(blur), ["in", "out", "radius"]);
        // typedef struct { int, int, float * } Image: 16 bytes.
        assert_eq!(
            pointer(&blur.params[0].kind).pointee,
            Pointee::Struct(StructType {
                name: "Image".into(),
                size: Some(16),
                fields: Vec::new(),
            })
        );
        let smooth = kernel(&module.signatures, "smooth");
        assert!(pointer(&smooth.params[1].kind).is_restrict);
        assert_eq!(smooth.params[1].c_type, "const float *restrict");
    }
}

#[test]
fn ptx_input_gets_positional_signatures() {
    let module = warpcheck_front::compile(&fixture("kernel.ptx"), &options(3)).unwrap();
    assert_eq!(module.compiler, "none");
    assert!(module.command.is_none());
    let copy = kernel(&module.signatures, "_Z4copyPfPKfi");
    assert_eq!(copy.origin, SignatureOrigin::Ptx);
    assert_eq!(copy.demangled_name, "copy(float*, float const*, int)");
    assert_eq!(names(copy), ["arg0", "arg1", "arg2"]);
    // The C++ mangling gives the types, copy(float*, float const*, int).
    assert_eq!(copy.params[1].c_type, "float const*");
    let source = pointer(&copy.params[1].kind);
    assert_eq!(source.pointee, Pointee::Scalar(ScalarType::F32));
    assert!(source.is_const);
    assert_eq!(copy.params[2].kind, ParamKind::Scalar(ScalarType::I32));
    assert_eq!(copy.params[2].ptx_size, Some(4));
    assert_eq!(
        module.ptx,
        std::fs::read_to_string(fixture("kernel.ptx")).unwrap()
    );
}

#[test]
fn signatures_can_come_from_the_ptx_alone() {
    let clang = &clangs()[0];
    let options = warpcheck_front::CompileOptions {
        signatures_from_source: false,
        ..options(3)
    };
    let module = compile_fixture(clang, "signatures.cu", &options);
    assert!(module.notes.is_empty(), "{:?}", module.notes);
    let step = kernel(&module.signatures, "_ZN7physics4stepEPdPVKim");
    assert_eq!(step.origin, SignatureOrigin::Ptx);
    assert_eq!(step.name, "step");
    assert_eq!(names(step), ["arg0", "arg1", "arg2"]);
}

fn field(name: &str, offset: u64, scalar: ScalarType) -> warpcheck_front::StructField {
    warpcheck_front::StructField {
        name: name.into(),
        offset,
        scalar,
    }
}

/// `struct Particle { float3 position; float mass; int id; }` as the signature gives it:
/// 20 bytes, its fields settable one by one (`--arg p.position.y=2`).
fn particle() -> StructType {
    StructType {
        name: "Particle".into(),
        size: Some(20),
        fields: vec![
            field("position.x", 0, ScalarType::F32),
            field("position.y", 4, ScalarType::F32),
            field("position.z", 8, ScalarType::F32),
            field("mass", 12, ScalarType::F32),
            field("id", 16, ScalarType::I32),
        ],
    }
}
