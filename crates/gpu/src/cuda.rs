//! The CUDA driver as an [`Executor`], through `cudarc`'s driver bindings with
//! `libcuda.so` loaded at run time (`dynamic-loading`): warpcheck builds without the CUDA
//! toolkit, and the driver JIT-compiles the instrumented PTX (`cuModuleLoadData`).
//!
//! `unsafe` here is the driver API's: every handle passed to the driver was returned by it
//! and is used on the thread that made the context current; buffers are allocated with
//! the length copied into and out of them; kernel parameter pointers point into vectors
//! that outlive the synchronous launch (`cuLaunchKernel` then `cuCtxSynchronize`).

use std::collections::HashMap;
use std::ffi::{CString, c_void};

use cudarc::driver::result;
use cudarc::driver::sys;

use crate::GpuError;
use crate::exec::{Arg, Executor, KernelRun};

/// Runs kernels on CUDA device 0 through the driver API.
pub struct CudaExecutor {
    device: sys::CUdevice,
    name: String,
    modules: HashMap<String, sys::CUmodule>,
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
        })
    }

    fn function(&mut self, ptx: &str, kernel: &str) -> Result<sys::CUfunction, GpuError> {
        if !self.modules.contains_key(ptx) {
            let text = CString::new(ptx).map_err(|_| GpuError::Internal("NUL in PTX".into()))?;
            // SAFETY: `text` is a NUL-terminated PTX image that lives across the call.
            let m = unsafe { result::module::load_data(text.as_ptr() as *const c_void) }.map_err(
                driver("the driver could not JIT-compile the instrumented PTX"),
            )?;
            self.modules.insert(ptx.to_string(), m);
        }
        let name = CString::new(kernel).map_err(|_| GpuError::Internal("NUL in name".into()))?;
        // SAFETY: the module is loaded and not unloaded before `self` drops.
        unsafe { result::module::get_function(self.modules[ptx], name) }
            .map_err(driver("cuModuleGetFunction"))
    }
}

impl Executor for CudaExecutor {
    fn describe(&self) -> String {
        self.name.clone()
    }

    fn free_memory(&self) -> Option<u64> {
        result::mem_get_info().ok().map(|(free, _)| free as u64)
    }

    fn run(&mut self, run: KernelRun<'_>) -> Result<(), GpuError> {
        let f = self.function(run.ptx, run.kernel)?;
        let mut device_ptrs: Vec<sys::CUdeviceptr> = Vec::with_capacity(run.buffers.len());
        let outcome = (|| {
            for b in run.buffers.iter() {
                // SAFETY: a fresh allocation of at least one byte; `b.len()` bytes are copied.
                let p =
                    unsafe { result::malloc_sync(b.len().max(1)) }.map_err(driver("cuMemAlloc"))?;
                device_ptrs.push(p);
                unsafe { result::memcpy_htod_sync(p, b.as_slice()) }
                    .map_err(driver("cuMemcpyHtoD"))?;
            }
            // Values the parameter pointers point at; neither vector grows after this.
            let mut scalars: Vec<Vec<u8>> = run
                .args
                .iter()
                .map(|a| match a {
                    Arg::Bytes(b) => b.clone(),
                    Arg::Buffer(i) => device_ptrs[*i].to_le_bytes().to_vec(),
                })
                .collect();
            let mut params: Vec<*mut c_void> = scalars
                .iter_mut()
                .map(|s| s.as_mut_ptr() as *mut c_void)
                .collect();
            let [gx, gy, gz] = run.grid;
            let [bx, by, bz] = run.block;
            // SAFETY: `f` is a live function; `params` has one pointer per kernel parameter
            // into `scalars`, alive until the synchronisation below.
            unsafe {
                result::launch_kernel(
                    f,
                    (gx, gy, gz),
                    (bx, by, bz),
                    run.shared,
                    std::ptr::null_mut(),
                    &mut params,
                )
            }
            .map_err(driver("cuLaunchKernel"))?;
            result::ctx::synchronize().map_err(driver("the kernel failed"))?;
            for (b, &p) in run.buffers.iter_mut().zip(&device_ptrs) {
                // SAFETY: `p` holds `b.len()` bytes.
                unsafe { result::memcpy_dtoh_sync(b.as_mut_slice(), p) }
                    .map_err(driver("cuMemcpyDtoH"))?;
            }
            Ok(())
        })();
        for p in device_ptrs {
            // SAFETY: allocated above, freed once.
            let _ = unsafe { result::free_sync(p) };
        }
        outcome
    }
}

impl Drop for CudaExecutor {
    fn drop(&mut self) {
        for (_, m) in self.modules.drain() {
            // SAFETY: loaded by `function`, unloaded once.
            let _ = unsafe { result::module::unload(m) };
        }
        // SAFETY: retained in `new`.
        let _ = unsafe { result::primary_ctx::release(self.device) };
    }
}
