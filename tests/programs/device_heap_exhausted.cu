// Clean: a device heap too small for every thread. With a 4 KiB heap, each of 64 threads
// asks for 256 bytes it keeps (in a table); malloc returns NULL to those that find no
// room (as on a GPU), and the kernel counts them instead of dereferencing NULL.
//
// warpcheck-exit: 0
// warpcheck-stdout: granted 15 refused 49
// warpcheck-stdout: some allocations failed: yes
// warpcheck-stdout: granted + refused = 64

#include <cstdio>
#include <cuda_runtime.h>

__global__ void grab(int **kept, int *granted, int *refused) {
  int *p = (int *)malloc(256);
  kept[threadIdx.x] = p;
  if (p == NULL) {
    atomicAdd(refused, 1);
    return;
  }
  p[0] = threadIdx.x; //~ uncoalesced-access
  atomicAdd(granted, 1);
}

int main() {
  cudaDeviceSetLimit(cudaLimitMallocHeapSize, 4096);
  int *counts, **kept;
  cudaMalloc(&counts, 2 * sizeof(int));
  cudaMalloc(&kept, 64 * sizeof(int *));
  cudaMemset(counts, 0, 2 * sizeof(int));
  grab<<<1, 64>>>(kept, counts, counts + 1); //~ launch
  int h[2];
  cudaMemcpy(h, counts, sizeof h, cudaMemcpyDeviceToHost);
  printf("granted %d refused %d\n", h[0], h[1]);
  printf("some allocations failed: %s\n", h[1] > 0 && h[0] > 0 ? "yes" : "no");
  printf("granted + refused = %d\n", h[0] + h[1]);
  cudaFree(counts);
  cudaFree(kept);
  return 0;
}
