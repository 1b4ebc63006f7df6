//! Accesses of called (`__noinline__`) device functions, linted per call site
//! (`warpcheck_lint::calls`), on kernels written for this test: a helper walking `p[i *
//! stride]` called with each thread's own row (strided: flagged at the helper's line)
//! and with each thread's own column (coalesced: not flagged), two call sites of one
//! kernel with different strides (a verdict each) and with the same one (one finding), a
//! call through another function, a recursive function (a note, no hang), and a callee
//! whose values double per unrolled step once its arguments are bound (given up at a
//! size bound, with a note, whatever the host's speed).

use crate::common;

use std::collections::BTreeMap;

use common::compile_source_with_names;
use warpcheck_ir::Program;
use warpcheck_lint::{Launch, LintOptions, lint_kernel};
use warpcheck_report::{Code, Finding};

const SOURCE: &str = r#"
__device__ __noinline__ float sum_row(const float *p, int stride, int n) {
  float s = 0.0f;
#pragma unroll 1
  for (int i = 0; i < n; i++)
    s += p[i * stride]; // SUM
  return s;
}

__device__ __noinline__ void scale_row(float *p, int stride, int n, float f) {
  for (int i = 0; i < n; i++)
    p[i * stride] *= f; // SCALE
}

__device__ __noinline__ void scale_twice(float *p, int stride, int n) {
  scale_row(p, stride, n, 2.0f); // INNER_CALL
}

__device__ __noinline__ float walk(const float *p, int depth) {
  float v = p[0]; // WALK
  if (depth <= 0)
    return v;
  return v + walk(p + 1, depth - 1); // RECURSE
}

__device__ __noinline__ float get(const float *p, int i) {
  return p[i]; // GET
}

// dwt2d's `loadFrom`: a reader walking a column that turns back at its end. Unrolled,
// each step selects between two values that both hold the previous `last` and `stride`.
__device__ __noinline__ float mirror_walk(const float *p, int last, int stride, int end) {
  float s = 0.0f;
#pragma unroll
  for (int i = 0; i < 24; i++) {
    last += stride;
    if (last == end) { // MIRROR_TURN
      last -= 2 * stride;
      stride = -stride;
    }
    s += p[last]; // MIRROR_LOAD
  }
  return s;
}

__global__ void mirrored(const float *a, float *out, int n, int end) {
  int tid = blockIdx.x * blockDim.x + threadIdx.x;
  out[tid] = mirror_walk(a, tid * n, n, end); // MIRROR_CALL
}

__global__ void loop_calls(const float *a, float *out, int n) {
  int tid = blockIdx.x * blockDim.x + threadIdx.x;
  float s = 0.0f;
#pragma unroll 1
  for (int j = 0; j < n; j++)
    s += get(a, tid * n + j) + get(a, j * n + tid); // LOOP_CALLS
  out[tid] = s;
}

__global__ void rows(const float *a, float *out, int n) {
  int tid = blockIdx.x * blockDim.x + threadIdx.x;
  out[tid] = sum_row(a + tid * n, 1, n); // ROWS_CALL
}

__global__ void columns(const float *a, float *out, int n) {
  int tid = blockIdx.x * blockDim.x + threadIdx.x;
  out[tid] = sum_row(a + tid, n, n); // COLUMNS_CALL
}

__global__ void two_strides(const float *a, float *out, int n) {
  int tid = blockIdx.x * blockDim.x + threadIdx.x;
  float x = sum_row(a + tid * 2, 1, n); // PAIRS_CALL
  float y = sum_row(a + tid * 64, 1, n); // FAR_CALL
  out[tid] = x + y;
}

__global__ void same_twice(const float *a, float *out, int n) {
  int tid = blockIdx.x * blockDim.x + threadIdx.x;
  float x = sum_row(a + tid * n, 1, n); // FIRST_CALL
  float y = sum_row(a + tid * n + 32, 1, n); // SECOND_CALL
  float z = sum_row(a + tid, n, n); // COALESCED_CALL
  out[tid] = x + y + z;
}

__global__ void nested(float *a, int n) {
  int tid = blockIdx.x * blockDim.x + threadIdx.x;
  scale_twice(a + tid * n, 1, n); // OUTER_CALL
}

__global__ void recursive(const float *a, float *out, int depth) {
  int tid = blockIdx.x * blockDim.x + threadIdx.x;
  out[tid] = walk(a + tid * 32, depth); // WALK_CALL
}
"#;

