// Uncoalesced global accesses: stride 2, stride 32 and column-major indexing
// splitComplex de-interleaves complex numbers stored as (re, im) pairs: lane i reads
// z[2*i], so a warp's 128 bytes are spread over 256 bytes: uncoalesced(8) on each load
// line (the stores are coalesced). extractColumn reads column c of a 32-column row-major
// matrix: lanes are 128 bytes apart, uncoalesced(32). scaleColumnMajor indexes a
// row-major 64x64 array as a[x * height + y] with x = threadIdx.x: lanes are 256 bytes
// apart, uncoalesced(32) for the load and the store on the marked line.
//
// warpcheck-launch: --kernel splitComplex --grid 4 --block 256 --arg z=f32[2048]:rand --arg re=f32[n] --arg im=f32[n] --arg n=1024
// warpcheck-launch: --kernel extractColumn --grid 2 --block 128 --arg m=f32[8192]:rand --arg col=f32[rows] --arg rows=256 --arg cols=32 --arg c=5
// warpcheck-launch: --kernel scaleColumnMajor --grid 2,8 --block 32,8 --arg a=f32[4096]:rand --arg width=64 --arg height=64 --arg s=1.5
// warpcheck-expect: findings

__global__ void splitComplex(const float* z, float* re, float* im, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        re[i] = z[2 * i]; //~ uncoalesced(8)
        im[i] = z[2 * i + 1]; //~ uncoalesced(8)
    }
}

__global__ void extractColumn(const float* m, float* col, int rows, int cols, int c)
{
    int r = blockIdx.x * blockDim.x + threadIdx.x;
    if (r < rows) {
        col[r] = m[r * cols + c]; //~ uncoalesced(32)
    }
}

__global__ void scaleColumnMajor(float* a, int width, int height, float s)
{
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    int y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x < width && y < height) {
        a[x * height + y] *= s; //~ uncoalesced(32)
    }
}
