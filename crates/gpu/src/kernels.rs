//! LD's data-parallel comparison steps (§4.3 atomic-free conflict checking, §4.4 the
//! second pass, §4.6 the merge) as GPU kernels: PTX text generated here, JIT-compiled by
//! the driver (no toolkit at run time) or run by the emulator, launched through the
//! [`Executor`] like the instrumented kernel. The private copies never leave the device;
//! what comes back is small: per-block event counts, a bounded list of witness records,
//! per-copy first offsets, and a few minima.
//!
//! Notation as in [`crate::passes`]: `S` a target's contents before the launch (`n`
//! bytes), `P¹_c` copy `c` after pass 1 (copies `stride` bytes apart, `n` bytes used and
//! guard bytes after them), `R` the real buffer after pass 1 (atomics applied), `U` the
//! union of the copies' writes over `S` in copy order.
//!
//! Every kernel works on bytes, one thread per byte (per byte of a copy where copies are
//! a second grid dimension), in grid-stride loops; a thread that needs all copies of one
//! byte (the merge) walks them in copy order, so no two threads write the same output
//! (atomic-free, as LD §4.3). Atomics serve only to publish results: counts (sums), first
//! offsets (`atom.min`) and slots in the witness list.
//!
//! **Deterministic bounded witnesses** ([`merge`]): a counting launch gives each block's
//! number of events (a block owns one contiguous chunk of offsets); the host turns the
//! counts into each block's first slot; an emitting launch writes the records of blocks
//! whose events all fit the list (any order inside the block's slots), while the block
//! that straddles the end writes its events with one thread in offset-then-copy order
//! until the list is full. The records kept are therefore always the first
//! [`MAX_RECORDS`] events in offset order, whatever the scheduling.
//!
//! The kernels are conservative PTX (ISA 7.0, `sm_70`, 64-bit addresses; byte loads and
//! stores through 32-bit registers, `atom.global.{add.u32,add.u64,min.u64}`).

use std::fmt::Write as _;
use std::sync::OnceLock;

use crate::GpuError;
use crate::exec::{DeviceBuffer, DeviceLaunch, Executor, Param};

/// The copy index standing for the atomics (the real buffer `R`) in seed lists and
/// read-witness pairs.
pub const ATOMIC: u32 = u32::MAX;

/// The most witness records one merge keeps (the first ones in offset order).
pub const MAX_RECORDS: u32 = 4096;

/// Bytes per witness record: offset (u64), spare (u64), first copy, second copy, kind,
/// padding (u32 each).
const RECORD: usize = 32;

/// Threads per block of every comparison kernel.
const THREADS: u32 = 256;

/// The module holding every comparison kernel.
pub fn module() -> &'static str {
    static TEXT: OnceLock<String> = OnceLock::new();
    TEXT.get_or_init(|| {
        let mut s = String::from(
            "// warpcheck GPU mode: comparison kernels (LD sections 4.3, 4.4, 4.6)\n\
             .version 7.0\n.target sm_70\n.address_size 64\n\n",
        );
        for k in [
            merge_kernel(),
            guard_kernel(),
            pass2_init_kernel(),
            seed_kernel(),
            outcome_kernel(),
            write_back_kernel(),
            read_witness_kernel(),
            gather_kernel(),
        ] {
            s.push_str(&k);
            s.push('\n');
        }
        s
    })
}

/// Register declarations every kernel gets.
const DECLS: &str = ".reg .pred %p<16>;\n.reg .b32 %r<48>;\n.reg .b64 %rd<48>;\n";

/// A kernel over a two-dimensional domain: rows `%r1` (u32) from `%ctaid.y` below the
/// row count in `%r40`, and columns `%rd1` (u64) from the global x index below the column
/// count in `%rd40`, both grid-stride. `setup` loads the parameters (it must set `%r40`
/// and `%rd40`); `body` runs for each (row, column) and may branch to `NEXT`.
fn grid2d(name: &str, params: &[&str], setup: &str, body: &str) -> String {
    let params = declare(params);
    format!(
        ".visible .entry {name}(\n{}\n)\n{{\n{DECLS}{setup}\
         mov.u32 %r1, %ctaid.y;\n\
         mov.u32 %r41, %nctaid.y;\n\
         mov.u32 %r42, %ntid.x;\n\
         mov.u32 %r43, %nctaid.x;\n\
         mul.wide.u32 %rd41, %r42, %r43;\n\
         ROW:\n\
         setp.ge.u32 %p0, %r1, %r40;\n\
         @%p0 bra EXIT;\n\
         mov.u32 %r44, %ctaid.x;\n\
         mov.u32 %r45, %tid.x;\n\
         mul.wide.u32 %rd1, %r44, %r42;\n\
         cvt.u64.u32 %rd42, %r45;\n\
         add.u64 %rd1, %rd1, %rd42;\n\
         COL:\n\
         setp.ge.u64 %p0, %rd1, %rd40;\n\
         @%p0 bra ROW_END;\n\
         {body}\
         NEXT:\n\
         add.u64 %rd1, %rd1, %rd41;\n\
         bra.uni COL;\n\
         ROW_END:\n\
         add.u32 %r1, %r1, %r41;\n\
         bra.uni ROW;\n\
         EXIT:\n\
         ret;\n}}\n",
        params.join(",\n")
    )
}

/// Parameter declarations from `".u64 name"` entries; names get a `wc_` prefix so that
/// none can be a PTX keyword.
fn declare(params: &[&str]) -> Vec<String> {
    params
        .iter()
        .map(|p| {
            let (ty, name) = p.split_once(' ').expect("type and name");
            format!("\t.param {ty} wc_{name}")
        })
        .collect()
}

