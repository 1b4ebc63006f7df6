//! `cp.async` on hand-written PTX: the copy, zero-fill, groups and waits, and the order in
//! which observers see its memory events (the shared write at the wait).

use crate::common;
use common::*;
use warpcheck_emu::observer::{MemEvent, MemKind, Observer, ObserverFactory};
use warpcheck_emu::{GlobalMemory, LaunchConfig, run, run_observed};
use warpcheck_ir::modifiers::MemSpace;

const HEADER: &str = ".version 8.0\n.target sm_80\n.address_size 64\n";

/// A kernel `k(in, out)`: each of 32 threads copies 16 bytes `in[4t..4t+4]` into
/// `s[4t..4t+4]` with `cp.async` (source size `SRC` bytes), commits, waits with `WAIT`,
/// then copies `s` to `out` with ordinary loads and stores.
fn copy_kernel(src_size: &str, wait: &str) -> String {
    format!(
        "{HEADER}.visible .entry k(.param .u64 pin, .param .u64 pout) {{\n\
         .shared .align 16 .b8 s[528];\n .reg .b32 %r<12>;\n .reg .b64 %rd<12>;\n\
         ld.param.u64 %rd1, [pin];\n ld.param.u64 %rd2, [pout];\n\
         mov.u32 %r1, %tid.x;\n shl.b32 %r2, %r1, 4;\n mov.u32 %r3, s;\n add.u32 %r4, %r3, %r2;\n\
         mov.u32 %r9, -1;\n st.shared.u32 [%r4+12], %r9;\n\
         cvt.u64.u32 %rd3, %r2;\n add.s64 %rd4, %rd1, %rd3;\n\
         cp.async.cg.shared.global [%r4], [%rd4], 16{src_size};\n\
         cp.async.commit_group;\n {wait};\n\
         ld.shared.v4.u32 {{%r5, %r6, %r7, %r8}}, [%r4];\n\
         add.s64 %rd5, %rd2, %rd3;\n st.global.v4.u32 [%rd5], {{%r5, %r6, %r7, %r8}};\n ret;\n}}\n"
    )
}

fn run_copy(ptx: &str) -> Vec<u32> {
    let p = lower_ptx(ptx);
    let k = kernel(&p, "k");
    let input: Vec<u32> = (0..128).map(|i| 0x0101_0101 * (i % 200 + 1)).collect();
    let mut m = GlobalMemory::new();
    let a = buf_u32(&mut m, &input);
    let b = buf_u32(&mut m, &[0; 128]);
    let c = LaunchConfig::new([1, 1, 1], [32, 1, 1]);
    let o = run(&p, k, &params(&p, k, &[A::Ptr(a), A::Ptr(b)]), &mut m, &c).unwrap();
    assert!(o.faults.is_empty(), "{:?}", o.faults);
    read_u32(&m, b, 128)
}

#[test]
fn cp_async_copies_sixteen_bytes_per_thread() {
    for wait in ["cp.async.wait_group 0", "cp.async.wait_all"] {
        let out = run_copy(&copy_kernel("", wait));
        let want: Vec<u32> = (0..128).map(|i| 0x0101_0101 * (i % 200 + 1)).collect();
        assert_eq!(out, want, "{wait}");
    }
}

#[test]
fn a_short_source_size_zero_fills_the_rest() {
    // 5 of 16 bytes: the first word, one byte of the second, then zeros (the -1 stored
    // before the copy is overwritten too).
    let out = run_copy(&copy_kernel(", 5", "cp.async.wait_all"));
    for t in 0..32usize {
        let w = 0x0101_0101 * (4 * t as u32 % 200 + 1);
        let second = 0x0101_0101 * ((4 * t as u32 + 1) % 200 + 1);
        assert_eq!(
            &out[4 * t..4 * t + 4],
            &[w, second & 0xff, 0, 0],
            "thread {t}"
        );
    }
}

#[test]
fn a_misaligned_destination_faults() {
    let ptx = copy_kernel("", "cp.async.wait_all").replace(
        "add.u32 %r4, %r3, %r2;",
        "add.u32 %r4, %r3, %r2;\n add.u32 %r4, %r4, 4;",
    );
    let p = lower_ptx(&ptx);
    let k = kernel(&p, "k");
    let mut m = GlobalMemory::new();
    let a = buf_u32(&mut m, &[0; 128]);
    let b = buf_u32(&mut m, &[0; 128]);
    let c = LaunchConfig::new([1, 1, 1], [32, 1, 1]);
    let o = run(&p, k, &params(&p, k, &[A::Ptr(a), A::Ptr(b)]), &mut m, &c).unwrap();
    assert!(
        o.faults
            .iter()
            .any(|f| f.kind.to_string().contains("align")),
        "{:?}",
        o.faults
            .iter()
            .map(|f| f.kind.to_string())
            .collect::<Vec<_>>()
    );
}

/// Records (kind, space) of every memory event of warp 0, in order.
#[derive(Default)]
struct Log(Vec<(MemKind, MemSpace, u32)>);

impl Observer for Log {
    fn on_memory(&mut self, e: &MemEvent<'_>) {
        if e.warp == 0 {
            self.0.push((e.kind, e.space, e.inst.as_u32()));
        }
    }
}

struct LogFactory(Vec<(MemKind, MemSpace, u32)>);

impl ObserverFactory for LogFactory {
    type Observer = Log;
    fn create(&self, _block: [u32; 3]) -> Log {
        Log::default()
    }
    fn merge(&mut self, observers: &mut [([u32; 3], Log)]) {
        for (_, l) in observers {
            self.0.append(&mut l.0);
        }
    }
}

#[test]
fn observers_see_the_shared_write_at_the_wait() {
    // Two groups: the first wait (wait_group 1) completes only the first copy; the read
    // between the waits comes before the second copy's write.
    let ptx = format!(
        "{HEADER}.visible .entry k(.param .u64 pin) {{\n .shared .align 16 .b8 s[64];\n\
         .reg .b32 %r<8>;\n .reg .b64 %rd<4>;\n ld.param.u64 %rd1, [pin];\n mov.u32 %r1, s;\n\
         cp.async.ca.shared.global [%r1], [%rd1], 4;\n cp.async.commit_group;\n\
         cp.async.ca.shared.global [%r1+16], [%rd1+4], 4;\n cp.async.commit_group;\n\
         cp.async.wait_group 1;\n ld.shared.u32 %r2, [%r1+16];\n cp.async.wait_group 0;\n ret;\n}}\n"
    );
    let p = lower_ptx(&ptx);
    let k = kernel(&p, "k");
    let mut m = GlobalMemory::new();
    let a = buf_u32(&mut m, &[7, 8]);
    let c = LaunchConfig::new([1, 1, 1], [1, 1, 1]);
    let mut f = LogFactory(Vec::new());
    let o = run_observed(&p, k, &params(&p, k, &[A::Ptr(a)]), &mut m, &c, &mut f).unwrap();
    assert!(o.faults.is_empty());
    let kinds: Vec<(MemKind, MemSpace)> = f.0.iter().map(|&(k, s, _)| (k, s)).collect();
    use MemKind::{Load, Store};
    use MemSpace::{Global, Shared};
    assert_eq!(
        kinds,
        [
            (Load, Global),
            (Load, Global),
            (Store, Shared),
            (Load, Shared),
            (Store, Shared)
        ]
    );
    // The stores are attributed to the `cp.async` instructions, in issue order.
    assert_eq!(f.0[2].2, f.0[0].2, "first copy's write");
    assert_eq!(f.0[4].2, f.0[1].2, "second copy's write");
}
