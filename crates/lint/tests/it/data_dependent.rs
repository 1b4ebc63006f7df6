//! `--data-dependent` (`LintOptions::data_dependent`): global accesses whose address varies
//! across a warp through values read from memory are reported as
//! `uncoalesced-data-dependent` (GPUDrano's convention), and only with the option. A CSR
//! gather (`x[col[j]]`, `val[j]` over a per-thread range `rowptr[row]..`) and an atomic
//! scatter over per-thread ranges (`hist[bins[k]]`, `k` from `start[i]`) are reported; a
//! coalesced access, an index read from memory that is the same across the warp
//! (`a[start[blockIdx.x] + threadIdx.x]`) and an index read once from a per-thread table
//! (`a[nb[i]]`: neighbour tables usually coalesce in practice) are not, unless the kernel
//! walks a range from that index (`dst[pos[tid] / 32 + i]`).

use crate::common;

use common::*;
use warpcheck_lint::warp::Granularity;
use warpcheck_report::{Code, Finding};

const SOURCE: &str = r#"
__global__ void csr_gather(const int *rowptr, const int *col, const float *val,
                           const float *x, float *y, int n) {
  int row = blockIdx.x * blockDim.x + threadIdx.x;
  if (row < n) {
    float s = 0.0f;
    for (int j = rowptr[row]; j < rowptr[row + 1]; ++j)
      s += val[j] * x[col[j]];
    y[row] = s;
  }
}

__global__ void uniform_index(const int *start, const float *a, float *out) {
  int base = start[blockIdx.x];
  out[blockIdx.x * blockDim.x + threadIdx.x] = a[base + threadIdx.x];
}

__global__ void coalesced(const float *in, float *out) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  out[i] = 2.0f * in[i];
}

__global__ void histogram(const int *start, const int *bins, int *hist) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  for (int k = start[i]; k < start[i + 1]; ++k) {
    int b = bins[k];
    atomicAdd(&hist[b], 1);
  }
}

__global__ void pack(const unsigned *pos, const unsigned *len, unsigned *dst) {
  unsigned tid = blockIdx.x * blockDim.x + threadIdx.x;
  unsigned dword = pos[tid] / 32;
  atomicOr(&dst[dword], 1u);
  for (unsigned i = 1; i < len[tid]; ++i)
    dst[dword + i] = i;
}

__global__ void neighbours(const int *nb, const float *a, float *out) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  out[i] = a[nb[i]];
}
"#;

fn findings(data_dependent: bool) -> Vec<(String, Vec<Finding>)> {
    let (program, names) = compile_source_with_names("gathers", SOURCE);
    findings_by_kernel(
        &program,
        &names,
        Granularity::Lines,
        data_dependent,
        Code::UncoalescedDataDependent,
    )
}

fn lines(found: &[Finding]) -> Vec<u32> {
    found
        .iter()
        .filter_map(|f| f.primary.as_ref().map(|p| p.location.line))
        .collect()
}

#[test]
fn a_csr_gather_is_reported_with_the_option_and_not_without() {
    let with = findings(true);
    let found = of(&with, "csr_gather");
    assert_eq!(lines(found), vec![8], "{found:#?}");
    let f = &found[0];
    assert!(
        f.message.contains("global load of `val`")
            && f.message.contains("at an address read from memory")
            && f.message.contains("coalescing depends on the data"),
        "{f:#?}"
    );
    let text = format!("{f:?}");
    assert!(
        text.contains("`rowptr[…]`"),
        "the note names the loaded index: {text}"
    );
    assert!(
        f.help.iter().any(|h| h.contains("warpcheck check")),
        "{f:#?}"
    );
    let without = findings(false);
    assert!(of(&without, "csr_gather").is_empty(), "{without:#?}");
}

#[test]
fn an_atomic_scatter_is_reported() {
    let with = findings(true);
    let found = of(&with, "histogram");
    // Line 26 reads `bins` over each thread's range, line 27 scatters through it.
    assert_eq!(lines(found), vec![26, 27], "{found:#?}");
    assert!(
        found[1].message.contains("global atomic of `hist`"),
        "{found:#?}"
    );
    assert!(found[1].message.contains("`bins[…]`"), "{found:#?}");
}

#[test]
fn an_index_from_a_per_thread_table_counts_when_the_kernel_walks_a_range_from_it() {
    // `pos[tid]` is read from a per-thread table, like `nb[i]` in `neighbours`; the loop
    // over `dst[dword + i]` shows it to be a position: the atomic through it counts too.
    let with = findings(true);
    let found = of(&with, "pack");
    assert_eq!(lines(found), vec![34, 36], "{found:#?}");
    assert!(
        found[0].message.contains("global atomic of `dst`"),
        "{found:#?}"
    );
    assert!(
        found[1].message.contains("global store of `dst`"),
        "{found:#?}"
    );
}

#[test]
fn coalesced_accesses_warp_uniform_and_per_thread_table_indices_are_not_reported() {
    let with = findings(true);
    for kernel in ["coalesced", "uniform_index", "neighbours"] {
        let found = of(&with, kernel);
        assert!(found.is_empty(), "{kernel}: {found:#?}");
    }
}
