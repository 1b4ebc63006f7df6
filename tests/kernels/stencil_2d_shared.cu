// 2D heat-equation step (5-point Laplacian) with a shared tile and halos
// 32x8 blocks stage a (8+2) x (32+2) tile: every thread loads its point, the first and
// last thread rows load the north/south halo rows, and the first and last thread columns
// load the west/east halo cells (zero outside the domain). Tile rows are 34 words apart
// and a warp reads one row, so no bank conflicts. out = u + alpha * laplacian(u).
// Correct: no findings.
//
// warpcheck-launch: --kernel heat2d --grid 4,8 --block 32,8 --arg u=f32[nx*ny]:rand --arg out=f32[nx*ny] --arg nx=128 --arg ny=64 --arg alpha=0.1
// warpcheck-expect: clean

#define BX 32
#define BY 8

__device__ __forceinline__ float loadOrZero(const float* u, int x, int y, int nx, int ny)
{
    return (x >= 0 && x < nx && y >= 0 && y < ny) ? u[y * nx + x] : 0.0f;
}

__global__ void heat2d(const float* u, float* out, int nx, int ny, float alpha)
{
    __shared__ float tile[BY + 2][BX + 2];

    int tx = threadIdx.x;
    int ty = threadIdx.y;
    int x = blockIdx.x * BX + tx;
    int y = blockIdx.y * BY + ty;

    tile[ty + 1][tx + 1] = loadOrZero(u, x, y, nx, ny);
    if (ty == 0) {
        tile[0][tx + 1] = loadOrZero(u, x, y - 1, nx, ny);
    }
    if (ty == BY - 1) {
        tile[BY + 1][tx + 1] = loadOrZero(u, x, y + 1, nx, ny);
    }
    if (tx == 0) {
        tile[ty + 1][0] = loadOrZero(u, x - 1, y, nx, ny);
    }
    if (tx == BX - 1) {
        tile[ty + 1][BX + 1] = loadOrZero(u, x + 1, y, nx, ny);
    }
    __syncthreads();

    if (x < nx && y < ny) {
        float c = tile[ty + 1][tx + 1];
        float lap = tile[ty][tx + 1] + tile[ty + 2][tx + 1] + tile[ty + 1][tx] + tile[ty + 1][tx + 2] - 4.0f * c;
        out[y * nx + x] = c + alpha * lap;
    }
}
