// Block reduction with warp shuffles (__shfl_down_sync)
// Grid-stride accumulation, then a register-only butterfly-down reduction inside each
// warp, one shared slot per warp, one barrier, and a final shuffle reduction by warp 0.
// Writes one partial sum per block (no atomics, so the result is deterministic).
// Correct: no findings (shuffles are not memory accesses; warpSums[] is written by lane 0
// of each warp and read after the barrier).
//
// warpcheck-launch: --kernel reduceShfl --grid 4 --block 256 --arg in=f32[n]:rand --arg out=f32[4] --arg n=10000
// warpcheck-expect: clean

__inline__ __device__ float warpReduceSum(float v)
{
    for (int offset = warpSize / 2; offset > 0; offset /= 2) {
        v += __shfl_down_sync(0xffffffffu, v, offset);
    }
    return v;
}

__global__ void reduceShfl(const float* in, float* out, int n)
{
    __shared__ float warpSums[32];

    float sum = 0.0f;
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) {
        sum += in[i];
    }

    int lane = threadIdx.x % warpSize;
    int warp = threadIdx.x / warpSize;

    sum = warpReduceSum(sum);
    if (lane == 0) {
        warpSums[warp] = sum;
    }
    __syncthreads();

    if (warp == 0) {
        sum = (threadIdx.x < blockDim.x / warpSize) ? warpSums[lane] : 0.0f;
        sum = warpReduceSum(sum);
        if (lane == 0) {
            out[blockIdx.x] = sum;
        }
    }
}
