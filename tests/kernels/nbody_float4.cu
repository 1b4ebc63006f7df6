// All-pairs n-body accelerations with float4 bodies and shared-memory tiles (GPU Gems 3)
// Bodies are float4 (x, y, z, mass). Each block stages 128 bodies at a time in shared
// memory and every thread accumulates the softened gravitational acceleration of its own
// body from the tile. The 16-byte shared stores are contiguous per quarter-warp and the
// tile reads shPos[j] are broadcasts; float4 global loads use 16 sectors per request,
// the minimum for 512 bytes. Buffers are f32 with 4 floats per body. Correct: no findings.
//
// warpcheck-launch: --kernel nbodyForces --grid 4 --block 128 --arg pos=f32[2048]:rand --arg accel=f32[2048] --arg n=512
// warpcheck-expect: clean

#define TILE_SIZE 128
#define SOFTENING2 0.01f

__device__ float3 bodyBodyInteraction(float4 bi, float4 bj, float3 ai)
{
    float3 r;
    r.x = bj.x - bi.x;
    r.y = bj.y - bi.y;
    r.z = bj.z - bi.z;
    float distSqr = r.x * r.x + r.y * r.y + r.z * r.z + SOFTENING2;
    float invDist = rsqrtf(distSqr);
    float invDist3 = invDist * invDist * invDist;
    float s = bj.w * invDist3;
    ai.x += r.x * s;
    ai.y += r.y * s;
    ai.z += r.z * s;
    return ai;
}

__global__ void nbodyForces(const float4* pos, float4* accel, int n)
{
    __shared__ float4 shPos[TILE_SIZE];

    int i = blockIdx.x * blockDim.x + threadIdx.x;
    float4 myPos = pos[i];
    float3 acc = make_float3(0.0f, 0.0f, 0.0f);

    for (int tile = 0; tile < n / TILE_SIZE; ++tile) {
        shPos[threadIdx.x] = pos[tile * TILE_SIZE + threadIdx.x];
        __syncthreads();
        for (int j = 0; j < TILE_SIZE; ++j) {
            acc = bodyBodyInteraction(myPos, shPos[j], acc);
        }
        __syncthreads();
    }
    accel[i] = make_float4(acc.x, acc.y, acc.z, 0.0f);
}
