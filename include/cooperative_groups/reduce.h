/*
 * warpcheck shim for <cooperative_groups/reduce.h>: cooperative_groups::reduce
 * over a statically sized tile, as a butterfly of shfl.sync.bfly steps (each
 * thread ends with the reduction of the whole tile; a multi-warp tile combines
 * its warps' results through shared memory), and the function objects
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

namespace details {
/* A tile of one warp or less: a butterfly of shuffles. */
template <bool MultiWarp> struct tile_reduce {
  template <unsigned int Size, typename ParentT, typename T, typename Op>
  __device__ static T run(const thread_block_tile<Size, ParentT> &tile, T value, Op op) {
    for (unsigned int offset = Size / 2; offset > 0; offset /= 2)
      value = op(value, tile.shfl_xor(value, offset));
    return value;
  }
};
/* A multi-warp tile: each warp reduces its lanes, its lane 0 writes the result
 * to shared memory, and after the tile's barrier every thread combines its
 * tile's warps in rank order; the second barrier lets the slots be reused. */
template <> struct tile_reduce<true> {
  template <unsigned int Size, typename ParentT, typename T, typename Op>
  __device__ static T run(const thread_block_tile<Size, ParentT> &tile, T value, Op op) {
    __shared__ T partial[32];
    for (unsigned int offset = 16; offset > 0; offset /= 2)
      value = op(value, shuffle_for<T>::bfly(0xffffffffu, value, (int)offset, 32));
    unsigned int warp = block_thread_rank() / 32u;
    if (lane_id() == 0)
      partial[warp] = value;
    tile.sync();
    const unsigned int warps = Size / 32u;
    unsigned int first = warp / warps * warps;
    T result = partial[first];
    for (unsigned int i = 1; i < warps; ++i)
      result = op(result, partial[first + i]);
    tile.sync();
    return result;
  }
};
} /* namespace details */

template <unsigned int Size, typename ParentT, typename T, typename Op>
__device__ T reduce(const thread_block_tile<Size, ParentT> &tile, T value, Op op) {
  return details::tile_reduce<(Size > 32u)>::run(tile, value, op);
}

} /* namespace cooperative_groups */

#endif /* WARPCHECK_COOPERATIVE_GROUPS_REDUCE_H */
