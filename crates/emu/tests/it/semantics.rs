//! Divergence, reconvergence, barriers, warp-level operations, calls and observers, on
//! hand-written PTX whose results are known.

use crate::common;
use common::*;
use warpcheck_emu::observer::{BarrierEvent, MemEvent, MemKind, Observer, ObserverFactory};
use warpcheck_emu::{GlobalMemory, LaunchConfig, Scheduling, run, run_observed};
use warpcheck_ir::modifiers::MemSpace;

const HEADER: &str = ".version 7.0\n.target sm_80\n.address_size 64\n";

/// Runs `body` (a kernel `k(.param .u64 out)`) with `threads` threads in one block under
/// both schedulings and returns `out` (u32 per thread); both must agree.
fn run_out(body: &str, threads: u32) -> Vec<u32> {
    let p = lower_ptx(&format!("{HEADER}{body}"));
    let k = kernel(&p, "k");
    let mut results = Vec::new();
    for scheduling in [
        Scheduling::LockStep,
        Scheduling::Independent { seed: 11 },
        Scheduling::Independent { seed: 12 },
    ] {
        let mut m = GlobalMemory::new();
        let out = buf_u32(&mut m, &vec![0; threads as usize]);
        let mut c = LaunchConfig::new([1, 1, 1], [threads, 1, 1]);
        c.scheduling = scheduling;
        let o = run(&p, k, &out.to_le_bytes(), &mut m, &c).unwrap();
        assert!(
            o.faults.is_empty(),
            "{scheduling:?}: {:?}",
            o.faults
                .iter()
                .map(|f| f.kind.to_string())
                .collect::<Vec<_>>()
        );
        results.push(read_u32(&m, out, threads as usize));
    }
    assert_eq!(results[0], results[1], "lock-step vs independent");
    assert_eq!(results[0], results[2], "two seeds");
    results.remove(0)
}

/// Common prologue: %r1 = tid, %rd3 = &out[tid].
const PROLOGUE: &str = " .reg .pred %p<8>;\n .reg .b32 %r<20>;\n .reg .b64 %rd<8>;\n ld.param.u64 %rd1, [out];\n mov.u32 %r1, %tid.x;\n mul.wide.u32 %rd2, %r1, 4;\n add.s64 %rd3, %rd1, %rd2;\n";

#[test]
fn barrier_in_both_branches_of_a_divergent_if_is_one_barrier() {
    // Lanes < 16 write shared[tid] = tid+100 before the barrier; lanes >= 16 read
    // shared[tid-16] after theirs. Both barriers are barrier 0.
    let body = format!(
        ".visible .entry k(.param .u64 out) {{\n .shared .align 4 .b32 s[32];\n{PROLOGUE} mov.u64 %rd4, s;\n mul.wide.u32 %rd5, %r1, 4;\n add.s64 %rd6, %rd4, %rd5;\n setp.lt.u32 %p1, %r1, 16;\n @%p1 bra LOW;\n bar.sync 0;\n ld.shared.u32 %r2, [%rd6+-64];\n bra.uni JOIN;\nLOW:\n add.u32 %r3, %r1, 100;\n st.shared.u32 [%rd6], %r3;\n bar.sync 0;\n mov.u32 %r2, 1;\nJOIN:\n st.global.u32 [%rd3], %r2;\n ret;\n}}\n"
    );
    let out = run_out(&body, 32);
    for (t, &v) in out.iter().enumerate() {
        assert_eq!(
            v,
            if t < 16 { 1 } else { t as u32 - 16 + 100 },
            "thread {t}"
        );
    }
}

