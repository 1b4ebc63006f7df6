// Byte histogram with per-block privatised bins in shared memory
// Each block zeroes 256 shared counters, accumulates its grid-stride share of the input
// with shared-memory atomicAdd, and merges its counters into the global histogram with
// one global atomicAdd per bin. Integer atomics make the result independent of the
// order. Atomics are not races and are outside the bank/coalescing markers.
// Correct: no findings.
//
// warpcheck-launch: --kernel histogramShared --grid 8 --block 256 --arg data=u8[n]:rand --arg bins=u32[256]:zeros --arg n=65536
// warpcheck-expect: clean

#define NUM_BINS 256

__global__ void histogramShared(const unsigned char* data, unsigned int* bins, int n)
{
    __shared__ unsigned int localBins[NUM_BINS];

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
