// Benchmark: sum of 16M floats by a tree reduction in shared memory, one partial per block
// 65,536 blocks of 256 threads. Each thread stores one element in shared memory; the block
// then halves the number of active threads each step (sequential addressing: thread t adds
// element t + stride to element t, stride = 128, 64, ..., 1) with a __syncthreads() after
// every step, and thread 0 writes the block's partial sum. The host (or a second launch)
// would add the 65,536 partials. Exercises barriers and divergence (fewer active lanes
// every step).
//
// warpcheck-launch: --kernel reduceTree --grid 65536 --block 256 --arg input=f32[count]:rand --arg partials=f32[65536] --arg count=16777216
// warpcheck-expect: clean

#define BLOCK_SIZE 256

__global__ void reduceTree(const float* input, float* partials, int count)
{
    __shared__ float values[BLOCK_SIZE];

    const unsigned int t = threadIdx.x;
    const unsigned int i = blockIdx.x * BLOCK_SIZE + t;
    values[t] = (i < count) ? input[i] : 0.0f;
    __syncthreads();

    for (unsigned int stride = BLOCK_SIZE / 2; stride > 0; stride >>= 1) {
        if (t < stride) {
            values[t] += values[t + stride];
        }
        __syncthreads();
    }

    if (t == 0) {
        partials[blockIdx.x] = values[0];
    }
}
