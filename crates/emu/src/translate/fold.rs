//! What ptxas does to two NaN-sensitive patterns that PTX leaves to the code generator.
//!
//! **Sign modifiers folded into their reader.** An H100 has no instruction for f32 `neg`
//! or `abs`: alone, ptxas writes `neg.f32 d, a` as `FADD d, -a, -RZ`, which gives the
//! canonical NaN `0x7fffffff` for a NaN (int_ops `fneg`, `fabsf`), and the emulator does
//! the same. But ptxas folds the sign into the instruction that reads `d` when that one
//! takes operand modifiers, and then the NaN is not an FADD's:
//! * `selp.f32` becomes `FSEL d, -a, b`, which flips (`|a|`: clears) the sign bit of
//!   every value, a NaN's payload kept (H100, seed 41 `k49`: `-(f2)` of `0x7fffffff`
//!   under `tid < 271u ? -(f2) : f1` gave `0xffffffff`);
//! * `cvt.f64.f32` becomes `F2F.F64.F32 d, -a` (`|a|`), which widens a NaN with its
//!   payload and sign, as the f64 unit's `neg`/`abs` leave a NaN's sign (int_ops `dneg`,
//!   `dabs`): H100, seed 15 `k5`, `__dadd_rn((double)-(f0), c)` with `f0 = 0x7fc00000`
//!   rounded back to `0x7fc00000`; seed 100 `k6`, `(double)fabsf(f2)` with
//!   `f2 = 0x7fc00000` likewise.
//!
//! The emulator follows it where the choice is unambiguous: an f32 `neg`/`abs` without
//! `.ftz` whose destination is written only there and whose readers are either all
//! `selp.f32`, or all plain `cvt.f64.f32` (or a `neg`/`abs` folded into them: `-|a|` in
//! one `FSEL`, seed 17 `k11`), apart from readers for which a NaN's bits do
//! not matter (float arithmetic and `setp`, which give or test any NaN alike, and
//! conversions to integers). With any other reader (a store, a move, `min`/`max`) ptxas
//! materialises the FADD and the canonical NaN stays.
//!
//! **Which NaN an f64 `add`, `sub` or `mul` returns.** `DADD` and `DMUL` return the NaN
//! of their second source when it is one, else the first's, quietened, with its payload
//! and sign (a `-` or `|.|` modifier on the NaN's source is not applied; int_ops `dneg`
//! is `DADD d, -RZ, -a`), and the order of the two sources is ptxas's choice, not the
//! PTX's. What the emulator does is a heuristic: the operand in the higher-numbered
//! virtual register has priority. It is what ptxas did in int_ops (`add.rn.f64 %fd55,
//! %fd53, %fd54` returned `%fd54`'s NaN: `dadd_*`, `dsub_*`, `dmul_*`,
//! `gen_d*_narrow_*`) and in 71 kernels of the H100 difftest that the emulator's earlier
//! rule (always `b`'s) got wrong, e.g. seed 100 `k68`: `add.rn.f64 %fd6, %fd5, %fd4`
//! returned `%fd5`'s NaN (`0x7fffffffe0000000` from `0x7fffffff`, over `%fd4`'s
//! `0x7ff8000000000000`; ptxas 13.5 writes `DADD R12, R12, R16` with `%fd5` in `R16`).
//! It is not always what ptxas does: seed 85 `k86`'s `sub.rn.f64 %fd3, %fd1, %fd2`
//! returned `%fd1`'s NaN (ptxas 13.5: `DADD R26, -R26, R14`, `%fd1` in `R14`), and seed
//! 53 `k14` (`mul.rn.f64 %fd3, %fd2, %fd1`), which agreed with the H100 under the
//! earlier rule, no longer does. Over seeds 1-57 of the difftest (5,700 kernels) it
//! turned 53 disagreeing kernels into agreeing ones and that one the other way.

use std::collections::HashMap;

use warpcheck_ir::defuse::visit_regs;
use warpcheck_ir::operand::Role;
use warpcheck_ir::{Body, EntityRef, InstId, Op, Operand, Type};

