//! Managed memory (`cudaMallocManaged`): host memory mapped at the address of its emulator
//! allocation, so the one pointer works on both sides.
//!
//! The mapping is placed with `mmap(MAP_FIXED_NOREPLACE)` in the upper half of the
//! emulator's global window ([`MANAGED_BASE`] and up; `cudaMalloc` allocations grow from
//! the bottom of the window), moving on past any range the process already uses. Coherence:
//! the host copy holds the bytes between launches; before a launch every live managed
//! allocation is copied into the emulator, and after it back to the host (launches are
//! synchronous here, so this is exactly what the program may observe after
//! synchronising).

use std::ffi::{c_uint, c_void};
use std::sync::atomic::{AtomicU64, Ordering};

use crate::api::{self, Fail, put, require};
use crate::host_line::CallSite;
use crate::state::{AllocKind, DeviceAlloc, Runtime};
use crate::types::*;

/// Where managed mappings start: half way up the emulator's global window.
pub const MANAGED_BASE: u64 = warpcheck_emu::memory::GLOBAL_BASE + (1 << 39);
/// How many places are tried before giving up.
const TRIES: usize = 4096;

static NEXT: AtomicU64 = AtomicU64::new(MANAGED_BASE);

/// Page-rounded length of a mapping.
fn mapped_len(size: u64) -> u64 {
    size.max(1).div_ceil(4096) * 4096
}

/// Maps `size` bytes of host memory at a fresh address in the global window and creates
/// the emulator allocation at the same address.
fn map(rt: &mut Runtime, size: u64) -> Result<u64, Fail> {
    let len = mapped_len(size);
    for _ in 0..TRIES {
        let hint = NEXT.fetch_add(len + (1 << 20), Ordering::Relaxed);
        // SAFETY: an anonymous private mapping at a hint the kernel may refuse
        // (MAP_FIXED_NOREPLACE never replaces an existing mapping).
        let p = unsafe {
            libc::mmap(
                hint as *mut c_void,
                len as usize,
                libc::PROT_READ | libc::PROT_WRITE,
                libc::MAP_PRIVATE | libc::MAP_ANONYMOUS | libc::MAP_FIXED_NOREPLACE,
                -1,
                0,
            )
        };
        if p == libc::MAP_FAILED {
            continue;
        }
        if p as u64 != hint {
            // An old kernel treats the flag as a hint: not the address asked for.
            // SAFETY: unmapping the mapping just made.
            unsafe { libc::munmap(p, len as usize) };
            continue;
        }
        match rt.memory.alloc_at(hint, size, true, None) {
            Ok(a) => return Ok(a),
            Err(_) => {
                // SAFETY: unmapping the mapping just made.
                unsafe { libc::munmap(p, len as usize) };
            }
        }
    }
    Err(Fail::Api(
        MEMORY_ALLOCATION,
        format!("cannot map {size} bytes of managed memory"),
    ))
}

/// Unmaps a managed allocation's host side.
pub fn unmap(address: u64, size: u64) {
    // SAFETY: `address` is a mapping made by `map` of this length, not unmapped before.
    unsafe { libc::munmap(address as *mut c_void, mapped_len(size) as usize) };
}

impl Runtime {
    fn live_managed(&self) -> Vec<(u64, u64)> {
        self.managed.iter().map(|(&b, &s)| (b, s)).collect()
    }

    /// Copies managed memory and `__managed__` variables from the host into the emulator
    /// (before a launch).
    pub fn managed_to_device(&mut self) {
        self.managed_vars_to_device();
        for (base, size) in self.live_managed() {
            // SAFETY: a live mapping of at least `size` bytes.
            let bytes = unsafe { std::slice::from_raw_parts(base as *const u8, size as usize) };
            let _ = self.memory.write(base, bytes);
        }
    }

    /// Copies managed memory and `__managed__` variables from the emulator back to the
    /// host (after a launch).
    pub fn managed_to_host(&mut self) {
        self.managed_vars_to_host();
        for (base, size) in self.live_managed() {
            // SAFETY: a live, writable mapping of at least `size` bytes.
            let host = unsafe { std::slice::from_raw_parts_mut(base as *mut u8, size as usize) };
            let _ = self.memory.read_into(base, host);
        }
    }
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cudaMallocManaged(
    dev_ptr: *mut *mut c_void,
    size: usize,
    _flags: c_uint,
) -> CudaError {
    api::call("cudaMallocManaged", |rt| {
        require(!dev_ptr.is_null(), || "devPtr is a null pointer".into())?;
        require(size > 0, || "size is 0".into())?;
        let a = map(rt, size as u64)?;
        rt.managed.insert(a, size as u64);
        rt.live_bytes += size as u64;
        rt.allocs.insert(
            a,
            DeviceAlloc {
                size: size as u64,
                kind: AllocKind::Managed,
                site: CallSite::capture(),
                freed: None,
            },
        );
        unsafe { put(dev_ptr, a as *mut c_void, "devPtr") }
    })
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cudaMemPrefetchAsync(
    dev_ptr: *const c_void,
    count: usize,
    _device: i32,
    _stream: *mut c_void,
) -> CudaError {
    api::call("cudaMemPrefetchAsync", |rt| {
        rt.device_range(
            "cudaMemPrefetchAsync",
            "range",
            dev_ptr as u64,
            count as u64,
        )
        .map(|_| ())
    })
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cudaMemAdvise(
    dev_ptr: *const c_void,
    count: usize,
    _advice: i32,
    _device: i32,
) -> CudaError {
    api::call("cudaMemAdvise", |rt| {
        rt.device_range("cudaMemAdvise", "range", dev_ptr as u64, count as u64)
            .map(|_| ())
    })
}

/// `cudaStreamAttachMemAsync(stream, devPtr, length, flags)`: which streams may access a
/// managed allocation. Launches are synchronous and managed memory is copied around every
/// launch, so any attachment gives the same bytes; the call checks its arguments as the
/// runtime does: `devPtr` the start of a live `cudaMallocManaged` allocation, `length` 0
/// or its whole size, `flags` one of `cudaMemAttachGlobal`, `Host`, `Single`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cudaStreamAttachMemAsync(
    stream: *mut c_void,
    dev_ptr: *mut c_void,
    length: usize,
    flags: c_uint,
) -> CudaError {
    api::call("cudaStreamAttachMemAsync", |rt| {
        rt.check_stream(stream)?;
        let base = dev_ptr as u64;
        let size = rt.managed.get(&base).copied();
        let Some(size) = size else {
            return Err(Fail::Api(
                INVALID_VALUE,
                format!("devPtr {base:#x} is not the start of a managed allocation"),
            ));
        };
        require(length == 0 || length as u64 == size, || {
            format!("length {length} is neither 0 nor the allocation's size ({size} bytes)")
        })?;
        require(matches!(flags, 1 | 2 | 4), || {
            format!(
                "flags {flags:#x} is not one of cudaMemAttachGlobal, cudaMemAttachHost, cudaMemAttachSingle"
            )
        })
    })
}
