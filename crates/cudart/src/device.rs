//! The emulated device and the calls about it: errors, device properties and attributes,
//! synchronisation and reset, versions, limits and cache hints.
//!
//! The device is one GPU like an H100 (sm_90: 132 multiprocessors, 80 GB); `--arch`
//! sets the compute capability it reports. Its limits are the emulator's (1024 threads per
//! block, 227 KiB of shared memory per block with opt-in, 48 KiB without).

use std::ffi::{c_char, c_int, c_uint, c_void};

use crate::api::{self, Fail, put, require};
use crate::state::{self, Runtime};
use crate::types::*;

pub const TOTAL_GLOBAL_MEM: usize = 80 * (1 << 30);
pub const MULTIPROCESSORS: c_int = 132;
pub const SHARED_PER_BLOCK: usize = 48 * 1024;
pub const SHARED_PER_BLOCK_OPTIN: usize = warpcheck_emu::MAX_SHARED_BYTES as usize;
pub const SHARED_PER_SM: usize = 228 * 1024;
pub const THREADS_PER_SM: c_int = 2048;
pub const BLOCKS_PER_SM: c_int = 32;
pub const REGS: c_int = 65536;

/// The device's properties.
pub fn properties(arch: (i32, i32)) -> DeviceProp {
    // SAFETY: DeviceProp is plain old data (integers and byte arrays): all zeros is valid.
    let mut p: DeviceProp = unsafe { std::mem::zeroed() };
    let name = format!("warpcheck emulated GPU (sm_{}{})", arch.0, arch.1);
    p.name[..name.len()].copy_from_slice(name.as_bytes());
    p.uuid.bytes = *b"warpcheck-emu-00";
    p.total_global_mem = TOTAL_GLOBAL_MEM;
    p.shared_mem_per_block = SHARED_PER_BLOCK;
    p.regs_per_block = REGS;
    p.warp_size = 32;
    p.mem_pitch = i32::MAX as usize;
    p.max_threads_per_block = warpcheck_emu::MAX_BLOCK_THREADS as c_int;
    p.max_threads_dim = [1024, 1024, 64];
    p.max_grid_size = [i32::MAX, 65535, 65535];
    p.clock_rate = 1_755_000;
    p.total_const_mem = 65536;
    p.major = arch.0;
    p.minor = arch.1;
    p.texture_alignment = 512;
    p.texture_pitch_alignment = crate::memapi::PITCH_ALIGN;
    p.device_overlap = 1;
    p.multi_processor_count = MULTIPROCESSORS;
    p.can_map_host_memory = 1;
    p.concurrent_kernels = 1;
    p.async_engine_count = 2;
    p.unified_addressing = 1;
    p.memory_clock_rate = 2_619_000;
    p.memory_bus_width = 5120;
    p.l2_cache_size = 50 * (1 << 20);
    p.max_threads_per_multi_processor = THREADS_PER_SM;
    p.stream_priorities_supported = 1;
    p.global_l1_cache_supported = 1;
    p.local_l1_cache_supported = 1;
    p.shared_mem_per_multiprocessor = SHARED_PER_SM;
    p.regs_per_multiprocessor = REGS;
    p.managed_memory = 1;
    p.concurrent_managed_access = 1;
    p.compute_preemption_supported = 1;
    p.cooperative_launch = 1;
    p.shared_mem_per_block_optin = SHARED_PER_BLOCK_OPTIN;
    p.max_blocks_per_multi_processor = BLOCKS_PER_SM;
    p.reserved_shared_mem_per_block = 1024;
    p
}

