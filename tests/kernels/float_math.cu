// Single-precision math: sinf, cosf, expf, logf, sqrtf, rsqrtf, powf, fmaf and intrinsics
// precise[] combines the accurate library functions; fast[] uses the hardware
// approximations __expf, __sinf, __logf and __fdividef on the same inputs, the classic
// speed/accuracy trade-off. The emulator must reproduce each within its documented
// error bound. Inputs are in [0,1), shifted to avoid log(0). Correct: no findings.
//
// warpcheck-launch: --kernel floatMath --grid 4 --block 256 --arg x=f32[n]:rand --arg precise=f32[n] --arg fast=f32[n] --arg n=1000
// warpcheck-expect: clean

__global__ void floatMath(const float* x, float* precise, float* fast, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        float v = x[i] + 0.5f;
        float p = sinf(v) * cosf(v) + expf(-v) * logf(v) + sqrtf(v) * rsqrtf(v + 1.0f);
        precise[i] = fmaf(p, powf(v, 0.75f), 1.0f);
        float f = __sinf(v) + __expf(-v) * __logf(v);
        fast[i] = __fdividef(f, v);
    }
}
