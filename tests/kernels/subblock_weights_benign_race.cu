// Sub-blocks that all cache the same weights with no barrier between them (benign by value)
// As in llm.c's fused_residual_forward kernel 6, each block has blockDim.z sub-blocks
// (32x1x4 threads, one warp each) that all copy the same 64 weights into shared memory
// before any barrier, as float4 (a vector store) and as floats, and every block also
// caches them in global memory. Nothing orders the sub-blocks' writes, nor the blocks':
// they race, but at each location every racing write stores the value already written
// there (different locations get different values): benign-race warnings on the three
// marked lines of cacheWeights. cacheWeightsOneDiffers is the same copy where sub-block 1
// stores 0 at s_w[5] and block 2 stores -1 at cache[3]: those locations receive two
// different values, a shared-race and a global-race (within its blocks the cache writes
// agree; between blocks they do not).
//
// warpcheck-launch: --kernel cacheWeights --grid 4 --block 32,1,4 --arg w=f32[64]:rand --arg cache=f32[64] --arg out=f32[512]
// warpcheck-launch: --kernel cacheWeightsOneDiffers --grid 4 --block 32,1,4 --arg w=f32[64]:rand --arg cache=f32[64] --arg out=f32[512]
// warpcheck-expect: findings

#define WEIGHTS 64

__device__ void useWeights(const float* s_w, const float4* s_w4, float* out)
{
    int tid = (threadIdx.z * blockDim.y + threadIdx.y) * blockDim.x + threadIdx.x;
    int g = blockIdx.x * blockDim.x * blockDim.y * blockDim.z + tid;
    out[g] = s_w[tid % WEIGHTS] + s_w4[(tid / 4) % (WEIGHTS / 4)].y;
}

__global__ void cacheWeights(const float* w, float* cache, float* out)
{
    __shared__ float4 s_w4[WEIGHTS / 4];
    __shared__ float s_w[WEIGHTS];
    int t = threadIdx.x;
    if (t < WEIGHTS / 4) {
        s_w4[t] = reinterpret_cast<const float4*>(w)[t]; //~ benign-race
    }
    for (int i = t; i < WEIGHTS; i += 32) {
        s_w[i] = w[i]; //~ benign-race
        cache[i] = w[i]; //~ benign-race
    }
    __syncthreads();
    useWeights(s_w, s_w4, out);
}

__global__ void cacheWeightsOneDiffers(const float* w, float* cache, float* out)
{
    __shared__ float4 s_w4[WEIGHTS / 4];
    __shared__ float s_w[WEIGHTS];
    int t = threadIdx.x;
    if (t < WEIGHTS / 4) {
        s_w4[t] = reinterpret_cast<const float4*>(w)[t]; //~ benign-race
    }
    for (int i = t; i < WEIGHTS; i += 32) {
        s_w[i] = (threadIdx.z == 1 && i == 5) ? 0.0f : w[i]; //~ shared-race
        cache[i] = (blockIdx.x == 2 && i == 3) ? -1.0f : w[i]; //~ global-race
    }
    __syncthreads();
    useWeights(s_w, s_w4, out);
}
