// cuBLAS and cuBLASLt through warpcheck's runtime: every call's result is compared on
// the host with a naive loop over the same (rounded) inputs. Sgemm with all four
// transpose combinations, odd sizes and padded leading dimensions; alpha and beta in
// device memory; Dgemm; Sgemm in TF32 math mode; strided batched Sgemm; GemmEx and
// GemmStridedBatchedEx with bf16; Sgemv; cublasLtMatmul with a bias+GELU epilogue
// (transposed A, as llm.c calls it), with a row-major bf16 output, and with GELU_AUX_BIAS. The output of a
// GEMM counts as initialised: the kernel that reads it afterwards reports nothing.
//
// warpcheck-flags: -lcublas -lcublasLt
// warpcheck-stdout: ALL PASS

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <vector>
#include <cuda_runtime.h>
#include <cublas_v2.h>
#include <cublasLt.h>

static int failures = 0;

static void report(const char *what, double err, double tol) {
  bool ok = err <= tol;
  if (!ok) failures++;
  printf("%s %s (max error %.3g)\n", ok ? "PASS" : "FAIL", what, err);
}

static void expect_ok(cublasStatus_t s, const char *what) {
  if (s != CUBLAS_STATUS_SUCCESS) {
    printf("FAIL %s returned %d\n", what, (int)s);
    failures++;
  }
}

static uint32_t seed = 12345;
static float next_value() {
  seed = seed * 1664525u + 1013904223u;
  return ((seed >> 8) % 2001) / 1000.0f - 1.0f;
}

static std::vector<float> random_vector(size_t n) {
  std::vector<float> v(n);
  for (auto &x : v) x = next_value();
  return v;
}

static uint16_t to_bf16(float f) {
  uint32_t x;
  memcpy(&x, &f, 4);
  x += 0x7fff + ((x >> 16) & 1);
  return (uint16_t)(x >> 16);
}
static float from_bf16(uint16_t h) {
  uint32_t x = (uint32_t)h << 16;
  float f;
  memcpy(&f, &x, 4);
  return f;
}
static float to_tf32(float f) {
  uint32_t x;
  memcpy(&x, &f, 4);
  x = (x + 0x1000u) & ~0x1fffu;
  memcpy(&f, &x, 4);
  return f;
}

// C(i,j) = alpha * sum_l op(A)(i,l) op(B)(l,j) + beta * C(i,j), column-major.
static void reference(bool ta, bool tb, int m, int n, int k, double alpha, const float *A, int lda,
                      const float *B, int ldb, double beta, std::vector<double> &C, int ldc) {
  for (int j = 0; j < n; j++)
    for (int i = 0; i < m; i++) {
      double s = 0;
      for (int l = 0; l < k; l++) {
        double a = ta ? A[l + i * lda] : A[i + l * lda];
        double b = tb ? B[j + l * ldb] : B[l + j * ldb];
        s += a * b;
      }
      C[i + j * ldc] = alpha * s + beta * C[i + j * ldc];
    }
}

template <typename T> static T *to_device(const std::vector<T> &h) {
  T *d;
  cudaMalloc(&d, h.size() * sizeof(T));
  cudaMemcpy(d, h.data(), h.size() * sizeof(T), cudaMemcpyHostToDevice);
  return d;
}
template <typename T> static std::vector<T> to_host(const T *d, size_t n) {
  std::vector<T> h(n);
  cudaMemcpy(h.data(), d, n * sizeof(T), cudaMemcpyDeviceToHost);
  return h;
}

// Max error over the m x n matrix (ld ldc), and that the padding rows kept their value.
static double max_error(const std::vector<float> &got, const std::vector<double> &want, int m, int n, int ldc) {
  double e = 0;
  for (int j = 0; j < n; j++)
    for (int i = 0; i < ldc; i++) {
      size_t at = i + (size_t)j * ldc;
      if (at >= got.size()) continue;
      double d = fabs(got[at] - want[at]);
      if (i >= m) d = got[at] == (float)want[at] ? 0 : 1e9;  // padding untouched
      if (d > e) e = d;
    }
  return e;
}

__global__ void sum_all(const float *c, int n, float *out) {
  float s = 0;
  for (int i = 0; i < n; i++) s += c[i];
  *out = s;
}

