//! The comparisons run on the device: what GPU mode downloads besides the launch's
//! results is bounded by constants (per-block counts, a bounded witness list, per-copy
//! first offsets), not by the size of the private copies. Counted here by a [`Metered`]
//! executor around the emulator, outside the one GPU mode keeps its own count with.

use warpcheck_gpu::passes::{self, CheckOptions};
use warpcheck_gpu::{Arg, EmuExecutor, Launch, LaunchBuffer, Metered, RaceKind};

/// `out[i] = value(i)` for every `i < n`, in a grid-stride loop (4 blocks of one warp:
/// four units, whatever `n`). `value` is an instruction setting `%r9` from the index
/// `%r5` and the block `%r2`; `each_block` makes every block write every word.
fn kernel(value: &str, each_block: bool) -> String {
    let (start, step) = if each_block {
        ("mov.u32 %r5, %r4;", "mov.u32 %r8, %r3;")
    } else {
        (
            "mad.lo.s32 %r5, %r2, %r3, %r4;",
            "mul.lo.s32 %r8, %r3, %r7;",
        )
    };
    format!(
        ".version 7.0\n.target sm_80\n.address_size 64\n\
         .visible .entry k(.param .u64 k_param_0, .param .u32 k_param_1)\n{{\n\
         .reg .pred %p<2>;\n.reg .b32 %r<10>;\n.reg .b64 %rd<10>;\n\
         ld.param.u64 %rd1, [k_param_0];\nld.param.u32 %r6, [k_param_1];\n\
         cvta.to.global.u64 %rd2, %rd1;\n\
         mov.u32 %r2, %ctaid.x;\nmov.u32 %r3, %ntid.x;\nmov.u32 %r4, %tid.x;\n\
         mov.u32 %r7, %nctaid.x;\n{start}\n{step}\n\
         LOOP:\nsetp.ge.u32 %p1, %r5, %r6;\n@%p1 bra DONE;\n{value}\n\
         mul.wide.u32 %rd3, %r5, 4;\nadd.s64 %rd4, %rd2, %rd3;\nst.global.u32 [%rd4], %r9;\n\
         add.u32 %r5, %r5, %r8;\nbra.uni LOOP;\nDONE:\nret;\n}}\n"
    )
}

/// Checks the kernel over `elems` words; returns the bytes downloaded less the launch's
/// results (its buffer), and the verdict's races.
fn downloaded(value: &str, each_block: bool, elems: u32) -> (u64, Vec<warpcheck_gpu::Race>) {
    let ptx = kernel(value, each_block);
    let parsed = warpcheck_ptx::parse(&ptx);
    assert!(parsed.errors.is_empty(), "{:?}", parsed.errors);
    let program = warpcheck_ir::lower(&parsed.module).expect("lowers");
    let k = program.function_by_name("k").unwrap();
    let inst = warpcheck_gpu::instrument(&parsed.module, &program, k).unwrap();
    let mut launch = Launch {
        grid: [4, 1, 1],
        block: [32, 1, 1],
        shared: 0,
        args: vec![Arg::Buffer(0), Arg::Bytes(elems.to_le_bytes().to_vec())],
        buffers: vec![LaunchBuffer {
            name: "out".into(),
            bytes: vec![0xEE; elems as usize * 4],
        }],
    };
    let mut emu = EmuExecutor::new();
    let mut exec = Metered::new(&mut emu);
    let v = passes::check(&mut exec, &inst, &mut launch, CheckOptions::default()).unwrap();
    let downloaded = exec.traffic.downloaded;
    assert_eq!(
        v.profile.traffic.downloaded, downloaded,
        "the verdict's own count covers every download"
    );
    (downloaded - elems as u64 * 4, v.races)
}

#[test]
fn a_clean_launch_downloads_the_same_few_bytes_for_a_small_and_a_large_buffer() {
    let (small, races) = downloaded("mov.u32 %r9, %r5;", false, 1024);
    assert!(races.is_empty());
    let (large, races) = downloaded("mov.u32 %r9, %r5;", false, 64 * 1024);
    assert!(races.is_empty());
    // Four copies of 256 KiB stay on the device; per-block counts of the merge (at most
    // 4096 blocks of 8 bytes) and per-copy first offsets come back.
    assert!(small <= 1024, "{small} bytes");
    assert!(
        large <= 16 * 1024,
        "{large} bytes, copies are {} bytes",
        4 * 256 * 1024
    );
}

#[test]
fn a_racy_launch_downloads_a_bounded_witness_list() {
    // Every unit writes every word with its block index: three events per byte (write-
    // write on the low byte, benign on the others), 786,432 in all, of which the first
    // 4096 come back.
    let (large, races) = downloaded("mov.u32 %r9, %r2;", true, 64 * 1024);
    assert!(races.iter().any(|r| r.kind == RaceKind::WriteWrite));
    let records = 4096 * 32;
    assert!(large >= records, "the list is full: {large} bytes");
    assert!(large <= records + 64 * 1024, "{large} bytes");
}
