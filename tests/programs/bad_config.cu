// Planted bug: a launch with 2048 threads per block (the limit is 1024) whose error the
// program never checks; the output stays unwritten. Must report launch-error at the
// launch, with cudaErrorInvalidConfiguration.
//
// warpcheck-exit: 1
// warpcheck-stdout: first = 0

#include <cstdio>
#include <cuda_runtime.h>

__global__ void ones(int *v) { v[blockIdx.x * blockDim.x + threadIdx.x] = 1; }

int main() {
  int *d, first = 0;
  cudaMalloc(&d, 2048 * sizeof(int));
  cudaMemset(d, 0, 2048 * sizeof(int));
  ones<<<1, 2048>>>(d); //~ launch-error
  cudaMemcpy(&first, d, sizeof(int), cudaMemcpyDeviceToHost);
  printf("first = %d\n", first);
  cudaFree(d);
  return 0;
}
