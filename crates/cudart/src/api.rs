//! How every API function runs: under the runtime's lock, returning the sticky error of an
//! earlier kernel fault first, and recording its result for `cudaGetLastError`.

use crate::state::{self, Runtime};
use crate::types::{CudaError, SUCCESS};

/// Why a call failed.
pub enum Fail {
    /// An error the call returns, reported as an `api-error` finding with this reason.
    Api(CudaError, String),
    /// An error whose finding the call has already made (a bad copy, a double free …).
    Reported(CudaError),
    /// An error that is an answer, not a fault (`cudaErrorNotReady` of a query).
    Quiet(CudaError),
}

pub type Result = std::result::Result<(), Fail>;

/// Runs an API call that a sticky error stops.
pub fn call(name: &str, body: impl FnOnce(&mut Runtime) -> Result) -> CudaError {
    state::with(|rt| {
        rt.timings.api_calls += 1;
        if rt.sticky != SUCCESS {
            return rt.sticky;
        }
        let r = body(rt);
        finish(rt, name, r)
    })
}

/// Runs an API call that works after a kernel fault too (error queries, device queries,
/// `cudaDeviceReset`).
pub fn call_always(name: &str, body: impl FnOnce(&mut Runtime) -> Result) -> CudaError {
    state::with(|rt| {
        rt.timings.api_calls += 1;
        let r = body(rt);
        finish(rt, name, r)
    })
}

fn finish(rt: &mut Runtime, name: &str, r: Result) -> CudaError {
    match r {
        Ok(()) => SUCCESS,
        Err(Fail::Api(code, why)) => {
            rt.api_error(name, code, why);
            rt.result(code)
        }
        Err(Fail::Reported(code)) => rt.result(code),
        Err(Fail::Quiet(code)) => code,
    }
}

/// `Err(Fail::Api(INVALID_VALUE, why))` when `bad`.
pub fn require(ok: bool, why: impl FnOnce() -> String) -> Result {
    if ok {
        Ok(())
    } else {
        Err(Fail::Api(crate::types::INVALID_VALUE, why()))
    }
}

/// Writes `value` through an output pointer, or fails with `cudaErrorInvalidValue` for a
/// null pointer.
///
/// # Safety
/// `out` is null or valid for a write of `T`.
pub unsafe fn put<T>(out: *mut T, value: T, what: &str) -> Result {
    require(!out.is_null(), || format!("{what} is a null pointer"))?;
    // SAFETY: non-null, and valid per the caller's contract.
    unsafe { out.write(value) };
    Ok(())
}
