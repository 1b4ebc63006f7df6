// Rodinia Gaussian elimination Fan2, row-per-thread mapping (GPUDrano Fig. 2a)
// Elimination step t: thread tid owns row x = tid + t + 1 and updates
// A[x][y] -= M[x][t] * A[t][y] for y = t .. N-1 (and B[x] once). Consecutive lanes own
// consecutive rows, so M[N*x + t] and A[N*x + y] are N floats (256 bytes) apart per lane:
// uncoalesced(32) on both marked lines, which GPUDrano flags because xt and xy have a
// tid coefficient of N. A[N*t + y] and B[t] are uniform (broadcast) and B[x] is
// contiguous. Same operations per element as gaussian_fan2_fixed.cu. No races.
//
// warpcheck-launch: --kernel fan2Rows --grid 1 --block 64 --arg M=f32[N*N]:rand --arg A=f32[N*N]:rand --arg B=f32[N]:rand --arg N=64 --arg t=3
// warpcheck-expect: findings

__global__ void fan2Rows(const float* M, float* A, float* B, int N, int t)
{
    int tid = blockIdx.x * blockDim.x + threadIdx.x;
    if (tid + t + 1 >= N) {
        return;
    }
    int x = tid + t + 1;
    for (int y = t; y < N; y++) {
        int xt = N * x + t;
        int xy = N * x + y;
        int ty = N * t + y;
        float m = M[xt]; //~ uncoalesced(32)
        A[xy] -= m * A[ty]; //~ uncoalesced(32)
        if (y == t) {
            B[x] -= m * B[t];
        }
    }
}
