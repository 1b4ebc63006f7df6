// Half-precision kernels with cuda_fp16.h: HAXPY with __half and a dot product with __half2
// haxpy computes y = a*x + y element-wise in __half with __hfma (the float scale is
// converted once with __float2half). halfDot multiplies packed __half2 pairs with __hmul2,
// widens each product to float and reduces per block in shared memory, so the sum is
// accumulated in single precision. Buffers are f16 (halfDot reads 2 halves per thread).
// Correct: no findings.
//
// warpcheck-launch: --kernel haxpy --grid 4 --block 256 --arg n=1000 --arg a=0.5 --arg x=f16[n]:rand --arg y=f16[n]:rand
// warpcheck-launch: --kernel halfDot --grid 2 --block 256 --arg u=f16[1024]:rand --arg v=f16[1024]:rand --arg partial=f32[2] --arg numPairs=512
// warpcheck-expect: clean

#include <cuda_fp16.h>

__global__ void haxpy(int n, float a, const __half* x, __half* y)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    __half ha = __float2half(a);
    if (i < n) {
        y[i] = __hfma(ha, x[i], y[i]);
    }
}

__global__ void halfDot(const __half2* u, const __half2* v, float* partial, int numPairs)
{
    __shared__ float sdata[256];

    unsigned int tid = threadIdx.x;
    int i = blockIdx.x * blockDim.x + tid;
    float sum = 0.0f;
    if (i < numPairs) {
        __half2 prod = __hmul2(u[i], v[i]);
        sum = __low2float(prod) + __high2float(prod);
    }
    sdata[tid] = sum;
    __syncthreads();

    for (unsigned int s = blockDim.x / 2; s > 0; s >>= 1) {
        if (tid < s) {
            sdata[tid] += sdata[tid + s];
        }
        __syncthreads();
    }
    if (tid == 0) {
        partial[blockIdx.x] = sdata[0];
    }
}
