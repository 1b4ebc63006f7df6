/*
 * warpcheck shim for <cooperative_groups.h>: thread groups as CUDA 12 defines
 * them, built on the same PTX that CUDA's implementation uses.
 *
 *   thread_block          this_thread_block(); sync() is bar.sync 0.
 *   thread_block_tile<N>  tiled_partition<N>(parent), N a power of two <= 32.
 *                         A tile is N consecutive lanes of one warp (threads
 *                         are numbered x-fastest, warps are 32 consecutive
 *                         threads); sync() is bar.warp.sync with the tile's
 *                         lanes, shfl* are shfl.sync with width N.
 *                         N from 64 to 1024 (a power of two) is a multi-warp
 *                         tile of N/32 whole warps: sync() is the named
 *                         barrier 1 + meta_group_rank() with N threads
 *                         (__syncthreads() when a block has more than 15
 *                         such tiles), and cooperative_groups::reduce goes
 *                         through shared memory. block_tile_memory and
 *                         this_thread_block(memory) exist for CUDA 12 code;
 *                         the tiles need no scratch of the program's.
 *   thread_group          the type-erased form (tiled_partition(parent, n)).
 *   coalesced_group       coalesced_threads(): the lanes active now
 *                         (activemask).
 *   grid_group            this_grid(). sync() is the emulator's grid-wide
 *                         barrier (__warpcheck_grid_sync, between two
 *                         __syncthreads()), which completes when every
 *                         block of a cooperative launch has arrived; in a
 *                         launch that is not cooperative a grid of several
 *                         blocks deadlocks there (a GPU would too, or
 *                         worse). is_valid() cannot tell how the kernel was
 *                         launched and returns true.
 */
#ifndef WARPCHECK_COOPERATIVE_GROUPS_H
#define WARPCHECK_COOPERATIVE_GROUPS_H
#define _COOPERATIVE_GROUPS_H_ /* CUDA's include guard */

#include "warpcheck_prelude.h"