static void sgemm_transposes(cublasHandle_t h) {
  const int m = 7, n = 5, k = 3;
  const float alpha = 1.5f, beta = -0.5f;
  for (int ta = 0; ta < 2; ta++)
    for (int tb = 0; tb < 2; tb++) {
      int lda = (ta ? k : m) + 3, ldb = (tb ? n : k) + 2, ldc = m + 4;
      auto A = random_vector((size_t)lda * (ta ? m : k));
      auto B = random_vector((size_t)ldb * (tb ? k : n));
      auto C = random_vector((size_t)ldc * n);
      float *dA = to_device(A), *dB = to_device(B), *dC = to_device(C);
      expect_ok(cublasSgemm(h, ta ? CUBLAS_OP_T : CUBLAS_OP_N, tb ? CUBLAS_OP_T : CUBLAS_OP_N, m, n, k,
                            &alpha, dA, lda, dB, ldb, &beta, dC, ldc),
                "cublasSgemm");
      std::vector<double> want(C.begin(), C.end());
      reference(ta, tb, m, n, k, alpha, A.data(), lda, B.data(), ldb, beta, want, ldc);
      char what[64];
      snprintf(what, sizeof what, "sgemm %c%c", ta ? 'T' : 'N', tb ? 'T' : 'N');
      report(what, max_error(to_host(dC, C.size()), want, m, n, ldc), 1e-5);
      cudaFree(dA);
      cudaFree(dB);
      cudaFree(dC);
    }
}

static void sgemm_device_scalars_and_init(cublasHandle_t h) {
  const int m = 33, n = 17, k = 9;
  auto A = random_vector(m * k), B = random_vector(k * n);
  float *dA = to_device(A), *dB = to_device(B), *dC, *dScalars, *dSum;
  cudaMalloc(&dC, m * n * sizeof(float));  // never written by the host
  cudaMalloc(&dSum, sizeof(float));
  std::vector<float> scalars = {2.0f, 0.0f};
  dScalars = to_device(scalars);
  cublasSetPointerMode(h, CUBLAS_POINTER_MODE_DEVICE);
  expect_ok(cublasSgemm(h, CUBLAS_OP_N, CUBLAS_OP_N, m, n, k, dScalars, dA, m, dB, k, dScalars + 1, dC, m),
            "cublasSgemm (device scalars)");
  cublasSetPointerMode(h, CUBLAS_POINTER_MODE_HOST);
  std::vector<double> want(m * n, 0.0);
  reference(false, false, m, n, k, 2.0, A.data(), m, B.data(), k, 0.0, want, m);
  auto got = to_host(dC, m * n);
  report("sgemm with alpha and beta in device memory", max_error(got, want, m, n, m), 1e-5);
  // The kernel reads every element of C: all were written by cublasSgemm.
  sum_all<<<1, 1>>>(dC, m * n, dSum);
  float sum = to_host(dSum, 1)[0], want_sum = 0;
  for (float x : got) want_sum += x;
  report("kernel reads the GEMM's output", fabs(sum - want_sum), 1e-3);
  cudaFree(dA);
  cudaFree(dB);
  cudaFree(dC);
  cudaFree(dScalars);
  cudaFree(dSum);
}

static void dgemm(cublasHandle_t h) {
  const int m = 6, n = 4, k = 5;
  std::vector<double> A(m * k), B(k * n), C(m * n, 1.0);
  for (auto &x : A) x = next_value();
  for (auto &x : B) x = next_value();
  double *dA = to_device(A), *dB = to_device(B), *dC = to_device(C);
  const double alpha = 1.0 / 3.0, beta = 2.0;
  expect_ok(cublasDgemm(h, CUBLAS_OP_N, CUBLAS_OP_T, m, n, k, &alpha, dA, m, dB, n, &beta, dC, m),
            "cublasDgemm");
  auto got = to_host(dC, m * n);
  double e = 0;
  for (int j = 0; j < n; j++)
    for (int i = 0; i < m; i++) {
      double s = 0;
      for (int l = 0; l < k; l++) s += A[i + l * m] * B[j + l * n];
      e = fmax(e, fabs(got[i + j * m] - (alpha * s + beta)));
    }
  report("dgemm NT", e, 1e-12);
  cudaFree(dA);
  cudaFree(dB);
  cudaFree(dC);
}

