// Planted bug: the second buffer is never freed. With --leak-check full, must report a
// leak at its cudaMalloc (and nothing for the freed one).
//
// warpcheck-flags: --leak-check full
// warpcheck-exit: 1

#include <cuda_runtime.h>

int main() {
  char *kept, *freed;
  cudaMalloc(&freed, 100);
  cudaMalloc(&kept, 4096); //~ leak
  cudaMemset(kept, 1, 4096);
  cudaFree(freed);
  return 0;
}
