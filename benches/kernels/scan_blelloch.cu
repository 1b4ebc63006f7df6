// Benchmark: work-efficient (Blelloch) exclusive prefix sum, 512 elements per block
// 32,768 blocks of 256 threads scan 16M floats in independent 512-element segments, as
// the first pass of the multi-block scan in the CUDA SDK: each thread loads two elements
// into shared memory; the up-sweep builds partial sums in a balanced tree (9 levels), the
// block's total is saved to blockSums and replaced by 0, and the down-sweep turns the tree
// into the exclusive scan (9 levels); a __syncthreads() separates every level. Shared
// indices are padded by one word per 32 (index + index/32) so that the strided tree
// accesses spread over the banks. A second pass (not part of this benchmark) would add
// the scanned blockSums to each segment.
//
// warpcheck-launch: --kernel scanBlelloch --grid 32768 --block 256 --arg input=f32[count]:rand --arg output=f32[count] --arg blockSums=f32[32768] --arg count=16777216
// warpcheck-expect: clean

#define THREADS 256
#define SEGMENT (2 * THREADS)
#define LOG_BANKS 5
#define PADDED(index) ((index) + ((index) >> LOG_BANKS))

__global__ void scanBlelloch(const float* input, float* output, float* blockSums, int count)
{
    __shared__ float tree[SEGMENT + (SEGMENT >> LOG_BANKS)];

    const int t = threadIdx.x;
    const int base = blockIdx.x * SEGMENT;
    const int first = t;
    const int second = t + THREADS;
    tree[PADDED(first)] = (base + first < count) ? input[base + first] : 0.0f;
    tree[PADDED(second)] = (base + second < count) ? input[base + second] : 0.0f;

    // Up-sweep (reduce): after the level with distance d, tree node k*2d + 2d - 1 holds
    // the sum of the 2d elements ending there.
    int distance = 1;
    for (int active = SEGMENT / 2; active > 0; active >>= 1) {
        __syncthreads();
        if (t < active) {
            const int left = distance * (2 * t + 1) - 1;
            const int right = distance * (2 * t + 2) - 1;
            tree[PADDED(right)] += tree[PADDED(left)];
        }
        distance <<= 1;
    }

    if (t == 0) {
        blockSums[blockIdx.x] = tree[PADDED(SEGMENT - 1)];
        tree[PADDED(SEGMENT - 1)] = 0.0f;
    }

    // Down-sweep: each node passes its value to its left child and the sum of its value
    // and the left child's old value to its right child.
    for (int active = 1; active < SEGMENT; active <<= 1) {
        distance >>= 1;
        __syncthreads();
        if (t < active) {
            const int left = distance * (2 * t + 1) - 1;
            const int right = distance * (2 * t + 2) - 1;
            const float leftValue = tree[PADDED(left)];
            tree[PADDED(left)] = tree[PADDED(right)];
            tree[PADDED(right)] += leftValue;
        }
    }
    __syncthreads();

    if (base + first < count) {
        output[base + first] = tree[PADDED(first)];
    }
    if (base + second < count) {
        output[base + second] = tree[PADDED(second)];
    }
}
