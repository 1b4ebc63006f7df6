// bar.arrive publishes, bar.sync waits: a producer/consumer pair of warps
// Warp 0 writes a tile and arrives at barrier 1 (bar.arrive 1, 64); warp 1 waits there
// (bar.sync 1, 64) and reads the tile: ordered, no race. Warp 0 then overwrites the tile
// after arriving, while warp 1 may still be reading it: race (the arrive does not wait).
//
// warpcheck-launch: --kernel pipeline --grid 1 --block 64 --arg out=f32[64]
// warpcheck-expect: findings

__global__ void pipeline(float* out)
{
    __shared__ float tile[32];
    int t = threadIdx.x;
    if (t < 32) {
        tile[t] = 2.0f * t;
        asm volatile("bar.arrive 1, 64;" ::: "memory");
        tile[t] = 3.0f * t; //~ shared-race
    } else {
        asm volatile("bar.sync 1, 64;" ::: "memory");
        out[t] = tile[t - 32]; //~ shared-race
    }
}
