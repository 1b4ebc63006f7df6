//! The CUDA driver as an [`Executor`], through `cudarc`'s driver bindings with
//! `libcuda.so` loaded at run time (`dynamic-loading`): warpcheck builds without the CUDA
//! toolkit, and the driver JIT-compiles the instrumented PTX (`cuModuleLoadData`).
//!
//! `unsafe` here is the driver API's: every handle passed to the driver was returned by it
//! and is used on the thread that made the context current; buffers are allocated with
//! the length copied into and out of them; kernel parameter pointers point into vectors
//! that outlive the synchronous launch (`cuLaunchKernel` then `cuCtxSynchronize`).
//!
//! Buffers stay on the device until freed; every copy and fill is bounds-checked against
//! the buffer's size before the driver sees it. Each module is JIT-compiled once and each
//! kernel looked up once per executor.

use std::collections::HashMap;
use std::ffi::{CString, c_void};

use cudarc::driver::result;
use cudarc::driver::sys;

use crate::GpuError;
use crate::exec::{DeviceBuffer, DeviceLaunch, Executor, Param};

/// Runs kernels on CUDA device 0 through the driver API.
pub struct CudaExecutor {
    device: sys::CUdevice,
    name: String,
    modules: HashMap<String, sys::CUmodule>,
    /// Looked-up kernels by module text, then kernel name.
    functions: HashMap<String, HashMap<String, sys::CUfunction>>,
    /// Buffer handle to (device pointer, size).
    buffers: HashMap<u32, (sys::CUdeviceptr, u64)>,
    next: u32,
}

fn driver(what: &str) -> impl Fn(result::DriverError) -> GpuError + '_ {
    move |e| GpuError::Driver(format!("{what}: {e:?}"))
}

impl CudaExecutor {
    /// Loads `libcuda.so`, initialises the driver and makes device `ordinal`'s primary
    /// context current. Without a driver or a device: [`GpuError::NoDevice`].
    pub fn new(ordinal: i32) -> Result<CudaExecutor, GpuError> {
        // SAFETY: only tries to open the library.
        if !unsafe { sys::is_culib_present() } {
            return Err(GpuError::NoDevice("libcuda.so cannot be loaded".into()));
        }
        result::init().map_err(|e| GpuError::NoDevice(format!("cuInit failed: {e:?}")))?;
        let device = result::device::get(ordinal)
            .map_err(|e| GpuError::NoDevice(format!("no device {ordinal}: {e:?}")))?;
        // SAFETY: `device` was returned by the driver.
        let ctx = unsafe { result::primary_ctx::retain(device) }
            .map_err(driver("cuDevicePrimaryCtxRetain"))?;
        // SAFETY: `ctx` was just retained.
        unsafe { result::ctx::set_current(ctx) }.map_err(driver("cuCtxSetCurrent"))?;
        let name = result::device::get_name(device).unwrap_or_else(|_| "CUDA device".into());
        Ok(CudaExecutor {
            device,
            name,
            modules: HashMap::new(),
            functions: HashMap::new(),
            buffers: HashMap::new(),
            next: 0,
        })
    }

    /// The kernel `kernel` of module `ptx`, JIT-compiled on first use.
    fn function(&mut self, ptx: &str, kernel: &str) -> Result<sys::CUfunction, GpuError> {
        if let Some(&f) = self.functions.get(ptx).and_then(|m| m.get(kernel)) {
            return Ok(f);
        }
        if !self.modules.contains_key(ptx) {
            let text = CString::new(ptx).map_err(|_| GpuError::Internal("NUL in PTX".into()))?;
            // SAFETY: `text` is a NUL-terminated PTX image that lives across the call.
            let what = format!("the driver could not JIT-compile the PTX of `{kernel}`");
            let m = unsafe { result::module::load_data(text.as_ptr() as *const c_void) }
                .map_err(driver(&what))?;
            self.modules.insert(ptx.to_string(), m);
        }
        let name = CString::new(kernel).map_err(|_| GpuError::Internal("NUL in name".into()))?;
        // SAFETY: the module is loaded and not unloaded before `self` drops.
        let f = unsafe { result::module::get_function(self.modules[ptx], name) }
            .map_err(driver("cuModuleGetFunction"))?;
        self.functions
            .entry(ptx.to_string())
            .or_default()
            .insert(kernel.to_string(), f);
        Ok(f)
    }
}

impl CudaExecutor {
    fn pointer(&self, b: DeviceBuffer, offset: u64, len: u64) -> Result<u64, GpuError> {
        crate::exec::buffer_address(&self.buffers, b, offset, len)
    }
}

