// Naive matrix multiplication, one thread per output element (2D grid of 16x16 blocks)
// C = A * B for square N x N row-major matrices; each thread walks a row of A and a
// column of B straight from global memory. A warp covers two rows of 16 columns: B and C
// accesses are contiguous 64-byte runs, and A[row * N + k] is a 2-address broadcast, so
// no access exceeds the coalescing threshold. Slow (no reuse), but correct: no findings.
//
// warpcheck-launch: --kernel matmulNaive --grid 4,4 --block 16,16 --arg A=f32[N*N]:rand --arg B=f32[N*N]:rand --arg C=f32[N*N] --arg N=64
// warpcheck-expect: clean

__global__ void matmulNaive(const float* A, const float* B, float* C, int N)
{
    int row = blockIdx.y * blockDim.y + threadIdx.y;
    int col = blockIdx.x * blockDim.x + threadIdx.x;
    if (row < N && col < N) {
        float sum = 0.0f;
        for (int k = 0; k < N; ++k) {
            sum += A[row * N + k] * B[k * N + col];
        }
        C[row * N + col] = sum;
    }
}
