//! Kernel faults are results with locations: out of bounds, misaligned, trap, assert,
//! deadlock, runaway loops.

use crate::common;
use common::*;
use warpcheck_emu::{FaultKind, GlobalMemory, WaitKind, run};
use warpcheck_ir::modifiers::MemSpace;

fn line_of(f: &warpcheck_emu::Fault) -> u32 {
    f.source.map_or(0, |s| s.line)
}

#[test]
fn out_of_bounds_read_is_reported_at_its_line() {
    for opt in [0, 3] {
        let p = compile("vector_add_bug_off_by_one.cu", opt);
        let k = kernel(&p, "vecAdd");
        let header = warpcheck_corpus::KernelFile::read(corpus("vector_add_bug_off_by_one.cu"))
            .unwrap_or_else(|e| panic!("{e}"));
        let n = header.launches[0].int_scalars()["n"] as usize;
        let mut m = GlobalMemory::new();
        let (a, b, c) = (
            buf_f32(&mut m, &vec![1.0; n]),
            buf_f32(&mut m, &vec![2.0; n]),
            buf_f32(&mut m, &vec![0.0; n]),
        );
        let prm = params(&p, k, &[A::Ptr(a), A::Ptr(b), A::Ptr(c), A::I32(n as i32)]);
        let grid = (n as u32).div_ceil(256) + 1;
        let out = run(&p, k, &prm, &mut m, &config([grid, 1, 1], [256, 1, 1])).unwrap();
        let f = out
            .faults
            .first()
            .unwrap_or_else(|| panic!("-O{opt}: no fault"));
        assert!(
            matches!(
                f.kind,
                FaultKind::OutOfBounds {
                    space: MemSpace::Global | MemSpace::Generic,
                    size: 4,
                    ..
                }
            ),
            "{:?}",
            f.kind
        );
        assert_eq!(line_of(f), 14, "-O{opt}");
        // The faulting thread is the first one past the end.
        let t = f.block[0] * 256 + f.thread[0];
        assert_eq!(t as usize, n, "-O{opt}: {f:?}");
    }
}

#[test]
fn misaligned_vector_load_is_reported() {
    for opt in [0, 3] {
        let p = compile("misaligned_bug_vector_load.cu", opt);
        let k = kernel(&p, "sumQuads");
        let mut m = GlobalMemory::new();
        let (data, out) = (
            buf_f32(&mut m, &rand_f32(513, 3)),
            buf_f32(&mut m, &[0.0; 128]),
        );
        let prm = params(&p, k, &[A::Ptr(data), A::Ptr(out), A::I32(128)]);
        let o = run(&p, k, &prm, &mut m, &config([1, 1, 1], [128, 1, 1])).unwrap();
        let f = &o.faults[0];
        assert!(
            matches!(f.kind, FaultKind::Misaligned { size: 8 | 16, .. }),
            "-O{opt}: {:?}",
            f.kind
        );
        assert_eq!(line_of(f), 15);
        assert_eq!((f.block, f.thread), ([0, 0, 0], [0, 0, 0]));
        assert_eq!(read_f32(&m, out, 128), vec![0.0; 128], "nothing was stored");
    }
}

#[test]
fn spin_loop_waiting_for_a_barrier_is_a_hang_with_both_locations() {
    let p = compile("spin_wait_bug_deadlock.cu", 3);
    let k = kernel(&p, "producerConsumer");
    let mut m = GlobalMemory::new();
    let (i, o) = (
        buf_f32(&mut m, &rand_f32(32, 1)),
        buf_f32(&mut m, &[0.0; 32]),
    );
    let prm = params(&p, k, &[A::Ptr(i), A::Ptr(o)]);
    let mut c = config([1, 1, 1], [64, 1, 1]);
    // Below the instructions the spin proof waits for (see the next test).
    c.budget = 50_000;
    let out = run(&p, k, &prm, &mut m, &c).unwrap();
    let f = &out.faults[0];
    let FaultKind::BudgetExhausted { budget, waiting } = &f.kind else {
        panic!("{:?}", f.kind)
    };
    assert_eq!(*budget, 50_000);
    assert_eq!(line_of(f), 25, "the spinning loop");
    assert_eq!(waiting.len(), 1);
    assert_eq!(waiting[0].source.map(|s| s.line), Some(30), "the barrier");
    assert!(
        matches!(
            waiting[0].what,
            WaitKind::Barrier {
                id: 0,
                arrived: 32,
                expected: 64
            }
        ),
        "{:?}",
        waiting[0].what
    );
}

