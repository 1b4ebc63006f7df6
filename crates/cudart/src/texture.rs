//! Textures: the texture object API (`cudaCreateTextureObject` over linear and pitched 2D
//! memory) and the legacy texture references (`__cudaRegisterTexture`, `cudaBindTexture`,
//! `cudaBindTexture2D`, `cudaUnbindTexture`). Both become entries of the emulator's
//! texture table ([`warpcheck_emu::texture`]), which `tex` instructions read: an object
//! under the handle returned to the program, a reference under the device address of its
//! `.texref` variable.
//!
//! A reference's sampler state (`normalized`, `filterMode`, `addressMode`) is read from the
//! program's `textureReference` when it is bound, its read mode from the registration
//! (clang passes the `texture<>` template's read mode). `cudaBindTexture` binds at the
//! pointer given and reports a zero offset: allocations are 256-byte aligned here, and a
//! pointer inside one is used as it is (a GPU would bind the 512-byte aligned address below
//! it and return the difference as the offset, which programs add to their indices).
//! CUDA arrays (`cudaResourceTypeArray`, `cudaBindTextureToArray`) and mipmaps are not
//! supported.

use std::collections::HashMap;
use std::ffi::{CStr, c_char, c_int, c_void};
use std::sync::Mutex;

use warpcheck_emu::texture::{AddressMode, ChannelKind, FilterMode, Format, Texture};

use crate::api::{self, Fail, put, require};
use crate::device::ChannelFormatDesc;
use crate::state::Runtime;
use crate::types::*;

/// `struct textureReference` (the fields read here; the rest is padding).
#[repr(C)]
pub struct TextureReference {
    pub normalized: c_int,
    pub filter_mode: c_int,
    pub address_mode: [c_int; 3],
    pub channel_desc: ChannelFormatDesc,
    pub srgb: c_int,
}

/// `struct cudaTextureDesc`.
#[repr(C)]
pub struct TextureDesc {
    pub address_mode: [c_int; 3],
    pub filter_mode: c_int,
    pub read_mode: c_int,
    pub srgb: c_int,
    pub border_color: [f32; 4],
    pub normalized_coords: c_int,
    pub max_anisotropy: u32,
    pub mipmap_filter_mode: c_int,
    pub mipmap_level_bias: f32,
    pub min_mipmap_level_clamp: f32,
    pub max_mipmap_level_clamp: f32,
    pub disable_trilinear_optimization: c_int,
    pub seamless_cubemap: c_int,
}

/// The `linear` and `pitch2D` members of `struct cudaResourceDesc`'s union.
#[repr(C)]
#[derive(Clone, Copy)]
pub struct ResourcePitch2D {
    pub dev_ptr: *mut c_void,
    pub desc: ChannelFormatDesc,
    /// `sizeInBytes` for linear resources, `width` for pitched ones.
    pub width_or_size: usize,
    pub height: usize,
    pub pitch: usize,
}

/// `struct cudaResourceDesc`.
#[repr(C)]
pub struct ResourceDesc {
    pub res_type: c_int,
    /// The union (128 bytes: `int reserved[32]`).
    pub res: ResourceUnion,
    pub flags: u32,
}

#[repr(C)]
pub union ResourceUnion {
    pub pitch2d: ResourcePitch2D,
    pub reserved: [c_int; 32],
}

const RESOURCE_ARRAY: c_int = 0;
const RESOURCE_MIPMAPPED_ARRAY: c_int = 1;
const RESOURCE_LINEAR: c_int = 2;
const RESOURCE_PITCH2D: c_int = 3;

/// A registered texture reference: its module, `.texref` name and read mode.
#[derive(Clone)]
struct TexRef {
    module: usize,
    name: String,
    read_normalized: bool,
}

/// Texture references by the address of their host variable. Locked only inside
/// `state::with`, so after the runtime's lock.
static TEXREFS: Mutex<Option<HashMap<usize, TexRef>>> = Mutex::new(None);

fn texref(host: usize) -> Option<TexRef> {
    let g = TEXREFS.lock().unwrap_or_else(|p| p.into_inner());
    g.as_ref().and_then(|m| m.get(&host).cloned())
}

