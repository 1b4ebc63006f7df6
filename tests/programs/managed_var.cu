// __managed__ variables read and written by host code and kernels: an initialised
// counter that the host changes before a launch and reads after it, an array the kernel
// fills and the host sums, and cudaMemcpyFromSymbol/ToSymbol on a managed variable.
// Clean: no finding.
//
// warpcheck-exit: 0
// warpcheck-stdout: counter before = 7
// warpcheck-stdout: counter after = 1034
// warpcheck-stdout: squares sum = 10416
// warpcheck-stdout: from symbol = 1034, after to symbol = 5
// warpcheck-stdout: Result = PASS

#include <cstdio>
#include <cuda_runtime.h>

__managed__ int counter = 7;
__managed__ int squares[32];

__global__ void count(int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) atomicAdd(&counter, 1);
  if (i < 32) squares[i] = i * i;
}

__global__ void add_counter(int *out) { *out = counter; }

int main() {
  printf("counter before = %d\n", counter);
  counter += 3;
  count<<<4, 256>>>(1024);
  if (cudaDeviceSynchronize() != cudaSuccess) return 1;
  printf("counter after = %d\n", counter);
  int sum = 0;
  for (int i = 0; i < 32; ++i) sum += squares[i];
  printf("squares sum = %d\n", sum);
  int from = 0;
  if (cudaMemcpyFromSymbol(&from, counter, sizeof(int)) != cudaSuccess) return 1;
  int five = 5;
  if (cudaMemcpyToSymbol(counter, &five, sizeof(int)) != cudaSuccess) return 1;
  printf("from symbol = %d, after to symbol = %d\n", from, counter);
  int *d_out;
  if (cudaMalloc(&d_out, sizeof(int)) != cudaSuccess) return 1;
  add_counter<<<1, 1>>>(d_out);
  int seen = 0;
  if (cudaMemcpy(&seen, d_out, sizeof(int), cudaMemcpyDeviceToHost) != cudaSuccess) return 1;
  cudaFree(d_out);
  bool ok = counter == 5 && seen == 5 && from == 1034 && sum == 10416;
  printf("Result = %s\n", ok ? "PASS" : "FAIL");
  return ok ? 0 : 1;
}
