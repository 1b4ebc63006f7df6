// Small CUDA kernels covering what clang emits for ordinary code: memory spaces,
// barriers in loops, dynamic shared memory, atomics, warp intrinsics, printf, half
// precision, math functions, switch statements and spin loops.
#include <cuda_fp16.h>
#include <cstdio>

__device__ float helper(float x) { return x * 2.0f + 1.0f; }

__global__ void vecAdd(const float* a, const float* b, float* c, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) c[i] = helper(a[i]) + b[i];
}

__global__ void reduceSum(const float* in, float* out) {
  __shared__ float sdata[256];
  unsigned t = threadIdx.x;
  sdata[t] = in[blockIdx.x * 256 + t];
  __syncthreads();
  for (unsigned s = blockDim.x / 2; s > 0; s >>= 1) {
    if (t < s) sdata[t] += sdata[t + s];
    __syncthreads();
  }
  if (t == 0) out[blockIdx.x] = sdata[0];
}

__global__ void warpAndDynamicShared(float* out, int n) {
  extern __shared__ float buf[];
  buf[threadIdx.x] = threadIdx.x;
  __syncthreads();
  float v = buf[blockDim.x - 1 - threadIdx.x];
  for (int o = 16; o > 0; o /= 2) v += __shfl_down_sync(0xffffffffu, v, o);
  unsigned ballot = __ballot_sync(0xffffffffu, v > n);
  if (__any_sync(0xffffffffu, v < 0)) atomicAdd(out, v);
  if ((threadIdx.x & 31) == 0) out[1 + threadIdx.x / 32] = __popc(ballot);
  __syncwarp();
  if (threadIdx.x == 0) printf("block %d: %f\n", blockIdx.x, v);
}

__device__ int counter;
__device__ int table[4] = {1, 2, 3, 4};
__device__ int* counterPtr = &counter;
__constant__ float coeffs[3] = {1.0f, 2.0f, 3.0f};

__global__ void atomicsAndMath(int* p, double* d, float* f) {
  int t = threadIdx.x;
  atomicAdd(&counter, 1);
  atomicCAS(p, 0, 1);
  atomicMax(p + 1, t);
  atomicMin(p + 2, t);
  atomicExch(p + 3, table[t & 3]);
  atomicInc((unsigned*)p + 4, 100u);
  d[t] = sqrt(d[t]) / 3.0 + fma(d[t], 2.0, 1.0);
  f[t] = sinf(f[t]) + expf(f[t]) + __fdividef(f[t], 3.0f) + rsqrtf(f[t]) + fminf(f[t], coeffs[t % 3]) + truncf(f[t]);
  *counterPtr = __popc(t) + __clz(p[5]) + __brev(t) + __ffs(t);
}

__global__ void halves(__half* h, float* f, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    __half x = h[i];
    __half y = __hadd(x, __float2half(1.5f));
    f[i] = __half2float(__hmul(y, x));
  }
}

__global__ void switchy(int* out, int k) {
  int r;
  switch (k + threadIdx.x) {
    case 0: r = 7; break;
    case 1: r = 13; break;
    case 2: r = 21; break;
    case 3: r = 34; break;
    case 4: r = 55; break;
    case 5: r = 89; break;
    default: r = -1;
  }
  out[threadIdx.x] = r;
}

__global__ void spinWait(volatile int* flag, int* data) {
  if (threadIdx.x == 0) {
    while (*flag == 0) {
    }
    __threadfence();
    data[0] = 1;
  }
}

template <int N>
__global__ void tiled(float* m) {
  __shared__ float tile[N][N + 1];
  tile[threadIdx.y][threadIdx.x] = m[threadIdx.y * N + threadIdx.x];
  __syncthreads();
  m[threadIdx.x * N + threadIdx.y] = tile[threadIdx.x][threadIdx.y];
}
template __global__ void tiled<16>(float*);
template __global__ void tiled<32>(float*);
