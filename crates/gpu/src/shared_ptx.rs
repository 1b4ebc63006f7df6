//! The PTX of shared-memory checking ([`crate::shared`]): per-warp private copies of the
//! kernel's `__shared__` variables in global memory, compared and merged at every block
//! barrier inside the kernel, and once more by [`FINAL`] after the kernel ends.
//!
//! **Layout** (all indexed by the linear block `B` and the warp `w` of `W` warps per
//! block; `S` bytes per copy, [`crate::SharedPlan::copy_bytes`]):
//! * `copy`: the warps' copies, `[B][w][S]` bytes. Every `ld.shared`/`st.shared` becomes
//!   an `ld.global`/`st.global` at the same offset of the warp's copy: address `a` of
//!   variable `v` becomes `a - &v + copy_w + offset_v`.
//! * `stale`: `[B][S]`, the block's shared memory at the start of the region (zero at
//!   the start of the kernel).
//! * `rmap`, `wmap`: `[B][w][S]` `u32`: site + 1 of the warp's last load (store) of each
//!   byte in the region, 0 for none; written next to every redirected access.
//! * `ctr`: two `u32` per block, the byte counters the threads claim work from.
//! * `res`: the witnesses: `u32` records kept, `u32` events in all, 8 spare bytes, a
//!   table of [`TABLE`] `u32` keys (one record per kind and pair of sites), then up to
//!   [`MAX_RECORDS`] records of 8 `u32`: kind, block, region, byte, first warp, its
//!   site + 1, second warp, its site + 1.
//!
//! **At a barrier** (region `k`, counted from 1 in text order; 0 is the kernel's end) the
//! block's threads, after the barrier, claim chunks of [`CHUNK`] bytes (claiming rather
//! than striding, so that threads which left the kernel early leave no byte unchecked)
//! and for each byte: a warp *wrote* it when its copy differs from `stale` (value-based,
//! LD); two writers with different values are a write-write race (kind 0), with equal
//! values a benign one (kind 1); a warp whose read map marks the byte while another warp
//! wrote it is a read-write race (kind 2: first the writer, second the reader). The
//! last writer's value (highest warp) is merged into `stale` and every copy; the maps
//! are cleared; then a second barrier.

use std::fmt::Write as _;

use crate::shared::{Base, SharedPlan};

/// Bytes a thread claims at once.
pub const CHUNK: u32 = 16;
/// Witness records kept.
pub const MAX_RECORDS: u32 = 256;
/// Keys of the table that keeps one record per kind and pair of sites.
pub const TABLE: u32 = 1024;
/// Bytes of a record.
pub const RECORD: u32 = 32;
/// Byte offset of the key table in `res`.
const TABLE_AT: u32 = 16;
/// Byte offset of the first record in `res`.
pub const RECORDS_AT: u32 = TABLE_AT + 4 * TABLE;
/// Bytes of `res`.
pub const RES_BYTES: u32 = RECORDS_AT + RECORD * MAX_RECORDS;
/// The kernel that compares the last region's copies after the instrumented kernel.
pub const FINAL: &str = "__wc_sh_final";

/// Parameters the shared instrumentation adds to the kernel, in order (all `.u64` but
/// the last, `.u32`).
pub const PARAMS: [&str; 7] = [
    "__wc_sh_copy",
    "__wc_sh_stale",
    "__wc_sh_rmap",
    "__wc_sh_wmap",
    "__wc_sh_ctr",
    "__wc_sh_res",
    "__wc_sh_size",
];

/// `%wcs` (64-bit) registers: 0-2 the warp's copy, read map and write map; 3-8 the
/// block's copies, stale bytes, read maps, write maps, counters, and `res`; 9-13
/// scratch (9: a redirected address, 11: `w * S + b`, 12: the claimed counter, 13: `b`);
/// from [`DELTA`] on, per variable `v`, `copy_w + offset_v - &v`.
///
/// `%wcq` (32-bit) registers: 0 `S`, 1 `W`, 2 `B`, 3 the linear thread, 4 the counter
/// parity; in the byte check 5-6 the claimed chunk, 7 `b`, 8 its stale value, 9 `w`, 10
/// the copy's value, 11 the writers, 12/13/17 the first writer's warp, value and site,
/// 14/15/18 another writer's, 16 the merged value, 19 a read site, 20 whether a
/// read-write race was recorded, 21-27 scratch (23: the record's kind); 28-29 the
/// access redirection's scratch.
const DELTA: usize = 14;
/// `%wcq` registers declared.
const Q_REGS: u32 = 30;

