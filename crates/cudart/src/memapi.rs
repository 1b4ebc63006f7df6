//! Memory management: `cudaMalloc`/`cudaFree`, copies and memsets of every kind, pinned
//! host memory, pitched allocations and 2D copies.

use std::ffi::{c_int, c_uint, c_void};

use warpcheck_report::{Code, Severity};

use crate::api::{self, Fail, put, require};
use crate::host_line::CallSite;
use crate::pointers::Mem;
use crate::state::{AllocKind, DeviceAlloc, HostAlloc, Runtime};
use crate::types::*;

/// Pitch alignment of `cudaMallocPitch` (as `cudaDeviceProp::texturePitchAlignment`).
pub const PITCH_ALIGN: usize = 512;

impl Runtime {
    /// Allocates device memory that starts uninitialised (for the `init` checker).
    pub fn device_alloc(&mut self, size: usize, kind: AllocKind) -> Result<u64, Fail> {
        let address = self.memory.alloc(size as u64, false).map_err(|e| {
            Fail::Api(
                MEMORY_ALLOCATION,
                format!("cannot allocate {size} bytes: {e}"),
            )
        })?;
        self.live_bytes += size as u64;
        self.allocs.insert(
            address,
            DeviceAlloc {
                size: size as u64,
                kind,
                site: CallSite::capture(),
                freed: None,
            },
        );
        Ok(address)
    }

    /// Frees a device allocation, reporting double and invalid frees.
    pub fn device_free(&mut self, address: u64, call: &str) -> api::Result {
        if address == 0 {
            return Ok(());
        }
        let Some(a) = self.allocs.get(&address).cloned() else {
            let site = CallSite::capture();
            let inside = self.alloc_at(address).map(|(b, _)| b);
            let why = match inside {
                Some(b) => {
                    format!("{address:#x} points inside the allocation at {b:#x}, not at its start")
                }
                None => format!("{address:#x} was not returned by cudaMalloc"),
            };
            let f = self.host_finding(
                Code::InvalidFree,
                Severity::Error,
                format!("{call} of a pointer that is no device allocation: {why}"),
                &site,
                "freed here",
            );
            self.findings.add(f);
            return Err(Fail::Reported(INVALID_VALUE));
        };
        if let Some(first) = &a.freed {
            let site = CallSite::capture();
            let mut f = self.host_finding(
                Code::DoubleFree,
                Severity::Error,
                format!(
                    "{call} of {address:#x}, a {}-byte allocation freed before",
                    a.size
                ),
                &site,
                "freed again here",
            );
            if let Some(at) = self.line(first) {
                f = f.related(at, "first freed here");
            }
            if let Some(at) = self.line(&a.site) {
                f = f.related(at, format!("allocated here by {}", a.kind.api()));
            }
            self.findings.add(f);
            return Err(Fail::Reported(INVALID_VALUE));
        }
        if a.kind == AllocKind::Managed {
            crate::managed::unmap(address, a.size);
            self.managed.remove(&address);
        }
        self.live_bytes -= a.size;
        self.memory.free(address);
        if let Some(rec) = self.allocs.get_mut(&address) {
            rec.freed = Some(CallSite::capture());
        }
        Ok(())
    }

    /// Resolves the two sides of a copy for a `cudaMemcpyKind`, checking device ranges.
    pub fn copy_sides(
        &mut self,
        call: &str,
        dst: u64,
        src: u64,
        count: u64,
        kind: c_int,
    ) -> Result<(Mem, Mem), Fail> {
        let (dst_device, src_device) = match kind {
            MEMCPY_HOST_TO_HOST => (false, false),
            MEMCPY_HOST_TO_DEVICE => (true, false),
            MEMCPY_DEVICE_TO_HOST => (false, true),
            MEMCPY_DEVICE_TO_DEVICE => (true, true),
            MEMCPY_DEFAULT => (self.is_device(dst), self.is_device(src)),
            k => {
                return Err(Fail::Api(
                    INVALID_MEMCPY_DIRECTION,
                    format!("{k} is not a cudaMemcpyKind"),
                ));
            }
        };
        let side = |rt: &mut Runtime, device: bool, p: u64, role: &str| {
            if device {
                rt.device_range(call, role, p, count)
            } else {
                Ok(Mem::Host(p as usize))
            }
        };
        let d = side(self, dst_device, dst, "destination")?;
        let s = side(self, src_device, src, "source")?;
        Ok((d, s))
    }

    /// A checked copy of `count` bytes.
    pub fn copy(&mut self, call: &str, dst: u64, src: u64, count: u64, kind: c_int) -> api::Result {
        if count == 0 {
            return Ok(());
        }
        let (d, s) = self.copy_sides(call, dst, src, count, kind)?;
        self.copy_mem(d, s, count as usize);
        Ok(())
    }

