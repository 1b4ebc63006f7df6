//! The help of a race report never suggests a barrier between two lines that one already
//! separates: it says what happens instead (the accesses are in different iterations of
//! a loop around the barrier). Without a barrier between the lines, it suggests one.

use crate::common;

use common::*;
use warpcheck_report::Code;

const KERNEL: &str = r#"
__global__ void loopCarried(float* out, int steps)
{
    __shared__ float s[256];
    int t = threadIdx.x;
    s[t] = t;
    __syncthreads();
    for (int i = 0; i < steps; i++) {
        float v = s[(t + 1) % 256];
        __syncthreads();
        s[t] = v + 1.0f;
    }
    out[t] = s[t];
}

__global__ void noBarrier(float* out)
{
    __shared__ float s[256];
    int t = threadIdx.x;
    s[t] = t;
    out[t] = s[(t + 1) % 256];
}
"#;

fn race_help(kernel: &str) -> String {
    let mut s = Session::new(
        compile_source(&format!("race_help_{kernel}"), KERNEL),
        "race",
    );
    let out = s.zeros("out", 256 * 4);
    if kernel == "loopCarried" {
        s.launch(kernel, [1, 1, 1], [256, 1, 1], 0, &[A::Ptr(out), A::I32(3)]);
    } else {
        s.launch(kernel, [1, 1, 1], [256, 1, 1], 0, &[A::Ptr(out)]);
    }
    let f = s.findings();
    let races = by_code(&f, Code::SharedRace);
    assert_eq!(races.len(), 1, "{f:#?}");
    races[0].1.help.clone().unwrap_or_default()
}

#[test]
fn a_race_across_a_barrier_in_a_loop_names_the_iterations() {
    let help = race_help("loopCarried");
    assert!(!help.contains("put a `__syncthreads()` between"), "{help}");
    assert!(help.contains("line 10"), "{help}");
    assert!(help.contains("different iterations of the loop"), "{help}");
}

#[test]
fn a_race_with_no_barrier_between_its_lines_suggests_one() {
    let help = race_help("noBarrier");
    assert!(
        help.contains("__syncthreads()` between the two accesses"),
        "{help}"
    );
}
