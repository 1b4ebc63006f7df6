// Planted bug: a cooperative launch where block 1 reads block 0's partial sum on the wrong
// side of the grid-wide barrier (before grid.sync(), while block 0 writes it). Must report
// global-race on that write and read, and nothing for the accesses the barrier orders.
// Also a grid too large to be resident at once: cudaLaunchCooperativeKernel returns
// cudaErrorCooperativeLaunchTooLarge, reported as api-error at its line.
//
// warpcheck-exit: 1
// warpcheck-nvcc: fails (NVIDIA's cooperative_groups implements grid.sync() with a driver workspace read from %envreg1/2 and a spin on a global counter, which the emulator does not provide: the kernel traps)
// warpcheck-stdout: too large: cudaErrorCooperativeLaunchTooLarge
// warpcheck-stdout: total = 10

#include <cooperative_groups.h>
#include <cstdio>
#include <cuda_runtime.h>

namespace cg = cooperative_groups;

__global__ void grid_sum(int *partial, int *total, int *peek) {
  cg::grid_group grid = cg::this_grid();
  if (threadIdx.x == 0) partial[blockIdx.x] = blockIdx.x + 1; //~ global-race
  if (blockIdx.x == 1 && threadIdx.x == 0) *peek = partial[0]; //~ global-race
  grid.sync();
  if (blockIdx.x == 0 && threadIdx.x == 0) {
    int sum = 0;
    for (int b = 0; b < gridDim.x; ++b) sum += partial[b];
    *total = sum;
  }
}

int main() {
  const int blocks = 4, threads = 64;
  int *partial, *total, *peek;
  cudaMalloc(&partial, blocks * sizeof(int));
  cudaMalloc(&total, sizeof(int));
  cudaMalloc(&peek, sizeof(int));
  void *args[] = {&partial, &total, &peek};
  cudaError_t big = cudaLaunchCooperativeKernel((void *)grid_sum, dim3(1 << 20), dim3(threads), //~ api-error
                                                args, 0, 0);
  printf("too large: %s\n", cudaGetErrorName(big));
  cudaGetLastError();
  if (cudaLaunchCooperativeKernel((void *)grid_sum, dim3(blocks), dim3(threads), args, 0, 0) != //~ launch
      cudaSuccess)
    return 1;
  int sum = 0;
  cudaMemcpy(&sum, total, sizeof(int), cudaMemcpyDeviceToHost);
  printf("total = %d\n", sum);
  cudaFree(partial);
  cudaFree(total);
  cudaFree(peek);
  return 0;
}
