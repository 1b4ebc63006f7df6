/*
 * warpcheck shim for <cooperative_groups/reduce.h>: cooperative_groups::reduce
 * over a statically sized tile, as a butterfly of shfl.sync.bfly steps (each
 * thread ends with the reduction of the whole tile), and the function objects
 * plus, less, greater, bit_and, bit_or, bit_xor.
 */
#ifndef WARPCHECK_COOPERATIVE_GROUPS_REDUCE_H
#define WARPCHECK_COOPERATIVE_GROUPS_REDUCE_H

#include "../cooperative_groups.h"

namespace cooperative_groups {

template <typename T> struct plus {
  __device__ T operator()(const T &a, const T &b) const { return a + b; }
};
template <typename T> struct less {
  __device__ T operator()(const T &a, const T &b) const { return b < a ? b : a; }
};
template <typename T> struct greater {
  __device__ T operator()(const T &a, const T &b) const { return a < b ? b : a; }
};
template <typename T> struct bit_and {
  __device__ T operator()(const T &a, const T &b) const { return a & b; }
};
template <typename T> struct bit_or {
  __device__ T operator()(const T &a, const T &b) const { return a | b; }
};
template <typename T> struct bit_xor {
  __device__ T operator()(const T &a, const T &b) const { return a ^ b; }
};

template <unsigned int Size, typename ParentT, typename T, typename Op>
__device__ T reduce(const thread_block_tile<Size, ParentT> &tile, T value, Op op) {
  for (unsigned int offset = Size / 2; offset > 0; offset /= 2)
    value = op(value, tile.shfl_xor(value, offset));
  return value;
}

} /* namespace cooperative_groups */

#endif /* WARPCHECK_COOPERATIVE_GROUPS_REDUCE_H */
