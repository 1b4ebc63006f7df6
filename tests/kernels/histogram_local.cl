// OpenCL byte histogram with atomic_inc on __local bins
// Each work-group zeroes 256 __local counters, counts its share of the input (a
// grid-stride loop) with atomic_inc, and merges into the global histogram with
// atomic_add. Integer atomics: the result is order-independent. Atomics are outside the
// race, bank and coalescing markers. Correct: no findings.
//
// warpcheck-launch: --kernel histogramLocal --grid 8 --block 256 --arg data=u8[n]:rand --arg bins=u32[256]:zeros --arg n=65536
// warpcheck-expect: clean

#define NUM_BINS 256

__kernel void histogramLocal(__global const uchar* data, __global uint* bins, const int n)
{
    __local uint localBins[NUM_BINS];

    int lid = get_local_id(0);
    int groupSize = get_local_size(0);
    for (int b = lid; b < NUM_BINS; b += groupSize) {
        localBins[b] = 0;
    }
    barrier(CLK_LOCAL_MEM_FENCE);

    int stride = get_global_size(0);
    for (int i = get_global_id(0); i < n; i += stride) {
        atomic_inc(&localBins[data[i]]);
    }
    barrier(CLK_LOCAL_MEM_FENCE);

    for (int b = lid; b < NUM_BINS; b += groupSize) {
        atomic_add(&bins[b], localBins[b]);
    }
}
