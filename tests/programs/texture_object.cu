// The texture object API: a linear float buffer read with tex1Dfetch<float>, and a pitched
// 2D float image read with tex2D<float> under border addressing (the border colour outside),
// wrap addressing with normalised coordinates, and linear filtering; the objects are
// destroyed at the end. The program checks every value and prints "Test PASSED". Clean: no
// finding.
//
// warpcheck-exit: 0
// warpcheck-stdout: Test PASSED

#include <cmath>
#include <cstdio>
#include <cstring>
#include <cuda_runtime.h>

__global__ void fetch(cudaTextureObject_t t, float *out, int n) {
  int i = threadIdx.x;
  if (i < n) out[i] = tex1Dfetch<float>(t, i) * 2.0f;
}

__global__ void sample(cudaTextureObject_t t, const float2 *at, float *out, int n) {
  int i = threadIdx.x;
  if (i < n) out[i] = tex2D<float>(t, at[i].x, at[i].y);
}

static int failures = 0;
static void expect(const char *what, int i, float got, float want) {
  if (std::fabs(got - want) > 1e-6f) {
    printf("%s[%d] = %.8f, expected %.8f\n", what, i, got, want);
    ++failures;
  }
}

static cudaTextureObject_t make(float *img, size_t pitch, int w, int h, cudaTextureAddressMode a,
                                cudaTextureFilterMode f, int normalized) {
  cudaResourceDesc res;
  memset(&res, 0, sizeof res);
  res.resType = cudaResourceTypePitch2D;
  res.res.pitch2D.devPtr = img;
  res.res.pitch2D.desc = cudaCreateChannelDesc<float>();
  res.res.pitch2D.width = w;
  res.res.pitch2D.height = h;
  res.res.pitch2D.pitchInBytes = pitch;
  cudaTextureDesc td;
  memset(&td, 0, sizeof td);
  td.addressMode[0] = a;
  td.addressMode[1] = a;
  td.filterMode = f;
  td.readMode = cudaReadModeElementType;
  td.normalizedCoords = normalized;
  td.borderColor[0] = -1.0f;
  cudaTextureObject_t t = 0;
  if (cudaCreateTextureObject(&t, &res, &td, NULL) != cudaSuccess) ++failures;
  return t;
}

int main() {
  const int n = 64;
  float h[n];
  for (int i = 0; i < n; ++i) h[i] = i;
  float *buf, *out;
  cudaMalloc(&buf, sizeof h);
  cudaMalloc(&out, sizeof h);
  cudaMemcpy(buf, h, sizeof h, cudaMemcpyHostToDevice);
  cudaResourceDesc res;
  memset(&res, 0, sizeof res);
  res.resType = cudaResourceTypeLinear;
  res.res.linear.devPtr = buf;
  res.res.linear.desc = cudaCreateChannelDesc<float>();
  res.res.linear.sizeInBytes = sizeof h;
  cudaTextureDesc td;
  memset(&td, 0, sizeof td);
  td.readMode = cudaReadModeElementType;
  cudaTextureObject_t lin = 0;
  if (cudaCreateTextureObject(&lin, &res, &td, NULL) != cudaSuccess) ++failures;
  fetch<<<1, n>>>(lin, out, n);
  cudaMemcpy(h, out, sizeof h, cudaMemcpyDeviceToHost);
  for (int i = 0; i < n; ++i) expect("tex1Dfetch<float>", i, h[i], 2.0f * i);

  // A 4x2 image, texel (x, y) = 10 y + x.
  const int w = 4, hg = 2;
  size_t pitch;
  float *img;
  cudaMallocPitch((void **)&img, &pitch, w * sizeof(float), hg);
  float rows[hg][w] = {{0, 1, 2, 3}, {10, 11, 12, 13}};
  cudaMemcpy2D(img, pitch, rows, sizeof rows[0], sizeof rows[0], hg, cudaMemcpyHostToDevice);
  const int m = 4;
  float2 at[m];
  float2 *dat;
  cudaMalloc(&dat, sizeof at);
  float got[m];

  // Border: outside the image the border colour (-1).
  cudaTextureObject_t border = make(img, pitch, w, hg, cudaAddressModeBorder, cudaFilterModePoint, 0);
  float2 at_b[m] = {{0.5f, 0.5f}, {3.5f, 1.5f}, {-0.5f, 0.5f}, {1.5f, 2.5f}};
  float want_b[m] = {0, 13, -1, -1};
  cudaMemcpy(dat, at_b, sizeof at_b, cudaMemcpyHostToDevice);
  sample<<<1, 32>>>(border, dat, out, m);
  cudaMemcpy(got, out, sizeof got, cudaMemcpyDeviceToHost);
  for (int i = 0; i < m; ++i) expect("border", i, got[i], want_b[i]);

  // Wrap with normalised coordinates: 1.125 is 0.125, -0.125 is 0.875.
  cudaTextureObject_t wrap = make(img, pitch, w, hg, cudaAddressModeWrap, cudaFilterModePoint, 1);
  float2 at_w[m] = {{0.125f, 0.25f}, {1.125f, 0.75f}, {-0.125f, 0.25f}, {0.625f, 1.75f}};
  float want_w[m] = {0, 10, 3, 12};
  cudaMemcpy(dat, at_w, sizeof at_w, cudaMemcpyHostToDevice);
  sample<<<1, 32>>>(wrap, dat, out, m);
  cudaMemcpy(got, out, sizeof got, cudaMemcpyDeviceToHost);
  for (int i = 0; i < m; ++i) expect("wrap", i, got[i], want_w[i]);

  // Linear filtering, clamped.
  cudaTextureObject_t linear = make(img, pitch, w, hg, cudaAddressModeClamp, cudaFilterModeLinear, 0);
  float2 at_l[m] = {{1.0f, 0.5f}, {1.0f, 1.0f}, {0.25f, 0.5f}, {2.5f, 1.25f}};
  float want_l[m] = {0.5f, 5.5f, 0.0f, 9.5f};
  cudaMemcpy(dat, at_l, sizeof at_l, cudaMemcpyHostToDevice);
  sample<<<1, 32>>>(linear, dat, out, m);
  cudaMemcpy(got, out, sizeof got, cudaMemcpyDeviceToHost);
  for (int i = 0; i < m; ++i) expect("linear", i, got[i], want_l[i]);

  cudaDestroyTextureObject(lin);
  cudaDestroyTextureObject(border);
  cudaDestroyTextureObject(wrap);
  cudaDestroyTextureObject(linear);
  cudaFree(buf);
  cudaFree(out);
  cudaFree(img);
  cudaFree(dat);
  printf(failures ? "Test FAILED\n" : "Test PASSED\n");
  return failures ? 1 : 0;
}