/// `ld.param` of each `(register, parameter)`.
fn load_params(pairs: &[(&str, &str)]) -> String {
    let mut s = String::new();
    for (reg, param) in pairs {
        let ty = if reg.starts_with("%rd") { "u64" } else { "u32" };
        let _ = writeln!(s, "ld.param.{ty} {reg}, [wc_{param}];");
    }
    s
}

/// The seeded initial value of byte `%rd1` of copy `%r1` into `%r20`: `S` with the
/// writes of the copies listed for it applied in list order (`ATOMIC`: the atomics' `R`).
/// Expects `%rd2` = S, `%rd3` = R, `%rd4` = P¹, `%rd5` = seed table (offset and length
/// per copy), `%rd6` = list, `%rd7` = stride; uses `%r20`–`%r26`, `%rd20`–`%rd23`,
/// `%p1`–`%p3`.
const SEED_VALUE: &str = "\
add.u64 %rd20, %rd2, %rd1;
ld.global.u8 %r21, [%rd20];
mov.u32 %r20, %r21;
mul.wide.u32 %rd20, %r1, 8;
add.u64 %rd20, %rd20, %rd5;
ld.global.u32 %r22, [%rd20];
ld.global.u32 %r23, [%rd20+4];
add.u32 %r23, %r23, %r22;
SEED_LOOP:
setp.ge.u32 %p1, %r22, %r23;
@%p1 bra SEED_END;
mul.wide.u32 %rd21, %r22, 4;
add.u64 %rd21, %rd21, %rd6;
ld.global.u32 %r25, [%rd21];
add.u32 %r22, %r22, 1;
setp.eq.u32 %p2, %r25, 0xffffffff;
add.u64 %rd22, %rd3, %rd1;
mul.wide.u32 %rd23, %r25, 1;
mul.lo.u64 %rd23, %rd23, %rd7;
add.u64 %rd23, %rd23, %rd4;
add.u64 %rd23, %rd23, %rd1;
selp.b64 %rd22, %rd22, %rd23, %p2;
ld.global.u8 %r26, [%rd22];
setp.ne.u32 %p3, %r26, %r21;
selp.b32 %r20, %r26, %r20, %p3;
bra.uni SEED_LOOP;
SEED_END:
";

/// `%rd10` = byte `%rd1` of copy `%r1`'s copy: `%rd4 + %r1 * %rd7 + %rd1`.
const COPY_BYTE: &str = "\
mul.wide.u32 %rd10, %r1, 1;
mul.lo.u64 %rd10, %rd10, %rd7;
add.u64 %rd10, %rd10, %rd1;
";

fn guard_kernel() -> String {
    // Rows: copies; columns: guard bytes (stride - n). The smallest (copy, byte) index
    // of a non-zero guard byte, by `atom.min`.
    grid2d(
        "wc_guard",
        &[
            ".u64 p",
            ".u64 n",
            ".u64 stride",
            ".u32 copies",
            ".u64 result",
        ],
        &format!(
            "{}sub.u64 %rd40, %rd7, %rd8;\n",
            load_params(&[
                ("%rd4", "p"),
                ("%rd8", "n"),
                ("%rd7", "stride"),
                ("%r40", "copies"),
                ("%rd9", "result"),
            ])
        ),
        "mul.wide.u32 %rd10, %r1, 1;\n\
         mul.lo.u64 %rd10, %rd10, %rd7;\n\
         add.u64 %rd10, %rd10, %rd8;\n\
         add.u64 %rd10, %rd10, %rd1;\n\
         add.u64 %rd10, %rd10, %rd4;\n\
         ld.global.u8 %r2, [%rd10];\n\
         setp.eq.u32 %p1, %r2, 0;\n\
         @%p1 bra NEXT;\n\
         mul.wide.u32 %rd11, %r1, 1;\n\
         mul.lo.u64 %rd11, %rd11, %rd40;\n\
         add.u64 %rd11, %rd11, %rd1;\n\
         atom.global.min.u64 %rd12, [%rd9], %rd11;\n",
    )
}

fn pass2_init_kernel() -> String {
    // Rows: copies; columns: bytes of a copy (guards zeroed). Copy c starts from U with
    // its own pass-1 writes reverted to S.
    grid2d(
        "wc_pass2_init",
        &[
            ".u64 s",
            ".u64 p1",
            ".u64 u",
            ".u64 out",
            ".u64 n",
            ".u64 stride",
            ".u32 copies",
        ],
        &format!(
            "{}mov.u64 %rd40, %rd7;\n",
            load_params(&[
                ("%rd2", "s"),
                ("%rd4", "p1"),
                ("%rd3", "u"),
                ("%rd5", "out"),
                ("%rd8", "n"),
                ("%rd7", "stride"),
                ("%r40", "copies"),
            ])
        ),
        &format!(
            "{COPY_BYTE}mov.u32 %r2, 0;\n\
             setp.ge.u64 %p1, %rd1, %rd8;\n\
             @%p1 bra STORE;\n\
             add.u64 %rd11, %rd10, %rd4;\n\
             ld.global.u8 %r3, [%rd11];\n\
             add.u64 %rd11, %rd2, %rd1;\n\
             ld.global.u8 %r4, [%rd11];\n\
             add.u64 %rd11, %rd3, %rd1;\n\
             ld.global.u8 %r5, [%rd11];\n\
             setp.ne.u32 %p2, %r3, %r4;\n\
             selp.b32 %r2, %r4, %r5, %p2;\n\
             STORE:\n\
             add.u64 %rd11, %rd10, %rd5;\n\
             st.global.u8 [%rd11], %r2;\n"
        ),
    )
}

