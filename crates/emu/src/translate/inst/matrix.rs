//! Warp-level matrix instructions (`mma`, `ldmatrix`, `stmatrix`, `wmma`) and `mbarrier`
//! operations: fragments to lists of register slots, element types to [`MatElem`], and
//! the shapes and types the executor implements (anything else is refused by name).

use warpcheck_ir::modifiers::{MatrixCount, MatrixLayout, MatrixShape, MemSpace};
use warpcheck_ir::{Operand, Type};

use super::{InstCx, opnd, unsupported};
use crate::fault::EmuError;
use crate::ops::*;

fn elem(ty: Type) -> Option<MatElem> {
    Some(match ty {
        Type::F16 => MatElem::F16,
        Type::Bf16 => MatElem::Bf16,
        Type::Tf32 => MatElem::Tf32,
        Type::F32 => MatElem::F32,
        Type::F64 => MatElem::F64,
        Type::S8 => MatElem::S8,
        Type::U8 => MatElem::U8,
        Type::S32 => MatElem::S32,
        _ => return None,
    })
}

/// The register counts (A, B, C/D) of the `mma` forms the executor implements.
fn mma_regs(shape: MatrixShape, a: MatElem, d: MatElem) -> Option<(usize, usize, usize)> {
    use MatElem::*;
    use MatrixShape::*;
    let acc = match d {
        F16 => 2,
        F32 | S32 => 4,
        _ => 0,
    };
    Some(match (shape, a) {
        (M16n8k16, F16 | Bf16) | (M16n8k8, Tf32) | (M16n8k32, S8 | U8) => (4, 2, acc),
        (M16n8k8, F16 | Bf16) | (M16n8k4, Tf32) | (M16n8k16, S8 | U8) => (2, 1, acc),
        (M8n8k16, S8 | U8) if d == S32 => (1, 1, 2),
        (M8n8k4, F64) if d == F64 => (1, 1, 2),
        _ => return None,
    })
}

impl InstCx<'_, '_> {
    /// The register slots of fragment operand `op` (destinations if `def`).
    fn fragment(&mut self, op: &Operand, def: bool, ty: Type) -> Result<Vec<Slot>, EmuError> {
        let Operand::Vector(list) = *op else {
            return unsupported(format!("fragment operand {op:?}"));
        };
        let elems = self.body.list(list).to_vec();
        elems
            .iter()
            .map(|e| if def { self.dst(e) } else { self.src(e, ty) })
            .collect()
    }