/// The source line holding `// MARK`.
fn line(mark: &str) -> u32 {
    let tag = format!("// {mark}");
    SOURCE
        .lines()
        .position(|l| l.ends_with(&tag))
        .unwrap_or_else(|| panic!("no line marked {mark}")) as u32
        + 1
}

fn program() -> (Program, common::ParamNames) {
    compile_source_with_names("calls", SOURCE)
}

/// The findings of one kernel, linted symbolically or for a launch.
fn lint(
    program: &Program,
    names: &common::ParamNames,
    kernel: &str,
    launch: Option<(Launch, &[(&str, i128)])>,
) -> Vec<Finding> {
    let k = program
        .kernels()
        .find(|&k| program.function(k).display_name() == kernel)
        .unwrap_or_else(|| panic!("kernel {kernel}"));
    let param_names = names
        .get(&program.function(k).name)
        .cloned()
        .unwrap_or_default();
    let (launch, scalars) = match launch {
        Some((l, s)) => (
            Some(l),
            s.iter()
                .map(|(k, v)| (k.to_string(), *v))
                .collect::<BTreeMap<_, _>>(),
        ),
        None => (None, BTreeMap::new()),
    };
    let options = LintOptions {
        param_names,
        launch,
        scalars,
        ..LintOptions::default()
    };
    lint_kernel(program, k, &options)
}

/// The uncoalesced findings at a line.
fn uncoalesced_at(findings: &[Finding], line: u32) -> Vec<&Finding> {
    findings
        .iter()
        .filter(|f| f.code == Code::UncoalescedAccess)
        .filter(|f| f.primary.as_ref().is_some_and(|p| p.location.line == line))
        .collect()
}

fn has_note(f: &Finding, text: &str) -> bool {
    f.notes.iter().any(|n| n.contains(text))
}

const LAUNCH: Launch = Launch {
    grid: [4, 1, 1],
    block: [256, 1, 1],
};

#[test]
fn strided_argument_flags_the_callee_line_with_the_chain() {
    let (program, names) = program();
    // Without a launch the stride is `4·n` bytes: uncoalesced only when `n` ≥ 2, a note.
    let findings = lint(&program, &names, "rows", None);
    let at: Vec<&Finding> = findings
        .iter()
        .filter(|f| f.code == Code::DependsOn)
        .filter(|f| {
            f.primary
                .as_ref()
                .is_some_and(|p| p.location.line == line("SUM"))
        })
        .collect();
    assert_eq!(at.len(), 1, "{findings:#?}");
    assert!(at[0].message.contains("`n` ≥ 2"), "{}", at[0].message);
    let chain = format!("rows → sum_row at line {}", line("ROWS_CALL"));
    assert!(has_note(at[0], &chain), "{:#?}", at[0]);
    assert_eq!(at[0].kernel.as_deref(), Some("rows"));
    // For a launch, the stride is n floats: with n = 64 every lane its own sector.
    let findings = lint(&program, &names, "rows", Some((LAUNCH, &[("n", 64)])));
    let at = uncoalesced_at(&findings, line("SUM"));
    assert_eq!(at.len(), 1, "{findings:#?}");
    assert!(at[0].message.contains("32 sectors"), "{}", at[0].message);
}

#[test]
fn coalesced_argument_is_not_flagged() {
    let (program, names) = program();
    for launch in [None, Some((LAUNCH, &[("n", 64)][..]))] {
        let findings = lint(&program, &names, "columns", launch);
        assert!(
            uncoalesced_at(&findings, line("SUM")).is_empty(),
            "{findings:#?}"
        );
    }
}

#[test]
fn call_sites_with_different_strides_get_a_verdict_each() {
    let (program, names) = program();
    let findings = lint(
        &program,
        &names,
        "two_strides",
        Some((LAUNCH, &[("n", 64)])),
    );
    let at = uncoalesced_at(&findings, line("SUM"));
    assert_eq!(at.len(), 2, "{findings:#?}");
    let pairs = format!("two_strides → sum_row at line {}", line("PAIRS_CALL"));
    let far = format!("two_strides → sum_row at line {}", line("FAR_CALL"));
    let by_chain = |chain: &str| {
        at.iter()
            .find(|f| has_note(f, chain))
            .unwrap_or_else(|| panic!("no finding through {chain}: {at:#?}"))
    };
    // 8-byte lane stride: 8 sectors where 4 would do, 9 in the iterations that start
    // mid-sector; 256 bytes: one sector per lane.
    assert!(by_chain(&pairs).message.contains("9 sectors"), "{at:#?}");
    assert!(by_chain(&far).message.contains("32 sectors"), "{at:#?}");
}

