// The matmul forward pass as llm.c's dev/cuda/matmul_forward.cu computes it, kernel 1
// (a naive kernel), 2 (cublasSgemm, then a kernel adding the bias) and 3 (cublasLtMatmul
// with a bias epilogue), in the same setup: a cuBLAS and a cuBLASLt handle, TF32 math
// mode with CUBLAS_COMPUTE_32F_FAST_TF32, a 32 MiB cuBLASLt workspace. out (B*T, OC) =
// inp (B*T, C) . weight(OC, C)^T + bias, row-major, which in cuBLAS's column-major terms
// is weight^T (OC x C) times inp (C x B*T). Each version is compared with a CPU loop
// within TF32's accuracy. Kernel 1, llm.c's naive kernel, is uncoalesced (consecutive threads
// step through memory C and OC floats apart), which check reports.
//
// warpcheck-flags: -lcublas -lcublasLt
// warpcheck-stdout: kernel 1 PASS
// warpcheck-stdout: kernel 2 PASS
// warpcheck-stdout: kernel 3 PASS

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>
#include <cublas_v2.h>
#include <cublasLt.h>

#define cublasCheck(status)                                                          \
  do {                                                                               \
    cublasStatus_t s_ = (status);                                                    \
    if (s_ != CUBLAS_STATUS_SUCCESS) {                                               \
      printf("[cuBLAS ERROR]: %d %s %d\n", (int)s_, __FILE__, __LINE__);             \
      exit(EXIT_FAILURE);                                                            \
    }                                                                                \
  } while (0)

static cublasHandle_t cublas_handle;
static cublasLtHandle_t cublaslt_handle;
static size_t cublaslt_workspace_size = 32 * 1024 * 1024;
static void *cublaslt_workspace = NULL;
static cublasComputeType_t cublas_compute_type;

__global__ void matmul_forward_kernel1(float *out, const float *inp, const float *weight, const float *bias,
                                       int BT, int C, int OC) {
  int bt = blockIdx.x * blockDim.x + threadIdx.x;
  int oc = blockIdx.y * blockDim.y + threadIdx.y;
  if (bt < BT && oc < OC) {
    float val = bias ? bias[oc] : 0.0f;
    for (int i = 0; i < C; i++) val += inp[bt * C + i] * weight[oc * C + i]; //~ uncoalesced-access
    out[bt * OC + oc] = val; //~ uncoalesced-access
  }
}

__global__ void add_bias(float *out, const float *bias, int B, int T, int OC) {
  int idx = blockIdx.x * blockDim.x + threadIdx.x;
  for (int i = idx; i < B * T * OC; i += gridDim.x * blockDim.x) out[i] += bias[i % OC];
}

static void matmul_forward2(float *out, const float *inp, const float *weight, const float *bias, int B, int T,
                            int C, int OC) {
  const float alpha = 1.0f, beta = 0.0f;
  cublasCheck(cublasSgemm(cublas_handle, CUBLAS_OP_T, CUBLAS_OP_N, OC, B * T, C, &alpha, weight, C, inp, C, &beta,
                          out, OC));
  add_bias<<<(B * T * OC + 255) / 256, 256>>>(out, bias, B, T, OC);
}

static void matmul_forward3(float *out, const float *inp, const float *weight, const float *bias, int B, int T,
                            int C, int OC) {
  int returned = 0;
  cublasLtMatmulDesc_t desc;
  cublasLtMatmulPreference_t pref;
  cublasLtMatrixLayout_t weightLayout, inputLayout, outputLayout;
  cublasLtMatmulHeuristicResult_t heuristic;
  cublasOperation_t t = CUBLAS_OP_T, n = CUBLAS_OP_N;
  cublasLtEpilogue_t epilogue = CUBLASLT_EPILOGUE_BIAS;
  cublasCheck(cublasLtMatmulDescCreate(&desc, cublas_compute_type, CUDA_R_32F));
  cublasCheck(cublasLtMatmulDescSetAttribute(desc, CUBLASLT_MATMUL_DESC_TRANSA, &t, sizeof(t)));
  cublasCheck(cublasLtMatmulDescSetAttribute(desc, CUBLASLT_MATMUL_DESC_TRANSB, &n, sizeof(n)));
  cublasCheck(cublasLtMatmulDescSetAttribute(desc, CUBLASLT_MATMUL_DESC_EPILOGUE, &epilogue, sizeof(epilogue)));
  cublasCheck(cublasLtMatmulDescSetAttribute(desc, CUBLASLT_MATMUL_DESC_BIAS_POINTER, &bias, sizeof(bias)));
  cublasCheck(cublasLtMatrixLayoutCreate(&weightLayout, CUDA_R_32F, C, OC, C));
  cublasCheck(cublasLtMatrixLayoutCreate(&inputLayout, CUDA_R_32F, C, B * T, C));
  cublasCheck(cublasLtMatrixLayoutCreate(&outputLayout, CUDA_R_32F, OC, B * T, OC));
  cublasCheck(cublasLtMatmulPreferenceCreate(&pref));
  cublasCheck(cublasLtMatmulPreferenceSetAttribute(pref, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES,
                                                   &cublaslt_workspace_size, sizeof(cublaslt_workspace_size)));
  cublasCheck(cublasLtMatmulAlgoGetHeuristic(cublaslt_handle, desc, weightLayout, inputLayout, outputLayout,
                                             outputLayout, pref, 1, &heuristic, &returned));
  if (returned == 0) {
    printf("No cuBLASLt algorithm\n");
    exit(EXIT_FAILURE);
  }
  const float alpha = 1.0f, beta = 0.0f;
  cublasCheck(cublasLtMatmul(cublaslt_handle, desc, &alpha, weight, weightLayout, inp, inputLayout, &beta, out,
                             outputLayout, out, outputLayout, &heuristic.algo, cublaslt_workspace,
                             cublaslt_workspace_size, 0));
  cublasCheck(cublasLtMatmulPreferenceDestroy(pref));
  cublasCheck(cublasLtMatmulDescDestroy(desc));
  cublasCheck(cublasLtMatrixLayoutDestroy(weightLayout));
  cublasCheck(cublasLtMatrixLayoutDestroy(inputLayout));
  cublasCheck(cublasLtMatrixLayoutDestroy(outputLayout));
}

