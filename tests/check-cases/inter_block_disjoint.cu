// Blocks writing disjoint parts of a buffer do not race; overlapping halos do
// Each block writes its own 64 elements (no race), then also writes one element of the
// next block's range (a "halo" store): that element is written by two blocks.
//
// warpcheck-launch: --kernel fill --grid 4 --block 64 --arg out=f32[320]
// warpcheck-expect: findings

__global__ void fill(float* out)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    out[i] = 1.0f; //~ global-race
    if (threadIdx.x == 0) {
        out[i + 64] = 2.0f; //~ global-race
    }
}
