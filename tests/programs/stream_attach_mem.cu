// Managed memory attached to a stream (cudaStreamAttachMemAsync, as the
// UnifiedMemoryStreams sample does) and the persisting-L2 reset of simpleAttributes: a
// kernel on the stream fills an attached allocation that the host reads after the
// stream's synchronisation. Attaching a pointer that is not the start of a managed
// allocation, a partial length, or bad flags is an API error, as on a GPU.
//
// warpcheck-exit: 1
// warpcheck-stdout: attach = 0, reset = 0
// warpcheck-stdout: sum = 2016
// warpcheck-stdout: device pointer = 1, partial = 1, flags = 1

#include <cstdio>
#include <cuda_runtime.h>

__global__ void fill(int *a, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) a[i] = i;
}

int main() {
  const int n = 64;
  cudaStream_t s;
  cudaStreamCreate(&s);
  int *a, *d;
  cudaMallocManaged(&a, n * sizeof(int));
  cudaMalloc(&d, n * sizeof(int));
  int attach = cudaStreamAttachMemAsync(s, a);
  int reset = cudaCtxResetPersistingL2Cache();
  printf("attach = %d, reset = %d\n", attach, reset);
  fill<<<1, n, 0, s>>>(a, n);
  cudaStreamSynchronize(s);
  int sum = 0;
  for (int i = 0; i < n; ++i) sum += a[i];
  printf("sum = %d\n", sum);
  int bad_ptr = cudaStreamAttachMemAsync(s, d, 0, cudaMemAttachHost); //~ api-error
  int partial = cudaStreamAttachMemAsync(s, a, 4, cudaMemAttachHost); //~ api-error
  int flags = cudaStreamAttachMemAsync(s, a, 0, 3); //~ api-error
  printf("device pointer = %d, partial = %d, flags = %d\n", bad_ptr, partial, flags);
  cudaFree(a);
  cudaFree(d);
  cudaStreamDestroy(s);
  return 0;
}
