// 2D Jacobi iteration step (5-point stencil) straight from global memory
// One thread per grid point on a 2D grid of 32x8 blocks; interior points take the mean
// of their four neighbours, boundary points are copied. The west/east loads are
// shifted by one float (5 sectors per warp instead of 4: alignment only, below the
// coalescing threshold); the north/south loads are whole aligned rows.
// Correct: no findings.
//
// warpcheck-launch: --kernel jacobi2d --grid 4,8 --block 32,8 --arg in=f32[nx*ny]:rand --arg out=f32[nx*ny] --arg nx=128 --arg ny=64
// warpcheck-expect: clean

__global__ void jacobi2d(const float* in, float* out, int nx, int ny)
{
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    int y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x >= nx || y >= ny) {
        return;
    }

    int i = y * nx + x;
    if (x == 0 || y == 0 || x == nx - 1 || y == ny - 1) {
        out[i] = in[i];
        return;
    }
    out[i] = 0.25f * (in[i - 1] + in[i + 1] + in[i - nx] + in[i + nx]);
}
