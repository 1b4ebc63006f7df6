// Polynomial evaluation with coefficients in __constant__ memory set by
// cudaMemcpyToSymbol, and a __device__ counter read back with cudaMemcpyFromSymbol.
// Device printf from one thread. Clean: no finding.
//
// warpcheck-exit: 0
// warpcheck-stdout: coefficients 1 2 3
// warpcheck-stdout: p(2) = 17
// warpcheck-stdout: evaluated 64 points

#include <cstdio>
#include <cuda_runtime.h>

__constant__ float coeff[3];
__device__ unsigned int evaluated;

__global__ void poly(const float *x, float *y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i == 0) printf("coefficients %g %g %g\n", coeff[0], coeff[1], coeff[2]);
  if (i < n) {
    float v = x[i];
    y[i] = coeff[0] + v * (coeff[1] + v * coeff[2]);
    atomicAdd(&evaluated, 1u);
  }
}

int main() {
  const int n = 64;
  float hx[n], hy[n];
  for (int i = 0; i < n; ++i) hx[i] = (float)i;
  float c[3] = {1, 2, 3};
  unsigned int zero = 0, count = 0;
  cudaMemcpyToSymbol(coeff, c, sizeof(c));
  cudaMemcpyToSymbol(evaluated, &zero, sizeof(zero));
  float *dx, *dy;
  cudaMalloc(&dx, sizeof(hx));
  cudaMalloc(&dy, sizeof(hy));
  cudaMemcpy(dx, hx, sizeof(hx), cudaMemcpyHostToDevice);
  poly<<<2, 32>>>(dx, dy, n);
  cudaMemcpy(hy, dy, sizeof(hy), cudaMemcpyDeviceToHost);
  cudaMemcpyFromSymbol(&count, evaluated, sizeof(count));
  printf("p(2) = %g\n", hy[2]);
  printf("evaluated %u points\n", count);
  cudaFree(dx);
  cudaFree(dy);
  return hy[2] == 17.0f && count == n ? 0 : 1;
}
