//! Textures: the `tex` instruction (PTX ISA §9.7.9.3) over the textures a host runtime
//! binds, following the CUDA C++ Programming Guide's appendix "Texture Fetching".
//!
//! A texture is a [`Texture`]: where its texels are in global memory (linear memory, a
//! pitched 2D allocation or a CUDA array, all kept as device addresses), their channel
//! format, and the sampler state (addressing per dimension, point or linear filtering,
//! normalised coordinates, element or normalised-float reads, border colour). The
//! [`Textures`] table of a [`crate::memory::GlobalMemory`] maps a 64-bit handle to it: a
//! texture object's handle is the small integer `cudaCreateTextureObject` returned, a
//! texture reference's is the address of its `.texref` variable (what `mov.u64 %rd, tex;`
//! gives, and what `[tex, {...}]` names directly).
//!
//! A fetch, per lane:
//! * integer coordinates (`tex.1d.v4.f32.s32`, `tex1Dfetch`) address texels directly; on
//!   linear memory a fetch outside the texture returns zeros, as on the GPU;
//! * float coordinates are scaled by the size when normalised; point filtering takes the
//!   texel `floor(x)`; linear filtering takes `xB = x - 0.5`, `i = floor(xB)` and the
//!   weight `α = frac(xB)` rounded to 8 fractional bits ("9-bit fixed point format with 8
//!   bits of fractional value"), then `(1-α)·T[i] + α·T[i+1]` in single precision (and
//!   bilinearly, `β` along y, in 2D; trilinearly in 3D);
//! * addressing maps a texel index outside `[0, size)`: clamp to the edge, border (the
//!   border colour, zeros for references), wrap and mirror (normalised coordinates only;
//!   otherwise clamp, as the GPU does);
//! * texels convert by their format: floats (32 and 16 bits) as they are, integers as
//!   integers (`cudaReadModeElementType`, sign-extended) or as floats in [0, 1] / [-1, 1]
//!   (`cudaReadModeNormalizedFloat`: `v / (2^n - 1)`, signed `max(v / (2^(n-1) - 1), -1)`).
//!   Components the format lacks read as zero.
//!
//! The rounding of the weights is the guide's description; `tools/gpu/texture_truth.sh`
//! measures it on a GPU. Reads go through the checked global-memory path: a texture over
//! freed memory faults as an out-of-bounds read. Texture reads are not events for the
//! checkers (the texture cache is read-only and has no races with itself within a launch).

use std::collections::HashMap;

use crate::exec::Lanes;
use crate::fault::FaultKind;
use crate::memory::GlobalMemory;
use crate::ops::{Slot, VecSlots};
use warpcheck_ir::modifiers::MemSpace;

/// Handles of texture objects start here (small integers, as CUDA's are).
pub const FIRST_OBJECT_HANDLE: u64 = 1;

/// The data type of a texture's channels (`cudaChannelFormatKind`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ChannelKind {
    Signed,
    Unsigned,
    Float,
}

/// A texel's layout: bits per channel (x, y, z, w; 0 for absent) and their kind.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Format {
    pub bits: [u8; 4],
    pub kind: ChannelKind,
}

impl Format {
    /// Bytes per texel.
    pub fn texel_bytes(&self) -> u64 {
        self.bits.iter().map(|&b| b as u64).sum::<u64>() / 8
    }

    /// Whether the emulator can read it: 8, 16 or 32-bit channels (16-bit floats as
    /// halves), the present ones first.
    pub fn is_supported(&self) -> bool {
        let n = self.bits.iter().take_while(|&&b| b != 0).count();
        n > 0
            && self.bits[n..].iter().all(|&b| b == 0)
            && self.bits[..n].iter().all(|&b| match self.kind {
                ChannelKind::Float => b == 16 || b == 32,
                _ => b == 8 || b == 16 || b == 32,
            })
    }
}

/// `cudaTextureAddressMode`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AddressMode {
    Wrap,
    Clamp,
    Mirror,
    Border,
}

/// `cudaTextureFilterMode`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FilterMode {
    Point,
    Linear,
}

/// A bound texture: its texels and its sampler state.
#[derive(Clone, Debug, PartialEq)]
pub struct Texture {
    /// Device address of texel (0, 0, 0).
    pub base: u64,
    /// Size in texels along x, y and z (1 for dimensions the texture lacks).
    pub size: [u64; 3],
    /// Bytes from one row to the next, and from one 2D slice to the next.
    pub pitch: u64,
    pub slice_pitch: u64,
    pub format: Format,
    pub address: [AddressMode; 3],
    pub filter: FilterMode,
    pub normalized_coords: bool,
    /// `cudaReadModeNormalizedFloat`: 8 and 16-bit integers read as floats.
    pub read_normalized: bool,
    pub border: [f32; 4],
    /// Bound to linear memory (`cudaBindTexture`, `cudaResourceTypeLinear`): integer
    /// fetches outside it return zeros.
    pub linear: bool,
}

