//! cuBLAS and cuBLASLt functions that this runtime does not implement. Each is exported
//! (and declared by the shim headers), so that a program calling it builds and runs; it
//! returns `CUBLAS_STATUS_NOT_SUPPORTED` and is reported once by name
//! (`api-not-supported`, the name without the `_v2` of the symbol), never silently
//! ignored. Their arguments are not read.

use super::types::{BlasStatus, STATUS_NOT_SUPPORTED};
use crate::state;

/// Records the call and returns `CUBLAS_STATUS_NOT_SUPPORTED`.
pub fn not_supported(symbol: &str) -> BlasStatus {
    state::with(|rt| {
        rt.timings.api_calls += 1;
        rt.not_supported_returning(
            symbol.trim_end_matches("_v2"),
            "CUBLAS_STATUS_NOT_SUPPORTED",
        );
        STATUS_NOT_SUPPORTED
    })
}

macro_rules! unsupported {
    ($($name:ident),* $(,)?) => {
        $(
            #[unsafe(no_mangle)]
            pub extern "C" fn $name() -> BlasStatus {
                not_supported(stringify!($name))
            }
        )*
        /// The symbols exported as not supported.
        pub const NOT_SUPPORTED_FUNCTIONS: &[&str] = &[$(stringify!($name)),*];
    };
}

unsupported!(
    cublasSetVector,
    cublasGetVector,
    cublasSetMatrix,
    cublasGetMatrix,
    cublasSaxpy_v2,
    cublasDaxpy_v2,
    cublasSscal_v2,
    cublasDscal_v2,
    cublasScopy_v2,
    cublasSswap_v2,
    cublasSdot_v2,
    cublasDdot_v2,
    cublasSnrm2_v2,
    cublasSasum_v2,
    cublasIsamax_v2,
    cublasSger_v2,
    cublasSgeam,
    cublasDgeam,
    cublasSsymm_v2,
    cublasSsyrk_v2,
    cublasStrmm_v2,
    cublasStrsm_v2,
    cublasHgemm,
    cublasSgemmBatched,
    cublasDgemmBatched,
    cublasGemmBatchedEx,
    cublasHgemmStridedBatched,
    cublasCgemm_v2,
    cublasZgemm_v2,
    cublasLtMatmulDescInit_internal,
    cublasLtMatrixLayoutInit_internal,
    cublasLtMatmulPreferenceInit_internal,
    cublasLtMatmulAlgoInit,
    cublasLtMatmulAlgoCheck,
    cublasLtMatmulAlgoGetIds,
    cublasLtMatmulAlgoConfigSetAttribute,
    cublasLtMatrixTransform,
    cublasLtMatrixTransformDescCreate,
    cublasLtMatrixTransformDescDestroy,
);