#[test]
fn nested_divergence_and_data_dependent_loops_reconverge() {
    // out[tid] = sum of 1..=(tid % 7) computed in a loop, plus 1000 if tid is odd
    // (a nested branch inside the loop), then a convergent add after the loop.
    let body = format!(
        ".visible .entry k(.param .u64 out) {{\n{PROLOGUE} rem.u32 %r2, %r1, 7;\n mov.u32 %r3, 0;\n mov.u32 %r4, 1;\nLOOP:\n setp.gt.u32 %p1, %r4, %r2;\n @%p1 bra DONE;\n add.u32 %r3, %r3, %r4;\n and.b32 %r5, %r1, 1;\n setp.eq.u32 %p2, %r5, 0;\n @%p2 bra EVEN;\n setp.ne.u32 %p3, %r4, 1;\n @%p3 bra EVEN;\n add.u32 %r3, %r3, 1000;\nEVEN:\n add.u32 %r4, %r4, 1;\n bra.uni LOOP;\nDONE:\n activemask.b32 %r6;\n setp.eq.u32 %p4, %r6, -1;\n selp.u32 %r7, 1000000, 0, %p4;\n add.u32 %r3, %r3, %r7;\n st.global.u32 [%rd3], %r3;\n ret;\n}}\n"
    );
    let out = run_out(&body, 32);
    for t in 0..32u32 {
        let n = t % 7;
        let mut want = n * (n + 1) / 2;
        if t % 2 == 1 && n >= 1 {
            want += 1000;
        }
        assert_eq!(
            out[t as usize],
            want + 1_000_000,
            "thread {t}: the warp must have reconverged after the loop"
        );
    }
}

#[test]
fn named_barriers_with_counts_and_arrive() {
    // Warp 0 produces into shared memory and arrives at barrier 1 (count 64) without
    // waiting; warp 1 waits at barrier 1, then consumes.
    let body = format!(
        ".visible .entry k(.param .u64 out) {{\n .shared .align 4 .b32 s[32];\n{PROLOGUE} mov.u64 %rd4, s;\n and.b32 %r9, %r1, 31;\n mul.wide.u32 %rd5, %r9, 4;\n add.s64 %rd6, %rd4, %rd5;\n setp.lt.u32 %p1, %r1, 32;\n @%p1 bra PRODUCER;\n bar.sync 1, 64;\n ld.shared.u32 %r2, [%rd6];\n st.global.u32 [%rd3], %r2;\n ret;\nPRODUCER:\n mul.lo.u32 %r3, %r1, 3;\n st.shared.u32 [%rd6], %r3;\n bar.arrive 1, 64;\n st.global.u32 [%rd3], 5;\n ret;\n}}\n"
    );
    let out = run_out(&body, 64);
    for t in 0..64u32 {
        assert_eq!(
            out[t as usize],
            if t < 32 { 5 } else { (t - 32) * 3 },
            "thread {t}"
        );
    }
}

#[test]
fn barrier_reductions() {
    // popc of (tid % 3 == 0) over 96 threads = 32; and: all tid < 96 = 1; or: tid == 95.
    let body = format!(
        ".visible .entry k(.param .u64 out) {{\n{PROLOGUE} rem.u32 %r2, %r1, 3;\n setp.eq.u32 %p1, %r2, 0;\n bar.red.popc.u32 %r3, 0, %p1;\n setp.lt.u32 %p2, %r1, 96;\n bar.red.and.pred %p3, 1, %p2;\n setp.eq.u32 %p4, %r1, 95;\n bar.red.or.pred %p5, 2, %p4;\n selp.u32 %r4, 100, 0, %p3;\n selp.u32 %r5, 10000, 0, %p5;\n add.u32 %r6, %r3, %r4;\n add.u32 %r6, %r6, %r5;\n st.global.u32 [%rd3], %r6;\n ret;\n}}\n"
    );
    let out = run_out(&body, 96);
    assert!(out.iter().all(|&v| v == 32 + 100 + 10000), "{out:?}");
}

