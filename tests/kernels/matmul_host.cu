// Tiled matrix multiplication as a whole program with a host reference check
// Host code allocates and fills A and B, launches the 16x16-tiled kernel on a dim3 grid,
// copies C back and compares it with a CPU triple loop; it also uses cudaMemset and CUDA
// events. The launch line matches main() (N = 128, grid 8x8, block 16x16); the tool
// fills A and B itself. Tests front-end support for dim3 launches and the event API.
// Correct: no findings.
//
// warpcheck-launch: --kernel matmulTiled --grid 8,8 --block 16,16 --arg A=f32[N*N]:rand --arg B=f32[N*N]:rand --arg C=f32[N*N] --arg N=128
// warpcheck-expect: clean

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <vector>
#include <cuda_runtime.h>

#define TILE 16

#define CUDA_CHECK(call)                                                                  \
    do {                                                                                  \
        cudaError_t status = (call);                                                      \
        if (status != cudaSuccess) {                                                      \
            fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__, cudaGetErrorString(status)); \
            exit(1);                                                                      \
        }                                                                                 \
    } while (0)

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

static void matmulReference(const std::vector<float>& A, const std::vector<float>& B,
                            std::vector<float>& C, int N)
{
    for (int i = 0; i < N; ++i) {
        for (int j = 0; j < N; ++j) {
            double sum = 0.0;
            for (int k = 0; k < N; ++k) {
                sum += (double)A[i * N + k] * B[k * N + j];
            }
            C[i * N + j] = (float)sum;
        }
    }
}

int main()
{
    const int N = 128;
    const size_t bytes = (size_t)N * N * sizeof(float);

    std::vector<float> hA(N * N), hB(N * N), hC(N * N), ref(N * N);
    srand(42);
    for (int i = 0; i < N * N; ++i) {
        hA[i] = (float)((double)rand() / RAND_MAX);
        hB[i] = (float)((double)rand() / RAND_MAX);
    }

    float *dA, *dB, *dC;
    CUDA_CHECK(cudaMalloc(&dA, bytes));
    CUDA_CHECK(cudaMalloc(&dB, bytes));
    CUDA_CHECK(cudaMalloc(&dC, bytes));
    CUDA_CHECK(cudaMemcpy(dA, hA.data(), bytes, cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaMemcpy(dB, hB.data(), bytes, cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaMemset(dC, 0, bytes));

    cudaEvent_t start, stop;
    CUDA_CHECK(cudaEventCreate(&start));
    CUDA_CHECK(cudaEventCreate(&stop));

    dim3 block(TILE, TILE);
    dim3 grid(N / TILE, N / TILE);
    CUDA_CHECK(cudaEventRecord(start));
    matmulTiled<<<grid, block>>>(dA, dB, dC, N);
    CUDA_CHECK(cudaEventRecord(stop));
    CUDA_CHECK(cudaGetLastError());
    CUDA_CHECK(cudaEventSynchronize(stop));
    float ms = 0.0f;
    CUDA_CHECK(cudaEventElapsedTime(&ms, start, stop));

    CUDA_CHECK(cudaMemcpy(hC.data(), dC, bytes, cudaMemcpyDeviceToHost));
    matmulReference(hA, hB, ref, N);

    double maxErr = 0.0;
    for (int i = 0; i < N * N; ++i) {
        maxErr = fmax(maxErr, fabs((double)hC[i] - ref[i]));
    }
    printf("N=%d time=%.3f ms max abs error=%g\n", N, ms, maxErr);

    CUDA_CHECK(cudaEventDestroy(start));
    CUDA_CHECK(cudaEventDestroy(stop));
    CUDA_CHECK(cudaFree(dA));
    CUDA_CHECK(cudaFree(dB));
    CUDA_CHECK(cudaFree(dC));
    return maxErr < 1e-3 ? 0 : 1;
}
