//! `warpcheck` with nvcc from NVIDIA's pip wheels (`tools/setup.sh` installs them): the
//! command line's compiler flags (`--compiler nvcc`, `-x cu`, `-std=`, `-X FLAG`), PTX that
//! parses, and instructions the IR does not support reported as such. Skipped, saying why,
//! when the wheels are not installed.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../front/tests/fixtures/nvidia")
        .join(name)
}

fn installed() -> bool {
    let found = warpcheck_front::NvidiaTree::from_env().is_some_and(|t| t.nvcc.is_some());
    if !found {
        eprintln!(
            "skipped: NVIDIA's wheels are not installed in {:?} (run tools/setup.sh)",
            warpcheck_front::nvidia_private_dir()
        );
    }
    found
}

fn warpcheck(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_warpcheck"))
        .args(args)
        .output()
        .expect("warpcheck runs")
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

#[test]
fn ptx_check_parses_nvccs_ptx_of_kernels_with_nvidia_headers() {
    if !installed() {
        return;
    }
    for name in ["bf16_axpy.cu", "cg_reduce.cu", "barrier_stage.cu"] {
        let file = fixture(name);
        let out = warpcheck(&[
            "ptx",
            file.to_str().unwrap(),
            "--compiler",
            "nvcc",
            "--check",
        ]);
        assert_eq!(out.status.code(), Some(0), "{name}: {}", text(&out.stderr));
        let ptx = text(&out.stdout);
        assert!(
            ptx.contains("Cuda compilation tools"),
            "{name}: not nvcc's PTX"
        );
        assert!(ptx.contains(".visible .entry"), "{name}");
    }
}

#[test]
fn language_standard_and_pass_through_flags_reach_nvcc() {
    if !installed() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let cpp = dir.path().join("scale.cpp");
    std::fs::write(
        &cpp,
        "#ifndef FACTOR\n#error FACTOR must come from -X\n#endif\n\
         __global__ void scale(float *x) { x[threadIdx.x] *= FACTOR; }\n",
    )
    .unwrap();
    let cpp = cpp.to_str().unwrap();
    let out = warpcheck(&[
        "kernels",
        "-x",
        "cu",
        cpp,
        "--compiler",
        "nvcc",
        "-std=c++20",
        "-X",
        "-DFACTOR=3",
        "--format",
        "json",
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let json: serde_json::Value = serde_json::from_slice(&out.stdout).expect("JSON");
    assert_eq!(json["kernels"][0]["name"], "scale", "{json}");
    assert!(
        json["compiler"].as_str().unwrap().starts_with("nvcc "),
        "{json}"
    );

    // Without -x the extension is refused, naming the ones accepted.
    let out = warpcheck(&["ptx", cpp, "--compiler", "nvcc"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(text(&out.stderr).contains(".cuh"), "{}", text(&out.stderr));
}

#[test]
fn cuda_barrier_runs_and_wmma_is_refused_by_name() {
    if !installed() {
        return;
    }
    // libcu++'s cuda::barrier compiles to mbarrier.*: it runs, and the tile read after
    // `arrive_and_wait` is no race.
    let file = fixture("barrier_stage.cu");
    let out = warpcheck(&[
        "check",
        file.to_str().unwrap(),
        "--compiler",
        "nvcc",
        "--grid",
        "2",
        "--block",
        "256",
        "--arg",
        "n=512",
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    // The nvcuda::wmma API is named when the emulator refuses it.
    let file = fixture("wmma_tile.cu");
    let out = warpcheck(&[
        "run",
        file.to_str().unwrap(),
        "--compiler",
        "nvcc",
        "--block",
        "32",
    ]);
    assert_eq!(out.status.code(), Some(2));
    let stderr = text(&out.stderr);
    assert!(
        stderr.contains("`wmma.load` (the `nvcuda::wmma` API"),
        "{stderr}"
    );
}
