// 2D convolution with a 5x5 mask in constant memory (static initialiser)
// One thread per output pixel on a 2D grid; the normalised binomial mask lives in
// __constant__ memory with an initialiser, so every lane of a warp reads the same mask
// word (the broadcast case constant memory is built for). Pixels outside the image count
// as zero. Input loads are rows shifted by -2..+2 floats (at most 5 sectors per warp).
// Correct: no findings.
//
// warpcheck-launch: --kernel convolution2d --grid 3,8 --block 32,8 --arg in=f32[width*height]:rand --arg out=f32[width*height] --arg width=96 --arg height=64
// warpcheck-expect: clean

#define MASK_DIM 5
#define MASK_RADIUS (MASK_DIM / 2)

__constant__ float mask[MASK_DIM * MASK_DIM] = {
    1.0f / 256, 4.0f / 256, 6.0f / 256, 4.0f / 256, 1.0f / 256,
    4.0f / 256, 16.0f / 256, 24.0f / 256, 16.0f / 256, 4.0f / 256,
    6.0f / 256, 24.0f / 256, 36.0f / 256, 24.0f / 256, 6.0f / 256,
    4.0f / 256, 16.0f / 256, 24.0f / 256, 16.0f / 256, 4.0f / 256,
    1.0f / 256, 4.0f / 256, 6.0f / 256, 4.0f / 256, 1.0f / 256,
};

__global__ void convolution2d(const float* in, float* out, int width, int height)
{
    int col = blockIdx.x * blockDim.x + threadIdx.x;
    int row = blockIdx.y * blockDim.y + threadIdx.y;
    if (col >= width || row >= height) {
        return;
    }

    float acc = 0.0f;
    for (int i = 0; i < MASK_DIM; ++i) {
        int r = row - MASK_RADIUS + i;
        for (int j = 0; j < MASK_DIM; ++j) {
            int c = col - MASK_RADIUS + j;
            if (r >= 0 && r < height && c >= 0 && c < width) {
                acc += in[r * width + c] * mask[i * MASK_DIM + j];
            }
        }
    }
    out[row * width + col] = acc;
}