/// `cudaDeviceGetAttribute` values (the shim's `enum cudaDeviceAttr`).
fn attribute(p: &DeviceProp, attr: c_int) -> Option<c_int> {
    Some(match attr {
        1 => p.max_threads_per_block,
        2..=4 => p.max_threads_dim[(attr - 2) as usize],
        5..=7 => p.max_grid_size[(attr - 5) as usize],
        8 => p.shared_mem_per_block as c_int,
        9 => p.total_const_mem as c_int,
        10 => p.warp_size,
        11 => p.mem_pitch as c_int,
        12 => p.regs_per_block,
        13 => p.clock_rate,
        14 => p.texture_alignment as c_int,
        15 => p.device_overlap,
        16 => p.multi_processor_count,
        17 => 0,
        18 => 0,
        19 => p.can_map_host_memory,
        20 => 0,
        31 => p.concurrent_kernels,
        32 => 0,
        33 | 34 => 0,
        36 => p.memory_clock_rate,
        37 => p.memory_bus_width,
        38 => p.l2_cache_size,
        39 => p.max_threads_per_multi_processor,
        40 => p.async_engine_count,
        41 => p.unified_addressing,
        75 => p.major,
        76 => p.minor,
        81 => p.shared_mem_per_multiprocessor as c_int,
        82 => p.regs_per_multiprocessor,
        83 => p.managed_memory,
        95 => p.cooperative_launch,
        97 => p.shared_mem_per_block_optin as c_int,
        _ => return None,
    })
}

#[unsafe(no_mangle)]
pub extern "C" fn cudaGetLastError() -> CudaError {
    state::with(|rt| {
        rt.timings.api_calls += 1;
        let e = if rt.sticky != SUCCESS {
            rt.sticky
        } else {
            rt.last_error
        };
        rt.last_error = SUCCESS;
        e
    })
}

#[unsafe(no_mangle)]
pub extern "C" fn cudaPeekAtLastError() -> CudaError {
    state::with(|rt| {
        rt.timings.api_calls += 1;
        if rt.sticky != SUCCESS {
            rt.sticky
        } else {
            rt.last_error
        }
    })
}

#[unsafe(no_mangle)]
pub extern "C" fn cudaGetErrorString(code: CudaError) -> *const c_char {
    error_entry(code).map_or(c"unrecognized error code".as_ptr(), |e| e.2.as_ptr().cast())
}

