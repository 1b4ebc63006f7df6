//! The cuBLASLt API (`cublasLt.h`): `cublasLtMatmul` with its operation descriptor,
//! matrix layouts, preferences and algorithm heuristic.
//!
//! `cublasLtMatmul` computes `D = epilogue(alpha * op(A) * op(B) + beta * C)`. Each matrix
//! has its own layout (`cublasLtMatrixLayoutCreate(&l, type, rows, cols, ld)`), which
//! describes it as stored: `D` is `m x n`, `A` is `m x k` (`k x m` with
//! `CUBLASLT_MATMUL_DESC_TRANSA` = `CUBLAS_OP_T`), `B` is `k x n` (`n x k` transposed),
//! `C` is like `D`. Column-major (`CUBLASLT_ORDER_COL`, the default) and row-major
//! (`CUBLASLT_ORDER_ROW`) layouts are supported, with `CUBLASLT_MATRIX_LAYOUT_BATCH_COUNT`
//! and `STRIDED_BATCH_OFFSET` (every layout's batch count must be the same). Types: as
//! `cublasGemmEx` ([`super::cublas`]): f32, or f16/bf16 inputs with f32 or same-type
//! output, with `CUBLAS_COMPUTE_32F` (`_PEDANTIC`, `_FAST_TF32`, `_FAST_16F`,
//! `_FAST_16BF`) and f32 scale type; f64 with `CUBLAS_COMPUTE_64F`. Epilogues:
//! `DEFAULT`, `RELU`, `BIAS`, `RELU_BIAS`, `GELU`, `GELU_BIAS`, `GELU_AUX`,
//! `GELU_AUX_BIAS` (the bias is a vector of `m` elements of `D`'s type or
//! `CUBLASLT_MATMUL_DESC_BIAS_DATA_TYPE`, added to every column; GELU is the tanh
//! approximation; `_AUX` stores the GELU input in `EPILOGUE_AUX_POINTER` with
//! `EPILOGUE_AUX_LD`). The heuristic validates the problem as `cublasLtMatmul` would and
//! returns one algorithm that needs no workspace; the algorithm and workspace passed to
//! `cublasLtMatmul` are not used.

use std::collections::HashMap;
use std::ffi::{c_char, c_int, c_void};

use super::cublas::{check_ld, op};
use super::extent::Matrix;
use super::gemm::{Activation, Epilogue, Gemm};
use super::types::*;
use super::{BlasFail, BlasResult, call, check, put};
use crate::state::Runtime;

/// Attribute values as the program set them: raw bytes by attribute id.
#[derive(Clone, Debug, Default)]
pub struct Attributes(HashMap<c_int, Vec<u8>>);

impl Attributes {
    fn int(&self, attr: c_int, default: i64) -> i64 {
        match self.0.get(&attr).map(Vec::as_slice) {
            Some([a]) => i64::from(*a as i8),
            Some(&[a, b, c, d]) => i64::from(i32::from_le_bytes([a, b, c, d])),
            Some(b) if b.len() == 8 => i64::from_le_bytes(b.try_into().unwrap_or([0; 8])),
            _ => default,
        }
    }

    fn set(&mut self, attr: c_int, bytes: Vec<u8>) {
        self.0.insert(attr, bytes);
    }
}

/// (attribute id, name, size in bytes) of the attributes a kind of object accepts.
type AttrTable = &'static [(c_int, &'static str, usize)];

pub const DESC_COMPUTE_TYPE: c_int = 0;
pub const DESC_SCALE_TYPE: c_int = 1;
pub const DESC_POINTER_MODE: c_int = 2;
pub const DESC_TRANSA: c_int = 3;
pub const DESC_TRANSB: c_int = 4;
pub const DESC_TRANSC: c_int = 5;
pub const DESC_EPILOGUE: c_int = 7;
pub const DESC_BIAS_POINTER: c_int = 8;
pub const DESC_BIAS_BATCH_STRIDE: c_int = 10;
pub const DESC_EPILOGUE_AUX_POINTER: c_int = 11;
pub const DESC_EPILOGUE_AUX_LD: c_int = 12;
pub const DESC_EPILOGUE_AUX_BATCH_STRIDE: c_int = 13;
pub const DESC_EPILOGUE_AUX_DATA_TYPE: c_int = 22;
pub const DESC_BIAS_DATA_TYPE: c_int = 26;

