//! nvcc from NVIDIA's pip wheels (installed by `tools/setup.sh` into the private directory,
//! `WARPCHECK_NVIDIA_DIR` or `~/.local/share/warpcheck/nvidia`) compiles kernels that need
//! NVIDIA's real headers — bf16, cooperative groups, `cuda::barrier` — to PTX that
//! warpcheck's parser reads. Skipped, saying why, when the wheels are not installed.

use std::path::{Path, PathBuf};
use warpcheck_front::{
    CompileOptions, Compiler, CompilerKind, FrontError, Language, NvidiaTree, compile_with,
};

fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/nvidia")
        .join(name)
}

/// The private nvcc, or `None` after printing why the test is skipped.
fn private_nvcc() -> Option<Compiler> {
    let Some(tree) = NvidiaTree::from_env() else {
        eprintln!(
            "skipped: NVIDIA's wheels are not installed in {:?} (run tools/setup.sh)",
            warpcheck_front::nvidia_private_dir()
        );
        return None;
    };
    match Compiler::private_nvcc(&tree) {
        Ok(nvcc) => Some(nvcc),
        Err(error) => panic!("the wheels in {} are broken: {error}", tree.root.display()),
    }
}

/// Compiles `name` with the private nvcc and parses the PTX; returns the module.
fn compile_and_parse(nvcc: &Compiler, name: &str) -> warpcheck_front::CompiledModule {
    let module = compile_with(nvcc, &fixture(name), &CompileOptions::default())
        .unwrap_or_else(|e| panic!("{name}: {e}"));
    let parsed = warpcheck_ptx::parse(&module.ptx);
    assert!(
        parsed.errors.is_empty(),
        "{name}: warpcheck cannot parse nvcc's PTX: {:?}",
        parsed.errors
    );
    assert!(module.compiler.starts_with("nvcc "), "{}", module.compiler);
    module
}

#[test]
fn private_nvcc_compiles_bf16_cooperative_groups_and_barrier_kernels() {
    let Some(nvcc) = private_nvcc() else { return };
    assert_eq!(nvcc.kind, CompilerKind::Nvcc);
    let cases = [
        ("bf16_axpy.cu", "bf16_axpy", "fma.rn.bf16"),
        ("cg_reduce.cu", "cg_block_sum", "shfl.sync"),
        ("barrier_stage.cu", "barrier_stage", "mbarrier.init.shared"),
    ];
    for (file, kernel, instruction) in cases {
        let module = compile_and_parse(&nvcc, file);
        let names: Vec<&str> = module.signatures.iter().map(|s| s.name.as_str()).collect();
        assert_eq!(names, [kernel], "{file}");
        assert!(
            module.ptx.contains(instruction),
            "{file}: expected `{instruction}` in nvcc's PTX"
        );
        if file == "bf16_axpy.cu" {
            // clang cannot read NVIDIA's headers: the names come from the source text.
            let params: Vec<&str> = module.signatures[0]
                .params
                .iter()
                .map(|p| p.name.as_str())
                .collect();
            assert_eq!(params, ["y", "x", "a", "n"]);
        }
        // Line tables point at the user's file.
        assert!(
            module.ptx.contains(".loc\t1 "),
            "{file}: no line information"
        );
        let command = module.command.unwrap_or_default();
        assert!(
            command.contains("-x cu -arch=sm_80 -lineinfo -O3 -std=c++17"),
            "{command}"
        );
    }
}

#[test]
fn cuda_headers_and_cpp_files_compile_as_cuda() {
    let Some(nvcc) = private_nvcc() else { return };
    let dir = tempfile::tempdir().unwrap();
    let source = std::fs::read_to_string(fixture("bf16_axpy.cu")).unwrap();
    for name in ["axpy.cuh", "axpy.cu.h", "axpy.cpp"] {
        let path = dir.path().join(name);
        std::fs::write(&path, &source).unwrap();
        let options = CompileOptions {
            language: name.ends_with(".cpp").then_some(Language::Cuda),
            std: Some("c++20".into()),
            ..CompileOptions::default()
        };
        let module = compile_with(&nvcc, &path, &options).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(module.language, Language::Cuda, "{name}");
        assert!(module.ptx.contains("fma.rn.bf16"), "{name}");
        assert!(
            module.command.unwrap_or_default().contains("-std=c++20"),
            "{name}"
        );
    }
}

#[test]
fn errors_show_the_users_lines_without_header_warnings() {
    let Some(nvcc) = private_nvcc() else { return };
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("broken.cu");
    std::fs::write(
        &path,
        "#include <cuda_bf16.h>\n__global__ void k(float *x) {\n  x[0] = undefined_thing;\n}\n",
    )
    .unwrap();
    let error = compile_with(&nvcc, &path, &CompileOptions::default()).unwrap_err();
    let FrontError::CompilerFailed(failure) = &error else {
        panic!("{error:?}")
    };
    assert!(
        failure
            .stderr
            .contains("broken.cu(3): error: identifier \"undefined_thing\" is undefined"),
        "{}",
        failure.stderr
    );
    assert!(
        failure.stderr.contains("  x[0] = undefined_thing;"),
        "{}",
        failure.stderr
    );
    let tree = nvcc.nvidia.as_ref().unwrap();
    for dir in &tree.header_dirs {
        assert!(
            !failure.stderr.contains(&*dir.to_string_lossy()),
            "{}",
            failure.stderr
        );
    }
}