namespace cooperative_groups {

namespace details {
#define __WARPCHECK_CG static __device__ __inline__ __attribute__((always_inline, nodebug))

__WARPCHECK_CG unsigned int lane_id() { return __nvvm_read_ptx_sreg_laneid(); }
/* Linear rank of this thread in its block: x fastest, then y, then z. */
__WARPCHECK_CG unsigned int block_thread_rank() {
  return (threadIdx.z * blockDim.y + threadIdx.y) * blockDim.x + threadIdx.x;
}
__WARPCHECK_CG unsigned int block_num_threads() {
  return blockDim.x * blockDim.y * blockDim.z;
}
__WARPCHECK_CG unsigned long long grid_block_rank() {
  return ((unsigned long long)blockIdx.z * gridDim.y + blockIdx.y) * gridDim.x +
         blockIdx.x;
}
__WARPCHECK_CG unsigned long long grid_num_blocks() {
  return (unsigned long long)gridDim.x * gridDim.y * gridDim.z;
}
/* The lanes of this thread's tile of `size` lanes, as a warp lane mask. */
__WARPCHECK_CG unsigned int tile_mask(unsigned int size) {
  if (size >= 32)
    return 0xffffffffu;
  return ((1u << size) - 1u) << (lane_id() & ~(size - 1u));
}

/* Synchronises a multi-warp tile of `size` threads: the named barrier of the
 * tile (ids 1 to 15; id 0 is __syncthreads'), or the whole block when it has
 * more tiles than there are named barriers. */
__WARPCHECK_CG void tile_barrier(unsigned int size) {
  unsigned int tiles = (block_num_threads() + size - 1u) / size;
  if (tiles > 15u) {
    __syncthreads();
    return;
  }
  unsigned int id = 1u + block_thread_rank() / size;
  asm volatile("barrier.sync %0, %1;" ::"r"(id), "r"(size) : "memory");
}

/* The grid-wide barrier, which warpcheck's emulator implements: every thread
 * of the grid waits there until all have arrived. Only a cooperative launch
 * (cudaLaunchCooperativeKernel) has every block resident at once; elsewhere a
 * grid of more than one block deadlocks, as it would on a GPU. */
extern "C" __device__ void __warpcheck_grid_sync(void);
static __device__ __noinline__ void grid_barrier() {
  __syncthreads();
  __warpcheck_grid_sync();
  __syncthreads();
}

enum group_kind : unsigned int {
  kind_thread_block = 0,
  kind_tile = 1,
  kind_coalesced = 2,
  kind_grid = 3,
};

/* Types for which __shfl_sync has an overload; others are shuffled as 32-bit
 * words. */
template <typename T> struct native_shuffle { static const bool value = false; };
#define __WARPCHECK_NATIVE_SHUFFLE(T)                                          \
  template <> struct native_shuffle<T> { static const bool value = true; };
__WARPCHECK_NATIVE_SHUFFLE(int)
__WARPCHECK_NATIVE_SHUFFLE(unsigned int)
__WARPCHECK_NATIVE_SHUFFLE(long)
__WARPCHECK_NATIVE_SHUFFLE(unsigned long)
__WARPCHECK_NATIVE_SHUFFLE(long long)
__WARPCHECK_NATIVE_SHUFFLE(unsigned long long)
__WARPCHECK_NATIVE_SHUFFLE(float)
__WARPCHECK_NATIVE_SHUFFLE(double)
#undef __WARPCHECK_NATIVE_SHUFFLE

template <bool Native> struct shuffler;
template <> struct shuffler<true> {
  template <typename T> __device__ static T idx(unsigned m, T v, int l, int w) {
    return __shfl_sync(m, v, l, w);
  }
  template <typename T> __device__ static T up(unsigned m, T v, unsigned d, int w) {
    return __shfl_up_sync(m, v, d, w);
  }
  template <typename T> __device__ static T down(unsigned m, T v, unsigned d, int w) {
    return __shfl_down_sync(m, v, d, w);
  }
  template <typename T> __device__ static T bfly(unsigned m, T v, int l, int w) {
    return __shfl_xor_sync(m, v, l, w);
  }
};
template <> struct shuffler<false> {
#define __WARPCHECK_WORDWISE(NAME, FN, ARG_T)                                  \
  template <typename T>                                                        \
  __device__ static T NAME(unsigned m, T v, ARG_T a, int w) {                  \
    const unsigned words = (sizeof(T) + sizeof(int) - 1) / sizeof(int);        \
    int buffer[words];                                                         \
    __builtin_memcpy(buffer, &v, sizeof(T));                                   \
    for (unsigned i = 0; i < words; ++i)                                       \
      buffer[i] = FN(m, buffer[i], a, w);                                      \
    T r;                                                                       \
    __builtin_memcpy(&r, buffer, sizeof(T));                                   \
    return r;                                                                  \
  }
  __WARPCHECK_WORDWISE(idx, __shfl_sync, int)
  __WARPCHECK_WORDWISE(up, __shfl_up_sync, unsigned)
  __WARPCHECK_WORDWISE(down, __shfl_down_sync, unsigned)
  __WARPCHECK_WORDWISE(bfly, __shfl_xor_sync, int)
#undef __WARPCHECK_WORDWISE
};
template <typename T> struct shuffle_for : shuffler<native_shuffle<T>::value> {};
} /* namespace details */

/* The type-erased group: a kind plus one parameter (the tile size, or the
 * lane mask of a coalesced group). */
class thread_group {
protected:
  details::group_kind kind_;
  unsigned int parameter_;

