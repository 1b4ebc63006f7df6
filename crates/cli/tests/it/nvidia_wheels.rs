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
fn cuda_barrier_runs() {
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
}

/// Reads a raw little-endian f32 buffer that `--dump NAME=PATH` wrote.
fn read_f32s(path: &Path) -> Vec<f32> {
    std::fs::read(path)
        .expect("dumped buffer")
        .chunks(4)
        .map(|c| f32::from_le_bytes(c.try_into().unwrap()))
        .collect()
}

/// f16 bits of a small integer (exact below 2048).
fn f16_of(v: i32) -> u16 {
    let (sign, mag) = (if v < 0 { 0x8000u16 } else { 0 }, v.unsigned_abs());
    if mag == 0 {
        return sign;
    }
    let e = 31 - mag.leading_zeros();
    sign | ((e as u16 + 15) << 10) | (((mag << 10) >> e) as u16 & 0x3ff)
}

#[test]
fn wmma_kernels_compute_the_exact_product() {
    if !installed() {
        return;
    }
    let dir = std::env::temp_dir().join(format!("warpcheck-wmma-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    // One 16x16x16 tile: A (row-major) and B (column-major) hold their offsets, so
    // C[i][j] = sum_k (16 i + k) (16 j + k), exact in f32.
    let file = fixture("wmma_tile.cu");
    let c_path = dir.join("tile_c.bin");
    let out = warpcheck(&[
        "run",
        file.to_str().unwrap(),
        "--compiler",
        "nvcc",
        "--block",
        "32",
        "--arg",
        "a=f16[256]:iota",
        "--arg",
        "b=f16[256]:iota",
        "--arg",
        "c=f32[256]",
        "--dump",
        &format!("c={}", c_path.display()),
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let c = read_f32s(&c_path);
    for i in 0..16 {
        for j in 0..16 {
            let want: i64 = (0..16).map(|k| (16 * i + k) * (16 * j + k)).sum();
            assert_eq!(c[(16 * i + j) as usize], want as f32, "C[{i}][{j}]");
        }
    }

    // A 64x64 GEMM, four warps per block, tiles staged through shared memory: the
    // product is exact (small integers), and `check` finds nothing.
    let n = 64usize;
    let a = |i: usize, k: usize| ((3 * i + 5 * k) % 7) as i32 - 3;
    let b = |k: usize, j: usize| ((2 * k + j) % 5) as i32 - 2;
    let raw = |f: &dyn Fn(usize, usize) -> i32| -> Vec<u8> {
        (0..n * n)
            .flat_map(|x| f16_of(f(x / n, x % n)).to_le_bytes())
            .collect()
    };
    let (a_path, b_path) = (dir.join("a.bin"), dir.join("b.bin"));
    std::fs::write(&a_path, raw(&a)).unwrap();
    std::fs::write(&b_path, raw(&b)).unwrap();
    let c_path = dir.join("gemm_c.bin");
    let file = fixture("wmma_gemm.cu");
    let launch = [
        "--compiler".to_string(),
        "nvcc".into(),
        "--grid".into(),
        "2,2".into(),
        "--block".into(),
        "128".into(),
        "--arg".into(),
        format!("a=f16[4096]:file({})", a_path.display()),
        "--arg".into(),
        format!("b=f16[4096]:file({})", b_path.display()),
        "--arg".into(),
        "c=f32[4096]".into(),
        "--arg".into(),
        "n=64".into(),
    ];
    let with = |cmd: &str, extra: &[String]| {
        let mut v = vec![cmd.to_string(), file.to_str().unwrap().to_string()];
        v.extend(launch.iter().cloned());
        v.extend(extra.iter().cloned());
        v
    };
    let args = with("run", &["--dump".into(), format!("c={}", c_path.display())]);
    let out = warpcheck(&args.iter().map(String::as_str).collect::<Vec<_>>());
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let c = read_f32s(&c_path);
    for i in 0..n {
        for j in 0..n {
            let want: i32 = (0..n).map(|k| a(i, k) * b(k, j)).sum();
            assert_eq!(c[i * n + j], want as f32, "C[{i}][{j}]");
        }
    }
    let args = with("check", &[]);
    let out = warpcheck(&args.iter().map(String::as_str).collect::<Vec<_>>());
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}{}",
        text(&out.stdout),
        text(&out.stderr)
    );

    // Without the barrier after the mma, the next iteration's stores to the tiles race
    // with the other warps' `load_matrix_sync` from them.
    let source = std::fs::read_to_string(&file).unwrap();
    let second = source.rfind("__syncthreads();").unwrap();
    let racy = dir.join("wmma_gemm_racy.cu");
    std::fs::write(
        &racy,
        format!("{}{}", &source[..second], &source[second + 16..]),
    )
    .unwrap();
    let mut args = with("check", &[]);
    args[1] = racy.to_str().unwrap().to_string();
    let out = warpcheck(&args.iter().map(String::as_str).collect::<Vec<_>>());
    let all = format!("{}{}", text(&out.stdout), text(&out.stderr));
    assert_eq!(out.status.code(), Some(1), "{all}");
    assert!(
        all.contains("error[shared-race]") && all.contains("load_matrix_sync"),
        "{all}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}
