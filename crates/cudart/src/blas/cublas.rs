//! The cuBLAS v2 API (`cublas_v2.h`): handles, their stream, pointer mode and math mode,
//! and the GEMM and GEMV calls, exported under the symbol names that `cublas_v2.h` maps
//! the API names to (`cublasSgemm` is `cublasSgemm_v2`; `cublasGemmEx`,
//! `cublasSetMathMode` and the strided batched calls have no suffix).
//!
//! Matrices are column-major: element `(i, j)` of `A` is `A[i + j * lda]`, and `op(A)` is
//! `A` for `CUBLAS_OP_N` and its transpose for `CUBLAS_OP_T` (and `CUBLAS_OP_C`, the
//! types being real). `C = alpha * op(A) * op(B) + beta * C` with `op(A)` `m x k`, `op(B)`
//! `k x n`, `C` `m x n`; each leading dimension must be at least the stored matrix's
//! column length and at least 1 (`lda >= max(1, transa ? k : m)`, `ldb >= max(1, transb
//! ? n : k)`, `ldc >= max(1, m)`), and `m`, `n`, `k`, the batch count and the batch strides
//! must not be negative; otherwise the call returns `CUBLAS_STATUS_INVALID_VALUE`.

use std::ffi::{CStr, c_char, c_int, c_longlong, c_void};

use super::extent::Matrix;
use super::gemm::{Epilogue, Gemm};
use super::types::*;
use super::{BlasFail, BlasResult, call, check, put};
use crate::state::Runtime;

/// A `cublasHandle_t`'s settings.
#[derive(Clone, Debug)]
pub struct Handle {
    pub stream: usize,
    pub pointer_mode: c_int,
    pub math_mode: c_int,
}

/// `CUBLAS_VERSION` of the API these calls follow (12.0.0).
pub const VERSION: c_int = 120000;

impl Runtime {
    /// The settings of a handle the program created.
    pub fn blas_handle(&self, handle: *mut c_void) -> BlasResult<Handle> {
        self.blas
            .handles
            .get(&(handle as usize))
            .cloned()
            .ok_or_else(|| {
                BlasFail::Status(
                    STATUS_NOT_INITIALIZED,
                    format!(
                        "{:#x} is not a cuBLAS handle (create one with cublasCreate)",
                        handle as usize
                    ),
                )
            })
    }

    fn blas_handle_mut(&mut self, handle: *mut c_void) -> BlasResult<&mut Handle> {
        self.blas
            .handles
            .get_mut(&(handle as usize))
            .ok_or_else(|| {
                BlasFail::Status(
                    STATUS_NOT_INITIALIZED,
                    format!("{:#x} is not a cuBLAS handle", handle as usize),
                )
            })
    }
}

/// A dimension argument, which must not be negative.
pub fn dim(value: i64, name: &str) -> BlasResult<u64> {
    check(value >= 0, || {
        format!("{name} is {value}, which is negative")
    })?;
    Ok(value as u64)
}

/// An operation argument.
pub fn op(value: c_int, name: &str) -> BlasResult<bool> {
    transposes(value).ok_or_else(|| {
        BlasFail::Status(
            STATUS_INVALID_VALUE,
            format!(
                "{name} is {value}, which is not CUBLAS_OP_N (0), CUBLAS_OP_T (1) or CUBLAS_OP_C (2)"
            ),
        )
    })
}

/// Checks a leading dimension against its matrix.
pub fn check_ld(m: &Matrix, name: &str, what: &str) -> BlasResult {
    check(m.ld >= m.min_ld(), || {
        format!(
            "{name} is {}, less than max(1, {what}) = {}: the columns of the matrix would overlap",
            m.ld,
            m.min_ld()
        )
    })
}

