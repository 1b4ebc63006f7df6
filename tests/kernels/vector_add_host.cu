// Vector addition as a whole program (host code, cudaMalloc, cudaMemcpy, <<<>>>)
// Tests that the front end accepts a complete .cu file with a host main(): error-checking
// macro, host allocation, copies in both directions and a kernel launch. The launch line
// describes the same configuration as main() (n = 50000, 196 blocks of 256 threads); the
// tool fills the inputs itself instead of running main(). Correct: no findings.
//
// warpcheck-launch: --kernel vecAdd --grid 196 --block 256 --arg a=f32[n]:rand --arg b=f32[n]:rand --arg c=f32[n] --arg n=50000
// warpcheck-expect: clean

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>

#define CUDA_CHECK(call)                                                        \
    do {                                                                        \
        cudaError_t err_ = (call);                                              \
        if (err_ != cudaSuccess) {                                              \
            fprintf(stderr, "%s:%d: CUDA error: %s\n", __FILE__, __LINE__,      \
                    cudaGetErrorString(err_));                                  \
            exit(EXIT_FAILURE);                                                 \
        }                                                                       \
    } while (0)

__global__ void vecAdd(const float* a, const float* b, float* c, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        c[i] = a[i] + b[i];
    }
}

int main()
{
    const int n = 50000;
    const size_t bytes = n * sizeof(float);

    float* h_a = (float*)malloc(bytes);
    float* h_b = (float*)malloc(bytes);
    float* h_c = (float*)malloc(bytes);
    if (!h_a || !h_b || !h_c) {
        fprintf(stderr, "host allocation failed\n");
        return EXIT_FAILURE;
    }
    for (int i = 0; i < n; ++i) {
        h_a[i] = sinf((float)i) * sinf((float)i);
        h_b[i] = cosf((float)i) * cosf((float)i);
    }

    float *d_a, *d_b, *d_c;
    CUDA_CHECK(cudaMalloc(&d_a, bytes));
    CUDA_CHECK(cudaMalloc(&d_b, bytes));
    CUDA_CHECK(cudaMalloc(&d_c, bytes));
    CUDA_CHECK(cudaMemcpy(d_a, h_a, bytes, cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaMemcpy(d_b, h_b, bytes, cudaMemcpyHostToDevice));

    const int block = 256;
    const int grid = (n + block - 1) / block;
    vecAdd<<<grid, block>>>(d_a, d_b, d_c, n);
    CUDA_CHECK(cudaGetLastError());
    CUDA_CHECK(cudaDeviceSynchronize());

    CUDA_CHECK(cudaMemcpy(h_c, d_c, bytes, cudaMemcpyDeviceToHost));

    // sin^2 + cos^2 = 1, so every element should be 1 up to rounding.
    int bad = 0;
    for (int i = 0; i < n; ++i) {
        if (fabsf(h_c[i] - 1.0f) > 1e-5f) {
            ++bad;
        }
    }
    printf("%s (%d mismatches)\n", bad == 0 ? "PASSED" : "FAILED", bad);

    CUDA_CHECK(cudaFree(d_a));
    CUDA_CHECK(cudaFree(d_b));
    CUDA_CHECK(cudaFree(d_c));
    free(h_a);
    free(h_b);
    free(h_c);
    return bad == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
