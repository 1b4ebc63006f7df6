//! Contraction of `mul` + `add`/`sub` into a fused multiply-add, as ptxas does.
//!
//! PTX ISA §9.7.3.3–5: `add`, `sub` and `mul` *without* a rounding modifier "may be
//! optimized aggressively by the code generator, e.g. mul/add sequences with no rounding
//! modifiers may be optimized to use fused-multiply-add instructions"; an explicit `.rn`
//! forbids it. ptxas does contract them (nvcc's default `-fmad=true` leaves the pairs in
//! the PTX for ptxas), so the GPU computes `a - m*b` with one rounding. The emulator
//! follows it for the unambiguous case:
//! * the `mul.f32`/`mul.f64` has no rounding modifier and no `.sat`;
//! * its destination is written only there and read only by one `add`/`sub` of the same
//!   type, flush mode and no rounding modifier, in the same basic block, after it;
//! * neither of the `mul`'s source registers is written between the two;
//! * the other operand of the `add`/`sub` is not itself such a product (which of two
//!   products ptxas would fuse is not specified, so neither is).
//!
//! The `mul` still executes (its result is dead), and the `add`/`sub` becomes
//! `fma(±x, y, ±c)`.

use std::collections::HashMap;

use warpcheck_ir::defuse::visit_regs;
use warpcheck_ir::operand::Role;
use warpcheck_ir::{Body, EntityRef, InstId, Op, Operand, Reg};

/// A `mul` whose product an `add`/`sub` may absorb.
#[derive(Clone, Copy, Debug)]
pub(super) struct Product {
    pub mul: InstId,
    pub x: Operand,
    pub y: Operand,
}

/// Per function: the registers holding contractible products.
pub(super) struct Contractions {
    products: HashMap<Reg, Product>,
    defs: Vec<Vec<InstId>>,
}

impl Contractions {
    pub fn analyse(body: &Body) -> Contractions {
        let n = body.regs.len();
        let mut uses = vec![0u32; n];
        let mut defs: Vec<Vec<InstId>> = vec![Vec::new(); n];
        for (id, _) in body.insts.iter() {
            visit_regs(body, id, |r, role| match role {
                Role::Use => uses[r.index()] += 1,
                Role::Def => defs[r.index()].push(id),
            });
        }
        let mut products = HashMap::new();
        for (id, inst) in body.insts.iter() {
            let Op::Mul {
                rounding: None,
                sat: false,
                ty,
                ..
            } = inst.op
            else {
                continue;
            };
            if !matches!(ty, warpcheck_ir::Type::F32 | warpcheck_ir::Type::F64)
                || inst.guard.is_some()
            {
                continue;
            }
            let ops = body.operands_of(id);
            let (Some(Operand::Reg(d)), Some(&x), Some(&y)) = (ops.first(), ops.get(1), ops.get(2))
            else {
                continue;
            };
            if uses[d.index()] == 1 && defs[d.index()].len() == 1 {
                products.insert(*d, Product { mul: id, x, y });
            }
        }
        Contractions { products, defs }
    }

    /// The product that the `add`/`sub` at `at` may absorb as its operand `operand`.
    pub fn product_for(
        &self,
        body: &Body,
        at: InstId,
        operand: &Operand,
        mul_matches: impl Fn(&Op) -> bool,
    ) -> Option<Product> {
        let Operand::Reg(r) = operand else {
            return None;
        };
        let p = *self.products.get(r)?;
        if p.mul >= at || body.inst_block[p.mul.index()] != body.inst_block[at.index()] {
            return None;
        }
        if !mul_matches(&body.insts[p.mul].op) {
            return None;
        }
        // The factors must still hold their values at the add.
        for f in [p.x, p.y] {
            if let Operand::Reg(fr) = f
                && self.defs[fr.index()].iter().any(|&d| d > p.mul && d < at)
            {
                return None;
            }
        }
        Some(p)
    }
}
