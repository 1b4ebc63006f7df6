// Hillis-Steele inclusive scan with a double buffer in static shared memory
// Each block scans its own 256-element segment in log2(256) = 8 steps; step k adds the
// element 2^k to the left. Reading from one half of temp[][] and writing the other half,
// with a barrier after every step, is what makes the in-place hazard go away (compare
// scan_hillis_steele_bug_in_place.cu). Word-consecutive accesses: no bank conflicts.
// Correct: no findings.
//
// warpcheck-launch: --kernel scanHillisSteele --grid 4 --block 256 --arg in=f32[1024]:rand --arg out=f32[1024]
// warpcheck-expect: clean

#define BLOCK_SIZE 256

__global__ void scanHillisSteele(const float* in, float* out)
{
    __shared__ float temp[2][BLOCK_SIZE];

    int thid = threadIdx.x;
    int base = blockIdx.x * BLOCK_SIZE;
    int pout = 0;
    int pin = 1;

    temp[pout][thid] = in[base + thid];
    __syncthreads();

    for (int offset = 1; offset < BLOCK_SIZE; offset *= 2) {
        pout = 1 - pout;
        pin = 1 - pout;
        if (thid >= offset) {
            temp[pout][thid] = temp[pin][thid] + temp[pin][thid - offset];
        } else {
            temp[pout][thid] = temp[pin][thid];
        }
        __syncthreads();
    }

    out[base + thid] = temp[pout][thid];
}
