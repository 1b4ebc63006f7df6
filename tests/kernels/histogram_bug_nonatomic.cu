// Shared-memory histogram that increments its bins without atomics
// Like histogram_shared_atomics.cu with 32 bins, but the per-block counters are bumped
// with a plain localBins[bin]++. Each block has 256 threads and only 32 bins, so by the
// pigeonhole principle two threads of every block update the same bin in one barrier
// interval. Bug: shared-race (read-modify-write against read-modify-write) on the marked
// line; counts are lost. One bin per bank: lanes that meet in a bank meet on the same
// word, so there is no bank conflict whatever the data.
//
// warpcheck-launch: --kernel histogramNonAtomic --grid 4 --block 256 --arg values=f32[n]:rand --arg bins=u32[32]:zeros --arg n=4096
// warpcheck-expect: findings

#define NUM_BINS 32

__global__ void histogramNonAtomic(const float* values, unsigned int* bins, int n)
{
    __shared__ unsigned int localBins[NUM_BINS];

    if (threadIdx.x < NUM_BINS) {
        localBins[threadIdx.x] = 0;
    }
    __syncthreads();

    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) {
        int bin = min((int)(values[i] * NUM_BINS), NUM_BINS - 1);
        localBins[bin]++; //~ shared-race
    }
    __syncthreads();

    if (threadIdx.x < NUM_BINS) {
        atomicAdd(&bins[threadIdx.x], localBins[threadIdx.x]);
    }
}
