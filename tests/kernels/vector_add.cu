// Vector addition, one thread per element
// c[i] = a[i] + b[i] with the usual bounds guard; n is not a multiple of the block size,
// so the last block has idle threads. The canonical first CUDA kernel: every load and
// store is fully coalesced (4 sectors per request). Correct: no findings.
//
// warpcheck-launch: --kernel vecAdd --grid 4 --block 256 --arg a=f32[n]:rand --arg b=f32[n]:rand --arg c=f32[n] --arg n=1000
// warpcheck-expect: clean

__global__ void vecAdd(const float* a, const float* b, float* c, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        c[i] = a[i] + b[i];
    }
}
