// Tiles of 16 threads (cooperative_groups::tiled_partition<16>) reduce through shared
// memory and sync with the generic thread_group::sync(), as NVIDIA's
// simpleCooperativeGroups sample does: both halves of a warp run `__syncwarp` together,
// each with its own half's member mask (0x0000ffff and 0xffff0000). Each lane is in its
// own mask, so there is no syncwarp-mask finding, and the syncs order the tile's shared
// accesses, so there is no race. Clean; the program checks the sums itself.
//
// warpcheck-exit: 0
// warpcheck-stdout: tile sums: PASS

#include <cooperative_groups.h>
#include <cstdio>
#include <cuda_runtime.h>

namespace cg = cooperative_groups;

__device__ int tile_sum(cg::thread_group g, int *x, int val) {
  int lane = g.thread_rank();
  for (int i = g.size() / 2; i > 0; i /= 2) {
    x[lane] = val;
    g.sync();
    if (lane < i) val += x[lane + i];
    g.sync();
  }
  return val;
}

__global__ void sums(int *out) {
  extern __shared__ int workspace[];
  cg::thread_block block = cg::this_thread_block();
  cg::thread_block_tile<16> tile = cg::tiled_partition<16>(block);
  int offset = block.thread_rank() - tile.thread_rank();
  int total = tile_sum(tile, workspace + offset, tile.thread_rank());
  if (tile.thread_rank() == 0) out[block.thread_rank() / 16] = total;
}

int main() {
  const int threads = 64, tiles = threads / 16;
  int *d = nullptr, h[tiles] = {};
  cudaMalloc(&d, sizeof(h));
  sums<<<1, threads, threads * sizeof(int)>>>(d);
  cudaMemcpy(h, d, sizeof(h), cudaMemcpyDeviceToHost);
  bool ok = true;
  for (int t = 0; t < tiles; t++) ok = ok && h[t] == 15 * 16 / 2;
  printf("tile sums: %s\n", ok ? "PASS" : "FAIL");
  cudaFree(d);
  return ok ? 0 : 1;
}
