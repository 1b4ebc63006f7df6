// Boyer, Skadron, Weimer 2008, Figure 2 with cause_bank_conflicts = 1
// With the flag on, thread id owns the 32 consecutive words 32*id .. 32*id + 31, so at
// every step all 32 lanes access words 32 apart: one bank, 32 distinct words. Correct
// (no races) but slow: bank-conflict(32) on the three shared accesses, and the final
// out[j] stores are 128 bytes apart per lane (uncoalesced(32)). The paper reports this
// line as "Bank conflicts at expression #line 21" with 16 accesses per bank (16 banks).
//
// warpcheck-launch: --kernel k --grid 1 --block 32 --shared 4096 --arg out=i32[1024] --arg iters=4
// warpcheck-expect: findings

extern __shared__ int mem[];

__global__ void k(int* out, int iters)
{
    int min, stride, max, i, j;
    int id = threadIdx.x;
    int num_banks = 32;
    char cause_bank_conflicts = 1;

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
        mem[j] = 0; //~ bank-conflict(32)
    for (i = 0; i < iters; i++)
        for (j = min; j < max; j += stride)
            mem[j]++; //~ bank-conflict(32)
    for (j = min; j < max; j += stride)
        out[j] = mem[j]; //~ bank-conflict(32) uncoalesced(32)
}