/// The `cublasLtMatmulDescAttributes_t` values this runtime implements. Others
/// (scale pointers for FP8, fill mode, alpha vectors, …) are not supported.
const DESC_ATTRS: AttrTable = &[
    (DESC_COMPUTE_TYPE, "CUBLASLT_MATMUL_DESC_COMPUTE_TYPE", 4),
    (DESC_SCALE_TYPE, "CUBLASLT_MATMUL_DESC_SCALE_TYPE", 4),
    (DESC_POINTER_MODE, "CUBLASLT_MATMUL_DESC_POINTER_MODE", 4),
    (DESC_TRANSA, "CUBLASLT_MATMUL_DESC_TRANSA", 4),
    (DESC_TRANSB, "CUBLASLT_MATMUL_DESC_TRANSB", 4),
    (DESC_TRANSC, "CUBLASLT_MATMUL_DESC_TRANSC", 4),
    (DESC_EPILOGUE, "CUBLASLT_MATMUL_DESC_EPILOGUE", 4),
    (DESC_BIAS_POINTER, "CUBLASLT_MATMUL_DESC_BIAS_POINTER", 8),
    (
        DESC_BIAS_BATCH_STRIDE,
        "CUBLASLT_MATMUL_DESC_BIAS_BATCH_STRIDE",
        8,
    ),
    (
        DESC_EPILOGUE_AUX_POINTER,
        "CUBLASLT_MATMUL_DESC_EPILOGUE_AUX_POINTER",
        8,
    ),
    (
        DESC_EPILOGUE_AUX_LD,
        "CUBLASLT_MATMUL_DESC_EPILOGUE_AUX_LD",
        8,
    ),
    (
        DESC_EPILOGUE_AUX_BATCH_STRIDE,
        "CUBLASLT_MATMUL_DESC_EPILOGUE_AUX_BATCH_STRIDE",
        8,
    ),
    (15, "CUBLASLT_MATMUL_DESC_SM_COUNT_TARGET", 4),
    (
        DESC_EPILOGUE_AUX_DATA_TYPE,
        "CUBLASLT_MATMUL_DESC_EPILOGUE_AUX_DATA_TYPE",
        4,
    ),
    (25, "CUBLASLT_MATMUL_DESC_FAST_ACCUM", 1),
    (
        DESC_BIAS_DATA_TYPE,
        "CUBLASLT_MATMUL_DESC_BIAS_DATA_TYPE",
        4,
    ),
];

pub const LAYOUT_TYPE: c_int = 0;
pub const LAYOUT_ORDER: c_int = 1;
pub const LAYOUT_ROWS: c_int = 2;
pub const LAYOUT_COLS: c_int = 3;
pub const LAYOUT_LD: c_int = 4;
pub const LAYOUT_BATCH_COUNT: c_int = 5;
pub const LAYOUT_STRIDED_BATCH_OFFSET: c_int = 6;

const LAYOUT_ATTRS: AttrTable = &[
    (LAYOUT_TYPE, "CUBLASLT_MATRIX_LAYOUT_TYPE", 4),
    (LAYOUT_ORDER, "CUBLASLT_MATRIX_LAYOUT_ORDER", 4),
    (LAYOUT_ROWS, "CUBLASLT_MATRIX_LAYOUT_ROWS", 8),
    (LAYOUT_COLS, "CUBLASLT_MATRIX_LAYOUT_COLS", 8),
    (LAYOUT_LD, "CUBLASLT_MATRIX_LAYOUT_LD", 8),
    (LAYOUT_BATCH_COUNT, "CUBLASLT_MATRIX_LAYOUT_BATCH_COUNT", 4),
    (
        LAYOUT_STRIDED_BATCH_OFFSET,
        "CUBLASLT_MATRIX_LAYOUT_STRIDED_BATCH_OFFSET",
        8,
    ),
];

/// `cublasLtMatmulPreferenceAttributes_t`: accepted and without effect (there is one
/// algorithm, which needs no workspace).
const PREF_ATTRS: AttrTable = &[
    (0, "CUBLASLT_MATMUL_PREF_SEARCH_MODE", 4),
    (1, "CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES", 8),
    (3, "CUBLASLT_MATMUL_PREF_REDUCTION_SCHEME_MASK", 4),
    (5, "CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_A_BYTES", 4),
    (6, "CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_B_BYTES", 4),
    (7, "CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_C_BYTES", 4),
    (8, "CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_D_BYTES", 4),
    (9, "CUBLASLT_MATMUL_PREF_MAX_WAVES_COUNT", 4),
    (12, "CUBLASLT_MATMUL_PREF_IMPL_MASK", 8),
];

