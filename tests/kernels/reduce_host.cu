// Multi-pass sum reduction as a whole program, launched on a stream
// main() reduces n floats by launching the same block-reduction kernel repeatedly on a
// non-default stream (<<<grid, block, sharedBytes, stream>>>) until one value is left,
// ping-ponging between two device buffers. Launch 1 is main()'s first pass (32768 -> 64);
// launch 2 has the shape of its last pass (one block, n = 64) but, as launch lines share
// buffers by name, it reads the first 64 inputs and overwrites out[0]: the kernel
// boundary orders it after launch 1, so that is not a race. Correct: no findings.
//
// warpcheck-launch: --kernel blockSum --grid 64 --block 256 --shared 1024 --arg in=f32[32768]:rand --arg out=f32[64] --arg n=32768
// warpcheck-launch: --kernel blockSum --grid 1 --block 256 --shared 1024 --arg in=f32[32768]:rand --arg out=f32[64] --arg n=64
// warpcheck-expect: clean

#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>

__global__ void blockSum(const float* in, float* out, int n)
{
    extern __shared__ float partial[];

    unsigned int tid = threadIdx.x;
    float sum = 0.0f;
    for (int i = blockIdx.x * blockDim.x * 2 + tid; i < n; i += blockDim.x * gridDim.x * 2) {
        sum += in[i];
        if (i + blockDim.x < n) {
            sum += in[i + blockDim.x];
        }
    }
    partial[tid] = sum;
    __syncthreads();

    for (unsigned int s = blockDim.x / 2; s > 0; s >>= 1) {
        if (tid < s) {
            partial[tid] += partial[tid + s];
        }
        __syncthreads();
    }
    if (tid == 0) {
        out[blockIdx.x] = partial[0];
    }
}

int main()
{
    const int n = 32768;
    const int threads = 256;
    float* hIn = (float*)malloc(n * sizeof(float));
    double expected = 0.0;
    for (int i = 0; i < n; ++i) {
        hIn[i] = (float)(i % 17) * 0.25f;
        expected += hIn[i];
    }

    float *dA, *dB;
    cudaMalloc((void**)&dA, n * sizeof(float));
    cudaMalloc((void**)&dB, n * sizeof(float));
    cudaStream_t stream;
    cudaStreamCreate(&stream);
    cudaMemcpyAsync(dA, hIn, n * sizeof(float), cudaMemcpyHostToDevice, stream);

    int remaining = n;
    float* src = dA;
    float* dst = dB;
    while (remaining > 1) {
        int blocks = (remaining + threads * 2 - 1) / (threads * 2);
        if (blocks > 64) {
            blocks = 64;
        }
        blockSum<<<blocks, threads, threads * sizeof(float), stream>>>(src, dst, remaining);
        remaining = blocks;
        float* tmp = src;
        src = dst;
        dst = tmp;
    }

    float result = 0.0f;
    cudaMemcpyAsync(&result, src, sizeof(float), cudaMemcpyDeviceToHost, stream);
    cudaStreamSynchronize(stream);
    printf("sum = %f (expected %f)\n", result, expected);

    cudaStreamDestroy(stream);
    cudaFree(dA);
    cudaFree(dB);
    free(hIn);
    return 0;
}
