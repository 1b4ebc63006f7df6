// Benchmark: 256-bin histogram of 16M bytes with privatised bins in shared memory
// 1,024 blocks of 256 threads. Each block clears its own 256 counters in shared memory,
// then its threads walk the input with a grid-wide stride, four bytes per load (one
// uchar4), and count each byte with a shared-memory atomicAdd; after a barrier each
// thread adds one of the block's counters to the global histogram with a global
// atomicAdd. The input is `rand` bytes (values 0..99), so lanes of a warp often hit the
// same counter: the atomics contend as on real data. The count must be a multiple of 4.
//
// warpcheck-launch: --kernel histogramShared --grid 1024 --block 256 --arg bytes=u8[count]:rand --arg histogram=u32[256] --arg count=16777216
// warpcheck-expect: clean

#define BINS 256

__global__ void histogramShared(const unsigned char* bytes, unsigned int* histogram, int count)
{
    __shared__ unsigned int localBins[BINS];

    for (int bin = threadIdx.x; bin < BINS; bin += blockDim.x) {
        localBins[bin] = 0;
    }
    __syncthreads();

    const uchar4* words = reinterpret_cast<const uchar4*>(bytes);
    const int wordCount = count / 4;
    const int stride = gridDim.x * blockDim.x;
    for (int w = blockIdx.x * blockDim.x + threadIdx.x; w < wordCount; w += stride) {
        const uchar4 four = words[w];
        atomicAdd(&localBins[four.x], 1u);
        atomicAdd(&localBins[four.y], 1u);
        atomicAdd(&localBins[four.z], 1u);
        atomicAdd(&localBins[four.w], 1u);
    }
    __syncthreads();

    for (int bin = threadIdx.x; bin < BINS; bin += blockDim.x) {
        const unsigned int n = localBins[bin];
        if (n != 0) {
            atomicAdd(&histogram[bin], n);
        }
    }
}
