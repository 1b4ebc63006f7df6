// Vector addition with an off-by-one bounds guard
// Same as vector_add.cu but the guard is `i <= n`, so thread i == n (block 3, thread 232)
// reads a[n] and b[n] and writes c[n], one element past the end of each 1000-element
// buffer. Bug: a correct tool reports out-of-bounds for the two loads and the store on
// the marked line (4 bytes past the end of a, b and c).
//
// warpcheck-launch: --kernel vecAdd --grid 4 --block 256 --arg a=f32[n]:rand --arg b=f32[n]:rand --arg c=f32[n] --arg n=1000
// warpcheck-expect: findings

__global__ void vecAdd(const float* a, const float* b, float* c, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i <= n) {
        c[i] = a[i] + b[i]; //~ out-of-bounds
    }
}
