// Memory the program allocated itself, page-locked with cudaHostRegister (as NVIDIA's
// simpleStreams sample does with cudaHostRegisterMapped) and used as the destination of
// cudaMemcpyAsync; cudaPointerGetAttributes sees pinned host memory; cudaHostUnregister
// releases it. Planted bugs: registering an overlapping range again fails with
// cudaErrorHostMemoryAlreadyRegistered, and unregistering it twice with
// cudaErrorHostMemoryNotRegistered; each is an api-error at its call. The program checks
// both error codes and its data itself.
//
// warpcheck-exit: 1
// warpcheck-stdout: registered: pinned host memory
// warpcheck-stdout: copies into registered memory: PASS

#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>

__global__ void iota(int *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = 3 * i;
}

int main() {
  const int n = 1 << 16;
  const size_t bytes = n * sizeof(int);
  void *raw = nullptr;
  if (posix_memalign(&raw, 4096, bytes) != 0) return 2;
  int *host = (int *)raw;
  if (cudaHostRegister(host, bytes, cudaHostRegisterMapped) != cudaSuccess) return 3;
  cudaPointerAttributes attr;
  if (cudaPointerGetAttributes(&attr, host + 10) == cudaSuccess && attr.type == cudaMemoryTypeHost)
    printf("registered: pinned host memory\n");
  cudaError_t again = cudaHostRegister(host + 1024, 4096, cudaHostRegisterDefault); //~ api-error
  int *d = nullptr;
  cudaMalloc(&d, bytes);
  cudaStream_t s;
  cudaStreamCreate(&s);
  iota<<<n / 256, 256, 0, s>>>(d, n);
  cudaMemcpyAsync(host, d, bytes, cudaMemcpyDeviceToHost, s);
  cudaStreamSynchronize(s);
  bool ok = again == cudaErrorHostMemoryAlreadyRegistered;
  for (int i = 0; i < n; i++) ok = ok && host[i] == 3 * i;
  if (cudaHostUnregister(host) != cudaSuccess) return 4;
  cudaError_t twice = cudaHostUnregister(host); //~ api-error
  ok = ok && twice == cudaErrorHostMemoryNotRegistered;
  printf("copies into registered memory: %s\n", ok ? "PASS" : "FAIL");
  cudaStreamDestroy(s);
  cudaFree(d);
  free(raw);
  return ok ? 0 : 1;
}
