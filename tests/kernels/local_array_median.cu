// 3x3 median filter with a per-thread local array sorted by insertion sort
// Each thread copies its 3x3 neighbourhood (clamped at the border) into float window[9]
// and sorts it with an insertion sort whose inner loop indexes the array with a run-time
// variable, which keeps the array in local memory rather than registers. Local memory is
// private to each thread, so nothing here can race. Correct: no findings.
//
// warpcheck-launch: --kernel median3x3 --grid 2,8 --block 32,8 --arg in=f32[width*height]:rand --arg out=f32[width*height] --arg width=64 --arg height=64
// warpcheck-expect: clean

__global__ void median3x3(const float* in, float* out, int width, int height)
{
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    int y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x >= width || y >= height) {
        return;
    }

    float window[9];
    int count = 0;
    for (int dy = -1; dy <= 1; ++dy) {
        int yy = min(max(y + dy, 0), height - 1);
        for (int dx = -1; dx <= 1; ++dx) {
            int xx = min(max(x + dx, 0), width - 1);
            window[count++] = in[yy * width + xx];
        }
    }

    for (int i = 1; i < 9; ++i) {
        float key = window[i];
        int j = i - 1;
        while (j >= 0 && window[j] > key) {
            window[j + 1] = window[j];
            --j;
        }
        window[j + 1] = key;
    }

    out[y * width + x] = window[4];
}
