//! GPU mode on hand-written PTX, run in the emulator: privatisation keeps the kernel's
//! results, the two passes find write-write and read-write races between blocks with the
//! right blocks and sites, equal values are benign, and escaping pointers are refused.

use warpcheck_gpu::passes::{self, CheckOptions};
use warpcheck_gpu::{Arg, EmuExecutor, GpuError, Launch, LaunchBuffer, RaceKind, SiteKind};

/// Kernels over `out` (u32 elements); `%r5` is the global thread index, `%r4` the
/// thread index, `%r2` the block index.
fn module(body: &str) -> String {
    format!(
        ".version 7.0\n.target sm_80\n.address_size 64\n\
         .visible .entry k(.param .u64 k_param_0)\n{{\n\
         .reg .pred %p<2>;\n.reg .b32 %r<10>;\n.reg .b64 %rd<10>;\n\
         ld.param.u64 %rd1, [k_param_0];\n\
         cvta.to.global.u64 %rd2, %rd1;\n\
         mov.u32 %r2, %ctaid.x;\nmov.u32 %r3, %ntid.x;\nmov.u32 %r4, %tid.x;\n\
         mad.lo.s32 %r5, %r2, %r3, %r4;\n{body}\nret;\n}}\n"
    )
}

/// `out[index] = value` for registers `index`, `value`.
fn store(index: &str, value: &str) -> String {
    format!(
        "mul.wide.u32 %rd3, {index}, 4;\nadd.s64 %rd4, %rd2, %rd3;\nst.global.u32 [%rd4], {value};"
    )
}

fn instrument(ptx: &str) -> Result<warpcheck_gpu::Instrumented, GpuError> {
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
            bytes: vec![0xEE; elems * 4],
        }],
    }
}

fn words(b: &[u8]) -> Vec<u32> {
    b.chunks(4)
        .map(|c| u32::from_le_bytes(c.try_into().unwrap()))
        .collect()
}

#[test]
fn disjoint_writes_are_clean_and_keep_the_results() {
    let inst = instrument(&module(&store("%r5", "%r5"))).unwrap();
    assert_eq!(inst.plan.targets.len(), 1);
    let mut l = launch(4, 32, 128);
    let v = passes::check(
        &mut EmuExecutor::new(),
        &inst,
        &mut l,
        CheckOptions::default(),
    )
    .unwrap();
    assert!(v.races.is_empty(), "{:?}", v.races);
    assert_eq!(v.runs, 2, "a clean launch costs exactly two passes");
    assert_eq!(words(&l.buffers[0].bytes), (0..128).collect::<Vec<u32>>());
}

#[test]
fn different_values_to_one_word_are_a_write_write_race() {
    let inst = instrument(&module(&store("%r4", "%r2"))).unwrap();
    let mut l = launch(3, 8, 8);
    let v = passes::check(
        &mut EmuExecutor::new(),
        &inst,
        &mut l,
        CheckOptions::default(),
    )
    .unwrap();
    let ww: Vec<_> = v
        .races
        .iter()
        .filter(|r| r.kind == RaceKind::WriteWrite)
        .collect();
    assert!(!ww.is_empty());
    let r = ww[0];
    assert_eq!((r.first.block, r.second.block), (0, 1), "{r:?}");
    assert_eq!(r.buffer, "out");
    let site = &inst.plan.sites[r.second.site.expect("attributed")];
    assert_eq!(site.kind, SiteKind::Store);
    // Merged in block order, the last block's values win (deterministic execution).
    assert_eq!(words(&l.buffers[0].bytes), vec![2; 8]);
}

#[test]
fn equal_values_are_benign() {
    let inst = instrument(&module(&store("%r4", "%r4"))).unwrap();
    let mut l = launch(2, 8, 8);
    let v = passes::check(
        &mut EmuExecutor::new(),
        &inst,
        &mut l,
        CheckOptions::default(),
    )
    .unwrap();
    assert!(!v.races.is_empty());
    assert!(
        v.races.iter().all(|r| r.kind == RaceKind::BenignWriteWrite),
        "{:?}",
        v.races
    );
}

