//! The statements of section A that involve other threads: shared-memory phases, shared
//! atomic bins, global atomics and warp collectives.

use super::{ACC_BINS, ATOMIC_REGIONS, Body, SHARED_BINS, Tag};

const FULL: &str = "0xffffffffu";

impl Body<'_> {
    /// `sh[tid] = E; barrier; read sh[I]; barrier`: every thread writes its own slot, every
    /// slot is written before the reads, and the next phase writes after the last barrier.
    pub(super) fn shared_phase(&mut self) {
        let phase = self.phases;
        self.phases += 1;
        let expr = if self.g.rng.chance(30) {
            format!("__float_as_uint({})", self.g.f_expr(2))
        } else {
            self.g.u_expr(3)
        };
        self.push(
            format!("sh[tid] = {expr};"),
            Tag::SharedStore { phase, expr },
        );
        self.line("__syncthreads();".into());
        let b = self.block;
        let (index, shift) = match self.g.rng.below(4) {
            0 | 1 => {
                let c = self.g.rng.range(1, b - 1);
                (format!("(tid + {c}u) % {b}u"), Some(c))
            }
            2 => (
                format!("(tid ^ {}u) % {b}u", self.g.rng.range(1, 255)),
                None,
            ),
            _ => (format!("({}) % {b}u", self.g.u_expr(2)), None),
        };
        // The value also goes into `live`, which the output summaries use, so that no
        // later assignment makes the read dead (and deleted at -O3 with the shared stores).
        let read = if self.g.rng.chance(30) {
            let f = self.g.f_var();
            format!(
                "{{ const unsigned s = sh[{index}]; live += s; {f} = __fadd_rn({f}, __uint_as_float(s)); }}"
            )
        } else {
            let op = *self.g.rng.pick(&["=", "^=", "+="]);
            format!(
                "{{ const unsigned s = sh[{index}]; live ^= s; {} {op} s; }}",
                self.g.u_var()
            )
        };
        self.push(read, Tag::SharedRead { phase, shift });
        self.push("__syncthreads();".into(), Tag::PhaseEndBarrier { phase });
    }

    /// Shared bins set by one thread each, updated by order-independent atomics, read after
    /// a barrier.
    pub(super) fn shared_atomic_phase(&mut self) {
        let init = self.g.u_expr(1);
        self.line(format!("if (tid < {SHARED_BINS}u) bins[tid] = {init};"));
        self.line("__syncthreads();".into());
        let op = *self.g.rng.pick(&[
            "atomicAdd",
            "atomicMax",
            "atomicMin",
            "atomicOr",
            "atomicXor",
            "atomicAnd",
        ]);
        let (idx, val) = (self.g.u_expr(2), self.g.u_expr(2));
        let update = format!("{op}(&bins[({idx}) % {SHARED_BINS}u], {val});");
        if self.g.rng.chance(40) {
            let c = self.g.cond(1);
            self.line(format!("if ({c}) {update}"));
        } else {
            self.line(update);
        }
        self.line("__syncthreads();".into());
        let (v, i) = (self.g.u_var(), self.g.u_expr(1));
        self.line(format!("{v} += bins[({i}) % {SHARED_BINS}u];"));
        self.line("__syncthreads();".into());
    }

    /// An order-independent atomic on `acc` whose result is unused. At the top level of
    /// section A it may use an affine index, so that thread 0's bin is known.
    pub(super) fn global_atomic(&mut self, top_level: bool) {
        // A region keeps the operation of its first statement: different operations on one
        // bin (a max and an add) would make its final value depend on their order.
        let (region, fresh) = if (self.atomic_ops.len() as u32) < ATOMIC_REGIONS {
            let op = *self.g.rng.pick(&[
                "atomicAdd",
                "atomicMax",
                "atomicMin",
                "atomicOr",
                "atomicXor",
                "atomicAnd",
            ]);
            self.atomic_ops.push(op);
            (self.atomic_ops.len() as u32 - 1, true)
        } else {
            (self.g.rng.below(ATOMIC_REGIONS), false)
        };
        let op = self.atomic_ops[region as usize];
        let val = self.g.u_expr(2);
        let base = region * ACC_BINS;
        if top_level && fresh && self.g.rng.chance(70) {
            let (m, d) = (self.g.rng.below(16) * 2 + 1, self.g.rng.below(ACC_BINS));
            let text = format!(
                "{op}(&acc[{base}u + ((gid * {m}u + {d}u) & {}u)], {val});",
                ACC_BINS - 1
            );
            self.push(
                text,
                Tag::Atomic {
                    region,
                    offset: Some(d),
                },
            );
        } else {
            let idx = self.g.u_expr(2);
            let text = format!(
                "{op}(&acc[{base}u + (({idx}) & {}u)], {val});",
                ACC_BINS - 1
            );
            self.push(
                text,
                Tag::Atomic {
                    region,
                    offset: None,
                },
            );
        }
    }

    /// A warp collective with every lane of the warp taking part (top level of section A).
    pub(super) fn collective(&mut self) {
        let text = self.full_warp_collective();
        self.line(text);
    }

    fn full_warp_collective(&mut self) -> String {
        let g = &mut self.g;
        let v = g.u_var();
        match g.rng.below(9) {
            0 => {
                let width = *g.rng.pick(&[32u32, 16, 8, 4]);
                let (e, src) = (g.u_expr(2), g.u_expr(1));
                format!("{v} = __shfl_sync({FULL}, {e}, {src}, {width});")
            }
            1 => {
                let (f, e, c) = (g.f_var(), g.f_expr(1), g.rng.range(1, 31));
                format!("{f} = __shfl_xor_sync({FULL}, {e}, {c}u);")
            }
            2 => {
                let dir = *g.rng.pick(&["down", "up"]);
                let (e, c, w) = (
                    g.u_expr(2),
                    g.rng.range(0, 33),
                    *g.rng.pick(&[32u32, 16, 8]),
                );
                format!("{v} += __shfl_{dir}_sync({FULL}, {e}, {c}u, {w});")
            }
            3 => format!("{v} ^= __ballot_sync({FULL}, {});", g.cond(2)),
            4 => {
                let f = *g.rng.pick(&["__any_sync", "__all_sync"]);
                let (c, k) = (g.cond(2), g.u_const());
                format!("{v} += {f}({FULL}, {c}) ? {k} : 7u;")
            }
            5 => {
                let f = *g.rng.pick(&[
                    "__reduce_add_sync",
                    "__reduce_min_sync",
                    "__reduce_max_sync",
                    "__reduce_and_sync",
                    "__reduce_or_sync",
                    "__reduce_xor_sync",
                ]);
                format!("{v} ^= {f}({FULL}, {});", g.u_expr(2))
            }
            6 => format!(
                "{v} += (unsigned)__popc(__ballot_sync({FULL}, {}));",
                g.cond(2)
            ),
            7 => format!("{v} ^= __match_any_sync({FULL}, {} & 3u);", g.u_expr(1)),
            _ => {
                let (e, c) = (g.u_expr(2), g.rng.range(1, 31));
                format!("{v} -= __shfl_xor_sync({FULL}, {e}, {c}u);")
            }
        }
    }

    /// Collectives under a condition: warp-uniform (any full-mask collective) or a lane
    /// condition with the matching partial mask.
    pub(super) fn uniform_if_collective(&mut self) {
        let g = &mut self.g;
        let (cond, mask, lane_bits) = match g.rng.below(6) {
            0 => ("(warp & 1u) == 0u".to_string(), None, 0),
            1 => (format!("warp < {}u", g.rng.range(1, 4)), None, 0),
            2 => ("(blockIdx.x & 1u) != 0u".to_string(), None, 0),
            3 => (
                format!("(__shfl_sync({FULL}, {}, 0) & 1u) != 0u", g.u_var()),
                None,
                0,
            ),
            4 => ("lane < 16u".to_string(), Some("0x0000ffffu"), 15),
            _ => ("(lane & 1u) == 0u".to_string(), Some("0x55555555u"), 30),
        };
        self.line(format!("if ({cond}) {{"));
        self.indent += 1;
        for _ in 0..self.g.rng.range(1, 2) {
            let text = match mask {
                None => self.full_warp_collective(),
                Some(mask) => self.partial_collective(mask, lane_bits),
            };
            self.line(text);
            if self.g.rng.chance(40) {
                self.simple_stmt(0);
            }
        }
        self.indent -= 1;
        self.line("}".into());
    }

    /// A collective over the lanes of `mask`, the exact set of lanes running it; shuffle
    /// sources are masked with `lane_bits` so they stay inside it.
    fn partial_collective(&mut self, mask: &str, lane_bits: u32) -> String {
        let g = &mut self.g;
        let v = g.u_var();
        match g.rng.below(4) {
            0 => format!(
                "{v} = __shfl_sync({mask}, {}, ({}) & {lane_bits}u);",
                g.u_expr(2),
                g.u_expr(1)
            ),
            1 => format!("{v} ^= __ballot_sync({mask}, {});", g.cond(2)),
            2 => format!("{v} += __reduce_add_sync({mask}, {});", g.u_expr(2)),
            _ => format!(
                "{v} += __any_sync({mask}, {}) ? 3u : {};",
                g.cond(2),
                g.u_const()
            ),
        }
    }
}
