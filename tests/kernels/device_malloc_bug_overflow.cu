// Heap overflow: thread 0 mallocs a tile of blockDim.x floats for its block, but every
// thread stores one element to the right (a shifted copy), so the last thread writes one
// float past the end of the tile. Bug: must report out-of-bounds at that store.
//
// warpcheck-launch: --kernel shiftRight --grid 1 --block 64 --arg in=f32[64]:rand --arg out=f32[64]
// warpcheck-expect: findings

__global__ void shiftRight(const float *in, float *out) {
  __shared__ float *tile;
  int t = threadIdx.x;
  if (t == 0) tile = (float *)malloc(blockDim.x * sizeof(float));
  __syncthreads();
  if (tile == NULL) return;
  tile[t + 1] = in[t]; //~ out-of-bounds
  __syncthreads();
  out[t] = t == 0 ? 0.0f : tile[t];
  __syncthreads();
  if (t == 0) free(tile);
}
