//! A block that stops on a fault is never dropped without a word: with the checker that
//! owns the fault off (`--tool race` and an out-of-bounds access), the fault is a
//! `block-stopped` note naming the block, the thread and the line; with it on, an error.
//! A faulting thread stops its whole block, so a race later in that block is not seen
//! (the note says so), while other blocks run on and are checked.

use crate::common;

use common::*;
use warpcheck_report::{Code, Severity};

const KERNEL: &str = r#"
__global__ void faultThenRace(int* out, int n)
{
    __shared__ int s[256];
    int t = threadIdx.x;
    if (blockIdx.x == 0 && t == 0) out[n] = 1;
    s[t] = t;
    out[blockIdx.x * 256 + t] = s[(t + 1) % 256];
}
"#;

fn run(tools: &str) -> Vec<warpcheck_report::Finding> {
    let mut s = Session::new(
        compile_source(
            &format!("faulting_block_{}", tools.replace(',', "_")),
            KERNEL,
        ),
        tools,
    );
    let out = s.zeros("out", 2 * 256 * 4);
    s.launch(
        "faultThenRace",
        [2, 1, 1],
        [256, 1, 1],
        0,
        &[A::Ptr(out), A::I32(1 << 20)],
    );
    s.findings()
}

#[test]
fn a_fault_whose_checker_is_off_is_a_block_stopped_note() {
    let f = run("race");
    let stopped = by_code(&f, Code::BlockStopped);
    assert_eq!(stopped.len(), 1, "{f:#?}");
    let (line, note) = stopped[0];
    assert_eq!(line, 6);
    assert_eq!(note.severity, Severity::Note);
    assert!(note.message.contains("block (0,0,0) stopped"), "{note:#?}");
    assert!(note.message.contains("did not run on"), "{note:#?}");
    // Block 1 ran to its end: its race (s[t] written, s[t+1] read, no barrier) is found.
    let races = by_code(&f, Code::SharedRace);
    assert_eq!(races.len(), 1, "{f:#?}");
    assert!(
        races[0]
            .1
            .notes
            .iter()
            .chain(races[0].1.related.iter().map(|r| &r.message))
            .any(|n| n.contains("block (1,0,0)"))
            || races[0]
                .1
                .primary
                .as_ref()
                .unwrap()
                .message
                .contains("block (1,0,0)"),
        "{f:#?}"
    );
}

#[test]
fn with_its_checker_on_the_fault_is_an_error() {
    let f = run("race,mem");
    assert!(by_code(&f, Code::BlockStopped).is_empty(), "{f:#?}");
    let oob = by_code(&f, Code::OutOfBounds);
    assert_eq!(oob.len(), 1, "{f:#?}");
    assert_eq!((oob[0].0, oob[0].1.severity), (6, Severity::Error));
}

const DYNAMIC: &str = r#"
__global__ void usesDynamicShared(float* out)
{
    extern __shared__ float smem[];
    smem[threadIdx.x] = threadIdx.x;
    __syncthreads();
    out[threadIdx.x] = smem[(threadIdx.x + 1) % blockDim.x];
}
"#;

#[test]
fn extern_shared_without_shared_bytes_says_so() {
    let run = |bytes: u32| {
        let mut s = Session::new(
            compile_source(&format!("dynamic_shared_{bytes}"), DYNAMIC),
            "mem",
        );
        let out = s.zeros("out", 64 * 4);
        s.launch(
            "usesDynamicShared",
            [1, 1, 1],
            [64, 1, 1],
            bytes,
            &[A::Ptr(out)],
        );
        s.findings()
    };
    let f = run(0);
    let oob = by_code(&f, Code::OutOfBounds);
    assert_eq!(oob.len(), 1, "{f:#?}");
    let e = oob[0].1;
    assert!(
        e.notes
            .iter()
            .any(|n| n.contains("extern __shared__ smem[]")),
        "{e:#?}"
    );
    assert!(
        e.help
            .as_deref()
            .is_some_and(|h| h.contains("--shared BYTES")),
        "{e:#?}"
    );
    assert!(run(64 * 4).is_empty());
}

/// Blocks that overrun a buffer at one line, each at its own address, are one error
/// counted per faulting block, with a note, not one error per address.
#[test]
fn alike_faults_of_many_blocks_at_one_line_are_one_finding() {
    const OVERRUN: &str = r#"
__global__ void overrun(int* out)
{
    out[(blockIdx.x + 1) * 256 + threadIdx.x] = 1;
}
"#;
    let mut s = Session::new(compile_source("faulting_block_overrun", OVERRUN), "mem");
    // Room for blocks 0..=2 (their writes start at 256, 512, 768); blocks 3..8 overrun.
    let out = s.zeros("out", 4 * 256 * 4);
    s.launch("overrun", [8, 1, 1], [256, 1, 1], 0, &[A::Ptr(out)]);
    let f = s.findings();
    let oob = by_code(&f, Code::OutOfBounds);
    assert_eq!(oob.len(), 1, "{f:#?}");
    let (line, finding) = oob[0];
    assert_eq!(line, 4);
    assert_eq!(finding.occurrences, 5, "{finding:#?}");
    assert!(
        finding
            .notes
            .iter()
            .any(|n| n.contains("5 faults of this kind at this instruction")),
        "{finding:#?}"
    );
}
