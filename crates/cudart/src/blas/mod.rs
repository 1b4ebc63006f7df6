//! cuBLAS and cuBLASLt on the host CPU: `libwarpcheck_cudart.so` also exports the C ABI of
//! the commonly used calls of `libcublas.so` (v2 API, `cublas_v2.h`) and `libcublasLt.so`
//! (`cublasLt.h`), so a program linked with `-lcublas -lcublasLt` runs with warpcheck's
//! runtime alone.
//!
//! # How a call runs
//!
//! Like every API call of this runtime, a BLAS call runs under the runtime's lock, at once
//! and to completion: streams are synchronous here (kernel launches run to completion
//! before `<<<>>>` returns), so a call issued to a stream sees everything issued before it
//! and everything issued after it sees its result. The stream a handle is set to is
//! recorded and otherwise has no effect. The emulated device clock that events read
//! advances by the call's host time. A BLAS call after a kernel fault (a sticky CUDA
//! error) returns `CUBLAS_STATUS_EXECUTION_FAILED` without running.
//!
//! Each call first checks its arguments as cuBLAS documents (dimensions, leading
//! dimensions, operations, types); a bad one returns `CUBLAS_STATUS_INVALID_VALUE` and is
//! reported as an `api-error` finding at the caller's line. Then every matrix and vector
//! the call reads or writes is checked as `cudaMemcpy` checks its ranges ([`extent`] says
//! what the extent of a matrix is): a range that leaves its device allocation
//! (`copy-out-of-bounds`), lies in freed memory (`use-after-free`) or is no device memory
//! (`invalid-device-pointer`) is reported at the caller's line and the call returns
//! `CUBLAS_STATUS_EXECUTION_FAILED` (on a GPU the library's kernel would fault), leaving
//! the output untouched. Only what the call really accesses is checked: `C` is not read
//! when `beta` is 0, `A` and `B` are not read when `alpha` or `k` is 0. The output's
//! elements (never the padding between columns) count as written by the host for the
//! `init` checker, as a copy's bytes do; reads are not checked for initialisation (nor
//! are a copy's).
//!
//! The arithmetic is [`gemm`]'s: `matrixmultiply`'s packed f32/f64 GEMM over the operands
//! converted to f32 (f16 and bf16 exactly, with the `half` crate), products and sums in
//! f32 (f64 for double precision), the result converted to the output type rounding to
//! nearest even. Reduced-precision modes round the inputs first (see [`gemm::round_inputs`]).
//!
//! Functions that are exported but not implemented return `CUBLAS_STATUS_NOT_SUPPORTED`
//! and are reported once by name (`api-not-supported`), as the runtime's own unsupported
//! functions are ([`unsupported`]); so are unsupported variants of implemented calls (a
//! compute type, an epilogue), named with the variant.

pub mod cublas;
pub mod cublaslt;
pub mod extent;
pub mod gemm;
pub mod types;
pub mod unsupported;

use std::collections::HashMap;
use std::ffi::c_void;

use warpcheck_report::{Code, Severity};

use crate::api::Fail;
use crate::host_line::CallSite;
use crate::pointers::{Access, Mem};
use crate::state::{self, Runtime};
use crate::types::SUCCESS;
use extent::Matrix;
use types::*;

/// The handles and descriptors the program created, by the handle value given out.
#[derive(Default)]
pub struct BlasState {
    pub handles: HashMap<usize, cublas::Handle>,
    pub lt_handles: HashMap<usize, ()>,
    pub descs: HashMap<usize, cublaslt::MatmulDesc>,
    pub layouts: HashMap<usize, cublaslt::Layout>,
    pub prefs: HashMap<usize, cublaslt::Preference>,
}

/// Why a BLAS call failed.
#[derive(Debug)]
pub enum BlasFail {
    /// A bad argument: reported as an `api-error` finding; the call returns this status.
    Status(BlasStatus, String),
    /// Something this runtime does not implement, named: reported once by that name.
    NotSupported(String),
    /// A failure already reported (a bad device range).
    Reported(BlasStatus),
}

pub type BlasResult<T = ()> = Result<T, BlasFail>;

impl From<Fail> for BlasFail {
    fn from(f: Fail) -> BlasFail {
        match f {
            Fail::Reported(_) => BlasFail::Reported(STATUS_EXECUTION_FAILED),
            Fail::Api(_, why) => BlasFail::Status(STATUS_INVALID_VALUE, why),
            Fail::Quiet(_) => BlasFail::Reported(STATUS_EXECUTION_FAILED),
        }
    }
}

/// `Err(BlasFail::Status(CUBLAS_STATUS_INVALID_VALUE, why))` unless `ok`.
pub fn check(ok: bool, why: impl FnOnce() -> String) -> BlasResult {
    if ok {
        Ok(())
    } else {
        Err(BlasFail::Status(STATUS_INVALID_VALUE, why()))
    }
}

/// Runs a cuBLAS or cuBLASLt call under the runtime's lock and turns its result into a
/// status. A panic (a bug of this runtime) is caught here, reported and returned as
/// `CUBLAS_STATUS_INTERNAL_ERROR`: it must not unwind into the program's C code.
pub fn call(name: &str, body: impl FnOnce(&mut Runtime) -> BlasResult) -> BlasStatus {
    state::with(|rt| {
        rt.timings.api_calls += 1;
        if rt.sticky != SUCCESS {
            return STATUS_EXECUTION_FAILED;
        }
        let start = std::time::Instant::now();
        let r = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| body(rt))).unwrap_or_else(
            |_| {
                Err(BlasFail::Status(
                    STATUS_INTERNAL_ERROR,
                    "warpcheck's cuBLAS failed internally (a bug of warpcheck)".into(),
                ))
            },
        );
        // The device clock (events) advances by the host time of the computation, as it
        // does by the emulator's time for a kernel.
        rt.clock_ms += start.elapsed().as_secs_f64() * 1e3;
        match r {
            Ok(()) => STATUS_SUCCESS,
            Err(BlasFail::Status(status, why)) => {
                rt.blas_error(name, status, why);
                status
            }
            Err(BlasFail::NotSupported(what)) => {
                rt.not_supported_returning(&what, "CUBLAS_STATUS_NOT_SUPPORTED");
                STATUS_NOT_SUPPORTED
            }
            Err(BlasFail::Reported(status)) => status,
        }
    })
}