fn seed_kernel() -> String {
    // Rows: destination copies; columns: bytes of a copy (guards zeroed).
    grid2d(
        "wc_seed",
        &[
            ".u64 s",
            ".u64 r",
            ".u64 p1",
            ".u64 table",
            ".u64 list",
            ".u64 out",
            ".u64 n",
            ".u64 stride",
            ".u32 copies",
        ],
        &format!(
            "{}mov.u64 %rd40, %rd7;\n",
            load_params(&[
                ("%rd2", "s"),
                ("%rd3", "r"),
                ("%rd4", "p1"),
                ("%rd5", "table"),
                ("%rd6", "list"),
                ("%rd9", "out"),
                ("%rd8", "n"),
                ("%rd7", "stride"),
                ("%r40", "copies"),
            ])
        ),
        &format!(
            "mov.u32 %r20, 0;\n\
             setp.ge.u64 %p4, %rd1, %rd8;\n\
             @%p4 bra STORE;\n\
             {SEED_VALUE}\
             STORE:\n\
             {COPY_BYTE}add.u64 %rd10, %rd10, %rd9;\n\
             st.global.u8 [%rd10], %r20;\n"
        ),
    )
}

fn outcome_kernel() -> String {
    // Rows: copies; columns: bytes. `mode` 0: the copy started as pass 2 starts it;
    // 1: from the seed table. Expected end: its pass-1 writes over its start.
    grid2d(
        "wc_outcome",
        &[
            ".u64 s",
            ".u64 r",
            ".u64 p1",
            ".u64 u",
            ".u64 table",
            ".u64 list",
            ".u64 after",
            ".u64 n",
            ".u64 stride",
            ".u32 copies",
            ".u32 mode",
            ".u64 first_mismatch",
            ".u64 first_change",
        ],
        &format!(
            "{}mov.u64 %rd40, %rd8;\n",
            load_params(&[
                ("%rd2", "s"),
                ("%rd3", "r"),
                ("%rd4", "p1"),
                ("%rd11", "u"),
                ("%rd5", "table"),
                ("%rd6", "list"),
                ("%rd9", "after"),
                ("%rd8", "n"),
                ("%rd7", "stride"),
                ("%r40", "copies"),
                ("%r39", "mode"),
                ("%rd12", "first_mismatch"),
                ("%rd13", "first_change"),
            ])
        ),
        &format!(
            "{COPY_BYTE}add.u64 %rd14, %rd10, %rd4;\n\
             ld.global.u8 %r2, [%rd14];\n\
             add.u64 %rd14, %rd2, %rd1;\n\
             ld.global.u8 %r3, [%rd14];\n\
             setp.ne.u32 %p5, %r2, %r3;\n\
             setp.ne.u32 %p4, %r39, 0;\n\
             @%p4 bra SEEDED;\n\
             add.u64 %rd14, %rd11, %rd1;\n\
             ld.global.u8 %r4, [%rd14];\n\
             selp.b32 %r20, %r3, %r4, %p5;\n\
             bra.uni COMPARE;\n\
             SEEDED:\n\
             {SEED_VALUE}\
             COMPARE:\n\
             selp.b32 %r5, %r2, %r20, %p5;\n\
             add.u64 %rd14, %rd10, %rd9;\n\
             ld.global.u8 %r6, [%rd14];\n\
             mul.wide.u32 %rd15, %r1, 8;\n\
             setp.eq.u32 %p6, %r6, %r5;\n\
             @%p6 bra SAME;\n\
             add.u64 %rd16, %rd15, %rd12;\n\
             atom.global.min.u64 %rd17, [%rd16], %rd1;\n\
             SAME:\n\
             setp.eq.u32 %p6, %r6, %r20;\n\
             @%p6 bra NEXT;\n\
             add.u64 %rd16, %rd15, %rd13;\n\
             atom.global.min.u64 %rd17, [%rd16], %rd1;\n"
        ),
    )
}

fn write_back_kernel() -> String {
    // One row; columns: bytes. R takes U's byte where U differs from S.
    grid2d(
        "wc_write_back",
        &[".u64 s", ".u64 u", ".u64 r", ".u64 n"],
        &format!(
            "{}mov.u32 %r40, 1;\n",
            load_params(&[("%rd2", "s"), ("%rd3", "u"), ("%rd4", "r"), ("%rd40", "n")])
        ),
        "add.u64 %rd10, %rd3, %rd1;\n\
         ld.global.u8 %r2, [%rd10];\n\
         add.u64 %rd10, %rd2, %rd1;\n\
         ld.global.u8 %r3, [%rd10];\n\
         setp.eq.u32 %p1, %r2, %r3;\n\
         @%p1 bra NEXT;\n\
         add.u64 %rd10, %rd4, %rd1;\n\
         st.global.u8 [%rd10], %r2;\n",
    )
}

fn read_witness_kernel() -> String {
    // Rows: (reader, writer) pairs; columns: bytes. The smallest byte at or after the
    // pair's start that the writer wrote (or the atomics changed) and that a load site of
    // the reader covers in its read map (site + 1 and unit per byte, a load of `bytes`
    // bytes marks its first byte).
    grid2d(
        "wc_read_witness",
        &[
            ".u64 s",
            ".u64 r",
            ".u64 p1",
            ".u64 rsite",
            ".u64 load_bytes",
            ".u32 sites",
            ".u64 pairs",
            ".u64 start",
            ".u64 n",
            ".u64 stride",
            ".u32 npairs",
            ".u64 result",
        ],
        &format!(
            "{}mov.u64 %rd40, %rd8;\n",
            load_params(&[
                ("%rd2", "s"),
                ("%rd3", "r"),
                ("%rd4", "p1"),
                ("%rd5", "rsite"),
                ("%rd6", "load_bytes"),
                ("%r39", "sites"),
                ("%rd9", "pairs"),
                ("%rd11", "start"),
                ("%rd8", "n"),
                ("%rd7", "stride"),
                ("%r40", "npairs"),
                ("%rd12", "result"),
            ])
        ),
        READ_WITNESS_BODY,
    )
}

