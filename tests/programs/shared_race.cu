// Planted bug: a block-wide shift through shared memory without a __syncthreads()
// between the write and the neighbour's read. Must report shared-race (the read and the
// write), with the launch. The kernel runs twice: one merged finding.
//
// warpcheck-exit: 1

#include <cuda_runtime.h>

__global__ void shift(const int *in, int *out) {
  __shared__ int tile[128];
  int t = threadIdx.x;
  tile[t] = in[blockIdx.x * 128 + t]; //~ shared-race
  out[blockIdx.x * 128 + t] = tile[(t + 1) % 128]; //~ shared-race
}

int main() {
  int h[256];
  for (int i = 0; i < 256; ++i) h[i] = i;
  int *in, *out;
  cudaMalloc(&in, sizeof(h));
  cudaMalloc(&out, sizeof(h));
  cudaMemcpy(in, h, sizeof(h), cudaMemcpyHostToDevice);
  for (int k = 0; k < 2; ++k)
    shift<<<2, 128>>>(in, out); //~ launch
  cudaMemcpy(h, out, sizeof(h), cudaMemcpyDeviceToHost);
  cudaFree(in);
  cudaFree(out);
  return 0;
}
