//! The `nvcuda::wmma` instructions (PTX ISA §9.7.13.3): `wmma.load.{a,b,c}`,
//! `wmma.store.d` and `wmma.mma`.
//!
//! **Fragments.** PTX leaves the lane and register of each fragment element to the
//! implementation. What an H100 does was dumped by `tools/gpu/tensor_cores.cu`
//! (`wmma.load` rows of `tests/gpu-truth/tensor-cores.tsv`): a `wmma` fragment is the
//! `mma` fragments of the `m16n8` tiles that make up the `wmma` shape, side by side
//! ([`crate::exec::matrix::position`] gives the element of each):
//! * `m16n16k16` (and `m16n16k8` for tf32): A is one `m16n8kK` A fragment; B and C/D
//!   are two `m16n8kK` fragments, columns 0–7 then 8–15.
//! * `m32n8k16`: A and C/D are two `m16n8k16` fragments, rows 0–15 then 16–31; B is one.
//! * `m8n32k16` is `m32n8k16` transposed: its A is the transposed B of `m32n8k16`, its B
//!   the transposed A, its C/D the transposed C/D.
//! * `m8n8k4` (f64) is the `mma.m8n8k4` fragment itself.
//!
//! The fragment does not depend on the memory layout (`.row` or `.col` load the same
//! element into the same register; the dump has both for f16 A and B and f32 C). f16 A
//! and B fragments always have 8 registers: where the distinct elements fill fewer (A
//! of `m16n16k16` and `m8n32k16`, B of `m16n16k16` and `m32n8k16`), the first registers
//! repeat (register `r` holds what register `r mod distinct` holds). `wmma.mma` reads
//! the first copy.
//!
//! **Arithmetic.** `wmma.mma` computes every element of `D` as `mma` does for the same
//! element types (module docs of [`crate::exec::matrix`]): one fused sum of the `k`
//! products and `C` for f16, bf16 and 8-bit integers (`k = 16`), `k` chained fused
//! multiply-adds for f64. tf32 `m16n16k8` is two steps of `k = 4`, as two
//! `mma.m16n8k4` would be: `D = A[:, 4..8] B[4..8, :] + (A[:, 0..4] B[0..4, :] + C)`,
//! each step rounded to f32 (one fused sum of all 8 products differs from the H100 in
//! the last bits). The `wmma` rows of the truth file check all of this bit for bit.
//!
//! **Memory.** A lane's part of `wmma.load`/`wmma.store` is the elements of its
//! fragment: consecutive fragment elements that are adjacent in memory (along a row of
//! a row-major matrix, a column of a column-major one) are one access of up to 16 bytes
//! (the f32 pairs of a row-major accumulator are 8-byte accesses, the f16 pairs of a
//! row-major A 4-byte ones; a column-major A is read element by element). Each access goes through the ordinary load/store path (bounds, alignment,
//! generic addresses) and is reported to the observers as a warp-wide access of the
//! lanes that ran the instruction.

use crate::block::{Block, emit_mem};
use crate::exec::Lanes;
use crate::exec::matrix::{bits, multiply, position};
use crate::exec::mem::{MemCtx, addresses};
use crate::fault::Fault;
use crate::observer::{MemKind, Observer, Stored};
use crate::ops::{MatElem, MatrixKind, MatrixOp, MemShape, VecSlots, WmmaFrag};
use warpcheck_ir::modifiers::MemSpace;

impl WmmaFrag {
    /// Whether the H100's fragment of this kind is known (dumped); others are refused.
    pub(crate) fn known(self) -> bool {
        use MatElem::*;
        let WmmaFrag { which, m, n, k, e } = self;
        match ((m, n, k), which) {
            ((16, 16, 16), 0 | 1) => matches!(e, F16 | Bf16 | S8 | U8),
            ((32, 8, 16) | (8, 32, 16), 0 | 1) => e == F16,
            ((16, 16, 8), 0 | 1) => e == Tf32,
            ((8, 8, 4), _) => e == F64,
            ((16, 16, 16), _) => matches!(e, F16 | F32 | S32),
            ((32, 8, 16) | (8, 32, 16), _) => matches!(e, F16 | F32),
            ((16, 16, 8), _) => e == F32,
            _ => false,
        }
    }

    /// Rows and columns of the matrix.
    pub(crate) fn dims(self) -> (usize, usize) {
        let (m, n, k) = (self.m as usize, self.n as usize, self.k as usize);
        match self.which {
            0 => (m, k),
            1 => (k, n),
            _ => (m, n),
        }
    }

    /// Elements per register (one 64-bit register per f64 element).
    pub(crate) fn per_reg(self) -> usize {
        (32 / bits(self.e)).max(1)
    }

    /// Registers holding distinct elements.
    pub(crate) fn distinct_regs(self) -> usize {
        let (r, c) = self.dims();
        r * c / 32 / self.per_reg()
    }

