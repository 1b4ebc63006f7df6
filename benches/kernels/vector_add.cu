// Benchmark: vector addition over 16M floats (16,777,216 = 2^24), one thread per element
// out[i] = x[i] + y[i]; 65,536 blocks of 256 threads. The kernel is memory-bound on a GPU
// and dominated by address arithmetic and bounds checks in an emulator, so it measures
// the emulator's per-instruction overhead and its global-memory path.
//
// warpcheck-launch: --kernel vectorAdd --grid 65536 --block 256 --arg x=f32[count]:rand --arg y=f32[count]:rand --arg out=f32[count] --arg count=16777216
// warpcheck-expect: clean

__global__ void vectorAdd(const float* x, const float* y, float* out, int count)
{
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < count) {
        out[i] = x[i] + y[i];
    }
}
