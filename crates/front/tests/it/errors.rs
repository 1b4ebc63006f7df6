//! Each failure class gives a message that names the problem and what to do.

use crate::common;
use common::*;
use warpcheck_front::{CompileOptions, CompilerChoice, FrontError, compile, compile_with};

#[test]
fn a_missing_input_is_named() {
    let error = compile("no/such/kernel.cu".as_ref(), &CompileOptions::default()).unwrap_err();
    assert!(
        matches!(error, FrontError::InputMissing { .. }),
        "{error:?}"
    );
    assert_eq!(
        error.to_string(),
        "input file no/such/kernel.cu does not exist"
    );
}

#[test]
fn an_unsupported_extension_lists_the_supported_ones() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("kernel.cpp");
    std::fs::write(&path, "int main() {}").unwrap();
    let message = compile(&path, &CompileOptions::default())
        .unwrap_err()
        .to_string();
    assert!(message.contains("extension `.cpp`"), "{message}");
    assert!(
        message.contains(".cu, .cuh, .cu.h, .cl, .c, .ptx"),
        "{message}"
    );
    assert!(message.contains("-x cu"), "{message}");
    let bare = dir.path().join("Makefile");
    std::fs::write(&bare, "all:").unwrap();
    let message = compile(&bare, &CompileOptions::default())
        .unwrap_err()
        .to_string();
    assert!(message.contains("no extension"), "{message}");
}

#[test]
fn compiler_errors_carry_the_compilers_diagnostics() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("broken.cu");
    std::fs::write(
        &path,
        "__global__ void k(int *p) {\n  p[0] = undeclared_name;\n}\n",
    )
    .unwrap();
    for clang in clangs() {
        let error = compile_with(&clang, &path, &CompileOptions::default()).unwrap_err();
        let message = error.to_string();
        assert!(matches!(error, FrontError::CompilerFailed(_)), "{error:?}");
        assert!(
            message
                .contains("broken.cu:2:10: error: use of undeclared identifier 'undeclared_name'"),
            "{message}"
        );
        assert!(message.contains("command: "), "{message}");
        assert!(message.contains(&clang.to_string()), "{message}");
    }
}

#[test]
fn bad_options_are_rejected_before_compiling() {
    let clang = &clangs()[0];
    let bad_arch = CompileOptions {
        arch: "sm80".into(),
        ..CompileOptions::default()
    };
    let message = compile_with(clang, &fixture("warp.cu"), &bad_arch)
        .unwrap_err()
        .to_string();
    assert!(
        message.contains("invalid GPU architecture `sm80`"),
        "{message}"
    );
    let bad_level = CompileOptions {
        opt_level: 4,
        ..CompileOptions::default()
    };
    let message = compile_with(clang, &fixture("warp.cu"), &bad_level)
        .unwrap_err()
        .to_string();
    assert!(
        message.contains("invalid optimisation level 4"),
        "{message}"
    );
}

#[test]
fn nvcc_is_refused_for_opencl_and_c() {
    for name in ["kernels.cl", "porting.c"] {
        let options = CompileOptions {
            compiler: CompilerChoice::Nvcc,
            ..CompileOptions::default()
        };
        let message = compile(&fixture(name), &options).unwrap_err().to_string();
        assert!(message.contains("nvcc cannot compile"), "{message}");
        assert!(message.contains("use clang"), "{message}");
    }
}

#[test]
fn an_endless_input_is_read_to_a_bound_not_forever() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("endless.ptx");
    std::os::unix::fs::symlink("/dev/zero", &path).unwrap();
    let error = compile(&path, &CompileOptions::default()).unwrap_err();
    assert!(
        matches!(error, FrontError::InputUnreadable { .. }),
        "{error:?}"
    );
    assert!(
        error
            .to_string()
            .contains("larger than the limit of 268435456 bytes"),
        "{error}"
    );
}