#[test]
fn warp_collectives() {
    // shfl.down by 1 within the warp, ballot of odd lanes, redux.add, match.any of tid/4,
    // vote.all, in one value per lane.
    let body = format!(
        ".visible .entry k(.param .u64 out) {{\n{PROLOGUE} shfl.sync.down.b32 %r2|%p1, %r1, 1, 31, -1;\n and.b32 %r3, %r1, 1;\n setp.eq.u32 %p2, %r3, 1;\n vote.sync.ballot.b32 %r4, %p2, -1;\n redux.sync.add.u32 %r5, %r1, -1;\n shr.u32 %r6, %r1, 2;\n match.any.sync.b32 %r7, %r6, -1;\n setp.lt.u32 %p3, %r1, 100;\n vote.sync.all.pred %p4, %p3, -1;\n selp.u32 %r8, 1, 0, %p4;\n selp.u32 %r9, 1, 0, %p1;\n st.global.u32 [%rd3], %r2;\n add.s64 %rd4, %rd3, 128;\n st.global.u32 [%rd4], %r4;\n add.s64 %rd4, %rd3, 256;\n st.global.u32 [%rd4], %r5;\n add.s64 %rd4, %rd3, 384;\n st.global.u32 [%rd4], %r7;\n add.s64 %rd4, %rd3, 512;\n add.u32 %r8, %r8, %r9;\n st.global.u32 [%rd4], %r8;\n ret;\n}}\n"
    );
    let p = lower_ptx(&format!("{HEADER}{body}"));
    let k = kernel(&p, "k");
    let mut m = GlobalMemory::new();
    let out = buf_u32(&mut m, &[0; 160]);
    let o = run(
        &p,
        k,
        &out.to_le_bytes(),
        &mut m,
        &LaunchConfig::new([1, 1, 1], [32, 1, 1]),
    )
    .unwrap();
    assert!(o.faults.is_empty());
    let v = read_u32(&m, out, 160);
    for l in 0..32u32 {
        let i = l as usize;
        assert_eq!(v[i], if l < 31 { l + 1 } else { 31 }, "shfl lane {l}");
        assert_eq!(v[32 + i], 0xaaaa_aaaa, "ballot");
        assert_eq!(v[64 + i], 496, "redux");
        assert_eq!(v[96 + i], 0xf << (l / 4 * 4), "match");
        assert_eq!(
            v[128 + i],
            1 + (l < 31) as u32,
            "vote.all and shfl predicate"
        );
    }
}

#[test]
fn warp_sync_reconverges_divergent_halves() {
    // Each half of the warp writes shared memory in its own branch, then both halves
    // __syncwarp() at different instructions and read the other half's value.
    let body = format!(
        ".visible .entry k(.param .u64 out) {{\n .shared .align 4 .b32 s[32];\n{PROLOGUE} mov.u64 %rd4, s;\n mul.wide.u32 %rd5, %r1, 4;\n add.s64 %rd6, %rd4, %rd5;\n xor.b32 %r2, %r1, 16;\n mul.wide.u32 %rd5, %r2, 4;\n add.s64 %rd7, %rd4, %rd5;\n setp.lt.u32 %p1, %r1, 16;\n @%p1 bra LOW;\n add.u32 %r3, %r1, 500;\n st.shared.u32 [%rd6], %r3;\n bar.warp.sync -1;\n ld.shared.u32 %r4, [%rd7];\n bra.uni JOIN;\nLOW:\n add.u32 %r3, %r1, 700;\n st.shared.u32 [%rd6], %r3;\n bar.warp.sync -1;\n ld.shared.u32 %r4, [%rd7];\nJOIN:\n st.global.u32 [%rd3], %r4;\n ret;\n}}\n"
    );
    let out = run_out(&body, 32);
    for t in 0..32u32 {
        let other = t ^ 16;
        assert_eq!(
            out[t as usize],
            other + if other < 16 { 700 } else { 500 },
            "thread {t}"
        );
    }
}

#[test]
fn device_calls_with_divergent_returns_and_recursion() {
    // fact(n) recursive; the callee returns early for n <= 1 (divergent return).
    let body = format!(
        ".visible .func (.param .b32 ret) fact(.param .b32 n) {{\n .reg .pred %q<2>;\n .reg .b32 %s<6>;\n ld.param.u32 %s1, [n];\n setp.le.u32 %q1, %s1, 1;\n @%q1 bra BASE;\n sub.u32 %s2, %s1, 1;\n {{\n .param .b32 a;\n st.param.b32 [a], %s2;\n .param .b32 r;\n call.uni (r), fact, (a);\n ld.param.b32 %s3, [r];\n }}\n mul.lo.u32 %s4, %s3, %s1;\n st.param.b32 [ret], %s4;\n ret;\nBASE:\n st.param.b32 [ret], 1;\n ret;\n}}\n.visible .entry k(.param .u64 out) {{\n{PROLOGUE} rem.u32 %r2, %r1, 8;\n {{\n .param .b32 a;\n st.param.b32 [a], %r2;\n .param .b32 r;\n call.uni (r), fact, (a);\n ld.param.b32 %r3, [r];\n }}\n add.u32 %r3, %r3, %r1;\n st.global.u32 [%rd3], %r3;\n ret;\n}}\n"
    );
    let out = run_out(&body, 64);
    let fact = |n: u32| (1..=n).product::<u32>().max(1);
    for t in 0..64u32 {
        assert_eq!(out[t as usize], fact(t % 8) + t, "thread {t}");
    }
}

