// Measures how far the GPU's approximate PTX instructions (rsqrt/rcp/sqrt/sin/cos/lg2/ex2/
// tanh .approx.f32) are from the correctly rounded result (the double-precision function,
// rounded to float), over a sweep of inputs. Run on the GPU machine:
//
//   nvcc -O3 -arch=native -o /tmp/approx tools/gpu/approx_bounds.cu && /tmp/approx
//
// Prints one line per instruction: the input range, the inputs tried, the largest distance
// in units in the last place (ulp) and an input that reaches it. The emulator computes these
// instructions with correctly rounded (or libm) functions, so these distances bound how far
// its results can be from the hardware's; docs/STATUS.md and crates/emu document them.
#include <cstdio>
#include <cstdint>
#include <cmath>
#include <cstring>

__device__ int ordered(float f) {
    int i = __float_as_int(f);
    return i < 0 ? (int)0x80000000 - i : i;
}

__device__ unsigned long long ulp_distance(float a, float b) {
    if (isnan(a) && isnan(b)) return 0;
    if (isnan(a) || isnan(b)) return 1ull << 40;
    long long d = (long long)ordered(a) - (long long)ordered(b);
    return d < 0 ? -d : d;
}

enum Fn { RSQRT, RCP, SQRT, SIN, COS, LG2, EX2, TANH, NFN };

__device__ float approx(int fn, float x) {
    float r;
    switch (fn) {
    case RSQRT: asm("rsqrt.approx.f32 %0, %1;" : "=f"(r) : "f"(x)); break;
    case RCP: asm("rcp.approx.f32 %0, %1;" : "=f"(r) : "f"(x)); break;
    case SQRT: asm("sqrt.approx.f32 %0, %1;" : "=f"(r) : "f"(x)); break;
    case SIN: asm("sin.approx.f32 %0, %1;" : "=f"(r) : "f"(x)); break;
    case COS: asm("cos.approx.f32 %0, %1;" : "=f"(r) : "f"(x)); break;
    case LG2: asm("lg2.approx.f32 %0, %1;" : "=f"(r) : "f"(x)); break;
    case EX2: asm("ex2.approx.f32 %0, %1;" : "=f"(r) : "f"(x)); break;
    default: asm("tanh.approx.f32 %0, %1;" : "=f"(r) : "f"(x)); break;
    }
    return r;
}

__device__ float exact(int fn, float x) {
    double v = x;
    switch (fn) {
    case RSQRT: return (float)(1.0 / sqrt(v));
    case RCP: return (float)(1.0 / v);
    case SQRT: return (float)sqrt(v);
    case SIN: return (float)sin(v);
    case COS: return (float)cos(v);
    case LG2: return (float)log2(v);
    case EX2: return (float)exp2(v);
    default: return (float)tanh(v);
    }
}

// Input i of n for a function: evenly spaced bit patterns of positive normal floats for the
// functions of magnitudes, evenly spaced values in the documented ranges for the others.
__device__ float input(int fn, unsigned long long i, unsigned long long n) {
    double t = (double)i / (double)n;
    switch (fn) {
    case RSQRT: case RCP: case SQRT: case LG2:
        return __int_as_float(0x00800000 + (int)(t * (0x7f000000 - 0x00800000)));
    case SIN: case COS: return (float)(-100.0 * M_PI + t * 200.0 * M_PI);
    case EX2: return (float)(-126.0 + t * 253.0);
    default: return (float)(-10.0 + t * 20.0);
    }
}

__global__ void sweep(int fn, unsigned long long n, unsigned long long* worst, float* at,
                      unsigned int* worst_abs) {
    unsigned long long i = blockIdx.x * (unsigned long long)blockDim.x + threadIdx.x;
    for (; i < n; i += (unsigned long long)gridDim.x * blockDim.x) {
        float x = input(fn, i, n);
        float a = approx(fn, x), e = exact(fn, x);
        unsigned long long d = ulp_distance(a, e);
        if (!isnan(a) && !isnan(e) && !isinf(a) && !isinf(e))
            atomicMax(worst_abs, __float_as_uint(fabsf(a - e)));
        unsigned long long old = atomicMax(worst, d);
        if (d > old) *at = x;
    }
}

int main() {
    const unsigned long long n = 1ull << 26;
    const char* names[NFN] = {"rsqrt", "rcp", "sqrt", "sin", "cos", "lg2", "ex2", "tanh"};
    const char* ranges[NFN] = {"normal x > 0", "normal x > 0", "normal x > 0", "[-100pi, 100pi]",
                               "[-100pi, 100pi]", "normal x > 0", "[-126, 127]", "[-10, 10]"};
    unsigned long long* worst;
    float* at;
    cudaMalloc(&worst, sizeof *worst);
    cudaMalloc(&at, sizeof *at);
    unsigned int* worst_abs;
    cudaMalloc(&worst_abs, sizeof *worst_abs);
    for (int fn = 0; fn < NFN; ++fn) {
        cudaMemset(worst, 0, sizeof *worst);
        cudaMemset(worst_abs, 0, sizeof *worst_abs);
        sweep<<<1024, 256>>>(fn, n, worst, at, worst_abs);
        unsigned int abs_bits = 0;
        cudaMemcpy(&abs_bits, worst_abs, sizeof abs_bits, cudaMemcpyDeviceToHost);
        float abs_err;
        memcpy(&abs_err, &abs_bits, sizeof abs_err);
        unsigned long long w = 0;
        float x = 0;
        cudaMemcpy(&w, worst, sizeof w, cudaMemcpyDeviceToHost);
        cudaMemcpy(&x, at, sizeof x, cudaMemcpyDeviceToHost);
        printf("%s.approx.f32\t%s\t%llu inputs\tmax %llu ulp at x = %.9g\tmax absolute error %.3g (2^%.1f)\n",
               names[fn], ranges[fn], n, w, x, abs_err, log2((double)abs_err));
    }
    cudaError_t e = cudaGetLastError();
    if (e != cudaSuccess) { printf("CUDA error: %s\n", cudaGetErrorString(e)); return 2; }
    return 0;
}
