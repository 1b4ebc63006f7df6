// A cooperative launch with grid-wide synchronisation: every block writes its partial sum,
// grid.sync(), then block 0 adds the partials and every block reads the total. The grid is
// sized with the occupancy API, as cudaLaunchCooperativeKernel requires, and a grid too
// large for one wave would be refused (grid_sync_race.cu). Clean: the accesses on either
// side of the barrier are ordered by it; no finding.
//
// warpcheck-exit: 0
// warpcheck-nvcc: fails (NVIDIA's cooperative_groups implements grid.sync() with a driver workspace read from %envreg1/2 and a spin on a global counter, which the emulator does not provide: the kernel traps)
// warpcheck-stdout: cooperative launch: 1
// warpcheck-stdout: resident blocks: 2112
// warpcheck-stdout: total = 131328, seen by every block: yes
// warpcheck-stdout: Result = PASS

#include <cooperative_groups.h>
#include <cstdio>
#include <cuda_runtime.h>

namespace cg = cooperative_groups;

__global__ void grid_sum(const int *in, int *partial, int *total, int *seen, int n) {
  cg::grid_group grid = cg::this_grid();
  __shared__ int part[128];
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  part[threadIdx.x] = i < n ? in[i] : 0;
  __syncthreads();
  for (int s = blockDim.x / 2; s > 0; s >>= 1) {
    if (threadIdx.x < s) part[threadIdx.x] += part[threadIdx.x + s];
    __syncthreads();
  }
  if (threadIdx.x == 0) partial[blockIdx.x] = part[0];
  grid.sync();
  if (blockIdx.x == 0 && threadIdx.x == 0) {
    int sum = 0;
    for (int b = 0; b < gridDim.x; ++b) sum += partial[b];
    *total = sum;
  }
  grid.sync();
  if (threadIdx.x == 0) seen[blockIdx.x] = *total;
}

int main() {
  int supported = 0;
  cudaDeviceGetAttribute(&supported, cudaDevAttrCooperativeLaunch, 0);
  printf("cooperative launch: %d\n", supported);
  const int threads = 128;
  int per_sm = 0, sms = 0;
  cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, grid_sum, threads, 0);
  cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0);
  const int blocks = 4;
  const int n = blocks * threads;
  int h[n];
  for (int i = 0; i < n; ++i) h[i] = i + 1;
  int *in, *partial, *total, *seen;
  cudaMalloc(&in, sizeof(h));
  cudaMalloc(&partial, blocks * sizeof(int));
  cudaMalloc(&total, sizeof(int));
  cudaMalloc(&seen, blocks * sizeof(int));
  cudaMemcpy(in, h, sizeof(h), cudaMemcpyHostToDevice);
  int count = n;
  void *args[] = {&in, &partial, &total, &seen, &count};
  printf("resident blocks: %d\n", per_sm * sms);
  if (blocks > per_sm * sms) return 1;
  cudaError_t e = cudaLaunchCooperativeKernel((void *)grid_sum, dim3(blocks), dim3(threads), //~ launch
                                              args, 0, 0);
  if (e != cudaSuccess || cudaDeviceSynchronize() != cudaSuccess) return 1;
  int sum = 0, seen_h[blocks];
  cudaMemcpy(&sum, total, sizeof(int), cudaMemcpyDeviceToHost);
  cudaMemcpy(seen_h, seen, sizeof(seen_h), cudaMemcpyDeviceToHost);
  bool all = true;
  for (int b = 0; b < blocks; ++b) all = all && seen_h[b] == sum;
  printf("total = %d, seen by every block: %s\n", sum, all ? "yes" : "no");
  bool ok = all && sum == n * (n + 1) / 2;
  printf("Result = %s\n", ok ? "PASS" : "FAIL");
  cudaFree(in);
  cudaFree(partial);
  cudaFree(total);
  cudaFree(seen);
  return ok ? 0 : 1;
}
