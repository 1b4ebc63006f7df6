/*
 * warpcheck shim for <cublasLt.h>: the cuBLASLt matmul API that warpcheck's
 * CUDA runtime implements on the host CPU, with the type names, enumerator
 * values and symbol names of NVIDIA's documentation.
 *
 * cublasLtMatmul computes D = epilogue(alpha * op(A) * op(B) + beta * C) with
 * each matrix described by a layout (type, rows, cols, leading dimension,
 * order, batch). Implemented: column- and row-major layouts, strided batches,
 * f32 and f16/bf16 inputs with f32 compute (TF32 and 16-bit fast modes too),
 * f64; epilogues DEFAULT, RELU, BIAS, RELU_BIAS, GELU, GELU_BIAS, GELU_AUX,
 * GELU_AUX_BIAS. The heuristic returns one algorithm that needs no workspace.
 * The functions under "not implemented" return CUBLAS_STATUS_NOT_SUPPORTED and
 * are reported by name.
 */
#ifndef WARPCHECK_CUBLASLT_H
#define WARPCHECK_CUBLASLT_H
#define CUBLAS_LT_H_ /* CUDA's include guard */

#include "cublas_api.h"

#ifdef __cplusplus
extern "C" {
#endif

struct cublasLtContext;
typedef struct cublasLtContext *cublasLtHandle_t;

/* Descriptors are opaque handles that the Create functions hand out. */
typedef struct { uint64_t data[23]; } cublasLtMatmulDescOpaque_t;
typedef cublasLtMatmulDescOpaque_t *cublasLtMatmulDesc_t;
typedef struct { uint64_t data[8]; } cublasLtMatrixLayoutOpaque_t;
typedef cublasLtMatrixLayoutOpaque_t *cublasLtMatrixLayout_t;
typedef struct { uint64_t data[8]; } cublasLtMatmulPreferenceOpaque_t;
typedef cublasLtMatmulPreferenceOpaque_t *cublasLtMatmulPreference_t;
typedef struct { uint64_t data[8]; } cublasLtMatrixTransformDescOpaque_t;
typedef cublasLtMatrixTransformDescOpaque_t *cublasLtMatrixTransformDesc_t;

/* An algorithm, as the heuristic returns it. */
typedef struct { uint64_t data[8]; } cublasLtMatmulAlgo_t;

typedef struct {
  cublasLtMatmulAlgo_t algo;
  size_t workspaceSize;
  cublasStatus_t state;
  float wavesCount;
  int reserved[4];
} cublasLtMatmulHeuristicResult_t;

/* Element order of a matrix layout. */
typedef enum {
  CUBLASLT_ORDER_COL = 0,
  CUBLASLT_ORDER_ROW = 1,
  CUBLASLT_ORDER_COL32 = 2,
  CUBLASLT_ORDER_COL4_4R2_8C = 3,
  CUBLASLT_ORDER_COL32_2R_4R4 = 4
} cublasLtOrder_t;

/* Attributes of a matrix layout, with their C types. */
typedef enum {
  CUBLASLT_MATRIX_LAYOUT_TYPE = 0,                 /* uint32_t (cudaDataType) */
  CUBLASLT_MATRIX_LAYOUT_ORDER = 1,                /* int32_t (cublasLtOrder_t) */
  CUBLASLT_MATRIX_LAYOUT_ROWS = 2,                 /* uint64_t */
  CUBLASLT_MATRIX_LAYOUT_COLS = 3,                 /* uint64_t */
  CUBLASLT_MATRIX_LAYOUT_LD = 4,                   /* int64_t */
  CUBLASLT_MATRIX_LAYOUT_BATCH_COUNT = 5,          /* int32_t, default 1 */
  CUBLASLT_MATRIX_LAYOUT_STRIDED_BATCH_OFFSET = 6, /* int64_t, in elements */
  CUBLASLT_MATRIX_LAYOUT_PLANE_OFFSET = 7          /* int64_t (not implemented) */
} cublasLtMatrixLayoutAttribute_t;

/* Where alpha and beta live. */
typedef enum {
  CUBLASLT_POINTER_MODE_HOST = 0,
  CUBLASLT_POINTER_MODE_DEVICE = 1,
  CUBLASLT_POINTER_MODE_DEVICE_VECTOR = 2,
  CUBLASLT_POINTER_MODE_ALPHA_DEVICE_VECTOR_BETA_ZERO = 3,
  CUBLASLT_POINTER_MODE_ALPHA_DEVICE_VECTOR_BETA_HOST = 4
} cublasLtPointerMode_t;

/* What happens to the product before it is stored in D. */
typedef enum {
  CUBLASLT_EPILOGUE_DEFAULT = 1,
  CUBLASLT_EPILOGUE_RELU = 2,
  CUBLASLT_EPILOGUE_RELU_AUX = 130,
  CUBLASLT_EPILOGUE_BIAS = 4,
  CUBLASLT_EPILOGUE_RELU_BIAS = 6,
  CUBLASLT_EPILOGUE_RELU_AUX_BIAS = 134,
  CUBLASLT_EPILOGUE_DRELU = 136,
  CUBLASLT_EPILOGUE_DRELU_BGRAD = 152,
  CUBLASLT_EPILOGUE_GELU = 32,
  CUBLASLT_EPILOGUE_GELU_AUX = 160,
  CUBLASLT_EPILOGUE_GELU_BIAS = 36,
  CUBLASLT_EPILOGUE_GELU_AUX_BIAS = 164,
  CUBLASLT_EPILOGUE_DGELU = 192,
  CUBLASLT_EPILOGUE_DGELU_BGRAD = 208,
  CUBLASLT_EPILOGUE_BGRADA = 256,
  CUBLASLT_EPILOGUE_BGRADB = 512
} cublasLtEpilogue_t;

/* Attributes of a matmul descriptor, with their C types. */
typedef enum {
  CUBLASLT_MATMUL_DESC_COMPUTE_TYPE = 0,              /* int32_t (cublasComputeType_t) */
  CUBLASLT_MATMUL_DESC_SCALE_TYPE = 1,                /* int32_t (cudaDataType) */
  CUBLASLT_MATMUL_DESC_POINTER_MODE = 2,              /* int32_t (cublasLtPointerMode_t) */
  CUBLASLT_MATMUL_DESC_TRANSA = 3,                    /* int32_t (cublasOperation_t) */
  CUBLASLT_MATMUL_DESC_TRANSB = 4,                    /* int32_t */
  CUBLASLT_MATMUL_DESC_TRANSC = 5,                    /* int32_t */
  CUBLASLT_MATMUL_DESC_FILL_MODE = 6,                 /* int32_t (not implemented) */
  CUBLASLT_MATMUL_DESC_EPILOGUE = 7,                  /* uint32_t (cublasLtEpilogue_t) */
  CUBLASLT_MATMUL_DESC_BIAS_POINTER = 8,              /* void * */
  CUBLASLT_MATMUL_DESC_BIAS_BATCH_STRIDE = 10,        /* int64_t */
  CUBLASLT_MATMUL_DESC_EPILOGUE_AUX_POINTER = 11,     /* void * */
  CUBLASLT_MATMUL_DESC_EPILOGUE_AUX_LD = 12,          /* int64_t */
  CUBLASLT_MATMUL_DESC_EPILOGUE_AUX_BATCH_STRIDE = 13, /* int64_t */
  CUBLASLT_MATMUL_DESC_ALPHA_VECTOR_BATCH_STRIDE = 14, /* int64_t (not implemented) */
  CUBLASLT_MATMUL_DESC_SM_COUNT_TARGET = 15,          /* int32_t (no effect) */
  CUBLASLT_MATMUL_DESC_A_SCALE_POINTER = 17,          /* void * (not implemented) */
  CUBLASLT_MATMUL_DESC_B_SCALE_POINTER = 18,          /* void * (not implemented) */
  CUBLASLT_MATMUL_DESC_C_SCALE_POINTER = 19,          /* void * (not implemented) */
  CUBLASLT_MATMUL_DESC_D_SCALE_POINTER = 20,          /* void * (not implemented) */
  CUBLASLT_MATMUL_DESC_AMAX_D_POINTER = 21,           /* void * (not implemented) */
  CUBLASLT_MATMUL_DESC_EPILOGUE_AUX_DATA_TYPE = 22,   /* int32_t (cudaDataType) */
  CUBLASLT_MATMUL_DESC_FAST_ACCUM = 25,               /* int8_t (no effect) */
  CUBLASLT_MATMUL_DESC_BIAS_DATA_TYPE = 26            /* int32_t (cudaDataType) */
} cublasLtMatmulDescAttributes_t;

/* Attributes of a heuristic preference: accepted, without effect. */
typedef enum {
  CUBLASLT_MATMUL_PREF_SEARCH_MODE = 0,              /* uint32_t */
  CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES = 1,      /* uint64_t */
  CUBLASLT_MATMUL_PREF_REDUCTION_SCHEME_MASK = 3,    /* uint32_t */
  CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_A_BYTES = 5,    /* uint32_t */
  CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_B_BYTES = 6,    /* uint32_t */
  CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_C_BYTES = 7,    /* uint32_t */
  CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_D_BYTES = 8,    /* uint32_t */
  CUBLASLT_MATMUL_PREF_MAX_WAVES_COUNT = 9,          /* float */
  CUBLASLT_MATMUL_PREF_IMPL_MASK = 12                /* uint64_t */
} cublasLtMatmulPreferenceAttributes_t;

cublasStatus_t cublasLtCreate(cublasLtHandle_t *lightHandle);
cublasStatus_t cublasLtDestroy(cublasLtHandle_t lightHandle);
size_t cublasLtGetVersion(void);
const char *cublasLtGetStatusName(cublasStatus_t status);
const char *cublasLtGetStatusString(cublasStatus_t status);

cublasStatus_t cublasLtMatmulDescCreate(cublasLtMatmulDesc_t *matmulDesc, cublasComputeType_t computeType,
                                        cudaDataType_t scaleType);
cublasStatus_t cublasLtMatmulDescDestroy(cublasLtMatmulDesc_t matmulDesc);
cublasStatus_t cublasLtMatmulDescSetAttribute(cublasLtMatmulDesc_t matmulDesc,
                                              cublasLtMatmulDescAttributes_t attr, const void *buf,
                                              size_t sizeInBytes);
cublasStatus_t cublasLtMatmulDescGetAttribute(cublasLtMatmulDesc_t matmulDesc,
                                              cublasLtMatmulDescAttributes_t attr, void *buf,
                                              size_t sizeInBytes, size_t *sizeWritten);

cublasStatus_t cublasLtMatrixLayoutCreate(cublasLtMatrixLayout_t *matLayout, cudaDataType type, uint64_t rows,
                                          uint64_t cols, int64_t ld);
cublasStatus_t cublasLtMatrixLayoutDestroy(cublasLtMatrixLayout_t matLayout);
cublasStatus_t cublasLtMatrixLayoutSetAttribute(cublasLtMatrixLayout_t matLayout,
                                                cublasLtMatrixLayoutAttribute_t attr, const void *buf,
                                                size_t sizeInBytes);
cublasStatus_t cublasLtMatrixLayoutGetAttribute(cublasLtMatrixLayout_t matLayout,
                                                cublasLtMatrixLayoutAttribute_t attr, void *buf,
                                                size_t sizeInBytes, size_t *sizeWritten);

cublasStatus_t cublasLtMatmulPreferenceCreate(cublasLtMatmulPreference_t *pref);
cublasStatus_t cublasLtMatmulPreferenceDestroy(cublasLtMatmulPreference_t pref);
cublasStatus_t cublasLtMatmulPreferenceSetAttribute(cublasLtMatmulPreference_t pref,
                                                    cublasLtMatmulPreferenceAttributes_t attr,
                                                    const void *buf, size_t sizeInBytes);
cublasStatus_t cublasLtMatmulPreferenceGetAttribute(cublasLtMatmulPreference_t pref,
                                                    cublasLtMatmulPreferenceAttributes_t attr, void *buf,
                                                    size_t sizeInBytes, size_t *sizeWritten);

cublasStatus_t cublasLtMatmulAlgoGetHeuristic(cublasLtHandle_t lightHandle, cublasLtMatmulDesc_t operationDesc,
                                              cublasLtMatrixLayout_t Adesc, cublasLtMatrixLayout_t Bdesc,
                                              cublasLtMatrixLayout_t Cdesc, cublasLtMatrixLayout_t Ddesc,
                                              cublasLtMatmulPreference_t preference, int requestedAlgoCount,
                                              cublasLtMatmulHeuristicResult_t heuristicResultsArray[],
                                              int *returnAlgoCount);

cublasStatus_t cublasLtMatmul(cublasLtHandle_t lightHandle, cublasLtMatmulDesc_t computeDesc,
                              const void *alpha, const void *A, cublasLtMatrixLayout_t Adesc, const void *B,
                              cublasLtMatrixLayout_t Bdesc, const void *beta, const void *C,
                              cublasLtMatrixLayout_t Cdesc, void *D, cublasLtMatrixLayout_t Ddesc,
                              const cublasLtMatmulAlgo_t *algo, void *workspace, size_t workspaceSizeInBytes,
                              cudaStream_t stream);

/* Not implemented by warpcheck: they return CUBLAS_STATUS_NOT_SUPPORTED. */
cublasStatus_t cublasLtMatmulAlgoInit(cublasLtHandle_t lightHandle, cublasComputeType_t computeType,
                                      cudaDataType_t scaleType, cudaDataType_t Atype, cudaDataType_t Btype,
                                      cudaDataType_t Ctype, cudaDataType_t Dtype, int algoId,
                                      cublasLtMatmulAlgo_t *algo);
cublasStatus_t cublasLtMatmulAlgoCheck(cublasLtHandle_t lightHandle, cublasLtMatmulDesc_t operationDesc,
                                       cublasLtMatrixLayout_t Adesc, cublasLtMatrixLayout_t Bdesc,
                                       cublasLtMatrixLayout_t Cdesc, cublasLtMatrixLayout_t Ddesc,
                                       const cublasLtMatmulAlgo_t *algo,
                                       cublasLtMatmulHeuristicResult_t *result);
cublasStatus_t cublasLtMatmulAlgoGetIds(cublasLtHandle_t lightHandle, cublasComputeType_t computeType,
                                        cudaDataType_t scaleType, cudaDataType_t Atype, cudaDataType_t Btype,
                                        cudaDataType_t Ctype, cudaDataType_t Dtype, int requestedAlgoCount,
                                        int algoIdsArray[], int *returnAlgoCount);
cublasStatus_t cublasLtMatrixTransformDescCreate(cublasLtMatrixTransformDesc_t *transformDesc,
                                                 cudaDataType scaleType);
cublasStatus_t cublasLtMatrixTransformDescDestroy(cublasLtMatrixTransformDesc_t transformDesc);
cublasStatus_t cublasLtMatrixTransform(cublasLtHandle_t lightHandle, cublasLtMatrixTransformDesc_t transformDesc,
                                       const void *alpha, const void *A, cublasLtMatrixLayout_t Adesc,
                                       const void *beta, const void *B, cublasLtMatrixLayout_t Bdesc, void *C,
                                       cublasLtMatrixLayout_t Cdesc, cudaStream_t stream);

#ifdef __cplusplus
}
#endif

#endif
