// Device-side printf for debugging (one printing thread, deterministic output)
// A scaling kernel that prints a short report from global thread 0 only: integers,
// floats (promoted to double), a string argument and a pointer-free %x of a bit pattern.
// Only one thread prints, so the output order is fixed. Expected stdout (n = 300):
// "scale: n=300 factor=2.000000 first=<x[0]*2> tag=debug bits=40000000".
// Correct: no findings.
//
// warpcheck-launch: --kernel scaleWithReport --grid 2 --block 256 --arg x=f32[n]:rand --arg y=f32[n] --arg n=300 --arg factor=2.0
// warpcheck-expect: clean

#include <cstdio>

__global__ void scaleWithReport(const float* x, float* y, int n, float factor)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        y[i] = x[i] * factor;
    }
    if (i == 0) {
        printf("scale: n=%d factor=%f first=%f tag=%s bits=%x\n", n, factor, x[0] * factor,
               "debug", __float_as_uint(factor));
    }
}
