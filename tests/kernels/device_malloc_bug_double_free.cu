// Double free on the device heap: thread 0 mallocs a block's tile and frees it on an
// early-exit path when the block's input starts negative; the common cleanup at the end
// frees it again. Bug: must report double-free at the second free.
//
// warpcheck-launch: --kernel clampTile --grid 1 --block 32 --arg in=i32[32]:fill(-3) --arg out=i32[32]
// warpcheck-expect: findings

__global__ void clampTile(const int *in, int *out) {
  __shared__ int *tile;
  int t = threadIdx.x;
  if (t == 0) tile = (int *)malloc(blockDim.x * sizeof(int));
  __syncthreads();
  if (tile == NULL) return;
  tile[t] = in[t];
  __syncthreads();
  out[t] = tile[0] < 0 ? 0 : tile[t];
  __syncthreads();
  if (t == 0 && tile[0] < 0) free(tile);
  if (t == 0) free(tile); //~ double-free
}
