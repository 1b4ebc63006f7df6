// Row softmax for rows of 32 values, one warp per row, with __shfl_xor_sync butterflies
// Each lane holds one element; two butterfly all-reductions (max, then sum of exp) give
// every lane the row maximum and normaliser without shared memory, the usual
// numerically stable softmax. 64 rows, 8 warps per block. All global accesses are one
// contiguous 128-byte row per warp. Correct: no findings.
//
// warpcheck-launch: --kernel warpSoftmax --grid 8 --block 256 --arg in=f32[2048]:rand --arg out=f32[2048] --arg numRows=64
// warpcheck-expect: clean

__device__ __forceinline__ float warpAllReduceMax(float v)
{
    for (int mask = 16; mask > 0; mask >>= 1) {
        v = fmaxf(v, __shfl_xor_sync(0xffffffffu, v, mask));
    }
    return v;
}

__device__ __forceinline__ float warpAllReduceSum(float v)
{
    for (int mask = 16; mask > 0; mask >>= 1) {
        v += __shfl_xor_sync(0xffffffffu, v, mask);
    }
    return v;
}

__global__ void warpSoftmax(const float* in, float* out, int numRows)
{
    int row = (blockIdx.x * blockDim.x + threadIdx.x) / 32;
    int lane = threadIdx.x % 32;
    if (row >= numRows) {
        return;
    }
    float x = in[row * 32 + lane];
    float rowMax = warpAllReduceMax(x);
    float e = expf(x - rowMax);
    float rowSum = warpAllReduceSum(e);
    out[row * 32 + lane] = e / rowSum;
}
