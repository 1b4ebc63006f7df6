//! Executing the warp-level matrix instructions for a warp: `mma` over the fragment
//! registers (arithmetic in [`crate::exec::matrix`]), `ldmatrix`/`stmatrix` between
//! fragments and 16-byte rows of shared memory (PTX ISA §9.7.13.4.15–16), and the
//! `wmma` instructions ([`crate::exec::wmma`]).
//!
//! `ldmatrix.xN` reads matrix `j` (of `N`) row by row from the addresses given by lanes
//! `8j … 8j+7`; lane `l` receives, in register `j`, the two elements of row `l / 4` at
//! columns `2 (l % 4)` and `2 (l % 4) + 1` (with `.trans`, column `l / 4` of rows
//! `2 (l % 4)` and `2 (l % 4) + 1`). `stmatrix` is the inverse. For the checkers each
//! row is one 16-byte shared access of the lane that gave its address.

use crate::block::{Block, emit_mem};
use crate::exec::Lanes;
use crate::exec::matrix::{gather, multiply, scatter};
use crate::exec::mem::{MemCtx, addresses};
use crate::fault::Fault;
use crate::observer::{MemKind, Observer};
use crate::ops::{MatrixKind, MatrixOp};
use warpcheck_ir::modifiers::MemSpace;

impl<O: Observer> Block<'_, O> {
    /// Executes matrix op `op` for lanes `m` of warp `w` (group `gi`).
    pub(crate) fn matrix(
        &mut self,
        w: usize,
        gi: usize,
        m: u32,
        op: &MatrixOp,
    ) -> Result<(), Fault> {
        match op.kind {
            MatrixKind::Mma { .. } => self.mma(w, m, op),
            MatrixKind::Ldmatrix { count, trans } => self.ldmatrix(w, gi, m, op, count, trans)?,
            MatrixKind::Stmatrix { count, trans } => self.stmatrix(w, gi, m, op, count, trans)?,
            MatrixKind::Wmma {
                load,
                frag,
                space,
                col,
            } => self.wmma_access(w, gi, m, op, load, (frag, space, col))?,
            MatrixKind::WmmaMma { .. } => self.wmma_mma(w, m, op),
        }
        self.warps[w].groups[gi].pc += 1;
        Ok(())
    }

    fn mma(&mut self, w: usize, mask: u32, op: &MatrixOp) {
        let MatrixKind::Mma {
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
        let (mu, nu, ku) = (m as usize, n as usize, k as usize);
        let regs = &self.warps[w].regs;
        let refs = |s: &[u32]| {
            s.iter()
                .map(|&r| &regs[r as usize])
                .collect::<Vec<&Lanes>>()
        };
        let (mut am, mut bm, mut cm) = (
            vec![0u64; mu * ku],
            vec![0u64; ku * nu],
            vec![0u64; mu * nu],
        );
        gather(&refs(&op.a), (0, m, k, a), a, ku, &mut am);
        gather(&refs(&op.b), (1, m, k, a), b, nu, &mut bm);
        gather(&refs(&op.c), (2, m, k, a), c, nu, &mut cm);
        let dm = multiply(&am, &bm, &cm, (mu, nu, ku), (a, b, d), satfinite);
        let mut out: Vec<Lanes> = op.d.iter().map(|&r| regs[r as usize]).collect();
        scatter(&dm, (2, m, k, a), d, nu, &mut out, mask);
        for (&r, v) in op.d.iter().zip(out) {
            self.warps[w].regs[r as usize] = v;
        }
    }

    /// The row addresses (lanes `0 .. 8 * count`) and the mask of those lanes.
    fn row_addresses(&self, w: usize, gi: usize, op: &MatrixOp, count: u8) -> (Lanes, u32) {
        let g = self.warps[w].groups[gi];
        let addr = op.addr.expect("ldmatrix/stmatrix have an address");
        let rows = (8 * count as u32).min(32);
        let lanes = if rows == 32 {
            u32::MAX
        } else {
            (1 << rows) - 1
        };
        (addresses(addr, &self.warps[w].regs, g.frame_base), lanes)
    }

    fn ldmatrix(
        &mut self,
        w: usize,
        gi: usize,
        m: u32,
        op: &MatrixOp,
        count: u8,
        trans: bool,
    ) -> Result<(), Fault> {
        let (addrs, rows) = self.row_addresses(w, gi, op, count);
        let pc = self.warps[w].groups[gi].pc;
        let flat = self.cx.flat;
        let warp = &mut self.warps[w];
        let mut mc = MemCtx::new(
            flat,
            self.cx.global,
            &mut self.shared[..],
            &mut warp.local,
            &mut warp.op_cache[pc as usize],
        );
        let mut tile = [[0u16; 8]; 32];
        for r in 0..(8 * count as usize) {
            match mc.read_row(addrs[r], r as u32) {
                Ok(row) => tile[r] = row,
                Err(k) => return Err(self.fault_at(w, r as u32, pc, k)),
            }
        }
        self.emit_rows(pc, w, MemKind::Load, &addrs, rows);
        for (j, &d) in op.d.iter().enumerate() {
            let reg = &mut self.warps[w].regs[d as usize];
            for l in 0..32 {
                if m >> l & 1 == 0 {
                    continue;
                }
                let (r, c) = (l / 4, 2 * (l % 4));
                let t = &tile[8 * j..8 * j + 8];
                let (lo, hi) = if trans {
                    (t[c][r], t[c + 1][r])
                } else {
                    (t[r][c], t[r][c + 1])
                };
                reg[l] = lo as u64 | (hi as u64) << 16;
            }
        }
        Ok(())
    }

    fn stmatrix(
        &mut self,
        w: usize,
        gi: usize,
        m: u32,
        op: &MatrixOp,
        count: u8,
        trans: bool,
    ) -> Result<(), Fault> {
        let (addrs, rows) = self.row_addresses(w, gi, op, count);
        let pc = self.warps[w].groups[gi].pc;
        let mut tile = [[0u16; 8]; 32];
        for (j, &s) in op.a.iter().enumerate() {
            let reg = &self.warps[w].regs[s as usize];
            for l in 0..32 {
                if m >> l & 1 == 0 {
                    continue;
                }
                let (r, c) = (l / 4, 2 * (l % 4));
                let (lo, hi) = (reg[l] as u16, (reg[l] >> 16) as u16);
                let t = &mut tile[8 * j..8 * j + 8];
                if trans {
                    t[c][r] = lo;
                    t[c + 1][r] = hi;
                } else {
                    t[r][c] = lo;
                    t[r][c + 1] = hi;
                }
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
        for (r, row) in tile.iter().enumerate().take(8 * count as usize) {
            if let Err(k) = mc.write_row(addrs[r], r as u32, *row) {
                return Err(self.fault_at(w, r as u32, pc, k));
            }
        }
        self.emit_rows(pc, w, MemKind::Store, &addrs, rows);
        Ok(())
    }
}

impl<O: Observer> Block<'_, O> {
    /// Tells the observers about the 16-byte shared-memory rows of `ldmatrix`/`stmatrix`
    /// at `pc` that the lanes of `rows` address.
    fn emit_rows(&mut self, pc: u32, w: usize, kind: MemKind, addrs: &Lanes, rows: u32) {
        if O::ENABLED {
            let (flat, idx) = (self.cx.flat, self.idx);
            let (kind, space) = ((kind, false), MemSpace::Shared);
            emit_mem(
                &mut *self.obs,
                flat,
                pc,
                idx,
                w,
                kind,
                space,
                (addrs, None),
                rows,
                16,
            );
        }
    }
}