#[test]
fn float_rounding_modifiers() {
    // add.rz/rm/rp, mul.rp, cvt.rzi/rni, div.rn, sqrt.rn, and f16 arithmetic.
    let body = ".visible .entry k(.param .u64 out) {\n .reg .f32 %f<12>;\n .reg .b32 %r<12>;\n .reg .b16 %h<4>;\n .reg .b64 %rd<4>;\n ld.param.u64 %rd1, [out];\n mov.f32 %f1, 0f3F800000;\n mov.f32 %f2, 0f33000000;\n add.rz.f32 %f3, %f1, %f2;\n add.rp.f32 %f4, %f1, %f2;\n neg.f32 %f5, %f1;\n neg.f32 %f6, %f2;\n add.rm.f32 %f7, %f5, %f6;\n mov.f32 %f8, 0f40200000;\n cvt.rni.s32.f32 %r1, %f8;\n cvt.rzi.s32.f32 %r2, %f7;\n mov.b32 %r3, %f3;\n mov.b32 %r4, %f4;\n mov.b32 %r5, %f7;\n mov.b16 %h1, 0x3C00;\n add.rn.f16 %h2, %h1, %h1;\n cvt.u32.u16 %r6, %h2;\n st.global.v4.u32 [%rd1], {%r3, %r4, %r5, %r1};\n st.global.v2.u32 [%rd1+16], {%r2, %r6};\n ret;\n}\n";
    let p = lower_ptx(&format!("{HEADER}{body}"));
    let k = kernel(&p, "k");
    let mut m = GlobalMemory::new();
    let out = buf_u32(&mut m, &[0; 8]);
    let o = run(
        &p,
        k,
        &out.to_le_bytes(),
        &mut m,
        &LaunchConfig::new([1, 1, 1], [1, 1, 1]),
    )
    .unwrap();
    assert!(o.faults.is_empty(), "{:?}", o.faults);
    let v = read_u32(&m, out, 6);
    assert_eq!(v[0], 1.0f32.to_bits(), "rz");
    assert_eq!(v[1], 1.0f32.next_up().to_bits(), "rp");
    assert_eq!(v[2], (-1.0f32).next_down().to_bits(), "rm");
    assert_eq!(v[3], 2, "rni of 2.5 is 2");
    assert_eq!(v[4] as i32, -1, "rzi");
    assert_eq!(v[5], 0x4000, "f16 1+1");
}

/// Counts events, one counter per block.
#[derive(Default)]
struct Counts {
    shared_loads: u64,
    shared_stores: u64,
    global_stores: u64,
    barrier_arrivals: u64,
    lanes_loaded: u64,
}

impl Observer for Counts {
    fn on_memory(&mut self, e: &MemEvent<'_>) {
        match (e.kind, e.space) {
            (MemKind::Load, MemSpace::Shared) => {
                self.shared_loads += 1;
                self.lanes_loaded += e.lanes.count_ones() as u64;
            }
            (MemKind::Store, MemSpace::Shared) => self.shared_stores += 1,
            (MemKind::Store, MemSpace::Global) => self.global_stores += 1,
            _ => {}
        }
    }
    fn on_barrier_arrive(&mut self, _e: &BarrierEvent) {
        self.barrier_arrivals += 1;
    }
}

#[derive(Default)]
struct CountsFactory {
    total: Counts,
    blocks: Vec<[u32; 3]>,
}

impl ObserverFactory for CountsFactory {
    type Observer = Counts;
    fn create(&self, _block: [u32; 3]) -> Counts {
        Counts::default()
    }
    fn merge(&mut self, observers: &mut [([u32; 3], Counts)]) {
        for &mut (b, ref c) in observers {
            self.blocks.push(b);
            self.total.shared_loads += c.shared_loads;
            self.total.shared_stores += c.shared_stores;
            self.total.global_stores += c.global_stores;
            self.total.barrier_arrivals += c.barrier_arrivals;
            self.total.lanes_loaded += c.lanes_loaded;
        }
    }
}

