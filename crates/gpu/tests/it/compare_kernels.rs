//! LD's comparison steps as GPU kernels (`warpcheck_gpu::kernels`), run in the emulator
//! on crafted copies: write-write conflicts with different and with equal values,
//! disjoint writes, writes to bytes the atomics changed, the bounded and deterministic
//! witness list, guard bytes, pass 2's starts and comparison, seeded starts, read
//! witnesses and gathers.

use warpcheck_gpu::kernels::{
    self, ATOMIC, Event, MAX_RECORDS, ReadMap, Seed, Start, TargetCopies,
};
use warpcheck_gpu::{DeviceBuffer, EmuExecutor, Executor};

const STRIDE: usize = 256;

fn buffer(exec: &mut EmuExecutor, bytes: &[u8]) -> DeviceBuffer {
    let b = exec.alloc(bytes.len() as u64).unwrap();
    exec.upload(b, 0, bytes).unwrap();
    b
}

fn read(exec: &mut EmuExecutor, b: DeviceBuffer, len: usize) -> Vec<u8> {
    let mut out = vec![0u8; len];
    exec.download(b, 0, &mut out).unwrap();
    out
}

/// A target of `stale.len()` bytes whose copies (`stride` apart) start as `copies`
/// describes: each a list of (offset, value) writes over `stale`.
fn target(
    exec: &mut EmuExecutor,
    stale: &[u8],
    real: &[u8],
    copies: &[&[(usize, u8)]],
    stride: usize,
) -> TargetCopies {
    let mut p1 = vec![0u8; stride * copies.len()];
    for (c, writes) in copies.iter().enumerate() {
        p1[c * stride..c * stride + stale.len()].copy_from_slice(stale);
        for &(o, v) in writes.iter() {
            p1[c * stride + o] = v;
        }
    }
    TargetCopies {
        stale: buffer(exec, stale),
        real: buffer(exec, real),
        pass1: buffer(exec, &p1),
        union: exec.alloc(stale.len() as u64).unwrap(),
        n: stale.len() as u64,
        stride: stride as u64,
        copies: copies.len() as u32,
    }
}

fn event(offset: u64, kind: u32, first: u32, second: u32) -> Event {
    Event {
        offset,
        kind,
        first,
        second,
    }
}

#[test]
fn different_values_to_one_byte_are_a_write_write_event_and_the_last_copy_wins() {
    let mut exec = EmuExecutor::new();
    let stale = vec![7u8; 64];
    let t = target(
        &mut exec,
        &stale,
        &stale,
        &[&[(5, 1)], &[], &[(5, 2), (9, 3)]],
        STRIDE,
    );
    let wrote = exec.alloc(3).unwrap();
    let m = kernels::merge(&mut exec, &t, wrote).unwrap();
    assert_eq!(m.events, vec![event(5, 0, 0, 2)]);
    assert_eq!((m.total, m.atomic_bytes), (1, 0));
    let mut union = stale.clone();
    union[5] = 2;
    union[9] = 3;
    assert_eq!(read(&mut exec, t.union, 64), union);
    assert_eq!(read(&mut exec, wrote, 3), vec![1, 0, 1]);
}

#[test]
fn equal_values_are_a_benign_event_and_a_third_writer_pairs_with_the_second() {
    let mut exec = EmuExecutor::new();
    let stale = vec![0u8; 32];
    let copies: [&[(usize, u8)]; 3] = [&[(3, 4)], &[(3, 4)], &[(3, 5)]];
    let t = target(&mut exec, &stale, &stale, &copies, STRIDE);
    let wrote = exec.alloc(3).unwrap();
    let m = kernels::merge(&mut exec, &t, wrote).unwrap();
    // Copy 1 writes the union's value so far (benign); copy 2 another one (a race with
    // the last writer before it).
    assert_eq!(m.events, vec![event(3, 1, 0, 1), event(3, 0, 1, 2)]);
}

#[test]
fn disjoint_writes_have_no_events_and_their_union() {
    let mut exec = EmuExecutor::new();
    let stale: Vec<u8> = (0..100).collect();
    let copies: [&[(usize, u8)]; 4] = [&[(0, 200)], &[(1, 201)], &[], &[(99, 202), (50, 50)]];
    let t = target(&mut exec, &stale, &stale, &copies, STRIDE);
    let wrote = exec.alloc(4).unwrap();
    let m = kernels::merge(&mut exec, &t, wrote).unwrap();
    assert_eq!(m, kernels::Merged::default());
    let mut union = stale.clone();
    union[0] = 200;
    union[1] = 201;
    union[99] = 202;
    assert_eq!(read(&mut exec, t.union, 100), union);
    // Writing the value already there is no write (value-based).
    assert_eq!(read(&mut exec, wrote, 4), vec![1, 1, 0, 1]);
}

