// Warp-synchronous reduction tail without volatile or __syncwarp() (sm_70+ race)
// The pre-Volta idiom: once 64 partial sums are left, warp 0 finishes without barriers.
// Since Volta (independent thread scheduling) the lanes of a warp are not in lock-step,
// and without volatile the compiler may keep sdata[tid] in a register. Bug: in step s,
// lane t reads sdata[t + s] while lane t + s writes it (WAR), and after lane t + s wrote
// it in step 2s (RAW), with no __syncwarp(): shared-race, all on the marked line. Markers
// assume independent thread scheduling (sm_80); lock-step execution has no race.
//
// warpcheck-launch: --kernel reduceWarpSync --grid 4 --block 128 --arg in=f32[n]:rand --arg out=f32[4] --arg n=512
// warpcheck-expect: findings

#define BLOCK_SIZE 128

__global__ void reduceWarpSync(const float* in, float* out, int n)
{
    __shared__ float sdata[BLOCK_SIZE];

    unsigned int tid = threadIdx.x;
    unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
    sdata[tid] = (i < n) ? in[i] : 0.0f;
    __syncthreads();

    for (unsigned int s = blockDim.x / 2; s > 32; s >>= 1) {
        if (tid < s) {
            sdata[tid] += sdata[tid + s];
        }
        __syncthreads();
    }

    if (tid < 32) {
        for (unsigned int s = 32; s > 0; s >>= 1) {
            sdata[tid] += sdata[tid + s]; //~ shared-race
        }
    }

    if (tid == 0) {
        out[blockIdx.x] = sdata[0];
    }
}
