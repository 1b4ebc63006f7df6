// 1D stencil (radius 3) with a shared-memory tile and halos
// Each block stages its 256 inputs plus 3 halo cells on each side in shared memory; the
// first RADIUS threads also load the left and right halos (zero outside the array). After
// one barrier every thread sums 7 neighbours from shared memory. Consecutive shared words,
// contiguous global runs. Correct: no findings.
//
// warpcheck-launch: --kernel stencil1d --grid 8 --block 256 --arg in=f32[n]:rand --arg out=f32[n] --arg n=2000
// warpcheck-expect: clean

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
        int right = gindex + BLOCK_SIZE;
        temp[lindex - RADIUS] = (left >= 0) ? in[left] : 0.0f;
        temp[lindex + BLOCK_SIZE] = (right < n) ? in[right] : 0.0f;
    }
    __syncthreads();

    if (gindex < n) {
        float result = 0.0f;
        for (int offset = -RADIUS; offset <= RADIUS; offset++) {
            result += temp[lindex + offset];
        }
        out[gindex] = result;
    }
}
