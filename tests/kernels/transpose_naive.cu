// Naive matrix transpose (coalesced reads, strided writes)
// The starting point of the CUDA "optimizing matrix transpose" walkthrough: 32x8 blocks
// each move a 32x32 tile, reading rows of idata (coalesced) and writing columns of odata.
// Consecutive threads write addresses `height` floats (512 bytes) apart, so each store
// request touches 32 sectors. Correct (no races), but a correct tool reports
// uncoalesced(32) for the store on the marked line (the load on that line is coalesced).
//
// warpcheck-launch: --kernel transposeNaive --grid 4,4 --block 32,8 --arg odata=f32[16384] --arg idata=f32[16384]:rand --arg width=128 --arg height=128
// warpcheck-expect: findings

#define TILE_DIM 32
#define BLOCK_ROWS 8

__global__ void transposeNaive(float* odata, const float* idata, int width, int height)
{
    int x = blockIdx.x * TILE_DIM + threadIdx.x;
    int y = blockIdx.y * TILE_DIM + threadIdx.y;

    for (int j = 0; j < TILE_DIM; j += BLOCK_ROWS) {
        odata[x * height + (y + j)] = idata[(y + j) * width + x]; //~ uncoalesced(32)
    }
}