impl Texture {
    /// A 1D texture over `bytes` of linear memory at `base`, read as elements, with the
    /// defaults of a texture reference.
    pub fn linear(base: u64, bytes: u64, format: Format) -> Texture {
        let texel = format.texel_bytes().max(1);
        Texture {
            base,
            size: [bytes / texel, 1, 1],
            pitch: bytes,
            slice_pitch: bytes,
            format,
            address: [AddressMode::Clamp; 3],
            filter: FilterMode::Point,
            normalized_coords: false,
            read_normalized: false,
            border: [0.0; 4],
            linear: true,
        }
    }

    /// Whether fetches return floats (float texels or normalised reads).
    fn returns_float(&self) -> bool {
        self.format.kind == ChannelKind::Float || self.read_normalized
    }
}

/// The textures bound in one device memory, by handle.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Textures {
    by_handle: HashMap<u64, Texture>,
    next_object: u64,
}

impl Textures {
    /// Binds (or rebinds) `handle`, a texture reference's `.texref` address.
    pub fn bind(&mut self, handle: u64, texture: Texture) {
        self.by_handle.insert(handle, texture);
    }

    /// Removes a binding; whether there was one.
    pub fn unbind(&mut self, handle: u64) -> bool {
        self.by_handle.remove(&handle).is_some()
    }

    /// A new texture object's handle.
    pub fn create_object(&mut self, texture: Texture) -> u64 {
        let h = FIRST_OBJECT_HANDLE + self.next_object;
        self.next_object += 1;
        self.by_handle.insert(h, texture);
        h
    }

    pub fn get(&self, handle: u64) -> Option<&Texture> {
        self.by_handle.get(&handle)
    }
}

/// `tex.{1d,2d,3d}.v4.dty.cty d, [handle, {coords}]`, translated.
#[derive(Clone, Debug)]
pub(crate) struct TexOp {
    pub dsts: VecSlots,
    pub handle: Slot,
    pub coords: VecSlots,
    /// 1, 2 or 3.
    pub dims: u8,
    /// `.s32` coordinates (texel indices) rather than `.f32`.
    pub int_coords: bool,
}

/// Executes a `tex` for the lanes of `mask`. A handle that names no bound texture faults.
pub(crate) fn fetch(
    op: &TexOp,
    global: &GlobalMemory,
    regs: &mut [Lanes],
    mask: u32,
) -> Result<(), (u32, FaultKind)> {
    let mut m = mask;
    while m != 0 {
        let lane = m.trailing_zeros() as usize;
        let at = |k: FaultKind| (lane as u32, k);
        m &= m - 1;
        let handle = regs[op.handle as usize][lane];
        let Some(tex) = global.textures().get(handle) else {
            return Err(at(FaultKind::UnboundTexture { handle }));
        };
        let mut c = [0u64; 3];
        for (d, v) in c.iter_mut().enumerate().take(op.dims as usize) {
            *v = regs[op.coords.slots[d] as usize][lane];
        }
        let out = sample(tex, op, c, global).map_err(at)?;
        for (i, &slot) in op.dsts.slots[..op.dsts.n as usize].iter().enumerate() {
            regs[slot as usize][lane] = out[i] as u64;
        }
    }
    Ok(())
}

/// The four result words of one fetch at coordinate bits `c`.
fn sample(
    tex: &Texture,
    op: &TexOp,
    c: [u64; 3],
    global: &GlobalMemory,
) -> Result<[u32; 4], FaultKind> {
    let dims = op.dims as usize;
    if op.int_coords {
        let mut idx = [0i64; 3];
        for d in 0..dims {
            idx[d] = c[d] as u32 as i32 as i64;
        }
        if tex.linear && (idx[0] < 0 || idx[0] as u64 >= tex.size[0]) {
            return Ok([0; 4]);
        }
        let t = texel_at(tex, idx, dims, global)?;
        return Ok(encode(tex, t));
    }
    let mut x = [0f32; 3];
    for d in 0..dims {
        let mut v = f32::from_bits(c[d] as u32);
        if tex.normalized_coords {
            v = match tex.address[d] {
                AddressMode::Wrap => v - v.floor(),
                AddressMode::Mirror => mirror_unit(v),
                _ => v,
            } * tex.size[d] as f32;
        }
        x[d] = v;
    }
    if tex.filter == FilterMode::Point || !tex.returns_float() {
        let mut idx = [0i64; 3];
        for d in 0..dims {
            idx[d] = x[d].floor() as i64;
        }
        let t = texel_at(tex, idx, dims, global)?;
        return Ok(encode(tex, t));
    }
    filter_linear(tex, x, dims, global).map(|v| v.map(f32::to_bits))
}