/// `cublasLtOrder_t`.
pub const ORDER_COL: i64 = 0;
pub const ORDER_ROW: i64 = 1;

/// `cublasLtEpilogue_t`.
pub const EPILOGUE_DEFAULT: i64 = 1;
pub const EPILOGUE_RELU: i64 = 2;
pub const EPILOGUE_BIAS: i64 = 4;
pub const EPILOGUE_RELU_BIAS: i64 = 6;
pub const EPILOGUE_GELU: i64 = 32;
pub const EPILOGUE_GELU_BIAS: i64 = 36;
pub const EPILOGUE_GELU_AUX: i64 = 160;
pub const EPILOGUE_GELU_AUX_BIAS: i64 = 164;

/// The epilogues not implemented, by value, for messages.
const OTHER_EPILOGUES: &[(i64, &str)] = &[
    (130, "CUBLASLT_EPILOGUE_RELU_AUX"),
    (134, "CUBLASLT_EPILOGUE_RELU_AUX_BIAS"),
    (136, "CUBLASLT_EPILOGUE_DRELU"),
    (152, "CUBLASLT_EPILOGUE_DRELU_BGRAD"),
    (192, "CUBLASLT_EPILOGUE_DGELU"),
    (208, "CUBLASLT_EPILOGUE_DGELU_BGRAD"),
    (256, "CUBLASLT_EPILOGUE_BGRADA"),
    (512, "CUBLASLT_EPILOGUE_BGRADB"),
];

/// A `cublasLtMatmulDesc_t`.
#[derive(Clone, Debug, Default)]
pub struct MatmulDesc {
    pub attrs: Attributes,
}

/// A `cublasLtMatrixLayout_t`.
#[derive(Clone, Debug, Default)]
pub struct Layout {
    pub attrs: Attributes,
}

/// A `cublasLtMatmulPreference_t`.
#[derive(Clone, Debug, Default)]
pub struct Preference {
    pub attrs: Attributes,
}

/// `cublasLtMatmulAlgo_t`.
#[repr(C)]
#[derive(Clone, Copy, Default)]
pub struct MatmulAlgo {
    pub data: [u64; 8],
}

/// `cublasLtMatmulHeuristicResult_t`.
#[repr(C)]
#[derive(Clone, Copy, Default)]
pub struct HeuristicResult {
    pub algo: MatmulAlgo,
    pub workspace_size: usize,
    pub state: BlasStatus,
    pub waves_count: f32,
    pub reserved: [c_int; 4],
}

/// The algorithm the heuristic returns (its first word, so that it is not all zero).
const THE_ALGO: u64 = 0x7761_7270; // "warp"

/// Sets an attribute after checking its id and size against `table`.
///
/// # Safety
/// `buf` is null or valid for reads of `size` bytes.
unsafe fn set_attr(
    attrs: &mut Attributes,
    table: AttrTable,
    what: &str,
    attr: c_int,
    buf: *const c_void,
    size: usize,
) -> BlasResult {
    let Some(&(_, name, want)) = table.iter().find(|a| a.0 == attr) else {
        return Err(BlasFail::NotSupported(format!(
            "{what} of attribute {attr}"
        )));
    };
    check(!buf.is_null(), || {
        format!("buf of {name} is a null pointer")
    })?;
    check(size == want, || {
        format!("sizeInBytes is {size}, but {name} takes {want} bytes")
    })?;
    // SAFETY: `buf` is valid for `size` bytes per the caller's contract.
    let bytes = unsafe { std::slice::from_raw_parts(buf.cast::<u8>(), size) }.to_vec();
    attrs.set(attr, bytes);
    Ok(())
}

