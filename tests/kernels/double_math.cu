// Double-precision math library calls (sqrt, exp, log1p, sin, cos, pow, fma, atan2)
// An element-wise kernel over f64 data in [0,1) that combines libdevice double-precision
// functions, e.g. what a physics code computes per cell. Eight-byte accesses: a warp
// reads 256 contiguous bytes (8 sectors, the minimum). Results must match the GPU within
// the documented ulp error of each function. Correct: no findings.
//
// warpcheck-launch: --kernel doubleMath --grid 2 --block 256 --arg x=f64[n]:rand --arg out=f64[n] --arg n=500
// warpcheck-expect: clean

__global__ void doubleMath(const double* x, double* out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        double v = x[i];
        double a = sqrt(v) + exp(-v) * log1p(v);
        double b = sin(v) * cos(2.0 * v) + pow(v + 1.0, 1.5);
        double c = atan2(v, 1.0 - v);
        out[i] = fma(a, b, c);
    }
}