/// Register declarations of the instrumented kernel and of [`FINAL`].
fn declarations(plan: &SharedPlan) -> String {
    format!(
        ".reg .b64 %wcs<{}>;\n.reg .b32 %wcq<{}>;\n.reg .pred %wcp<3>;\n",
        DELTA + plan.vars.len(),
        Q_REGS
    )
}

/// The added parameter declarations of the instrumented kernel.
pub fn param_decls() -> Vec<String> {
    PARAMS
        .iter()
        .enumerate()
        .map(|(i, p)| {
            let ty = if i + 1 == PARAMS.len() { "u32" } else { "u64" };
            format!(".param .{ty} {p}")
        })
        .collect()
}

/// The kernel's prologue: block, warp and the bases of its copies, maps and deltas.
pub fn prologue(plan: &SharedPlan) -> String {
    let mut t = declarations(plan);
    t.push_str(
        "mov.u32 %wcq21, %ctaid.x;\nmov.u32 %wcq22, %ctaid.y;\nmov.u32 %wcq23, %ctaid.z;\n\
         mov.u32 %wcq25, %nctaid.x;\nmov.u32 %wcq26, %nctaid.y;\n\
         mad.lo.u32 %wcq2, %wcq26, %wcq23, %wcq22;\nmad.lo.u32 %wcq2, %wcq2, %wcq25, %wcq21;\n\
         mov.u32 %wcq21, %tid.x;\nmov.u32 %wcq22, %tid.y;\nmov.u32 %wcq23, %tid.z;\n\
         mov.u32 %wcq25, %ntid.x;\nmov.u32 %wcq26, %ntid.y;\nmov.u32 %wcq27, %ntid.z;\n\
         mad.lo.u32 %wcq3, %wcq26, %wcq23, %wcq22;\nmad.lo.u32 %wcq3, %wcq3, %wcq25, %wcq21;\n\
         mul.lo.u32 %wcq21, %wcq25, %wcq26;\nmul.lo.u32 %wcq21, %wcq21, %wcq27;\n\
         add.u32 %wcq1, %wcq21, 31;\nshr.u32 %wcq1, %wcq1, 5;\nshr.u32 %wcq22, %wcq3, 5;\n\
         ld.param.u32 %wcq0, [__wc_sh_size];\nmov.u32 %wcq4, 0;\n\
         mad.lo.u32 %wcq21, %wcq2, %wcq1, %wcq22;\nmul.wide.u32 %wcs9, %wcq21, %wcq0;\n\
         shl.b64 %wcs10, %wcs9, 2;\n\
         ld.param.u64 %wcs0, [__wc_sh_copy];\nadd.s64 %wcs0, %wcs0, %wcs9;\n\
         ld.param.u64 %wcs1, [__wc_sh_rmap];\nadd.s64 %wcs1, %wcs1, %wcs10;\n\
         ld.param.u64 %wcs2, [__wc_sh_wmap];\nadd.s64 %wcs2, %wcs2, %wcs10;\n",
    );
    t.push_str(&block_bases());
    for (k, v) in plan.vars.iter().enumerate() {
        let d = DELTA + k;
        let _ = write!(
            t,
            "mov.u32 %wcq21, {};\ncvt.u64.u32 %wcs9, %wcq21;\nsub.s64 %wcs{d}, %wcs0, %wcs9;\nadd.s64 %wcs{d}, %wcs{d}, {};\n",
            v.ptx_name, v.offset
        );
    }
    t
}

