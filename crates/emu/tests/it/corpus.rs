//! Corpus kernels run end to end (clang -O0 and -O3) and checked against CPU references.

use crate::common;
use common::*;
use warpcheck_emu::GlobalMemory;

#[test]
fn vector_add() {
    for opt in [0, 3] {
        let p = compile("vector_add.cu", opt);
        let k = kernel(&p, "vecAdd");
        let n = 1000;
        let (a, b) = (rand_f32(n, 1), rand_f32(n, 2));
        let mut m = GlobalMemory::new();
        let (da, db, dc) = (
            buf_f32(&mut m, &a),
            buf_f32(&mut m, &b),
            buf_f32(&mut m, &vec![0.0; n]),
        );
        let prm = params(
            &p,
            k,
            &[A::Ptr(da), A::Ptr(db), A::Ptr(dc), A::I32(n as i32)],
        );
        let out = run_clean(&p, k, &prm, &mut m, &config([4, 1, 1], [256, 1, 1]));
        let c = read_f32(&m, dc, n);
        let want: Vec<f32> = a.iter().zip(&b).map(|(x, y)| x + y).collect();
        assert_eq!(c, want, "-O{opt}");
        // 1000 threads execute the body; 24 threads of the last block only the guard.
        assert!(out.stats.lane_instructions > 1000 * 10);
        assert_eq!(out.stats.blocks, 4);
        assert_eq!(out.stats.barriers, 0);
        // The last block's warp 7 (threads 992..1023) diverges at the bounds check.
        assert_eq!(out.stats.divergent_branches, 1, "-O{opt}");
    }
}
