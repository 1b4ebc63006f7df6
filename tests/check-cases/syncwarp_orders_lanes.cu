// __syncwarp() orders the lanes of a warp; without it they race (independent scheduling)
// Lanes exchange values through shared memory within one warp: first with a __syncwarp()
// between the write and the read (correct), then a second exchange without it (race).
//
// warpcheck-launch: --kernel exchange --grid 1 --block 32 --arg out=i32[64]
// warpcheck-expect: findings

__global__ void exchange(int* out)
{
    __shared__ int s[32];
    __shared__ int u[32];
    int t = threadIdx.x;
    s[t] = t * 3;
    __syncwarp();
    out[t] = s[(t + 1) % 32];
    u[t] = t * 5; //~ shared-race
    out[32 + t] = u[(t + 1) % 32]; //~ shared-race
}