#[test]
fn reading_the_next_blocks_writes_is_a_read_write_race_with_that_block() {
    // out[gid] = out[gid + ntid] + 1 for gid < 3*ntid; block b reads block b+1's part.
    let body = format!(
        "add.s32 %r6, %r5, %r3;\nmul.wide.u32 %rd5, %r6, 4;\nadd.s64 %rd6, %rd2, %rd5;\n\
         ld.global.u32 %r7, [%rd6];\nadd.s32 %r8, %r7, 1;\n{}",
        store("%r5", "%r8")
    );
    let inst = instrument(&module(&body)).unwrap();
    let mut l = launch(3, 8, 32);
    let v = passes::check(
        &mut EmuExecutor::new(),
        &inst,
        &mut l,
        CheckOptions::default(),
    )
    .unwrap();
    let rw: Vec<_> = v
        .races
        .iter()
        .filter(|r| r.kind == RaceKind::ReadWrite)
        .collect();
    assert!(!rw.is_empty(), "{:?}", v.races);
    assert!(v.races.iter().all(|r| r.kind == RaceKind::ReadWrite));
    for r in &rw {
        assert_eq!(
            r.first.block,
            r.second.block + 1,
            "block b reads block b+1: {r:?}"
        );
        let read = &inst.plan.sites[r.second.site.unwrap()];
        let write = &inst.plan.sites[r.first.site.unwrap()];
        assert_eq!((read.kind, write.kind), (SiteKind::Load, SiteKind::Store));
    }
    let mut blocks: Vec<u32> = rw.iter().map(|r| r.second.block).collect();
    blocks.dedup();
    assert_eq!(
        blocks,
        vec![0, 1],
        "blocks 0 and 1 read a neighbour's writes; block 2 does not"
    );
}

#[test]
fn instrumented_ptx_reparses_lowers_and_round_trips() {
    let inst = instrument(&module(&store("%r5", "%r5"))).unwrap();
    for text in [&inst.plain, &inst.attribution] {
        let parsed = warpcheck_ptx::parse(text);
        assert!(parsed.errors.is_empty(), "{:?}", parsed.errors);
        warpcheck_ir::lower(&parsed.module).expect("lowers");
        let again = warpcheck_ptx::print(&parsed.module);
        assert_eq!(
            warpcheck_ptx::without_spans(&warpcheck_ptx::parse(&again).module),
            warpcheck_ptx::without_spans(&parsed.module)
        );
        assert!(text.contains("__wc_priv_0"));
        assert!(
            !text.contains("ld.param.u64 %rd1"),
            "the pointer load is redirected"
        );
    }
    assert!(inst.attribution.contains("__wc_wsite_0"));
}

#[test]
fn a_pointer_stored_to_memory_is_refused_with_the_construct_named() {
    let body = format!("{}\nst.global.u64 [%rd2+8], %rd2;", store("%r5", "%r5"));
    let err = instrument(&module(&body)).unwrap_err().to_string();
    assert!(err.contains("writes pointer `k_param_0`"), "{err}");
}

#[test]
fn a_pointer_compared_with_an_unrelated_value_is_refused() {
    let body = format!(
        "cvt.u64.u32 %rd7, %r5;\nsetp.lt.u64 %p1, %rd2, %rd7;\n@%p1 bra $L_end;\n{}\n$L_end:",
        store("%r5", "%r5")
    );
    let err = instrument(&module(&body)).unwrap_err().to_string();
    assert!(err.contains("compares pointer"), "{err}");
}

#[test]
fn atomics_act_on_the_real_buffer() {
    // out[gid] = gid, and atomicAdd(out[0..], 1) from every thread into word 40.
    let body = format!(
        "{}\nmov.u32 %r9, 1;\natom.global.add.u32 %r8, [%rd2+160], %r9;",
        store("%r5", "%r5")
    );
    let inst = instrument(&module(&body)).unwrap();
    assert!(inst.plan.atomics_on_targets);
    let mut l = launch(4, 8, 41);
    l.buffers[0].bytes = vec![0; 41 * 4];
    let v = passes::check(
        &mut EmuExecutor::new(),
        &inst,
        &mut l,
        CheckOptions::default(),
    )
    .unwrap();
    assert!(v.races.is_empty(), "{:?}", v.races);
    let w = words(&l.buffers[0].bytes);
    assert_eq!(w[40], 32, "the atomics ran once, on the real buffer");
    assert_eq!(&w[..32], (0..32).collect::<Vec<u32>>().as_slice());
}

#[test]
fn deterministic_execution_merges_in_block_order_on_every_run() {
    let inst = instrument(&module(&store("%r4", "%r2"))).unwrap();
    let mut exec = EmuExecutor::new();
    exec.threads = 4;
    let mut outs = Vec::new();
    for _ in 0..3 {
        let mut l = launch(16, 8, 8);
        passes::deterministic(&mut exec, &inst, &mut l, CheckOptions::default()).unwrap();
        outs.push(words(&l.buffers[0].bytes));
    }
    assert_eq!(outs[0], vec![15; 8], "the last block wins");
    assert!(outs.iter().all(|o| *o == outs[0]));
}

