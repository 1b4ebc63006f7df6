// Boyer, Skadron, Weimer 2008, Figure 1: neighbour read without synchronisation
// Each thread writes its id to shared memory and then reads the value written by its
// neighbour, (id + 1) % nt, with no __syncthreads() in between. Bug: RAW hazard between
// the store s[id] = id and the load s[(id + 1) % nt] of the neighbouring thread
// (shared-race on both marked lines; across the warp boundary at ids 31/32 and 63/0 even
// under lock-step execution). The paper reports it as "RAW hazard at expression #line 8".
//
// warpcheck-launch: --kernel kernel --grid 1 --block 64 --shared 256 --arg out=i32[64]
// warpcheck-expect: findings

extern __shared__ int s[];

__global__ void kernel(int* out)
{
    int id = threadIdx.x;
    int nt = blockDim.x;

    s[id] = id; //~ shared-race
    out[id] = s[(id + 1) % nt]; //~ shared-race
}
