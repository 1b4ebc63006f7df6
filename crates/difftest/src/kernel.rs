//! One random kernel: its launch shape and its body as tagged source lines.
//!
//! The body has two sections. Section A runs with every thread of the block present: it
//! mixes assignments, if/else on thread index and data, bounded loops, global loads,
//! global atomics, warp collectives (full-mask at the top level or under a warp-uniform
//! condition, partial masks under lane conditions that select exactly the mask's lanes)
//! and shared-memory phases separated by `__syncthreads()`. It ends with the store of
//! output slot 0. Section B may return early, so it has no barriers and no collectives; it
//! stores further output slots under conditions and ends with the final slots.
//!
//! Race freedom by construction: in a shared phase every thread writes only `sh[tid]`,
//! reads happen only after a barrier, and the next phase's writes only after another;
//! the shared atomic bins are set by one thread each before a barrier and read after one;
//! global outputs are per-thread slots (`out_u[gid * U_SLOTS + k]`); `acc` is touched only
//! by atomics whose final value does not depend on their order (one of add, min, max,
//! and, or, xor on unsigned integers per region of bins, results unused). Every shared
//! read also feeds `live`, which the output summaries use, so no read (and no planted
//! race) is dead code that the compiler could delete. Every read is of written memory: inputs are
//! copied in, every shared slot read is written in the same phase, bins are set first.

mod sync;

use crate::expr::{ExprGen, F_VARS, U_VARS};
use crate::rng::Rng;

/// Unsigned output slots per thread: 0 is section A's summary, 1..=3 conditional stores
/// of section B, 4 the final summary, 5 is written only by planted reads.
pub const U_SLOTS: u32 = 6;
/// Float output slots per thread: 0 after section A, 1 conditional, 2 final.
pub const F_SLOTS: u32 = 3;
/// Bins of the `acc` buffer per global atomic statement; a kernel has at most
/// `ATOMIC_REGIONS` such statements, each with its own bins.
pub const ACC_BINS: u32 = 32;
pub const ATOMIC_REGIONS: u32 = 4;
/// Elements of each input buffer.
pub const INPUT_LEN: u32 = 4096;
/// Shared atomic bins (at most the smallest block, so one thread sets each).
pub const SHARED_BINS: u32 = 32;

/// What a line is, for the race planter.
#[derive(Clone, Debug, PartialEq)]
pub enum Tag {
    Plain,
    /// `sh[tid] = EXPR;` of shared phase `phase`; the expression is kept to rebuild the line.
    SharedStore {
        phase: u32,
        expr: String,
    },
    /// The read of a shared phase; `shift` is `Some(c)` when it reads `sh[(tid + c) % B]`.
    SharedRead {
        phase: u32,
        shift: Option<u32>,
    },
    /// The barrier that ends a shared phase's reads (before the next phase's writes).
    PhaseEndBarrier {
        phase: u32,
    },
    /// The store of output slot 0, executed by every thread once.
    Slot0Store,
    /// A top-level global atomic on region `region`, indexed `(gid * m + d) & 31` when
    /// `offset` is `Some(d)` (so thread 0 touches bin `d`).
    Atomic {
        region: u32,
        offset: Option<u32>,
    },
}

#[derive(Clone, Debug)]
pub struct Line {
    pub text: String,
    pub tag: Tag,
}

/// A generated kernel: name, launch shape and body lines (signature and braces included).
#[derive(Clone, Debug)]
pub struct Kernel {
    pub id: u32,
    pub name: String,
    pub grid: u32,
    pub block: u32,
    pub lines: Vec<Line>,
}

impl Kernel {
    pub fn threads(&self) -> u32 {
        self.grid * self.block
    }
}

/// Statement generator state for one kernel.
struct Body<'a> {
    g: ExprGen<'a>,
    block: u32,
    lines: Vec<Line>,
    indent: usize,
    phases: u32,
    /// The operation of each `acc` region used so far.
    atomic_ops: Vec<&'static str>,
    loops: u32,
}

/// Generates kernel `id` of the program made from `seed`.
pub fn generate(seed: u64, id: u32) -> Kernel {
    let mut rng = Rng::fork(seed, u64::from(id) + 1);
    let grid = rng.range(1, 8);
    let block = 32 * rng.range(1, 8);
    let name = format!("k{id}");
    let mut body = Body {
        g: ExprGen {
            rng: &mut rng,
            loop_vars: Vec::new(),
        },
        block,
        lines: Vec::new(),
        indent: 1,
        phases: 0,
        atomic_ops: Vec::new(),
        loops: 0,
    };
    body.prologue(&name);
    body.section_a();
    body.section_b();
    body.raw("}");
    Kernel {
        id,
        name,
        grid,
        block,
        lines: body.lines,
    }
}

