// 1D stencil (radius 3) whose right halo is never loaded
// Same as stencil_1d_shared.cu, but only the left halo is staged. Bug: in every block,
// the last 3 threads (threadIdx.x 253..255) read temp[259..261], which no thread wrote
// (uninit-read on shared memory, in the marked loop). In block 7, gindex >= n for those
// threads, so only blocks 0..6 reach the read. Outputs near each block's right edge are garbage.
//
// warpcheck-launch: --kernel stencil1d --grid 8 --block 256 --arg in=f32[n]:rand --arg out=f32[n] --arg n=2000
// warpcheck-expect: findings

#define RADIUS 3
#define BLOCK_SIZE 256

__global__ void stencil1d(const float* in, float* out, int n)
{
    __shared__ float temp[BLOCK_SIZE + 2 * RADIUS];

    int gindex = blockIdx.x * blockDim.x + threadIdx.x;
    int lindex = threadIdx.x + RADIUS;

    temp[lindex] = (gindex < n) ? in[gindex] : 0.0f;
    if (threadIdx.x < RADIUS) {
        int left = gindex - RADIUS;
        temp[lindex - RADIUS] = (left >= 0) ? in[left] : 0.0f;
    }
    __syncthreads();

    if (gindex < n) {
        float result = 0.0f;
        for (int offset = -RADIUS; offset <= RADIUS; offset++) {
            result += temp[lindex + offset]; //~ uninit-read
        }
        out[gindex] = result;
    }
}
