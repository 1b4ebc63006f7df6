//! Races the optimizer deletes. `check` checks the code the compiler emitted, at the
//! optimisation level asked for (`-O3` by default): a race on `__shared__` stores that
//! nothing reads is gone at `-O3` (the stores are dead, so the program that runs has no
//! race), and `check -O0` (or `lint -O0 --block`) checks the source as written. This
//! pins that policy: no finding at -O3, the race at -O0.

use crate::common;

use common::*;
use warpcheck_report::Code;

const KERNEL: &str = r#"
__global__ void deadRacyStores(float* out)
{
    __shared__ float scratch[32];
    scratch[threadIdx.x % 32] = threadIdx.x;
    out[threadIdx.x] = 2.0f * threadIdx.x;
}
"#;

fn shared_races(opt: u8) -> Vec<u32> {
    let dir = std::env::temp_dir().join(format!("warpcheck-dead-stores-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join(format!("dead_stores_O{opt}.cu"));
    std::fs::write(&path, KERNEL).unwrap();
    let mut s = Session::new(compile_path(&path, opt), "race");
    let out = s.zeros("out", 64 * 4);
    s.launch("deadRacyStores", [1, 1, 1], [64, 1, 1], 0, &[A::Ptr(out)]);
    by_code(&s.findings(), Code::SharedRace)
        .iter()
        .map(|r| r.0)
        .collect()
}

#[test]
fn dead_racy_stores_are_checked_at_o0_and_gone_at_o3() {
    assert_eq!(shared_races(3), Vec::<u32>::new());
    assert_eq!(shared_races(0), vec![5]);
}