/// Body of `wc_read_witness` (see there).
const READ_WITNESS_BODY: &str = "\
mul.wide.u32 %rd13, %r1, 8;
add.u64 %rd14, %rd13, %rd11;
ld.global.u64 %rd15, [%rd14];
setp.lt.u64 %p1, %rd1, %rd15;
@%p1 bra NEXT;
add.u64 %rd14, %rd13, %rd9;
ld.global.u32 %r2, [%rd14];
ld.global.u32 %r3, [%rd14+4];
add.u64 %rd14, %rd2, %rd1;
ld.global.u8 %r4, [%rd14];
setp.eq.u32 %p2, %r2, 0xffffffff;
add.u64 %rd16, %rd3, %rd1;
mul.wide.u32 %rd17, %r2, 1;
mul.lo.u64 %rd17, %rd17, %rd7;
add.u64 %rd17, %rd17, %rd4;
add.u64 %rd17, %rd17, %rd1;
selp.b64 %rd16, %rd16, %rd17, %p2;
ld.global.u8 %r5, [%rd16];
setp.eq.u32 %p2, %r5, %r4;
@%p2 bra NEXT;
mul.wide.u32 %rd18, %r3, 1;
mul.lo.u64 %rd18, %rd18, %rd7;
add.u64 %rd18, %rd18, %rd1;
mov.u32 %r6, 0;
COVER:
setp.ge.u32 %p3, %r6, 16;
@%p3 bra NEXT;
cvt.u64.u32 %rd19, %r6;
setp.gt.u64 %p3, %rd19, %rd1;
@%p3 bra NEXT;
sub.u64 %rd20, %rd18, %rd19;
shl.b64 %rd20, %rd20, 3;
add.u64 %rd20, %rd20, %rd5;
ld.global.u32 %r7, [%rd20];
add.u32 %r6, %r6, 1;
setp.eq.u32 %p4, %r7, 0;
@%p4 bra COVER;
setp.gt.u32 %p4, %r7, %r39;
@%p4 bra COVER;
cvt.u64.u32 %rd21, %r7;
add.u64 %rd21, %rd21, %rd6;
ld.global.u8 %r8, [%rd21+-1];
setp.lt.u32 %p4, %r8, %r6;
@%p4 bra COVER;
add.u64 %rd22, %rd13, %rd12;
atom.global.min.u64 %rd23, [%rd22], %rd1;
";

fn gather_kernel() -> String {
    // Rows: windows; columns: bytes of a window. out[w * len + k] = src[start_w + k].
    grid2d(
        "wc_gather",
        &[
            ".u64 src",
            ".u64 starts",
            ".u32 windows",
            ".u64 len",
            ".u64 out",
        ],
        &load_params(&[
            ("%rd2", "src"),
            ("%rd3", "starts"),
            ("%r40", "windows"),
            ("%rd40", "len"),
            ("%rd4", "out"),
        ]),
        "mul.wide.u32 %rd10, %r1, 8;\n\
         add.u64 %rd10, %rd10, %rd3;\n\
         ld.global.u64 %rd11, [%rd10];\n\
         add.u64 %rd11, %rd11, %rd1;\n\
         add.u64 %rd11, %rd11, %rd2;\n\
         ld.global.u8 %r2, [%rd11];\n\
         mul.wide.u32 %rd12, %r1, 1;\n\
         mul.lo.u64 %rd12, %rd12, %rd40;\n\
         add.u64 %rd12, %rd12, %rd1;\n\
         add.u64 %rd12, %rd12, %rd4;\n\
         st.global.u8 [%rd12], %r2;\n",
    )
}

/// One witness event of the merge: counted in the counting launch, written to the next
/// slot of the block's range in the emitting launch. `kind`, `a` (first copy) and `b`
/// (second copy) are registers or immediates; the offset is `%rd1`.
fn merge_event(label: &str, kind: &str, a: &str, b: &str) -> String {
    format!(
        "@%p15 bra EV_{label};\n\
         add.u32 %r30, %r30, 1;\n\
         bra.uni EV_{label}_DONE;\n\
         EV_{label}:\n\
         atom.global.add.u32 %r31, [%rd30], 1;\n\
         setp.ge.u32 %p14, %r31, %r38;\n\
         @%p14 bra EV_{label}_DONE;\n\
         mul.wide.u32 %rd31, %r31, {RECORD};\n\
         add.u64 %rd31, %rd31, %rd12;\n\
         st.global.u64 [%rd31], %rd1;\n\
         st.global.u64 [%rd31+8], %rd36;\n\
         st.global.u32 [%rd31+16], {a};\n\
         st.global.u32 [%rd31+20], {b};\n\
         st.global.u32 [%rd31+24], {kind};\n\
         EV_{label}_DONE:\n"
    )
}

