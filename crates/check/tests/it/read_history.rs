//! Read history of the race checker: a write meets every read by another thread that
//! nothing orders before it, whichever thread writes and in whichever order the readers
//! ran. Every thread of a block reads one word, then one thread writes it with no barrier
//! in between: a write-after-read race for every writer position, including the thread
//! that read last (thread 255, whose own read is the latest one recorded), for plain and
//! atomic writes, in shared and in global memory.

use crate::common;

use common::*;
use warpcheck_report::Code;

const KERNEL: &str = r#"
__global__ void sharedReadsThenWrite(int* out, int writer, int atomic)
{
    __shared__ int s[4];
    if (threadIdx.x == 0) s[0] = 1;
    __syncthreads();
    int v = s[0];
    if (threadIdx.x == writer) {
        if (atomic) atomicExch(&s[0], 7);
        else s[0] = 7;
    }
    out[threadIdx.x] = v;
}

__global__ void globalReadsThenWrite(int* out, int* g, int writer, int atomic)
{
    int v = g[0];
    if (threadIdx.x == writer) {
        if (atomic) atomicExch(&g[0], 7);
        else g[0] = 7;
    }
    out[threadIdx.x] = v;
}

__global__ void orderedReadsThenWrite(int* out, int writer)
{
    __shared__ int s[4];
    if (threadIdx.x == 0) s[0] = 1;
    __syncthreads();
    int v = s[0];
    __syncthreads();
    if (threadIdx.x == writer) s[0] = 7;
    out[threadIdx.x] = v;
}
"#;

const WRITERS: [i32; 8] = [0, 1, 31, 32, 128, 223, 254, 255];

fn findings(kernel: &str, writer: i32, atomic: bool) -> Vec<warpcheck_report::Finding> {
    let mut s = Session::new(
        compile_source(&format!("read_history_{kernel}"), KERNEL),
        "race",
    );
    let out = s.zeros("out", 256 * 4);
    let atomic = A::I32(atomic as i32);
    if kernel == "globalReadsThenWrite" {
        let g = s.zeros("g", 16);
        s.launch(
            kernel,
            [1, 1, 1],
            [256, 1, 1],
            0,
            &[A::Ptr(out), A::Ptr(g), A::I32(writer), atomic],
        );
    } else if kernel == "orderedReadsThenWrite" {
        s.launch(
            kernel,
            [1, 1, 1],
            [256, 1, 1],
            0,
            &[A::Ptr(out), A::I32(writer)],
        );
    } else {
        s.launch(
            kernel,
            [1, 1, 1],
            [256, 1, 1],
            0,
            &[A::Ptr(out), A::I32(writer), atomic],
        );
    }
    s.findings()
}

fn assert_write_after_read(kernel: &str, code: Code, read_line: u32, write_lines: [u32; 2]) {
    for writer in WRITERS {
        for atomic in [false, true] {
            let f = findings(kernel, writer, atomic);
            let races = by_code(&f, code);
            assert_eq!(
                races.len(),
                1,
                "{kernel} writer {writer} atomic {atomic}: {f:#?}"
            );
            let race = races[0].1;
            let mut lines: Vec<u32> = std::iter::once(race.primary.as_ref().unwrap())
                .chain(race.related.iter())
                .map(|l| l.location.line)
                .collect();
            lines.sort();
            let write_line = write_lines[atomic as usize];
            assert_eq!(
                lines,
                vec![read_line, write_line],
                "{kernel} writer {writer} atomic {atomic}: {race:#?}"
            );
        }
    }
}

#[test]
fn a_shared_write_meets_the_reads_of_every_other_thread() {
    assert_write_after_read("sharedReadsThenWrite", Code::SharedRace, 7, [10, 9]);
}

#[test]
fn a_global_write_meets_the_reads_of_every_other_thread() {
    assert_write_after_read("globalReadsThenWrite", Code::GlobalRace, 17, [20, 19]);
}

#[test]
fn reads_ordered_by_a_barrier_do_not_race_with_the_write() {
    for writer in WRITERS {
        let f = findings("orderedReadsThenWrite", writer, false);
        assert!(f.is_empty(), "writer {writer}: {f:#?}");
    }
}
