// Integer sum with shared-memory and global atomics
// Each thread atomically adds its element to a per-block shared accumulator; after a
// barrier, thread 0 adds the block total to the global result with one atomicAdd.
// Integer atomics commute, so the result is deterministic. Atomics never race with each
// other; the plain initialisation of blockSum is ordered by the first barrier.
// Correct: no findings.
//
// warpcheck-launch: --kernel sumAtomic --grid 16 --block 256 --arg in=i32[n]:rand --arg total=i32[1]:zeros --arg n=4000
// warpcheck-expect: clean

__global__ void sumAtomic(const int* in, int* total, int n)
{
    __shared__ int blockSum;

    if (threadIdx.x == 0) {
        blockSum = 0;
    }
    __syncthreads();

    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        atomicAdd(&blockSum, in[i]);
    }
    __syncthreads();

    if (threadIdx.x == 0) {
        atomicAdd(total, blockSum);
    }
}
