/*
 * warpcheck shim for <cublas_v2.h>: the cuBLAS v2 API of <cublas_api.h> under
 * its documented names; the functions whose v2 form has its own symbol
 * (cublasSgemm is cublasSgemm_v2) are mapped to it, as NVIDIA's header does.
 */
#ifndef WARPCHECK_CUBLAS_V2_H
#define WARPCHECK_CUBLAS_V2_H
#define CUBLAS_V2_H_ /* CUDA's include guard */

#include "cublas_api.h"

#define cublasCreate cublasCreate_v2
#define cublasDestroy cublasDestroy_v2
#define cublasGetVersion cublasGetVersion_v2
#define cublasSetStream cublasSetStream_v2
#define cublasGetStream cublasGetStream_v2
#define cublasSetWorkspace cublasSetWorkspace_v2
#define cublasSetPointerMode cublasSetPointerMode_v2
#define cublasGetPointerMode cublasGetPointerMode_v2
#define cublasSgemm cublasSgemm_v2
#define cublasDgemm cublasDgemm_v2
#define cublasSgemv cublasSgemv_v2
#define cublasDgemv cublasDgemv_v2
#define cublasSaxpy cublasSaxpy_v2
#define cublasDaxpy cublasDaxpy_v2
#define cublasSscal cublasSscal_v2
#define cublasDscal cublasDscal_v2
#define cublasScopy cublasScopy_v2
#define cublasSswap cublasSswap_v2
#define cublasSdot cublasSdot_v2
#define cublasDdot cublasDdot_v2
#define cublasSnrm2 cublasSnrm2_v2
#define cublasSasum cublasSasum_v2
#define cublasIsamax cublasIsamax_v2
#define cublasSger cublasSger_v2
#define cublasSsymm cublasSsymm_v2
#define cublasSsyrk cublasSsyrk_v2
#define cublasStrmm cublasStrmm_v2
#define cublasStrsm cublasStrsm_v2

#endif