#[test]
fn observers_see_every_warp_access_in_its_space_at_o0_and_o3() {
    // dynamicReverse: each thread stores d[t] to shared, syncs, loads the mirrored one.
    for opt in [0, 3] {
        let p = compile("dynamic_shared_reverse.cu", opt);
        let k = kernel(&p, "dynamicReverse");
        let mut m = GlobalMemory::new();
        let d = buf_f32(&mut m, &(0..1024).map(|i| i as f32).collect::<Vec<_>>());
        let mut c = LaunchConfig::new([4, 1, 1], [256, 1, 1]);
        c.dynamic_shared = 1024;
        let mut f = CountsFactory::default();
        let o = run_observed(&p, k, &params(&p, k, &[A::Ptr(d)]), &mut m, &c, &mut f).unwrap();
        assert!(o.faults.is_empty());
        assert_eq!(
            f.blocks,
            vec![[0, 0, 0], [1, 0, 0], [2, 0, 0], [3, 0, 0]],
            "merged in block order"
        );
        assert_eq!(o.stats.barriers, 4, "one barrier per block");
        // 4 blocks x 8 warps: one shared store and one shared load per warp, all lanes.
        assert_eq!(
            (f.total.shared_stores, f.total.shared_loads),
            (32, 32),
            "-O{opt}"
        );
        assert_eq!(f.total.lanes_loaded, 1024);
        assert_eq!(f.total.global_stores, 32);
        assert_eq!(f.total.barrier_arrivals, 32);
        let v = read_f32(&m, d, 1024);
        assert_eq!(v[0], 255.0);
        assert_eq!(v[256], 511.0);
    }
}

/// Panics when it sees the shared store of one block.
struct PanicsIn([u32; 3]);

impl Observer for PanicsIn {
    fn on_memory(&mut self, e: &MemEvent<'_>) {
        if e.block == self.0 && e.space == MemSpace::Shared {
            panic!("observer of block {:?}", e.block);
        }
    }
}

struct PanicsInFactory([u32; 3]);

impl ObserverFactory for PanicsInFactory {
    type Observer = PanicsIn;
    fn create(&self, _block: [u32; 3]) -> PanicsIn {
        PanicsIn(self.0)
    }
    fn merge(&mut self, _observers: &mut [([u32; 3], PanicsIn)]) {}
}

#[test]
fn host_threads_merge_many_chunks_in_block_order_and_pass_on_a_panic() {
    // Enough blocks for many observed chunks on two host threads, which run up to two
    // chunks ahead of the merge.
    let p = compile("dynamic_shared_reverse.cu", 3);
    let k = kernel(&p, "dynamicReverse");
    let blocks = 2000u32;
    let mut m = GlobalMemory::new();
    let d = buf_f32(&mut m, &vec![1.0; blocks as usize * 32]);
    let mut c = LaunchConfig::new([blocks, 1, 1], [32, 1, 1]);
    c.dynamic_shared = 128;
    c.threads = 2;
    let mut f = CountsFactory::default();
    let o = run_observed(&p, k, &params(&p, k, &[A::Ptr(d)]), &mut m, &c, &mut f).unwrap();
    assert!(o.faults.is_empty());
    let expected: Vec<[u32; 3]> = (0..blocks).map(|b| [b, 0, 0]).collect();
    assert_eq!(f.blocks, expected, "merged in block order");
    assert_eq!(f.total.shared_stores, u64::from(blocks));
    // An observer that panics in a late chunk: the launch panics on the calling thread
    // with the observer's message, instead of waiting for that chunk for ever.
    let mut f = PanicsInFactory([1500, 0, 0]);
    let panic = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        run_observed(&p, k, &params(&p, k, &[A::Ptr(d)]), &mut m, &c, &mut f)
    }))
    .expect_err("the observer's panic reaches the caller");
    let message = panic.downcast_ref::<String>().cloned().unwrap_or_default();
    assert!(message.contains("[1500, 0, 0]"), "{message}");
}