#[unsafe(no_mangle)]
pub extern "C" fn cudaGetErrorName(code: CudaError) -> *const c_char {
    error_entry(code).map_or(c"cudaErrorUnknown".as_ptr(), |e| e.1.as_ptr().cast())
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cudaGetDeviceCount(count: *mut c_int) -> CudaError {
    api::call_always("cudaGetDeviceCount", |_| unsafe { put(count, 1, "count") })
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cudaGetDevice(device: *mut c_int) -> CudaError {
    api::call("cudaGetDevice", |rt| unsafe {
        put(device, rt.device, "device")
    })
}

/// The one device, 0.
fn check_device(device: c_int) -> api::Result {
    if device == 0 {
        Ok(())
    } else {
        Err(Fail::Api(
            INVALID_DEVICE,
            format!("device {device} does not exist (the emulator is device 0)"),
        ))
    }
}

#[unsafe(no_mangle)]
pub extern "C" fn cudaSetDevice(device: c_int) -> CudaError {
    api::call("cudaSetDevice", |rt| {
        check_device(device)?;
        rt.device = device;
        Ok(())
    })
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cudaChooseDevice(device: *mut c_int, _prop: *const c_void) -> CudaError {
    api::call("cudaChooseDevice", |_| unsafe { put(device, 0, "device") })
}

/// `cudaGetDeviceProperties(prop, device)`, in the layout of the headers the program was
/// compiled with: the shim's, or NVIDIA's CUDA 13 one ([`DeviceProp13`]) when the CLI
/// says nvcc 13 or later compiled the host side.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cudaGetDeviceProperties(
    prop: *mut DeviceProp,
    device: c_int,
) -> CudaError {
    api::call_always("cudaGetDeviceProperties", |rt| {
        check_device(device)?;
        let shim = properties(rt.config.arch);
        if rt.config.nvidia_headers.is_some_and(|major| major >= 13) {
            let prop = prop.cast::<DeviceProp13>();
            unsafe { put(prop, DeviceProp13::from_shim(&shim), "prop") }
        } else {
            unsafe { put(prop, shim, "prop") }
        }
    })
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cudaDeviceGetAttribute(
    value: *mut c_int,
    attr: c_int,
    device: c_int,
) -> CudaError {
    api::call_always("cudaDeviceGetAttribute", |rt| {
        check_device(device)?;
        let v = attribute(&properties(rt.config.arch), attr).ok_or_else(|| {
            Fail::Api(
                INVALID_VALUE,
                format!("device attribute {attr} is not known to warpcheck"),
            )
        })?;
        unsafe { put(value, v, "value") }
    })
}

#[unsafe(no_mangle)]
pub extern "C" fn cudaDeviceSynchronize() -> CudaError {
    api::call("cudaDeviceSynchronize", |_| Ok(()))
}

#[unsafe(no_mangle)]
pub extern "C" fn cudaThreadSynchronize() -> CudaError {
    api::call("cudaThreadSynchronize", |_| Ok(()))
}

impl Runtime {
    /// `cudaDeviceReset`: reports leaks (`--leak-check full`), frees all device memory and
    /// clears the errors.
    fn reset(&mut self) {
        self.check_leaks();
        let live: Vec<(u64, u64, bool)> = self
            .allocs
            .iter()
            .filter(|(_, a)| a.freed.is_none())
            .map(|(&b, a)| (b, a.size, a.kind == crate::state::AllocKind::Managed))
            .collect();
        for (base, size, managed) in live {
            if managed {
                crate::managed::unmap(base, size);
            }
            self.memory.free(base);
        }
        self.allocs.clear();
        self.managed.clear();
        self.live_bytes = 0;
        self.sticky = SUCCESS;
        self.last_error = SUCCESS;
    }
}

#[unsafe(no_mangle)]
pub extern "C" fn cudaDeviceReset() -> CudaError {
    api::call_always("cudaDeviceReset", |rt| {
        rt.reset();
        Ok(())
    })
}

#[unsafe(no_mangle)]
pub extern "C" fn cudaThreadExit() -> CudaError {
    cudaDeviceReset()
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cudaDriverGetVersion(v: *mut c_int) -> CudaError {
    api::call_always("cudaDriverGetVersion", |_| unsafe {
        put(v, 12000, "driverVersion")
    })
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cudaRuntimeGetVersion(v: *mut c_int) -> CudaError {
    api::call_always("cudaRuntimeGetVersion", |_| unsafe {
        put(v, 12000, "runtimeVersion")
    })
}

/// Calls that set hints or flags the emulator has no use for; valid arguments succeed.
macro_rules! hint {
    ($($name:ident($($arg:ident: $ty:ty),*)),* $(,)?) => {
        $(
            #[unsafe(no_mangle)]
            pub extern "C" fn $name($($arg: $ty),*) -> CudaError {
                $(let _ = $arg;)*
                api::call(stringify!($name), |_| Ok(()))
            }
        )*
    };
}

hint!(
    cudaSetDeviceFlags(flags: c_uint),
    cudaDeviceSetCacheConfig(config: c_int),
    cudaDeviceSetSharedMemConfig(config: c_int),
    cudaThreadSetCacheConfig(config: c_int),
    cudaFuncSetCacheConfig(func: *const c_void, config: c_int),
    cudaFuncSetSharedMemConfig(func: *const c_void, config: c_int),
    cudaProfilerStart(),
    cudaProfilerStop(),
);

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cudaGetDeviceFlags(flags: *mut c_uint) -> CudaError {
    api::call("cudaGetDeviceFlags", |_| unsafe { put(flags, 0, "flags") })
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cudaDeviceGetCacheConfig(config: *mut c_int) -> CudaError {
    api::call("cudaDeviceGetCacheConfig", |_| unsafe {
        put(config, 0, "config")
    })
}

#[unsafe(no_mangle)]
pub extern "C" fn cudaDeviceSetLimit(limit: c_int, value: usize) -> CudaError {
    api::call("cudaDeviceSetLimit", |rt| {
        require((0..=6).contains(&limit), || {
            format!("{limit} is not a cudaLimit")
        })?;
        if limit == LIMIT_MALLOC_HEAP_SIZE {
            // As on the GPU: only before the first launch that uses the heap.
            rt.memory.set_heap_limit(value as u64).map_err(|placed| {
                Fail::Api(
                    INVALID_VALUE,
                    format!(
                        "cudaLimitMallocHeapSize cannot change after a kernel that calls malloc or free was launched (the heap has {placed} bytes)"
                    ),
                )
            })?;
        }
        Ok(())
    })
}

/// `cudaLimitMallocHeapSize`: the device heap of in-kernel `malloc` (`warpcheck_emu::heap`).
const LIMIT_MALLOC_HEAP_SIZE: c_int = 2;

#[unsafe(no_mangle)]
pub extern "C" fn cudaThreadSetLimit(limit: c_int, value: usize) -> CudaError {
    cudaDeviceSetLimit(limit, value)
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cudaDeviceGetLimit(value: *mut usize, limit: c_int) -> CudaError {
    api::call("cudaDeviceGetLimit", |rt| {
        let v = match limit {
            0 => 1024,
            1 => 1 << 20,
            LIMIT_MALLOC_HEAP_SIZE => rt.memory.heap_limit() as usize,
            3 => 2,
            4 => 2048,
            5 => 32,
            6 => 0,
            _ => {
                return Err(Fail::Api(
                    INVALID_VALUE,
                    format!("{limit} is not a cudaLimit"),
                ));
            }
        };
        unsafe { put(value, v, "pValue") }
    })
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cudaDeviceCanAccessPeer(
    can: *mut c_int,
    _device: c_int,
    _peer: c_int,
) -> CudaError {
    api::call("cudaDeviceCanAccessPeer", |_| unsafe {
        put(can, 0, "canAccessPeer")
    })
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cudaDeviceGetStreamPriorityRange(
    least: *mut c_int,
    greatest: *mut c_int,
) -> CudaError {
    api::call("cudaDeviceGetStreamPriorityRange", |_| {
        if !least.is_null() {
            unsafe { *least = 0 };
        }
        if !greatest.is_null() {
            unsafe { *greatest = -5 };
        }
        Ok(())
    })
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cudaPointerGetAttributes(
    attr: *mut PointerAttributes,
    ptr: *const c_void,
) -> CudaError {
    api::call("cudaPointerGetAttributes", |rt| {
        require(!attr.is_null(), || "attributes is a null pointer".into())?;
        let a = ptr as u64;
        let (kind, device, host) = match rt.alloc_at(a) {
            Some((_, d)) if d.kind == crate::state::AllocKind::Managed => (3, a, a),
            Some(_) => (2, a, 0),
            None if rt.memory.allocation_at(a).is_some() => (2, a, 0),
            None if rt.host_allocs.contains_key(&(a as usize)) || rt.is_registered(a as usize) => {
                (1, 0, a)
            }
            None => (0, 0, a),
        };
        unsafe {
            *attr = PointerAttributes {
                kind,
                device: 0,
                device_pointer: device as *mut c_void,
                host_pointer: host as *mut c_void,
            }
        };
        Ok(())
    })
}

/// `struct cudaChannelFormatDesc` (returned by value).
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct ChannelFormatDesc {
    pub x: c_int,
    pub y: c_int,
    pub z: c_int,
    pub w: c_int,
    pub f: c_int,
}

#[unsafe(no_mangle)]
pub extern "C" fn cudaCreateChannelDesc(
    x: c_int,
    y: c_int,
    z: c_int,
    w: c_int,
    f: c_int,
) -> ChannelFormatDesc {
    ChannelFormatDesc { x, y, z, w, f }
}

/// `cudaCtxResetPersistingL2Cache()`: returns the L2 lines set aside for persisting
/// accesses to normal. The emulator models no L2 cache, so no line persists and there is
/// nothing to reset.
#[unsafe(no_mangle)]
pub extern "C" fn cudaCtxResetPersistingL2Cache() -> CudaError {
    api::call("cudaCtxResetPersistingL2Cache", |_| Ok(()))
}
