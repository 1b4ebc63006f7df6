//! Lint without a launch (no `--block`, no `--arg`): what holds for every value is a
//! warning, what holds only for some values of the parameters is a `depends-on` note
//! naming the parameter and the threshold, and what the lint cannot bound is a
//! `lint-undecided` note counted as such in the summary. Messages speak in source terms
//! (no PTX registers, no `mulhi` of magic numbers), and template instances keep their
//! arguments in the kernel's name.

use crate::common;

use common::compile_source_with_names;
use warpcheck_lint::warp::Granularity;
use warpcheck_lint::{LintOptions, lint_kernel};
use warpcheck_report::{Code, Finding, Severity};

const SOURCE: &str = r#"
__global__ void column(float *out, const float *in, int height) {
  int x = blockIdx.x * 32 + threadIdx.x;
  out[x] = in[x * height];
}

__global__ void wide_rows(float *out, const float *in, int n) {
  int x = blockIdx.x * 32 + threadIdx.x;
  out[x] = in[x * 32 * n];
}

__global__ void shared_stride(float *out, int stride) {
  __shared__ float s[4096];
  s[threadIdx.x] = 1.0f;
  __syncthreads();
  out[threadIdx.x] = s[threadIdx.x * stride];
}

__global__ void shared_even(float *out, int stride) {
  __shared__ float s[4096];
  s[threadIdx.x] = 1.0f;
  __syncthreads();
  out[threadIdx.x] = s[threadIdx.x * 2 * stride];
}

__global__ void loop_shared(float *out, int n) {
  __shared__ float s[1024];
  s[threadIdx.x] = 1.0f;
  __syncthreads();
  float acc = 0;
  for (int k = 1; k < n; k *= 2)
    acc += s[(threadIdx.x * k) % 1024];
  out[threadIdx.x] = acc;
}

__global__ void magic(float *out, const float *in, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  out[i] = in[(i % 7) * n + i / 7];
}

template <int B>
__global__ void tstride(float *out, const float *in) {
  out[blockIdx.x * 32 + threadIdx.x] = in[(blockIdx.x * 32 + threadIdx.x) * B];
}
template __global__ void tstride<32>(float *, const float *);
template __global__ void tstride<64>(float *, const float *);
"#;

/// Every kernel's findings without a launch, by the kernel's instance name, with the
/// source's parameter names.
fn lint_all() -> Vec<(String, Vec<Finding>)> {
    let (program, names) = compile_source_with_names("unknown_values", SOURCE);
    program
        .kernels()
        .map(|k| {
            let f = program.function(k);
            let lint = LintOptions {
                param_names: names.get(&f.name).cloned().unwrap_or_default(),
                launch: None,
                scalars: Default::default(),
                granularity: Granularity::Sectors,
                data_dependent: false,
            };
            (
                f.instance_name().to_string(),
                lint_kernel(&program, k, &lint),
            )
        })
        .collect()
}

fn of<'a>(all: &'a [(String, Vec<Finding>)], kernel: &str) -> &'a [Finding] {
    &all.iter()
        .find(|(n, _)| n == kernel)
        .unwrap_or_else(|| panic!("kernel {kernel} not found among {:?}", names(all)))
        .1
}

fn names(all: &[(String, Vec<Finding>)]) -> Vec<&str> {
    all.iter().map(|(n, _)| n.as_str()).collect()
}

fn line(f: &Finding) -> u32 {
    f.primary.as_ref().map_or(0, |p| p.location.line)
}

fn codes(fs: &[Finding]) -> Vec<(Code, u32)> {
    fs.iter().map(|f| (f.code, line(f))).collect()
}

