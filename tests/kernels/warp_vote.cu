// Warp vote functions: __ballot_sync, __any_sync, __all_sync and __popc of the ballot
// Each warp evaluates the predicate (v % 64) < 40 on iota input, so warp 0 is all true,
// warp 1 is mixed (lanes 0..7 true) and other warps alternate the same way; lane 0 of each
// warp records the ballot mask, any, all and the number of true lanes. The grid covers
// 200 elements with 256 threads, so the last warps vote with lanes predicated false.
// Correct: no findings.
//
// warpcheck-launch: --kernel warpVote --grid 2 --block 128 --arg values=i32[n]:iota --arg ballots=u32[8] --arg anyOut=i32[8] --arg allOut=i32[8] --arg countOut=i32[8] --arg n=200
// warpcheck-expect: clean

__global__ void warpVote(const int* values, unsigned int* ballots, int* anyOut, int* allOut,
                         int* countOut, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int pred = (i < n) && (values[i] % 64) < 40;

    unsigned int ballot = __ballot_sync(0xffffffffu, pred);
    int any = __any_sync(0xffffffffu, pred);
    int all = __all_sync(0xffffffffu, pred);

    int lane = threadIdx.x % 32;
    int warpId = i / 32;
    if (lane == 0) {
        ballots[warpId] = ballot;
        anyOut[warpId] = any;
        allOut[warpId] = all;
        countOut[warpId] = __popc(ballot);
    }
}
