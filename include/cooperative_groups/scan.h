/*
 * warpcheck shim for <cooperative_groups/scan.h>: inclusive_scan and
 * exclusive_scan over a statically sized tile (Hillis-Steele steps of
 * shfl.sync.up). The exclusive scan gives the tile's rank-0 thread a
 * value-initialised T, since it has no predecessor.
 */
#ifndef WARPCHECK_COOPERATIVE_GROUPS_SCAN_H
#define WARPCHECK_COOPERATIVE_GROUPS_SCAN_H

#include "reduce.h"

namespace cooperative_groups {

template <unsigned int Size, typename ParentT, typename T, typename Op>
__device__ T inclusive_scan(const thread_block_tile<Size, ParentT> &tile, T value, Op op) {
  unsigned int rank = tile.thread_rank();
  for (unsigned int distance = 1; distance < Size; distance *= 2) {
    T other = tile.shfl_up(value, distance);
    if (rank >= distance)
      value = op(other, value);
  }
  return value;
}
template <unsigned int Size, typename ParentT, typename T>
__device__ T inclusive_scan(const thread_block_tile<Size, ParentT> &tile, T value) {
  return inclusive_scan(tile, value, plus<T>());
}
template <unsigned int Size, typename ParentT, typename T, typename Op>
__device__ T exclusive_scan(const thread_block_tile<Size, ParentT> &tile, T value, Op op) {
  T inclusive = inclusive_scan(tile, value, op);
  T shifted = tile.shfl_up(inclusive, 1);
  return tile.thread_rank() == 0 ? T() : shifted;
}
template <unsigned int Size, typename ParentT, typename T>
__device__ T exclusive_scan(const thread_block_tile<Size, ParentT> &tile, T value) {
  return exclusive_scan(tile, value, plus<T>());
}

} /* namespace cooperative_groups */

#endif /* WARPCHECK_COOPERATIVE_GROUPS_SCAN_H */
