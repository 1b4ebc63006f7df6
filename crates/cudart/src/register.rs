//! The registration entry points that the host compiler's code calls from each
//! translation unit's constructor (clang's `__cuda_module_ctor`, nvcc's
//! `__sti____cudaRegisterAll`): the device code, then one `__cudaRegisterFunction` per
//! kernel (host stub -> PTX entry name), one `__cudaRegisterVar` per
//! `__device__`/`__constant__` variable (host shadow -> PTX name) and, from nvcc, one
//! `__cudaRegisterManagedVar` per `__managed__` variable.
//!
//! The wrapper handed to `__cudaRegisterFatBinary` points at one of two things:
//!
//! * From clang, the device image the CLI handed over with `-fcuda-include-gpubinary`:
//!   the line [`IMAGE_MAGIC`], a line with the byte length of the rest, then the name the
//!   PTX has in findings, a newline and the PTX text. It is read by that length (whether
//!   the compiler adds a NUL after embedded binaries differs between clang versions).
//! * From nvcc, NVIDIA's fat binary ([`crate::fatbin`]), read by the length its header
//!   gives (bounded); its PTX entry for the emulated architecture is the module, named
//!   after the source file the entry records (`FILE.ptx`, as the CLI names the PTX it
//!   validated).
//!
//! Either PTX is parsed and lowered here, once per process.

use std::ffi::{CStr, c_char, c_int, c_void};

use crate::state::{self, DeviceVar, Module};

/// The first line of a device image made by `warpcheck`.
pub const IMAGE_MAGIC: &str = "WARPCHECK-PTX-IMAGE";

/// The fat binary wrapper of clang (`__cuda_fatbin_wrapper`) and nvcc (`__fatbinwrap`).
#[repr(C)]
struct FatbinWrapper {
    magic: c_int,
    version: c_int,
    data: *const c_char,
    unused: *const c_void,
}

/// The image of the PTX called `name` (see the module's documentation).
pub fn make_image(name: &str, ptx: &str) -> String {
    let rest = format!("{name}\n{ptx}");
    format!("{IMAGE_MAGIC}\n{}\n{rest}", rest.len())
}

/// Splits an image into (PTX name, PTX).
pub fn parse_image(image: &str) -> Option<(&str, &str)> {
    let (_, rest) = image
        .strip_prefix(IMAGE_MAGIC)?
        .strip_prefix('\n')?
        .split_once('\n')?;
    rest.split_once('\n')
}

/// Reads the image at `data`: the magic line, the length line, and as many bytes as it
/// says. `None` when `data` does not start with an image of warpcheck's.
///
/// # Safety
/// `data` points at readable memory holding either a warpcheck image or, like a real fat
/// binary, at least `IMAGE_MAGIC.len()` bytes.
unsafe fn read_image(data: *const u8) -> Option<String> {
    let head = IMAGE_MAGIC.len() + 1;
    // SAFETY: per the contract, the first `head` bytes are readable (a mismatch stops at
    // the first differing byte).
    for (i, want) in IMAGE_MAGIC.bytes().chain([b'\n']).enumerate() {
        if unsafe { *data.add(i) } != want {
            return None;
        }
    }
    let mut len = 0usize;
    let mut digits = 0;
    loop {
        // SAFETY: an image's length line follows its magic line.
        let b = unsafe { *data.add(head + digits) };
        match b {
            b'0'..=b'9' if digits < 19 => len = len * 10 + usize::from(b - b'0'),
            b'\n' if digits > 0 => break,
            _ => return None,
        }
        digits += 1;
    }
    // SAFETY: the image holds `len` bytes after its length line.
    let rest = unsafe { std::slice::from_raw_parts(data.add(head + digits + 1), len) };
    Some(format!(
        "{IMAGE_MAGIC}\n{len}\n{}",
        String::from_utf8_lossy(rest)
    ))
}