  __device__ thread_group(details::group_kind kind, unsigned int parameter)
      : kind_(kind), parameter_(parameter) {}

public:
  __device__ unsigned long long num_threads() const {
    switch (kind_) {
    case details::kind_thread_block:
      return details::block_num_threads();
    case details::kind_tile:
      return parameter_;
    case details::kind_coalesced:
      return (unsigned long long)__popc(parameter_);
    default:
      return details::grid_num_blocks() * details::block_num_threads();
    }
  }
  __device__ unsigned long long size() const { return num_threads(); }
  __device__ unsigned long long thread_rank() const {
    switch (kind_) {
    case details::kind_thread_block:
      return details::block_thread_rank();
    case details::kind_tile:
      return details::lane_id() & (parameter_ - 1u);
    case details::kind_coalesced:
      return (unsigned long long)__popc(parameter_ & __lanemask_lt());
    default:
      return details::grid_block_rank() * details::block_num_threads() +
             details::block_thread_rank();
    }
  }
  __device__ void sync() const {
    switch (kind_) {
    case details::kind_thread_block:
      __syncthreads();
      break;
    case details::kind_tile:
      __syncwarp(details::tile_mask(parameter_));
      break;
    case details::kind_coalesced:
      __syncwarp(parameter_);
      break;
    default:
      details::grid_barrier();
      break;
    }
  }
  __device__ bool is_valid() const { return true; }
};

/* CUDA 12's scratch for multi-warp tiles, which warpcheck's tiles do not use. */
template <unsigned int MaxBlockSize = 1024> struct block_tile_memory {
  unsigned long long reserved;
};

class thread_block : public thread_group {
  friend __device__ thread_block this_thread_block();
  template <unsigned int N>
  friend __device__ thread_block this_thread_block(block_tile_memory<N> &);
  __device__ thread_block() : thread_group(details::kind_thread_block, 0) {}

public:
  static __device__ void sync() { __syncthreads(); }
  static __device__ unsigned int thread_rank() { return details::block_thread_rank(); }
  static __device__ unsigned int size() { return details::block_num_threads(); }
  static __device__ unsigned int num_threads() { return details::block_num_threads(); }
  static __device__ dim3 group_index() { return dim3(blockIdx.x, blockIdx.y, blockIdx.z); }
  static __device__ dim3 thread_index() {
    return dim3(threadIdx.x, threadIdx.y, threadIdx.z);
  }
  static __device__ dim3 group_dim() { return dim3(blockDim.x, blockDim.y, blockDim.z); }
  static __device__ dim3 dim_threads() { return group_dim(); }
};

__device__ inline thread_block this_thread_block() { return thread_block(); }
template <unsigned int N>
__device__ thread_block this_thread_block(block_tile_memory<N> &) {
  return thread_block();
}

class grid_group : public thread_group {
  friend __device__ grid_group this_grid();
  __device__ grid_group() : thread_group(details::kind_grid, 0) {}

public:
  static __device__ bool is_valid() { return true; }
  static __device__ void sync() { details::grid_barrier(); }
  static __device__ unsigned long long thread_rank() {
    return details::grid_block_rank() * details::block_num_threads() +
           details::block_thread_rank();
  }
  static __device__ unsigned long long size() {
    return details::grid_num_blocks() * details::block_num_threads();
  }
  static __device__ unsigned long long num_threads() { return size(); }
  static __device__ unsigned long long block_rank() { return details::grid_block_rank(); }
  static __device__ unsigned long long num_blocks() { return details::grid_num_blocks(); }
  static __device__ dim3 group_dim() { return dim3(gridDim.x, gridDim.y, gridDim.z); }
  static __device__ dim3 dim_blocks() { return group_dim(); }
  static __device__ dim3 block_index() { return dim3(blockIdx.x, blockIdx.y, blockIdx.z); }
  static __device__ dim3 dim_threads() { return dim3(blockDim.x, blockDim.y, blockDim.z); }
};

__device__ inline grid_group this_grid() { return grid_group(); }

template <unsigned int Size, typename ParentT = void> class thread_block_tile;

/* The lanes of a statically sized tile. */
template <unsigned int Size>
class thread_block_tile<Size, void> : public thread_group {
  static_assert(Size >= 1 && Size <= 1024 && (Size & (Size - 1)) == 0,
                "warpcheck: tiled_partition<N> needs N a power of two from 1 to 1024");

protected:
  __device__ thread_block_tile() : thread_group(details::kind_tile, Size) {}
  template <unsigned int, typename> friend class thread_block_tile;
  template <unsigned int N, typename P>
  friend __device__ thread_block_tile<N, P> tiled_partition(const P &);

  static __device__ unsigned int lane_shift() {
    return Size >= 32 ? 0u : (details::lane_id() & ~(Size - 1u));
  }

public:
  static __device__ unsigned int build_mask() { return details::tile_mask(Size); }
  static __device__ void sync() {
    if (Size > 32u)
      details::tile_barrier(Size);
    else
      __syncwarp(build_mask());
  }
  static __device__ unsigned int thread_rank() {
    return Size > 32u ? details::block_thread_rank() & (Size - 1u)
                      : details::lane_id() & (Size - 1u);
  }
  static __device__ unsigned long long num_threads() { return Size; }
  static __device__ unsigned long long size() { return Size; }
  static __device__ unsigned int meta_group_rank() {
    return details::block_thread_rank() / Size;
  }
  static __device__ unsigned int meta_group_size() {
    return (details::block_num_threads() + Size - 1u) / Size;
  }

