//! Bank-conflict and coalescing totals against Nsight Compute on real hardware.
//!
//! `tests/gpu-anchors/` holds `ncu`'s shared-memory wavefront/bank-conflict and
//! global-memory request/sector totals for every launch of the corpus, measured on an NVIDIA
//! H200 (CUDA 13.0, Nsight Compute 2025.3.1; see its README and VERSIONS.txt) for cubins
//! assembled from the committed nvcc PTX (`tests/nvcc-ptx/<stem>.ptx`). This test runs
//! warpcheck on the same PTX with the same launches and requires the same eight totals per
//! kernel.
//!
//! The reference build is `ptxas -O0`, which keeps the PTX's memory instructions one to
//! one (ptxas -O3 merges scalar shared loads into `LDS.128`, changing the counts). For a
//! few kernels `-O0` adds shared stores of its own, so their store counts are compared with
//! the `-O3` build ([`STORES_FROM_O3`], with the reason). Kernels whose run on the GPU is
//! not the emulator's are left out ([`NOT_COMPARABLE`]).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;

/// Kernels whose shared-store counts are compared with `ptxas -O3`'s: (stem, why).
const STORES_FROM_O3: &[(&str, &str)] = &[
    (
        "bitonic_sort_shared",
        "ptxas -O0 spills to shared stores with 12 extra store wavefronts that no PTX access causes",
    ),
    (
        "stencil_2d_shared",
        "ptxas -O0 adds 13 store bank conflicts that no PTX access causes",
    ),
    (
        "matmul_tiled_bug_partial_tile",
        "ptxas -O0 adds 3 store bank conflicts that no PTX access causes",
    ),
];

/// Kernels left out: (stem, why).
const NOT_COMPARABLE: &[(&str, &str)] = &[
    (
        "vector_add_bug_off_by_one",
        "the out-of-bounds read faults in the emulator, which stops the block; the GPU reads the allocation's padding and goes on",
    ),
    (
        "printf_debug",
        "the GPU's printf writes its arguments to a global buffer (counted by ncu); the emulator formats them natively",
    ),
];

const METRICS: [(&str, &str); 8] = [
    (
        "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum",
        "shared_load_wavefronts",
    ),
    (
        "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum",
        "shared_store_wavefronts",
    ),
    (
        "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum",
        "shared_load_bank_conflicts",
    ),
    (
        "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum",
        "shared_store_bank_conflicts",
    ),
    (
        "l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum",
        "global_load_requests",
    ),
    (
        "l1tex__t_requests_pipe_lsu_mem_global_op_st.sum",
        "global_store_requests",
    ),
    (
        "l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum",
        "global_load_sectors",
    ),
    (
        "l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum",
        "global_store_sectors",
    ),
];

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../..")
        .canonicalize()
        .expect("repository root")
}

/// stem -> kernel (mangled) -> metric -> total over the stem's launches of that kernel.
type Totals = BTreeMap<String, BTreeMap<String, BTreeMap<String, u64>>>;

fn read_ncu(file: &str) -> Totals {
    let text = std::fs::read_to_string(root().join("tests/gpu-anchors").join(file))
        .expect("tests/gpu-anchors");
    let mut lines = text.lines();
    let header: Vec<&str> = lines.next().expect("header").split('\t').collect();
    let col = |name: &str| header.iter().position(|h| *h == name).expect(name);
    let mut out = Totals::new();
    for line in lines {
        let f: Vec<&str> = line.split('\t').collect();
        if f.get(col("status")) != Some(&"ok") {
            continue;
        }
        let kernel = out
            .entry(f[col("stem")].to_string())
            .or_default()
            .entry(f[col("kernel")].to_string())
            .or_default();
        for (metric, _) in METRICS {
            let v: u64 = f[col(metric)].parse().expect("number");
            *kernel.entry(metric.to_string()).or_default() += v;
        }
    }
    out
}

/// warpcheck's totals for one stem, by mangled kernel name.
fn warpcheck(stem: &str) -> Result<BTreeMap<String, BTreeMap<String, u64>>, String> {
    let ptx = root().join("tests/nvcc-ptx").join(format!("{stem}.ptx"));
    // `scan_blelloch.REMOVE_BARRIER_1` is a variant of `scan_blelloch.cu`.
    let base = stem.split('.').next().unwrap_or(stem);
    let cu = root().join("tests/kernels").join(format!("{base}.cu"));
    let out = Command::new(env!("CARGO_BIN_EXE_warpcheck"))
        .arg("check")
        .arg(&ptx)
        .arg("--launches")
        .arg(&cu)
        .args(["--tool", "bank,coalesce", "--format", "json"])
        .output()
        .map_err(|e| e.to_string())?;
    if out.status.code() == Some(2) {
        return Err(String::from_utf8_lossy(&out.stderr).into_owned());
    }
    let json: serde_json::Value =
        serde_json::from_slice(&out.stdout).map_err(|e| format!("bad JSON: {e}"))?;
    let mut totals = BTreeMap::new();
    for k in json["kernels"].as_array().cloned().unwrap_or_default() {
        let name = k["mangled"].as_str().unwrap_or_default().to_string();
        let mut m = BTreeMap::new();
        for (metric, field) in METRICS {
            m.insert(metric.to_string(), k[field].as_u64().unwrap_or(u64::MAX));
        }
        totals.insert(name, m);
    }
    Ok(totals)
}

#[test]
fn bank_and_coalescing_totals_equal_nsight_compute() {
    let o0 = read_ncu("ncu-ptxas-O0.tsv");
    let o3 = read_ncu("ncu-ptxas-O3.tsv");
    let stems: Vec<&String> = o0.keys().collect();
    let mut failures = Vec::new();
    let mut compared = 0;
    for stem in stems {
        if NOT_COMPARABLE.iter().any(|(s, _)| s == stem) {
            continue;
        }
        let Some(mut want) = o0.get(stem).cloned() else {
            continue;
        };
        if STORES_FROM_O3.iter().any(|(s, _)| s == stem) {
            for (kernel, metrics) in &mut want {
                for (metric, v) in metrics.iter_mut() {
                    if metric.contains("mem_shared_op_st")
                        && let Some(x) = o3
                            .get(stem)
                            .and_then(|k| k.get(kernel))
                            .and_then(|m| m.get(metric))
                    {
                        *v = *x;
                    }
                }
            }
        }
        let want = &want;
        match warpcheck(stem) {
            Err(e) => failures.push(format!("{stem}: {e}")),
            Ok(got) => {
                for (kernel, metrics) in want {
                    compared += 1;
                    let Some(g) = got.get(kernel) else {
                        failures.push(format!("{stem} {kernel}: not launched by warpcheck"));
                        continue;
                    };
                    for (metric, v) in metrics {
                        if g.get(metric) != Some(v) {
                            failures.push(format!(
                                "{stem} {kernel} {metric}: ncu {v}, warpcheck {:?}",
                                g.get(metric)
                            ));
                        }
                    }
                }
            }
        }
    }
    assert!(compared > 50, "only {compared} kernels compared");
    assert!(
        failures.is_empty(),
        "{} differences from Nsight Compute:\n{}",
        failures.len(),
        failures.join("\n")
    );
}
