#include "common.h"
__device__ int table[4] = {1, 2, 3, 4};
__device__ int dval_as_int = 7;
#if __clang_major__ >= 15
__device__ int *table_ptr = &table[1];
#else
__device__ int *table_ptr = table;
#endif
__device__ int *ptrs[2] = {&table[0], &dval_as_int};
__constant__ float coeffs[3] = {0.5f, 1.25f, -2.0f};
__device__ double dval = 3.141592653589793;
__device__ char message[] = "hi\n";
__device__ long long big = -123456789012345LL;
__device__ unsigned short halfword = 65535;
__device__ int uninit_arr[8];
__global__ void useGlobals(float *out) {
  unsigned t = threadIdx.x;
  out[t] = coeffs[t % 3] * table[t & 3] + *table_ptr + *ptrs[t & 1] + dval + message[t & 3] + big + halfword + uninit_arr[t & 7];
  uninit_arr[t & 7] = t;
}
