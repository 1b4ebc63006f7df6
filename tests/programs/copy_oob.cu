// Planted bug: the copy back reads 2 * n floats from an allocation of n floats (the count
// is in elements where bytes were meant, twice). Must report copy-out-of-bounds at the
// cudaMemcpy; the program ignores the error and exits 0, so check exits 1.
//
// warpcheck-exit: 1

#include <cstdio>
#include <cuda_runtime.h>

__global__ void fill(float *v, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) v[i] = i;
}

int main() {
  const int n = 256;
  float host[2 * n];
  float *d;
  cudaMalloc(&d, n * sizeof(float));
  fill<<<1, n>>>(d, n);
  cudaMemcpy(host, d, 2 * n * sizeof(float), cudaMemcpyDeviceToHost); //~ copy-out-of-bounds
  cudaFree(d);
  printf("done\n");
  return 0;
}
