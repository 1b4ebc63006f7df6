// Legacy texture references, as Rodinia uses them: a 1D float texture over linear memory
// read with tex1Dfetch (cudaBindTexture, both the C++ and the C overload), a 2D texture over
// pitched memory (cudaBindTexture2D) read with tex2D at texel centres and between texels
// with linear filtering, clamped outside, and an unsigned-char texture read as normalised
// floats. The program checks every value and prints "Test PASSED". Clean: no finding.
//
// warpcheck-exit: 0
// warpcheck-nvcc: skip (texture references were removed in CUDA 12: nvcc 12 and 13 reject them)
// warpcheck-stdout: Test PASSED

#include <cmath>
#include <cstdio>
#include <cuda_runtime.h>

texture<float, 1, cudaReadModeElementType> t_lin;
texture<float, 2, cudaReadModeElementType> t_img;
texture<unsigned char, 1, cudaReadModeNormalizedFloat> t_bytes;

__global__ void fetch1d(float *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  // Past the end of linear memory a fetch returns 0.
  if (i < n + 4) out[i] = tex1Dfetch(t_lin, i);
}

__global__ void sample2d(float *out, const float *xy, int n) {
  int i = threadIdx.x;
  if (i < n) out[i] = tex2D(t_img, xy[2 * i], xy[2 * i + 1]);
}

__global__ void bytes(float *out) { out[threadIdx.x] = tex1Dfetch(t_bytes, threadIdx.x); }

static int failures = 0;
static void expect(const char *what, int i, float got, float want) {
  if (std::fabs(got - want) > 1e-6f) {
    printf("%s[%d] = %.8f, expected %.8f\n", what, i, got, want);
    ++failures;
  }
}

int main() {
  const int n = 100;
  float h[n + 4];
  for (int i = 0; i < n; ++i) h[i] = 0.5f * i;
  float *lin, *out;
  cudaMalloc(&lin, n * sizeof(float));
  cudaMalloc(&out, 128 * sizeof(float));
  cudaMemcpy(lin, h, n * sizeof(float), cudaMemcpyHostToDevice);
  cudaBindTexture(0, t_lin, lin, n * sizeof(float));
  fetch1d<<<1, 128>>>(out, n);
  cudaMemcpy(h, out, (n + 4) * sizeof(float), cudaMemcpyDeviceToHost);
  for (int i = 0; i < n + 4; ++i) expect("tex1Dfetch", i, h[i], i < n ? 0.5f * i : 0.0f);
  cudaUnbindTexture(t_lin);

  // A 4x3 image, texel (x, y) = 10 y + x, in rows of a 64-byte pitch.
  const int w = 4, hgt = 3;
  size_t pitch;
  float *img;
  cudaMallocPitch((void **)&img, &pitch, w * sizeof(float), hgt);
  float rows[hgt][w];
  for (int y = 0; y < hgt; ++y)
    for (int x = 0; x < w; ++x) rows[y][x] = 10.0f * y + x;
  cudaMemcpy2D(img, pitch, rows, w * sizeof(float), w * sizeof(float), hgt, cudaMemcpyHostToDevice);
  cudaChannelFormatDesc desc = cudaCreateChannelDesc<float>();
  t_img.filterMode = cudaFilterModePoint;
  cudaBindTexture2D(NULL, &t_img, img, &desc, w, hgt, pitch);
  const int m = 6;
  // Point sampling: texel centres, a corner, and clamped coordinates outside.
  float xy[2 * m] = {0.5f, 0.5f, 3.5f, 2.5f, 1.99f, 1.0f, -3.0f, 1.5f, 9.0f, 7.0f, 2.0f, 0.0f};
  float want_point[m] = {0, 23, 11, 10, 23, 2};
  float *dxy;
  cudaMalloc(&dxy, sizeof xy);
  cudaMemcpy(dxy, xy, sizeof xy, cudaMemcpyHostToDevice);
  sample2d<<<1, 32>>>(out, dxy, m);
  float got[m];
  cudaMemcpy(got, out, sizeof got, cudaMemcpyDeviceToHost);
  for (int i = 0; i < m; ++i) expect("tex2D point", i, got[i], want_point[i]);

  // Linear filtering: between texels the weights are fractions with 8 bits (x = 1.8:
  // xB = 1.3, weight 0.3 is 77/256 = 0.30078125).
  t_img.filterMode = cudaFilterModeLinear;
  cudaBindTexture2D(NULL, &t_img, img, &desc, w, hgt, pitch);
  float xy2[2 * m] = {1.0f, 0.5f, 1.5f, 1.0f, 1.8f, 0.5f, 0.0f, 0.5f, 4.0f, 3.0f, 2.0f, 2.0f};
  float want_linear[m] = {0.5f, 6.0f, 1.30078125f, 0.0f, 23.0f, 16.5f};
  cudaMemcpy(dxy, xy2, sizeof xy2, cudaMemcpyHostToDevice);
  sample2d<<<1, 32>>>(out, dxy, m);
  cudaMemcpy(got, out, sizeof got, cudaMemcpyDeviceToHost);
  for (int i = 0; i < m; ++i) expect("tex2D linear", i, got[i], want_linear[i]);
  cudaUnbindTexture(t_img);

  unsigned char b[32];
  for (int i = 0; i < 32; ++i) b[i] = (unsigned char)(8 * i);
  unsigned char *db;
  cudaMalloc(&db, sizeof b);
  cudaMemcpy(db, b, sizeof b, cudaMemcpyHostToDevice);
  cudaBindTexture(0, t_bytes, db, sizeof b);
  bytes<<<1, 32>>>(out);
  float fb[32];
  cudaMemcpy(fb, out, sizeof fb, cudaMemcpyDeviceToHost);
  for (int i = 0; i < 32; ++i) expect("normalised", i, fb[i], (8 * i) / 255.0f);
  cudaUnbindTexture(t_bytes);

  cudaFree(lin);
  cudaFree(out);
  cudaFree(img);
  cudaFree(dxy);
  cudaFree(db);
  printf(failures ? "Test FAILED\n" : "Test PASSED\n");
  return failures ? 1 : 0;
}
