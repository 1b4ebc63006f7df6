// Planted bug: a cleanup path frees a buffer that was already freed. Must report
// double-free at the second cudaFree.
//
// warpcheck-exit: 1

#include <cuda_runtime.h>

static void cleanup(float *p) {
  cudaFree(p); //~ double-free
}

int main() {
  float *d;
  cudaMalloc(&d, 1024);
  cudaMemset(d, 0, 1024);
  cudaFree(d);
  cleanup(d);
  return 0;
}