    /// A checked memset of `count` bytes of device memory.
    pub fn set(&mut self, call: &str, dst: u64, value: c_int, count: u64) -> api::Result {
        if count == 0 {
            return Ok(());
        }
        let d = self.device_range(call, "destination", dst, count)?;
        if let Mem::Device(a) = d
            && self.memory.holds_fill(a, count, value as u8)
        {
            // Set to this value by an earlier memset and not written since.
            self.host_wrote(a, count);
            return Ok(());
        }
        // A chunk at a time from one small buffer: a memset of a large buffer (llm.c's
        // benchmarks clear 50 MB before every launch) must not allocate its size.
        const CHUNK: u64 = 1 << 16;
        // Bytes that already hold the value are not written again, so that they do not
        // count as changed for the identical-launch hashes (they are still initialised).
        let fill = vec![value as u8; CHUNK.min(count) as usize];
        let mut now = vec![0u8; fill.len()];
        let mut done = 0u64;
        while done < count {
            let n = CHUNK.min(count - done) as usize;
            match d {
                Mem::Device(a)
                    if self.memory.read_into(a + done, &mut now[..n]).is_ok()
                        && now[..n] == fill[..n] =>
                {
                    self.host_wrote(a + done, n as u64)
                }
                Mem::Device(a) => self.write_mem(Mem::Device(a + done), &fill[..n]),
                Mem::Host(p) => self.write_mem(Mem::Host(p + done as usize), &fill[..n]),
            }
            done += n as u64;
        }
        if let Mem::Device(a) = d {
            self.memory.note_filled(a, count, value as u8);
        }
        Ok(())
    }
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cudaMalloc(dev_ptr: *mut *mut c_void, size: usize) -> CudaError {
    api::call("cudaMalloc", |rt| {
        require(!dev_ptr.is_null(), || "devPtr is a null pointer".into())?;
        let p = if size == 0 {
            0
        } else {
            rt.device_alloc(size, AllocKind::Device)?
        };
        unsafe { put(dev_ptr, p as *mut c_void, "devPtr") }
    })
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cudaMallocAsync(
    dev_ptr: *mut *mut c_void,
    size: usize,
    _stream: *mut c_void,
) -> CudaError {
    unsafe { cudaMalloc(dev_ptr, size) }
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cudaFree(dev_ptr: *mut c_void) -> CudaError {
    api::call("cudaFree", |rt| rt.device_free(dev_ptr as u64, "cudaFree"))
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cudaFreeAsync(dev_ptr: *mut c_void, _stream: *mut c_void) -> CudaError {
    api::call("cudaFreeAsync", |rt| {
        rt.device_free(dev_ptr as u64, "cudaFreeAsync")
    })
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cudaMallocPitch(
    dev_ptr: *mut *mut c_void,
    pitch: *mut usize,
    width: usize,
    height: usize,
) -> CudaError {
    api::call("cudaMallocPitch", |rt| {
        require(!dev_ptr.is_null() && !pitch.is_null(), || {
            "devPtr or pitch is a null pointer".into()
        })?;
        let p = width.div_ceil(PITCH_ALIGN).max(1) * PITCH_ALIGN;
        let a = if width == 0 || height == 0 {
            0
        } else {
            rt.device_alloc(p * height, AllocKind::Pitched)?
        };
        unsafe { put(pitch, p, "pitch")? };
        unsafe { put(dev_ptr, a as *mut c_void, "devPtr") }
    })
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cudaMemcpy(
    dst: *mut c_void,
    src: *const c_void,
    count: usize,
    kind: c_int,
) -> CudaError {
    api::call("cudaMemcpy", |rt| {
        rt.copy("cudaMemcpy", dst as u64, src as u64, count as u64, kind)
    })
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cudaMemcpyAsync(
    dst: *mut c_void,
    src: *const c_void,
    count: usize,
    kind: c_int,
    _stream: *mut c_void,
) -> CudaError {
    api::call("cudaMemcpyAsync", |rt| {
        rt.copy(
            "cudaMemcpyAsync",
            dst as u64,
            src as u64,
            count as u64,
            kind,
        )
    })
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cudaMemcpy2D(
    dst: *mut c_void,
    dpitch: usize,
    src: *const c_void,
    spitch: usize,
    width: usize,
    height: usize,
    kind: c_int,
) -> CudaError {
    api::call("cudaMemcpy2D", |rt| {
        rt.copy_rows(
            "cudaMemcpy2D",
            dst as u64,
            dpitch as u64,
            src as u64,
            spitch as u64,
            width as u64,
            height as u64,
            kind,
        )
    })
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cudaMemcpy2DAsync(
    dst: *mut c_void,
    dpitch: usize,
    src: *const c_void,
    spitch: usize,
    width: usize,
    height: usize,
    kind: c_int,
    _stream: *mut c_void,
) -> CudaError {
    api::call("cudaMemcpy2DAsync", |rt| {
        rt.copy_rows(
            "cudaMemcpy2DAsync",
            dst as u64,
            dpitch as u64,
            src as u64,
            spitch as u64,
            width as u64,
            height as u64,
            kind,
        )
    })
}

impl Runtime {
    /// 2D copy: the pitches are checked, then each row is a checked copy (a row that
    /// leaves its allocation is reported once, at the call).
    #[allow(clippy::too_many_arguments)]
    fn copy_rows(
        &mut self,
        call: &str,
        dst: u64,
        dpitch: u64,
        src: u64,
        spitch: u64,
        width: u64,
        height: u64,
        kind: c_int,
    ) -> api::Result {
        if width > dpitch || width > spitch {
            return Err(Fail::Api(
                INVALID_PITCH_VALUE,
                format!("width {width} exceeds a pitch (dpitch {dpitch}, spitch {spitch})"),
            ));
        }
        for row in 0..height {
            self.copy(call, dst + row * dpitch, src + row * spitch, width, kind)?;
        }
        Ok(())
    }
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cudaMemset(dev_ptr: *mut c_void, value: c_int, count: usize) -> CudaError {
    api::call("cudaMemset", |rt| {
        rt.set("cudaMemset", dev_ptr as u64, value, count as u64)
    })
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cudaMemsetAsync(
    dev_ptr: *mut c_void,
    value: c_int,
    count: usize,
    _stream: *mut c_void,
) -> CudaError {
    api::call("cudaMemsetAsync", |rt| {
        rt.set("cudaMemsetAsync", dev_ptr as u64, value, count as u64)
    })
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cudaMemset2D(
    dev_ptr: *mut c_void,
    pitch: usize,
    value: c_int,
    width: usize,
    height: usize,
) -> CudaError {
    api::call("cudaMemset2D", |rt| {
        require(width <= pitch, || {
            format!("width {width} exceeds the pitch {pitch}")
        })?;
        for row in 0..height as u64 {
            rt.set(
                "cudaMemset2D",
                dev_ptr as u64 + row * pitch as u64,
                value,
                width as u64,
            )?;
        }
        Ok(())
    })
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cudaMallocHost(ptr: *mut *mut c_void, size: usize) -> CudaError {
    unsafe { cudaHostAlloc(ptr, size, 0) }
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cudaHostAlloc(
    ptr: *mut *mut c_void,
    size: usize,
    _flags: c_uint,
) -> CudaError {
    api::call("cudaHostAlloc", |rt| {
        require(!ptr.is_null(), || "pHost is a null pointer".into())?;
        let mut p: *mut c_void = std::ptr::null_mut();
        // SAFETY: posix_memalign writes `p` on success.
        let rc = unsafe { libc::posix_memalign(&mut p, 4096, size.max(1)) };
        if rc != 0 {
            return Err(Fail::Api(
                MEMORY_ALLOCATION,
                format!("cannot allocate {size} bytes of host memory"),
            ));
        }
        rt.host_allocs
            .insert(p as usize, HostAlloc { size, freed: false });
        unsafe { put(ptr, p, "pHost") }
    })
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cudaFreeHost(ptr: *mut c_void) -> CudaError {
    api::call("cudaFreeHost", |rt| {
        if ptr.is_null() {
            return Ok(());
        }
        match rt.host_allocs.get_mut(&(ptr as usize)) {
            Some(a) if !a.freed => {
                a.freed = true;
                // SAFETY: allocated by posix_memalign above and not freed yet.
                unsafe { libc::free(ptr) };
                Ok(())
            }
            found => {
                let code = if found.is_some() {
                    Code::DoubleFree
                } else {
                    Code::InvalidFree
                };
                let site = CallSite::capture();
                let f = rt.host_finding(
                    code,
                    Severity::Error,
                    format!(
                        "cudaFreeHost of {:#x}, which is {}",
                        ptr as usize,
                        if code == Code::DoubleFree {
                            "pinned host memory freed before"
                        } else {
                            "no pinned host allocation"
                        }
                    ),
                    &site,
                    "freed here",
                );
                rt.findings.add(f);
                Err(Fail::Reported(INVALID_VALUE))
            }
        }
    })
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cudaMemGetInfo(free: *mut usize, total: *mut usize) -> CudaError {
    api::call("cudaMemGetInfo", |rt| {
        let total_bytes = crate::device::TOTAL_GLOBAL_MEM;
        let used = rt.live_bytes as usize;
        unsafe { put(free, total_bytes.saturating_sub(used), "free")? };
        unsafe { put(total, total_bytes, "total") }
    })
}