/// Gets an attribute: its bytes (zero when never set, except the defaults `value`
/// supplies), as `cublasLt*GetAttribute` returns them.
///
/// # Safety
/// `buf` is null or valid for writes of `size` bytes; `written` is null or valid.
unsafe fn get_attr(
    table: AttrTable,
    what: &str,
    attr: c_int,
    value: i64,
    buf: *mut c_void,
    size: usize,
    written: *mut usize,
) -> BlasResult {
    let Some(&(_, name, want)) = table.iter().find(|a| a.0 == attr) else {
        return Err(BlasFail::NotSupported(format!(
            "{what} of attribute {attr}"
        )));
    };
    if size == 0 && !written.is_null() {
        // SAFETY: non-null and valid per the contract: the size query.
        unsafe { written.write_unaligned(want) };
        return Ok(());
    }
    check(!buf.is_null() && size == want, || {
        format!("sizeInBytes is {size}, but {name} takes {want} bytes")
    })?;
    let bytes = value.to_le_bytes();
    // SAFETY: `buf` is valid for `want` (<= 8) bytes.
    unsafe { std::ptr::copy_nonoverlapping(bytes.as_ptr(), buf.cast::<u8>(), want) };
    if !written.is_null() {
        // SAFETY: as above.
        unsafe { written.write_unaligned(want) };
    }
    Ok(())
}

/// The default value of a descriptor attribute.
fn desc_default(attr: c_int) -> i64 {
    match attr {
        DESC_EPILOGUE => EPILOGUE_DEFAULT,
        DESC_BIAS_DATA_TYPE | DESC_EPILOGUE_AUX_DATA_TYPE => -1,
        _ => 0,
    }
}

fn layout_default(attr: c_int) -> i64 {
    match attr {
        LAYOUT_BATCH_COUNT => 1,
        _ => 0,
    }
}

/// A validated matmul: the GEMM (scalars not yet read), the scale type and whether the
/// scalars are device pointers.
struct Plan {
    gemm: Gemm,
    scale: Elem,
    device_scalars: bool,
}

impl Runtime {
    fn lt_handle(&self, handle: *mut c_void) -> BlasResult {
        check(
            self.blas.lt_handles.contains_key(&(handle as usize)),
            || format!("{:#x} is not a cuBLASLt handle", handle as usize),
        )
        .map_err(|e| match e {
            BlasFail::Status(_, why) => BlasFail::Status(STATUS_NOT_INITIALIZED, why),
            e => e,
        })
    }

    fn desc(&self, d: *mut c_void) -> BlasResult<MatmulDesc> {
        self.blas.descs.get(&(d as usize)).cloned().ok_or_else(|| {
            BlasFail::Status(
                STATUS_INVALID_VALUE,
                format!("{:#x} is not a cublasLtMatmulDesc_t", d as usize),
            )
        })
    }

    fn layout(&self, l: *mut c_void, name: &str) -> BlasResult<Layout> {
        self.blas
            .layouts
            .get(&(l as usize))
            .cloned()
            .ok_or_else(|| {
                BlasFail::Status(
                    STATUS_INVALID_VALUE,
                    format!("{name} ({:#x}) is not a cublasLtMatrixLayout_t", l as usize),
                )
            })
    }