/// With the default budget the same hang is proved, not run out: the lone spinning warp's
/// state comes back while warp 1 waits, in both scheduling models, after a few hundred
/// thousand instructions instead of the budget's hundred million.
#[test]
fn a_spin_that_nothing_can_end_is_proved_at_once() {
    let p = compile("spin_wait_bug_deadlock.cu", 3);
    let k = kernel(&p, "producerConsumer");
    for scheduling in [
        warpcheck_emu::Scheduling::LockStep,
        warpcheck_emu::Scheduling::Independent { seed: 9 },
    ] {
        let mut m = GlobalMemory::new();
        let (i, o) = (
            buf_f32(&mut m, &rand_f32(32, 1)),
            buf_f32(&mut m, &[0.0; 32]),
        );
        let prm = params(&p, k, &[A::Ptr(i), A::Ptr(o)]);
        let mut c = config([1, 1, 1], [64, 1, 1]);
        c.scheduling = scheduling;
        let out = run(&p, k, &prm, &mut m, &c).unwrap();
        let f = &out.faults[0];
        let FaultKind::Spin { period, waiting } = &f.kind else {
            panic!("{scheduling:?}: {:?}", f.kind)
        };
        assert!(*period > 0);
        assert_eq!(line_of(f), 25, "the spinning loop");
        assert_eq!(waiting[0].source.map(|s| s.line), Some(30), "the barrier");
        assert!(
            out.stats.warp_instructions < 1_000_000,
            "{scheduling:?}: {} warp-instructions",
            out.stats.warp_instructions
        );
    }
}

/// What the proof must not call a hang: a long loop whose state changes every iteration
/// (it ends), and a spin on global memory (another block or the host could end it).
#[test]
fn loops_that_may_end_are_not_called_endless() {
    let count = ptx_kernel(
        ".visible .entry count() {\n .reg .pred %p<2>;\n .reg .b32 %r<3>;\n .shared .b32 s;\n mov.u32 %r1, 0;\nL:\n add.u32 %r1, %r1, 1;\n st.shared.u32 [s], %r1;\n setp.lt.u32 %p1, %r1, 3000000;\n @%p1 bra L;\n ret;\n}\n",
    );
    let mut m = GlobalMemory::new();
    let out = run(
        &count,
        kernel(&count, "count"),
        &[],
        &mut m,
        &config([1, 1, 1], [32, 1, 1]),
    )
    .unwrap();
    assert!(out.faults.is_empty(), "{:?}", out.faults);

    let flag = ptx_kernel(
        ".visible .entry flag(.param .u64 f) {\n .reg .pred %p<2>;\n .reg .b32 %r<3>;\n .reg .b64 %rd<2>;\n ld.param.u64 %rd1, [f];\nL:\n ld.volatile.global.u32 %r1, [%rd1];\n setp.eq.u32 %p1, %r1, 0;\n @%p1 bra L;\n ret;\n}\n",
    );
    let k = kernel(&flag, "flag");
    let f = buf_f32(&mut m, &[0.0]);
    let prm = params(&flag, k, &[A::Ptr(f)]);
    let mut c = config([1, 1, 1], [32, 1, 1]);
    c.budget = 2_000_000;
    let out = run(&flag, k, &prm, &mut m, &c).unwrap();
    assert!(
        matches!(out.faults[0].kind, FaultKind::BudgetExhausted { .. }),
        "{:?}",
        out.faults[0].kind
    );
}

const HEADER: &str = ".version 7.0\n.target sm_80\n.address_size 64\n";

fn ptx_kernel(body: &str) -> warpcheck_ir::Program {
    lower_ptx(&format!("{HEADER}{body}"))
}

