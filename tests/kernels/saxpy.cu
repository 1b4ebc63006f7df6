// SAXPY: y = a*x + y in single precision
// The BLAS level-1 kernel, one thread per element, in-place update of y. Each thread reads
// and writes only its own y[i], so the read-modify-write is not a race. All accesses are
// coalesced. Correct: no findings.
//
// warpcheck-launch: --kernel saxpy --grid 16 --block 256 --arg n=4096 --arg a=2.5 --arg x=f32[n]:rand --arg y=f32[n]:rand
// warpcheck-expect: clean

__global__ void saxpy(int n, float a, const float* __restrict__ x, float* __restrict__ y)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        y[i] = a * x[i] + y[i];
    }
}
