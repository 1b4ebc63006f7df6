// SAXPY with a grid-stride loop
// A fixed-size grid (8 blocks of 128 threads) walks an array of any length: each thread
// handles elements i, i + 1024, i + 2048, ... so consecutive threads still touch
// consecutive elements on every iteration. The last iteration is partial (n = 10000).
// Correct: no findings.
//
// warpcheck-launch: --kernel saxpyGridStride --grid 8 --block 128 --arg n=10000 --arg a=-0.75 --arg x=f32[n]:rand --arg y=f32[n]:rand
// warpcheck-expect: clean

__global__ void saxpyGridStride(int n, float a, const float* x, float* y)
{
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) {
        y[i] = a * x[i] + y[i];
    }
}
