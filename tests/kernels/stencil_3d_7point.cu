// 3D 7-point stencil with 3D thread blocks (32x4x2) on a 3D grid
// One thread per interior cell of a 64x16x8 volume: out = c0*u + c1*(sum of the 6 face
// neighbours); boundary cells are copied. Blocks are 3D (threadIdx.x/y/z all used), the
// grid is 3D, and the fastest-varying index x maps to threadIdx.x so each warp reads
// one 128-byte row (x +/- 1 shifts by one float, below the coalescing threshold).
// Correct: no findings.
//
// warpcheck-launch: --kernel stencil3d --grid 2,4,4 --block 32,4,2 --arg u=f32[nx*ny*nz]:rand --arg out=f32[nx*ny*nz] --arg nx=64 --arg ny=16 --arg nz=8 --arg c0=0.4 --arg c1=0.1
// warpcheck-expect: clean

__global__ void stencil3d(const float* u, float* out, int nx, int ny, int nz, float c0, float c1)
{
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    int y = blockIdx.y * blockDim.y + threadIdx.y;
    int z = blockIdx.z * blockDim.z + threadIdx.z;
    if (x >= nx || y >= ny || z >= nz) {
        return;
    }

    int plane = nx * ny;
    int i = z * plane + y * nx + x;
    if (x == 0 || y == 0 || z == 0 || x == nx - 1 || y == ny - 1 || z == nz - 1) {
        out[i] = u[i];
        return;
    }
    float neighbours = u[i - 1] + u[i + 1] + u[i - nx] + u[i + nx] + u[i - plane] + u[i + plane];
    out[i] = c0 * u[i] + c1 * neighbours;
}