static void sgemm_tf32(cublasHandle_t h) {
  const int m = 16, n = 8, k = 64;
  auto A = random_vector(m * k), B = random_vector(k * n);
  for (auto &x : A) x += 1.0f / 3.0f;  // bits below TF32's precision
  float *dA = to_device(A), *dB = to_device(B), *dC;
  cudaMalloc(&dC, m * n * sizeof(float));
  cublasSetMathMode(h, CUBLAS_TF32_TENSOR_OP_MATH);
  const float one = 1, zero = 0;
  expect_ok(cublasSgemm(h, CUBLAS_OP_N, CUBLAS_OP_N, m, n, k, &one, dA, m, dB, k, &zero, dC, m),
            "cublasSgemm (TF32)");
  cublasSetMathMode(h, CUBLAS_DEFAULT_MATH);
  std::vector<float> At(A), Bt(B);
  for (auto &x : At) x = to_tf32(x);
  for (auto &x : Bt) x = to_tf32(x);
  std::vector<double> want(m * n, 0.0), exact(m * n, 0.0);
  reference(false, false, m, n, k, 1.0, At.data(), m, Bt.data(), k, 0.0, want, m);
  reference(false, false, m, n, k, 1.0, A.data(), m, B.data(), k, 0.0, exact, m);
  auto got = to_host(dC, m * n);
  report("sgemm in TF32 math mode matches TF32-rounded inputs", max_error(got, want, m, n, m), 1e-4);
  printf("TF32 differs from f32 by %.3g\n", max_error(got, exact, m, n, m));
  cudaFree(dA);
  cudaFree(dB);
  cudaFree(dC);
}

static void strided_batched(cublasHandle_t h) {
  const int m = 5, n = 3, k = 4, batch = 3;
  const int lda = k + 1, ldb = k, ldc = m + 1;  // A is transposed: k x m stored
  const long long sA = lda * m + 7, sB = ldb * n + 2, sC = ldc * n + 5;
  auto A = random_vector(sA * batch), B = random_vector(sB * batch), C = random_vector(sC * batch);
  float *dA = to_device(A), *dB = to_device(B), *dC = to_device(C);
  const float alpha = -1.25f, beta = 0.75f;
  expect_ok(cublasSgemmStridedBatched(h, CUBLAS_OP_T, CUBLAS_OP_N, m, n, k, &alpha, dA, lda, sA, dB, ldb, sB,
                                      &beta, dC, ldc, sC, batch),
            "cublasSgemmStridedBatched");
  auto got = to_host(dC, C.size());
  std::vector<double> want(C.begin(), C.end());
  double e = 0;
  for (int b = 0; b < batch; b++) {
    std::vector<double> w(want.begin() + b * sC, want.begin() + b * sC + ldc * n);
    reference(true, false, m, n, k, alpha, A.data() + b * sA, lda, B.data() + b * sB, ldb, beta, w, ldc);
    std::vector<float> g(got.begin() + b * sC, got.begin() + b * sC + ldc * n);
    e = fmax(e, max_error(g, w, m, n, ldc));
    // Between the matrices: untouched.
    for (long long i = b * sC + ldc * n; i < (b + 1) * sC && i < (long long)C.size(); i++)
      if (got[i] != C[i]) e = 1e9;
  }
  report("sgemm strided batched", e, 1e-5);
  cudaFree(dA);
  cudaFree(dB);
  cudaFree(dC);
}

