// Device function calls: inlined helpers, a __noinline__ function and out-parameters
// collatzSteps() is __noinline__, so the PTX keeps a real .func with a call; splitDigits()
// returns results through pointers to the caller's locals; clampInt() is
// __forceinline__. Each thread computes, for n = i + 1, the Collatz stopping time, the
// digit sum and the clamped number of decimal digits. Correct: no findings.
//
// warpcheck-launch: --kernel collatzStats --grid 2 --block 256 --arg steps=i32[n] --arg digitSum=i32[n] --arg digits=i32[n] --arg n=500
// warpcheck-expect: clean

__device__ __forceinline__ int clampInt(int v, int lo, int hi)
{
    return v < lo ? lo : (v > hi ? hi : v);
}

__device__ __noinline__ int collatzSteps(unsigned int x)
{
    int steps = 0;
    while (x != 1u) {
        x = (x & 1u) ? 3u * x + 1u : x >> 1;
        ++steps;
    }
    return steps;
}

__device__ __noinline__ void splitDigits(unsigned int x, int* sum, int* count)
{
    int s = 0;
    int c = 0;
    do {
        s += x % 10u;
        x /= 10u;
        ++c;
    } while (x != 0u);
    *sum = s;
    *count = c;
}

__global__ void collatzStats(int* steps, int* digitSum, int* digits, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        unsigned int value = (unsigned int)i + 1u;
        int s;
        int c;
        splitDigits(value, &s, &c);
        steps[i] = collatzSteps(value);
        digitSum[i] = s;
        digits[i] = clampInt(c, 1, 2);
    }
}
