// Benchmark-style loops. `scale` runs 20 times on the same input: from the third launch
// on each repeats the one before exactly (same arguments and device memory), so 18 are
// reused, not run (one identical-launches note at the loop), and its printf line still
// appears 20 times. `accumulate` adds 1 to its buffer 20 times: device memory differs
// at every launch, so every launch runs and the sum is 20. Then 10 rounds of a memset and
// an accumulation into a second buffer: the launches repeat exactly again, and the reused
// ones must still leave 1 in every element.
//
// warpcheck-stdout: scale ok
// warpcheck-stdout: accumulate 20
// warpcheck-stdout: reset 1
// warpcheck-exit: 0

#include <cstdio>
#include <cuda_runtime.h>

__global__ void scale(const float *in, float *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = 2.0f * in[i];
  if (i == 0) printf("scale launch\n");
}

__global__ void accumulate(int *acc, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) acc[i] += 1;
}

int main() {
  const int n = 256;
  float h[n], r[n];
  for (int i = 0; i < n; ++i) h[i] = (float)i;
  float *in, *out;
  int *acc, *acc2;
  cudaMalloc(&in, sizeof(h));
  cudaMalloc(&out, sizeof(h));
  cudaMalloc(&acc, n * sizeof(int));
  cudaMalloc(&acc2, n * sizeof(int));
  cudaMemcpy(in, h, sizeof(h), cudaMemcpyHostToDevice);
  for (int k = 0; k < 20; ++k)
    scale<<<4, 64>>>(in, out, n); //~ identical-launches
  cudaMemcpy(r, out, sizeof(r), cudaMemcpyDeviceToHost);
  bool ok = true;
  for (int i = 0; i < n; ++i) ok = ok && r[i] == 2.0f * i;
  printf("scale %s\n", ok ? "ok" : "wrong");

  cudaMemset(acc, 0, n * sizeof(int));
  for (int k = 0; k < 20; ++k)
    accumulate<<<4, 64>>>(acc, n);
  int a[n];
  cudaMemcpy(a, acc, sizeof(a), cudaMemcpyDeviceToHost);
  printf("accumulate %d\n", a[0] == 20 && a[n - 1] == 20 ? 20 : -1);

  for (int k = 0; k < 10; ++k) {
    cudaMemset(acc2, 0, n * sizeof(int));
    accumulate<<<4, 64>>>(acc2, n); //~ identical-launches
  }
  cudaMemcpy(a, acc2, sizeof(a), cudaMemcpyDeviceToHost);
  printf("reset %d\n", a[0] == 1 && a[n - 1] == 1 ? 1 : -1);
  cudaFree(in);
  cudaFree(out);
  cudaFree(acc);
  cudaFree(acc2);
  return 0;
}
