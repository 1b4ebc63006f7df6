// RGBA to grayscale on a 2D grid with uchar4 pixels
// One thread per pixel of a 96x64 image on a 2D grid of 32x8 blocks. Each pixel is read
// as one 4-byte uchar4 (a warp reads 128 contiguous bytes) and the luma is written as one
// byte (32 contiguous bytes per warp). Rounding uses __float2uint_rn; the image is passed
// as a u8 buffer of 4 bytes per pixel. Correct: no findings.
//
// warpcheck-launch: --kernel rgbaToGray --grid 3,8 --block 32,8 --arg rgba=u8[4*width*height]:rand --arg gray=u8[width*height] --arg width=96 --arg height=64
// warpcheck-expect: clean

__global__ void rgbaToGray(const uchar4* rgba, unsigned char* gray, int width, int height)
{
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    int y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x < width && y < height) {
        uchar4 px = rgba[y * width + x];
        float luma = 0.299f * px.x + 0.587f * px.y + 0.114f * px.z;
        gray[y * width + x] = (unsigned char)min(__float2uint_rn(luma), 255u);
    }
}
