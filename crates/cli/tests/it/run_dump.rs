//! `warpcheck run --dump`: the summary (first and last elements, sum, FNV-1a of the bytes)
//! and the `.npy` and raw files, on a buffer larger than the 1 MiB chunks the CLI reads
//! and generates buffers in, so that chunk boundaries are crossed.

use std::process::Command;

const KERNEL: &str = r#"
__global__ void add(const float* x, const float* y, float* out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        out[i] = x[i] + y[i];
    }
}
"#;

/// 300,000 floats: 1.2 MB, two chunks.
const N: usize = 300_000;

fn fnv1a(bytes: &[u8]) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for &b in bytes {
        h = (h ^ b as u64).wrapping_mul(0x0000_0100_0000_01b3);
    }
    h
}

#[test]
fn dumps_summaries_npy_and_raw_files_across_chunks() {
    let dir = std::env::temp_dir().join(format!("warpcheck-run-dump-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let source = dir.join("add.cu");
    std::fs::write(&source, KERNEL).unwrap();
    let npy = dir.join("out.npy");
    let raw = dir.join("x.bin");
    let out = Command::new(env!("CARGO_BIN_EXE_warpcheck"))
        .arg("run")
        .arg(&source)
        .args(["--grid", &N.div_ceil(256).to_string(), "--block", "256"])
        .args(["--arg", &format!("n={N}")])
        .args([
            "--arg",
            "x=f32[n]:iota",
            "--arg",
            "y=f32[n]:iota",
            "--arg",
            "out=f32[n]",
        ])
        .args(["--dump", "out", "--dump"])
        .arg(format!("out={}", npy.display()))
        .arg("--dump")
        .arg(format!("x={}", raw.display()))
        .output()
        .expect("warpcheck runs");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{stdout}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );

    // out[i] = 2i.
    let expected: Vec<f32> = (0..N).map(|i| 2.0 * i as f32).collect();
    let bytes: Vec<u8> = expected.iter().flat_map(|v| v.to_le_bytes()).collect();
    let sum: f64 = expected.iter().map(|&v| f64::from(v)).sum();
    let line = stdout
        .lines()
        .find(|l| l.trim_start().starts_with("out f32[300000]"))
        .unwrap_or_else(|| panic!("no summary of out in:\n{stdout}"));
    let want = format!(
        "out f32[300000]  [0, 2, 4, 6, …, 599992, 599994, 599996, 599998]  sum={sum} fnv1a={:016x}",
        fnv1a(&bytes)
    );
    assert_eq!(line.trim(), want);

    // The .npy file: a version 1.0 header, then the elements.
    let file = std::fs::read(&npy).unwrap();
    assert_eq!(&file[..6], b"\x93NUMPY");
    let header_len = u16::from_le_bytes([file[8], file[9]]) as usize;
    let header = String::from_utf8_lossy(&file[10..10 + header_len]);
    assert!(
        header.contains("'descr': '<f4'") && header.contains("'shape': (300000,)"),
        "{header}"
    );
    assert_eq!((10 + header_len) % 64, 0, "data is 64-byte aligned");
    assert_eq!(&file[10 + header_len..], &bytes[..]);

    // The raw file of an input generated chunk by chunk: x[i] = i.
    let x: Vec<u8> = (0..N).flat_map(|i| (i as f32).to_le_bytes()).collect();
    assert_eq!(std::fs::read(&raw).unwrap(), x);
    let _ = std::fs::remove_dir_all(&dir);
}

/// Output files never overwrite an input: `--dump` onto the kernel file and
/// `advise --emit-cuda` onto its own `.c` file are errors (exit 2) that leave the file as
/// it was; an existing output is replaced whole (written aside, then renamed).
#[test]
fn outputs_refuse_to_overwrite_inputs() {
    let dir = std::env::temp_dir().join(format!("warpcheck-no-overwrite-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let source = dir.join("add.cu");
    std::fs::write(&source, KERNEL).unwrap();
    let spelt_otherwise = dir.join(".").join("add.cu");
    let run = |dump: &std::path::Path| {
        Command::new(env!("CARGO_BIN_EXE_warpcheck"))
            .arg("run")
            .arg(&source)
            .args(["--grid", "1", "--block", "64", "--arg", "n=64"])
            .arg("--dump")
            .arg(format!("out={}", dump.display()))
            .output()
            .unwrap()
    };
    let out = run(&spelt_otherwise);
    assert_eq!(
        out.status.code(),
        Some(2),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(String::from_utf8_lossy(&out.stderr).contains("refusing to write"));
    assert_eq!(std::fs::read_to_string(&source).unwrap(), KERNEL);
    // An existing output is replaced by the complete new contents.
    let raw = dir.join("out.bin");
    std::fs::write(&raw, b"previous contents, longer than nothing").unwrap();
    let out = run(&raw);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(std::fs::read(&raw).unwrap().len(), 64 * 4);

    let c = dir.join("scale.c");
    let loop_c = "void scale(float *a, int n)\n{\n    for (int i = 0; i < n; i++) {\n        a[i] = 2.0f * a[i];\n    }\n}\n";
    std::fs::write(&c, loop_c).unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_warpcheck"))
        .arg("advise")
        .arg(&c)
        .args(["--values", "n=64", "--emit-cuda"])
        .arg(&c)
        .output()
        .unwrap();
    assert_eq!(
        out.status.code(),
        Some(2),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(String::from_utf8_lossy(&out.stderr).contains("refusing to write"));
    assert_eq!(std::fs::read_to_string(&c).unwrap(), loop_c);
    let _ = std::fs::remove_dir_all(&dir);
}