#[test]
fn identical_contexts_are_reported_once() {
    let (program, names) = program();
    let findings = lint(&program, &names, "same_twice", Some((LAUNCH, &[("n", 64)])));
    let at = uncoalesced_at(&findings, line("SUM"));
    assert_eq!(at.len(), 1, "{findings:#?}");
    let first = format!("same_twice → sum_row at line {}", line("FIRST_CALL"));
    let second = format!("same_twice → sum_row at line {}", line("SECOND_CALL"));
    let coalesced = format!("same_twice → sum_row at line {}", line("COALESCED_CALL"));
    assert!(has_note(at[0], &first), "{:#?}", at[0]);
    assert!(has_note(at[0], &second), "{:#?}", at[0]);
    assert!(!has_note(at[0], &coalesced), "{:#?}", at[0]);
}

#[test]
fn nested_calls_carry_the_outer_arguments() {
    let (program, names) = program();
    let findings = lint(&program, &names, "nested", Some((LAUNCH, &[("n", 64)])));
    let at = uncoalesced_at(&findings, line("SCALE"));
    assert!(!at.is_empty(), "{findings:#?}");
    let chain = format!(
        "nested → scale_twice at line {} → scale_row at line {}",
        line("OUTER_CALL"),
        line("INNER_CALL")
    );
    assert!(at.iter().all(|f| has_note(f, &chain)), "{at:#?}");
    assert!(
        at.iter().all(|f| f.message.contains("32 sectors")),
        "{at:#?}"
    );
}

#[test]
fn callers_loops_are_enumerated_for_a_launch() {
    let (program, names) = program();
    let findings = lint(&program, &names, "loop_calls", Some((LAUNCH, &[("n", 64)])));
    let at = uncoalesced_at(&findings, line("GET"));
    // `get(a, tid * n + j)`: lanes 256 bytes apart in every iteration of the kernel's
    // loop; `get(a, j * n + tid)`: adjacent (not reported).
    assert_eq!(at.len(), 1, "{findings:#?}");
    assert!(at[0].message.contains("32 sectors"), "{:#?}", at[0]);
    let chain = format!("loop_calls → get at line {}", line("LOOP_CALLS"));
    assert!(has_note(at[0], &chain), "{:#?}", at[0]);
    assert!(!has_note(at[0], "the same in another call"), "{:#?}", at[0]);
}

#[test]
fn recursion_is_a_note_and_the_first_level_is_linted() {
    let (program, names) = program();
    let findings = lint(
        &program,
        &names,
        "recursive",
        Some((LAUNCH, &[("depth", 4)])),
    );
    let at = uncoalesced_at(&findings, line("WALK"));
    assert_eq!(at.len(), 1, "{findings:#?}");
    let notes: Vec<&Finding> = findings
        .iter()
        .filter(|f| f.code == Code::CallNotLinted)
        .collect();
    assert_eq!(notes.len(), 1, "{findings:#?}");
    assert!(
        notes[0].message.contains("recursive call of `walk`"),
        "{:#?}",
        notes[0]
    );
    assert_eq!(
        notes[0].primary.as_ref().map(|p| p.location.line),
        Some(line("RECURSE"))
    );
}

#[test]
fn runaway_values_give_up_the_context_with_a_note() {
    let (program, names) = program();
    let lint_mirrored = || {
        lint(
            &program,
            &names,
            "mirrored",
            Some((LAUNCH, &[("n", 64), ("end", 4096)])),
        )
    };
    let findings = lint_mirrored();
    let notes: Vec<&Finding> = findings
        .iter()
        .filter(|f| f.code == Code::CallNotLinted)
        .collect();
    assert_eq!(notes.len(), 1, "{findings:#?}");
    let bound = format!("grow past {} nodes", warpcheck_lint::calls::MAX_VALUE_SIZE);
    assert!(notes[0].message.contains(&bound), "{:#?}", notes[0]);
    assert!(
        notes[0].message.contains("`mirror_walk`"),
        "{:#?}",
        notes[0]
    );
    assert_eq!(
        notes[0].primary.as_ref().map(|p| p.location.line),
        Some(line("MIRROR_CALL"))
    );
    // Given up, the context reports nothing at the callee's lines; and the verdict is a
    // function of the program alone: a second run says exactly the same.
    assert!(uncoalesced_at(&findings, line("MIRROR_LOAD")).is_empty());
    let again = lint_mirrored();
    let messages = |fs: &[Finding]| fs.iter().map(|f| f.message.clone()).collect::<Vec<_>>();
    assert_eq!(messages(&findings), messages(&again));
}