#[test]
fn a_plain_write_to_a_byte_the_atomics_changed_is_an_atomic_event() {
    let mut exec = EmuExecutor::new();
    let stale = vec![0u8; 16];
    let mut real = stale.clone();
    real[8] = 1;
    real[12] = 1;
    let t = target(&mut exec, &stale, &real, &[&[], &[(8, 9)]], STRIDE);
    let wrote = exec.alloc(2).unwrap();
    let m = kernels::merge(&mut exec, &t, wrote).unwrap();
    assert_eq!(m.events, vec![event(8, 2, ATOMIC, 1)]);
    assert_eq!(m.atomic_bytes, 2);
}

#[test]
fn over_the_limit_the_first_events_in_offset_order_are_kept_with_the_total() {
    let mut exec = EmuExecutor::new();
    // 5000 bytes over 20 blocks of 250: two events a byte, so block 8 straddles the
    // end of the list and writes its events with one thread, in order.
    let n = 5000;
    let stale = vec![0u8; n];
    let w = |v: u8| -> Vec<(usize, u8)> { (0..n).map(|o| (o, v)).collect() };
    let (a, b, c) = (w(1), w(2), w(3));
    let t = target(&mut exec, &stale, &stale, &[&a, &b, &c], 5120);
    let wrote = exec.alloc(3).unwrap();
    let m = kernels::merge(&mut exec, &t, wrote).unwrap();
    assert_eq!(m.total, 2 * n as u64);
    let expected: Vec<Event> = (0..MAX_RECORDS as u64 / 2)
        .flat_map(|o| [event(o, 0, 0, 1), event(o, 0, 1, 2)])
        .collect();
    assert_eq!(m.events, expected);
}

#[test]
fn a_guard_byte_written_is_found_at_its_copy_and_offset() {
    let mut exec = EmuExecutor::new();
    let stale = vec![0u8; 40];
    let t = target(&mut exec, &stale, &stale, &[&[], &[], &[]], 64);
    assert_eq!(kernels::first_bad_guard(&mut exec, &t).unwrap(), None);
    exec.upload(t.pass1, 2 * 64 + 40 + 3, &[1]).unwrap();
    exec.upload(t.pass1, 64 + 40 + 7, &[1]).unwrap();
    assert_eq!(
        kernels::first_bad_guard(&mut exec, &t).unwrap(),
        Some((1, 7))
    );
}

/// A target whose union is already merged, and pass 2's starts for it.
fn pass2_target(exec: &mut EmuExecutor) -> (TargetCopies, DeviceBuffer) {
    let stale = vec![0u8; 8];
    // Copy 0 writes byte 0, copy 1 bytes 4 and 5.
    let t = target(exec, &stale, &stale, &[&[(0, 10)], &[(4, 20), (5, 21)]], 64);
    let wrote = exec.alloc(2).unwrap();
    kernels::merge(exec, &t, wrote).unwrap();
    let p2 = exec.alloc(128).unwrap();
    exec.fill(p2, 0, 128, 0xAA).unwrap();
    kernels::pass2_init(exec, &t, p2).unwrap();
    (t, p2)
}

#[test]
fn pass_two_starts_each_copy_from_the_union_less_its_own_writes() {
    let mut exec = EmuExecutor::new();
    let (_, p2) = pass2_target(&mut exec);
    let got = read(&mut exec, p2, 128);
    let mut expected = vec![0u8; 128];
    expected[4] = 20;
    expected[5] = 21;
    expected[64] = 10;
    assert_eq!(got, expected, "guards zeroed, own writes reverted");
}