/// The merge's work for byte `%rd1` (see [`merge_kernel`]).
fn merge_body() -> String {
    format!(
        "add.u64 %rd10, %rd2, %rd1;\n\
         ld.global.u8 %r2, [%rd10];\n\
         add.u64 %rd10, %rd3, %rd1;\n\
         ld.global.u8 %r3, [%rd10];\n\
         setp.ne.u32 %p5, %r3, %r2;\n\
         mov.u32 %r4, %r2;\n\
         mov.u32 %r5, 0xffffffff;\n\
         add.u64 %rd11, %rd4, %rd1;\n\
         mov.u32 %r6, 0;\n\
         COPY:\n\
         setp.ge.u32 %p1, %r6, %r40;\n\
         @%p1 bra COPY_END;\n\
         ld.global.u8 %r7, [%rd11];\n\
         setp.eq.u32 %p1, %r7, %r2;\n\
         @%p1 bra COPY_NEXT;\n\
         setp.eq.u32 %p2, %r5, 0xffffffff;\n\
         @%p2 bra FIRST;\n\
         setp.eq.u32 %p3, %r4, %r7;\n\
         selp.u32 %r8, 1, 0, %p3;\n\
         {}\
         FIRST:\n\
         mov.u32 %r4, %r7;\n\
         mov.u32 %r5, %r6;\n\
         @%p15 bra WROTE_DONE;\n\
         cvt.u64.u32 %rd13, %r6;\n\
         add.u64 %rd13, %rd13, %rd6;\n\
         mov.u32 %r9, 1;\n\
         st.global.u8 [%rd13], %r9;\n\
         WROTE_DONE:\n\
         @!%p5 bra COPY_NEXT;\n\
         {}\
         COPY_NEXT:\n\
         add.u32 %r6, %r6, 1;\n\
         add.u64 %rd11, %rd11, %rd7;\n\
         bra.uni COPY;\n\
         COPY_END:\n\
         @%p15 bra NEXT;\n\
         add.u64 %rd10, %rd5, %rd1;\n\
         st.global.u8 [%rd10], %r4;\n\
         @!%p5 bra NEXT;\n\
         add.u64 %rd32, %rd32, 1;\n",
        merge_event("RACE", "%r8", "%r5", "%r6"),
        merge_event("ATOMIC", "%r33", "%r32", "%r6"),
    )
}

/// The merge, per byte `o` of a target, over the copies in order (LD §4.3, §4.6): `U[o]`
/// (last writer wins), each copy's "wrote something" flag, and events: a copy writing a
/// byte an earlier copy wrote (kind 0: other value than the union so far, a write-write
/// race; kind 1: the same value, benign) and a plain write to a byte the atomics changed
/// (kind 2, first copy [`ATOMIC`]). Blocks own contiguous chunks of offsets; `slots`
/// holds (count, mode) per block: the counting launch (`emit` 0) adds each block's
/// events to its count, the emitting launch takes the host's (first slot, mode): mode 0
/// skips the block, 1 emits in parallel, 2 emits with one thread in (offset, copy) order.
/// The counting launch also adds the number of bytes the atomics changed to `summary`.
fn merge_kernel() -> String {
    let body = merge_body();
    let params = [
        ".u64 s",
        ".u64 r",
        ".u64 p1",
        ".u64 u",
        ".u64 wrote",
        ".u64 n",
        ".u64 stride",
        ".u32 copies",
        ".u64 slots",
        ".u64 summary",
        ".u64 records",
        ".u32 capacity",
        ".u32 emit",
    ];
    let params = declare(&params);
    format!(
        ".visible .entry wc_merge(\n{}\n)\n{{\n{DECLS}{}{MERGE_SETUP}\
         CHUNK:\n\
         setp.ge.u64 %p0, %rd1, %rd34;\n\
         @%p0 bra CHUNK_END;\n\
         {body}\
         NEXT:\n\
         add.u64 %rd1, %rd1, %rd35;\n\
         bra.uni CHUNK;\n\
         CHUNK_END:\n\
         @%p15 bra EXIT;\n\
         setp.eq.u32 %p0, %r30, 0;\n\
         @%p0 bra PUBLISHED;\n\
         atom.global.add.u32 %r31, [%rd30], %r30;\n\
         PUBLISHED:\n\
         setp.eq.u64 %p0, %rd32, 0;\n\
         @%p0 bra EXIT;\n\
         atom.global.add.u64 %rd33, [%rd9], %rd32;\n\
         EXIT:\n\
         ret;\n}}\n",
        params.join(",\n"),
        load_params(&[
            ("%rd2", "s"),
            ("%rd3", "r"),
            ("%rd4", "p1"),
            ("%rd5", "u"),
            ("%rd6", "wrote"),
            ("%rd8", "n"),
            ("%rd7", "stride"),
            ("%r40", "copies"),
            ("%rd14", "slots"),
            ("%rd9", "summary"),
            ("%rd12", "records"),
            ("%r38", "capacity"),
            ("%r37", "emit"),
        ])
    )
}

/// The merge's chunk of this block (`%rd1` from, `%rd34` end, `%rd35` step), its slot
/// (`%rd30`), the emit predicate `%p15`, the counters `%r30` (events) and `%rd32`
/// (bytes the atomics changed), and the record constants `%r32` ([`ATOMIC`]), `%r33`
/// (kind 2), `%rd36` (0).
const MERGE_SETUP: &str = "\
setp.ne.u32 %p15, %r37, 0;
mov.u32 %r10, %ctaid.x;
mov.u32 %r11, %nctaid.x;
mov.u32 %r12, %tid.x;
mov.u32 %r13, %ntid.x;
cvt.u64.u32 %rd20, %r11;
add.u64 %rd21, %rd8, %rd20;
sub.u64 %rd21, %rd21, 1;
div.u64 %rd21, %rd21, %rd20;
cvt.u64.u32 %rd22, %r10;
mul.lo.u64 %rd23, %rd22, %rd21;
add.u64 %rd34, %rd23, %rd21;
min.u64 %rd34, %rd34, %rd8;
cvt.u64.u32 %rd24, %r12;
add.u64 %rd1, %rd23, %rd24;
cvt.u64.u32 %rd35, %r13;
mul.wide.u32 %rd30, %r10, 8;
add.u64 %rd30, %rd30, %rd14;
mov.u32 %r30, 0;
mov.u64 %rd32, 0;
mov.u32 %r32, 0xffffffff;
mov.u32 %r33, 2;
mov.u64 %rd36, 0;
@!%p15 bra CHUNK;
ld.global.u32 %r14, [%rd30+4];
setp.eq.u32 %p0, %r14, 0;
@%p0 bra EXIT;
setp.eq.u32 %p0, %r14, 1;
@%p0 bra CHUNK;
setp.ne.u32 %p0, %r12, 0;
@%p0 bra EXIT;
mov.u64 %rd1, %rd23;
mov.u64 %rd35, 1;
";

