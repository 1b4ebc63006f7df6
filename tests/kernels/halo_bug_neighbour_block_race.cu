// Seam fix-up that writes into the neighbouring block's output (inter-block race)
// A 3-point smoothing kernel where thread 0 of every block except the first also rewrites
// out[i - 1], the last element of the previous block's segment, to "blend the seam".
// Bug: that element is also written by the last thread of the previous block in the same
// launch, and blocks are unordered: global-race (WAW between blocks b-1 and b, for
// b = 1..3) on the two marked stores. Inputs are only read, so the loads do not race.
//
// warpcheck-launch: --kernel smoothSegments --grid 4 --block 256 --arg in=f32[n]:rand --arg out=f32[n] --arg n=1024
// warpcheck-expect: findings

__global__ void smoothSegments(const float* in, float* out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        float l = in[max(i - 1, 0)];
        float r = in[min(i + 1, n - 1)];
        out[i] = 0.25f * l + 0.5f * in[i] + 0.25f * r; //~ global-race
    }
    if (threadIdx.x == 0 && blockIdx.x > 0 && i < n) {
        out[i - 1] = 0.5f * (in[i - 1] + in[i]); //~ global-race
    }
}
