// Bitonic sort of 256-key segments in shared memory
// Each block sorts its own 256 floats ascending: log2(256)*(log2(256)+1)/2 = 36
// compare-exchange steps, each followed by a barrier. In every step the pairs
// (tid, tid ^ j) are disjoint and only the lower index of a pair writes, so there are no
// races; partners are at most 16 words apart inside a warp or whole warps apart, so no
// bank conflicts. Correct: no findings.
//
// warpcheck-launch: --kernel bitonicSortShared --grid 4 --block 256 --arg keys=f32[1024]:rand
// warpcheck-expect: clean

#define SORT_SIZE 256

__global__ void bitonicSortShared(float* keys)
{
    __shared__ float s[SORT_SIZE];

    unsigned int tid = threadIdx.x;
    unsigned int base = blockIdx.x * SORT_SIZE;
    s[tid] = keys[base + tid];
    __syncthreads();

    for (unsigned int k = 2; k <= SORT_SIZE; k <<= 1) {
        for (unsigned int j = k >> 1; j > 0; j >>= 1) {
            unsigned int partner = tid ^ j;
            if (partner > tid) {
                float a = s[tid];
                float b = s[partner];
                bool ascending = (tid & k) == 0;
                if ((a > b) == ascending) {
                    s[tid] = b;
                    s[partner] = a;
                }
            }
            __syncthreads();
        }
    }

    keys[base + tid] = s[tid];
}
