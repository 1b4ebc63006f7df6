// Accumulating into a device buffer that was never initialised
// acc[i] += x[i] assumes the host zeroed acc (cudaMemset) before the launch; here it did
// not (the buffer is :uninit). Bug: the load of acc[i] on the marked line reads
// uninitialised global memory for every i < n (uninit-read), so the result is garbage.
// The store then initialises acc[i]; x is fully initialised.
//
// warpcheck-launch: --kernel accumulate --grid 4 --block 256 --arg x=f32[n]:rand --arg acc=f32[n]:uninit --arg n=1000
// warpcheck-expect: findings

__global__ void accumulate(const float* x, float* acc, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        acc[i] += x[i]; //~ uninit-read
    }
}