/// A coordinate in [0, 2) folded back as a mirror does: 0.25 → 0.25, 1.25 → 0.75.
fn mirror_unit(v: f32) -> f32 {
    let t = v - 2.0 * (v * 0.5).floor();
    if t >= 1.0 { 2.0 - t } else { t }
}

/// The weight of a linear filter: the fraction with 8 fractional bits.
pub fn filter_weight(frac: f32) -> f32 {
    (frac * 256.0).round() / 256.0
}

/// Linear (bi-, tri-linear) filtering at unnormalised coordinates `x`.
fn filter_linear(
    tex: &Texture,
    x: [f32; 3],
    dims: usize,
    global: &GlobalMemory,
) -> Result<[f32; 4], FaultKind> {
    let mut base = [0i64; 3];
    let mut w = [0f32; 3];
    for d in 0..dims {
        let xb = x[d] - 0.5;
        let i = xb.floor();
        base[d] = i as i64;
        w[d] = filter_weight(xb - i);
    }
    let corners = 1usize << dims;
    let mut acc = [0f32; 4];
    for corner in 0..corners {
        let mut idx = base;
        let mut weight = 1f32;
        for d in 0..dims {
            if corner >> d & 1 == 1 {
                idx[d] += 1;
                weight *= w[d];
            } else {
                weight *= 1.0 - w[d];
            }
        }
        let t = texel_at(tex, idx, dims, global)?;
        for (a, v) in acc.iter_mut().zip(t.floats) {
            *a += weight * v;
        }
    }
    Ok(acc)
}

/// A texel's components, as floats (float formats, normalised reads) or integer bits.
struct Texel {
    floats: [f32; 4],
    ints: [u32; 4],
}

/// The texel at integer indices after addressing (or the border colour).
fn texel_at(
    tex: &Texture,
    idx: [i64; 3],
    dims: usize,
    global: &GlobalMemory,
) -> Result<Texel, FaultKind> {
    let mut at = [0u64; 3];
    for d in 0..dims {
        let n = tex.size[d] as i64;
        let i = idx[d];
        at[d] = if (0..n).contains(&i) {
            i as u64
        } else {
            match tex.address[d] {
                AddressMode::Border => return Ok(border(tex)),
                AddressMode::Wrap if tex.normalized_coords => i.rem_euclid(n.max(1)) as u64,
                AddressMode::Mirror if tex.normalized_coords => {
                    let p = i.rem_euclid(2 * n.max(1));
                    (if p >= n { 2 * n - 1 - p } else { p }) as u64
                }
                _ => i.clamp(0, (n - 1).max(0)) as u64,
            }
        };
    }
    let bytes = tex.format.texel_bytes();
    let addr = tex.base + at[2] * tex.slice_pitch + at[1] * tex.pitch + at[0] * bytes;
    let raw = global
        .read(addr, bytes)
        .map_err(|_| FaultKind::OutOfBounds {
            space: MemSpace::Global,
            address: addr,
            size: bytes as u32,
            is_write: false,
        })?;
    Ok(decode(tex, &raw))
}

fn border(tex: &Texture) -> Texel {
    Texel {
        floats: tex.border,
        ints: tex.border.map(|f| f as i32 as u32),
    }
}

/// Converts a texel's bytes by its format and the read mode.
fn decode(tex: &Texture, raw: &[u8]) -> Texel {
    let mut t = Texel {
        floats: [0.0; 4],
        ints: [0; 4],
    };
    let mut off = 0usize;
    for c in 0..4 {
        let bits = tex.format.bits[c] as usize;
        if bits == 0 {
            break;
        }
        let n = bits / 8;
        let mut v = 0u64;
        for (i, &b) in raw[off..off + n].iter().enumerate() {
            v |= (b as u64) << (8 * i);
        }
        off += n;
        let (f, i) = match tex.format.kind {
            ChannelKind::Float if bits == 16 => (half::f16::from_bits(v as u16).to_f32(), 0),
            ChannelKind::Float => (f32::from_bits(v as u32), 0),
            ChannelKind::Unsigned => {
                let max = ((1u64 << bits) - 1) as f32;
                (v as f32 / max, v as u32)
            }
            ChannelKind::Signed => {
                let s = ((v << (64 - bits)) as i64) >> (64 - bits);
                let max = ((1u64 << (bits - 1)) - 1) as f32;
                ((s as f32 / max).max(-1.0), s as i32 as u32)
            }
        };
        t.floats[c] = f;
        t.ints[c] = i;
    }
    t
}

/// The result words of a point fetch.
fn encode(tex: &Texture, t: Texel) -> [u32; 4] {
    if tex.returns_float() {
        t.floats.map(f32::to_bits)
    } else {
        t.ints
    }
}
