// Boyer, Skadron, Weimer 2008, Figure 2 with cause_bank_conflicts = 0
// Each thread repeatedly increments its own words of dynamic shared memory. With the
// flag off, thread id uses words id, id + 32, ..., id + 992, so the 32 lanes of a warp
// always touch 32 consecutive words: no bank conflicts, and out[j] is written in
// coalesced rows. The paper used 16 banks and half-warps (G80); this version uses
// today's 32 banks and one 32-thread warp. Correct: no findings.
//
// warpcheck-launch: --kernel k --grid 1 --block 32 --shared 4096 --arg out=i32[1024] --arg iters=4
// warpcheck-expect: clean

extern __shared__ int mem[];

__global__ void k(int* out, int iters)
{
    int min, stride, max, i, j;
    int id = threadIdx.x;
    int num_banks = 32;
    char cause_bank_conflicts = 0;

    if (cause_bank_conflicts) {
        min = id * num_banks;
        stride = 1;
        max = (id + 1) * num_banks;
    } else {
        min = id;
        stride = num_banks;
        max = (stride * (num_banks - 1)) + min + 1;
    }

    for (j = min; j < max; j += stride)
        mem[j] = 0;
    for (i = 0; i < iters; i++)
        for (j = min; j < max; j += stride)
            mem[j]++;
    for (j = min; j < max; j += stride)
        out[j] = mem[j];
}
