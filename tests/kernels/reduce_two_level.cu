// Two-level reduction: per-block partial sums, then a single-block final pass
// Kernel 1 reduces each block's slice (grid-stride) into partial[blockIdx.x]; kernel 2,
// launched with one block, reduces the 16 partials into result[0]. Both kernels share one
// __device__ block-reduction routine. The kernel boundary orders kernel 1's writes of
// partial[] before kernel 2's reads (the two launch lines share the buffer `partial`).
// Correct: no findings.
//
// warpcheck-launch: --kernel partialSums --grid 16 --block 128 --arg in=f32[n]:rand --arg partial=f32[16] --arg n=20000
// warpcheck-launch: --kernel finalSum --grid 1 --block 128 --arg partial=f32[16] --arg result=f32[1] --arg numPartials=16
// warpcheck-expect: clean

#define BLOCK_SIZE 128

// Sums one value per thread over the block; the result is valid in thread 0.
__device__ float blockReduce(float v)
{
    __shared__ float sdata[BLOCK_SIZE];
    unsigned int tid = threadIdx.x;
    sdata[tid] = v;
    __syncthreads();
    for (unsigned int s = blockDim.x / 2; s > 0; s >>= 1) {
        if (tid < s) {
            sdata[tid] += sdata[tid + s];
        }
        __syncthreads();
    }
    return sdata[0];
}

__global__ void partialSums(const float* in, float* partial, int n)
{
    float sum = 0.0f;
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) {
        sum += in[i];
    }
    float total = blockReduce(sum);
    if (threadIdx.x == 0) {
        partial[blockIdx.x] = total;
    }
}

__global__ void finalSum(const float* partial, float* result, int numPartials)
{
    float v = (threadIdx.x < numPartials) ? partial[threadIdx.x] : 0.0f;
    float total = blockReduce(v);
    if (threadIdx.x == 0) {
        result[0] = total;
    }
}
