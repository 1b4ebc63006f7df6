//! Generic accesses through device pointers that the host stored in memory (heartwall's
//! `d_unique[bx].d_in2[i]`, a `__constant__` array of structs of pointers): clang cannot
//! tell which state space such a pointer reaches and emits generic loads and stores. The
//! lint takes them to be global (pointers the host stores are device pointers), names the
//! pointer's origin and says so in a note; a unit-stride access through one stays clean.

use warpcheck_front::{CompileOptions, CompilerChoice};
use warpcheck_lint::warp::Granularity;
use warpcheck_lint::{LintOptions, lint_kernel};
use warpcheck_report::Finding;

const SOURCE: &str = r#"
struct Buffers { float *columns; float *sums; };
__constant__ Buffers tables[4];

__global__ void through_stored_pointers(int n) {
  const Buffers &t = tables[blockIdx.x];
  float s = 0.0f;
  for (int i = 0; i < 16; ++i)
    s += t.columns[threadIdx.x * n + i];
  t.sums[blockIdx.x * 64 + threadIdx.x] = s;
}
"#;

/// The uncoalesced-access findings of each kernel, linted symbolically (no launch).
fn findings(granularity: Granularity) -> Vec<(String, Vec<Finding>)> {
    let dir = std::env::temp_dir().join(format!(
        "warpcheck-read-pointers-{}-{granularity:?}",
        std::process::id()
    ));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let path = dir.join("pointers.cu");
    std::fs::write(&path, SOURCE).expect("write kernel");
    let options = CompileOptions {
        compiler: CompilerChoice::Clang,
        ..CompileOptions::default()
    };
    let compiled = warpcheck_front::compile(&path, &options).expect("clang compiles the kernels");
    let parsed = warpcheck_ptx::parse(&compiled.ptx);
    let program = warpcheck_ir::lower(&parsed.module).expect("lowers");
    let lint = LintOptions {
        param_names: vec![],
        launch: None,
        scalars: Default::default(),
        granularity,
    };
    let out = program
        .kernels()
        .map(|k| {
            let name = program.function(k).name.to_string();
            let found = lint_kernel(&program, k, &lint)
                .into_iter()
                .filter(|f| f.code == "uncoalesced-access")
                .collect();
            (name, found)
        })
        .collect();
    let _ = std::fs::remove_dir_all(&dir);
    out
}

fn of<'a>(all: &'a [(String, Vec<Finding>)], kernel: &str) -> &'a [Finding] {
    &all.iter()
        .find(|(n, _)| n.contains(kernel))
        .unwrap_or_else(|| panic!("kernel {kernel} not found"))
        .1
}

#[test]
fn strided_access_through_a_stored_pointer_is_flagged_and_unit_stride_is_not() {
    let all = findings(Granularity::Lines);
    let found = of(&all, "through_stored_pointers");
    let lines: Vec<u32> = found
        .iter()
        .filter_map(|f| f.primary.as_ref().map(|p| p.location.line))
        .collect();
    assert_eq!(lines, vec![9], "{found:#?}");
    let f = &found[0];
    assert!(f.message.contains("pointer read from tables"), "{f:#?}");
    assert!(
        f.notes
            .iter()
            .any(|n| n.contains("taken to point to global memory")),
        "{f:#?}"
    );
}