#[test]
fn independent_scheduling_interleaves_divergent_paths() {
    // Lanes 0..15 write s[0] = 1, 2, 3 in turn (each write after a branch); lanes 16..31
    // read s[0] once after their own branches. Without synchronisation the value read
    // depends on how the two paths interleave: fixed in lock-step, varying with the seed
    // under independent scheduling.
    let body = format!(
        ".visible .entry k(.param .u64 out) {{\n .shared .align 4 .b32 s[1];\n{PROLOGUE} mov.u64 %rd4, s;\n st.shared.u32 [%rd4], 0;\n setp.lt.u32 %p1, %r1, 16;\n @%p1 bra WRITER;\n mov.u32 %r3, 0;\nSPIN:\n add.u32 %r3, %r3, 1;\n setp.lt.u32 %p2, %r3, 2;\n @%p2 bra SPIN;\n ld.volatile.shared.u32 %r2, [%rd4];\n bra.uni JOIN;\nWRITER:\n mov.u32 %r4, 1;\nW:\n st.volatile.shared.u32 [%rd4], %r4;\n add.u32 %r4, %r4, 1;\n setp.le.u32 %p3, %r4, 3;\n @%p3 bra W;\n mov.u32 %r2, 9;\nJOIN:\n st.global.u32 [%rd3], %r2;\n ret;\n}}\n"
    );
    let p = lower_ptx(&format!("{HEADER}{body}"));
    let k = kernel(&p, "k");
    let read = |scheduling| {
        let mut m = GlobalMemory::new();
        let out = buf_u32(&mut m, &[0; 32]);
        let mut c = LaunchConfig::new([1, 1, 1], [32, 1, 1]);
        c.scheduling = scheduling;
        let o = run(&p, k, &out.to_le_bytes(), &mut m, &c).unwrap();
        assert!(o.faults.is_empty());
        let v = read_u32(&m, out, 32);
        assert!(v[..16].iter().all(|&x| x == 9));
        assert!(
            v[16..].iter().all(|&x| x == v[16]),
            "the readers stay converged"
        );
        v[16]
    };
    let lockstep = read(Scheduling::LockStep);
    assert_eq!(lockstep, read(Scheduling::LockStep));
    let seen: std::collections::BTreeSet<u32> = (0..40)
        .map(|seed| read(Scheduling::Independent { seed }))
        .collect();
    assert!(seen.len() >= 2, "independent scheduling gave only {seen:?}");
    assert!(seen.iter().all(|v| *v <= 3));
}

#[test]
fn mul_and_add_without_rounding_modifiers_contract_like_ptxas() {
    // out[0] = x*x - 1 written as mul.f32 + sub.f32 (ptxas fuses them), out[1] the same
    // with .rn (never fused), out[2] with the product used twice (not fused).
    let body = ".visible .entry k(.param .u64 out, .param .f32 x) {\n .reg .f32 %f<12>;\n .reg .b64 %rd<2>;\n ld.param.u64 %rd1, [out];\n ld.param.f32 %f1, [x];\n mul.f32 %f2, %f1, %f1;\n sub.f32 %f3, %f2, 0f3F800000;\n mul.rn.f32 %f4, %f1, %f1;\n sub.rn.f32 %f5, %f4, 0f3F800000;\n mul.f32 %f6, %f1, %f1;\n sub.f32 %f7, %f6, 0f3F800000;\n add.f32 %f8, %f7, %f6;\n st.global.f32 [%rd1], %f3;\n st.global.f32 [%rd1+4], %f5;\n st.global.f32 [%rd1+8], %f8;\n ret;\n}\n";
    let p = lower_ptx(&format!("{HEADER}{body}"));
    let k = kernel(&p, "k");
    let mut m = GlobalMemory::new();
    let out = buf_f32(&mut m, &[0.0; 3]);
    let x = 1.0f32 + 2f32.powi(-12);
    let o = run(
        &p,
        k,
        &params(&p, k, &[A::Ptr(out), A::F32(x)]),
        &mut m,
        &LaunchConfig::new([1, 1, 1], [1, 1, 1]),
    )
    .unwrap();
    assert!(o.faults.is_empty());
    let v = read_f32(&m, out, 3);
    let fused = x.mul_add(x, -1.0);
    let unfused = x * x - 1.0;
    assert_ne!(fused, unfused, "the test values must tell the two apart");
    assert_eq!(v[0], fused);
    assert_eq!(v[1], unfused);
    assert_eq!(v[2], (x * x - 1.0) + x * x);
}

