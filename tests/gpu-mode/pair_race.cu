// Blocks 2k and 2k+1 write the same words: a race found only in the last memory round
// Block b writes out[(b / 2) * blockDim.x + threadIdx.x] = b. With one warp per block and
// 16 blocks there are 16 units; `check --gpu --gpu-memory 3K` fits two private copies of
// `out` (1 KiB plus a guard), so GPU mode checks in log2(16) = 4 rounds, unit u using copy
// digit_k(u) in round k: blocks 2k and 2k+1 differ only in the last binary digit and are
// separated only in round 4 (the write-write race on the marked line).
//
// warpcheck-launch: --kernel pairRace --grid 16 --block 32 --arg out=f32[256]:zeros

__global__ void pairRace(float* out)
{
    int i = (blockIdx.x / 2) * blockDim.x + threadIdx.x;
    out[i] = (float)blockIdx.x; //~ global-race
}
