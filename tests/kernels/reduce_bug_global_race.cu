// Block reduction whose blocks all accumulate into out[0] without atomics
// Each block correctly reduces its 256 elements in shared memory, but then thread 0 of
// every block does `out[0] += sdata[0]`, a plain read-modify-write of one global word.
// Bug: inter-block global race on out[0] (RAW and WAW between the 8 blocks' thread 0);
// the load and the store are both on the marked line. The fix is atomicAdd or a second
// reduction pass (see reduce_two_level.cu).
//
// warpcheck-launch: --kernel sumAllBlocks --grid 8 --block 256 --arg in=f32[n]:rand --arg out=f32[1]:zeros --arg n=2048
// warpcheck-expect: findings

#define BLOCK_SIZE 256

__global__ void sumAllBlocks(const float* in, float* out, int n)
{
    __shared__ float sdata[BLOCK_SIZE];

    unsigned int tid = threadIdx.x;
    unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
    sdata[tid] = (i < n) ? in[i] : 0.0f;
    __syncthreads();

    for (unsigned int s = blockDim.x / 2; s > 0; s >>= 1) {
        if (tid < s) {
            sdata[tid] += sdata[tid + s];
        }
        __syncthreads();
    }

    if (tid == 0) {
        out[0] += sdata[0]; //~ global-race
    }
}
