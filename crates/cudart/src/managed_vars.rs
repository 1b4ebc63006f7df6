//! `__managed__` variables: one variable that host code and kernels both read and write.
//!
//! clang's CUDA mode has no managed attribute, so warpcheck's headers declare a
//! `__managed__` variable as a `__device__` one whose host shadow goes into the ELF section
//! [`SECTION`]; the headers' start-up constructor hands the section's bounds to
//! [`__warpcheckManagedSection`] before the modules register (constructor priority 101).
//! A variable registered by `__cudaRegisterVar` whose shadow lies in that section is
//! managed: its shadow is the host's copy, starting with the variable's initialiser.
//! nvcc's host code reaches a managed variable through a pointer that
//! `__cudaRegisterManagedVar` sets: to a host copy the runtime allocates, managed the
//! same way ([`crate::register::__cudaRegisterManagedVar`]).
//!
//! Coherence is that of managed allocations ([`crate::managed`]): the host copy is the
//! truth between launches; before a launch it is copied into the device variable, after
//! it back (launches are synchronous, so the program observes what it would after
//! synchronising). `cudaMemcpyToSymbol`/`FromSymbol` use the host copy.
//!
//! Not supported: the shadow and the device variable have different addresses, so a
//! host `&var` passed to a kernel, or the address `cudaGetSymbolAddress` returns used on
//! the host, is not the variable on the other side.

use std::ffi::c_void;
use std::sync::atomic::{AtomicUsize, Ordering};

use crate::state::{DeviceVar, Runtime};

/// The host shadows' section (a C identifier, so the linker defines its bounds).
pub const SECTION: &str = "warpcheck_managed";

static START: AtomicUsize = AtomicUsize::new(0);
static END: AtomicUsize = AtomicUsize::new(0);

/// `void __warpcheckManagedSection(const void *start, const void *end)`: the bounds of
/// the program's [`SECTION`] (null when it has none).
#[unsafe(no_mangle)]
pub extern "C" fn __warpcheckManagedSection(start: *const c_void, end: *const c_void) {
    if !start.is_null() && (end as usize) > (start as usize) {
        START.store(start as usize, Ordering::SeqCst);
        END.store(end as usize, Ordering::SeqCst);
    }
}

/// Whether a host shadow is a `__managed__` variable's.
pub fn is_managed(host_var: usize) -> bool {
    (START.load(Ordering::SeqCst)..END.load(Ordering::SeqCst)).contains(&host_var)
}

impl Runtime {
    /// Gives a managed variable's host copy its initial value (the shadow clang emits
    /// is zero).
    pub fn init_managed_shadow(&self, host_var: usize, var: &DeviceVar) {
        let v = self.modules[var.module].program.variable(var.var);
        let Some(init) = &v.init else { return };
        let n = init.bytes.len().min(var.size as usize);
        // SAFETY: the shadow is the program's variable of `var.size` bytes.
        unsafe { std::ptr::copy_nonoverlapping(init.bytes.as_ptr(), host_var as *mut u8, n) };
    }

    /// The device address of each managed variable, with its host copy and size.
    fn managed_vars(&mut self) -> Vec<(u64, usize, usize)> {
        let vars: Vec<(usize, DeviceVar)> = self
            .vars
            .iter()
            .filter(|(_, v)| !v.constant && v.managed_shadow.is_some())
            .map(|(&h, v)| (h, v.clone()))
            .collect();
        let mut out = Vec::with_capacity(vars.len());
        for (host, var) in vars {
            self.place_module_globals(var.module);
            let name = &self.modules[var.module].program.variable(var.var).name;
            if let Some(device) = self.memory.symbol(name) {
                out.push((device, host, var.size as usize));
            }
        }
        out
    }

    /// Copies every managed variable's host copy into the device (before a launch).
    pub fn managed_vars_to_device(&mut self) {
        for (device, host, size) in self.managed_vars() {
            // SAFETY: the shadow is the program's variable of `size` bytes.
            let bytes = unsafe { std::slice::from_raw_parts(host as *const u8, size) };
            let _ = self.memory.write(device, bytes);
        }
    }

    /// Copies every managed variable back to its host copy (after a launch).
    pub fn managed_vars_to_host(&mut self) {
        for (device, host, size) in self.managed_vars() {
            if let Ok(bytes) = self.memory.read(device, size as u64) {
                // SAFETY: the shadow is the program's writable variable of `size` bytes.
                unsafe {
                    std::ptr::copy_nonoverlapping(bytes.as_ptr(), host as *mut u8, bytes.len())
                };
            }
        }
    }
}