/// `__cudaRegisterTexture(handle, hostVar, deviceAddress, deviceName, dim, norm, ext)`.
///
/// # Safety
/// `handle` came from `__cudaRegisterFatBinary`; `device_name` is a C string.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn __cudaRegisterTexture(
    handle: *mut *mut c_void,
    host_var: *const c_void,
    _device_address: *const *const c_void,
    device_name: *const c_char,
    _dim: c_int,
    norm: c_int,
    _ext: c_int,
) {
    if handle.is_null() || device_name.is_null() {
        return;
    }
    // SAFETY: per the contract above (the handle points at the module index).
    let module = unsafe { *handle } as usize;
    // SAFETY: clang passes the variable's name as a C string constant.
    let name = unsafe { CStr::from_ptr(device_name) }
        .to_string_lossy()
        .into_owned();
    crate::state::with(|_rt| {
        let mut g = TEXREFS.lock().unwrap_or_else(|p| p.into_inner());
        g.get_or_insert_with(HashMap::new).insert(
            host_var as usize,
            TexRef {
                module,
                name,
                read_normalized: norm != 0,
            },
        );
    });
}

/// The emulator's format of a channel descriptor.
fn format(d: &ChannelFormatDesc) -> Result<Format, Fail> {
    let kind = match d.f {
        0 => ChannelKind::Signed,
        1 => ChannelKind::Unsigned,
        2 => ChannelKind::Float,
        _ => {
            return Err(Fail::Api(
                INVALID_CHANNEL_DESCRIPTOR,
                format!(
                    "channel format kind {} is not signed, unsigned or float",
                    d.f
                ),
            ));
        }
    };
    let bits = [d.x, d.y, d.z, d.w].map(|b| b.clamp(0, 255) as u8);
    let f = Format { bits, kind };
    if !f.is_supported() {
        return Err(Fail::Api(
            INVALID_CHANNEL_DESCRIPTOR,
            format!(
                "channels of {}/{}/{}/{} bits are not a texel format (8, 16 or 32-bit channels; 16 or 32-bit floats)",
                d.x, d.y, d.z, d.w
            ),
        ));
    }
    Ok(f)
}

fn address_mode(m: c_int) -> AddressMode {
    match m {
        0 => AddressMode::Wrap,
        2 => AddressMode::Mirror,
        3 => AddressMode::Border,
        _ => AddressMode::Clamp,
    }
}

fn filter_mode(m: c_int) -> FilterMode {
    if m == 1 {
        FilterMode::Linear
    } else {
        FilterMode::Point
    }
}

impl Runtime {
    /// The device address of a reference's `.texref`, placing its module's variables.
    fn texref_handle(&mut self, call: &str, host: usize) -> Result<(u64, TexRef), Fail> {
        let Some(r) = texref(host) else {
            return Err(Fail::Api(
                INVALID_TEXTURE,
                format!("{host:#x} is not a registered texture reference"),
            ));
        };
        self.place_module_globals(r.module);
        match self.memory.symbol(&r.name) {
            Some(a) => Ok((a, r)),
            None => Err(Fail::Api(
                INVALID_TEXTURE,
                format!(
                    "{call}: texture reference `{}` is not in the device code",
                    r.name
                ),
            )),
        }
    }

    /// Checks the memory a texture covers (a live device allocation).
    fn texture_memory(&mut self, call: &str, base: u64, bytes: u64) -> api::Result {
        self.device_range(call, "memory of the texture", base, bytes.max(1))
            .map(|_| ())
    }

    /// Checks that linear filtering is used with float results only.
    fn check_filter(tex: &Texture) -> api::Result {
        let float = tex.format.kind == ChannelKind::Float || tex.read_normalized;
        if tex.filter == FilterMode::Linear && !float {
            return Err(Fail::Api(
                INVALID_FILTER_SETTING,
                "linear filtering of integer texels read as integers (cudaReadModeElementType)"
                    .into(),
            ));
        }
        Ok(())
    }

