// A sum reduction over managed memory: cudaMallocManaged input and output written and read
// by the host directly, a shared-memory tree reduction per block with __syncthreads, one
// atomicAdd per block, cudaDeviceSynchronize. Clean: no finding; prints the sum.
//
// warpcheck-exit: 0
// warpcheck-stdout: sum = 524800
// warpcheck-stdout: Result = PASS

#include <cstdio>
#include <cuda_runtime.h>

__global__ void reduce(const int *in, int *out, int n) {
  __shared__ int part[256];
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  part[threadIdx.x] = i < n ? in[i] : 0;
  __syncthreads();
  for (int s = blockDim.x / 2; s > 0; s >>= 1) {
    if (threadIdx.x < s) part[threadIdx.x] += part[threadIdx.x + s];
    __syncthreads();
  }
  if (threadIdx.x == 0) atomicAdd(out, part[0]);
}

int main() {
  const int n = 1024;
  int *in, *out;
  if (cudaMallocManaged(&in, n * sizeof(int)) != cudaSuccess) return 1;
  if (cudaMallocManaged(&out, sizeof(int)) != cudaSuccess) return 1;
  for (int i = 0; i < n; ++i) in[i] = i + 1;
  *out = 0;
  reduce<<<n / 256, 256>>>(in, out, n);
  if (cudaDeviceSynchronize() != cudaSuccess) return 1;
  printf("sum = %d\n", *out);
  bool ok = *out == n * (n + 1) / 2;
  printf("Result = %s\n", ok ? "PASS" : "FAIL");
  cudaFree(in);
  cudaFree(out);
  return ok ? 0 : 1;
}
