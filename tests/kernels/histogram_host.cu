// Byte histogram as a whole program: dynamic shared memory given in the launch
// main() launches a privatised-bins histogram with <<<blocks, threads, sharedBytes>>>,
// the third launch parameter sizing the extern __shared__ bins (256 counters, 1024
// bytes), zeroes the result with cudaMemset and checks the counts against the host.
// The launch line matches main() (n = 1 << 16, 16 blocks of 256, --shared 1024).
// Correct: no findings.
//
// warpcheck-launch: --kernel histogramDynamicShared --grid 16 --block 256 --shared 1024 --arg data=u8[n]:rand --arg bins=u32[256]:zeros --arg n=65536
// warpcheck-expect: clean

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <cuda_runtime.h>

#define NUM_BINS 256

__global__ void histogramDynamicShared(const unsigned char* data, unsigned int* bins, int n)
{
    extern __shared__ unsigned int localBins[];

    for (int b = threadIdx.x; b < NUM_BINS; b += blockDim.x) {
        localBins[b] = 0;
    }
    __syncthreads();

    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) {
        atomicAdd(&localBins[data[i]], 1u);
    }
    __syncthreads();

    for (int b = threadIdx.x; b < NUM_BINS; b += blockDim.x) {
        atomicAdd(&bins[b], localBins[b]);
    }
}

int main(int argc, char** argv)
{
    const int n = 1 << 16;
    unsigned char* hData = (unsigned char*)malloc(n);
    unsigned int hBins[NUM_BINS];
    unsigned int expected[NUM_BINS];
    memset(expected, 0, sizeof(expected));
    for (int i = 0; i < n; ++i) {
        hData[i] = (unsigned char)((i * 2654435761u) >> 24);
        expected[hData[i]]++;
    }

    unsigned char* dData;
    unsigned int* dBins;
    if (cudaMalloc(&dData, n) != cudaSuccess || cudaMalloc(&dBins, sizeof(hBins)) != cudaSuccess) {
        fprintf(stderr, "cudaMalloc failed\n");
        return 1;
    }
    cudaMemcpy(dData, hData, n, cudaMemcpyHostToDevice);
    cudaMemset(dBins, 0, sizeof(hBins));

    const int threads = 256;
    const int blocks = 16;
    const size_t sharedBytes = NUM_BINS * sizeof(unsigned int);
    histogramDynamicShared<<<blocks, threads, sharedBytes>>>(dData, dBins, n);
    cudaError_t err = cudaGetLastError();
    if (err != cudaSuccess) {
        fprintf(stderr, "launch failed: %s\n", cudaGetErrorString(err));
        return 1;
    }
    cudaMemcpy(hBins, dBins, sizeof(hBins), cudaMemcpyDeviceToHost);

    int mismatches = 0;
    for (int b = 0; b < NUM_BINS; ++b) {
        mismatches += hBins[b] != expected[b];
    }
    printf("%s: %d mismatching bins\n", argc > 0 ? argv[0] : "histogram", mismatches);

    cudaFree(dData);
    cudaFree(dBins);
    free(hData);
    return mismatches == 0 ? 0 : 1;
}