#[test]
fn pass_two_reports_the_copy_whose_writes_changed_and_its_first_byte() {
    let mut exec = EmuExecutor::new();
    let (t, p2) = pass2_target(&mut exec);
    // A run in which neither copy read the other's writes ends at its expected end.
    let mut after = read(&mut exec, p2, 128);
    after[0] = 10;
    after[64 + 4] = 20;
    after[64 + 5] = 21;
    exec.upload(p2, 0, &after).unwrap();
    let clean = kernels::outcome(&mut exec, &t, Start::Pass2, p2).unwrap();
    assert!(clean.iter().all(|&(m, _)| m == u64::MAX), "{clean:?}");
    // Copy 1 read copy 0's write: its byte 5 now holds another value.
    exec.upload(p2, 64 + 5, &[99]).unwrap();
    let racy = kernels::outcome(&mut exec, &t, Start::Pass2, p2).unwrap();
    assert_eq!(racy[0].0, u64::MAX);
    assert_eq!(racy[1].0, 5);
    assert_eq!(racy[1].1, 4, "first byte changed from its start");
}

#[test]
fn seeded_starts_apply_the_listed_copies_and_the_atomics_in_order() {
    let mut exec = EmuExecutor::new();
    let stale = vec![0u8; 8];
    let mut real = stale.clone();
    real[7] = 70;
    let t = target(
        &mut exec,
        &stale,
        &real,
        &[&[(1, 1), (2, 1)], &[(2, 2)], &[]],
        64,
    );
    let seeds = [
        Seed { from: vec![] },
        Seed { from: vec![0, 1] },
        Seed {
            from: vec![1, 0, ATOMIC],
        },
    ];
    let out = exec.alloc(3 * 64).unwrap();
    kernels::seed(&mut exec, &t, &seeds, out).unwrap();
    let got = read(&mut exec, out, 3 * 64);
    assert_eq!(&got[..8], &[0; 8]);
    assert_eq!(&got[64..72], &[0, 1, 2, 0, 0, 0, 0, 0]);
    assert_eq!(&got[128..136], &[0, 1, 1, 0, 0, 0, 0, 70]);
    // As if a run changed nothing: copy 0 is missing its own writes (first at byte 1);
    // copy 1's start already holds its own write, copy 2 has none.
    let res = kernels::outcome(&mut exec, &t, Start::Seeded(&seeds), out).unwrap();
    assert_eq!(
        res,
        vec![(1, u64::MAX), (u64::MAX, u64::MAX), (u64::MAX, u64::MAX)]
    );
    exec.upload(out, 128 + 3, &[5]).unwrap();
    let res = kernels::outcome(&mut exec, &t, Start::Seeded(&seeds), out).unwrap();
    assert_eq!(
        res[2],
        (3, 3),
        "copy 2 changed byte 3, which it does not write"
    );
}

#[test]
fn read_witnesses_are_written_bytes_a_load_of_the_reader_covers() {
    let mut exec = EmuExecutor::new();
    let stale = vec![0u8; 32];
    let t = target(
        &mut exec,
        &stale,
        &stale,
        &[&[(8, 1), (9, 1), (20, 1)], &[]],
        64,
    );
    // Read map of two copies: copy 1 (the reader) has a 4-byte load (site 1) at byte 8
    // and a store (site 2) at byte 20.
    let mut map = vec![0u8; 2 * 64 * 8];
    let entry = |c: usize, o: usize| (c * 64 + o) * 8;
    map[entry(1, 8)..entry(1, 8) + 8].copy_from_slice(&[1, 0, 0, 0, 5, 0, 0, 0]);
    map[entry(1, 20)..entry(1, 20) + 4].copy_from_slice(&[2, 0, 0, 0]);
    let map = buffer(&mut exec, &map);
    let reads = ReadMap {
        map,
        load_bytes: &[4, 0],
    };
    let first = kernels::read_witness(&mut exec, &t, &reads, &[(0, 1), (1, 0)], &[0, 0]).unwrap();
    assert_eq!(first, vec![Some(8), None]);
    let next = kernels::read_witness(&mut exec, &t, &reads, &[(0, 1)], &[9]).unwrap();
    assert_eq!(next, vec![Some(9)], "covered by the load at byte 8");
    let last = kernels::read_witness(&mut exec, &t, &reads, &[(0, 1)], &[10]).unwrap();
    assert_eq!(last, vec![None], "byte 20 is covered by a store only");
}

#[test]
fn gather_copies_windows_of_a_buffer() {
    let mut exec = EmuExecutor::new();
    let src: Vec<u8> = (0..=255).collect();
    let b = buffer(&mut exec, &src);
    let got = kernels::gather(&mut exec, b, &[3, 200, 0], 5).unwrap();
    assert_eq!(got, [&src[3..8], &src[200..205], &src[0..5]].concat());
}
