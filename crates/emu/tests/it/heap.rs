//! Device-side `malloc` and `free` (`warpcheck_emu::heap`): results, deterministic
//! addresses whatever the host threads, NULL when the heap is full, memory kept across
//! launches, and the faults of misuse.

use warpcheck_emu::{FaultKind, GlobalMemory, LaunchConfig, run};

use crate::common::*;

const FILE: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/it/heap/heap.cu");

fn read_u64(m: &GlobalMemory, a: u64, n: usize) -> Vec<u64> {
    m.read(a, n as u64 * 8)
        .unwrap()
        .chunks(8)
        .map(|c| u64::from_le_bytes(c.try_into().unwrap()))
        .collect()
}

/// Runs `scratch` over 4 blocks of 64 threads, each allocating `n` ints, on `threads`
/// host threads with a heap of `heap` bytes: the pointers and the sums.
fn scratch(threads: usize, heap: u64, n: i32) -> (Vec<u64>, Vec<i32>) {
    let p = compile(FILE, 3);
    let k = kernel(&p, "scratch");
    let mut m = GlobalMemory::new();
    m.set_heap_limit(heap).unwrap();
    let total = 256;
    let where_ = m.alloc(total as u64 * 8, false).unwrap();
    let sums = m.alloc(total as u64 * 4, false).unwrap();
    let args = params(&p, k, &[A::Ptr(where_), A::Ptr(sums), A::I32(n)]);
    let c = LaunchConfig {
        threads,
        ..config([4, 1, 1], [64, 1, 1])
    };
    run_clean(&p, k, &args, &mut m, &c);
    assert!(m.set_heap_limit(1 << 20).is_err(), "the heap is placed");
    let sums = read_u32(&m, sums, total)
        .into_iter()
        .map(|s| s as i32)
        .collect();
    (read_u64(&m, where_, total), sums)
}

#[test]
fn per_thread_scratch_is_aligned_distinct_and_deterministic() {
    let (one, sums) = scratch(1, 8 << 20, 10);
    for (t, s) in sums.iter().enumerate() {
        assert_eq!(*s, 10 * t as i32 + 45, "thread {t}");
    }
    assert!(one.iter().all(|&a| a != 0 && a % 16 == 0), "{one:x?}");
    // The 32 lanes of a warp hold their blocks at once: distinct addresses.
    let mut warp0 = one[..32].to_vec();
    warp0.sort();
    warp0.dedup();
    assert_eq!(warp0.len(), 32);
    let (two, _) = scratch(2, 8 << 20, 10);
    assert_eq!(one, two, "addresses do not depend on host threads");
}

#[test]
fn a_full_heap_makes_malloc_return_null() {
    // 64 ints take 256 bytes plus the red zone: 3 fit in 1 KiB at a time.
    let (addrs, sums) = scratch(2, 1024, 64);
    let nulls = sums.iter().filter(|&&s| s == -1).count();
    assert_eq!(nulls, 256 - 8 * 3, "{sums:?}");
    assert_eq!(addrs.iter().filter(|&&a| a == 0).count(), nulls);
    assert_eq!(sums[0], 64 * 63 / 2);
}

#[test]
fn memory_allocated_by_one_launch_is_freed_by_the_next() {
    let p = compile(FILE, 3);
    let (keep, release) = (kernel(&p, "keep"), kernel(&p, "release"));
    let mut m = GlobalMemory::new();
    let slots = m.alloc(32 * 8, false).unwrap();
    let firsts = m.alloc(32 * 4, false).unwrap();
    let c = config([1, 1, 1], [32, 1, 1]);
    run_clean(
        &p,
        keep,
        &params(&p, keep, &[A::Ptr(slots), A::I32(4)]),
        &mut m,
        &c,
    );
    assert_eq!(m.heap().unwrap().live_blocks().len(), 32);
    let args = params(&p, release, &[A::Ptr(slots), A::Ptr(firsts)]);
    run_clean(&p, release, &args, &mut m, &c);
    assert_eq!(
        read_u32(&m, firsts, 32),
        (0..32).map(|t| t * 100).collect::<Vec<_>>()
    );
    assert!(m.heap().unwrap().live_blocks().is_empty());
}

/// The first fault of running `name` on one thread.
fn fault_of(name: &str, args: &dyn Fn(&mut GlobalMemory) -> Vec<A>) -> FaultKind {
    let p = compile(FILE, 3);
    let k = kernel(&p, name);
    let mut m = GlobalMemory::new();
    let a = args(&mut m);
    let out = run(
        &p,
        k,
        &params(&p, k, &a),
        &mut m,
        &config([1, 1, 1], [1, 1, 1]),
    )
    .unwrap();
    out.faults
        .first()
        .unwrap_or_else(|| panic!("{name}: no fault"))
        .kind
        .clone()
}

#[test]
fn misuse_of_the_heap_stops_the_block() {
    let out = |m: &mut GlobalMemory| A::Ptr(m.alloc(4, false).unwrap());
    let k = fault_of("overrun", &|m| vec![out(m), A::I32(5)]);
    let FaultKind::HeapOutOfBounds {
        below: Some((_, 20)),
        is_write: true,
        size: 4,
        ..
    } = k
    else {
        panic!("{k:?}")
    };
    assert!(
        k.to_string()
            .contains("0 bytes past the end of the 20-byte block"),
        "{k}"
    );
    let k = fault_of("twice", &|m| {
        vec![A::Ptr(m.alloc(8, false).unwrap()), A::I32(7)]
    });
    assert!(
        matches!(k, FaultKind::HeapDoubleFree { size: 7, .. }),
        "{k:?}"
    );
    let k = fault_of("after", &|m| vec![out(m)]);
    let FaultKind::HeapUseAfterFree {
        block: (_, 16),
        is_write: false,
        ..
    } = k
    else {
        panic!("{k:?}")
    };
    let k = fault_of("wrong", &|m| vec![A::Ptr(m.alloc(8, false).unwrap())]);
    assert!(matches!(k, FaultKind::HeapInvalidFree { .. }), "{k:?}");
}

#[test]
fn the_corpus_heap_tile_reverses_its_block() {
    let p = compile("device_malloc_scratch.cu", 3);
    let k = kernel(&p, "reverseThroughHeap");
    let mut m = GlobalMemory::new();
    let input = buf_u32(&mut m, &(0..64).collect::<Vec<_>>());
    let out = m.alloc(64 * 4, false).unwrap();
    let args = params(&p, k, &[A::Ptr(input), A::Ptr(out)]);
    run_clean(&p, k, &args, &mut m, &config([1, 1, 1], [64, 1, 1]));
    assert_eq!(read_u32(&m, out, 64), (0..64).rev().collect::<Vec<_>>());
    assert!(
        m.heap().unwrap().live_blocks().is_empty(),
        "the tile was freed"
    );
}