/// The block's bases from `%wcq2` (block), `%wcq1` (warps) and `%wcq0` (size).
fn block_bases() -> String {
    "mul.lo.u32 %wcq21, %wcq2, %wcq1;\nmul.wide.u32 %wcs9, %wcq21, %wcq0;\n\
     shl.b64 %wcs10, %wcs9, 2;\n\
     ld.param.u64 %wcs3, [__wc_sh_copy];\nadd.s64 %wcs3, %wcs3, %wcs9;\n\
     ld.param.u64 %wcs5, [__wc_sh_rmap];\nadd.s64 %wcs5, %wcs5, %wcs10;\n\
     ld.param.u64 %wcs6, [__wc_sh_wmap];\nadd.s64 %wcs6, %wcs6, %wcs10;\n\
     mul.wide.u32 %wcs9, %wcq2, %wcq0;\n\
     ld.param.u64 %wcs4, [__wc_sh_stale];\nadd.s64 %wcs4, %wcs4, %wcs9;\n\
     mul.wide.u32 %wcs9, %wcq2, 8;\n\
     ld.param.u64 %wcs7, [__wc_sh_ctr];\nadd.s64 %wcs7, %wcs7, %wcs9;\n\
     ld.param.u64 %wcs8, [__wc_sh_res];\n"
        .to_string()
}

/// The instructions before a redirected access of site `site` whose address operand is
/// `[base+offset]`: the copy's address into `%wcs9` and the site marked in the map.
pub fn access(plan: &SharedPlan, site: usize, base: &str, offset: i64) -> String {
    let st = &plan.sites[site];
    let mut t = String::new();
    match st.base {
        Base::Reg32 => {
            let _ = writeln!(t, "cvt.u64.u32 %wcs9, {base};");
        }
        Base::Reg64 => {
            let _ = writeln!(t, "mov.b64 %wcs9, {base};");
        }
        Base::Symbol => {
            let _ = writeln!(t, "mov.u32 %wcq28, {base};\ncvt.u64.u32 %wcs9, %wcq28;");
        }
    }
    let map = if st.store { 2 } else { 1 };
    let _ = write!(
        t,
        "add.s64 %wcs9, %wcs9, %wcs{};\nsub.s64 %wcs10, %wcs9, %wcs0;\nshl.b64 %wcs10, %wcs10, 2;\n\
         add.s64 %wcs10, %wcs10, %wcs{map};\nmov.u32 %wcq29, {};\n",
        DELTA + st.var,
        site + 1
    );
    let at = 4 * offset;
    match st.bytes {
        1 => {
            let _ = writeln!(t, "st.global.u32 [%wcs10+{at}], %wcq29;");
        }
        2 => {
            let _ = writeln!(t, "st.global.v2.u32 [%wcs10+{at}], {{%wcq29, %wcq29}};");
        }
        n => {
            for i in 0..(n as i64 + 3) / 4 {
                let _ = writeln!(
                    t,
                    "st.global.v4.u32 [%wcs10+{}], {{%wcq29, %wcq29, %wcq29, %wcq29}};",
                    at + 16 * i
                );
            }
        }
    }
    t
}

/// The code after barrier `k`: switch counters, compare and merge, barrier.
pub fn barrier(k: u32) -> String {
    format!(
        "xor.b32 %wcq4, %wcq4, 1;\nxor.b32 %wcq21, %wcq4, 1;\n\
         mul.wide.u32 %wcs10, %wcq21, 4;\nadd.s64 %wcs10, %wcs10, %wcs7;\nst.global.u32 [%wcs10], 0;\n\
         mul.wide.u32 %wcs12, %wcq4, 4;\nadd.s64 %wcs12, %wcs12, %wcs7;\n{}bar.sync 0;\n",
        claim_loop(k)
    )
}

/// Claims chunks of bytes from the counter at `%wcs12` and checks each byte.
fn claim_loop(k: u32) -> String {
    let l = |name: &str| format!("__wc_sh{k}_{name}");
    format!(
        "{claim}:\natom.global.add.u32 %wcq5, [%wcs12], {CHUNK};\n\
         setp.ge.u32 %wcp0, %wcq5, %wcq0;\n@%wcp0 bra {done};\n\
         add.u32 %wcq6, %wcq5, {CHUNK};\nmin.u32 %wcq6, %wcq6, %wcq0;\nmov.u32 %wcq7, %wcq5;\n\
         {byte}:\n{body}add.u32 %wcq7, %wcq7, 1;\nsetp.lt.u32 %wcp0, %wcq7, %wcq6;\n\
         @%wcp0 bra {byte};\nbra.uni {claim};\n{done}:\n",
        claim = l("claim"),
        done = l("done"),
        byte = l("byte"),
        body = check_byte(k)
    )
}

