// OpenCL tiled matrix multiplication with __local tiles
// The OpenCL form of matmul_tiled.cu: each 16x16 work-group stages tiles of A and B in
// __local memory, with barrier(CLK_LOCAL_MEM_FENCE) after the loads and after the
// inner product. 2D NDRange of 64x64 work-items. Correct: no findings.
//
// warpcheck-launch: --kernel matmulTiled --grid 4,4 --block 16,16 --arg A=f32[N*N]:rand --arg B=f32[N*N]:rand --arg C=f32[N*N] --arg N=64
// warpcheck-expect: clean

#define TILE 16

__kernel void matmulTiled(__global const float* A, __global const float* B, __global float* C, const int N)
{
    __local float As[TILE][TILE];
    __local float Bs[TILE][TILE];

    int tx = get_local_id(0);
    int ty = get_local_id(1);
    int row = get_global_id(1);
    int col = get_global_id(0);

    float sum = 0.0f;
    for (int t = 0; t < N / TILE; ++t) {
        As[ty][tx] = A[row * N + t * TILE + tx];
        Bs[ty][tx] = B[(t * TILE + ty) * N + col];
        barrier(CLK_LOCAL_MEM_FENCE);

        for (int k = 0; k < TILE; ++k) {
            sum += As[ty][k] * Bs[k][tx];
        }
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    C[row * N + col] = sum;
}