/// Reads the device code at `data`, a warpcheck image or an NVIDIA fat binary: the
/// PTX's name in findings and the PTX text, for the emulated `sm_{arch}`.
///
/// # Safety
/// `data` points at readable memory holding a warpcheck image or a fat binary container
/// (whose header's length is then read, up to [`crate::fatbin::MAX_CONTAINER_BYTES`] and
/// to the end of the loaded segment holding it).
unsafe fn read_device_code(data: *const u8, arch: u32) -> Result<(String, String), String> {
    // SAFETY: both kinds of device code are longer than four bytes.
    let magic = unsafe { std::slice::from_raw_parts(data, 4) };
    if crate::fatbin::is_fatbin(magic) {
        // SAFETY: a container starts with its 16-byte header.
        let head =
            unsafe { std::slice::from_raw_parts(data, crate::fatbin::CONTAINER_HEADER_BYTES) };
        let len = crate::fatbin::container_len(head).map_err(|e| e.to_string())?;
        // A length past the end of the loaded segment that holds the fat binary would
        // read unmapped memory: such a header is corrupt.
        if let Some(mapped) = mapped_bytes_from(data as usize)
            && len > mapped
        {
            return Err(format!(
                "corrupt fat binary: its header gives {len} bytes, the program holds {mapped} from it"
            ));
        }
        // SAFETY: the container holds the length its header gives (bounded above by the
        // maximum and by the segment it lies in).
        let bytes = unsafe { std::slice::from_raw_parts(data, len) };
        let entries = crate::fatbin::ptx_entries(bytes).map_err(|e| e.to_string())?;
        let entry = crate::fatbin::select(&entries, arch).ok_or("the fat binary holds no PTX")?;
        let name = entry.name.as_deref().unwrap_or("device");
        return Ok((format!("{name}.ptx"), entry.ptx.clone()));
    }
    // SAFETY: per the contract, not a fat binary, so an image at least as long as its
    // magic line.
    let image = unsafe { read_image(data) }
        .ok_or("the device code is neither warpcheck's PTX image nor an NVIDIA fat binary")?;
    let (name, ptx) = parse_image(&image).ok_or("the device image has no PTX")?;
    Ok((name.to_string(), ptx.to_string()))
}

/// How many bytes from `addr` to the end of the loaded segment (of the program or a
/// library) that holds it; `None` when no segment does (e.g. heap memory in tests).
fn mapped_bytes_from(addr: usize) -> Option<usize> {
    struct Search {
        addr: usize,
        found: Option<usize>,
    }
    unsafe extern "C" fn visit(
        info: *mut libc::dl_phdr_info,
        _size: libc::size_t,
        data: *mut c_void,
    ) -> c_int {
        // SAFETY: `dl_iterate_phdr` passes a valid `info` whose `dlpi_phdr` points at
        // `dlpi_phnum` headers, and our `data`.
        unsafe {
            let search = &mut *data.cast::<Search>();
            let info = &*info;
            let headers = std::slice::from_raw_parts(info.dlpi_phdr, usize::from(info.dlpi_phnum));
            for h in headers.iter().filter(|h| h.p_type == libc::PT_LOAD) {
                let start = (info.dlpi_addr as usize).wrapping_add(h.p_vaddr as usize);
                let end = start.wrapping_add(h.p_memsz as usize);
                if (start..end).contains(&search.addr) {
                    search.found = Some(end - search.addr);
                    return 1;
                }
            }
        }
        0
    }
    let mut search = Search { addr, found: None };
    // SAFETY: `visit` only reads what the loader hands it and writes `search`.
    unsafe { libc::dl_iterate_phdr(Some(visit), (&mut search as *mut Search).cast()) };
    search.found
}

/// Parses and lowers a PTX into a module.
fn load_module(
    (name, ptx): (String, String),
    check: Option<warpcheck_check::CheckOptions>,
) -> Result<Module, String> {
    let (name, ptx) = (name.as_str(), ptx.as_str());
    let parsed = warpcheck_ptx::parse(ptx);
    if let Some(e) = parsed.errors.first() {
        return Err(format!("{name}: syntax error: {}", e.message));
    }
    let program = warpcheck_ir::lower(&parsed.module).map_err(|errors| {
        let first = errors.first().map_or(String::new(), |e| e.message.clone());
        format!("{name}: cannot lower the PTX: {first}")
    })?;
    Ok(Module {
        ptx_name: name.to_string(),
        ptx: ptx.to_string(),
        program,
        checker: check.map(warpcheck_check::Checker::new),
        placed: false,
    })
}

/// `void **__cudaRegisterFatBinary(void *fatCubin)`: loads the module; the handle points
/// at its index.
///
/// # Safety
/// `wrapper` is clang's `__cuda_fatbin_wrapper` or nvcc's `__fatbinwrap`, whose data is
/// an image of warpcheck's or a fat binary container (see [`read_device_code`]).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn __cudaRegisterFatBinary(wrapper: *const c_void) -> *mut *mut c_void {
    // SAFETY: per the contract above.
    let wrapper = unsafe { wrapper.cast::<FatbinWrapper>().as_ref() };
    let data = wrapper.map_or(std::ptr::null(), |w| w.data);
    let index = state::with(|rt| {
        let code = match wrapper {
            None => Err("no fat binary wrapper".to_string()),
            Some(w) if w.magic as u32 != crate::fatbin::WRAPPER_MAGIC => Err(format!(
                "the fat binary wrapper has magic {:#010x}, expected {:#010x}",
                w.magic as u32,
                crate::fatbin::WRAPPER_MAGIC
            )),
            _ if data.is_null() => Err("no device code".to_string()),
            // SAFETY: per the contract above.
            _ => unsafe { read_device_code(data.cast(), rt.config.sm()) },
        };
        let check = rt.config.check;
        let (start, cpu) = (std::time::Instant::now(), rt.timings.launch_clock());
        let loaded = code.and_then(|c| load_module(c, check));
        rt.timings.add_load(start, cpu);
        match loaded {
            Ok(module) => {
                rt.modules.push(module);
                rt.modules.len() - 1
            }
            Err(e) => {
                eprintln!("warpcheck: cannot load the program's device code: {e}");
                usize::MAX
            }
        }
    });
    Box::into_raw(Box::new(index as *mut c_void))
}