/// Block `b` writes `out[(b / 2) * ntid + tid] = b`: blocks 2k and 2k+1 race, nothing
/// else does.
fn pairs_race() -> String {
    format!(
        "shr.u32 %r6, %r2, 1;\nmad.lo.s32 %r7, %r6, %r3, %r4;\n{}",
        store("%r7", "%r2")
    )
}

#[test]
fn over_the_memory_limit_rounds_reshuffle_units_and_find_the_race_in_the_last_round() {
    let inst = instrument(&module(&pairs_race())).unwrap();
    // 16 blocks of one warp: 16 units; a copy of the 256-byte buffer takes 512 bytes, so
    // 1024 bytes hold M = 2 copies: log2(16) = 4 rounds. Blocks 2k and 2k+1 differ only
    // in the last base-2 digit, so only round 4 separates them.
    let mut l = launch(16, 8, 64);
    let mut seen = Vec::new();
    let v = passes::check_with(
        &mut EmuExecutor::new(),
        &inst,
        &mut l,
        CheckOptions {
            max_private_bytes: 1024,
            ..CheckOptions::default()
        },
        &mut |r| seen.push(*r),
    )
    .unwrap();
    assert_eq!(v.units, 16);
    assert_eq!(v.rounds.len(), 4, "{:?}", v.rounds);
    assert_eq!(seen, v.rounds, "progress is reported after each round");
    assert!(v.rounds.iter().all(|r| r.copies == 2));
    let races: Vec<usize> = v.rounds.iter().map(|r| r.races).collect();
    assert_eq!(races[..3], [0, 0, 0], "{races:?}");
    assert!(races[3] > 0);
    assert_eq!(v.rounds[3].probability, 1.0);
    let mut pairs: Vec<(u32, u32)> = v
        .races
        .iter()
        .map(|r| (r.first.block, r.second.block))
        .collect();
    pairs.sort_unstable();
    pairs.dedup();
    // Units sharing a copy share its witnesses (a few bytes per pair of copies): the
    // pairs named are real ones.
    assert!(!pairs.is_empty());
    assert!(
        pairs.iter().all(|&(a, b)| a % 2 == 0 && b == a + 1),
        "{pairs:?}"
    );
    // With a copy per unit every pair is found, in one round.
    let mut l = launch(16, 8, 64);
    let full = passes::check(
        &mut EmuExecutor::new(),
        &inst,
        &mut l,
        CheckOptions::default(),
    )
    .unwrap();
    assert_eq!(full.rounds.len(), 1);
    let mut full_pairs: Vec<(u32, u32)> = full
        .races
        .iter()
        .map(|r| (r.first.block, r.second.block))
        .collect();
    full_pairs.sort_unstable();
    full_pairs.dedup();
    assert_eq!(
        full_pairs,
        (0..8).map(|k| (2 * k, 2 * k + 1)).collect::<Vec<_>>()
    );
}

#[test]
fn equation_one_matches_lds_table_one() {
    // LD Table I: 960 warps, two copies: 4, 6, 8 and 10 passes (2..5 rounds) find a race
    // with probability 75%, 88%, 94% and 97%; 20 passes (10 rounds) always.
    let p: Vec<u32> = (2..=5)
        .map(|k| (passes::probability(960, 2, k) * 100.0).round() as u32)
        .collect();
    assert_eq!(p, [75, 88, 94, 97]);
    assert_eq!(passes::probability(960, 2, 10), 1.0);
    assert_eq!(passes::rounds(960, 2).len(), 10);
    assert_eq!(passes::rounds(960, 31).len(), 2);
    // With 600 copies allowed, 524,288 units need three rounds, which 81 copies give.
    assert_eq!(passes::fewest_copies(524_288, 600), 81);
    assert_eq!(passes::rounds(524_288, 81).len(), 3);
    assert_eq!(passes::fewest_copies(16, 2), 2);
    assert_eq!(
        passes::fewest_copies(100, 200),
        200,
        "one round: a copy per unit"
    );
}