static void gemm_bf16(cublasHandle_t h) {
  const int m = 9, n = 6, k = 11;
  std::vector<uint16_t> A(m * k), B(k * n);
  std::vector<float> Af(m * k), Bf(k * n);
  for (int i = 0; i < m * k; i++) Af[i] = from_bf16(A[i] = to_bf16(next_value()));
  for (int i = 0; i < k * n; i++) Bf[i] = from_bf16(B[i] = to_bf16(next_value()));
  uint16_t *dA = to_device(A), *dB = to_device(B);
  float *dC;
  cudaMalloc(&dC, m * n * sizeof(float));
  const float alpha = 1, beta = 0;
  expect_ok(cublasGemmEx(h, CUBLAS_OP_N, CUBLAS_OP_N, m, n, k, &alpha, dA, CUDA_R_16BF, m, dB, CUDA_R_16BF, k,
                         &beta, dC, CUDA_R_32F, m, CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT),
            "cublasGemmEx");
  std::vector<double> want(m * n, 0.0);
  reference(false, false, m, n, k, 1.0, Af.data(), m, Bf.data(), k, 0.0, want, m);
  report("gemmEx bf16 x bf16 -> f32", max_error(to_host(dC, m * n), want, m, n, m), 1e-5);

  // Batched, bf16 output: B shared by every batch entry (stride 0), as attention does.
  const int batch = 2;
  std::vector<uint16_t> A2(m * k * batch);
  std::vector<float> A2f(A2.size());
  for (size_t i = 0; i < A2.size(); i++) A2f[i] = from_bf16(A2[i] = to_bf16(next_value()));
  uint16_t *dA2 = to_device(A2), *dC2;
  cudaMalloc(&dC2, m * n * batch * sizeof(uint16_t));
  expect_ok(cublasGemmStridedBatchedEx(h, CUBLAS_OP_N, CUBLAS_OP_N, m, n, k, &alpha, dA2, CUDA_R_16BF, m, m * k,
                                       dB, CUDA_R_16BF, k, 0, &beta, dC2, CUDA_R_16BF, m, m * n, batch,
                                       CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT),
            "cublasGemmStridedBatchedEx");
  auto got = to_host(dC2, m * n * batch);
  double e = 0;
  for (int b = 0; b < batch; b++) {
    std::vector<double> w(m * n, 0.0);
    reference(false, false, m, n, k, 1.0, A2f.data() + b * m * k, m, Bf.data(), k, 0.0, w, m);
    for (int i = 0; i < m * n; i++) e = fmax(e, fabs(from_bf16(got[b * m * n + i]) - w[i]) / (1 + fabs(w[i])));
  }
  report("gemmStridedBatchedEx bf16 -> bf16", e, 1.0 / 128);
  cudaFree(dA);
  cudaFree(dB);
  cudaFree(dC);
  cudaFree(dA2);
  cudaFree(dC2);
}

static void sgemv(cublasHandle_t h) {
  const int m = 6, n = 4, lda = 8;
  auto A = random_vector(lda * n), x = random_vector(2 * m), y = random_vector(3 * m);
  float *dA = to_device(A), *dx = to_device(x), *dy = to_device(y);
  const float alpha = 0.5f, beta = 2.0f;
  // y (n elements, increment 3) = alpha * A^T x (m elements, increment 2) + beta * y
  expect_ok(cublasSgemv(h, CUBLAS_OP_T, m, n, &alpha, dA, lda, dx, 2, &beta, dy, 3), "cublasSgemv");
  auto got = to_host(dy, y.size());
  double e = 0;
  for (int j = 0; j < n; j++) {
    double s = 0;
    for (int i = 0; i < m; i++) s += A[i + j * lda] * x[2 * i];
    e = fmax(e, fabs(got[3 * j] - (alpha * s + beta * y[3 * j])));
  }
  for (size_t i = 0; i < y.size(); i++)
    if (i % 3 != 0 || i / 3 >= (size_t)n) e = got[i] == y[i] ? e : 1e9;
  report("sgemv T with increments", e, 1e-5);
  cudaFree(dA);
  cudaFree(dx);
  cudaFree(dy);
}

static double gelu(double x) { return 0.5 * x * (1 + tanh(sqrt(2 / M_PI) * (x + 0.044715 * x * x * x))); }

