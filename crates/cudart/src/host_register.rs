//! `cudaHostRegister` and `cudaHostUnregister`: page-locking memory the program allocated
//! itself. Host memory needs no pinning here (copies are synchronous and read the host
//! bytes where they are), so registering records the range, which makes it pinned host
//! memory for `cudaPointerGetAttributes`, and checks what the CUDA runtime checks: a null
//! pointer or an empty range (`cudaErrorInvalidValue`), a range that overlaps one already
//! registered (`cudaErrorHostMemoryAlreadyRegistered`), unregistering a pointer that does
//! not start a registered range (`cudaErrorHostMemoryNotRegistered`). Each failure is an
//! `api-error` finding at the call.
//!
//! Not supported: the device address of mapped memory (`cudaHostRegisterMapped` with
//! `cudaHostGetDevicePointer`, which returns `cudaErrorNotSupported`): kernels cannot read
//! host memory in place.

use std::ffi::{c_uint, c_void};

use crate::api::{self, Fail, require};
use crate::state::Runtime;
use crate::types::{CudaError, HOST_MEMORY_ALREADY_REGISTERED, HOST_MEMORY_NOT_REGISTERED};

impl Runtime {
    /// Whether `address` lies in a registered host range.
    pub fn is_registered(&self, address: usize) -> bool {
        self.registered
            .range(..=address)
            .next_back()
            .is_some_and(|(&start, &len)| address - start < len)
    }

    /// The registered range that overlaps `[start, start + len)`, if any.
    fn registered_overlap(&self, start: usize, len: usize) -> Option<(usize, usize)> {
        let end = start.saturating_add(len);
        let before = self.registered.range(..start).next_back();
        let from = self.registered.range(start..end).next();
        before
            .filter(|(s, l)| *s + *l > start)
            .or(from)
            .map(|(&s, &l)| (s, l))
    }
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cudaHostRegister(
    ptr: *mut c_void,
    size: usize,
    _flags: c_uint,
) -> CudaError {
    api::call("cudaHostRegister", |rt| {
        require(!ptr.is_null(), || "ptr is a null pointer".into())?;
        require(size > 0, || "size is 0".into())?;
        let start = ptr as usize;
        if let Some((s, l)) = rt.registered_overlap(start, size) {
            return Err(Fail::Api(
                HOST_MEMORY_ALREADY_REGISTERED,
                format!(
                    "{size} bytes at {start:#x} overlap the {l} bytes at {s:#x} registered before"
                ),
            ));
        }
        rt.registered.insert(start, size);
        Ok(())
    })
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cudaHostUnregister(ptr: *mut c_void) -> CudaError {
    api::call("cudaHostUnregister", |rt| {
        match rt.registered.remove(&(ptr as usize)) {
            Some(_) => Ok(()),
            None => Err(Fail::Api(
                HOST_MEMORY_NOT_REGISTERED,
                format!(
                    "{:#x} is not the start of a range registered with cudaHostRegister",
                    ptr as usize
                ),
            )),
        }
    })
}
