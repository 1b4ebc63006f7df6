// A named barrier with a thread count orders only the warps that take part
// Warps 0 and 1 hand data over through barrier 1 with a count of 64 (bar.sync 1, 64):
// ordered. Warp 2 reads the same data without taking part in that barrier: race.
//
// warpcheck-launch: --kernel handoff --grid 1 --block 96 --arg out=f32[96]
// warpcheck-expect: findings

__device__ __forceinline__ void namedBarrier(int id, int count)
{
    asm volatile("bar.sync %0, %1;" ::"r"(id), "r"(count) : "memory");
}

__global__ void handoff(float* out)
{
    __shared__ float s[32];
    int t = threadIdx.x;
    if (t < 32) {
        s[t] = 1.5f * t; //~ shared-race
    }
    if (t < 64) {
        namedBarrier(1, 64);
        out[t] = s[t % 32];
    } else {
        out[t] = 2.0f * s[(t + 5) % 32]; //~ shared-race
    }
}
