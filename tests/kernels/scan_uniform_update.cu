// Uniform update of a multi-block scan (NVIDIA scan sample's `uniformUpdate` pattern)
// Thread 0 of each block reads the block's offset into a __shared__ variable, a barrier
// follows, then every thread adds it to four elements. Correct: no findings. clang 14 and
// 15 at -O3 hoist the shared load above `__syncthreads()` when the barrier is not also a
// compiler barrier for memory (LLVM issue 58626), which made this kernel look racy.
//
// warpcheck-launch: --kernel uniformUpdate --grid 4 --block 256 --arg d_Data=u32[4096]:iota --arg d_Buffer=u32[4]:iota
// warpcheck-expect: clean

typedef unsigned int uint;

__global__ void uniformUpdate(uint4 *d_Data, uint *d_Buffer) {
  __shared__ uint buf;
  uint pos = blockIdx.x * blockDim.x + threadIdx.x;
  if (threadIdx.x == 0) {
    buf = d_Buffer[blockIdx.x];
  }
  __syncthreads();
  uint4 data4 = d_Data[pos];
  data4.x += buf;
  data4.y += buf;
  data4.z += buf;
  data4.w += buf;
  d_Data[pos] = data4;
}