  template <typename T> __device__ T shfl(T var, int source_rank) const {
    return details::shuffle_for<T>::idx(build_mask(), var, source_rank, (int)Size);
  }
  template <typename T> __device__ T shfl_up(T var, unsigned int delta) const {
    return details::shuffle_for<T>::up(build_mask(), var, delta, (int)Size);
  }
  template <typename T> __device__ T shfl_down(T var, unsigned int delta) const {
    return details::shuffle_for<T>::down(build_mask(), var, delta, (int)Size);
  }
  template <typename T> __device__ T shfl_xor(T var, unsigned int lane_mask) const {
    return details::shuffle_for<T>::bfly(build_mask(), var, (int)lane_mask, (int)Size);
  }
  __device__ int any(int predicate) const { return __any_sync(build_mask(), predicate); }
  __device__ int all(int predicate) const { return __all_sync(build_mask(), predicate); }
  /* Bit i of the result is the predicate of the tile's thread of rank i. */
  __device__ unsigned int ballot(int predicate) const {
    return __ballot_sync(build_mask(), predicate) >> lane_shift();
  }
#if !defined(__CUDA_ARCH__) || __CUDA_ARCH__ >= 700
  template <typename T> __device__ unsigned int match_any(T value) const {
    return __match_any_sync(build_mask(), value) >> lane_shift();
  }
  template <typename T> __device__ unsigned int match_all(T value, int &pred) const {
    return __match_all_sync(build_mask(), value, &pred) >> lane_shift();
  }
#endif
};

/* A tile that remembers its parent's type converts to the plain tile. */
template <unsigned int Size, typename ParentT>
class thread_block_tile : public thread_block_tile<Size, void> {
  template <unsigned int N, typename P>
  friend __device__ thread_block_tile<N, P> tiled_partition(const P &);
  __device__ thread_block_tile() : thread_block_tile<Size, void>() {}
};

template <unsigned int Size, typename ParentT>
__device__ thread_block_tile<Size, ParentT> tiled_partition(const ParentT &) {
  return thread_block_tile<Size, ParentT>();
}

/* Dynamically sized tiles of a thread block or of a tile (size a power of two
 * up to 32). */
class __warpcheck_dynamic_tile : public thread_group {
public:
  __device__ explicit __warpcheck_dynamic_tile(unsigned int size)
      : thread_group(details::kind_tile, size) {}
};
__device__ inline thread_group tiled_partition(const thread_group &, unsigned int tile_size) {
  return __warpcheck_dynamic_tile(tile_size);
}
__device__ inline thread_group tiled_partition(const thread_block &, unsigned int tile_size) {
  return __warpcheck_dynamic_tile(tile_size);
}

class coalesced_group : public thread_group {
  friend __device__ coalesced_group coalesced_threads();
  __device__ explicit coalesced_group(unsigned int mask)
      : thread_group(details::kind_coalesced, mask) {}

public:
  __device__ unsigned int thread_rank() const {
    return (unsigned int)__popc(parameter_ & __lanemask_lt());
  }
  __device__ unsigned long long num_threads() const { return (unsigned long long)__popc(parameter_); }
  __device__ unsigned long long size() const { return num_threads(); }
  __device__ void sync() const { __syncwarp(parameter_); }
  __device__ unsigned int meta_group_rank() const { return 0; }
  __device__ unsigned int meta_group_size() const { return 1; }
  /* The rank-th set bit of the mask is the lane of that rank. */
  template <typename T> __device__ T shfl(T var, unsigned int source_rank) const {
    int lane = (int)__fns(parameter_, 0, (int)source_rank + 1);
    return details::shuffle_for<T>::idx(parameter_, var, lane, 32);
  }
  __device__ int any(int predicate) const { return __any_sync(parameter_, predicate); }
  __device__ int all(int predicate) const { return __all_sync(parameter_, predicate); }
};

__device__ inline coalesced_group coalesced_threads() {
  return coalesced_group(__activemask());
}

/* Free-function forms. */
template <typename GroupT> __device__ void sync(const GroupT &group) { group.sync(); }
template <typename GroupT> __device__ unsigned long long thread_rank(const GroupT &group) {
  return group.thread_rank();
}
template <typename GroupT> __device__ unsigned long long group_size(const GroupT &group) {
  return group.size();
}
template <typename GroupT> __device__ unsigned long long num_threads(const GroupT &group) {
  return group.num_threads();
}

#undef __WARPCHECK_CG
} /* namespace cooperative_groups */

#endif /* WARPCHECK_COOPERATIVE_GROUPS_H */