/// The arguments of one classic (column-major) GEMM call, before validation.
pub struct GemmArgs {
    pub transa: c_int,
    pub transb: c_int,
    pub m: c_int,
    pub n: c_int,
    pub k: c_int,
    pub a: *const c_void,
    pub a_type: c_int,
    pub lda: c_int,
    pub stride_a: c_longlong,
    pub b: *const c_void,
    pub b_type: c_int,
    pub ldb: c_int,
    pub stride_b: c_longlong,
    pub c: *mut c_void,
    pub c_type: c_int,
    pub ldc: c_int,
    pub stride_c: c_longlong,
    pub batch: c_int,
    pub alpha: *const c_void,
    pub beta: *const c_void,
    pub compute: c_int,
}

/// Validates the types of a `GemmEx`-style call: what cuBLAS computes for them.
pub fn gemm_types(
    call: &str,
    a: c_int,
    b: c_int,
    c: c_int,
    compute: c_int,
) -> BlasResult<(Elem, Elem, Precision)> {
    let unsupported = || {
        BlasFail::NotSupported(format!(
            "{call} with A {}, B {}, C {} and {}",
            data_type_name(a),
            data_type_name(b),
            data_type_name(c),
            compute_name(compute)
        ))
    };
    let precision = precision_of(compute).ok_or_else(unsupported)?;
    let (ea, eb, ec) = match (
        Elem::from_data_type(a),
        Elem::from_data_type(b),
        Elem::from_data_type(c),
    ) {
        (Some(ea), Some(eb), Some(ec)) => (ea, eb, ec),
        _ => return Err(unsupported()),
    };
    check(ea == eb, || {
        format!(
            "A is {} and B is {}: cuBLAS needs one input type",
            ea.name(),
            eb.name()
        )
    })?;
    let valid = match precision {
        Precision::F64 => ea == Elem::F64 && ec == Elem::F64,
        Precision::F32 => match ea {
            Elem::F32 => ec == Elem::F32,
            Elem::F16 | Elem::Bf16 => ec == ea || ec == Elem::F32,
            Elem::F64 => false,
        },
        Precision::Tf32 | Precision::F16Inputs | Precision::Bf16Inputs => {
            ea == Elem::F32 && ec == Elem::F32
        }
    };
    if !valid {
        return Err(unsupported());
    }
    Ok((ea, ec, precision))
}

impl Runtime {
    /// Validates and runs one classic GEMM call (`compute` may be a legacy
    /// `cudaDataType_t`, as `cublasGemmEx` accepts).
    pub fn classic_gemm(&mut self, name: &str, handle: *mut c_void, g: &GemmArgs) -> BlasResult {
        let h = self.blas_handle(handle)?;
        let trans_a = op(g.transa, "transa")?;
        let trans_b = op(g.transb, "transb")?;
        let (m, n, k) = (
            dim(g.m.into(), "m")?,
            dim(g.n.into(), "n")?,
            dim(g.k.into(), "k")?,
        );
        let count = dim(g.batch.into(), "batchCount")?;
        let (elem_in, elem_c, mut precision) =
            gemm_types(name, g.a_type, g.b_type, g.c_type, g.compute)?;
        if precision == Precision::F32
            && elem_in == Elem::F32
            && g.compute != COMPUTE_32F_PEDANTIC
            && h.math_mode & 0xf == TF32_TENSOR_OP_MATH
        {
            precision = Precision::Tf32;
        }
        let stored = |rows, cols, t: bool| if t { (cols, rows) } else { (rows, cols) };
        let (ar, ac) = stored(m, k, trans_a);
        let (br, bc) = stored(k, n, trans_b);
        let a = Matrix::col_major(g.a as u64, elem_in, ar, ac, dim(g.lda.into(), "lda")?)
            .batched(count, dim(g.stride_a, "strideA")?);
        let b = Matrix::col_major(g.b as u64, elem_in, br, bc, dim(g.ldb.into(), "ldb")?)
            .batched(count, dim(g.stride_b, "strideB")?);
        let c = Matrix::col_major(g.c as u64, elem_c, m, n, dim(g.ldc.into(), "ldc")?)
            .batched(count, dim(g.stride_c, "strideC")?);
        check_ld(&a, "lda", if trans_a { "k" } else { "m" })?;
        check_ld(&b, "ldb", if trans_b { "n" } else { "k" })?;
        check_ld(&c, "ldc", "m")?;
        let scale = if precision == Precision::F64 {
            Elem::F64
        } else {
            Elem::F32
        };
        let device = h.pointer_mode == POINTER_MODE_DEVICE;
        let alpha = self.read_scalar(name, "alpha", g.alpha, scale, device)?;
        let beta = self.read_scalar(name, "beta", g.beta, scale, device)?;
        let gemm = Gemm {
            m,
            n,
            k,
            a,
            trans_a,
            b,
            trans_b,
            c,
            d: c,
            alpha,
            beta,
            precision,
            epilogue: Epilogue::NONE,
        };
        if precision == Precision::F64 {
            self.run_gemm::<f64>(name, &gemm)
        } else {
            self.run_gemm::<f32>(name, &gemm)
        }
    }