int main() {
  const int B = 2, T = 16, C = 48, OC = 40;
  cublasCheck(cublasCreate(&cublas_handle));
  cublasCheck(cublasLtCreate(&cublaslt_handle));
  cudaMalloc(&cublaslt_workspace, cublaslt_workspace_size);
  cublas_compute_type = CUBLAS_COMPUTE_32F_FAST_TF32;
  cublasCheck(cublasSetMathMode(cublas_handle, CUBLAS_TF32_TENSOR_OP_MATH));

  float *inp = (float *)malloc(B * T * C * sizeof(float)), *weight = (float *)malloc(OC * C * sizeof(float));
  float *bias = (float *)malloc(OC * sizeof(float)), *out = (float *)malloc(B * T * OC * sizeof(float));
  float *ref = (float *)malloc(B * T * OC * sizeof(float));
  srand(0);
  for (int i = 0; i < B * T * C; i++) inp[i] = rand() / (float)RAND_MAX * 2 - 1;
  for (int i = 0; i < OC * C; i++) weight[i] = rand() / (float)RAND_MAX * 2 - 1;
  for (int i = 0; i < OC; i++) bias[i] = rand() / (float)RAND_MAX * 2 - 1;
  for (int bt = 0; bt < B * T; bt++)
    for (int o = 0; o < OC; o++) {
      double v = bias[o];
      for (int i = 0; i < C; i++) v += (double)inp[bt * C + i] * weight[o * C + i];
      ref[bt * OC + o] = (float)v;
    }
  float *d_out, *d_inp, *d_weight, *d_bias;
  cudaMalloc(&d_out, B * T * OC * sizeof(float));
  cudaMalloc(&d_inp, B * T * C * sizeof(float));
  cudaMalloc(&d_weight, OC * C * sizeof(float));
  cudaMalloc(&d_bias, OC * sizeof(float));
  cudaMemcpy(d_inp, inp, B * T * C * sizeof(float), cudaMemcpyHostToDevice);
  cudaMemcpy(d_weight, weight, OC * C * sizeof(float), cudaMemcpyHostToDevice);
  cudaMemcpy(d_bias, bias, OC * sizeof(float), cudaMemcpyHostToDevice);

  for (int kernel = 1; kernel <= 3; kernel++) {
    cudaMemset(d_out, 0, B * T * OC * sizeof(float));
    if (kernel == 1) {
      dim3 block(8, 8), grid((B * T + 7) / 8, (OC + 7) / 8);
      matmul_forward_kernel1<<<grid, block>>>(d_out, d_inp, d_weight, d_bias, B * T, C, OC); //~ launch
    } else if (kernel == 2) {
      matmul_forward2(d_out, d_inp, d_weight, d_bias, B, T, C, OC);
    } else {
      matmul_forward3(d_out, d_inp, d_weight, d_bias, B, T, C, OC);
    }
    cudaMemcpy(out, d_out, B * T * OC * sizeof(float), cudaMemcpyDeviceToHost);
    double err = 0;
    for (int i = 0; i < B * T * OC; i++) err = fmax(err, fabs(out[i] - ref[i]));
    // TF32 keeps 10 fraction bits: C products of magnitude <= 1 err by about C * 2^-10.
    printf("kernel %d %s (max error %.3g)\n", kernel, err < 0.05 ? "PASS" : "FAIL", err);
  }
  cudaFree(d_out);
  cudaFree(d_inp);
  cudaFree(d_weight);
  cudaFree(d_bias);
  cudaFree(cublaslt_workspace);
  cublasCheck(cublasDestroy(cublas_handle));
  cublasCheck(cublasLtDestroy(cublaslt_handle));
  free(inp);
  free(weight);
  free(bias);
  free(out);
  free(ref);
  return 0;
}
