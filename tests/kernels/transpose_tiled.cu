// Tiled matrix transpose through a 32x32 shared tile (no padding)
// Reads a 32x32 tile with coalesced row loads into tile[][], then writes the transposed
// tile with coalesced row stores by reading tile[] column-wise. The column read
// tile[threadIdx.x][threadIdx.y + j] has a 32-word stride: all 32 lanes hit the same bank
// at 32 distinct words. Correct (the barrier orders the tile writes and reads), but a
// correct tool reports bank-conflict(32) for the shared load on the marked line.
//
// warpcheck-launch: --kernel transposeTiled --grid 4,4 --block 32,8 --arg odata=f32[16384] --arg idata=f32[16384]:rand --arg width=128 --arg height=128
// warpcheck-expect: findings

#define TILE_DIM 32
#define BLOCK_ROWS 8

__global__ void transposeTiled(float* odata, const float* idata, int width, int height)
{
    __shared__ float tile[TILE_DIM][TILE_DIM];

    int x = blockIdx.x * TILE_DIM + threadIdx.x;
    int y = blockIdx.y * TILE_DIM + threadIdx.y;
    for (int j = 0; j < TILE_DIM; j += BLOCK_ROWS) {
        tile[threadIdx.y + j][threadIdx.x] = idata[(y + j) * width + x];
    }

    __syncthreads();

    x = blockIdx.y * TILE_DIM + threadIdx.x;
    y = blockIdx.x * TILE_DIM + threadIdx.y;
    for (int j = 0; j < TILE_DIM; j += BLOCK_ROWS) {
        odata[(y + j) * height + x] = tile[threadIdx.x][threadIdx.y + j]; //~ bank-conflict(32)
    }
}