/// How the f32 `neg`/`abs` at an instruction behaves once ptxas folds it into its readers.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum SignFold {
    /// Into `FSEL`: the sign bit of every value, NaNs included.
    Select,
    /// Into `F2F.F64.F32`: a NaN keeps its bits (payload and sign).
    Widen,
}

/// Per function: the f32 `neg`/`abs` instructions that ptxas folds into their readers.
pub(super) struct SignFolds {
    folds: HashMap<InstId, SignFold>,
}

/// What a reader of a negated or absolute f32 value makes of the sign modifier.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Reader {
    /// It folds it with the given semantics.
    Folds(SignFold),
    /// A NaN's bits do not change its result.
    Indifferent,
    /// ptxas keeps the `FADD` (or the reader is not modelled).
    Materialises,
}

fn reader(op: &Op) -> Reader {
    match *op {
        Op::Selp {
            ty: Type::F32 | Type::B32,
        } => Reader::Folds(SignFold::Select),
        Op::Cvt {
            irnd: None,
            rounding: None,
            ftz: false,
            sat: false,
            relu: false,
            satfinite: false,
            dty: Type::F64,
            sty: Type::F32,
        } => Reader::Folds(SignFold::Widen),
        Op::Cvt { dty, .. } if dty.is_integer() => Reader::Indifferent,
        Op::Add {
            ty: Type::F32,
            cc: false,
            ..
        }
        | Op::Sub {
            ty: Type::F32,
            cc: false,
            ..
        }
        | Op::Mul { ty: Type::F32, .. }
        | Op::Mad { ty: Type::F32, .. }
        | Op::Fma { ty: Type::F32, .. }
        | Op::Setp { ty: Type::F32, .. } => Reader::Indifferent,
        _ => Reader::Materialises,
    }
}

impl SignFolds {
    pub fn analyse(body: &Body) -> SignFolds {
        let n = body.regs.len();
        let mut readers: Vec<Vec<InstId>> = vec![Vec::new(); n];
        let mut defs = vec![0u32; n];
        for (id, _) in body.insts.iter() {
            visit_regs(body, id, |r, role| match role {
                Role::Use => readers[r.index()].push(id),
                Role::Def => defs[r.index()] += 1,
            });
        }
        let mut folds: HashMap<InstId, SignFold> = HashMap::new();
        // Readers first (they mostly follow their sources), so that `-|a|` folds whole.
        let insts: Vec<_> = body.insts.iter().collect();
        for &(id, inst) in insts.iter().rev() {
            if !matches!(
                inst.op,
                Op::Neg {
                    ftz: false,
                    ty: Type::F32
                } | Op::Abs {
                    ftz: false,
                    ty: Type::F32
                }
            ) {
                continue;
            }
            let Some(Operand::Reg(d)) = body.operands_of(id).first() else {
                continue;
            };
            if defs[d.index()] != 1 {
                continue;
            }
            let mut fold = None;
            let mut ok = true;
            for &u in &readers[d.index()] {
                // A `neg`/`abs` that folds passes its reader's modifier on: `-|a|`.
                let r = folds
                    .get(&u)
                    .map_or_else(|| reader(&body.insts[u].op), |&f| Reader::Folds(f));
                match r {
                    Reader::Folds(f) if fold.is_none() || fold == Some(f) => fold = Some(f),
                    Reader::Indifferent => {}
                    _ => ok = false,
                }
            }
            if let (true, Some(f)) = (ok, fold) {
                folds.insert(id, f);
            }
        }
        SignFolds { folds }
    }

    /// How the f32 `neg`/`abs` at `id` is folded, if it is.
    pub fn at(&self, id: InstId) -> Option<SignFold> {
        self.folds.get(&id).copied()
    }
}

/// Whether an f64 `add`/`sub`/`mul` with these operands gives `a`'s NaN priority over
/// `b`'s: `a` is in the higher-numbered register (see the module docs).
pub(super) fn f64_nan_prefers_a(ty: Type, a: &Operand, b: &Operand) -> bool {
    match (a, b) {
        (Operand::Reg(ra), Operand::Reg(rb)) => ty == Type::F64 && ra.index() > rb.index(),
        _ => false,
    }
}