#[test]
fn f32_sign_modifiers_and_f64_nans_follow_ptxas() {
    // What ptxas makes of two NaN-sensitive patterns (translate::fold), each as the H100
    // ran nvcc 13.0's PTX of a difftest kernel (`-O3 -arch=sm_90`):
    // out[0]: neg.f32 folded into selp (FSEL d, -a, b) flips a NaN's sign: seed 41 `k49`,
    //   -(0x7fffffff) -> 0xffffffff.
    // out[1]: neg.f32 stored (FADD d, -a, -RZ): the canonical NaN (int_ops `fneg`).
    // out[2], out[3]: neg.f32 and abs.f32 folded into cvt.f64.f32 (F2F.F64.F32 d, -a) keep
    //   the NaN: seed 15 `k5`, (double)-(f0); seed 100 `k6`, (double)fabsf(f2); f0 = f2 =
    //   0x7fc00000, rounded back to 0x7fc00000.
    // out[4]: add.rn.f64 %fd4, %fd3, %fd2 returns the NaN of the higher-numbered register,
    //   a's: seed 100 `k68`, (double)f3 + (double)f0, f3 = 0x7fffffff, f0 = 0x7fc00000,
    //   narrowed with .rz to 0x7fffffff.
    // out[5]: the same operands in register order: b's, the higher register's again
    //   (int_ops `gen_dadd_narrow_rn`).
    // out[6]: sub.rn.f64 %fd6, %fd3, %fd2: a's (seed 22 `k46`, 0x7fffffff).
    // out[7]: mul.rn.f64 %fd7, %fd2, %fd3: b's (int_ops `gen_dmul_narrow_ru` order).
    // out[8]: -|a| into selp, one FSEL d, -|a|, b: seed 17 `k11`, 0x7fc00000 -> 0xffc00000.
    let body = ".visible .entry k(.param .u64 out, .param .f32 x, .param .f32 y) {\n .reg .pred %p<2>;\n .reg .b32 %r<2>;\n .reg .f32 %f<20>;\n .reg .f64 %fd<10>;\n .reg .b64 %rd<2>;\n ld.param.u64 %rd1, [out];\n ld.param.f32 %f1, [x];\n ld.param.f32 %f2, [y];\n mov.u32 %r1, %tid.x;\n setp.lt.u32 %p1, %r1, 271;\n neg.f32 %f3, %f1;\n selp.f32 %f4, %f3, %f2, %p1;\n st.global.f32 [%rd1], %f4;\n neg.f32 %f5, %f1;\n st.global.f32 [%rd1+4], %f5;\n neg.f32 %f6, %f2;\n cvt.f64.f32 %fd1, %f6;\n cvt.rn.f32.f64 %f7, %fd1;\n st.global.f32 [%rd1+8], %f7;\n abs.f32 %f8, %f2;\n cvt.f64.f32 %fd8, %f8;\n cvt.rn.f32.f64 %f9, %fd8;\n st.global.f32 [%rd1+12], %f9;\n cvt.f64.f32 %fd2, %f2;\n cvt.f64.f32 %fd3, %f1;\n add.rn.f64 %fd4, %fd3, %fd2;\n cvt.rz.f32.f64 %f10, %fd4;\n st.global.f32 [%rd1+16], %f10;\n add.rn.f64 %fd5, %fd2, %fd3;\n cvt.rn.f32.f64 %f11, %fd5;\n st.global.f32 [%rd1+20], %f11;\n sub.rn.f64 %fd6, %fd3, %fd2;\n cvt.rz.f32.f64 %f12, %fd6;\n st.global.f32 [%rd1+24], %f12;\n mul.rn.f64 %fd7, %fd2, %fd3;\n cvt.rp.f32.f64 %f13, %fd7;\n st.global.f32 [%rd1+28], %f13;\n abs.f32 %f14, %f2;\n neg.f32 %f15, %f14;\n selp.f32 %f16, %f15, %f1, %p1;\n st.global.f32 [%rd1+32], %f16;\n ret;\n}\n";
    let p = lower_ptx(&format!("{HEADER}{body}"));
    let k = kernel(&p, "k");
    let mut m = GlobalMemory::new();
    let out = buf_u32(&mut m, &[0; 9]);
    let (x, y) = (f32::from_bits(0x7fff_ffff), f32::from_bits(0x7fc0_0000));
    let prm = params(&p, k, &[A::Ptr(out), A::F32(x), A::F32(y)]);
    let o = run(
        &p,
        k,
        &prm,
        &mut m,
        &LaunchConfig::new([1, 1, 1], [1, 1, 1]),
    )
    .unwrap();
    assert!(o.faults.is_empty());
    let v = read_u32(&m, out, 9);
    let want = [
        0xffff_ffff,
        0x7fff_ffff,
        0x7fc0_0000,
        0x7fc0_0000,
        0x7fff_ffff,
        0x7fff_ffff,
        0x7fff_ffff,
        0x7fff_ffff,
        0xffc0_0000,
    ];
    for (i, (got, want)) in v.iter().zip(want).enumerate() {
        assert_eq!(*got, want, "out[{i}]: {got:#010x}, want {want:#010x}");
    }
}

