// A block's scratch tile on the device heap (malloc/free in a kernel). Thread 0 mallocs a
// tile of blockDim.x ints and shares the pointer through shared memory; every thread
// stores its input there, and after a barrier reads its mirror element, so out holds each
// block's slice of in reversed; thread 0 frees the tile after the last read. A block whose
// malloc returns NULL writes -1. Correct: no findings; out[i] = 63 - i.
//
// warpcheck-launch: --kernel reverseThroughHeap --grid 1 --block 64 --arg in=i32[64]:iota --arg out=i32[64]
// warpcheck-expect: clean

__global__ void reverseThroughHeap(const int *in, int *out) {
  __shared__ int *tile;
  int t = threadIdx.x;
  int i = blockIdx.x * blockDim.x + t;
  if (t == 0) tile = (int *)malloc(blockDim.x * sizeof(int));
  __syncthreads();
  if (tile == NULL) {
    out[i] = -1;
    return;
  }
  tile[t] = in[i];
  __syncthreads();
  out[i] = tile[blockDim.x - 1 - t];
  __syncthreads();
  if (t == 0) free(tile);
}
