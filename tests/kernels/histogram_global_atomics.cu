// Histogram of values in [0,1) with global-memory atomics only
// Every thread maps its value to one of 64 bins and increments the global counter with
// atomicAdd: simple and correct, but all blocks contend on 64 words (a performance
// matter that atomics-only kernels accept; atomics are outside the markers). Values at
// or above 1.0 are clamped into the last bin. Correct: no findings.
//
// warpcheck-launch: --kernel histogramGlobal --grid 16 --block 256 --arg values=f32[n]:rand --arg bins=u32[64]:zeros --arg n=4096
// warpcheck-expect: clean

#define NUM_BINS 64

__global__ void histogramGlobal(const float* values, unsigned int* bins, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        int bin = (int)(values[i] * NUM_BINS);
        bin = min(max(bin, 0), NUM_BINS - 1);
        atomicAdd(&bins[bin], 1u);
    }
}