/// `void __cudaRegisterFatBinaryEnd(void **handle)`: nothing left to do.
#[unsafe(no_mangle)]
pub extern "C" fn __cudaRegisterFatBinaryEnd(_handle: *mut *mut c_void) {}

/// `void __cudaUnregisterFatBinary(void **handle)`: modules live until exit, when the
/// report needs them.
#[unsafe(no_mangle)]
pub extern "C" fn __cudaUnregisterFatBinary(_handle: *mut *mut c_void) {}

/// The module index behind a handle.
///
/// # Safety
/// `handle` is null or came from [`__cudaRegisterFatBinary`].
unsafe fn module_of(handle: *mut *mut c_void) -> Option<usize> {
    if handle.is_null() {
        return None;
    }
    // SAFETY: per the contract above.
    let i = unsafe { *handle } as usize;
    (i != usize::MAX).then_some(i)
}

/// `__cudaRegisterFunction(handle, hostFun, deviceFun, deviceName, threadLimit, tid, bid,
/// bDim, gDim, wSize)`: maps the host stub to the kernel of that PTX name.
///
/// # Safety
/// `handle` came from [`__cudaRegisterFatBinary`]; `device_fun` is a C string.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn __cudaRegisterFunction(
    handle: *mut *mut c_void,
    host_fun: *const c_void,
    device_fun: *const c_char,
    _device_name: *const c_char,
    _thread_limit: c_int,
    _tid: *mut c_void,
    _bid: *mut c_void,
    _bdim: *mut c_void,
    _gdim: *mut c_void,
    _wsize: *mut c_int,
) {
    // SAFETY: per the contract above.
    let (Some(m), false) = (unsafe { module_of(handle) }, device_fun.is_null()) else {
        return;
    };
    // SAFETY: clang passes the kernel's name as a C string constant.
    let name = unsafe { CStr::from_ptr(device_fun) }.to_string_lossy();
    state::with(|rt| {
        let program = &rt.modules[m].program;
        if let Some(f) = program
            .kernels()
            .find(|&k| program.function(k).name == name)
        {
            rt.kernels.insert(host_fun as usize, (m, f));
        }
    });
}

/// `__cudaRegisterVar(handle, hostVar, deviceAddress, deviceName, ext, size, constant,
/// global)`: maps the host shadow of a `__device__`/`__constant__` variable to the PTX
/// variable. The size comes from the PTX (clang passes it as `int` or `size_t` depending
/// on its version).
///
/// # Safety
/// `handle` came from [`__cudaRegisterFatBinary`]; `device_name` is a C string.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn __cudaRegisterVar(
    handle: *mut *mut c_void,
    host_var: *mut c_char,
    _device_address: *mut c_char,
    device_name: *const c_char,
) {
    // SAFETY: per the contract above.
    let (Some(m), false) = (unsafe { module_of(handle) }, device_name.is_null()) else {
        return;
    };
    // SAFETY: clang passes the variable's name as a C string constant.
    let name = unsafe { CStr::from_ptr(device_name) }.to_string_lossy();
    state::with(|rt| {
        let program = &rt.modules[m].program;
        let found = program
            .globals
            .iter()
            .copied()
            .find(|&v| program.variable(v).name == name);
        if let Some(v) = found {
            let var = program.variable(v);
            let managed = crate::managed_vars::is_managed(host_var as usize);
            let device_var = DeviceVar {
                module: m,
                var: v,
                name: var.display_name().to_string(),
                size: var.size.unwrap_or(0),
                constant: var.space == warpcheck_ptx::ast::StateSpace::Const,
                managed_shadow: managed.then_some(host_var as usize),
            };
            if managed {
                rt.init_managed_shadow(host_var as usize, &device_var);
            }
            rt.vars.insert(host_var as usize, device_var);
        }
    });
}

