// Planted bug: the result is copied back after the buffer was freed. Must report
// use-after-free at the cudaMemcpy (naming where it was freed).
//
// warpcheck-exit: 1

#include <cstdio>
#include <cuda_runtime.h>

__global__ void square(int *v) { v[threadIdx.x] *= v[threadIdx.x]; }

int main() {
  int h[32];
  for (int i = 0; i < 32; ++i) h[i] = i;
  int *d;
  cudaMalloc(&d, sizeof(h));
  cudaMemcpy(d, h, sizeof(h), cudaMemcpyHostToDevice);
  square<<<1, 32>>>(d);
  cudaFree(d);
  cudaMemcpy(h, d, sizeof(h), cudaMemcpyDeviceToHost); //~ use-after-free
  printf("h[3] = %d\n", h[3]);
  return 0;
}
