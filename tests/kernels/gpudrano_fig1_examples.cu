// GPUDrano (Alur et al. 2017), Figure 1: coalesced and uncoalesced accesses
// Example 1 reads array[0] (every lane the same word: 1 sector), Example 2 reads
// array[tid] (consecutive words: 4 sectors), Example 3 reads array[8*tid], 32 bytes apart
// per lane, so a warp touches 32 sectors: uncoalesced(32) on the marked line. Example 4
// is the same index as Example 3 reached by one active thread per warp (lane 0), which the
// paper points out is coalesced: 1 sector, no finding.
//
// warpcheck-launch: --kernel coalescingExamples --grid 2 --block 128 --arg array=i32[2048]:iota --arg out=i32[256] --arg first=i32[8]
// warpcheck-expect: findings

__global__ void coalescingExamples(const int* array, int* out, int* first)
{
    int tid = blockIdx.x * blockDim.x + threadIdx.x;
    int a = array[0];
    int b = array[tid];
    int c = array[8 * tid]; //~ uncoalesced(32)
    out[tid] = a + b + c;
    if (threadIdx.x % 32 == 0) {
        first[tid / 32] = array[8 * tid];
    }
}
