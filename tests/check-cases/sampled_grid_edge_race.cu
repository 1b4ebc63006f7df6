// A race confined to the last two blocks of a launch too big to race-check every block
// 4096 blocks are more than the race checker watches by default (`--race-blocks 256`),
// so it samples: the first and last blocks and pairs of neighbouring blocks. Only the
// last block has the bug: it also writes the last element of its predecessor's range,
// which the predecessor writes too. The sample keeps both, so the race is found (and a
// note says how many blocks were watched).
//
// warpcheck-launch: --kernel shift --grid 4096 --block 64 --arg out=f32[262144]
// warpcheck-expect: findings

__global__ void shift(float* out)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    out[i] = 1.0f; //~ global-race
    if (blockIdx.x == gridDim.x - 1 && threadIdx.x == 0) {
        out[i - 1] = 2.0f; //~ global-race
    }
}
