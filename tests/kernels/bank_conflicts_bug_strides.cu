// Shared-memory bank conflicts: stride 2, stride 32, and row-per-thread access to [32][32]
// decimateBy2: lane t reads s[2*t], so lanes t and t+16 hit the same bank at different
// words: bank-conflict(2). rowRecurrence: each thread runs a recurrence over its own
// 32-float row of rows[64*32], so at step j lane t reads word 32*t + j and all 32 lanes
// hit one bank: bank-conflict(32). matVecRows: thread t computes row t of a 32x32 tile,
// reading As[t][k], the same 32-way pattern (xs[k] is a broadcast). The cooperative tile
// loads are conflict-free. `#pragma unroll 1` keeps one scalar load per iteration.
//
// warpcheck-launch: --kernel decimateBy2 --grid 2 --block 256 --arg in=f32[1024]:rand --arg out=f32[512]
// warpcheck-launch: --kernel rowRecurrence --grid 2 --block 64 --arg rowsIn=f32[4096]:rand --arg rowsOut=f32[128] --arg decay=0.5
// warpcheck-launch: --kernel matVecRows --grid 2 --block 32 --arg A=f32[2048]:rand --arg x=f32[64]:rand --arg y=f32[64]
// warpcheck-expect: findings

__global__ void decimateBy2(const float* in, float* out)
{
    __shared__ float s[512];

    int t = threadIdx.x;
    int base = blockIdx.x * 512;
    s[t] = in[base + t];
    s[t + 256] = in[base + t + 256];
    __syncthreads();

    out[blockIdx.x * 256 + t] = s[2 * t]; //~ bank-conflict(2)
}

__global__ void rowRecurrence(const float* rowsIn, float* rowsOut, float decay)
{
    __shared__ float rows[64 * 32];

    int t = threadIdx.x;
    int base = blockIdx.x * 64 * 32;
    for (int k = 0; k < 32; ++k) {
        rows[k * 64 + t] = rowsIn[base + k * 64 + t];
    }
    __syncthreads();

    float acc = 0.0f;
#pragma unroll 1
    for (int j = 0; j < 32; ++j) {
        acc = acc * decay + rows[t * 32 + j]; //~ bank-conflict(32)
    }
    rowsOut[blockIdx.x * 64 + t] = acc;
}

__global__ void matVecRows(const float* A, const float* x, float* y)
{
    __shared__ float As[32][32];
    __shared__ float xs[32];

    int t = threadIdx.x;
    const float* tileA = A + blockIdx.x * 32 * 32;
    for (int r = 0; r < 32; ++r) {
        As[r][t] = tileA[r * 32 + t];
    }
    xs[t] = x[blockIdx.x * 32 + t];
    __syncthreads();

    float sum = 0.0f;
#pragma unroll 1
    for (int k = 0; k < 32; ++k) {
        sum += As[t][k] * xs[k]; //~ bank-conflict(32)
    }
    y[blockIdx.x * 32 + t] = sum;
}
