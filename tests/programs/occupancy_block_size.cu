// cudaOccupancyMaxPotentialBlockSize (the template of cuda_runtime.h, which calls the
// runtime's extern "C" cudaOccupancyMaxPotentialBlockSizeImpl, as NVIDIA's
// simpleOccupancy sample does) chooses the block size of a launch; the program checks
// that the answer is a launchable block and that the launch covers its array. Clean.
//
// warpcheck-exit: 0
// warpcheck-stdout: block size is a multiple of 32 and at most 1024: yes
// warpcheck-stdout: every element written: PASS

#include <cstdio>
#include <cuda_runtime.h>

__global__ void square(int *a, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) a[i] = i * i;
}

int main() {
  const int n = 100000;
  int min_grid = 0, block = 0;
  if (cudaOccupancyMaxPotentialBlockSize(&min_grid, &block, square, 0, 0) != cudaSuccess)
    return 2;
  bool sane = block > 0 && block <= 1024 && block % 32 == 0 && min_grid > 0;
  printf("block size is a multiple of 32 and at most 1024: %s\n", sane ? "yes" : "no");
  int *d = nullptr;
  cudaMalloc(&d, n * sizeof(int));
  square<<<(n + block - 1) / block, block>>>(d, n);
  static int h[n];
  cudaMemcpy(h, d, n * sizeof(int), cudaMemcpyDeviceToHost);
  bool ok = sane;
  for (int i = 0; i < n; i++) ok = ok && h[i] == i * i;
  printf("every element written: %s\n", ok ? "PASS" : "FAIL");
  cudaFree(d);
  return ok ? 0 : 1;
}
