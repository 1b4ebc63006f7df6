// Shared-memory tree reduction with the barrier inside the loop missing
// Same as reduce_shared.cu, but the __syncthreads() at the end of each tree level was
// dropped. Bug: in level s/2, thread t reads sdata[t + s/2], which thread t + s/2 wrote in
// level s with no barrier in between (RAW on shared memory, between warps and, under
// independent thread scheduling, within a warp). Both accesses are on the marked line.
// The barrier after the initial store is still there, so the store is not involved.
//
// warpcheck-launch: --kernel reduceSum --grid 8 --block 256 --arg in=f32[n]:rand --arg partial=f32[8] --arg n=4000
// warpcheck-expect: findings

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
            sdata[tid] += sdata[tid + s]; //~ shared-race
        }
    }

    if (tid == 0) {
        partial[blockIdx.x] = sdata[0];
    }
}