/// `__cudaRegisterManagedVar(handle, hostVarPtrAddress, deviceAddress, deviceName, ext,
/// size, constant, global)`: nvcc's host code reaches a `__managed__` variable through a
/// pointer (`*hostVarPtrAddress`) that the runtime sets. It is pointed at a host copy
/// made here (initialised from the PTX), registered as the variable's managed shadow:
/// from then on the variable behaves as clang's managed variables do
/// ([`crate::managed_vars`]).
///
/// # Safety
/// `handle` came from [`__cudaRegisterFatBinary`]; `host_var_ptr` is valid for a pointer
/// write; `device_name` is a C string.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn __cudaRegisterManagedVar(
    handle: *mut *mut c_void,
    host_var_ptr: *mut *mut c_void,
    _device_address: *mut c_char,
    device_name: *const c_char,
    _ext: c_int,
    size: usize,
) {
    // SAFETY: per the contract above.
    let (Some(m), false, false) = (
        unsafe { module_of(handle) },
        device_name.is_null(),
        host_var_ptr.is_null(),
    ) else {
        return;
    };
    // SAFETY: nvcc passes the variable's name as a C string constant.
    let name = unsafe { CStr::from_ptr(device_name) }.to_string_lossy();
    state::with(|rt| {
        let program = &rt.modules[m].program;
        let Some(v) = program
            .globals
            .iter()
            .copied()
            .find(|&v| program.variable(v).name == name)
        else {
            return;
        };
        let var = program.variable(v);
        let size = var.size.unwrap_or(size as u64).max(1);
        // The host copy lives until exit, as the variable does; 16-byte aligned like a
        // device allocation.
        let words = vec![0u128; size.div_ceil(16) as usize].into_boxed_slice();
        let copy = Box::leak(words).as_mut_ptr() as usize;
        let device_var = DeviceVar {
            module: m,
            var: v,
            name: var.display_name().to_string(),
            size,
            constant: false,
            managed_shadow: Some(copy),
        };
        rt.init_managed_shadow(copy, &device_var);
        rt.vars.insert(copy, device_var);
        // SAFETY: per the contract above.
        unsafe { *host_var_ptr = copy as *mut c_void };
    });
}

// Texture references register in `crate::texture`.

/// Surface references: not supported.
#[unsafe(no_mangle)]
pub extern "C" fn __cudaRegisterSurface() {
    state::with(|rt| rt.not_supported("surface references (__cudaRegisterSurface)"));
}

/// `char __cudaInitModule(void **handle)`.
#[unsafe(no_mangle)]
pub extern "C" fn __cudaInitModule(_handle: *mut *mut c_void) -> c_char {
    1
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A fat binary in the program's data is bounded by its segment; heap memory is in
    /// none.
    #[test]
    fn loaded_segments_bound_what_is_read() {
        static DATA: [u8; 64] = [7; 64];
        let mapped = mapped_bytes_from(DATA.as_ptr() as usize).expect("a loaded segment");
        assert!(mapped >= 64, "{mapped}");
        let heap = vec![0u8; 1 << 20];
        assert_eq!(mapped_bytes_from(heap.as_ptr() as usize + 4096), None);
    }

    /// A fat binary whose header claims more than the memory holding it is refused.
    #[test]
    fn a_fat_binary_longer_than_its_segment_is_refused() {
        static FATBIN: [u8; 16] = [
            0x50, 0xed, 0x55, 0xba, 1, 0, 16, 0, 0, 0, 0, 0x10, 0, 0, 0, 0,
        ];
        // SAFETY: 16 readable bytes, a container header.
        let err = unsafe { read_device_code(FATBIN.as_ptr(), 90) }.unwrap_err();
        assert!(err.contains("corrupt fat binary"), "{err}");
    }

    /// An image is read by the length it carries, whatever follows it in the section.
    #[test]
    fn an_image_is_read_by_its_length_not_up_to_a_nul() {
        let mut bytes = make_image("k.cu.ptx", ".version 8.0\n.target sm_80\n").into_bytes();
        bytes.extend_from_slice(b"bytes of the next section");
        // SAFETY: `bytes` holds the image.
        let read = unsafe { read_image(bytes.as_ptr()) }.expect("an image");
        assert_eq!(
            parse_image(&read),
            Some(("k.cu.ptx", ".version 8.0\n.target sm_80\n"))
        );
    }

    /// NVIDIA's fat binaries (magic 0xba55ed50) and truncated headers are not images.
    #[test]
    fn other_binaries_are_not_images() {
        let mut fatbin = vec![0x50, 0xed, 0x55, 0xba, 0x01, 0x00, 0x10, 0x00];
        fatbin.resize(64, 0);
        // SAFETY: 64 readable bytes, more than the magic line.
        assert!(unsafe { read_image(fatbin.as_ptr()) }.is_none());
        let bad_length = format!("{IMAGE_MAGIC}\nx12\n");
        // SAFETY: the magic line and a length line are readable.
        assert!(unsafe { read_image(bad_length.as_ptr()) }.is_none());
    }
}