    /// Binds a reference to `tex` (its sampler state from the program's struct).
    fn bind_reference(
        &mut self,
        call: &str,
        texref: *const TextureReference,
        mut tex: Texture,
    ) -> api::Result {
        require(!texref.is_null(), || "texref is a null pointer".into())?;
        let (handle, r) = self.texref_handle(call, texref as usize)?;
        // SAFETY: a registered texture reference is the program's `texture<>` object.
        let t = unsafe { &*texref };
        tex.normalized_coords = t.normalized != 0;
        tex.filter = filter_mode(t.filter_mode);
        tex.address = t.address_mode.map(address_mode);
        tex.read_normalized = r.read_normalized;
        Self::check_filter(&tex)?;
        self.memory.textures_mut().bind(handle, tex);
        Ok(())
    }
}

/// `cudaBindTexture(offset, texref, devPtr, desc, size)`.
///
/// # Safety
/// Pointers as the CUDA runtime API documents them.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cudaBindTexture(
    offset: *mut usize,
    texref: *const TextureReference,
    dev_ptr: *const c_void,
    desc: *const ChannelFormatDesc,
    size: usize,
) -> CudaError {
    api::call("cudaBindTexture", |rt| {
        require(!desc.is_null(), || "desc is a null pointer".into())?;
        // SAFETY: non-null, the program's descriptor.
        let f = format(unsafe { &*desc })?;
        let base = dev_ptr as u64;
        // `size` is UINT_MAX when the C++ overload's default is taken: the allocation's rest.
        let bytes = match rt.alloc_at(base) {
            Some((b, a)) if size as u64 >= u32::MAX as u64 => a.size - (base - b),
            _ => size as u64,
        };
        rt.texture_memory("cudaBindTexture", base, bytes)?;
        rt.bind_reference("cudaBindTexture", texref, Texture::linear(base, bytes, f))?;
        if !offset.is_null() {
            // SAFETY: non-null output pointer.
            unsafe { put(offset, 0, "offset") }?;
        }
        Ok(())
    })
}

/// `cudaBindTexture2D(offset, texref, devPtr, desc, width, height, pitch)`.
///
/// # Safety
/// Pointers as the CUDA runtime API documents them.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cudaBindTexture2D(
    offset: *mut usize,
    texref: *const TextureReference,
    dev_ptr: *const c_void,
    desc: *const ChannelFormatDesc,
    width: usize,
    height: usize,
    pitch: usize,
) -> CudaError {
    api::call("cudaBindTexture2D", |rt| {
        require(!desc.is_null(), || "desc is a null pointer".into())?;
        // SAFETY: non-null, the program's descriptor.
        let f = format(unsafe { &*desc })?;
        let tex = pitched(dev_ptr as u64, f, width, height, pitch)?;
        rt.texture_memory("cudaBindTexture2D", tex.base, pitch as u64 * height as u64)?;
        rt.bind_reference("cudaBindTexture2D", texref, tex)?;
        if !offset.is_null() {
            // SAFETY: non-null output pointer.
            unsafe { put(offset, 0, "offset") }?;
        }
        Ok(())
    })
}

/// A 2D texture over pitched memory.
fn pitched(
    base: u64,
    f: Format,
    width: usize,
    height: usize,
    pitch: usize,
) -> Result<Texture, Fail> {
    require(width > 0 && height > 0, || {
        format!("a {width}×{height} texture")
    })?;
    let row = width as u64 * f.texel_bytes();
    require(pitch as u64 >= row, || {
        format!("pitch {pitch} is less than a row of {width} texels ({row} bytes)")
    })?;
    let mut tex = Texture::linear(base, pitch as u64 * height as u64, f);
    tex.size = [width as u64, height as u64, 1];
    tex.pitch = pitch as u64;
    tex.linear = false;
    Ok(tex)
}

/// `cudaUnbindTexture(texref)`.
///
/// # Safety
/// `texref` is the program's texture reference.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cudaUnbindTexture(texref: *const TextureReference) -> CudaError {
    api::call("cudaUnbindTexture", |rt| {
        let (handle, _) = rt.texref_handle("cudaUnbindTexture", texref as usize)?;
        rt.memory.textures_mut().unbind(handle);
        Ok(())
    })
}

