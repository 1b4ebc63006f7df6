// __syncthreads() inside a branch taken by only some threads of the block
// The first 16 threads load a coefficient table and synchronise inside the branch, as if
// the barrier only concerned them. Bug 1: barrier-divergence, the barrier is reached by
// threads 0..15 only (half of warp 0; warp 1 never). Bug 2: threads 16..63 read table[]
// without having passed any barrier, so their reads race with the stores of threads
// 0..15 (shared-race on the store and the read line). By PTX semantics the barrier is
// released once the other threads exit, so this does not hang: no deadlock is expected.
//
// warpcheck-launch: --kernel scaleByTable --grid 2 --block 64 --arg coeffs=f32[16]:rand --arg in=f32[n]:rand --arg out=f32[n] --arg n=128
// warpcheck-expect: findings

#define TABLE_SIZE 16

__global__ void scaleByTable(const float* coeffs, const float* in, float* out, int n)
{
    __shared__ float table[TABLE_SIZE];

    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (threadIdx.x < TABLE_SIZE) {
        table[threadIdx.x] = 2.0f * coeffs[threadIdx.x]; //~ shared-race
        __syncthreads(); //~ barrier-divergence
    }

    if (i < n) {
        out[i] = in[i] * table[threadIdx.x % TABLE_SIZE]; //~ shared-race
    }
}
