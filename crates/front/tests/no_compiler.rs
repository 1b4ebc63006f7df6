//! With no compiler on PATH the error says how to install one. This file holds a single
//! test because it changes the process environment.

use warpcheck_front::{CompileOptions, CompilerChoice, FrontError, compile};

#[test]
fn without_a_compiler_the_error_says_how_to_get_one() {
    let fixture =
        std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/warp.cu");
    let empty = tempfile::tempdir().unwrap();
    // SAFETY: this test binary runs this one test, so no other thread reads the environment.
    unsafe {
        std::env::set_var("PATH", empty.path());
        std::env::remove_var("WARPCHECK_CLANG");
        std::env::remove_var("CUDA_HOME");
        std::env::remove_var("CUDA_PATH");
        // No private nvcc from NVIDIA's wheels either.
        std::env::set_var("WARPCHECK_NVIDIA_DIR", empty.path());
    }
    let error = compile(&fixture, &CompileOptions::default()).unwrap_err();
    assert!(matches!(error, FrontError::NoCompiler { .. }), "{error:?}");
    let message = error.to_string();
    assert!(
        message.starts_with("no clang 14 or later found"),
        "{message}"
    );
    assert!(message.contains("apt-get install clang"), "{message}");

    if !std::path::Path::new("/usr/local/cuda/bin/nvcc").exists() {
        let nvcc = CompileOptions {
            compiler: CompilerChoice::Nvcc,
            ..CompileOptions::default()
        };
        let message = compile(&fixture, &nvcc).unwrap_err().to_string();
        assert!(message.starts_with("no nvcc found"), "{message}");
        assert!(message.contains("--compiler clang"), "{message}");
        assert!(message.contains("tools/setup.sh"), "{message}");
        assert!(message.contains("no NVIDIA wheels in"), "{message}");
    }

    // SAFETY: as above.
    unsafe { std::env::set_var("WARPCHECK_CLANG", empty.path().join("clang-99")) };
    let message = compile(&fixture, &CompileOptions::default())
        .unwrap_err()
        .to_string();
    assert!(message.contains("clang-99"), "{message}");
}