/// Writes `value` through an output pointer, or fails for a null one.
///
/// # Safety
/// `out` is null or valid for a write of `T`.
pub unsafe fn put<T>(out: *mut T, value: T, what: &str) -> BlasResult {
    check(!out.is_null(), || format!("{what} is a null pointer"))?;
    // SAFETY: non-null, and valid per the caller's contract.
    unsafe { out.write_unaligned(value) };
    Ok(())
}

/// A memory location at `by` bytes past `m`.
pub fn at(m: Mem, by: u64) -> Mem {
    match m {
        Mem::Device(a) => Mem::Device(a + by),
        Mem::Host(p) => Mem::Host(p + by as usize),
    }
}

impl Runtime {
    /// Reports a failed BLAS call: its name, the status and why, at the caller's line.
    pub fn blas_error(&mut self, call: &str, status: BlasStatus, why: String) {
        let site = CallSite::capture();
        let f = self
            .host_finding(
                Code::ApiError,
                Severity::Error,
                format!("{call} returned {}: {why}", status_name(status)),
                &site,
                format!("{call} fails here").as_str(),
            )
            .help("check the status of every cuBLAS call; the program went on after this error");
        self.findings.add(f);
    }

    /// Checks the device range of a matrix argument (`role` names it in the finding) and
    /// returns where its first element is; `None` when the call touches none of it.
    pub fn matrix_range(&mut self, call: &str, role: &str, m: &Matrix) -> BlasResult<Option<Mem>> {
        let bytes = m.span_bytes().ok_or_else(|| {
            BlasFail::Status(
                STATUS_INVALID_VALUE,
                format!("the extent of {role} does not fit in 64 bits"),
            )
        })?;
        if bytes == 0 {
            return Ok(None);
        }
        let mut what = format!(
            "{role} ({} x {} {}, leading dimension {}",
            m.rows,
            m.cols,
            if m.row_major {
                "row-major"
            } else {
                "column-major"
            },
            m.ld
        );
        if m.count > 1 {
            what += &format!(", {} matrices {} elements apart", m.count, m.stride);
        }
        what += ")";
        Ok(Some(self.checked_range(
            call,
            &what,
            m.address,
            bytes,
            Access::Library,
        )?))
    }

    /// Reads a scalar (`alpha`, `beta`) of `elem` type from host memory, or from device
    /// memory (checked) when `device` is set.
    pub fn read_scalar(
        &mut self,
        call: &str,
        role: &str,
        p: *const c_void,
        elem: Elem,
        device: bool,
    ) -> BlasResult<f64> {
        check(!p.is_null(), || format!("{role} is a null pointer"))?;
        let bytes = if device {
            let m = self.checked_range(call, role, p as u64, elem.size(), Access::Library)?;
            self.read_mem(m, elem.size() as usize)
        } else {
            self.read_mem(Mem::Host(p as usize), elem.size() as usize)
        };
        Ok(gemm::decode_f64(&bytes, elem)[0])
    }
}

#[cfg(test)]
mod tests {
    /// The names of the functions a C header declares (`NAME(` after a return type at the
    /// start of a line, outside comments).
    fn declared(header: &str) -> Vec<String> {
        let mut out = Vec::new();
        for line in header.lines() {
            let line = line.trim_start();
            if line.starts_with("/*") || line.starts_with('*') || line.starts_with('#') {
                continue;
            }
            let Some(open) = line.find('(') else { continue };
            let head = &line[..open];
            let name = head.rsplit([' ', '*']).next().unwrap_or("");
            if name.starts_with("cublas") && head.trim() != name {
                out.push(name.to_string());
            }
        }
        out
    }

    /// The functions the sources export (`extern "C" fn NAME(`).
    fn exported() -> Vec<String> {
        let mut out: Vec<String> = super::unsupported::NOT_SUPPORTED_FUNCTIONS
            .iter()
            .map(|s| s.to_string())
            .collect();
        for src in [include_str!("cublas.rs"), include_str!("cublaslt.rs")] {
            for part in src.split("extern \"C\" fn ").skip(1) {
                out.push(part.split('(').next().unwrap_or("").to_string());
            }
        }
        out
    }

    #[test]
    fn every_declared_function_is_exported() {
        let exported = exported();
        let headers = [
            include_str!("../../../../include/cublas_api.h"),
            include_str!("../../../../include/cublasLt.h"),
        ];
        let mut count = 0;
        for h in headers {
            for name in declared(h) {
                count += 1;
                assert!(
                    exported.contains(&name),
                    "{name} is declared but not exported"
                );
            }
        }
        assert!(count > 50, "only {count} declarations found");
    }

    #[test]
    fn every_v2_macro_names_an_exported_function() {
        let exported = exported();
        for line in include_str!("../../../../include/cublas_v2.h").lines() {
            if let Some(rest) = line.strip_prefix("#define cublas") {
                let target = rest.split_whitespace().nth(1).unwrap_or("");
                assert!(
                    exported.iter().any(|e| e == target),
                    "{line}: {target} is not exported"
                );
            }
        }
    }
}