/// The grid of a kernel over `rows` rows of `columns` columns (grid-stride beyond it).
fn grid(rows: u64, columns: u64) -> [u32; 3] {
    let x = columns.div_ceil(THREADS as u64).clamp(1, 1024) as u32;
    let y = rows.clamp(1, 65535) as u32;
    [x, y, 1]
}

fn launch(
    exec: &mut dyn Executor,
    kernel: &str,
    grid: [u32; 3],
    params: &[Param],
) -> Result<(), GpuError> {
    exec.launch(&DeviceLaunch {
        ptx: module(),
        kernel,
        grid,
        block: [THREADS, 1, 1],
        shared: 0,
        params,
    })
}

/// A device buffer holding `bytes`, for a kernel's small tables.
fn table(exec: &mut dyn Executor, bytes: &[u8]) -> Result<DeviceBuffer, GpuError> {
    let b = exec.alloc(bytes.len() as u64)?;
    exec.upload(b, 0, bytes)?;
    Ok(b)
}

/// Frees `buffers` whether or not `result` is an error; returns `result`.
fn freeing<T>(
    exec: &mut dyn Executor,
    buffers: &[DeviceBuffer],
    result: Result<T, GpuError>,
) -> Result<T, GpuError> {
    for &b in buffers {
        exec.free(b);
    }
    result
}

fn u64s(bytes: &[u8]) -> Vec<u64> {
    bytes
        .chunks_exact(8)
        .map(|c| u64::from_le_bytes(c.try_into().expect("8 bytes")))
        .collect()
}

/// One target's buffers on the device for one round.
#[derive(Clone, Copy, Debug)]
pub struct TargetCopies {
    /// `S`: the contents before the launch (`n` bytes).
    pub stale: DeviceBuffer,
    /// `R`: the real buffer after pass 1 (`n` bytes).
    pub real: DeviceBuffer,
    /// `P¹`: the copies after pass 1 (`copies * stride` bytes).
    pub pass1: DeviceBuffer,
    /// `U`: the union (`n` bytes), written by [`merge`].
    pub union: DeviceBuffer,
    pub n: u64,
    pub stride: u64,
    pub copies: u32,
}

/// A merge event (see [`merge_kernel`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct Event {
    pub offset: u64,
    /// 0: write-write with another value, 1: with the same value, 2: a plain write to a
    /// byte the atomics changed.
    pub kind: u32,
    /// The earlier copy ([`ATOMIC`] for kind 2).
    pub first: u32,
    pub second: u32,
}

/// What [`merge`] found.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Merged {
    /// The first [`MAX_RECORDS`] events in (offset, copy) order.
    pub events: Vec<Event>,
    /// Every event, kept or not.
    pub total: u64,
    /// Bytes where the atomics changed the real buffer (`R ≠ S`).
    pub atomic_bytes: u64,
}

/// Runs the merge of one target: writes `U` and the per-copy write flags `wrote` (one
/// byte per copy, zeroed by the caller) and returns the events.
pub fn merge(
    exec: &mut dyn Executor,
    t: &TargetCopies,
    wrote: DeviceBuffer,
) -> Result<Merged, GpuError> {
    let blocks = t.n.div_ceil(THREADS as u64).clamp(1, 4096) as u32;
    let slots = exec.alloc(blocks as u64 * 8)?;
    let summary = match exec.alloc(8) {
        Ok(b) => b,
        Err(e) => return freeing(exec, &[slots], Err(e)),
    };
    let records = match exec.alloc(MAX_RECORDS as u64 * RECORD as u64) {
        Ok(b) => b,
        Err(e) => return freeing(exec, &[slots, summary], Err(e)),
    };
    let out = merge_in(exec, t, wrote, blocks, [slots, summary, records]);
    freeing(exec, &[slots, summary, records], out)
}

fn merge_in(
    exec: &mut dyn Executor,
    t: &TargetCopies,
    wrote: DeviceBuffer,
    blocks: u32,
    [slots, summary, records]: [DeviceBuffer; 3],
) -> Result<Merged, GpuError> {
    let params = |emit: u32| {
        vec![
            Param::ptr(t.stale),
            Param::ptr(t.real),
            Param::ptr(t.pass1),
            Param::ptr(t.union),
            Param::ptr(wrote),
            Param::u64(t.n),
            Param::u64(t.stride),
            Param::u32(t.copies),
            Param::ptr(slots),
            Param::ptr(summary),
            Param::ptr(records),
            Param::u32(MAX_RECORDS),
            Param::u32(emit),
        ]
    };
    launch(exec, "wc_merge", [blocks, 1, 1], &params(0))?;
    let mut counts = vec![0u8; blocks as usize * 8];
    exec.download(slots, 0, &mut counts)?;
    let mut atomic_bytes = [0u8; 8];
    exec.download(summary, 0, &mut atomic_bytes)?;
    let atomic_bytes = u64::from_le_bytes(atomic_bytes);
    // Each block's first slot and mode, from the counts in block (offset) order.
    let mut first = 0u64;
    let mut plan = Vec::with_capacity(counts.len());
    for c in counts.chunks_exact(8) {
        let n = u32::from_le_bytes(c[..4].try_into().expect("4 bytes")) as u64;
        let cap = MAX_RECORDS as u64;
        let mode: u32 = if n == 0 || first >= cap {
            0
        } else if first + n <= cap {
            1
        } else {
            2
        };
        plan.extend((first.min(cap) as u32).to_le_bytes());
        plan.extend(mode.to_le_bytes());
        first += n;
    }
    let total = first;
    if total == 0 {
        return Ok(Merged {
            events: Vec::new(),
            total,
            atomic_bytes,
        });
    }
    exec.upload(slots, 0, &plan)?;
    launch(exec, "wc_merge", [blocks, 1, 1], &params(1))?;
    let kept = total.min(MAX_RECORDS as u64) as usize;
    let mut raw = vec![0u8; kept * RECORD];
    exec.download(records, 0, &mut raw)?;
    let word = |r: &[u8], at: usize| u32::from_le_bytes(r[at..at + 4].try_into().expect("4"));
    let mut events: Vec<Event> = raw
        .chunks_exact(RECORD)
        .map(|r| Event {
            offset: u64::from_le_bytes(r[..8].try_into().expect("8 bytes")),
            kind: word(r, 24),
            first: word(r, 16),
            second: word(r, 20),
        })
        .collect();
    events.sort_unstable_by_key(|e| (e.offset, e.second, e.kind));
    Ok(Merged {
        events,
        total,
        atomic_bytes,
    })
}

