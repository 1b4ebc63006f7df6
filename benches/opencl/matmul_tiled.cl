// Benchmark (OpenCL C): tiled single-precision matrix multiply C = A * B, 256 x 256 x 256
// The OpenCL counterpart of benches/kernels/sgemm_tiled.cu, at the size Oclgrind's
// reference figure was taken at (issue 3): 16 x 16 work-groups of 16 x 16 work-items.
// Each work-group copies a 16 x 16 tile of A and of B into __local memory, waits at a
// barrier, accumulates 16 products per work-item, and waits again before the next tiles
// overwrite the local arrays. Run by tools/bench.sh oclgrind with warpcheck (the header
// below) and with oclgrind-kernel (matmul_tiled.sim), on the same inputs (all ones, so
// every element of C is 256).
//
// warpcheck-launch: --kernel matmulTiled --grid 16,16 --block 16,16 --arg a=f32[size*size]:fill(1) --arg b=f32[size*size]:fill(1) --arg c=f32[size*size] --arg size=256
// warpcheck-expect: clean

#define TILE_WIDTH 16

__kernel void matmulTiled(__global const float* a, __global const float* b, __global float* c,
                          const int size)
{
    __local float tileA[TILE_WIDTH][TILE_WIDTH];
    __local float tileB[TILE_WIDTH][TILE_WIDTH];

    const int localCol = get_local_id(0);
    const int localRow = get_local_id(1);
    const int row = get_group_id(1) * TILE_WIDTH + localRow;
    const int col = get_group_id(0) * TILE_WIDTH + localCol;

    float acc = 0.0f;
    for (int tileStart = 0; tileStart < size; tileStart += TILE_WIDTH) {
        tileA[localRow][localCol] = a[row * size + tileStart + localCol];
        tileB[localRow][localCol] = b[(tileStart + localRow) * size + col];
        barrier(CLK_LOCAL_MEM_FENCE);
        for (int k = 0; k < TILE_WIDTH; ++k) {
            acc = fma(tileA[localRow][k], tileB[k][localCol], acc);
        }
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    c[row * size + col] = acc;
}