/// Byte `%wcq7` of the block: writers, write-write and read-write races, merge.
fn check_byte(k: u32) -> String {
    let mut t = format!(
        "cvt.u64.u32 %wcs13, %wcq7;\nadd.s64 %wcs10, %wcs4, %wcs13;\nld.global.u8 %wcq8, [%wcs10];\n\
         mov.u32 %wcq11, 0;\nmov.u32 %wcq12, 0xFFFFFFFF;\nmov.u32 %wcq14, 0xFFFFFFFF;\nmov.u32 %wcq16, %wcq8;\n{}",
        writers(k)
    );
    t.push_str(&write_write(k));
    t.push_str(&readers(k));
    t.push_str("add.s64 %wcs10, %wcs4, %wcs13;\nst.global.u8 [%wcs10], %wcq16;\n");
    t
}

/// `%wcs11 = w * S + b` for warp `%wcq9`.
const INDEX: &str = "mul.wide.u32 %wcs11, %wcq9, %wcq0;\nadd.s64 %wcs11, %wcs11, %wcs13;\n";

/// First loop over the warps: the writers of the byte. `%wcq11` counts them, `%wcq12`/
/// `%wcq13`/`%wcq17` are the first's warp, value and site, `%wcq14`/`%wcq15`/`%wcq18`
/// another's (one with a different value when there is one), `%wcq16` the last value.
fn writers(k: u32) -> String {
    let l = |name: &str| format!("__wc_sh{k}_{name}");
    format!(
        "mov.u32 %wcq9, 0;\n{a}:\n{INDEX}add.s64 %wcs10, %wcs3, %wcs11;\nld.global.u8 %wcq10, [%wcs10];\n\
         setp.eq.u32 %wcp1, %wcq10, %wcq8;\n@%wcp1 bra {next};\n\
         shl.b64 %wcs10, %wcs11, 2;\nadd.s64 %wcs10, %wcs10, %wcs6;\nld.global.u32 %wcq21, [%wcs10];\n\
         setp.eq.u32 %wcp1, %wcq11, 0;\n@%wcp1 bra {first};\n\
         setp.eq.u32 %wcp1, %wcq14, 0xFFFFFFFF;\n@%wcp1 bra {other};\n\
         setp.ne.u32 %wcp1, %wcq15, %wcq13;\n@%wcp1 bra {count};\n\
         setp.eq.u32 %wcp1, %wcq10, %wcq13;\n@%wcp1 bra {count};\n\
         {other}:\nmov.u32 %wcq14, %wcq9;\nmov.u32 %wcq15, %wcq10;\nmov.u32 %wcq18, %wcq21;\nbra.uni {count};\n\
         {first}:\nmov.u32 %wcq12, %wcq9;\nmov.u32 %wcq13, %wcq10;\nmov.u32 %wcq17, %wcq21;\n\
         {count}:\nadd.u32 %wcq11, %wcq11, 1;\nmov.u32 %wcq16, %wcq10;\n\
         {next}:\nadd.u32 %wcq9, %wcq9, 1;\nsetp.lt.u32 %wcp1, %wcq9, %wcq1;\n@%wcp1 bra {a};\n",
        a = l("a"),
        next = l("a_next"),
        first = l("a_first"),
        other = l("a_other"),
        count = l("a_count"),
    )
}

/// A write-write record when the byte has two writers.
fn write_write(k: u32) -> String {
    let l = |name: &str| format!("__wc_sh{k}_{name}");
    format!(
        "setp.eq.u32 %wcp1, %wcq14, 0xFFFFFFFF;\n@%wcp1 bra {skip};\n\
         setp.eq.u32 %wcp1, %wcq15, %wcq13;\nselp.u32 %wcq23, 1, 0, %wcp1;\n{}{skip}:\n",
        record(k, "ww", ["%wcq12", "%wcq17", "%wcq14", "%wcq18"]),
        skip = l("ww_skip"),
    )
}

