// Iterative 3-point smoothing in shared memory without a barrier between read and write
// Each iteration reads the left, centre and right values and then overwrites the centre,
// with a barrier only at the end of the iteration. Bug: thread t + 1 may already have
// overwritten s[t + 1] (and thread t - 1 s[t - 1]) before thread t reads it, so the
// neighbour reads race with the neighbours' stores in the same iteration (WAR, or RAW if
// the store wins; shared-race on both marked lines). The fix is a __syncthreads()
// between computing v and storing it.
//
// warpcheck-launch: --kernel smoothInShared --grid 4 --block 256 --arg data=f32[1024]:rand
// warpcheck-expect: findings

#define ITERATIONS 4

__global__ void smoothInShared(float* data)
{
    __shared__ float s[256];

    int t = threadIdx.x;
    int base = blockIdx.x * blockDim.x;
    int left = (t == 0) ? 0 : t - 1;
    int right = (t == (int)blockDim.x - 1) ? t : t + 1;

    s[t] = data[base + t];
    __syncthreads();

    for (int it = 0; it < ITERATIONS; ++it) {
        float v = 0.25f * s[left] + 0.5f * s[t] + 0.25f * s[right]; //~ shared-race
        s[t] = v; //~ shared-race
        __syncthreads();
    }

    data[base + t] = s[t];
}
