//! `tex` (PTX ISA §9.7.9.3): the destination vector, the handle (a `.texref` variable's
//! address or a register holding a texture object) and the coordinates. Mipmap levels
//! and gradients, array and cube geometries, and a separate sampler (independent texture
//! mode) are refused by name.

use warpcheck_ir::modifiers::{Geometry, Modifier, TexMode};
use warpcheck_ir::{Operand, Type};

use super::{InstCx, opnd, unsupported};
use crate::fault::EmuError;
use crate::ops::OpKind;
use crate::texture::TexOp;

impl InstCx<'_, '_> {
    pub(super) fn tex(
        &mut self,
        mode: Option<TexMode>,
        geom: Geometry,
        cty: Type,
        ops: &[Operand],
    ) -> Result<OpKind, EmuError> {
        if let Some(m @ (TexMode::Level | TexMode::Grad)) = mode {
            return unsupported(format!("`tex.{}` (mipmapped textures)", m.spelling()));
        }
        let dims = match geom {
            Geometry::D1 => 1,
            Geometry::D2 => 2,
            Geometry::D3 => 3,
            g => {
                return unsupported(format!(
                    "`tex.{}` (layered and cube textures)",
                    g.spelling()
                ));
            }
        };
        let dsts = self.vec_dsts(&opnd(ops, 0))?;
        let Operand::Image(list) = opnd(ops, 1) else {
            return unsupported("`tex` without a `[texture, {coordinates}]` operand");
        };
        let elems = self.body.list(list).to_vec();
        let [handle, coords] = elems.as_slice() else {
            return unsupported("`tex` with a separate sampler (independent texture mode)");
        };
        let handle = self.src(handle, Type::U64)?;
        let coords = self.vec_srcs(coords, cty)?;
        if (coords.n as usize) < dims as usize {
            return unsupported("`tex` with fewer coordinates than its geometry");
        }
        Ok(OpKind::Tex(Box::new(TexOp {
            dsts,
            handle,
            coords,
            dims,
            int_coords: cty == Type::S32,
        })))
    }
}
