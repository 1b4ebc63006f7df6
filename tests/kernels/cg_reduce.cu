// Block reduction with cooperative groups: thread_block and tiled_partition<32>
// Uses cooperative_groups: this_thread_block(), tiled_partition<32>(block), tile.shfl_down,
// tile.thread_rank(), tile.meta_group_rank() and block.sync(). Each 32-thread tile reduces
// in registers, one value per tile goes through shared memory, and tile 0 finishes; one
// partial sum per block is written (deterministic). Correct: no findings.
//
// warpcheck-launch: --kernel cgReduce --grid 4 --block 256 --arg in=f32[n]:rand --arg out=f32[4] --arg n=3000
// warpcheck-expect: clean

#include <cooperative_groups.h>

namespace cg = cooperative_groups;

__device__ float tileSum(cg::thread_block_tile<32> tile, float v)
{
    for (int offset = tile.size() / 2; offset > 0; offset /= 2) {
        v += tile.shfl_down(v, offset);
    }
    return v;
}

__global__ void cgReduce(const float* in, float* out, int n)
{
    __shared__ float tileSums[32];

    cg::thread_block block = cg::this_thread_block();
    cg::thread_block_tile<32> tile = cg::tiled_partition<32>(block);

    float v = 0.0f;
    for (int i = blockIdx.x * blockDim.x + block.thread_rank(); i < n; i += blockDim.x * gridDim.x) {
        v += in[i];
    }

    v = tileSum(tile, v);
    if (tile.thread_rank() == 0) {
        tileSums[tile.meta_group_rank()] = v;
    }
    block.sync();

    if (tile.meta_group_rank() == 0) {
        unsigned int numTiles = block.size() / 32;
        v = (tile.thread_rank() < numTiles) ? tileSums[tile.thread_rank()] : 0.0f;
        v = tileSum(tile, v);
        if (tile.thread_rank() == 0) {
            out[blockIdx.x] = v;
        }
    }
}