#[test]
fn a_sample_of_units_gets_copies_apart_from_each_other_and_from_the_rest_in_some_round() {
    use warpcheck_emu::sample::{BlockSample, RaceBlocks};
    // 2,048 blocks of 4 warps (8,192 units) in 4 copies: 7 rounds for every unit, over
    // the bound of 4; a sample of 16 blocks (64 warps, plus the rest: 65 units) takes 4.
    let grid = [64, 32, 1];
    let opts = CheckOptions {
        blocks: RaceBlocks::Sample(16),
        seed: 5,
        ..CheckOptions::default()
    };
    let seven = CheckOptions {
        max_rounds: 7,
        ..opts
    };
    let (full, none) = passes::unit_maps(8192, 4, grid, 4, seven);
    assert_eq!(
        (full.len(), none),
        (7, None),
        "7 rounds allowed: every unit"
    );
    let (maps, sampled) = passes::unit_maps(8192, 4, grid, 4, opts);
    let s = sampled.expect("sampled");
    assert_eq!(
        (s.blocks, s.total_blocks, s.units, s.full_rounds),
        (16, 2048, 64, 7)
    );
    assert_eq!(maps.len(), 4);
    let sample = BlockSample::new(grid, RaceBlocks::Sample(16), 5);
    let watched = |u: usize| sample.watches([(u / 4 % 64) as u32, (u / 4 / 64) as u32, 0]);
    let units: Vec<usize> = (0..8192).filter(|&u| watched(u)).collect();
    let rest: Vec<usize> = (0..8192).filter(|&u| !watched(u)).collect();
    assert_eq!(units.len(), 64);
    assert!(watched(0) && watched(4 * 63) && watched(8191), "corners");
    let apart = |a: usize, b: usize| maps.iter().any(|m| m[a] != m[b]);
    for (i, &a) in units.iter().enumerate() {
        for &b in &units[i + 1..] {
            assert!(apart(a, b), "watched units {a} and {b} always share a copy");
        }
        assert!(
            apart(a, rest[0]),
            "watched unit {a} never apart from the rest"
        );
    }
    // The unwatched units share one copy in every round.
    assert!(
        maps.iter()
            .all(|m| rest.iter().all(|&u| m[u] == m[rest[0]]))
    );
    // `all` never samples.
    let all = CheckOptions {
        blocks: RaceBlocks::All,
        ..opts
    };
    assert_eq!(passes::unit_maps(8192, 4, grid, 4, all).1, None);
}

#[test]
fn two_copies_over_the_limit_are_refused() {
    let inst = instrument(&module(&store("%r5", "%r5"))).unwrap();
    let mut l = launch(4, 32, 128);
    let err = passes::check(
        &mut EmuExecutor::new(),
        &inst,
        &mut l,
        CheckOptions {
            max_private_bytes: 1024,
            ..CheckOptions::default()
        },
    )
    .unwrap_err()
    .to_string();
    assert!(err.contains("two private copies"), "{err}");
}

#[test]
fn warps_of_a_block_without_barriers_are_checked_against_each_other() {
    // One block of two warps: out[tid % 32] = tid; warps 0 and 1 write every word.
    let body = format!("and.b32 %r6, %r4, 31;\n{}", store("%r6", "%r4"));
    let inst = instrument(&module(&body)).unwrap();
    assert!(!inst.plan.has_barriers);
    let mut l = launch(1, 64, 32);
    let v = passes::check(
        &mut EmuExecutor::new(),
        &inst,
        &mut l,
        CheckOptions::default(),
    )
    .unwrap();
    assert!(v.per_warp);
    assert_eq!(v.units, 2);
    let r = v
        .races
        .iter()
        .find(|r| r.kind == RaceKind::WriteWrite)
        .expect("a write-write race");
    assert_eq!((r.first.block, r.second.block), (0, 0));
    assert_eq!((r.first.warp, r.second.warp), (Some(0), Some(1)));
    // Merged in warp order, warp 1's values win.
    assert_eq!(words(&l.buffers[0].bytes), (32..64).collect::<Vec<u32>>());
}

#[test]
fn with_a_barrier_units_are_blocks() {
    // Warps of a block write words they later may read after the barrier: legitimate
    // communication, so a copy per block and no race between the warps.
    let body = format!(
        "and.b32 %r6, %r4, 31;\n{}\nbar.sync 0;\nld.global.u32 %r7, [%rd4];\n{}",
        store("%r6", "%r4"),
        store("%r5", "%r7")
    );
    let inst = instrument(&module(&body)).unwrap();
    assert!(inst.plan.has_barriers);
    let mut l = launch(1, 64, 64);
    let v = passes::check(
        &mut EmuExecutor::new(),
        &inst,
        &mut l,
        CheckOptions::default(),
    )
    .unwrap();
    assert!(!v.per_warp);
    assert_eq!(v.units, 1);
}