#[test]
fn trap_and_budget() {
    let p = ptx_kernel(
        ".visible .entry k(.param .u32 n) {\n .reg .pred %p<2>;\n .reg .b32 %r<3>;\n mov.u32 %r1, %tid.x;\n setp.eq.u32 %p1, %r1, 5;\n @%p1 trap;\n ret;\n}\n",
    );
    let k = kernel(&p, "k");
    let mut m = GlobalMemory::new();
    let out = run(&p, k, &[0; 4], &mut m, &config([2, 1, 1], [32, 1, 1])).unwrap();
    assert_eq!(out.fault_count, 2, "one fault per block");
    assert_eq!(out.faults[0].kind, FaultKind::Trap);
    assert_eq!(
        (out.faults[0].thread, out.faults[1].block),
        ([5, 0, 0], [1, 0, 0])
    );
    assert_eq!(out.faults[0].inst.as_u32(), 2);

    let p = ptx_kernel(".visible .entry spin() {\nL:\n bra.uni L;\n}\n");
    let k = kernel(&p, "spin");
    let mut c = config([1, 1, 1], [32, 1, 1]);
    c.budget = 1000;
    let out = run(&p, k, &[], &mut m, &c).unwrap();
    assert!(
        matches!(out.faults[0].kind, FaultKind::BudgetExhausted { budget: 1000, ref waiting } if waiting.is_empty())
    );
    // With the default budget, the endless loop is proved endless long before it.
    let out = run(&p, k, &[], &mut m, &config([1, 1, 1], [32, 1, 1])).unwrap();
    assert!(
        matches!(out.faults[0].kind, FaultKind::Spin { ref waiting, .. } if waiting.is_empty()),
        "{:?}",
        out.faults[0].kind
    );
    assert!(out.stats.warp_instructions < 1_000_000);
}

#[test]
fn barriers_that_are_never_completed_deadlock() {
    // Warp 0 waits at barrier 0, warp 1 at barrier 1: nobody can proceed.
    let p = ptx_kernel(
        ".visible .entry k() {\n .reg .pred %p<2>;\n .reg .b32 %r<3>;\n mov.u32 %r1, %tid.x;\n setp.lt.u32 %p1, %r1, 32;\n @%p1 bra A;\n bar.sync 1;\n ret;\nA:\n bar.sync 0;\n ret;\n}\n",
    );
    let k = kernel(&p, "k");
    let mut m = GlobalMemory::new();
    let out = run(&p, k, &[], &mut m, &config([1, 1, 1], [64, 1, 1])).unwrap();
    let FaultKind::Deadlock { waiting, exited } = &out.faults[0].kind else {
        panic!("{:?}", out.faults)
    };
    assert_eq!(*exited, 0);
    assert_eq!(waiting.len(), 2);
    let ids: Vec<_> = waiting
        .iter()
        .map(|w| match w.what {
            WaitKind::Barrier { id, .. } => id,
            _ => 99,
        })
        .collect();
    assert!(ids.contains(&0) && ids.contains(&1));
    assert!(out.faults[0].kind.to_string().contains("deadlock"));
}

#[test]
fn exited_threads_release_barriers() {
    // Threads 32..63 return before the barrier; the others must not wait for them.
    let p = ptx_kernel(
        ".visible .entry k(.param .u64 out) {\n .reg .pred %p<2>;\n .reg .b32 %r<3>;\n .reg .b64 %rd<4>;\n ld.param.u64 %rd1, [out];\n mov.u32 %r1, %tid.x;\n setp.ge.u32 %p1, %r1, 32;\n @%p1 bra DONE;\n bar.sync 0;\n mul.wide.u32 %rd2, %r1, 4;\n add.s64 %rd3, %rd1, %rd2;\n st.global.u32 [%rd3], 7;\nDONE:\n ret;\n}\n",
    );
    let k = kernel(&p, "k");
    let mut m = GlobalMemory::new();
    let out_buf = buf_u32(&mut m, &[0; 64]);
    let o = run(
        &p,
        k,
        &out_buf.to_le_bytes(),
        &mut m,
        &config([1, 1, 1], [64, 1, 1]),
    )
    .unwrap();
    assert!(o.faults.is_empty(), "{:?}", o.faults);
    let v = read_u32(&m, out_buf, 64);
    assert_eq!(&v[..32], &[7; 32]);
    assert_eq!(&v[32..], &[0; 32]);
}

#[test]
fn stores_to_constant_memory_and_null_pointers_fault() {
    let p = ptx_kernel(
        ".visible .entry k(.param .u64 ptr) {\n .reg .b64 %rd<2>;\n .reg .b32 %r<2>;\n ld.param.u64 %rd1, [ptr];\n ld.u32 %r1, [%rd1];\n ret;\n}\n",
    );
    let k = kernel(&p, "k");
    let mut m = GlobalMemory::new();
    let o = run(
        &p,
        k,
        &0u64.to_le_bytes(),
        &mut m,
        &config([1, 1, 1], [32, 1, 1]),
    )
    .unwrap();
    assert_eq!(
        o.faults[0].kind,
        FaultKind::BadGenericAddress { address: 0 }
    );
}