#[test]
fn a_threshold_on_a_parameter_is_a_note_not_a_warning() {
    let all = lint_all();
    let fs = of(&all, "column");
    assert_eq!(codes(fs), vec![(Code::DependsOn, 4)], "{fs:#?}");
    let f = &fs[0];
    assert_eq!(f.severity, Severity::Note);
    assert!(
        f.message.contains("uncoalesced when `height` ≥ 2"),
        "{}",
        f.message
    );
    assert!(f.message.contains("4·height bytes apart"), "{}", f.message);
    assert!(
        f.notes
            .iter()
            .any(|n| n.contains("32 sectors per request where 4 would do once `height` ≥ 8")),
        "{:?}",
        f.notes
    );
}

#[test]
fn what_holds_for_every_value_stays_a_warning() {
    let all = lint_all();
    let fs = of(&all, "wide_rows");
    assert_eq!(codes(fs), vec![(Code::UncoalescedAccess, 9)], "{fs:#?}");
    assert_eq!(fs[0].severity, Severity::Warning);
    assert!(
        fs[0]
            .message
            .contains(": 32 sectors per request where 4 would do"),
        "{}",
        fs[0].message
    );
    let fs = of(&all, "shared_even");
    assert_eq!(codes(fs), vec![(Code::BankConflict, 23)], "{fs:#?}");
    assert!(
        fs[0].message.starts_with("2-way or worse"),
        "{}",
        fs[0].message
    );
}

#[test]
fn a_bank_conflict_on_a_parameter_names_its_parity() {
    let all = lint_all();
    let fs = of(&all, "shared_stride");
    assert_eq!(codes(fs), vec![(Code::DependsOn, 16)], "{fs:#?}");
    assert!(
        fs[0].message.contains("bank conflict") && fs[0].message.contains("when `stride` is even"),
        "{}",
        fs[0].message
    );
}

#[test]
fn an_access_the_lint_cannot_bound_is_undecided_not_clean() {
    let all = lint_all();
    let fs = of(&all, "loop_shared");
    assert_eq!(codes(fs), vec![(Code::LintUndecided, 32)], "{fs:#?}");
    assert!(
        fs[0].message.contains("conflicts on banks"),
        "{}",
        fs[0].message
    );
    assert!(
        fs[0].message.contains("loop at line 31"),
        "{}",
        fs[0].message
    );
    assert_eq!(
        warpcheck_report::text::summary(fs),
        "undecided: 1 access (see notes)"
    );
    let fs = of(&all, "magic");
    assert_eq!(codes(fs), vec![(Code::LintUndecided, 38)], "{fs:#?}");
}

#[test]
fn divisions_by_constants_print_as_divisions() {
    // clang turns `i / 7` and `i % 7` into a multiply-high by a magic number, a shift and
    // a sign correction; the offset reads as the source's division again.
    let all = lint_all();
    let f = &of(&all, "magic")[0];
    assert!(
        f.notes.iter().any(|n| n.starts_with("byte offset:")
            && n.contains("(threadIdx.x + blockIdx.x·blockDim.x) / 7")),
        "{:?}",
        f.notes
    );
}

#[test]
fn messages_name_no_registers_and_no_magic_numbers() {
    for (kernel, fs) in lint_all() {
        for f in &fs {
            for text in std::iter::once(&f.message).chain(&f.notes) {
                assert!(
                    !text.contains("%r") && !text.contains("%rd") && !text.contains("mulhi"),
                    "{kernel}: {text}"
                );
            }
        }
    }
}

#[test]
fn template_instances_keep_their_arguments() {
    let all = lint_all();
    for (kernel, stride) in [("tstride<32>", "128"), ("tstride<64>", "256")] {
        let fs = of(&all, kernel);
        assert_eq!(codes(fs), vec![(Code::UncoalescedAccess, 43)], "{fs:#?}");
        assert_eq!(fs[0].kernel.as_deref(), Some(kernel));
        assert!(
            fs[0]
                .notes
                .iter()
                .any(|n| n.contains(&format!("{stride} bytes apart"))),
            "{:?}",
            fs[0].notes
        );
    }
}
