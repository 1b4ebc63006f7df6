// Hillis-Steele inclusive scan done in place in a single shared buffer
// The textbook mistake when translating the double-buffered scan: one array, updated in
// place, with a barrier only after each step. Bug: in the same step, thread t reads
// temp[t - offset] while thread t - offset (which is itself >= offset) overwrites it with
// its own partial sum. The read and the write are both on the marked line (shared-race,
// RAW or WAR depending on the interleaving), so the result depends on scheduling.
//
// warpcheck-launch: --kernel scanInPlace --grid 4 --block 256 --arg in=f32[1024]:rand --arg out=f32[1024]
// warpcheck-expect: findings

#define BLOCK_SIZE 256

__global__ void scanInPlace(const float* in, float* out)
{
    __shared__ float temp[BLOCK_SIZE];

    int thid = threadIdx.x;
    int base = blockIdx.x * BLOCK_SIZE;

    temp[thid] = in[base + thid];
    __syncthreads();

    for (int offset = 1; offset < BLOCK_SIZE; offset *= 2) {
        if (thid >= offset) {
            temp[thid] += temp[thid - offset]; //~ shared-race
        }
        __syncthreads();
    }

    out[base + thid] = temp[thid];
}
