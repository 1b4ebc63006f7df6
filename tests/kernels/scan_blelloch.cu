// Work-efficient (Blelloch) exclusive scan, CUDA SDK / GPU Gems 3 style, no padding
// Each block scans its 512-element segment (n = 2*blockDim.x) in dynamic shared memory.
// Bank-conflict avoidance is OFF (CONFLICT_FREE_OFFSET is 0), so the tree lines use word
// strides 2..512: up to 16 distinct words per bank (offset 8 with 32 lanes, or 16 with 16
// lanes): bank-conflict(16) on the four tree lines; no races. Boyer et al. Sec. 6.1:
// -DREMOVE_BARRIER=k removes the k-th barrier (lines 42, 63, 76); the races that each
// removal creates are in the warpcheck-variant lines. Padded: scan_blelloch_conflict_free.cu.
//
// warpcheck-launch: --kernel prescan --grid 4 --block 256 --shared 2048 --arg g_odata=f32[2048] --arg g_idata=f32[2048]:rand --arg n=512
// warpcheck-expect: findings
// warpcheck-variant: -DREMOVE_BARRIER=1 shared-race@36,37,49,56 benign-race@49,56
// warpcheck-variant: -DREMOVE_BARRIER=2 shared-race@49,56,70,71,72
// warpcheck-variant: -DREMOVE_BARRIER=3 shared-race@71,72,79,80

#ifndef REMOVE_BARRIER
#define REMOVE_BARRIER 0
#endif

#define NUM_BANKS 32
#define LOG_NUM_BANKS 5
#define CONFLICT_FREE_OFFSET(i) 0

// Exclusive scan of g_idata[blockIdx.x*n .. +n) into g_odata; n == 2 * blockDim.x.
__global__ void prescan(float* g_odata, const float* g_idata, int n)
{
    extern __shared__ float temp[];

    int thid = threadIdx.x;
    int base = blockIdx.x * n;
    int offset = 1;

    int ai = thid;
    int bi = thid + n / 2;
    int bankOffsetA = CONFLICT_FREE_OFFSET(ai);
    int bankOffsetB = CONFLICT_FREE_OFFSET(bi);
    temp[ai + bankOffsetA] = g_idata[base + ai];
    temp[bi + bankOffsetB] = g_idata[base + bi];

    // Up-sweep: build partial sums in place up the tree.
    for (int d = n >> 1; d > 0; d >>= 1) {
#if REMOVE_BARRIER != 1
        __syncthreads();
#endif
        if (thid < d) {
            int ai = offset * (2 * thid + 1) - 1;
            int bi = offset * (2 * thid + 2) - 1;
            ai += CONFLICT_FREE_OFFSET(ai);
            bi += CONFLICT_FREE_OFFSET(bi);
            temp[bi] += temp[ai]; //~ bank-conflict(16)
        }
        offset *= 2;
    }

    // Clear the last element (the root of the tree).
    if (thid == 0) {
        temp[n - 1 + CONFLICT_FREE_OFFSET(n - 1)] = 0.0f;
    }

    // Down-sweep: traverse down the tree and build the scan.
    for (int d = 1; d < n; d *= 2) {
        offset >>= 1;
#if REMOVE_BARRIER != 2
        __syncthreads();
#endif
        if (thid < d) {
            int ai = offset * (2 * thid + 1) - 1;
            int bi = offset * (2 * thid + 2) - 1;
            ai += CONFLICT_FREE_OFFSET(ai);
            bi += CONFLICT_FREE_OFFSET(bi);
            float t = temp[ai]; //~ bank-conflict(16)
            temp[ai] = temp[bi]; //~ bank-conflict(16)
            temp[bi] += t; //~ bank-conflict(16)
        }
    }
#if REMOVE_BARRIER != 3
    __syncthreads();
#endif

    g_odata[base + ai] = temp[ai + bankOffsetA];
    g_odata[base + bi] = temp[bi + bankOffsetB];
}