    /// `y = alpha * op(A) * x + beta * y` as a GEMM with `n = 1`: a vector with increment
    /// `inc` is a `len x 1` matrix whose rows are `inc` apart.
    #[allow(clippy::too_many_arguments)]
    fn gemv(
        &mut self,
        name: &str,
        handle: *mut c_void,
        elem: Elem,
        trans: c_int,
        m: c_int,
        n: c_int,
        alpha: *const c_void,
        a: *const c_void,
        lda: c_int,
        x: *const c_void,
        incx: c_int,
        beta: *const c_void,
        y: *mut c_void,
        incy: c_int,
    ) -> BlasResult {
        let h = self.blas_handle(handle)?;
        let t = op(trans, "trans")?;
        let (m, n) = (dim(m.into(), "m")?, dim(n.into(), "n")?);
        let a = Matrix::col_major(a as u64, elem, m, n, dim(lda.into(), "lda")?);
        check_ld(&a, "lda", "m")?;
        check(incx != 0, || "incx is 0".into())?;
        check(incy != 0, || "incy is 0".into())?;
        if incx < 0 || incy < 0 {
            return Err(BlasFail::NotSupported(format!(
                "{name} with a negative increment"
            )));
        }
        let (len_x, len_y) = if t { (m, n) } else { (n, m) };
        let vector = |address: u64, len: u64, inc: c_int| Matrix {
            row_major: true,
            ..Matrix::col_major(address, elem, len, 1, inc as u64)
        };
        let device = h.pointer_mode == POINTER_MODE_DEVICE;
        let alpha = self.read_scalar(name, "alpha", alpha, elem, device)?;
        let beta = self.read_scalar(name, "beta", beta, elem, device)?;
        let yv = vector(y as u64, len_y, incy);
        let gemm = Gemm {
            m: len_y,
            n: 1,
            k: len_x,
            a,
            trans_a: t,
            b: vector(x as u64, len_x, incx),
            trans_b: false,
            c: yv,
            d: yv,
            alpha,
            beta,
            precision: if elem == Elem::F64 {
                Precision::F64
            } else {
                Precision::F32
            },
            epilogue: Epilogue::NONE,
        };
        if elem == Elem::F64 {
            self.run_gemm::<f64>(name, &gemm)
        } else {
            self.run_gemm::<f32>(name, &gemm)
        }
    }
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cublasCreate_v2(handle: *mut *mut c_void) -> BlasStatus {
    call("cublasCreate", |rt| {
        check(!handle.is_null(), || "handle is a null pointer".into())?;
        let h = rt.handle();
        rt.blas.handles.insert(
            h,
            Handle {
                stream: 0,
                pointer_mode: POINTER_MODE_HOST,
                math_mode: DEFAULT_MATH,
            },
        );
        unsafe { put(handle, h as *mut c_void, "handle") }
    })
}

#[unsafe(no_mangle)]
pub extern "C" fn cublasDestroy_v2(handle: *mut c_void) -> BlasStatus {
    call("cublasDestroy", |rt| {
        rt.blas_handle(handle)?;
        rt.blas.handles.remove(&(handle as usize));
        Ok(())
    })
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cublasGetVersion_v2(
    handle: *mut c_void,
    version: *mut c_int,
) -> BlasStatus {
    call("cublasGetVersion", |rt| {
        rt.blas_handle(handle)?;
        unsafe { put(version, VERSION, "version") }
    })
}

#[unsafe(no_mangle)]
pub extern "C" fn cublasSetStream_v2(handle: *mut c_void, stream: *mut c_void) -> BlasStatus {
    call("cublasSetStream", |rt| {
        rt.blas_handle_mut(handle)?.stream = stream as usize;
        Ok(())
    })
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cublasGetStream_v2(
    handle: *mut c_void,
    stream: *mut *mut c_void,
) -> BlasStatus {
    call("cublasGetStream", |rt| {
        let h = rt.blas_handle(handle)?;
        unsafe { put(stream, h.stream as *mut c_void, "streamId") }
    })
}

#[unsafe(no_mangle)]
pub extern "C" fn cublasSetWorkspace_v2(
    handle: *mut c_void,
    _workspace: *mut c_void,
    _size: usize,
) -> BlasStatus {
    // The host computation needs no device workspace.
    call("cublasSetWorkspace", |rt| {
        rt.blas_handle(handle).map(|_| ())
    })
}

#[unsafe(no_mangle)]
pub extern "C" fn cublasSetPointerMode_v2(handle: *mut c_void, mode: c_int) -> BlasStatus {
    call("cublasSetPointerMode", |rt| {
        check(
            mode == POINTER_MODE_HOST || mode == POINTER_MODE_DEVICE,
            || format!("{mode} is not a cublasPointerMode_t"),
        )?;
        rt.blas_handle_mut(handle)?.pointer_mode = mode;
        Ok(())
    })
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cublasGetPointerMode_v2(
    handle: *mut c_void,
    mode: *mut c_int,
) -> BlasStatus {
    call("cublasGetPointerMode", |rt| {
        let h = rt.blas_handle(handle)?;
        unsafe { put(mode, h.pointer_mode, "mode") }
    })
}

#[unsafe(no_mangle)]
pub extern "C" fn cublasSetMathMode(handle: *mut c_void, mode: c_int) -> BlasStatus {
    call("cublasSetMathMode", |rt| {
        check(
            matches!(
                mode & !DISALLOW_REDUCED_PRECISION_REDUCTION,
                DEFAULT_MATH | TENSOR_OP_MATH | PEDANTIC_MATH | TF32_TENSOR_OP_MATH
            ),
            || format!("{mode} is not a cublasMath_t"),
        )?;
        rt.blas_handle_mut(handle)?.math_mode = mode;
        Ok(())
    })
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cublasGetMathMode(handle: *mut c_void, mode: *mut c_int) -> BlasStatus {
    call("cublasGetMathMode", |rt| {
        let h = rt.blas_handle(handle)?;
        unsafe { put(mode, h.math_mode, "mode") }
    })
}

fn status_text(status: BlasStatus, name: bool) -> *const c_char {
    let entry = STATUSES.iter().find(|s| s.0 == status);
    let text = match (entry, name) {
        (Some(e), true) => e.1,
        (Some(e), false) => e.2,
        (None, true) => "CUBLAS_STATUS_UNKNOWN\0",
        (None, false) => "unknown cuBLAS status\0",
    };
    CStr::from_bytes_with_nul(text.as_bytes()).map_or(c"".as_ptr(), CStr::as_ptr)
}

#[unsafe(no_mangle)]
pub extern "C" fn cublasGetStatusName(status: BlasStatus) -> *const c_char {
    status_text(status, true)
}

#[unsafe(no_mangle)]
pub extern "C" fn cublasGetStatusString(status: BlasStatus) -> *const c_char {
    status_text(status, false)
}

/// The arguments of a non-batched call of one type.
#[allow(clippy::too_many_arguments)]
fn plain(
    elem: c_int,
    transa: c_int,
    transb: c_int,
    m: c_int,
    n: c_int,
    k: c_int,
    alpha: *const c_void,
    a: *const c_void,
    lda: c_int,
    b: *const c_void,
    ldb: c_int,
    beta: *const c_void,
    c: *mut c_void,
    ldc: c_int,
) -> GemmArgs {
    GemmArgs {
        transa,
        transb,
        m,
        n,
        k,
        a,
        a_type: elem,
        lda,
        stride_a: 0,
        b,
        b_type: elem,
        ldb,
        stride_b: 0,
        c,
        c_type: elem,
        ldc,
        stride_c: 0,
        batch: 1,
        alpha,
        beta,
        compute: if elem == R_64F {
            COMPUTE_64F
        } else {
            COMPUTE_32F
        },
    }
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cublasSgemm_v2(
    handle: *mut c_void,
    transa: c_int,
    transb: c_int,
    m: c_int,
    n: c_int,
    k: c_int,
    alpha: *const f32,
    a: *const f32,
    lda: c_int,
    b: *const f32,
    ldb: c_int,
    beta: *const f32,
    c: *mut f32,
    ldc: c_int,
) -> BlasStatus {
    let g = plain(
        R_32F,
        transa,
        transb,
        m,
        n,
        k,
        alpha.cast(),
        a.cast(),
        lda,
        b.cast(),
        ldb,
        beta.cast(),
        c.cast(),
        ldc,
    );
    call("cublasSgemm", |rt| {
        rt.classic_gemm("cublasSgemm", handle, &g)
    })
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cublasDgemm_v2(
    handle: *mut c_void,
    transa: c_int,
    transb: c_int,
    m: c_int,
    n: c_int,
    k: c_int,
    alpha: *const f64,
    a: *const f64,
    lda: c_int,
    b: *const f64,
    ldb: c_int,
    beta: *const f64,
    c: *mut f64,
    ldc: c_int,
) -> BlasStatus {
    let g = plain(
        R_64F,
        transa,
        transb,
        m,
        n,
        k,
        alpha.cast(),
        a.cast(),
        lda,
        b.cast(),
        ldb,
        beta.cast(),
        c.cast(),
        ldc,
    );
    call("cublasDgemm", |rt| {
        rt.classic_gemm("cublasDgemm", handle, &g)
    })
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cublasGemmEx(
    handle: *mut c_void,
    transa: c_int,
    transb: c_int,
    m: c_int,
    n: c_int,
    k: c_int,
    alpha: *const c_void,
    a: *const c_void,
    a_type: c_int,
    lda: c_int,
    b: *const c_void,
    b_type: c_int,
    ldb: c_int,
    beta: *const c_void,
    c: *mut c_void,
    c_type: c_int,
    ldc: c_int,
    compute: c_int,
    _algo: c_int,
) -> BlasStatus {
    let g = GemmArgs {
        a_type,
        b_type,
        c_type,
        compute,
        ..plain(
            R_32F, transa, transb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc,
        )
    };
    call("cublasGemmEx", |rt| {
        rt.classic_gemm("cublasGemmEx", handle, &g)
    })
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cublasSgemmStridedBatched(
    handle: *mut c_void,
    transa: c_int,
    transb: c_int,
    m: c_int,
    n: c_int,
    k: c_int,
    alpha: *const f32,
    a: *const f32,
    lda: c_int,
    stride_a: c_longlong,
    b: *const f32,
    ldb: c_int,
    stride_b: c_longlong,
    beta: *const f32,
    c: *mut f32,
    ldc: c_int,
    stride_c: c_longlong,
    batch: c_int,
) -> BlasStatus {
    let g = GemmArgs {
        stride_a,
        stride_b,
        stride_c,
        batch,
        ..plain(
            R_32F,
            transa,
            transb,
            m,
            n,
            k,
            alpha.cast(),
            a.cast(),
            lda,
            b.cast(),
            ldb,
            beta.cast(),
            c.cast(),
            ldc,
        )
    };
    call("cublasSgemmStridedBatched", |rt| {
        rt.classic_gemm("cublasSgemmStridedBatched", handle, &g)
    })
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cublasGemmStridedBatchedEx(
    handle: *mut c_void,
    transa: c_int,
    transb: c_int,
    m: c_int,
    n: c_int,
    k: c_int,
    alpha: *const c_void,
    a: *const c_void,
    a_type: c_int,
    lda: c_int,
    stride_a: c_longlong,
    b: *const c_void,
    b_type: c_int,
    ldb: c_int,
    stride_b: c_longlong,
    beta: *const c_void,
    c: *mut c_void,
    c_type: c_int,
    ldc: c_int,
    stride_c: c_longlong,
    batch: c_int,
    compute: c_int,
    _algo: c_int,
) -> BlasStatus {
    let g = GemmArgs {
        transa,
        transb,
        m,
        n,
        k,
        a,
        a_type,
        lda,
        stride_a,
        b,
        b_type,
        ldb,
        stride_b,
        c,
        c_type,
        ldc,
        stride_c,
        batch,
        alpha,
        beta,
        compute,
    };
    call("cublasGemmStridedBatchedEx", |rt| {
        rt.classic_gemm("cublasGemmStridedBatchedEx", handle, &g)
    })
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cublasSgemv_v2(
    handle: *mut c_void,
    trans: c_int,
    m: c_int,
    n: c_int,
    alpha: *const f32,
    a: *const f32,
    lda: c_int,
    x: *const f32,
    incx: c_int,
    beta: *const f32,
    y: *mut f32,
    incy: c_int,
) -> BlasStatus {
    call("cublasSgemv", |rt| {
        rt.gemv(
            "cublasSgemv",
            handle,
            Elem::F32,
            trans,
            m,
            n,
            alpha.cast(),
            a.cast(),
            lda,
            x.cast(),
            incx,
            beta.cast(),
            y.cast(),
            incy,
        )
    })
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cublasDgemv_v2(
    handle: *mut c_void,
    trans: c_int,
    m: c_int,
    n: c_int,
    alpha: *const f64,
    a: *const f64,
    lda: c_int,
    x: *const f64,
    incx: c_int,
    beta: *const f64,
    y: *mut f64,
    incy: c_int,
) -> BlasStatus {
    call("cublasDgemv", |rt| {
        rt.gemv(
            "cublasDgemv",
            handle,
            Elem::F64,
            trans,
            m,
            n,
            alpha.cast(),
            a.cast(),
            lda,
            x.cast(),
            incx,
            beta.cast(),
            y.cast(),
            incy,
        )
    })
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cublasDgemmStridedBatched(
    handle: *mut c_void,
    transa: c_int,
    transb: c_int,
    m: c_int,
    n: c_int,
    k: c_int,
    alpha: *const f64,
    a: *const f64,
    lda: c_int,
    stride_a: c_longlong,
    b: *const f64,
    ldb: c_int,
    stride_b: c_longlong,
    beta: *const f64,
    c: *mut f64,
    ldc: c_int,
    stride_c: c_longlong,
    batch: c_int,
) -> BlasStatus {
    let g = GemmArgs {
        stride_a,
        stride_b,
        stride_c,
        batch,
        ..plain(
            R_64F,
            transa,
            transb,
            m,
            n,
            k,
            alpha.cast(),
            a.cast(),
            lda,
            b.cast(),
            ldb,
            beta.cast(),
            c.cast(),
            ldc,
        )
    };
    call("cublasDgemmStridedBatched", |rt| {
        rt.classic_gemm("cublasDgemmStridedBatched", handle, &g)
    })
}
