// OpenCL 2D Jacobi step (5-point stencil) on a 2D NDRange
// One work-item per grid point in 32x8 work-groups; interior points take the mean of
// their four neighbours, boundary points are copied. West/east loads are shifted by one
// float (alignment only); north/south loads are whole rows. Correct: no findings.
//
// warpcheck-launch: --kernel jacobi2d --grid 4,8 --block 32,8 --arg in=f32[nx*ny]:rand --arg out=f32[nx*ny] --arg nx=128 --arg ny=64
// warpcheck-expect: clean

__kernel void jacobi2d(__global const float* in, __global float* out, const int nx, const int ny)
{
    int x = get_global_id(0);
    int y = get_global_id(1);
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
