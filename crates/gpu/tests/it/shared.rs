//! Shared-memory checking on hand-written PTX, run in the emulator: per-warp copies
//! compared at barriers find write-write and read-write races between warps of a block
//! with the right sites; clean barrier kernels give no race and keep their results.

use warpcheck_gpu::passes::{self, CheckOptions};
use warpcheck_gpu::{
    Arg, EmuExecutor, GpuError, Instrumented, Launch, LaunchBuffer, RaceKind, SharedScope, Verdict,
};

/// A kernel over `out` (u32) with `s`, 1024 bytes of shared memory; `%r2` is the block,
/// `%r3` the block size, `%r4` the thread, `%r5` the global thread, `%r6` the address of
/// `s`, `%r8` that of `s[tid]`.
fn module(body: &str) -> String {
    format!(
        ".version 7.0\n.target sm_80\n.address_size 64\n\
         .visible .entry k(.param .u64 k_param_0)\n{{\n\
         .reg .pred %p<4>;\n.reg .b32 %r<20>;\n.reg .b64 %rd<10>;\n\
         .shared .align 4 .b8 s[1024];\n\
         ld.param.u64 %rd1, [k_param_0];\ncvta.to.global.u64 %rd2, %rd1;\n\
         mov.u32 %r2, %ctaid.x;\nmov.u32 %r3, %ntid.x;\nmov.u32 %r4, %tid.x;\n\
         mad.lo.s32 %r5, %r2, %r3, %r4;\nmov.u32 %r6, s;\nshl.b32 %r7, %r4, 2;\n\
         add.s32 %r8, %r6, %r7;\n{body}\nEND:\nret;\n}}\n"
    )
}

/// `s[tid] = 3 * tid`, then `out[gid] = s[ntid - 1 - tid]`, with `sync` between.
fn reverse(sync: &str) -> String {
    module(&format!(
        "mul.lo.u32 %r9, %r4, 3;\nst.shared.u32 [%r8], %r9;\n{sync}\n\
         sub.u32 %r10, %r3, 1;\nsub.u32 %r10, %r10, %r4;\nshl.b32 %r10, %r10, 2;\n\
         add.s32 %r10, %r6, %r10;\nld.shared.u32 %r11, [%r10];\n\
         mul.wide.u32 %rd3, %r5, 4;\nadd.s64 %rd4, %rd2, %rd3;\nst.global.u32 [%rd4], %r11;"
    ))
}

/// The tree reduction of `tid + 1` into `out[block]`, with `sync` at the end of each
/// level.
fn reduction(sync: &str) -> String {
    module(&format!(
        "add.u32 %r9, %r4, 1;\nst.shared.u32 [%r8], %r9;\nbar.sync 0;\nshr.u32 %r12, %r3, 1;\n\
         LOOP:\nsetp.ge.u32 %p1, %r4, %r12;\n@%p1 bra SKIP;\nshl.b32 %r13, %r12, 2;\n\
         add.s32 %r14, %r8, %r13;\nld.shared.u32 %r15, [%r8];\nld.shared.u32 %r16, [%r14];\n\
         add.u32 %r15, %r15, %r16;\nst.shared.u32 [%r8], %r15;\nSKIP:\n{sync}\n\
         shr.u32 %r12, %r12, 1;\nsetp.ne.u32 %p2, %r12, 0;\n@%p2 bra LOOP;\n\
         setp.ne.u32 %p3, %r4, 0;\n@%p3 bra END;\nld.shared.u32 %r17, [s];\n\
         mul.wide.u32 %rd3, %r2, 4;\nadd.s64 %rd4, %rd2, %rd3;\nst.global.u32 [%rd4], %r17;"
    ))
}

fn instrument(ptx: &str) -> Result<Instrumented, GpuError> {
    let parsed = warpcheck_ptx::parse(ptx);
    assert!(parsed.errors.is_empty(), "{:?}", parsed.errors);
    let program = warpcheck_ir::lower(&parsed.module).expect("lowers");
    let k = program.function_by_name("k").unwrap();
    warpcheck_gpu::instrument(&parsed.module, &program, k)
}

fn launch(grid: u32, block: u32, elems: usize) -> Launch {
    Launch {
        grid: [grid, 1, 1],
        block: [block, 1, 1],
        shared: 0,
        args: vec![Arg::Buffer(0)],
        buffers: vec![LaunchBuffer {
            name: "out".into(),
            bytes: vec![0; elems * 4],
        }],
    }
}

fn words(b: &[u8]) -> Vec<u32> {
    b.chunks(4)
        .map(|c| u32::from_le_bytes(c.try_into().unwrap()))
        .collect()
}

/// Checks `ptx` on `grid` blocks of `block` threads over `elems` words of `out`.
fn check(ptx: &str, grid: u32, block: u32, elems: usize) -> (Instrumented, Verdict, Vec<u32>) {
    let inst = instrument(ptx).unwrap();
    assert!(
        matches!(inst.plan.shared, SharedScope::Checked(_)),
        "{:?}",
        inst.plan.shared
    );
    let mut l = launch(grid, block, elems);
    let v = passes::check(
        &mut EmuExecutor::new(),
        &inst,
        &mut l,
        CheckOptions::default(),
    )
    .unwrap();
    (inst, v, words(&l.buffers[0].bytes))
}

