//! Bounded launches and deterministic reports, as a user sees them:
//!
//! * a grid whose every block spins forever stops at `--timeout` or `--launch-budget`
//!   with a `launch-limit` error saying how far the launch got, in seconds;
//! * blocks that branch on the value an atomic returned (a ticket counter) give the same
//!   JSON report, byte for byte, on every run with the default host threads;
//! * a buffer the host cannot allocate is a clear error (exit 2), not an abort.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::time::{Duration, Instant};

/// Every block waits for a flag that nothing sets.
const SPIN_PTX: &str = ".version 7.0
.target sm_80
.address_size 64
.visible .entry spin(.param .u64 flag)
{
    .reg .pred %p<2>;
    .reg .b32 %r<2>;
    .reg .b64 %rd<3>;
    ld.param.u64 %rd1, [flag];
    cvta.to.global.u64 %rd2, %rd1;
$L_wait:
    ld.volatile.global.u32 %r1, [%rd2];
    setp.eq.u32 %p1, %r1, 0;
    @%p1 bra $L_wait;
    ret;
}
";

/// Each block takes a ticket; the block with the last ticket sums what the others wrote
/// (without a fence: a race, whose witness is whichever block got that ticket).
const TICKETS_CU: &str = r#"
__global__ void tickets(unsigned *ctr, unsigned *slots, unsigned *sum, int work)
{
    __shared__ unsigned t;
    if (threadIdx.x == 0)
        t = atomicAdd(ctr, 1u);
    __syncthreads();
    unsigned ticket = t;
    unsigned acc = 0;
    for (int i = 0; i < work; ++i)
        acc += i ^ threadIdx.x;
    slots[ticket * blockDim.x + threadIdx.x] = blockIdx.x + (acc & 1);
    if (ticket == gridDim.x - 1) {
        unsigned s = 0;
        for (unsigned i = threadIdx.x; i < gridDim.x * blockDim.x; i += blockDim.x)
            s += slots[i];
        sum[threadIdx.x] = s;
    }
}
"#;

fn warpcheck(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_warpcheck"))
        .args(args)
        .output()
        .expect("warpcheck runs")
}

fn write(dir: &Path, name: &str, text: &str) -> PathBuf {
    let path = dir.join(name);
    std::fs::write(&path, text).unwrap();
    path
}

fn text(out: &Output) -> String {
    format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    )
}

fn spin(limit: &[&str]) -> (Output, Duration) {
    let dir = tempfile::tempdir().unwrap();
    let ptx = write(dir.path(), "spin.ptx", SPIN_PTX);
    let mut args = vec![
        "check",
        ptx.to_str().unwrap(),
        "--grid",
        "64",
        "--block",
        "64",
        "--arg",
        "arg0=u32[1]",
    ];
    args.extend_from_slice(limit);
    let start = Instant::now();
    let out = warpcheck(&args);
    (out, start.elapsed())
}

#[test]
fn spinning_blocks_stop_at_the_time_limit() {
    let (out, took) = spin(&["--timeout", "1"]);
    let all = text(&out);
    assert_eq!(out.status.code(), Some(1), "{all}");
    assert!(all.contains("launch-limit"), "{all}");
    assert!(
        all.contains("the launch was stopped at its time limit of 1 s")
            && all.contains("of 64 blocks had finished"),
        "{all}"
    );
    assert!(took < Duration::from_secs(8), "took {took:?}\n{all}");
}

#[test]
fn spinning_blocks_stop_at_the_launch_budget() {
    let (out, took) = spin(&["--launch-budget", "50000000"]);
    let all = text(&out);
    assert_eq!(out.status.code(), Some(1), "{all}");
    assert!(
        all.contains("stopped at its limit of 50000000 lane-instructions"),
        "{all}"
    );
    assert!(took < Duration::from_secs(8), "took {took:?}\n{all}");
}

#[test]
fn reports_of_blocks_that_branch_on_atomics_are_the_same_on_every_run() {
    let dir = tempfile::tempdir().unwrap();
    let cu = write(dir.path(), "tickets.cu", TICKETS_CU);
    let args = [
        "check",
        cu.to_str().unwrap(),
        "--compiler",
        "clang",
        "--grid",
        "48",
        "--block",
        "64",
        "--arg",
        "ctr=u32[1]",
        "--arg",
        "slots=u32[3072]",
        "--arg",
        "sum=u32[64]",
        "--arg",
        "work=200",
        "--format",
        "json",
    ];
    let first = warpcheck(&args);
    assert_eq!(first.status.code(), Some(1), "{}", text(&first));
    let report = String::from_utf8_lossy(&first.stdout).into_owned();
    assert!(report.contains("global-race"), "{report}");
    for run in 1..10 {
        let again = warpcheck(&args);
        assert_eq!(
            String::from_utf8_lossy(&again.stdout),
            report,
            "run {run} differs from the first"
        );
    }
}

#[cfg(unix)]
#[test]
fn a_buffer_the_host_cannot_hold_is_an_error_not_an_abort() {
    let dir = tempfile::tempdir().unwrap();
    let ptx = write(dir.path(), "spin.ptx", SPIN_PTX);
    // 4 GB, under the 8 GiB limit, with 2 GB of address space.
    let out = Command::new("sh")
        .arg("-c")
        .arg(format!(
            "ulimit -v 2000000 && exec '{}' run '{}' --grid 1 --block 32 --arg 'arg0=u32[1000000000]'",
            env!("CARGO_BIN_EXE_warpcheck"),
            ptx.display()
        ))
        .output()
        .unwrap();
    let all = text(&out);
    assert_eq!(out.status.code(), Some(2), "{:?}\n{all}", out.status);
    assert!(all.contains("out of host memory"), "{all}");
}