impl Body<'_> {
    fn push(&mut self, text: String, tag: Tag) {
        let pad = "  ".repeat(self.indent);
        self.lines.push(Line {
            text: format!("{pad}{text}"),
            tag,
        });
    }

    fn line(&mut self, text: String) {
        self.push(text, Tag::Plain);
    }

    fn raw(&mut self, text: &str) {
        self.lines.push(Line {
            text: text.to_string(),
            tag: Tag::Plain,
        });
    }

    fn prologue(&mut self, name: &str) {
        self.raw(&format!(
            "extern \"C\" __global__ void {name}(const unsigned *in_u, const float *in_f, unsigned *out_u, float *out_f, unsigned *acc) {{"
        ));
        self.line(format!("__shared__ unsigned sh[{}];", self.block));
        self.line(format!("__shared__ unsigned bins[{SHARED_BINS}];"));
        self.line("const unsigned tid = threadIdx.x, lane = tid & 31u, warp = tid >> 5;".into());
        self.line("const unsigned gid = blockIdx.x * blockDim.x + tid;".into());
        for v in 0..U_VARS {
            let init = match v {
                0 => "in_u[gid]".to_string(),
                1 => "gid * 2654435761u".to_string(),
                _ => format!(
                    "in_u[(gid * {}u + {}u) % {INPUT_LEN}u]",
                    self.g.rng.below(64) | 1,
                    self.g.rng.below(INPUT_LEN)
                ),
            };
            self.line(format!("unsigned a{v} = {init};"));
        }
        self.line("unsigned live = 0u;".into());
        for v in 0..F_VARS {
            let init = match v {
                0 => "in_f[gid]".to_string(),
                1 => "__uint2float_rn(tid)".to_string(),
                _ => format!(
                    "in_f[(gid * {}u + {}u) % {INPUT_LEN}u]",
                    self.g.rng.below(64) | 1,
                    self.g.rng.below(INPUT_LEN)
                ),
            };
            self.line(format!("float f{v} = {init};"));
        }
    }

    fn section_a(&mut self) {
        let n = self.g.rng.range(6, 14);
        for _ in 0..n {
            match self.g.rng.below(12) {
                0 | 1 => self.shared_phase(),
                2 => self.shared_atomic_phase(),
                3 => self.collective(),
                4 => self.uniform_if_collective(),
                5 => self.global_atomic(true),
                _ => self.simple_stmt(2),
            }
        }
        let sum = self.summary();
        self.push(
            format!("out_u[gid * {U_SLOTS}u] = ({sum}) | 1u;"),
            Tag::Slot0Store,
        );
        let f = self.g.f_var();
        self.line(format!("out_f[gid * {F_SLOTS}u] = {f};"));
    }

    fn section_b(&mut self) {
        let n = self.g.rng.range(3, 8);
        for _ in 0..n {
            match self.g.rng.below(8) {
                0 => {
                    let c = self.g.cond(2);
                    self.line(format!("if ({c}) return;"));
                }
                1 | 2 => self.conditional_store(),
                3 => self.global_atomic(false),
                _ => self.simple_stmt(2),
            }
        }
        let sum = self.summary();
        self.line(format!("out_u[gid * {U_SLOTS}u + 4u] = {sum};"));
        let f = self.g.f_expr(1);
        self.line(format!("out_f[gid * {F_SLOTS}u + 2u] = {f};"));
    }

    /// An expression that depends on every unsigned and float variable.
    fn summary(&mut self) -> String {
        let mut parts: Vec<String> = (0..U_VARS)
            .map(|v| format!("(a{v} * {}u)", 2 * v + 1))
            .collect();
        parts.extend((0..F_VARS).map(|v| format!("__float_as_uint(f{v})")));
        parts.push("live".into());
        parts.join(" ^ ")
    }

    fn conditional_store(&mut self) {
        let c = self.g.cond(2);
        if self.g.rng.chance(60) {
            let slot = self.g.rng.range(1, 3);
            let e = self.g.u_expr(2);
            self.line(format!("if ({c}) out_u[gid * {U_SLOTS}u + {slot}u] = {e};"));
        } else {
            let e = self.g.f_expr(2);
            self.line(format!("if ({c}) out_f[gid * {F_SLOTS}u + 1u] = {e};"));
        }
    }

    /// An assignment, a global load, an if/else or a bounded loop (nesting `depth`).
    fn simple_stmt(&mut self, depth: u32) {
        let k = self.g.rng.below(if depth == 0 { 5 } else { 8 });
        match k {
            0 | 1 => {
                let (v, e) = (self.g.u_var(), self.g.u_expr(3));
                let op = *self.g.rng.pick(&["=", "+=", "^=", "="]);
                self.line(format!("{v} {op} {e};"));
            }
            2 | 3 => {
                let (v, e) = (self.g.f_var(), self.g.f_expr(3));
                self.line(format!("{v} = {e};"));
            }
            4 => self.global_load(),
            5 | 6 => self.if_else(depth),
            _ => self.bounded_loop(depth),
        }
    }

    fn global_load(&mut self) {
        let idx = self.g.u_expr(2);
        if self.g.rng.chance(50) {
            let v = self.g.u_var();
            self.line(format!("{v} ^= in_u[({idx}) % {INPUT_LEN}u];"));
        } else {
            let v = self.g.f_var();
            self.line(format!(
                "{v} = __fadd_rn({v}, in_f[({idx}) % {INPUT_LEN}u]);"
            ));
        }
    }

    fn if_else(&mut self, depth: u32) {
        let c = self.g.cond(2);
        self.line(format!("if ({c}) {{"));
        self.nested(depth);
        if self.g.rng.chance(50) {
            self.line("} else {".into());
            self.nested(depth);
        }
        self.line("}".into());
    }

    fn bounded_loop(&mut self, depth: u32) {
        let var = format!("i{}", self.loops);
        self.loops += 1;
        let bound = if self.g.rng.chance(50) {
            format!("{}u", self.g.rng.range(1, 6))
        } else {
            format!("({} & 7u)", self.g.u_expr(1))
        };
        self.line(format!(
            "for (unsigned {var} = 0; {var} < {bound}; ++{var}) {{"
        ));
        self.g.loop_vars.push(var);
        self.nested(depth);
        self.g.loop_vars.pop();
        self.line("}".into());
    }

    fn nested(&mut self, depth: u32) {
        self.indent += 1;
        for _ in 0..self.g.rng.range(1, 3) {
            if self.g.rng.chance(15) {
                self.global_atomic(false);
            } else {
                self.simple_stmt(depth - 1);
            }
        }
        self.indent -= 1;
    }
}