impl Executor for CudaExecutor {
    fn describe(&self) -> String {
        self.name.clone()
    }

    fn free_memory(&self) -> Option<u64> {
        result::mem_get_info().ok().map(|(free, _)| free as u64)
    }

    fn alloc(&mut self, bytes: u64) -> Result<DeviceBuffer, GpuError> {
        // SAFETY: a fresh allocation of at least one byte, zeroed over its whole length.
        let p =
            unsafe { result::malloc_sync(bytes.max(1) as usize) }.map_err(driver("cuMemAlloc"))?;
        unsafe { result::memset_d8_sync(p, 0, bytes.max(1) as usize) }
            .map_err(driver("cuMemsetD8"))?;
        let id = self.next;
        self.next += 1;
        self.buffers.insert(id, (p, bytes));
        Ok(DeviceBuffer(id))
    }

    fn free(&mut self, buffer: DeviceBuffer) {
        if let Some((p, _)) = self.buffers.remove(&buffer.0) {
            // SAFETY: allocated by `alloc`, freed once.
            let _ = unsafe { result::free_sync(p) };
        }
    }

    fn upload(&mut self, to: DeviceBuffer, offset: u64, bytes: &[u8]) -> Result<(), GpuError> {
        let p = self.pointer(to, offset, bytes.len() as u64)?;
        // SAFETY: `p` holds at least `bytes.len()` bytes (checked above).
        unsafe { result::memcpy_htod_sync(p, bytes) }.map_err(driver("cuMemcpyHtoD"))
    }

    fn download(
        &mut self,
        from: DeviceBuffer,
        offset: u64,
        into: &mut [u8],
    ) -> Result<(), GpuError> {
        let p = self.pointer(from, offset, into.len() as u64)?;
        // SAFETY: `p` holds at least `into.len()` bytes (checked above).
        unsafe { result::memcpy_dtoh_sync(into, p) }.map_err(driver("cuMemcpyDtoH"))
    }

    fn copy(
        &mut self,
        to: (DeviceBuffer, u64),
        from: (DeviceBuffer, u64),
        len: u64,
    ) -> Result<(), GpuError> {
        let src = self.pointer(from.0, from.1, len)?;
        let dst = self.pointer(to.0, to.1, len)?;
        // SAFETY: both ranges lie inside live allocations (checked above).
        unsafe { result::memcpy_dtod_sync(dst, src, len as usize) }.map_err(driver("cuMemcpyDtoD"))
    }

    fn fill(
        &mut self,
        buffer: DeviceBuffer,
        offset: u64,
        len: u64,
        byte: u8,
    ) -> Result<(), GpuError> {
        let p = self.pointer(buffer, offset, len)?;
        // SAFETY: the range lies inside a live allocation (checked above).
        unsafe { result::memset_d8_sync(p, byte, len as usize) }.map_err(driver("cuMemsetD8"))
    }

    fn launch(&mut self, launch: &DeviceLaunch<'_>) -> Result<(), GpuError> {
        let f = self.function(launch.ptx, launch.kernel)?;
        // Values the parameter pointers point at; neither vector grows after this.
        let mut scalars: Vec<Vec<u8>> = Vec::with_capacity(launch.params.len());
        for p in launch.params {
            scalars.push(match p {
                Param::Bytes(b) => b.clone(),
                Param::Pointer(b, offset) => self.pointer(*b, *offset, 0)?.to_le_bytes().to_vec(),
            });
        }
        let mut params: Vec<*mut c_void> = scalars
            .iter_mut()
            .map(|s| s.as_mut_ptr() as *mut c_void)
            .collect();
        let [gx, gy, gz] = launch.grid;
        let [bx, by, bz] = launch.block;
        // SAFETY: `f` is a live function; `params` has one pointer per kernel parameter
        // into `scalars`, alive until the synchronisation below.
        unsafe {
            result::launch_kernel(
                f,
                (gx, gy, gz),
                (bx, by, bz),
                launch.shared,
                std::ptr::null_mut(),
                &mut params,
            )
        }
        .map_err(driver("cuLaunchKernel"))?;
        result::ctx::synchronize().map_err(driver("the kernel failed"))
    }
}

impl Drop for CudaExecutor {
    fn drop(&mut self) {
        for (_, (p, _)) in self.buffers.drain() {
            // SAFETY: allocated by `alloc` and not freed yet.
            let _ = unsafe { result::free_sync(p) };
        }
        for (_, m) in self.modules.drain() {
            // SAFETY: loaded by `function`, unloaded once.
            let _ = unsafe { result::module::unload(m) };
        }
        // SAFETY: retained in `new`.
        let _ = unsafe { result::primary_ctx::release(self.device) };
    }
}
