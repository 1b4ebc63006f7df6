// Planted bug: the input buffer is allocated but only its first half is copied from the
// host; the kernel reads all of it. Must report uninit-read at the kernel's load, naming
// the launch and its line.
//
// warpcheck-exit: 1

#include <cuda_runtime.h>

__global__ void twice(const float *in, float *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = 2 * in[i]; //~ uninit-read
}

int main() {
  const int n = 512;
  float h[n];
  for (int i = 0; i < n; ++i) h[i] = i;
  float *in, *out;
  cudaMalloc(&in, n * sizeof(float));
  cudaMalloc(&out, n * sizeof(float));
  cudaMemcpy(in, h, n / 2 * sizeof(float), cudaMemcpyHostToDevice);
  twice<<<n / 128, 128>>>(in, out, n); //~ launch
  cudaMemcpy(h, out, n * sizeof(float), cudaMemcpyDeviceToHost);
  cudaFree(in);
  cudaFree(out);
  return 0;
}