/// The output of the uninstrumented kernel.
fn plain_run(ptx: &str, grid: u32, block: u32, elems: usize) -> Vec<u32> {
    use warpcheck_gpu::{Executor, KernelRun};
    let mut buffers = vec![vec![0u8; elems * 4]];
    EmuExecutor::new()
        .run(KernelRun {
            ptx,
            kernel: "k",
            grid: [grid, 1, 1],
            block: [block, 1, 1],
            shared: 0,
            args: &[Arg::Buffer(0)],
            buffers: &mut buffers,
        })
        .unwrap();
    words(&buffers[0])
}

#[test]
fn a_barrier_between_the_warps_accesses_is_clean_and_keeps_the_results() {
    let ptx = reverse("bar.sync 0;");
    let (_, v, out) = check(&ptx, 2, 128, 256);
    assert!(v.shared.races.is_empty(), "{:?}", v.shared.races);
    assert_eq!(v.shared.events, 0);
    let want: Vec<u32> = (0..256u32).map(|g| 3 * (127 - g % 128)).collect();
    assert_eq!(out, want);
    assert_eq!(plain_run(&ptx, 2, 128, 256), want);
}

#[test]
fn reading_another_warps_write_without_a_barrier_is_a_read_write_race() {
    let (inst, v, _) = check(&reverse(""), 2, 128, 256);
    let SharedScope::Checked(plan) = &inst.plan.shared else {
        unreachable!()
    };
    let rw: Vec<_> = v
        .shared
        .races
        .iter()
        .filter(|r| r.kind == RaceKind::ReadWrite)
        .collect();
    assert!(!rw.is_empty(), "{:?}", v.shared.races);
    let r = rw[0];
    assert_eq!(r.var, "s");
    assert_ne!(r.first.warp, r.second.warp);
    assert!(plan.sites[r.first.site.unwrap()].store);
    assert!(!plan.sites[r.second.site.unwrap()].store);
    assert_eq!(r.region, 0, "the race is in the kernel's last region");
    assert!(v.shared.races.iter().all(|r| r.kind == RaceKind::ReadWrite));
}

#[test]
fn warps_writing_one_word_with_different_values_are_a_write_write_race() {
    // s[tid % 32] = tid; barrier; out[gid] = s[tid % 32].
    let ptx = module(
        "and.b32 %r9, %r4, 31;\nshl.b32 %r9, %r9, 2;\nadd.s32 %r9, %r6, %r9;\n\
         st.shared.u32 [%r9], %r4;\nbar.sync 0;\nld.shared.u32 %r11, [%r9];\n\
         mul.wide.u32 %rd3, %r5, 4;\nadd.s64 %rd4, %rd2, %rd3;\nst.global.u32 [%rd4], %r11;",
    );
    let (_, v, out) = check(&ptx, 1, 96, 96);
    let ww: Vec<_> = v
        .shared
        .races
        .iter()
        .filter(|r| r.kind == RaceKind::WriteWrite)
        .collect();
    assert_eq!(
        ww.len(),
        1,
        "one record per pair of sites: {:?}",
        v.shared.races
    );
    assert_eq!(ww[0].region, 1);
    // Warp 0 writes 0 to `s[0]`, the value already there: not a write by value.
    assert!(ww[0].first.warp < ww[0].second.warp && ww[0].second.warp < 3);
    // Merged in warp order: the last warp's values win.
    assert_eq!(out, (0..96).map(|g| 64 + g % 32).collect::<Vec<u32>>());
}

#[test]
fn equal_values_from_two_warps_are_benign() {
    // s[tid % 32] = tid % 32.
    let ptx = module(
        "and.b32 %r9, %r4, 31;\nshl.b32 %r10, %r9, 2;\nadd.s32 %r10, %r6, %r10;\n\
         st.shared.u32 [%r10], %r9;\nbar.sync 0;",
    );
    let (_, v, _) = check(&ptx, 1, 64, 64);
    assert!(!v.shared.races.is_empty());
    assert!(
        v.shared
            .races
            .iter()
            .all(|r| r.kind == RaceKind::BenignWriteWrite),
        "{:?}",
        v.shared.races
    );
}

#[test]
fn a_correct_tree_reduction_is_clean_and_sums() {
    let ptx = reduction("bar.sync 0;");
    let (_, v, out) = check(&ptx, 3, 256, 3);
    assert!(v.shared.races.is_empty(), "{:?}", v.shared.races);
    assert_eq!(out, vec![32896; 3]);
    assert_eq!(plain_run(&ptx, 3, 256, 3), out);
}

#[test]
fn a_tree_reduction_without_the_barrier_in_its_loop_races() {
    let (inst, v, _) = check(&reduction(""), 2, 256, 2);
    let SharedScope::Checked(plan) = &inst.plan.shared else {
        unreachable!()
    };
    let r = v
        .shared
        .races
        .iter()
        .find(|r| r.kind == RaceKind::ReadWrite)
        .expect("a read-write race");
    assert!(plan.sites[r.first.site.unwrap()].store);
    assert!(!plan.sites[r.second.site.unwrap()].store);
    assert_eq!(r.region, 0);
}