#[test]
fn a_write_past_the_buffer_is_an_error_not_a_race() {
    // 4 blocks of 8 threads write out[gid + 1] into a buffer of 32 words.
    let body = format!("add.s32 %r6, %r5, 1;\n{}", store("%r6", "%r5"));
    let inst = instrument(&module(&body)).unwrap();
    let mut l = launch(4, 8, 32);
    let err = passes::check(
        &mut EmuExecutor::new(),
        &inst,
        &mut l,
        CheckOptions::default(),
    )
    .unwrap_err()
    .to_string();
    assert!(
        err.contains("block 3 wrote past the end of buffer `out`"),
        "{err}"
    );
}

#[test]
fn a_plain_read_of_a_word_atomics_change_is_a_race_with_the_atomic() {
    // Every thread adds 1 to word 40 atomically, then copies word 40 to out[gid].
    let body = format!(
        "mov.u32 %r9, 1;\natom.global.add.u32 %r8, [%rd2+160], %r9;\n\
         ld.global.u32 %r7, [%rd2+160];\n{}",
        store("%r5", "%r7")
    );
    let inst = instrument(&module(&body)).unwrap();
    let mut l = launch(4, 8, 41);
    l.buffers[0].bytes = vec![0; 41 * 4];
    let v = passes::check(
        &mut EmuExecutor::new(),
        &inst,
        &mut l,
        CheckOptions::default(),
    )
    .unwrap();
    let r = v
        .races
        .iter()
        .find(|r| r.kind == RaceKind::AtomicRead)
        .unwrap_or_else(|| panic!("{:?}", v.races));
    assert_eq!(r.offset, 160);
    let atomic = &inst.plan.sites[r.first.site.expect("the atomic's site")];
    let read = &inst.plan.sites[r.second.site.expect("the read's site")];
    assert_eq!((atomic.kind, read.kind), (SiteKind::Atomic, SiteKind::Load));
}

/// `out[0]` is read by every block but block 0, which writes `value1` then `value2` to it:
/// the readers copy it to `out[1 + block]`.
fn block_zero_writes_word_zero(writes: &str) -> String {
    format!(
        "setp.ne.u32 %p1, %r2, 0;\n@%p1 bra $L_read;\nsetp.ne.u32 %p1, %r4, 0;\n@%p1 bra $L_end;\n\
         {writes}\nbra.uni $L_end;\n$L_read:\nsetp.ne.u32 %p1, %r4, 0;\n@%p1 bra $L_end;\n\
         ld.global.u32 %r7, [%rd2];\nadd.s32 %r6, %r2, 1;\n{}\n$L_end:",
        store("%r6", "%r7")
    )
}

#[test]
fn value_based_false_negative_aba_a_write_undone_before_the_end_is_not_seen() {
    // LD §4.7: block 0 writes 1 to out[0] and then the original 0xEEEEEEEE back; blocks
    // 1..3 read out[0] unordered with both writes (a real race, which the CPU checker
    // reports), but block 0's copy ends equal to the stale copy, so no write is seen.
    let writes = "mov.u32 %r8, 1;\nst.global.u32 [%rd2], %r8;\n\
                  mov.u32 %r8, -286331154;\nst.global.u32 [%rd2], %r8;";
    let inst = instrument(&module(&block_zero_writes_word_zero(writes))).unwrap();
    let mut l = launch(4, 32, 8);
    let v = passes::check(
        &mut EmuExecutor::new(),
        &inst,
        &mut l,
        CheckOptions::default(),
    )
    .unwrap();
    assert!(v.races.is_empty(), "{:?}", v.races);
}

#[test]
fn value_based_false_negative_a_write_of_the_value_already_there_is_not_seen() {
    // LD §4.7: block 0 stores the value out[0] already holds; the readers race with that
    // store, but a write that changes no byte is invisible to value comparison.
    let writes = "mov.u32 %r8, -286331154;\nst.global.u32 [%rd2], %r8;";
    let inst = instrument(&module(&block_zero_writes_word_zero(writes))).unwrap();
    let mut l = launch(4, 32, 8);
    let v = passes::check(
        &mut EmuExecutor::new(),
        &inst,
        &mut l,
        CheckOptions::default(),
    )
    .unwrap();
    assert!(v.races.is_empty(), "{:?}", v.races);
    // The same kernel storing a different value: the read-write race is found.
    let writes = "mov.u32 %r8, 5;\nst.global.u32 [%rd2], %r8;";
    let inst = instrument(&module(&block_zero_writes_word_zero(writes))).unwrap();
    let mut l = launch(4, 32, 8);
    let v = passes::check(
        &mut EmuExecutor::new(),
        &inst,
        &mut l,
        CheckOptions::default(),
    )
    .unwrap();
    assert!(
        v.races.iter().any(|r| r.kind == RaceKind::ReadWrite),
        "{:?}",
        v.races
    );
}
