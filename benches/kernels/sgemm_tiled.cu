// Benchmark: single-precision matrix multiply C = A * B, 1024 x 1024 x 1024
// Square row-major matrices; each 16x16 thread block computes one 16x16 tile of C by
// walking the shared dimension one tile at a time: it copies a tile of A and a tile of B
// into shared memory, waits for the whole block, does 16 multiply-adds per thread from
// shared memory, and waits again before the tiles are overwritten. 64 x 64 blocks,
// 4.3e9 lane-instructions at clang -O3. The size must be a multiple of the tile width.
//
// warpcheck-launch: --kernel sgemmTiled --grid 64,64 --block 16,16 --arg a=f32[size*size]:rand --arg b=f32[size*size]:rand --arg c=f32[size*size] --arg size=1024
// warpcheck-expect: clean

#define TILE_WIDTH 16

__global__ void sgemmTiled(const float* a, const float* b, float* c, int size)
{
    __shared__ float tileA[TILE_WIDTH][TILE_WIDTH];
    __shared__ float tileB[TILE_WIDTH][TILE_WIDTH];

    const int localCol = threadIdx.x;
    const int localRow = threadIdx.y;
    const int row = blockIdx.y * TILE_WIDTH + localRow;
    const int col = blockIdx.x * TILE_WIDTH + localCol;

    float acc = 0.0f;
    for (int tileStart = 0; tileStart < size; tileStart += TILE_WIDTH) {
        tileA[localRow][localCol] = a[row * size + tileStart + localCol];
        tileB[localRow][localCol] = b[(tileStart + localRow) * size + col];
        __syncthreads();
#pragma unroll
        for (int k = 0; k < TILE_WIDTH; ++k) {
            acc = fmaf(tileA[localRow][k], tileB[k][localCol], acc);
        }
        __syncthreads();
    }
    c[row * size + col] = acc;
}