    /// Registers of the fragment operand.
    pub(crate) fn regs(self) -> usize {
        if self.which < 2 && self.e == MatElem::F16 {
            8
        } else {
            self.distinct_regs()
        }
    }

    /// The (row, column) of distinct element `i` of lane `lane`'s fragment.
    pub(crate) fn position(self, lane: usize, i: usize) -> (usize, usize) {
        let WmmaFrag { which, m, n, k, e } = self;
        if (m, n) == (8, 32) {
            let t = WmmaFrag {
                which: [1, 0, 2][which as usize],
                m: 32,
                n: 8,
                k,
                e,
            };
            let (r, c) = t.position(lane, i);
            return (c, r);
        }
        let (sm, sk) = if m == 8 { (8, 4) } else { (16, k as usize) };
        let tile = match which {
            0 => sm * sk,
            1 => sk * 8,
            _ => sm * 8,
        } / 32;
        let (t, j) = (i / tile, i % tile);
        let (r, c) = position(which, sm as u8, sk as u8, e, lane, j);
        match (which, m) {
            (1, _) | (2, 16) => (r, c + 8 * t),
            _ => (r + 16 * t, c),
        }
    }
}

impl<O: Observer> Block<'_, O> {
    /// `wmma.load` (`load`) or `wmma.store.d` of fragment `frag` in `space`, laid out in
    /// memory column by column if `col`, for the lanes of `mask`.
    pub(crate) fn wmma_access(
        &mut self,
        w: usize,
        gi: usize,
        mask: u32,
        op: &MatrixOp,
        load: bool,
        (frag, space, col): (WmmaFrag, MemSpace, bool),
    ) -> Result<(), Fault> {
        if mask == 0 {
            return Ok(());
        }
        let g = self.warps[w].groups[gi];
        let pc = g.pc;
        let regs = &self.warps[w].regs;
        let base = addresses(op.addr.expect("wmma has an address"), regs, g.frame_base);
        let (rows, cols) = frag.dims();
        let stride: Lanes = match op.stride {
            Some(s) => regs[s as usize].map(|x| x as u32 as u64),
            None => [if col { rows } else { cols } as u64; 32],
        };
        let (eb, per) = (bits(frag.e), frag.per_reg());
        let esize = eb as u64 / 8;
        let elems = frag.distinct_regs() * per;
        let frag_regs: &[u32] = if load { &op.d } else { &op.a };
        // A lane's accesses: runs of `run` fragment elements that are adjacent in memory
        // (the same for every lane: the fragments place pairs and quads along a row),
        // at most 16 bytes, as the vector loads and stores the hardware uses.
        let next_to = |i: usize| {
            let (p, q) = (frag.position(0, i), frag.position(0, i + 1));
            if col {
                p.1 == q.1 && q.0 == p.0 + 1
            } else {
                p.0 == q.0 && q.1 == p.1 + 1
            }
        };
        let mut run = 1;
        while run * 2 * esize as usize <= 16
            && elems % (run * 2) == 0
            && (0..elems)
                .step_by(run * 2)
                .all(|i| (i..i + run * 2 - 1).all(next_to))
        {
            run *= 2;
        }
        let bytes = run as u64 * esize;
        let (size, n) = if bytes > 8 {
            (8, bytes / 8)
        } else {
            (bytes, 1)
        };
        let shape = MemShape {
            space,
            size: size as u8,
            signed: false,
            dst_bits: 64,
            ordered: false,
        };
        let slots = VecSlots {
            n: n as u8,
            slots: [0, 1, 2, 3],
        };
        let emask = if eb >= 64 { u64::MAX } else { (1u64 << eb) - 1 };
        let mut values: Vec<Lanes> = if load {
            vec![[0; 32]; frag.distinct_regs()]
        } else {
            frag_regs.iter().map(|&r| regs[r as usize]).collect()
        };
        for first in (0..elems).step_by(run) {
            let mut addrs = [0u64; 32];
            let mut scratch = [[0u64; 32]; 2];
            for l in 0..32 {
                let (i, j) = frag.position(l, first);
                let off = if col {
                    j as u64 * stride[l] + i as u64
                } else {
                    i as u64 * stride[l] + j as u64
                };
                addrs[l] = base[l].wrapping_add(off * esize);
                if !load {
                    // The run's elements, lowest address first, as little-endian words.
                    let mut v = 0u128;
                    for e in 0..run {
                        let x = first + e;
                        let el = (values[x / per][l] >> (eb * (x % per))) & emask;
                        v |= (el as u128) << (eb * e);
                    }
                    scratch[0][l] = v as u64;
                    scratch[1][l] = (v >> 64) as u64;
                }
            }
            let flat = self.cx.flat;
            let warp = &mut self.warps[w];
            let mut mc = MemCtx::new(
                flat,
                self.cx.global,
                &mut self.shared[..],
                &mut warp.local,
                &mut warp.op_cache[pc as usize],
            );
            let got = if load {
                mc.load(shape, &slots, &mut addrs, mask, &mut scratch)
            } else {
                mc.store(shape, &slots, &mut addrs, mask, &scratch)
            };
            let resolved = got.map_err(|(l, k)| self.fault_at(w, l, pc, k))?;
            if load {
                for l in 0..32 {
                    let v = scratch[0][l] as u128 | (scratch[1][l] as u128) << 64;
                    for e in 0..run {
                        let x = first + e;
                        let el = (v >> (eb * e)) as u64 & emask;
                        values[x / per][l] |= el << (eb * (x % per));
                    }
                }
            }
            if O::ENABLED {
                let kind = if load { MemKind::Load } else { MemKind::Store };
                let scalar = !load && n == 1 && bytes.is_power_of_two() && bytes <= 8;
                let stored = scalar.then(|| Stored::scalar(&scratch[0], bytes as u8));
                let (flat, idx) = (self.cx.flat, self.idx);
                emit_mem(
                    &mut *self.obs,
                    flat,
                    pc,
                    idx,
                    w,
                    (kind, false),
                    resolved,
                    (&addrs, stored),
                    mask,
                    bytes as u32,
                );
            }
        }
        if load {
            let distinct = values.len();
            for (r, &d) in frag_regs.iter().enumerate() {
                let reg = &mut self.warps[w].regs[d as usize];
                for l in 0..32 {
                    if mask >> l & 1 != 0 {
                        reg[l] = values[r % distinct][l];
                    }
                }
            }
        }
        Ok(())
    }

    /// `wmma.mma`: `D = A * B + C` on the fragments, for the lanes of `mask`.
    pub(crate) fn wmma_mma(&mut self, w: usize, mask: u32, op: &MatrixOp) {
        let MatrixKind::WmmaMma {
            m,
            n,
            k,
            a,
            b,
            c,
            d,
            satfinite,
        } = op.kind
        else {
            return;
        };
        let frag = |which, e| WmmaFrag { which, m, n, k, e };
        let regs = &self.warps[w].regs;
        let gather = |f: WmmaFrag, slots: &[u32]| {
            let (_, cols) = f.dims();
            let mut out = vec![0u64; f.dims().0 * cols];
            let (per, b) = (f.per_reg(), bits(f.e));
            let emask = if b >= 64 { u64::MAX } else { (1u64 << b) - 1 };
            for lane in 0..32 {
                for i in 0..f.distinct_regs() * per {
                    let (r, c) = f.position(lane, i);
                    let word = regs[slots[i / per] as usize][lane];
                    out[r * cols + c] = (word >> (b * (i % per))) & emask;
                }
            }
            out
        };
        let am = gather(frag(0, a), &op.a);
        let bm = gather(frag(1, b), &op.b);
        let cm = gather(frag(2, c), &op.c);
        let (mu, nu, ku) = (m as usize, n as usize, k as usize);
        // tf32 (`m16n16k8`) runs as two `k = 4` steps, the second accumulating into the
        // rounded result of the first (measured: one fused sum of 8 differs by ulps).
        let chunk = if a == MatElem::Tf32 { 4 } else { ku };
        let mut dm = cm;
        for k0 in (0..ku).step_by(chunk) {
            let ap: Vec<u64> = (0..mu)
                .flat_map(|i| am[i * ku + k0..i * ku + k0 + chunk].to_vec())
                .collect();
            let bp = &bm[k0 * nu..(k0 + chunk) * nu];
            dm = multiply(&ap, bp, &dm, (mu, nu, chunk), (a, b, d), satfinite);
        }
        let f = frag(2, d);
        let (per, b) = (f.per_reg(), bits(d));
        for lane in 0..32 {
            if mask >> lane & 1 == 0 {
                continue;
            }
            let mut words = vec![0u64; f.regs()];
            for i in 0..f.distinct_regs() * per {
                let (r, c) = f.position(lane, i);
                words[i / per] |= dm[r * nu + c] << (b * (i % per));
            }
            for (&s, v) in op.d.iter().zip(words) {
                self.warps[w].regs[s as usize][lane] = v;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every element of every known fragment sits in exactly one (lane, element) slot.
    #[test]
    fn fragments_cover_their_matrices_once() {
        use MatElem::*;
        let shapes = [
            (16, 16, 16),
            (32, 8, 16),
            (8, 32, 16),
            (16, 16, 8),
            (8, 8, 4),
        ];
        for (m, n, k) in shapes {
            for which in 0..3 {
                for e in [F16, Bf16, Tf32, F32, F64, S8, U8, S32] {
                    let f = WmmaFrag { which, m, n, k, e };
                    if !f.known() {
                        continue;
                    }
                    let (r, c) = f.dims();
                    let mut seen = vec![0; r * c];
                    for lane in 0..32 {
                        for i in 0..f.distinct_regs() * f.per_reg() {
                            let (i, j) = f.position(lane, i);
                            seen[i * c + j] += 1;
                        }
                    }
                    assert!(seen.iter().all(|&s| s == 1), "{f:?}");
                }
            }
        }
    }
}
