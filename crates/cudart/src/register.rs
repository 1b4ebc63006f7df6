//! The registration entry points that clang's host compilation calls from each
//! translation unit's constructor (`__cuda_module_ctor`): the device image, then one
//! `__cudaRegisterFunction` per kernel (host stub -> PTX entry name) and one
//! `__cudaRegisterVar` per `__device__`/`__constant__` variable (host shadow -> PTX name).
//!
//! The device image is the file the CLI handed to clang with `-fcuda-include-gpubinary`,
//! embedded in the program (NUL-terminated): the line [`IMAGE_MAGIC`], the name the PTX
//! has in findings, and the PTX text. It is parsed and lowered here, once per process.

use std::ffi::{CStr, c_char, c_int, c_void};

use crate::state::{self, DeviceVar, Module};

/// The first line of a device image made by `warpcheck`.
pub const IMAGE_MAGIC: &str = "WARPCHECK-PTX-IMAGE";

/// clang's fat binary wrapper (`__cuda_fatbin_wrapper`).
#[repr(C)]
struct FatbinWrapper {
    magic: c_int,
    version: c_int,
    data: *const c_char,
    unused: *const c_void,
}

/// Splits an image into (PTX name, PTX).
pub fn parse_image(image: &str) -> Option<(&str, &str)> {
    let rest = image.strip_prefix(IMAGE_MAGIC)?.strip_prefix('\n')?;
    rest.split_once('\n')
}

/// Parses and lowers an image's PTX into a module.
fn load_module(
    image: &str,
    check: Option<warpcheck_check::CheckOptions>,
) -> Result<Module, String> {
    let (name, ptx) =
        parse_image(image).ok_or("the device image was not made by warpcheck (no PTX image)")?;
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
/// `wrapper` is clang's `__cuda_fatbin_wrapper`, whose data is a NUL-terminated image.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn __cudaRegisterFatBinary(wrapper: *const c_void) -> *mut *mut c_void {
    let image = if wrapper.is_null() {
        None
    } else {
        // SAFETY: per the contract above.
        let w = unsafe { &*(wrapper as *const FatbinWrapper) };
        (!w.data.is_null()).then(|| unsafe { CStr::from_ptr(w.data) }.to_string_lossy())
    };
    let index = state::with(|rt| {
        let check = rt.config.check;
        let (start, cpu) = (std::time::Instant::now(), rt.timings.launch_clock());
        let loaded = image
            .as_deref()
            .ok_or_else(|| "no device image".to_string())
            .and_then(|i| load_module(i, check));
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

/// nvcc's registration of `__managed__` variables: not supported (warpcheck compiles host
/// code with clang, whose managed variables [`crate::managed_vars`] handles).
#[unsafe(no_mangle)]
pub extern "C" fn __cudaRegisterManagedVar() {
    state::with(|rt| rt.not_supported("__managed__ variables (__cudaRegisterManagedVar)"));
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