    /// Validates a matmul as `cublasLtMatmul` and the heuristic do.
    fn plan(
        &self,
        desc: *mut c_void,
        layouts: [*mut c_void; 4],
        pointers: [u64; 4],
    ) -> BlasResult<Plan> {
        let desc = self.desc(desc)?;
        let d_attr = |attr| desc.attrs.int(attr, desc_default(attr));
        let names = ["Adesc", "Bdesc", "Cdesc", "Ddesc"];
        let mut ls = Vec::with_capacity(4);
        for i in 0..4 {
            ls.push(self.layout(layouts[i], names[i])?);
        }
        let compute = d_attr(DESC_COMPUTE_TYPE) as c_int;
        let ty = |l: &Layout| l.attrs.int(LAYOUT_TYPE, 0) as c_int;
        let (elem_in, elem_d, precision) = super::cublas::gemm_types(
            "cublasLtMatmul",
            ty(&ls[0]),
            ty(&ls[1]),
            ty(&ls[3]),
            compute,
        )?;
        check(ty(&ls[2]) == ty(&ls[3]), || {
            format!(
                "C is {} and D is {}: they must be of one type",
                data_type_name(ty(&ls[2])),
                data_type_name(ty(&ls[3]))
            )
        })?;
        let scale_type = d_attr(DESC_SCALE_TYPE) as c_int;
        let scale = if precision == Precision::F64 {
            Elem::F64
        } else {
            Elem::F32
        };
        if Elem::from_data_type(scale_type) != Some(scale) {
            return Err(BlasFail::NotSupported(format!(
                "cublasLtMatmul with scale type {} and {}",
                data_type_name(scale_type),
                compute_name(compute)
            )));
        }
        let pointer_mode = d_attr(DESC_POINTER_MODE);
        if pointer_mode != 0 && pointer_mode != 1 {
            return Err(BlasFail::NotSupported(format!(
                "cublasLtMatmul with pointer mode {pointer_mode}"
            )));
        }
        let trans_a = op(d_attr(DESC_TRANSA) as c_int, "CUBLASLT_MATMUL_DESC_TRANSA")?;
        let trans_b = op(d_attr(DESC_TRANSB) as c_int, "CUBLASLT_MATMUL_DESC_TRANSB")?;
        if d_attr(DESC_TRANSC) != i64::from(OP_N) {
            return Err(BlasFail::NotSupported(
                "cublasLtMatmul with a transposed C".into(),
            ));
        }
        let mut ms = Vec::with_capacity(4);
        for (i, l) in ls.iter().enumerate() {
            let a = |attr| l.attrs.int(attr, layout_default(attr));
            let order = a(LAYOUT_ORDER);
            if order != ORDER_COL && order != ORDER_ROW {
                return Err(BlasFail::NotSupported(format!(
                    "cublasLtMatmul with cublasLtOrder_t {order}"
                )));
            }
            let count = a(LAYOUT_BATCH_COUNT);
            let stride = a(LAYOUT_STRIDED_BATCH_OFFSET);
            let ld = a(LAYOUT_LD);
            check(count >= 1 && stride >= 0 && ld >= 0, || {
                format!(
                    "{} has batch count {count}, batch offset {stride} and leading dimension {ld}",
                    names[i]
                )
            })?;
            let elem = if i < 2 { elem_in } else { elem_d };
            let m = Matrix {
                row_major: order == ORDER_ROW,
                ..Matrix::col_major(
                    pointers[i],
                    elem,
                    a(LAYOUT_ROWS) as u64,
                    a(LAYOUT_COLS) as u64,
                    ld as u64,
                )
            }
            .batched(count as u64, stride as u64);
            check_ld(
                &m,
                &format!("the leading dimension of {}", names[i]),
                if m.row_major { "cols" } else { "rows" },
            )?;
            ms.push(m);
        }
        let (a, b, c, d) = (ms[0], ms[1], ms[2], ms[3]);
        let (m, n) = (d.rows, d.cols);
        let (a_m, k) = if trans_a {
            (a.cols, a.rows)
        } else {
            (a.rows, a.cols)
        };
        let (b_k, b_n) = if trans_b {
            (b.cols, b.rows)
        } else {
            (b.rows, b.cols)
        };
        check(
            a_m == m && b_k == k && b_n == n && c.rows == m && c.cols == n,
            || {
                format!(
                    "the shapes do not match: op(A) is {a_m} x {k}, op(B) is {b_k} x {b_n}, C is {} x {}, D is {m} x {n}",
                    c.rows, c.cols
                )
            },
        )?;
        check(
            a.count == d.count && b.count == d.count && c.count == d.count,
            || {
                format!(
                    "the batch counts differ: A {}, B {}, C {}, D {}",
                    a.count, b.count, c.count, d.count
                )
            },
        )?;
        let epilogue = d_attr(DESC_EPILOGUE);
        let (bias, activation, aux) = epilogue_kind(epilogue)?;
        let typed = |attr| -> BlasResult<Elem> {
            match d_attr(attr) {
                -1 => Ok(elem_d),
                t => Elem::from_data_type(t as c_int).ok_or_else(|| {
                    BlasFail::NotSupported(format!(
                        "cublasLtMatmul with an epilogue of {}",
                        data_type_name(t as c_int)
                    ))
                }),
            }
        };
        let bias = if bias {
            let p = d_attr(DESC_BIAS_POINTER) as u64;
            check(p != 0, || {
                "the epilogue adds a bias but CUBLASLT_MATMUL_DESC_BIAS_POINTER is not set".into()
            })?;
            let stride = d_attr(DESC_BIAS_BATCH_STRIDE);
            check(stride >= 0, || format!("the bias batch stride is {stride}"))?;
            Some((p, typed(DESC_BIAS_DATA_TYPE)?, stride as u64))
        } else {
            None
        };
        let aux = if aux {
            let p = d_attr(DESC_EPILOGUE_AUX_POINTER) as u64;
            check(p != 0, || {
                "the epilogue stores its input but CUBLASLT_MATMUL_DESC_EPILOGUE_AUX_POINTER is not set"
                    .into()
            })?;
            let ld = d_attr(DESC_EPILOGUE_AUX_LD);
            let stride = d_attr(DESC_EPILOGUE_AUX_BATCH_STRIDE);
            check(ld >= 0 && stride >= 0, || {
                format!("the auxiliary output has leading dimension {ld} and batch stride {stride}")
            })?;
            let aux = Matrix::col_major(p, typed(DESC_EPILOGUE_AUX_DATA_TYPE)?, m, n, ld as u64)
                .batched(d.count, stride as u64);
            check_ld(&aux, "CUBLASLT_MATMUL_DESC_EPILOGUE_AUX_LD", "rows of D")?;
            Some(aux)
        } else {
            None
        };
        Ok(Plan {
            gemm: Gemm {
                m,
                n,
                k,
                a,
                trans_a,
                b,
                trans_b,
                c,
                d,
                alpha: 0.0,
                beta: 0.0,
                precision,
                epilogue: Epilogue {
                    bias,
                    activation,
                    aux,
                },
            },
            scale,
            device_scalars: pointer_mode == 1,
        })
    }
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cublasLtCreate(handle: *mut *mut c_void) -> BlasStatus {
    call("cublasLtCreate", |rt| {
        check(!handle.is_null(), || "lightHandle is a null pointer".into())?;
        let h = rt.handle();
        rt.blas.lt_handles.insert(h, ());
        unsafe { put(handle, h as *mut c_void, "lightHandle") }
    })
}

#[unsafe(no_mangle)]
pub extern "C" fn cublasLtDestroy(handle: *mut c_void) -> BlasStatus {
    call("cublasLtDestroy", |rt| {
        rt.lt_handle(handle)?;
        rt.blas.lt_handles.remove(&(handle as usize));
        Ok(())
    })
}

#[unsafe(no_mangle)]
pub extern "C" fn cublasLtGetVersion() -> usize {
    super::cublas::VERSION as usize
}

#[unsafe(no_mangle)]
pub extern "C" fn cublasLtGetStatusName(status: BlasStatus) -> *const c_char {
    super::cublas::cublasGetStatusName(status)
}

#[unsafe(no_mangle)]
pub extern "C" fn cublasLtGetStatusString(status: BlasStatus) -> *const c_char {
    super::cublas::cublasGetStatusString(status)
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cublasLtMatmulDescCreate(
    desc: *mut *mut c_void,
    compute: c_int,
    scale: c_int,
) -> BlasStatus {
    call("cublasLtMatmulDescCreate", |rt| {
        check(!desc.is_null(), || "matmulDesc is a null pointer".into())?;
        let mut d = MatmulDesc::default();
        d.attrs
            .set(DESC_COMPUTE_TYPE, compute.to_le_bytes().to_vec());
        d.attrs.set(DESC_SCALE_TYPE, scale.to_le_bytes().to_vec());
        let h = rt.handle();
        rt.blas.descs.insert(h, d);
        unsafe { put(desc, h as *mut c_void, "matmulDesc") }
    })
}

#[unsafe(no_mangle)]
pub extern "C" fn cublasLtMatmulDescDestroy(desc: *mut c_void) -> BlasStatus {
    call("cublasLtMatmulDescDestroy", |rt| {
        rt.desc(desc)?;
        rt.blas.descs.remove(&(desc as usize));
        Ok(())
    })
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cublasLtMatmulDescSetAttribute(
    desc: *mut c_void,
    attr: c_int,
    buf: *const c_void,
    size: usize,
) -> BlasStatus {
    call("cublasLtMatmulDescSetAttribute", |rt| {
        rt.desc(desc)?;
        let d = rt.blas.descs.entry(desc as usize).or_default();
        unsafe {
            set_attr(
                &mut d.attrs,
                DESC_ATTRS,
                "cublasLtMatmulDescSetAttribute",
                attr,
                buf,
                size,
            )
        }
    })
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cublasLtMatmulDescGetAttribute(
    desc: *mut c_void,
    attr: c_int,
    buf: *mut c_void,
    size: usize,
    written: *mut usize,
) -> BlasStatus {
    call("cublasLtMatmulDescGetAttribute", |rt| {
        let d = rt.desc(desc)?;
        let value = d.attrs.int(attr, desc_default(attr));
        unsafe {
            get_attr(
                DESC_ATTRS,
                "cublasLtMatmulDescGetAttribute",
                attr,
                value,
                buf,
                size,
                written,
            )
        }
    })
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cublasLtMatrixLayoutCreate(
    layout: *mut *mut c_void,
    ty: c_int,
    rows: u64,
    cols: u64,
    ld: i64,
) -> BlasStatus {
    call("cublasLtMatrixLayoutCreate", |rt| {
        check(!layout.is_null(), || "matLayout is a null pointer".into())?;
        check(ld >= 0, || format!("ld is {ld}, which is negative"))?;
        let mut l = Layout::default();
        l.attrs.set(LAYOUT_TYPE, ty.to_le_bytes().to_vec());
        l.attrs.set(LAYOUT_ROWS, rows.to_le_bytes().to_vec());
        l.attrs.set(LAYOUT_COLS, cols.to_le_bytes().to_vec());
        l.attrs.set(LAYOUT_LD, ld.to_le_bytes().to_vec());
        let h = rt.handle();
        rt.blas.layouts.insert(h, l);
        unsafe { put(layout, h as *mut c_void, "matLayout") }
    })
}

#[unsafe(no_mangle)]
pub extern "C" fn cublasLtMatrixLayoutDestroy(layout: *mut c_void) -> BlasStatus {
    call("cublasLtMatrixLayoutDestroy", |rt| {
        rt.layout(layout, "matLayout")?;
        rt.blas.layouts.remove(&(layout as usize));
        Ok(())
    })
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cublasLtMatrixLayoutSetAttribute(
    layout: *mut c_void,
    attr: c_int,
    buf: *const c_void,
    size: usize,
) -> BlasStatus {
    call("cublasLtMatrixLayoutSetAttribute", |rt| {
        rt.layout(layout, "matLayout")?;
        let l = rt.blas.layouts.entry(layout as usize).or_default();
        unsafe {
            set_attr(
                &mut l.attrs,
                LAYOUT_ATTRS,
                "cublasLtMatrixLayoutSetAttribute",
                attr,
                buf,
                size,
            )
        }
    })
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cublasLtMatrixLayoutGetAttribute(
    layout: *mut c_void,
    attr: c_int,
    buf: *mut c_void,
    size: usize,
    written: *mut usize,
) -> BlasStatus {
    call("cublasLtMatrixLayoutGetAttribute", |rt| {
        let l = rt.layout(layout, "matLayout")?;
        let value = l.attrs.int(attr, layout_default(attr));
        unsafe {
            get_attr(
                LAYOUT_ATTRS,
                "cublasLtMatrixLayoutGetAttribute",
                attr,
                value,
                buf,
                size,
                written,
            )
        }
    })
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cublasLtMatmulPreferenceCreate(pref: *mut *mut c_void) -> BlasStatus {
    call("cublasLtMatmulPreferenceCreate", |rt| {
        check(!pref.is_null(), || "pref is a null pointer".into())?;
        let h = rt.handle();
        rt.blas.prefs.insert(h, Preference::default());
        unsafe { put(pref, h as *mut c_void, "pref") }
    })
}

fn pref_exists(rt: &Runtime, pref: *mut c_void) -> BlasResult {
    check(rt.blas.prefs.contains_key(&(pref as usize)), || {
        format!("{:#x} is not a cublasLtMatmulPreference_t", pref as usize)
    })
}

#[unsafe(no_mangle)]
pub extern "C" fn cublasLtMatmulPreferenceDestroy(pref: *mut c_void) -> BlasStatus {
    call("cublasLtMatmulPreferenceDestroy", |rt| {
        pref_exists(rt, pref)?;
        rt.blas.prefs.remove(&(pref as usize));
        Ok(())
    })
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cublasLtMatmulPreferenceSetAttribute(
    pref: *mut c_void,
    attr: c_int,
    buf: *const c_void,
    size: usize,
) -> BlasStatus {
    call("cublasLtMatmulPreferenceSetAttribute", |rt| {
        pref_exists(rt, pref)?;
        let p = rt.blas.prefs.entry(pref as usize).or_default();
        unsafe {
            set_attr(
                &mut p.attrs,
                PREF_ATTRS,
                "cublasLtMatmulPreferenceSetAttribute",
                attr,
                buf,
                size,
            )
        }
    })
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cublasLtMatmulPreferenceGetAttribute(
    pref: *mut c_void,
    attr: c_int,
    buf: *mut c_void,
    size: usize,
    written: *mut usize,
) -> BlasStatus {
    call("cublasLtMatmulPreferenceGetAttribute", |rt| {
        pref_exists(rt, pref)?;
        let value = rt.blas.prefs[&(pref as usize)].attrs.int(attr, 0);
        unsafe {
            get_attr(
                PREF_ATTRS,
                "cublasLtMatmulPreferenceGetAttribute",
                attr,
                value,
                buf,
                size,
                written,
            )
        }
    })
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cublasLtMatmulAlgoGetHeuristic(
    handle: *mut c_void,
    desc: *mut c_void,
    a_desc: *mut c_void,
    b_desc: *mut c_void,
    c_desc: *mut c_void,
    d_desc: *mut c_void,
    pref: *mut c_void,
    requested: c_int,
    results: *mut HeuristicResult,
    returned: *mut c_int,
) -> BlasStatus {
    call("cublasLtMatmulAlgoGetHeuristic", |rt| {
        rt.lt_handle(handle)?;
        pref_exists(rt, pref)?;
        check(requested > 0, || {
            format!("requestedAlgoCount is {requested}")
        })?;
        check(!results.is_null() && !returned.is_null(), || {
            "heuristicResultsArray or returnAlgoCount is a null pointer".into()
        })?;
        // SAFETY: checked non-null; valid per the API's contract.
        unsafe { returned.write_unaligned(0) };
        rt.plan(desc, [a_desc, b_desc, c_desc, d_desc], [0; 4])?;
        let result = HeuristicResult {
            algo: MatmulAlgo {
                data: [THE_ALGO, 0, 0, 0, 0, 0, 0, 0],
            },
            workspace_size: 0,
            state: STATUS_SUCCESS,
            waves_count: 1.0,
            reserved: [0; 4],
        };
        // SAFETY: `results` holds `requested` (>= 1) entries, `returned` one int.
        unsafe {
            results.write_unaligned(result);
            returned.write_unaligned(1);
        }
        Ok(())
    })
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cublasLtMatmul(
    handle: *mut c_void,
    desc: *mut c_void,
    alpha: *const c_void,
    a: *const c_void,
    a_desc: *mut c_void,
    b: *const c_void,
    b_desc: *mut c_void,
    beta: *const c_void,
    c: *const c_void,
    c_desc: *mut c_void,
    d: *mut c_void,
    d_desc: *mut c_void,
    _algo: *const MatmulAlgo,
    _workspace: *mut c_void,
    _workspace_size: usize,
    _stream: *mut c_void,
) -> BlasStatus {
    call("cublasLtMatmul", |rt| {
        rt.lt_handle(handle)?;
        let plan = rt.plan(
            desc,
            [a_desc, b_desc, c_desc, d_desc],
            [a as u64, b as u64, c as u64, d as u64],
        )?;
        let mut g = plan.gemm;
        g.alpha = rt.read_scalar(
            "cublasLtMatmul",
            "alpha",
            alpha,
            plan.scale,
            plan.device_scalars,
        )?;
        g.beta = rt.read_scalar(
            "cublasLtMatmul",
            "beta",
            beta,
            plan.scale,
            plan.device_scalars,
        )?;
        if plan.scale == Elem::F64 {
            rt.run_gemm::<f64>("cublasLtMatmul", &g)
        } else {
            rt.run_gemm::<f32>("cublasLtMatmul", &g)
        }
    })
}

/// What an epilogue adds: (a bias, the activation, an auxiliary output of its input).
fn epilogue_kind(epilogue: i64) -> BlasResult<(bool, Activation, bool)> {
    Ok(match epilogue {
        EPILOGUE_DEFAULT => (false, Activation::None, false),
        EPILOGUE_RELU => (false, Activation::Relu, false),
        EPILOGUE_BIAS => (true, Activation::None, false),
        EPILOGUE_RELU_BIAS => (true, Activation::Relu, false),
        EPILOGUE_GELU => (false, Activation::Gelu, false),
        EPILOGUE_GELU_BIAS => (true, Activation::Gelu, false),
        EPILOGUE_GELU_AUX => (false, Activation::Gelu, true),
        EPILOGUE_GELU_AUX_BIAS => (true, Activation::Gelu, true),
        e => {
            let name = OTHER_EPILOGUES
                .iter()
                .find(|o| o.0 == e)
                .map_or_else(|| format!("cublasLtEpilogue_t {e}"), |o| o.1.to_string());
            return Err(BlasFail::NotSupported(format!(
                "cublasLtMatmul with {name}"
            )));
        }
    })
}
