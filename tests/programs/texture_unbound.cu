// Planted bug: the kernel fetches through a texture reference that the program unbound
// before the launch. Must report unbound-texture at the fetch, naming the launch.
//
// warpcheck-exit: 1
// warpcheck-nvcc: skip (texture references were removed in CUDA 12: nvcc 12 and 13 reject them)

#include <cuda_runtime.h>

texture<float, 1, cudaReadModeElementType> t_in;

__global__ void copy(float *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = tex1Dfetch(t_in, i); //~ unbound-texture
}

int main() {
  const int n = 256;
  float *in, *out;
  cudaMalloc(&in, n * sizeof(float));
  cudaMalloc(&out, n * sizeof(float));
  cudaMemset(in, 0, n * sizeof(float));
  cudaBindTexture(0, t_in, in, n * sizeof(float));
  cudaUnbindTexture(t_in);
  copy<<<n / 128, 128>>>(out, n); //~ launch
  cudaDeviceSynchronize();
  cudaFree(in);
  cudaFree(out);
  return 0;
}