/// `cudaGetTextureAlignmentOffset(offset, texref)`: always 0 (see the module docs).
///
/// # Safety
/// Pointers as the CUDA runtime API documents them.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cudaGetTextureAlignmentOffset(
    offset: *mut usize,
    texref: *const TextureReference,
) -> CudaError {
    api::call("cudaGetTextureAlignmentOffset", |rt| {
        rt.texref_handle("cudaGetTextureAlignmentOffset", texref as usize)?;
        // SAFETY: checked for null by `put`.
        unsafe { put(offset, 0, "offset") }
    })
}

/// The texture of an object's resource and texture descriptors.
///
/// # Safety
/// Both point at the program's descriptors.
unsafe fn object_texture(
    rt: &mut Runtime,
    res: &ResourceDesc,
    td: &TextureDesc,
) -> Result<Texture, Fail> {
    // SAFETY: the linear and pitch2D members share their first fields; which one is
    // meant is `res_type`.
    let p = unsafe { res.res.pitch2d };
    let mut tex = match res.res_type {
        RESOURCE_LINEAR => {
            let f = format(&p.desc)?;
            let bytes = p.width_or_size as u64;
            rt.texture_memory("cudaCreateTextureObject", p.dev_ptr as u64, bytes)?;
            Texture::linear(p.dev_ptr as u64, bytes, f)
        }
        RESOURCE_PITCH2D => {
            let f = format(&p.desc)?;
            let t = pitched(p.dev_ptr as u64, f, p.width_or_size, p.height, p.pitch)?;
            let bytes = p.pitch as u64 * p.height as u64;
            rt.texture_memory("cudaCreateTextureObject", t.base, bytes)?;
            t
        }
        RESOURCE_ARRAY | RESOURCE_MIPMAPPED_ARRAY => {
            rt.not_supported("cudaCreateTextureObject of a CUDA array");
            return Err(Fail::Reported(NOT_SUPPORTED));
        }
        t => return Err(Fail::Api(INVALID_VALUE, format!("resource type {t}"))),
    };
    tex.address = td.address_mode.map(address_mode);
    tex.filter = filter_mode(td.filter_mode);
    tex.read_normalized = td.read_mode == 1;
    tex.normalized_coords = td.normalized_coords != 0;
    tex.border = td.border_color;
    Runtime::check_filter(&tex)?;
    Ok(tex)
}

/// `cudaCreateTextureObject(texObject, resDesc, texDesc, resViewDesc)`.
///
/// # Safety
/// Pointers as the CUDA runtime API documents them.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cudaCreateTextureObject(
    tex_object: *mut u64,
    res_desc: *const ResourceDesc,
    tex_desc: *const TextureDesc,
    res_view_desc: *const c_void,
) -> CudaError {
    api::call("cudaCreateTextureObject", |rt| {
        require(
            !tex_object.is_null() && !res_desc.is_null() && !tex_desc.is_null(),
            || "pTexObject, pResDesc or pTexDesc is a null pointer".into(),
        )?;
        if !res_view_desc.is_null() {
            rt.not_supported("cudaCreateTextureObject with a resource view");
            return Err(Fail::Reported(NOT_SUPPORTED));
        }
        // SAFETY: non-null, the program's descriptors.
        let tex = unsafe { object_texture(rt, &*res_desc, &*tex_desc) }?;
        let h = rt.memory.textures_mut().create_object(tex);
        // SAFETY: non-null output pointer.
        unsafe { put(tex_object, h, "pTexObject") }
    })
}

/// `cudaDestroyTextureObject(texObject)`.
#[unsafe(no_mangle)]
pub extern "C" fn cudaDestroyTextureObject(tex_object: u64) -> CudaError {
    api::call("cudaDestroyTextureObject", |rt| {
        if tex_object == 0 || rt.memory.textures_mut().unbind(tex_object) {
            Ok(())
        } else {
            Err(Fail::Api(
                INVALID_VALUE,
                format!("{tex_object:#x} is not a texture object (destroyed twice?)"),
            ))
        }
    })
}
