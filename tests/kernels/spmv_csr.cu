// Sparse matrix-vector product in CSR format: scalar (thread per row) vs vector (warp per row)
// Launch 1 assembles a periodic banded 256x256 matrix with 32 nonzeros per row (columns
// r-16 .. r+15 mod 256) on the device, one thread per nonzero. Launch 2 is the scalar
// kernel: lane r walks row r, so at each step the 32 lanes of a warp read vals[] and
// colIdx[] 32 elements apart (32 sectors per request: uncoalesced(32) on the marked line;
// the x[] gather is contiguous). Launch 3 is the vector kernel: a warp per row reads the
// row's 32 entries in one coalesced request and reduces with shuffles. Otherwise correct.
//
// warpcheck-launch: --kernel buildBandedCsr --grid 32 --block 256 --arg rowPtr=i32[257] --arg colIdx=i32[8192] --arg vals=f32[8192] --arg numRows=256 --arg band=32
// warpcheck-launch: --kernel spmvCsrScalar --grid 2 --block 128 --arg rowPtr=i32[257] --arg colIdx=i32[8192] --arg vals=f32[8192] --arg x=f32[256]:rand --arg y=f32[256] --arg numRows=256
// warpcheck-launch: --kernel spmvCsrVector --grid 32 --block 256 --arg rowPtr=i32[257] --arg colIdx=i32[8192] --arg vals=f32[8192] --arg x=f32[256]:rand --arg yVec=f32[256] --arg numRows=256
// warpcheck-expect: findings

// One thread per nonzero: row r holds columns (r - band/2 + c) mod numRows, c = 0..band-1,
// with a dominant diagonal.
__global__ void buildBandedCsr(int* rowPtr, int* colIdx, float* vals, int numRows, int band)
{
    int e = blockIdx.x * blockDim.x + threadIdx.x;
    int nnz = numRows * band;
    if (e <= numRows) {
        rowPtr[e] = e * band;
    }
    if (e < nnz) {
        int r = e / band;
        int c = e % band;
        int offset = c - band / 2;
        colIdx[e] = (r + offset + numRows) % numRows;
        vals[e] = (offset == 0) ? (float)band : -1.0f / (float)(1 + abs(offset));
    }
}

__global__ void spmvCsrScalar(const int* rowPtr, const int* colIdx, const float* vals,
                              const float* x, float* y, int numRows)
{
    int row = blockIdx.x * blockDim.x + threadIdx.x;
    if (row < numRows) {
        float dot = 0.0f;
        int rowEnd = rowPtr[row + 1];
        for (int jj = rowPtr[row]; jj < rowEnd; jj++) {
            dot += vals[jj] * x[colIdx[jj]]; //~ uncoalesced(32)
        }
        y[row] = dot;
    }
}

__global__ void spmvCsrVector(const int* rowPtr, const int* colIdx, const float* vals,
                              const float* x, float* yVec, int numRows)
{
    int threadId = blockIdx.x * blockDim.x + threadIdx.x;
    int row = threadId / 32;
    int lane = threadId % 32;
    if (row < numRows) {
        float sum = 0.0f;
        int rowEnd = rowPtr[row + 1];
        for (int jj = rowPtr[row] + lane; jj < rowEnd; jj += 32) {
            sum += vals[jj] * x[colIdx[jj]];
        }
        for (int offset = 16; offset > 0; offset /= 2) {
            sum += __shfl_down_sync(0xffffffffu, sum, offset);
        }
        if (lane == 0) {
            yVec[row] = sum;
        }
    }
}
