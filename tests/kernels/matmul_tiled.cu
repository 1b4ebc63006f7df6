// Tiled matrix multiplication with 16x16 shared-memory tiles
// The classic CUDA C Programming Guide kernel: each block stages a tile of A and a tile
// of B in shared memory, synchronises, accumulates 16 products, and synchronises again
// before the next tiles overwrite the shared arrays. N is a multiple of the tile size.
// As[ty][k] is a broadcast (two words in different banks per warp) and Bs[k][tx] reads 16
// consecutive words twice, so there are no bank conflicts. Correct: no findings.
//
// warpcheck-launch: --kernel matmulTiled --grid 4,4 --block 16,16 --arg A=f32[N*N]:rand --arg B=f32[N*N]:rand --arg C=f32[N*N] --arg N=64
// warpcheck-expect: clean

#define TILE 16

__global__ void matmulTiled(const float* A, const float* B, float* C, int N)
{
    __shared__ float As[TILE][TILE];
    __shared__ float Bs[TILE][TILE];

    int tx = threadIdx.x;
    int ty = threadIdx.y;
    int row = blockIdx.y * TILE + ty;
    int col = blockIdx.x * TILE + tx;

    float sum = 0.0f;
    for (int t = 0; t < N / TILE; ++t) {
        As[ty][tx] = A[row * N + t * TILE + tx];
        Bs[ty][tx] = B[(t * TILE + ty) * N + col];
        __syncthreads();

        for (int k = 0; k < TILE; ++k) {
            sum += As[ty][k] * Bs[k][tx];
        }
        __syncthreads();
    }
    C[row * N + col] = sum;
}
