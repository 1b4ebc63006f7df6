// Warp-aggregated histogram atomics with __match_any_sync (sm_70+)
// Lanes with equal keys find each other with __match_any_sync; the lowest lane of each
// group (found with __ffs) adds the group's size (__popc of the peer mask) with a single
// atomicAdd. Out-of-range lanes leave before the match, which uses the ballot of the
// remaining lanes as its mask, as the programming guide requires. Integer atomics: the
// histogram is deterministic. Correct: no findings.
//
// warpcheck-launch: --kernel histogramMatchAggregated --grid 4 --block 256 --arg keys=i32[n]:rand --arg bins=u32[16]:zeros --arg n=1000
// warpcheck-expect: clean

#define NUM_BINS 16

__global__ void histogramMatchAggregated(const int* keys, unsigned int* bins, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    bool active = i < n;
    unsigned int activeMask = __ballot_sync(0xffffffffu, active);
    if (!active) {
        return;
    }

    int key = ((keys[i] % NUM_BINS) + NUM_BINS) % NUM_BINS;
    unsigned int peers = __match_any_sync(activeMask, key);
    int leader = __ffs(peers) - 1;
    int lane = threadIdx.x % 32;
    if (lane == leader) {
        atomicAdd(&bins[key], (unsigned int)__popc(peers));
    }
}
