// Reverse each block's segment through dynamically sized shared memory
// extern __shared__ float s[] gets its size from the launch (--shared 1024 = 256 floats);
// each thread stores its element, the block synchronises, and each thread writes back the
// mirrored element. The global array is updated in place, but every thread reads and
// writes only its own d[base + t], so there is no global race. Correct: no findings.
//
// warpcheck-launch: --kernel dynamicReverse --grid 4 --block 256 --shared 1024 --arg d=f32[1024]:iota
// warpcheck-expect: clean

__global__ void dynamicReverse(float* d)
{
    extern __shared__ float s[];

    int t = threadIdx.x;
    int base = blockIdx.x * blockDim.x;
    int tr = blockDim.x - t - 1;

    s[t] = d[base + t];
    __syncthreads();
    d[base + t] = s[tr];
}