#[test]
fn invalid_launches_are_errors() {
    let p = ptx_kernel(".visible .entry k() {\n ret;\n}\n.visible .func f() {\n ret;\n}\n");
    let k = kernel(&p, "k");
    let mut m = GlobalMemory::new();
    let mut e = |c| run(&p, k, &[], &mut m, &c).unwrap_err().to_string();
    assert!(e(config([1, 1, 1], [32, 32, 2])).contains("2048 threads"));
    assert!(e(config([0, 1, 1], [32, 1, 1])).contains("at least 1"));
    let mut c = config([1, 1, 1], [32, 1, 1]);
    c.dynamic_shared = 300 * 1024;
    assert!(e(c).contains("shared memory"));
    let f = p.function_by_name("f").unwrap();
    let mut m = GlobalMemory::new();
    assert!(
        run(&p, f, &[], &mut m, &config([1, 1, 1], [1, 1, 1]))
            .unwrap_err()
            .to_string()
            .contains("not a kernel")
    );
}

#[test]
fn unsupported_instructions_name_themselves() {
    let p = ptx_kernel(
        ".visible .entry k(.param .u64 t) {\n .reg .b64 %rd<2>;\n .reg .f32 %f<6>;\n ld.param.u64 %rd1, [t];\n tex.level.2d.v4.f32.f32 {%f1, %f2, %f3, %f4}, [%rd1, {%f5, %f5}], %f5;\n ret;\n}\n",
    );
    let k = kernel(&p, "k");
    let mut m = GlobalMemory::new();
    let e = run(&p, k, &[0; 8], &mut m, &config([1, 1, 1], [1, 1, 1]))
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("tex.level") && e.contains("mipmapped") && e.contains("inst1"),
        "{e}"
    );
}