/// Second loop over the warps: refreshes the copies, clears the maps, and records the
/// first reader that another warp's write races with.
fn readers(k: u32) -> String {
    let l = |name: &str| format!("__wc_sh{k}_{name}");
    format!(
        "mov.u32 %wcq20, 0;\nmov.u32 %wcq9, 0;\n{b}:\n{INDEX}add.s64 %wcs10, %wcs3, %wcs11;\n\
         st.global.u8 [%wcs10], %wcq16;\nshl.b64 %wcs10, %wcs11, 2;\nadd.s64 %wcs10, %wcs10, %wcs6;\n\
         st.global.u32 [%wcs10], 0;\nshl.b64 %wcs10, %wcs11, 2;\nadd.s64 %wcs10, %wcs10, %wcs5;\n\
         ld.global.u32 %wcq19, [%wcs10];\nst.global.u32 [%wcs10], 0;\n\
         setp.eq.u32 %wcp1, %wcq19, 0;\n@%wcp1 bra {next};\n\
         setp.ne.u32 %wcp1, %wcq20, 0;\n@%wcp1 bra {next};\n\
         setp.ne.u32 %wcp1, %wcq12, %wcq9;\nselp.u32 %wcq21, %wcq12, %wcq14, %wcp1;\n\
         selp.u32 %wcq22, %wcq17, %wcq18, %wcp1;\n\
         setp.eq.u32 %wcp1, %wcq21, 0xFFFFFFFF;\n@%wcp1 bra {next};\nmov.u32 %wcq23, 2;\n{}mov.u32 %wcq20, 1;\n\
         {next}:\nadd.u32 %wcq9, %wcq9, 1;\nsetp.lt.u32 %wcp1, %wcq9, %wcq1;\n@%wcp1 bra {b};\n",
        record(k, "rw", ["%wcq21", "%wcq22", "%wcq9", "%wcq19"]),
        b = l("b"),
        next = l("b_next"),
    )
}

/// Records a race of kind `%wcq23` at byte `%wcq7` between warps and sites `[first
/// warp, its site + 1, second warp, its site + 1]`, once per kind and pair of sites.
fn record(k: u32, tag: &str, who: [&str; 4]) -> String {
    let skip = format!("__wc_sh{k}_{tag}_recorded");
    let [w1, s1, w2, s2] = who;
    format!(
        "shl.b32 %wcq25, %wcq23, 30;\nand.b32 %wcq26, {s1}, 32767;\nshl.b32 %wcq26, %wcq26, 15;\n\
         or.b32 %wcq25, %wcq25, %wcq26;\nand.b32 %wcq26, {s2}, 32767;\nor.b32 %wcq25, %wcq25, %wcq26;\n\
         add.u32 %wcq25, %wcq25, 1;\natom.global.add.u32 %wcq26, [%wcs8+4], 1;\n\
         mul.lo.u32 %wcq26, %wcq25, 0x9E3779B1;\nshr.u32 %wcq26, %wcq26, {shift};\n\
         mul.wide.u32 %wcs10, %wcq26, 4;\nadd.s64 %wcs10, %wcs10, %wcs8;\n\
         atom.global.cas.b32 %wcq26, [%wcs10+{TABLE_AT}], 0, %wcq25;\n\
         setp.eq.u32 %wcp2, %wcq26, %wcq25;\n@%wcp2 bra {skip};\n\
         atom.global.add.u32 %wcq27, [%wcs8], 1;\nsetp.ge.u32 %wcp2, %wcq27, {MAX_RECORDS};\n@%wcp2 bra {skip};\n\
         mul.wide.u32 %wcs10, %wcq27, {RECORD};\nadd.s64 %wcs10, %wcs10, %wcs8;\nmov.u32 %wcq26, {k};\n\
         st.global.v4.u32 [%wcs10+{RECORDS_AT}], {{%wcq23, %wcq2, %wcq26, %wcq7}};\n\
         st.global.v4.u32 [%wcs10+{}], {{{w1}, {s1}, {w2}, {s2}}};\n{skip}:\n",
        RECORDS_AT + 16,
        shift = 32 - TABLE.trailing_zeros(),
    )
}

/// The kernel [`FINAL`]: one block per block of the launch compares the copies as
/// they were when the kernel ended (the last region of every warp).
pub fn final_kernel(plan: &SharedPlan) -> String {
    let params: Vec<String> = param_decls()
        .into_iter()
        .chain([".param .u32 __wc_sh_warps".to_string()])
        .collect();
    format!(
        ".visible .entry {FINAL}({})\n{{\n{}mov.u32 %wcq2, %ctaid.x;\n\
         ld.param.u32 %wcq0, [__wc_sh_size];\nld.param.u32 %wcq1, [__wc_sh_warps];\n{}\
         mov.b64 %wcs12, %wcs7;\n{}ret;\n}}\n",
        params.join(",\n"),
        declarations(plan),
        block_bases(),
        claim_loop(0)
    )
}
