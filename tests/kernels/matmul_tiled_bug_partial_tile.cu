// Tiled matrix multiplication for N not a multiple of the tile, without zero-filling
// The bounds checks skip the loads that fall outside the 40x40 matrices but never write
// zeros in their place. Bug: in blocks with blockIdx.y == 2, rows 40..47 of As are never
// written, and in blocks with blockIdx.x == 2, columns 40..47 of Bs are never written,
// yet every thread reads all of As[ty][*] and Bs[*][tx] in the inner product (uninit-read
// on shared memory). In-range outputs are also wrong: they add stale tile entries left
// over from the previous iteration (those are initialised, so not an uninit-read).
//
// warpcheck-launch: --kernel matmulTiledPartial --grid 3,3 --block 16,16 --arg A=f32[N*N]:rand --arg B=f32[N*N]:rand --arg C=f32[N*N] --arg N=40
// warpcheck-expect: findings

#define TILE 16

__global__ void matmulTiledPartial(const float* A, const float* B, float* C, int N)
{
    __shared__ float As[TILE][TILE];
    __shared__ float Bs[TILE][TILE];

    int tx = threadIdx.x;
    int ty = threadIdx.y;
    int row = blockIdx.y * TILE + ty;
    int col = blockIdx.x * TILE + tx;
    int numTiles = (N + TILE - 1) / TILE;

    float sum = 0.0f;
    for (int t = 0; t < numTiles; ++t) {
        int aCol = t * TILE + tx;
        int bRow = t * TILE + ty;
        if (row < N && aCol < N) {
            As[ty][tx] = A[row * N + aCol];
        }
        if (bRow < N && col < N) {
            Bs[ty][tx] = B[bRow * N + col];
        }
        __syncthreads();

        for (int k = 0; k < TILE; ++k) {
            sum += As[ty][k] * Bs[k][tx]; //~ uninit-read
        }
        __syncthreads();
    }
    if (row < N && col < N) {
        C[row * N + col] = sum;
    }
}
