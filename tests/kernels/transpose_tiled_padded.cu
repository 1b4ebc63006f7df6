// Tiled matrix transpose with a padded [32][33] shared tile
// Same as transpose_tiled.cu, but each tile row has one extra word, so the column read
// tile[threadIdx.x][threadIdx.y + j] has a 33-word stride and the 32 lanes fall into 32
// different banks. Global loads and stores are both coalesced rows.
// Correct: no findings.
//
// warpcheck-launch: --kernel transposePadded --grid 4,4 --block 32,8 --arg odata=f32[16384] --arg idata=f32[16384]:rand --arg width=128 --arg height=128
// warpcheck-expect: clean

#define TILE_DIM 32
#define BLOCK_ROWS 8

__global__ void transposePadded(float* odata, const float* idata, int width, int height)
{
    __shared__ float tile[TILE_DIM][TILE_DIM + 1];

    int x = blockIdx.x * TILE_DIM + threadIdx.x;
    int y = blockIdx.y * TILE_DIM + threadIdx.y;
    for (int j = 0; j < TILE_DIM; j += BLOCK_ROWS) {
        tile[threadIdx.y + j][threadIdx.x] = idata[(y + j) * width + x];
    }

    __syncthreads();

    x = blockIdx.y * TILE_DIM + threadIdx.x;
    y = blockIdx.x * TILE_DIM + threadIdx.y;
    for (int j = 0; j < TILE_DIM; j += BLOCK_ROWS) {
        odata[(y + j) * height + x] = tile[threadIdx.x][threadIdx.y + j];
    }
}
