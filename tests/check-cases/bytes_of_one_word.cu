// Different bytes of one word never race
// Each thread writes its own byte of a shared char array; four threads share each 4-byte
// word. Then thread 0 reads a byte written by thread 1 without a barrier: that pair races.
//
// warpcheck-launch: --kernel bytes --grid 1 --block 64 --arg out=u8[64]
// warpcheck-expect: findings

__global__ void bytes(unsigned char* out)
{
    __shared__ unsigned char s[64];
    int t = threadIdx.x;
    s[t] = (unsigned char)t;
    __syncthreads();
    out[t] = s[t];
    if (t == 1) {
        s[1] = 7; //~ shared-race
    }
    if (t == 0) {
        out[0] = s[1]; //~ shared-race
    }
}