#[test]
fn sincos_writes_through_pointers() {
    let dir = std::env::temp_dir().join(format!("warpcheck-emu-sincos-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("sincos.cu");
    std::fs::write(
        &file,
        "__global__ void k(const float* x, float* s, float* sum) {\n    int i = threadIdx.x;\n    float a, b;\n    sincosf(x[i], &a, &b);\n    sincosf(x[i], &s[i], &sum[i]);\n    sum[i] = a * a + b * b + sum[i] * 0.0f;\n}\n",
    )
    .unwrap();
    for opt in [0, 3] {
        let p = compile(file.to_str().unwrap(), opt);
        let k = kernel(&p, "k");
        let mut m = GlobalMemory::new();
        let xs: Vec<f32> = (0..32).map(|i| i as f32 * 0.3).collect();
        let (x, s, sum) = (
            buf_f32(&mut m, &xs),
            buf_f32(&mut m, &[0.0; 32]),
            buf_f32(&mut m, &[0.0; 32]),
        );
        let prm = params(&p, k, &[A::Ptr(x), A::Ptr(s), A::Ptr(sum)]);
        let o = run(
            &p,
            k,
            &prm,
            &mut m,
            &LaunchConfig::new([1, 1, 1], [32, 1, 1]),
        )
        .unwrap();
        assert!(o.faults.is_empty(), "{:?}", o.faults);
        let (sv, total) = (read_f32(&m, s, 32), read_f32(&m, sum, 32));
        for i in 0..32 {
            assert_eq!(sv[i], xs[i].sin(), "-O{opt}");
            assert!((total[i] - 1.0).abs() < 1e-6, "-O{opt}: {}", total[i]);
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// A kernel run logs the allocations it wrote (stores and atomics) as written, and only
/// those: callers that cache hashes of memory or memset records keep the others'.
#[test]
fn a_kernel_run_logs_the_allocations_it_wrote_and_no_others() {
    let body = r#"
.visible .entry k(.param .u64 out, .param .u64 in, .param .u64 count)
{
    .reg .b64 %rd<4>;
    .reg .b32 %r<4>;
    ld.param.u64 %rd1, [out];
    ld.param.u64 %rd2, [in];
    ld.param.u64 %rd3, [count];
    ld.global.u32 %r1, [%rd2];
    st.global.u32 [%rd1], %r1;
    atom.global.add.u32 %r2, [%rd3], 1;
    ret;
}
"#;
    let p = lower_ptx(&format!("{HEADER}{body}"));
    let k = kernel(&p, "k");
    let mut m = GlobalMemory::new();
    let out = buf_u32(&mut m, &[0; 64]);
    let input = buf_u32(&mut m, &[5; 64]);
    let count = buf_u32(&mut m, &[0; 64]);
    let untouched = buf_u32(&mut m, &[0; 64]);
    m.note_filled(untouched, 256, 0);
    m.note_filled(out, 256, 0);
    let _ = m.take_written();
    let args = params(&p, k, &[A::Ptr(out), A::Ptr(input), A::Ptr(count)]);
    let o = run(
        &p,
        k,
        &args,
        &mut m,
        &LaunchConfig::new([1, 1, 1], [32, 1, 1]),
    )
    .unwrap();
    assert!(o.faults.is_empty());
    assert_eq!(read_u32(&m, out, 1), [5]);
    assert_eq!(read_u32(&m, count, 1), [32]);
    assert_eq!(m.take_written(), Some(vec![(out, 256), (count, 256)]));
    assert!(
        m.holds_fill(untouched, 256, 0),
        "a buffer the kernel did not write"
    );
    assert!(
        !m.holds_fill(out, 256, 0),
        "a buffer the kernel stored into"
    );
    let o = run(
        &p,
        k,
        &args,
        &mut m,
        &LaunchConfig::new([1, 1, 1], [32, 1, 1]),
    )
    .unwrap();
    assert!(o.faults.is_empty());
    assert_eq!(
        m.take_written(),
        Some(vec![(out, 256), (count, 256)]),
        "the flags start afresh for each launch"
    );
}
