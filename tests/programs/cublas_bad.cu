// Planted bugs in cuBLAS calls. The output of the first Sgemm is declared with a padded
// leading dimension (ldc = m + 4) but allocated packed (m * n floats): its last column
// runs past the allocation. The second passes lda < m, which cuBLAS rejects. The third
// reads B after it was freed. The cuBLASLt matmul adds a bias vector allocated one
// element short. cublasSaxpy, and cublasGemmEx with CUBLAS_COMPUTE_16F, are not
// implemented by warpcheck. Each call returns an error status; the program ignores them
// and exits 0, so check exits 1.
//
// warpcheck-flags: -lcublas -lcublasLt
// warpcheck-exit: 1
// warpcheck-stdout: statuses 13 7 13 13 15 15

#include <cstdio>
#include <cuda_runtime.h>
#include <cublas_v2.h>
#include <cublasLt.h>

int main() {
  const int m = 8, n = 4, k = 5;
  float *A, *B, *C, *bias;
  cudaMalloc(&A, m * k * sizeof(float));
  cudaMalloc(&B, k * n * sizeof(float));
  cudaMalloc(&C, m * n * sizeof(float));
  cudaMalloc(&bias, (m - 1) * sizeof(float));
  cudaMemset(A, 0, m * k * sizeof(float));
  cudaMemset(B, 0, k * n * sizeof(float));
  cudaMemset(bias, 0, (m - 1) * sizeof(float));
  cublasHandle_t h;
  cublasCreate(&h);
  const float one = 1, zero = 0;
  int s1 = cublasSgemm(h, CUBLAS_OP_N, CUBLAS_OP_N, m, n, k, &one, A, m, B, k, &zero, C, m + 4); //~ copy-out-of-bounds
  int s2 = cublasSgemm(h, CUBLAS_OP_N, CUBLAS_OP_N, m, n, k, &one, A, m - 1, B, k, &zero, C, m); //~ api-error
  float *freed = B;
  cudaFree(B);
  int s3 = cublasSgemm(h, CUBLAS_OP_N, CUBLAS_OP_N, m, n, k, &one, A, m, freed, k, &zero, C, m); //~ use-after-free

  cublasLtHandle_t lt;
  cublasLtCreate(&lt);
  cublasLtMatmulDesc_t desc;
  cublasLtMatmulDescCreate(&desc, CUBLAS_COMPUTE_32F, CUDA_R_32F);
  cublasLtEpilogue_t ep = CUBLASLT_EPILOGUE_BIAS;
  cublasLtMatmulDescSetAttribute(desc, CUBLASLT_MATMUL_DESC_EPILOGUE, &ep, sizeof ep);
  cublasLtMatmulDescSetAttribute(desc, CUBLASLT_MATMUL_DESC_BIAS_POINTER, &bias, sizeof bias);
  cublasLtMatrixLayout_t al, bl, cl;
  cublasLtMatrixLayoutCreate(&al, CUDA_R_32F, m, k, m);
  cublasLtMatrixLayoutCreate(&bl, CUDA_R_32F, k, 1, k);
  cublasLtMatrixLayoutCreate(&cl, CUDA_R_32F, m, 1, m);
  int s4 = cublasLtMatmul(lt, desc, &one, A, al, A, bl, &zero, C, cl, C, cl, nullptr, nullptr, 0, 0); //~ copy-out-of-bounds

  int s5 = cublasSaxpy(h, m, &one, A, 1, C, 1); //~ api-not-supported
  // Half-precision compute is not implemented: reported with the call and its types.
  int s6 = cublasGemmEx(h, CUBLAS_OP_N, CUBLAS_OP_N, m, n, k, &one, A, CUDA_R_16F, m, A, CUDA_R_16F, k, &zero, C, //~ api-not-supported
                        CUDA_R_16F, m, CUBLAS_COMPUTE_16F, CUBLAS_GEMM_DEFAULT);
  printf("statuses %d %d %d %d %d %d\n", s1, s2, s3, s4, s5, s6);
  cublasLtMatrixLayoutDestroy(al);
  cublasLtMatrixLayoutDestroy(bl);
  cublasLtMatrixLayoutDestroy(cl);
  cublasLtMatmulDescDestroy(desc);
  cublasLtDestroy(lt);
  cublasDestroy(h);
  cudaFree(A);
  cudaFree(C);
  cudaFree(bias);
  return 0;
}
