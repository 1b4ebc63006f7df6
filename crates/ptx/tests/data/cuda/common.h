#define __global__ __attribute__((global))
#define __device__ __attribute__((device))
#define __shared__ __attribute__((shared))
#define __constant__ __attribute__((constant))
#define __noinline__ __attribute__((noinline))
#include <__clang_cuda_builtin_vars.h>
extern "C" __device__ int vprintf(const char *, void *);
