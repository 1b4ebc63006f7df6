// Templated reduction (block size as a template parameter, explicit instantiation)
// The CUDA-samples "reduce6" structure: a grid-stride loop adds pairs while loading, the
// `if (blockSize >= N)` levels are resolved at compile time, and the last warp finishes
// with __shfl_down_sync instead of the old volatile warp-synchronous code. The kernel is
// a template; `template __global__ void reduce<256>(...)` instantiates it and the launch
// line names it as written, `reduce<256>`. Correct: no findings.
//
// warpcheck-launch: --kernel reduce<256> --grid 4 --block 256 --arg g_idata=f32[n]:rand --arg g_odata=f32[4] --arg n=5000
// warpcheck-expect: clean

template <unsigned int blockSize>
__global__ void reduce(const float* g_idata, float* g_odata, unsigned int n)
{
    __shared__ float sdata[blockSize];

    unsigned int tid = threadIdx.x;
    unsigned int i = blockIdx.x * (blockSize * 2) + tid;
    unsigned int gridSize = blockSize * 2 * gridDim.x;

    float sum = 0.0f;
    while (i < n) {
        sum += g_idata[i];
        if (i + blockSize < n) {
            sum += g_idata[i + blockSize];
        }
        i += gridSize;
    }
    sdata[tid] = sum;
    __syncthreads();

    if (blockSize >= 512) {
        if (tid < 256) {
            sdata[tid] = sum = sum + sdata[tid + 256];
        }
        __syncthreads();
    }
    if (blockSize >= 256) {
        if (tid < 128) {
            sdata[tid] = sum = sum + sdata[tid + 128];
        }
        __syncthreads();
    }
    if (blockSize >= 128) {
        if (tid < 64) {
            sdata[tid] = sum = sum + sdata[tid + 64];
        }
        __syncthreads();
    }

    if (tid < 32) {
        if (blockSize >= 64) {
            sum += sdata[tid + 32];
        }
        for (int offset = 16; offset > 0; offset /= 2) {
            sum += __shfl_down_sync(0xffffffffu, sum, offset);
        }
    }

    if (tid == 0) {
        g_odata[blockIdx.x] = sum;
    }
}

template __global__ void reduce<256>(const float* g_idata, float* g_odata, unsigned int n);
