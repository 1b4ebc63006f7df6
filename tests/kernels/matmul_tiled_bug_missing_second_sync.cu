// Tiled matrix multiplication missing the barrier after the inner product
// Same as matmul_tiled.cu without the second __syncthreads(). Bug: a fast warp starts the
// next iteration and overwrites As[][] and Bs[][] while slower warps of the block are still
// reading the previous tiles in the k-loop (WAR on shared memory, between different warps
// of a block). The two tile stores and the inner-product line are marked.
//
// warpcheck-launch: --kernel matmulTiled --grid 4,4 --block 16,16 --arg A=f32[N*N]:rand --arg B=f32[N*N]:rand --arg C=f32[N*N] --arg N=64
// warpcheck-expect: findings

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
        As[ty][tx] = A[row * N + t * TILE + tx]; //~ shared-race
        Bs[ty][tx] = B[(t * TILE + ty) * N + col]; //~ shared-race
        __syncthreads();

        for (int k = 0; k < TILE; ++k) {
            sum += As[ty][k] * Bs[k][tx]; //~ shared-race
        }
    }
    C[row * N + col] = sum;
}
