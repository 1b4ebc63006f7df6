// OpenCL vector addition, one work-item per element
// c[i] = a[i] + b[i] with a bounds guard; the NDRange is padded to a multiple of the
// work-group size, so the last work-group has idle work-items. Fully coalesced.
// Correct: no findings.
//
// warpcheck-launch: --kernel vecAdd --grid 4 --block 256 --arg a=f32[n]:rand --arg b=f32[n]:rand --arg c=f32[n] --arg n=1000
// warpcheck-expect: clean

__kernel void vecAdd(__global const float* a, __global const float* b, __global float* c, const int n)
{
    int i = get_global_id(0);
    if (i < n) {
        c[i] = a[i] + b[i];
    }
}