#[test]
fn failed_assert_is_a_fault_with_its_message() {
    let dir = std::env::temp_dir().join(format!("warpcheck-emu-assert-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("assert.cu");
    std::fs::write(
        &file,
        "#include <assert.h>\n__global__ void check(const int* v) {\n    int i = threadIdx.x;\n    assert(v[i] >= 0);\n}\n",
    )
    .unwrap();
    let p = compile(file.to_str().unwrap(), 3);
    let k = kernel(&p, "check");
    let mut m = GlobalMemory::new();
    let mut vals = vec![1u32; 32];
    vals[9] = (-4i32) as u32;
    let v = buf_u32(&mut m, &vals);
    let out = run(
        &p,
        k,
        &params(&p, k, &[A::Ptr(v)]),
        &mut m,
        &config([1, 1, 1], [32, 1, 1]),
    )
    .unwrap();
    let _ = std::fs::remove_dir_all(&dir);
    let f = &out.faults[0];
    let FaultKind::AssertionFailed { message, line, .. } = &f.kind else {
        panic!("{:?}", f.kind)
    };
    assert!(message.contains("v[i] >= 0"), "{message}");
    assert_eq!(*line, 4);
    assert_eq!(f.thread, [9, 0, 0]);
}

#[test]
fn unknown_externals_are_unsupported_by_name() {
    let call = |name: &str| {
        ptx_kernel(&format!(
            ".extern .func (.param .b64 r) {name}(.param .b64 s);\n.visible .entry k() {{\n .reg .b64 %rd<2>;\n {{\n .param .b64 a;\n st.param.b64 [a], 16;\n .param .b64 r;\n call.uni (r), {name}, (a);\n ld.param.b64 %rd1, [r];\n }}\n ret;\n}}\n"
        ))
    };
    for (name, expected) in [("__nv_erf", "__nv_erf"), ("_Znwm", "_Znwm")] {
        let p = call(name);
        let k = kernel(&p, "k");
        let mut m = GlobalMemory::new();
        let e = run(&p, k, &[], &mut m, &config([1, 1, 1], [1, 1, 1]))
            .unwrap_err()
            .to_string();
        assert!(e.contains("unsupported") && e.contains(expected), "{e}");
    }
}

#[test]
fn oversized_local_constant_and_shared_memory_are_reported() {
    let mut m = GlobalMemory::new();
    let one = config([1, 1, 1], [1, 1, 1]);
    let p = ptx_kernel(
        ".visible .entry k() {\n .local .align 4 .b8 big[1073741824];\n .reg .b64 %rd<2>;\n mov.u64 %rd1, big;\n ret;\n}\n",
    );
    let e = run(&p, kernel(&p, "k"), &[], &mut m, &one)
        .unwrap_err()
        .to_string();
    assert!(e.contains("local memory per thread"), "{e}");
    let p = ptx_kernel(".const .align 4 .b8 table[100000];\n.visible .entry k() {\n ret;\n}\n");
    let e = run(&p, kernel(&p, "k"), &[], &mut m, &one)
        .unwrap_err()
        .to_string();
    assert!(e.contains("constant memory"), "{e}");
    let p = ptx_kernel(".visible .entry k() {\n .shared .align 4 .b8 s[300000];\n ret;\n}\n");
    let e = run(&p, kernel(&p, "k"), &[], &mut m, &one)
        .unwrap_err()
        .to_string();
    assert!(e.contains("shared memory"), "{e}");
}

#[test]
fn faults_render_with_source_lines() {
    let p = compile("misaligned_bug_vector_load.cu", 3);
    let k = kernel(&p, "sumQuads");
    let mut m = GlobalMemory::new();
    let (data, out) = (
        buf_f32(&mut m, &rand_f32(513, 3)),
        buf_f32(&mut m, &[0.0; 128]),
    );
    let o = run(
        &p,
        k,
        &params(&p, k, &[A::Ptr(data), A::Ptr(out), A::I32(128)]),
        &mut m,
        &config([1, 1, 1], [128, 1, 1]),
    )
    .unwrap();
    let text = o.faults[0].render(&p);
    assert!(text.contains("misaligned_bug_vector_load.cu:15:"), "{text}");
    assert!(
        text.contains("misaligned 16-byte access") && text.contains("thread (0,0,0)"),
        "{text}"
    );

    let p = compile("spin_wait_bug_deadlock.cu", 3);
    let k = kernel(&p, "producerConsumer");
    let (i, o2) = (
        buf_f32(&mut m, &rand_f32(32, 1)),
        buf_f32(&mut m, &[0.0; 32]),
    );
    let mut c = config([1, 1, 1], [64, 1, 1]);
    c.budget = 10_000;
    let o = run(&p, k, &params(&p, k, &[A::Ptr(i), A::Ptr(o2)]), &mut m, &c).unwrap();
    let text = o.faults[0].render(&p);
    assert!(text.contains("spin_wait_bug_deadlock.cu:25:"), "{text}");
    assert!(
        text.contains("\n  ") && text.contains("spin_wait_bug_deadlock.cu:30:"),
        "{text}"
    );
}

/// A kernel with a local array of `bytes` that writes the thread index to its last word,
/// reads it back and stores it to `out[tid]`.
fn local_array_kernel(bytes: u64) -> warpcheck_ir::Program {
    let last = bytes - 4;
    ptx_kernel(&format!(
        ".visible .entry k(.param .u64 out) {{\n .local .align 4 .b8 buf[{bytes}];\n\
         .reg .b32 %r<4>;\n .reg .b64 %rd<5>;\n\
         mov.u32 %r1, %tid.x;\n st.local.u32 [buf+{last}], %r1;\n ld.local.u32 %r2, [buf+{last}];\n\
         ld.param.u64 %rd1, [out];\n cvta.to.global.u64 %rd2, %rd1;\n\
         mul.wide.u32 %rd3, %r1, 4;\n add.s64 %rd4, %rd2, %rd3;\n st.global.u32 [%rd4], %r2;\n ret;\n}}\n"
    ))
}

#[test]
fn a_local_array_is_counted_once_against_the_local_memory_limit() {
    // Just under the 512 KiB a thread may have: it runs.
    let p = local_array_kernel(500 << 10);
    let k = kernel(&p, "k");
    let mut m = GlobalMemory::new();
    let out = buf_u32(&mut m, &[0; 32]);
    let o = run(
        &p,
        k,
        &params(&p, k, &[A::Ptr(out)]),
        &mut m,
        &config([1, 1, 1], [32, 1, 1]),
    )
    .unwrap_or_else(|e| panic!("a 500 KiB local array is within the limit: {e}"));
    assert!(o.faults.is_empty(), "{:?}", o.faults);
    assert_eq!(read_u32(&m, out, 32), (0..32).collect::<Vec<u32>>());
    // Just over it: refused, naming the size and the limit.
    let p = local_array_kernel(513 << 10);
    let k = kernel(&p, "k");
    let e = run(
        &p,
        k,
        &params(&p, k, &[A::Ptr(out)]),
        &mut m,
        &config([1, 1, 1], [32, 1, 1]),
    )
    .unwrap_err()
    .to_string();
    assert!(
        e.contains(&format!("{} bytes of local memory per thread", 513 << 10))
            && e.contains("the limit is 524288"),
        "{e}"
    );
}