    /// `mma.sync.aligned.shape.row.col{.satfinite}.dtype.atype.btype.ctype d, a, b, c`.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn mma(
        &mut self,
        shape: MatrixShape,
        layouts: (MatrixLayout, MatrixLayout),
        satfinite: bool,
        types: [Type; 4],
        ops: &[Operand],
    ) -> Result<OpKind, EmuError> {
        let name = || {
            format!(
                "`mma.{}.{}.{}.{}.{}.{}.{}`",
                shape, layouts.0, layouts.1, types[0], types[1], types[2], types[3]
            )
        };
        if layouts != (MatrixLayout::Row, MatrixLayout::Col) {
            return unsupported(format!("{} (only `.row.col` is implemented)", name()));
        }
        let [Some(d), Some(a), Some(b), Some(c)] = types.map(elem) else {
            return unsupported(name());
        };
        let regs = mma_regs(shape, a, d);
        let mixed_ok = matches!(
            (a, b),
            (MatElem::S8 | MatElem::U8, MatElem::S8 | MatElem::U8)
        );
        let (Some((na, nb, nc)), true, true) = (regs, a == b || mixed_ok, c == d) else {
            return unsupported(format!("{} (not an implemented shape and type)", name()));
        };
        let (m, n, k) = shape.mnk();
        let frag = [
            (0, nc, Type::B32),
            (1, na, Type::B32),
            (2, nb, Type::B32),
            (3, nc, Type::B32),
        ];
        let mut lists: Vec<Vec<Slot>> = Vec::new();
        for (i, want, ty) in frag {
            let v = self.fragment(&opnd(ops, i), i == 0, ty)?;
            if v.len() != want {
                return unsupported(format!(
                    "{} with {} registers in operand {} (expected {want})",
                    name(),
                    v.len(),
                    i + 1
                ));
            }
            lists.push(v);
        }
        let [d_s, a_s, b_s, c_s] = <[Vec<Slot>; 4]>::try_from(lists).expect("four fragments");
        Ok(OpKind::Matrix(Box::new(MatrixOp {
            kind: MatrixKind::Mma {
                m: m as u8,
                n: n as u8,
                k: k as u8,
                a,
                b,
                c,
                d,
                satfinite,
            },
            d: d_s,
            a: a_s,
            b: b_s,
            c: c_s,
            addr: None,
            stride: None,
        })))
    }

    /// `ldmatrix`/`stmatrix .sync.aligned.m8n8.xN{.trans}.shared.b16`.
    pub(super) fn ldst_matrix(
        &mut self,
        load: bool,
        num: MatrixCount,
        trans: bool,
        space: MemSpace,
        ops: &[Operand],
    ) -> Result<OpKind, EmuError> {
        let what = if load { "ldmatrix" } else { "stmatrix" };
        if space != MemSpace::Shared {
            return unsupported(format!("`{what}` without `.shared`"));
        }
        let (fi, ai) = if load { (0, 1) } else { (1, 0) };
        let (_, addr) = self.addr(&opnd(ops, ai), MemSpace::Shared)?;
        let regs = self.fragment(&opnd(ops, fi), load, Type::B32)?;
        let count = num.count() as u8;
        if regs.len() != count as usize {
            return unsupported(format!(
                "`{what}.{num}` with {} registers (expected {count})",
                regs.len()
            ));
        }
        let kind = if load {
            MatrixKind::Ldmatrix { count, trans }
        } else {
            MatrixKind::Stmatrix { count, trans }
        };
        let (d, a) = if load {
            (regs, Vec::new())
        } else {
            (Vec::new(), regs)
        };
        Ok(OpKind::Matrix(Box::new(MatrixOp {
            kind,
            d,
            a,
            b: Vec::new(),
            c: Vec::new(),
            addr: Some(addr),
            stride: None,
        })))
    }

    /// `wmma.load.{a,b,c}` (`which` = 0, 1, 2) or `wmma.store.d` (`which` = `None`):
    /// `.sync.aligned.layout.shape{.space}.type r, [p] {, stride}` (store: `[p], r`).
    pub(super) fn wmma_access(
        &mut self,
        which: Option<u8>,
        layout: MatrixLayout,
        shape: MatrixShape,
        space: MemSpace,
        ty: Type,
        ops: &[Operand],
    ) -> Result<OpKind, EmuError> {
        let load = which.is_some();
        let name = match which {
            Some(w) => format!(
                "`wmma.load.{}.{layout}.{shape}.{ty}`",
                ["a", "b", "c"][w as usize]
            ),
            None => format!("`wmma.store.d.{layout}.{shape}.{ty}`"),
        };
        let (m, n, k) = shape.mnk();
        let frag = elem(ty).map(|e| WmmaFrag {
            which: which.unwrap_or(2),
            m: m as u8,
            n: n as u8,
            k: k as u8,
            e,
        });
        let Some(frag) = frag.filter(|f| f.known()) else {
            return unsupported(format!(
                "{name} (the H100's fragment of this shape and type is not known to warpcheck)"
            ));
        };
        if space == MemSpace::SharedCluster
            || !matches!(
                space,
                MemSpace::Global | MemSpace::Shared | MemSpace::Generic
            )
        {
            return unsupported(format!("{name} in `.{space}`"));
        }
        let (fi, ai) = if load { (0, 1) } else { (1, 0) };
        let (_, addr) = self.addr(&opnd(ops, ai), space)?;
        let reg_ty = if frag.e == MatElem::F64 {
            Type::B64
        } else {
            Type::B32
        };
        let regs = self.fragment(&opnd(ops, fi), load, reg_ty)?;
        if regs.len() != frag.regs() {
            return unsupported(format!(
                "{name} with {} registers (expected {})",
                regs.len(),
                frag.regs()
            ));
        }
        let stride = match opnd(ops, 2) {
            Operand::Absent => None,
            ref o => Some(self.src(o, Type::U32)?),
        };
        let (d, a) = if load {
            (regs, Vec::new())
        } else {
            (Vec::new(), regs)
        };
        Ok(OpKind::Matrix(Box::new(MatrixOp {
            kind: MatrixKind::Wmma {
                load,
                frag,
                space,
                col: layout == MatrixLayout::Col,
            },
            d,
            a,
            b: Vec::new(),
            c: Vec::new(),
            addr: Some(addr),
            stride,
        })))
    }

    /// `wmma.mma.sync.aligned.alayout.blayout.shape.dtype.ctype d, a, b, c` (f16 inputs)
    /// or `….dtype.atype.btype.ctype{.rnd}{.satfinite}`. The layouts name how A and B
    /// were loaded; they do not change the fragments (module docs of
    /// `crate::exec::wmma`).
    pub(super) fn wmma_mma(
        &mut self,
        shape: MatrixShape,
        [dty, t2]: [Type; 2],
        ab: Option<(Type, Type)>,
        rounding: Option<warpcheck_ir::modifiers::RoundingMode>,
        satfinite: bool,
        ops: &[Operand],
    ) -> Result<OpKind, EmuError> {
        let (aty, bty, cty) = match ab {
            Some((bty, cty)) => (t2, bty, cty),
            None => (Type::F16, Type::F16, t2),
        };
        let name = match ab {
            Some(_) => format!("`wmma.mma.{shape}.{dty}.{aty}.{bty}.{cty}`"),
            None => format!("`wmma.mma.{shape}.{dty}.{cty}`"),
        };
        let (m, n, k) = shape.mnk();
        let frag = |which, ty| {
            elem(ty)
                .map(|e| WmmaFrag {
                    which,
                    m: m as u8,
                    n: n as u8,
                    k: k as u8,
                    e,
                })
                .filter(|f| f.known())
        };
        let (Some(fa), Some(fb), Some(fc), Some(fd)) =
            (frag(0, aty), frag(1, bty), frag(2, cty), frag(2, dty))
        else {
            return unsupported(format!(
                "{name} (the H100's fragments of this shape and type are not known to warpcheck)"
            ));
        };
        let ints = matches!(fa.e, MatElem::S8 | MatElem::U8);
        let valid = if ints {
            matches!(fb.e, MatElem::S8 | MatElem::U8)
                && fc.e == MatElem::S32
                && fd.e == MatElem::S32
        } else {
            let acc = |e| match fa.e {
                MatElem::F16 => matches!(e, MatElem::F16 | MatElem::F32),
                MatElem::F64 => e == MatElem::F64,
                _ => e == MatElem::F32,
            };
            fa.e == fb.e && acc(fc.e) && acc(fd.e)
        };
        if !valid {
            return unsupported(format!("{name} (not a valid combination of types)"));
        }
        // f16 inputs may mix an f16 and an f32 accumulator; the products are summed as
        // `mma` sums them only when `C` and `D` have one type.
        if fc.e != fd.e {
            return unsupported(format!("{name} (different `C` and `D` types)"));
        }
        if satfinite && !ints {
            return unsupported(format!("{name} with `.satfinite`"));
        }
        if rounding.is_some_and(|r| r != warpcheck_ir::modifiers::RoundingMode::Rn) {
            return unsupported(format!("{name} with a rounding mode other than `.rn`"));
        }
        let mut lists: Vec<Vec<Slot>> = Vec::new();
        for (i, f) in [fd, fa, fb, fc].into_iter().enumerate() {
            let ty = if f.e == MatElem::F64 {
                Type::B64
            } else {
                Type::B32
            };
            let v = self.fragment(&opnd(ops, i), i == 0, ty)?;
            if v.len() != f.regs() {
                return unsupported(format!(
                    "{name} with {} registers in operand {} (expected {})",
                    v.len(),
                    i + 1,
                    f.regs()
                ));
            }
            lists.push(v);
        }
        let [d_s, a_s, b_s, c_s] = <[Vec<Slot>; 4]>::try_from(lists).expect("four fragments");
        Ok(OpKind::Matrix(Box::new(MatrixOp {
            kind: MatrixKind::WmmaMma {
                m: m as u8,
                n: n as u8,
                k: k as u8,
                a: fa.e,
                b: fb.e,
                c: fc.e,
                d: fd.e,
                satfinite,
            },
            d: d_s,
            a: a_s,
            b: b_s,
            c: c_s,
            addr: None,
            stride: None,
        })))
    }

    /// The `mbarrier` family: `[addr]` is operand `addr_at`, the destination operand 0
    /// when `has_dst`, the value operand the one after the address.
    pub(super) fn mbarrier(
        &mut self,
        kind: MbarrierKind,
        space: MemSpace,
        has_dst: bool,
        ops: &[Operand],
    ) -> Result<OpKind, EmuError> {
        if space == MemSpace::SharedCluster {
            return unsupported("`mbarrier` on `.shared::cluster` (thread-block clusters)");
        }
        let addr_at = usize::from(has_dst);
        let (space, addr) = self.addr(&opnd(ops, addr_at), space)?;
        let d = if has_dst {
            self.value_or_pred_dst(&opnd(ops, 0))
        } else {
            Dst::None
        };
        let v = match opnd(ops, addr_at + 1) {
            Operand::Absent => None,
            ref o => Some(self.src(o, Type::B64)?),
        };
        Ok(OpKind::Mbarrier(Box::new(MbarrierOp {
            kind,
            addr,
            space,
            d,
            v,
        })))
    }

    /// `mbarrier.pending_count.b64 d, state`.
    pub(super) fn mbarrier_pending_count(&mut self, ops: &[Operand]) -> Result<OpKind, EmuError> {
        let d = self.value_or_pred_dst(&opnd(ops, 0));
        let v = Some(self.src(&opnd(ops, 1), Type::B64)?);
        Ok(OpKind::Mbarrier(Box::new(MbarrierOp {
            kind: MbarrierKind::PendingCount,
            addr: Addr::Abs(0),
            space: MemSpace::Shared,
            d,
            v,
        })))
    }
}
