// Shared-memory tree reduction (sequential addressing, first add during load)
// Each block sums 2*blockDim.x inputs: every thread adds two elements while loading, then
// a halving tree in shared memory with a __syncthreads() after every level; thread 0
// writes the block's partial sum. Sequential addressing (sdata[tid + s]) keeps the active
// threads contiguous, so there are no bank conflicts and no divergence inside full warps.
// Correct: no findings.
//
// warpcheck-launch: --kernel reduceSum --grid 8 --block 256 --arg in=f32[n]:rand --arg partial=f32[8] --arg n=4000
// warpcheck-expect: clean

#define BLOCK_SIZE 256

__global__ void reduceSum(const float* in, float* partial, int n)
{
    __shared__ float sdata[BLOCK_SIZE];

    unsigned int tid = threadIdx.x;
    unsigned int i = blockIdx.x * (blockDim.x * 2) + threadIdx.x;

    float v = 0.0f;
    if (i < n) {
        v = in[i];
    }
    if (i + blockDim.x < n) {
        v += in[i + blockDim.x];
    }
    sdata[tid] = v;
    __syncthreads();

    for (unsigned int s = blockDim.x / 2; s > 0; s >>= 1) {
        if (tid < s) {
            sdata[tid] += sdata[tid + s];
        }
        __syncthreads();
    }

    if (tid == 0) {
        partial[blockIdx.x] = sdata[0];
    }
}
