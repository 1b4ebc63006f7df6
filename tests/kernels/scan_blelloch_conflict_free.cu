// Work-efficient (Blelloch) exclusive scan with CONFLICT_FREE_OFFSET padding
// The same kernel as scan_blelloch.cu with the SDK's bank-conflict avoidance switched on:
// every shared index i is padded by CONFLICT_FREE_OFFSET(i) = i >> LOG_NUM_BANKS (one
// extra word per 32), so temp[] needs n + n/32 floats (2112 bytes for n = 512). With 32
// banks this removes every conflict of the tree phases (checked lane by lane for each
// level). Correct: no findings (no races, no bank conflicts, coalesced global accesses).
//
// warpcheck-launch: --kernel prescan --grid 4 --block 256 --shared 2112 --arg g_odata=f32[2048] --arg g_idata=f32[2048]:rand --arg n=512
// warpcheck-expect: clean

#define NUM_BANKS 32
#define LOG_NUM_BANKS 5
#define CONFLICT_FREE_OFFSET(i) ((i) >> LOG_NUM_BANKS)

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
        __syncthreads();
        if (thid < d) {
            int ai = offset * (2 * thid + 1) - 1;
            int bi = offset * (2 * thid + 2) - 1;
            ai += CONFLICT_FREE_OFFSET(ai);
            bi += CONFLICT_FREE_OFFSET(bi);
            temp[bi] += temp[ai];
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
        __syncthreads();
        if (thid < d) {
            int ai = offset * (2 * thid + 1) - 1;
            int bi = offset * (2 * thid + 2) - 1;
            ai += CONFLICT_FREE_OFFSET(ai);
            bi += CONFLICT_FREE_OFFSET(bi);
            float t = temp[ai];
            temp[ai] = temp[bi];
            temp[bi] += t;
        }
    }
    __syncthreads();

    g_odata[base + ai] = temp[ai + bankOffsetA];
    g_odata[base + bi] = temp[bi + bankOffsetB];
}
