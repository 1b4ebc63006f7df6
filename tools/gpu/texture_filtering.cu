// The hardware truth of linear texture filtering: a 2x2 float texture (pitched memory,
// texture object, linear filtering, clamped) with texels 0, 1 (row 0) and 0, 256 (row 1),
// sampled at x = 0.5 + k/1024 along row 0 (weights along x) and at x = 1.5,
// y = 0.5 + k/1024 down the second column (weights along y, scaled back by 1/256), for
// k = 0 .. 1023. Prints "k along_x along_y" (%.9g: exact for these values), so that the
// weights' rounding is visible: warpcheck's emulator rounds the fraction to 8 bits
// (round(f * 256) / 256).
//
// On the GPU machine:  nvcc -O3 -o tf texture_filtering.cu && ./tf > gpu.txt
// Here:                warpcheck run tools/gpu/texture_filtering.cu > emu.txt; diff gpu.txt emu.txt
#include <cstdio>
#include <cstring>
#include <cuda_runtime.h>

__global__ void probe(cudaTextureObject_t t, float *out, int n) {
  int k = blockIdx.x * blockDim.x + threadIdx.x;
  if (k >= n) return;
  float f = k / 1024.0f;
  out[2 * k] = tex2D<float>(t, 0.5f + f, 0.5f);
  out[2 * k + 1] = tex2D<float>(t, 1.5f, 0.5f + f) / 256.0f;
}

int main() {
  const int n = 1024;
  float texels[2][2] = {{0.0f, 1.0f}, {0.0f, 256.0f}};
  float *img, *out;
  size_t pitch;
  cudaMallocPitch((void **)&img, &pitch, 2 * sizeof(float), 2);
  cudaMemcpy2D(img, pitch, texels, sizeof texels[0], sizeof texels[0], 2, cudaMemcpyHostToDevice);
  cudaResourceDesc res;
  memset(&res, 0, sizeof res);
  res.resType = cudaResourceTypePitch2D;
  res.res.pitch2D.devPtr = img;
  res.res.pitch2D.desc = cudaCreateChannelDesc<float>();
  res.res.pitch2D.width = 2;
  res.res.pitch2D.height = 2;
  res.res.pitch2D.pitchInBytes = pitch;
  cudaTextureDesc td;
  memset(&td, 0, sizeof td);
  td.addressMode[0] = td.addressMode[1] = cudaAddressModeClamp;
  td.filterMode = cudaFilterModeLinear;
  td.readMode = cudaReadModeElementType;
  cudaTextureObject_t t;
  if (cudaCreateTextureObject(&t, &res, &td, NULL) != cudaSuccess) return 2;
  cudaMalloc(&out, 2 * n * sizeof(float));
  probe<<<n / 128, 128>>>(t, out, n);
  static float h[2 * n];
  if (cudaMemcpy(h, out, sizeof h, cudaMemcpyDeviceToHost) != cudaSuccess) return 3;
  for (int k = 0; k < n; ++k) printf("%d %.9g %.9g\n", k, h[2 * k], h[2 * k + 1]);
  return 0;
}
