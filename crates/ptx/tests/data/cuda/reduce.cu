#include "common.h"
extern __shared__ float dyn_smem[];
__global__ void __attribute__((launch_bounds(256, 2))) reduceSum(const float *in, float *out, unsigned *counter, int n) {
  __shared__ float tile[256];
  unsigned tid = threadIdx.x;
  unsigned i = blockIdx.x * blockDim.x + tid;
  tile[tid] = i < n ? in[i] : 0.0f;
  dyn_smem[tid] = tile[tid] * 2.0f;
  __syncthreads();
  for (unsigned s = blockDim.x / 2; s > 32; s >>= 1) {
    if (tid < s) tile[tid] += tile[tid + s];
    __syncthreads();
  }
  float v = tile[tid];
  for (int off = 16; off > 0; off /= 2)
    v += __nvvm_shfl_sync_down_f32(0xffffffffu, v, off, 31);
  if (tid == 0) {
    __nvvm_atom_add_gen_f(out, v);
    __nvvm_atom_add_gen_i((int *)counter, 1);
  }
}
