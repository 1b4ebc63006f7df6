//! The C types and enumerator values of cuBLAS and cuBLASLt, as NVIDIA documents them and
//! as warpcheck's shim headers (`include/cublas_api.h`, `cublasLt.h`, `library_types.h`)
//! declare them.

use std::ffi::c_int;

/// `cublasStatus_t`.
pub type BlasStatus = c_int;

pub const STATUS_SUCCESS: BlasStatus = 0;
pub const STATUS_NOT_INITIALIZED: BlasStatus = 1;
pub const STATUS_ALLOC_FAILED: BlasStatus = 3;
pub const STATUS_INVALID_VALUE: BlasStatus = 7;
pub const STATUS_ARCH_MISMATCH: BlasStatus = 8;
pub const STATUS_MAPPING_ERROR: BlasStatus = 11;
pub const STATUS_EXECUTION_FAILED: BlasStatus = 13;
pub const STATUS_INTERNAL_ERROR: BlasStatus = 14;
pub const STATUS_NOT_SUPPORTED: BlasStatus = 15;
pub const STATUS_LICENSE_ERROR: BlasStatus = 16;

/// (status, name, description) for `cublasGetStatusName` / `cublasGetStatusString`.
pub const STATUSES: &[(BlasStatus, &str, &str)] = &[
    (0, "CUBLAS_STATUS_SUCCESS\0", "success\0"),
    (
        1,
        "CUBLAS_STATUS_NOT_INITIALIZED\0",
        "the library was not initialized\0",
    ),
    (
        3,
        "CUBLAS_STATUS_ALLOC_FAILED\0",
        "the resource allocation failed\0",
    ),
    (
        7,
        "CUBLAS_STATUS_INVALID_VALUE\0",
        "an invalid numeric value was used as an argument\0",
    ),
    (
        8,
        "CUBLAS_STATUS_ARCH_MISMATCH\0",
        "an absent device architectural feature is required\0",
    ),
    (
        11,
        "CUBLAS_STATUS_MAPPING_ERROR\0",
        "an access to GPU memory space failed\0",
    ),
    (
        13,
        "CUBLAS_STATUS_EXECUTION_FAILED\0",
        "the GPU program failed to execute\0",
    ),
    (
        14,
        "CUBLAS_STATUS_INTERNAL_ERROR\0",
        "an internal operation failed\0",
    ),
    (
        15,
        "CUBLAS_STATUS_NOT_SUPPORTED\0",
        "the functionality requested is not supported\0",
    ),
    (
        16,
        "CUBLAS_STATUS_LICENSE_ERROR\0",
        "an error was detected when checking the current licensing\0",
    ),
];

/// The name of a status, without the NUL.
pub fn status_name(status: BlasStatus) -> String {
    STATUSES.iter().find(|s| s.0 == status).map_or_else(
        || format!("cublasStatus_t({status})"),
        |s| s.1.trim_end_matches('\0').to_string(),
    )
}

/// `cublasOperation_t`.
pub const OP_N: c_int = 0;
pub const OP_T: c_int = 1;
pub const OP_C: c_int = 2;
/// `CUBLAS_OP_CONJG`: conjugate without transpose (complex types only).
pub const OP_CONJG: c_int = 3;

/// `cublasPointerMode_t`.
pub const POINTER_MODE_HOST: c_int = 0;
pub const POINTER_MODE_DEVICE: c_int = 1;

/// `cublasMath_t`: the mode proper is the low bits; `CUBLAS_MATH_DISALLOW_REDUCED_PRECISION_REDUCTION`
/// (16) may be or-ed in.
pub const DEFAULT_MATH: c_int = 0;
pub const TENSOR_OP_MATH: c_int = 1;
pub const PEDANTIC_MATH: c_int = 2;
pub const TF32_TENSOR_OP_MATH: c_int = 3;
pub const DISALLOW_REDUCED_PRECISION_REDUCTION: c_int = 16;

/// `cublasComputeType_t`.
pub const COMPUTE_16F: c_int = 64;
pub const COMPUTE_16F_PEDANTIC: c_int = 65;
pub const COMPUTE_32F: c_int = 68;
pub const COMPUTE_32F_PEDANTIC: c_int = 69;
pub const COMPUTE_64F: c_int = 70;
pub const COMPUTE_64F_PEDANTIC: c_int = 71;
pub const COMPUTE_32I: c_int = 72;
pub const COMPUTE_32I_PEDANTIC: c_int = 73;
pub const COMPUTE_32F_FAST_16F: c_int = 74;
pub const COMPUTE_32F_FAST_16BF: c_int = 75;
pub const COMPUTE_32F_FAST_TF32: c_int = 77;

