// Benchmark: one Jacobi sweep of a 5-point stencil on a 2048 x 2048 grid
// 128 x 128 blocks of 16 x 16 threads, one thread per grid point: an interior point
// becomes the weighted sum of itself and its four neighbours (north, south, west, east),
// read straight from global memory; boundary points are copied unchanged. Row-major,
// `width` floats per row.
//
// warpcheck-launch: --kernel stencil5Point --grid 128,128 --block 16,16 --arg current=f32[width*height]:rand --arg next=f32[width*height] --arg width=2048 --arg height=2048
// warpcheck-expect: clean

__global__ void stencil5Point(const float* current, float* next, int width, int height)
{
    const int x = blockIdx.x * blockDim.x + threadIdx.x;
    const int y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x >= width || y >= height) {
        return;
    }
    const int at = y * width + x;
    if (x == 0 || y == 0 || x == width - 1 || y == height - 1) {
        next[at] = current[at];
        return;
    }
    const float centreWeight = 0.5f;
    const float neighbourWeight = 0.125f;
    next[at] = centreWeight * current[at]
             + neighbourWeight * (current[at - width] + current[at + width]
                                  + current[at - 1] + current[at + 1]);
}
