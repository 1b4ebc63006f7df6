// Rodinia Gaussian elimination Fan2, column-per-thread mapping (GPUDrano Fig. 2b, fixed)
// The fix from the paper: thread tid owns column y = tid + t and loops over the rows
// x = t+1 .. N-1. Now M[N*x + t] is uniform across the warp (broadcast) and A[N*x + y],
// A[N*t + y] are contiguous (shifted by t floats: 5 sectors, below the threshold); only
// the thread with y == t updates B[x]. Same arithmetic per element as
// gaussian_fan2_bug_uncoalesced.cu, so the outputs are identical. Correct: no findings.
//
// warpcheck-launch: --kernel fan2Columns --grid 1 --block 64 --arg M=f32[N*N]:rand --arg A=f32[N*N]:rand --arg B=f32[N]:rand --arg N=64 --arg t=3
// warpcheck-expect: clean

__global__ void fan2Columns(const float* M, float* A, float* B, int N, int t)
{
    int tid = blockIdx.x * blockDim.x + threadIdx.x;
    if (tid + t >= N) {
        return;
    }
    int y = tid + t;
    for (int x = t + 1; x < N; x++) {
        int xt = N * x + t;
        int xy = N * x + y;
        int ty = N * t + y;
        float m = M[xt];
        A[xy] -= m * A[ty];
        if (y == t) {
            B[x] -= m * B[t];
        }
    }
}