/// The first non-zero guard byte of any copy (smallest copy, then byte), as (copy,
/// offset past the copy's `n` bytes).
pub fn first_bad_guard(
    exec: &mut dyn Executor,
    t: &TargetCopies,
) -> Result<Option<(u32, u64)>, GpuError> {
    let guard = t.stride - t.n;
    let result = table(exec, &u64::MAX.to_le_bytes())?;
    let run = launch(
        exec,
        "wc_guard",
        grid(t.copies as u64, guard),
        &[
            Param::ptr(t.pass1),
            Param::u64(t.n),
            Param::u64(t.stride),
            Param::u32(t.copies),
            Param::ptr(result),
        ],
    )
    .and_then(|()| {
        let mut b = [0u8; 8];
        exec.download(result, 0, &mut b)?;
        Ok(u64::from_le_bytes(b))
    });
    let first = freeing(exec, &[result], run)?;
    Ok((first != u64::MAX && guard > 0).then(|| ((first / guard) as u32, first % guard)))
}

/// Fills `out` (`t.copies` copies) with pass 2's starts: `U` with each copy's own
/// pass-1 writes reverted to `S`, guards zeroed.
pub fn pass2_init(
    exec: &mut dyn Executor,
    t: &TargetCopies,
    out: DeviceBuffer,
) -> Result<(), GpuError> {
    launch(
        exec,
        "wc_pass2_init",
        grid(t.copies as u64, t.stride),
        &[
            Param::ptr(t.stale),
            Param::ptr(t.pass1),
            Param::ptr(t.union),
            Param::ptr(out),
            Param::u64(t.n),
            Param::u64(t.stride),
            Param::u32(t.copies),
        ],
    )
}

/// Where a copy of a run starts: `S` with the pass-1 writes of the copies `from`
/// applied in order ([`ATOMIC`]: the bytes the atomics changed, from `R`).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Seed {
    pub from: Vec<u32>,
}

/// The seed table (offset and length per copy) and the list it points into.
fn seed_tables(seeds: &[Seed]) -> (Vec<u8>, Vec<u8>) {
    let mut table = Vec::with_capacity(seeds.len() * 8);
    let mut list: Vec<u8> = Vec::new();
    for s in seeds {
        table.extend(((list.len() / 4) as u32).to_le_bytes());
        table.extend((s.from.len() as u32).to_le_bytes());
        list.extend(s.from.iter().flat_map(|c| c.to_le_bytes()));
    }
    if list.is_empty() {
        list.extend(0u32.to_le_bytes());
    }
    (table, list)
}

/// Fills `out` (one copy per seed) with the seeded starts, guards zeroed.
pub fn seed(
    exec: &mut dyn Executor,
    t: &TargetCopies,
    seeds: &[Seed],
    out: DeviceBuffer,
) -> Result<(), GpuError> {
    let (table_bytes, list_bytes) = seed_tables(seeds);
    let tb = table(exec, &table_bytes)?;
    let lb = match table(exec, &list_bytes) {
        Ok(b) => b,
        Err(e) => return freeing(exec, &[tb], Err(e)),
    };
    let run = launch(
        exec,
        "wc_seed",
        grid(seeds.len() as u64, t.stride),
        &[
            Param::ptr(t.stale),
            Param::ptr(t.real),
            Param::ptr(t.pass1),
            Param::ptr(tb),
            Param::ptr(lb),
            Param::ptr(out),
            Param::u64(t.n),
            Param::u64(t.stride),
            Param::u32(seeds.len() as u32),
        ],
    );
    freeing(exec, &[tb, lb], run)
}

/// How the copies of a finished run started, for [`outcome`].
pub enum Start<'a> {
    /// As [`pass2_init`] starts them.
    Pass2,
    /// As [`seed`] starts them.
    Seeded(&'a [Seed]),
}

