// A matrix transpose through a shared-memory tile, run twice (A -> B -> A). The tile is
// written along rows and read along columns: without padding (`[32][33]`) the 32 lanes of
// a warp read 32 words of one bank, a 32-way bank conflict (a warning, the program is
// correct). The HTML report (`--report`) shows that line as the hot one.
//
// warpcheck-exit: 0
// warpcheck-stdout: Test PASSED

#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>

#define TILE 32

__global__ void transpose(const float *in, float *out, int n) {
  __shared__ float tile[TILE][TILE];
  int x = blockIdx.x * TILE + threadIdx.x;
  int y = blockIdx.y * TILE + threadIdx.y;
  tile[threadIdx.y][threadIdx.x] = in[y * n + x];
  __syncthreads();
  int tx = blockIdx.y * TILE + threadIdx.x;
  int ty = blockIdx.x * TILE + threadIdx.y;
  out[ty * n + tx] = tile[threadIdx.x][threadIdx.y]; //~ bank-conflict
}

int main() {
  const int n = 128;
  size_t bytes = n * n * sizeof(float);
  float *a = (float *)malloc(bytes), *b = (float *)malloc(bytes);
  for (int i = 0; i < n * n; ++i) a[i] = (float)i;
  float *da, *db;
  cudaMalloc(&da, bytes);
  cudaMalloc(&db, bytes);
  cudaMemcpy(da, a, bytes, cudaMemcpyHostToDevice);
  dim3 grid(n / TILE, n / TILE), block(TILE, TILE);
  transpose<<<grid, block>>>(da, db, n); //~ launch
  transpose<<<grid, block>>>(db, da, n); //~ launch
  cudaMemcpy(b, db, bytes, cudaMemcpyDeviceToHost);
  cudaMemcpy(a, da, bytes, cudaMemcpyDeviceToHost);
  for (int y = 0; y < n; ++y)
    for (int x = 0; x < n; ++x)
      if (b[x * n + y] != (float)(y * n + x) || a[y * n + x] != (float)(y * n + x)) {
        printf("Test FAILED at (%d, %d)\n", x, y);
        return 1;
      }
  printf("Test PASSED\n");
  cudaFree(da);
  cudaFree(db);
  free(a);
  free(b);
  return 0;
}