// out (OC x N) = gelu(weight^T (OC x C) * inp (C x N) + bias), as llm.c's matmul_forward.
static void lt_bias_gelu(cublasLtHandle_t lt) {
  const int C = 13, OC = 10, N = 7;
  auto weight = random_vector(C * OC), inp = random_vector(C * N), bias = random_vector(OC);
  float *dW = to_device(weight), *dI = to_device(inp), *dBias = to_device(bias), *dOut;
  cudaMalloc(&dOut, OC * N * sizeof(float));
  cublasLtMatmulDesc_t desc;
  cublasLtMatrixLayout_t wl, il, ol;
  cublasLtMatmulPreference_t pref;
  cublasOperation_t t = CUBLAS_OP_T, nt = CUBLAS_OP_N;
  cublasLtEpilogue_t ep = CUBLASLT_EPILOGUE_GELU_BIAS;
  expect_ok(cublasLtMatmulDescCreate(&desc, CUBLAS_COMPUTE_32F, CUDA_R_32F), "cublasLtMatmulDescCreate");
  cublasLtMatmulDescSetAttribute(desc, CUBLASLT_MATMUL_DESC_TRANSA, &t, sizeof t);
  cublasLtMatmulDescSetAttribute(desc, CUBLASLT_MATMUL_DESC_TRANSB, &nt, sizeof nt);
  cublasLtMatmulDescSetAttribute(desc, CUBLASLT_MATMUL_DESC_EPILOGUE, &ep, sizeof ep);
  expect_ok(cublasLtMatmulDescSetAttribute(desc, CUBLASLT_MATMUL_DESC_BIAS_POINTER, &dBias, sizeof dBias),
            "cublasLtMatmulDescSetAttribute");
  cublasLtMatrixLayoutCreate(&wl, CUDA_R_32F, C, OC, C);
  cublasLtMatrixLayoutCreate(&il, CUDA_R_32F, C, N, C);
  cublasLtMatrixLayoutCreate(&ol, CUDA_R_32F, OC, N, OC);
  cublasLtMatmulPreferenceCreate(&pref);
  size_t workspace = 1 << 20;
  cublasLtMatmulPreferenceSetAttribute(pref, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES, &workspace,
                                       sizeof workspace);
  cublasLtMatmulHeuristicResult_t heuristic;
  int found = 0;
  expect_ok(cublasLtMatmulAlgoGetHeuristic(lt, desc, wl, il, ol, ol, pref, 1, &heuristic, &found),
            "cublasLtMatmulAlgoGetHeuristic");
  if (found != 1) failures++;
  const float alpha = 1, beta = 0;
  expect_ok(cublasLtMatmul(lt, desc, &alpha, dW, wl, dI, il, &beta, dOut, ol, dOut, ol, &heuristic.algo, nullptr, 0, 0),
            "cublasLtMatmul");
  auto got = to_host(dOut, OC * N);
  double e = 0;
  for (int j = 0; j < N; j++)
    for (int o = 0; o < OC; o++) {
      double s = bias[o];
      for (int c = 0; c < C; c++) s += weight[c + o * C] * inp[c + j * C];
      e = fmax(e, fabs(got[o + j * OC] - gelu(s)));
    }
  report("cublasLtMatmul bias+GELU", e, 1e-5);

  // Row-major bf16 D (C in f32 is not allowed with bf16 D: C is bf16 too), epilogue BIAS.
  cublasLtMatrixLayout_t rl;
  cublasLtOrder_t row = CUBLASLT_ORDER_ROW;
  cublasLtMatrixLayoutCreate(&rl, CUDA_R_16BF, OC, N, N);
  cublasLtMatrixLayoutSetAttribute(rl, CUBLASLT_MATRIX_LAYOUT_ORDER, &row, sizeof row);
  std::vector<uint16_t> w16(C * OC), i16(C * N);
  for (int i = 0; i < C * OC; i++) w16[i] = to_bf16(weight[i]);
  for (int i = 0; i < C * N; i++) i16[i] = to_bf16(inp[i]);
  std::vector<uint16_t> b16(OC);
  for (int i = 0; i < OC; i++) b16[i] = to_bf16(bias[i]);
  uint16_t *dW16 = to_device(w16), *dI16 = to_device(i16), *dB16 = to_device(b16), *dO16;
  cudaMalloc(&dO16, OC * N * sizeof(uint16_t));
  cublasLtMatrixLayout_t wl16, il16;
  cublasLtMatrixLayoutCreate(&wl16, CUDA_R_16BF, C, OC, C);
  cublasLtMatrixLayoutCreate(&il16, CUDA_R_16BF, C, N, C);
  ep = CUBLASLT_EPILOGUE_BIAS;
  cublasLtMatmulDescSetAttribute(desc, CUBLASLT_MATMUL_DESC_EPILOGUE, &ep, sizeof ep);
  cublasLtMatmulDescSetAttribute(desc, CUBLASLT_MATMUL_DESC_BIAS_POINTER, &dB16, sizeof dB16);
  expect_ok(cublasLtMatmul(lt, desc, &alpha, dW16, wl16, dI16, il16, &beta, dO16, rl, dO16, rl, nullptr, nullptr, 0, 0),
            "cublasLtMatmul (bf16, row-major D)");
  auto got16 = to_host(dO16, OC * N);
  e = 0;
  for (int j = 0; j < N; j++)
    for (int o = 0; o < OC; o++) {
      double s = from_bf16(b16[o]);
      for (int c = 0; c < C; c++) s += (double)from_bf16(w16[c + o * C]) * from_bf16(i16[c + j * C]);
      e = fmax(e, fabs(from_bf16(got16[o * N + j]) - s) / (1 + fabs(s)));
    }
  report("cublasLtMatmul bf16 row-major D with bias", e, 1.0 / 128);

  // GELU_AUX_BIAS: D = gelu(A B + bias), and the auxiliary matrix (ld OC + 3) holds A B + bias.
  const int ldaux = OC + 3;
  std::vector<float> aux_init(ldaux * N, 42.0f);
  float *dAux = to_device(aux_init);
  int64_t aux_ld = ldaux;
  ep = CUBLASLT_EPILOGUE_GELU_AUX_BIAS;
  cublasLtMatmulDescSetAttribute(desc, CUBLASLT_MATMUL_DESC_EPILOGUE, &ep, sizeof ep);
  cublasLtMatmulDescSetAttribute(desc, CUBLASLT_MATMUL_DESC_BIAS_POINTER, &dBias, sizeof dBias);
  cublasLtMatmulDescSetAttribute(desc, CUBLASLT_MATMUL_DESC_EPILOGUE_AUX_POINTER, &dAux, sizeof dAux);
  cublasLtMatmulDescSetAttribute(desc, CUBLASLT_MATMUL_DESC_EPILOGUE_AUX_LD, &aux_ld, sizeof aux_ld);
  expect_ok(cublasLtMatmul(lt, desc, &alpha, dW, wl, dI, il, &beta, dOut, ol, dOut, ol, nullptr, nullptr, 0, 0),
            "cublasLtMatmul (GELU_AUX_BIAS)");
  got = to_host(dOut, OC * N);
  auto aux = to_host(dAux, ldaux * N);
  e = 0;
  for (int j = 0; j < N; j++)
    for (int o = 0; o < ldaux; o++) {
      if (o >= OC) {
        e = fmax(e, aux[o + j * ldaux] == 42.0f ? 0 : 1e9);  // padding untouched
        continue;
      }
      double s = bias[o];
      for (int c = 0; c < C; c++) s += weight[c + o * C] * inp[c + j * C];
      e = fmax(e, fmax(fabs(got[o + j * OC] - gelu(s)), fabs(aux[o + j * ldaux] - s)));
    }
  report("cublasLtMatmul GELU_AUX_BIAS", e, 1e-5);
  cudaFree(dAux);

  cublasLtMatmulPreferenceDestroy(pref);
  cublasLtMatmulDescDestroy(desc);
  for (auto l : {wl, il, ol, rl, wl16, il16}) cublasLtMatrixLayoutDestroy(l);
  for (void *p : {(void *)dW, (void *)dI, (void *)dBias, (void *)dOut, (void *)dW16, (void *)dI16, (void *)dB16,
                  (void *)dO16})
    cudaFree(p);
}

int main() {
  cublasHandle_t h;
  cublasLtHandle_t lt;
  expect_ok(cublasCreate(&h), "cublasCreate");
  expect_ok(cublasLtCreate(&lt), "cublasLtCreate");
  cudaStream_t s;
  cudaStreamCreate(&s);
  expect_ok(cublasSetStream(h, s), "cublasSetStream");
  sgemm_transposes(h);
  sgemm_device_scalars_and_init(h);
  dgemm(h);
  sgemm_tf32(h);
  strided_batched(h);
  gemm_bf16(h);
  sgemv(h);
  lt_bias_gelu(lt);
  cublasLtDestroy(lt);
  cublasDestroy(h);
  cudaStreamDestroy(s);
  printf(failures ? "SOME FAILED\n" : "ALL PASS\n");
  return failures ? 1 : 0;
}