/// Per copy of `after` (a run's copies, started as `start` says): the first byte where
/// it differs from its expected end (its own pass-1 writes over its start), and the
/// first byte where it differs from its start; `u64::MAX` where none.
pub fn outcome(
    exec: &mut dyn Executor,
    t: &TargetCopies,
    start: Start<'_>,
    after: DeviceBuffer,
) -> Result<Vec<(u64, u64)>, GpuError> {
    let (mode, seeds) = match start {
        Start::Pass2 => (0, &[][..]),
        Start::Seeded(s) => (1, s),
    };
    let (table_bytes, list_bytes) = seed_tables(seeds);
    let firsts = vec![0xFFu8; t.copies as usize * 16];
    let mut owned = Vec::new();
    let run = (|| {
        for bytes in [&table_bytes[..], &list_bytes, &firsts] {
            owned.push(table(exec, if bytes.is_empty() { &[0] } else { bytes })?);
        }
        let [tb, lb, fb] = [owned[0], owned[1], owned[2]];
        let c = t.copies as u64;
        launch(
            exec,
            "wc_outcome",
            grid(c, t.n),
            &[
                Param::ptr(t.stale),
                Param::ptr(t.real),
                Param::ptr(t.pass1),
                Param::ptr(t.union),
                Param::ptr(tb),
                Param::ptr(lb),
                Param::ptr(after),
                Param::u64(t.n),
                Param::u64(t.stride),
                Param::u32(t.copies),
                Param::u32(mode),
                Param::Pointer(fb, 0),
                Param::Pointer(fb, c * 8),
            ],
        )?;
        let mut back = vec![0u8; firsts.len()];
        exec.download(fb, 0, &mut back)?;
        let v = u64s(&back);
        let (mismatch, change) = v.split_at(t.copies as usize);
        Ok(mismatch
            .iter()
            .copied()
            .zip(change.iter().copied())
            .collect())
    })();
    freeing(exec, &owned, run)
}

/// Applies the union to the real buffer: `R[o] = U[o]` where `U[o] ≠ S[o]`.
pub fn write_back(exec: &mut dyn Executor, t: &TargetCopies) -> Result<(), GpuError> {
    launch(
        exec,
        "wc_write_back",
        grid(1, t.n),
        &[
            Param::ptr(t.stale),
            Param::ptr(t.union),
            Param::ptr(t.real),
            Param::u64(t.n),
        ],
    )
}

/// A read map and what its sites are, for [`read_witness`].
pub struct ReadMap<'a> {
    /// Two `u32` per byte of the copies (site + 1, unit).
    pub map: DeviceBuffer,
    /// Per site: its width in bytes when it is a load, else 0.
    pub load_bytes: &'a [u8],
}

/// For each pair (writer copy or [`ATOMIC`], reader's copy in `reads`), the first byte
/// at or after `starts[i]` that the writer wrote in pass 1 (the atomics changed) and a
/// load of the reader covers; `None` where there is none.
pub fn read_witness(
    exec: &mut dyn Executor,
    t: &TargetCopies,
    reads: &ReadMap<'_>,
    pairs: &[(u32, u32)],
    starts: &[u64],
) -> Result<Vec<Option<u64>>, GpuError> {
    let pair_bytes: Vec<u8> = pairs
        .iter()
        .flat_map(|&(w, r)| w.to_le_bytes().into_iter().chain(r.to_le_bytes()))
        .collect();
    let start_bytes: Vec<u8> = starts.iter().flat_map(|s| s.to_le_bytes()).collect();
    let result = vec![0xFFu8; pairs.len() * 8];
    let sizes = if reads.load_bytes.is_empty() {
        &[0u8][..]
    } else {
        reads.load_bytes
    };
    let mut owned = Vec::new();
    let run = (|| {
        for bytes in [sizes, &pair_bytes, &start_bytes, &result] {
            owned.push(table(exec, bytes)?);
        }
        launch(
            exec,
            "wc_read_witness",
            grid(pairs.len() as u64, t.n),
            &[
                Param::ptr(t.stale),
                Param::ptr(t.real),
                Param::ptr(t.pass1),
                Param::ptr(reads.map),
                Param::ptr(owned[0]),
                Param::u32(reads.load_bytes.len() as u32),
                Param::ptr(owned[1]),
                Param::ptr(owned[2]),
                Param::u64(t.n),
                Param::u64(t.stride),
                Param::u32(pairs.len() as u32),
                Param::ptr(owned[3]),
            ],
        )?;
        let mut back = vec![0u8; result.len()];
        exec.download(owned[3], 0, &mut back)?;
        Ok(u64s(&back)
            .into_iter()
            .map(|o| (o != u64::MAX).then_some(o))
            .collect())
    })();
    freeing(exec, &owned, run)
}

/// `len` bytes of `src` at each of `starts`, concatenated.
pub fn gather(
    exec: &mut dyn Executor,
    src: DeviceBuffer,
    starts: &[u64],
    len: u64,
) -> Result<Vec<u8>, GpuError> {
    if starts.is_empty() {
        return Ok(Vec::new());
    }
    let start_bytes: Vec<u8> = starts.iter().flat_map(|s| s.to_le_bytes()).collect();
    let sb = table(exec, &start_bytes)?;
    let out = match exec.alloc(starts.len() as u64 * len) {
        Ok(b) => b,
        Err(e) => return freeing(exec, &[sb], Err(e)),
    };
    let run = launch(
        exec,
        "wc_gather",
        grid(starts.len() as u64, len),
        &[
            Param::ptr(src),
            Param::ptr(sb),
            Param::u32(starts.len() as u32),
            Param::u64(len),
            Param::ptr(out),
        ],
    )
    .and_then(|()| {
        let mut back = vec![0u8; starts.len() * len as usize];
        exec.download(out, 0, &mut back)?;
        Ok(back)
    });
    freeing(exec, &[sb, out], run)
}

#[cfg(test)]
mod tests {
    #[test]
    fn the_module_parses_lowers_and_round_trips_through_the_printer() {
        assert!(super::module().is_ascii(), "the driver gets plain ASCII");
        let parsed = warpcheck_ptx::parse(super::module());
        assert!(parsed.errors.is_empty(), "{:?}", parsed.errors);
        warpcheck_ir::lower(&parsed.module).expect("lowers");
        let printed = warpcheck_ptx::print(&parsed.module);
        let again = warpcheck_ptx::parse(&printed);
        assert!(again.errors.is_empty(), "{:?}", again.errors);
        assert_eq!(warpcheck_ptx::print(&again.module), printed);
    }
}