/// `cudaDataType_t` (`library_types.h`), the values this runtime computes with.
pub const R_32F: c_int = 0;
pub const R_64F: c_int = 1;
pub const R_16F: c_int = 2;
pub const R_16BF: c_int = 14;

/// `cublasGemmAlgo_t`: every value is accepted (they only pick GPU kernels).
pub const GEMM_DEFAULT: c_int = -1;

/// The element types of matrices this runtime reads and writes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Elem {
    F32,
    F64,
    F16,
    Bf16,
}

impl Elem {
    /// The element type of a `cudaDataType_t`, if supported.
    pub fn from_data_type(t: c_int) -> Option<Elem> {
        match t {
            R_32F => Some(Elem::F32),
            R_64F => Some(Elem::F64),
            R_16F => Some(Elem::F16),
            R_16BF => Some(Elem::Bf16),
            _ => None,
        }
    }

    pub fn size(self) -> u64 {
        match self {
            Elem::F64 => 8,
            Elem::F32 => 4,
            Elem::F16 | Elem::Bf16 => 2,
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            Elem::F32 => "CUDA_R_32F",
            Elem::F64 => "CUDA_R_64F",
            Elem::F16 => "CUDA_R_16F",
            Elem::Bf16 => "CUDA_R_16BF",
        }
    }
}

/// The name of a `cudaDataType_t` value, for messages.
pub fn data_type_name(t: c_int) -> String {
    Elem::from_data_type(t).map_or_else(|| format!("cudaDataType_t {t}"), |e| e.name().to_string())
}

/// How the products of a single-precision GEMM are formed, from its compute type (and,
/// for the classic API, the handle's math mode).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Precision {
    /// Inputs as they are, products and sums in f32.
    F32,
    /// Inputs rounded to TF32 (1 sign, 8 exponent, 10 fraction bits) first, as tensor
    /// cores read them; sums in f32.
    Tf32,
    /// Inputs rounded to f16 first; sums in f32.
    F16Inputs,
    /// Inputs rounded to bf16 first; sums in f32.
    Bf16Inputs,
    /// Everything in f64 (`CUBLAS_COMPUTE_64F`).
    F64,
}

/// The precision of a `cublasComputeType_t` (or of the legacy `cudaDataType_t` values that
/// `cublasGemmEx` still accepts for it: `CUDA_R_32F`, `CUDA_R_64F`); `None` when this
/// runtime does not compute in it (16-bit and integer compute types).
pub fn precision_of(compute: c_int) -> Option<Precision> {
    match compute {
        COMPUTE_32F | COMPUTE_32F_PEDANTIC | R_32F => Some(Precision::F32),
        COMPUTE_32F_FAST_TF32 => Some(Precision::Tf32),
        COMPUTE_32F_FAST_16F => Some(Precision::F16Inputs),
        COMPUTE_32F_FAST_16BF => Some(Precision::Bf16Inputs),
        COMPUTE_64F | COMPUTE_64F_PEDANTIC | R_64F => Some(Precision::F64),
        _ => None,
    }
}

/// The name of a compute type, for messages.
pub fn compute_name(compute: c_int) -> String {
    match compute {
        COMPUTE_16F => "CUBLAS_COMPUTE_16F".into(),
        COMPUTE_16F_PEDANTIC => "CUBLAS_COMPUTE_16F_PEDANTIC".into(),
        COMPUTE_32F => "CUBLAS_COMPUTE_32F".into(),
        COMPUTE_32F_PEDANTIC => "CUBLAS_COMPUTE_32F_PEDANTIC".into(),
        COMPUTE_64F => "CUBLAS_COMPUTE_64F".into(),
        COMPUTE_64F_PEDANTIC => "CUBLAS_COMPUTE_64F_PEDANTIC".into(),
        COMPUTE_32I => "CUBLAS_COMPUTE_32I".into(),
        COMPUTE_32I_PEDANTIC => "CUBLAS_COMPUTE_32I_PEDANTIC".into(),
        COMPUTE_32F_FAST_16F => "CUBLAS_COMPUTE_32F_FAST_16F".into(),
        COMPUTE_32F_FAST_16BF => "CUBLAS_COMPUTE_32F_FAST_16BF".into(),
        COMPUTE_32F_FAST_TF32 => "CUBLAS_COMPUTE_32F_FAST_TF32".into(),
        c => format!("compute type {c}"),
    }
}

/// Whether `op` is a `cublasOperation_t` that transposes (`T` and `C`: the types here are
/// real, so the conjugate transpose is the transpose); `None` for values that are not
/// valid operations on real matrices.
pub fn transposes(op: c_int) -> Option<bool> {
    match op {
        OP_N => Some(false),
        OP_T | OP_C => Some(true),
        _ => None,
    }
}
