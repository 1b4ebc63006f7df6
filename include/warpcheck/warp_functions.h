/*
 * warpcheck shim: warp-level primitives — shuffles (shfl.sync, PTX ISA
 * 9.7.9.6), votes (vote.sync, 9.7.13.7), match (match.sync, 9.7.13.8),
 * reductions (redux.sync, 9.7.13.10) and __activemask (activemask, 9.7.13.9).
 *
 * The *_sync forms take the mask of lanes that take part, as in CUDA 9 and
 * later. The pre-Volta forms without a mask (__shfl, __ballot, __any, __all)
 * exist, as in CUDA, only when compiling for an architecture below sm_70.
 */
#ifndef WARPCHECK_WARP_FUNCTIONS_H
#define WARPCHECK_WARP_FUNCTIONS_H

#define __WARPCHECK_WARP static __device__ __inline__ __attribute__((always_inline, nodebug))

/* shfl.sync's `c` operand packs the segment mask (32 - width) << 8 with the
 * clamp value: 31 for idx/down/bfly (the last lane of the segment), 0 for up
 * (the first lane). The 64-bit forms shuffle the two 32-bit halves. */
#define __WARPCHECK_SHUFFLE_SYNC(NAME, OP, CLAMP, LANE_T)                      \
  __WARPCHECK_WARP int NAME(unsigned int mask, int var, LANE_T lane,           \
                            int width = 32) {                                  \
    return __nvvm_shfl_sync_##OP##_i32(mask, var, lane,                        \
                                       ((32 - width) << 8) | (CLAMP));         \
  }                                                                            \
  __WARPCHECK_WARP unsigned int NAME(unsigned int mask, unsigned int var,      \
                                     LANE_T lane, int width = 32) {            \
    return (unsigned int)NAME(mask, (int)var, lane, width);                    \
  }                                                                            \
  __WARPCHECK_WARP float NAME(unsigned int mask, float var, LANE_T lane,       \
                              int width = 32) {                                \
    return __nvvm_shfl_sync_##OP##_f32(mask, var, lane,                        \
                                       ((32 - width) << 8) | (CLAMP));         \
  }                                                                            \
  __WARPCHECK_WARP long long NAME(unsigned int mask, long long var,            \
                                  LANE_T lane, int width = 32) {               \
    int lo = (int)(unsigned long long)var;                                     \
    int hi = (int)((unsigned long long)var >> 32);                             \
    lo = NAME(mask, lo, lane, width);                                          \
    hi = NAME(mask, hi, lane, width);                                          \
    return (long long)(((unsigned long long)(unsigned int)hi << 32) |          \
                       (unsigned int)lo);                                      \
  }                                                                            \
  __WARPCHECK_WARP unsigned long long NAME(unsigned int mask,                  \
                                           unsigned long long var,             \
                                           LANE_T lane, int width = 32) {      \
    return (unsigned long long)NAME(mask, (long long)var, lane, width);        \
  }                                                                            \
  __WARPCHECK_WARP long NAME(unsigned int mask, long var, LANE_T lane,         \
                             int width = 32) {                                 \
    return (long)NAME(mask, (long long)var, lane, width);                      \
  }                                                                            \
  __WARPCHECK_WARP unsigned long NAME(unsigned int mask, unsigned long var,    \
                                      LANE_T lane, int width = 32) {           \
    return (unsigned long)NAME(mask, (long long)var, lane, width);             \
  }                                                                            \
  __WARPCHECK_WARP double NAME(unsigned int mask, double var, LANE_T lane,     \
                               int width = 32) {                               \
    return __builtin_bit_cast(                                                 \
        double, NAME(mask, __builtin_bit_cast(long long, var), lane, width));  \
  }

__WARPCHECK_SHUFFLE_SYNC(__shfl_sync, idx, 0x1f, int)
__WARPCHECK_SHUFFLE_SYNC(__shfl_up_sync, up, 0, unsigned int)
__WARPCHECK_SHUFFLE_SYNC(__shfl_down_sync, down, 0x1f, unsigned int)
__WARPCHECK_SHUFFLE_SYNC(__shfl_xor_sync, bfly, 0x1f, int)
#undef __WARPCHECK_SHUFFLE_SYNC

__WARPCHECK_WARP int __all_sync(unsigned int mask, int predicate) {
  return __nvvm_vote_all_sync(mask, predicate);
}
__WARPCHECK_WARP int __any_sync(unsigned int mask, int predicate) {
  return __nvvm_vote_any_sync(mask, predicate);
}
__WARPCHECK_WARP int __uni_sync(unsigned int mask, int predicate) {
  return __nvvm_vote_uni_sync(mask, predicate);
}
__WARPCHECK_WARP unsigned int __ballot_sync(unsigned int mask, int predicate) {
  return __nvvm_vote_ballot_sync(mask, predicate);
}
/* clang 14 has no __nvvm_activemask builtin; the instruction is the same. */
__WARPCHECK_WARP unsigned int __activemask(void) {
  unsigned int mask;
  __asm__ __volatile__("activemask.b32 %0;" : "=r"(mask));
  return mask;
}

#if !defined(__CUDA_ARCH__) || __CUDA_ARCH__ >= 700
__WARPCHECK_WARP unsigned int __match_any_sync(unsigned int mask,
                                               unsigned int value) {
  return __nvvm_match_any_sync_i32(mask, value);
}
__WARPCHECK_WARP unsigned int __match_any_sync(unsigned int mask, int value) {
  return __nvvm_match_any_sync_i32(mask, (unsigned int)value);
}
__WARPCHECK_WARP unsigned int __match_any_sync(unsigned int mask,
                                               unsigned long long value) {
  return __nvvm_match_any_sync_i64(mask, value);
}
__WARPCHECK_WARP unsigned int __match_any_sync(unsigned int mask,
                                               long long value) {
  return __nvvm_match_any_sync_i64(mask, (unsigned long long)value);
}
__WARPCHECK_WARP unsigned int __match_any_sync(unsigned int mask,
                                               unsigned long value) {
  return __nvvm_match_any_sync_i64(mask, (unsigned long long)value);
}
__WARPCHECK_WARP unsigned int __match_any_sync(unsigned int mask, long value) {
  return __nvvm_match_any_sync_i64(mask, (unsigned long long)value);
}
__WARPCHECK_WARP unsigned int __match_any_sync(unsigned int mask, float value) {
  return __nvvm_match_any_sync_i32(mask, __builtin_bit_cast(unsigned int, value));
}
__WARPCHECK_WARP unsigned int __match_any_sync(unsigned int mask,
                                               double value) {
  return __nvvm_match_any_sync_i64(
      mask, __builtin_bit_cast(unsigned long long, value));
}
__WARPCHECK_WARP unsigned int __match_all_sync(unsigned int mask,
                                               unsigned int value, int *pred) {
  return __nvvm_match_all_sync_i32p(mask, value, pred);
}
__WARPCHECK_WARP unsigned int __match_all_sync(unsigned int mask, int value,
                                               int *pred) {
  return __nvvm_match_all_sync_i32p(mask, (unsigned int)value, pred);
}
__WARPCHECK_WARP unsigned int __match_all_sync(unsigned int mask,
                                               unsigned long long value,
                                               int *pred) {
  return __nvvm_match_all_sync_i64p(mask, value, pred);
}
__WARPCHECK_WARP unsigned int __match_all_sync(unsigned int mask,
                                               long long value, int *pred) {
  return __nvvm_match_all_sync_i64p(mask, (unsigned long long)value, pred);
}
__WARPCHECK_WARP unsigned int __match_all_sync(unsigned int mask,
                                               unsigned long value, int *pred) {
  return __nvvm_match_all_sync_i64p(mask, (unsigned long long)value, pred);
}
__WARPCHECK_WARP unsigned int __match_all_sync(unsigned int mask, long value,
                                               int *pred) {
  return __nvvm_match_all_sync_i64p(mask, (unsigned long long)value, pred);
}
__WARPCHECK_WARP unsigned int __match_all_sync(unsigned int mask, float value,
                                               int *pred) {
  return __nvvm_match_all_sync_i32p(
      mask, __builtin_bit_cast(unsigned int, value), pred);
}
__WARPCHECK_WARP unsigned int __match_all_sync(unsigned int mask, double value,
                                               int *pred) {
  return __nvvm_match_all_sync_i64p(
      mask, __builtin_bit_cast(unsigned long long, value), pred);
}
#endif /* sm_70 */

#if !defined(__CUDA_ARCH__) || __CUDA_ARCH__ >= 800
/* redux.sync (9.7.13.10). The builtins take (value, membermask), the order of the PTX
 * operands `redux.sync.op.type d, a, membermask` — the reverse of the CUDA functions, and
 * of clang's own __clang_cuda_intrinsics.h, whose swapped arguments make the GPU fault with
 * an illegal instruction (found by crates/front/gpu/check_shims.sh on an H200). */
__WARPCHECK_WARP unsigned int __reduce_add_sync(unsigned int mask,
                                                unsigned int value) {
  return __nvvm_redux_sync_add(value, mask);
}
__WARPCHECK_WARP int __reduce_add_sync(unsigned int mask, int value) {
  return __nvvm_redux_sync_add(value, mask);
}
__WARPCHECK_WARP unsigned int __reduce_min_sync(unsigned int mask,
                                                unsigned int value) {
  return __nvvm_redux_sync_umin(value, mask);
}
__WARPCHECK_WARP int __reduce_min_sync(unsigned int mask, int value) {
  return __nvvm_redux_sync_min(value, mask);
}
__WARPCHECK_WARP unsigned int __reduce_max_sync(unsigned int mask,
                                                unsigned int value) {
  return __nvvm_redux_sync_umax(value, mask);
}
__WARPCHECK_WARP int __reduce_max_sync(unsigned int mask, int value) {
  return __nvvm_redux_sync_max(value, mask);
}
__WARPCHECK_WARP unsigned int __reduce_and_sync(unsigned int mask,
                                                unsigned int value) {
  return __nvvm_redux_sync_and(value, mask);
}
__WARPCHECK_WARP unsigned int __reduce_or_sync(unsigned int mask,
                                               unsigned int value) {
  return __nvvm_redux_sync_or(value, mask);
}
__WARPCHECK_WARP unsigned int __reduce_xor_sync(unsigned int mask,
                                                unsigned int value) {
  return __nvvm_redux_sync_xor(value, mask);
}
#endif /* sm_80 */

#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ < 700
/* Pre-Volta warp functions without a member mask (removed for sm_70+ in
 * CUDA 9): the whole warp takes part. */
#define __WARPCHECK_SHUFFLE_LEGACY(NAME, OP, CLAMP, LANE_T)                    \
  __WARPCHECK_WARP int NAME(int var, LANE_T lane, int width = 32) {            \
    return __nvvm_shfl_##OP##_i32(var, lane, ((32 - width) << 8) | (CLAMP));   \
  }                                                                            \
  __WARPCHECK_WARP unsigned int NAME(unsigned int var, LANE_T lane,            \
                                     int width = 32) {                         \
    return (unsigned int)NAME((int)var, lane, width);                          \
  }                                                                            \
  __WARPCHECK_WARP float NAME(float var, LANE_T lane, int width = 32) {        \
    return __nvvm_shfl_##OP##_f32(var, lane, ((32 - width) << 8) | (CLAMP));   \
  }                                                                            \
  __WARPCHECK_WARP long long NAME(long long var, LANE_T lane,                  \
                                  int width = 32) {                            \
    int lo = NAME((int)(unsigned long long)var, lane, width);                  \
    int hi = NAME((int)((unsigned long long)var >> 32), lane, width);          \
    return (long long)(((unsigned long long)(unsigned int)hi << 32) |          \
                       (unsigned int)lo);                                      \
  }                                                                            \
  __WARPCHECK_WARP double NAME(double var, LANE_T lane, int width = 32) {      \
    return __builtin_bit_cast(                                                 \
        double, NAME(__builtin_bit_cast(long long, var), lane, width));        \
  }
__WARPCHECK_SHUFFLE_LEGACY(__shfl, idx, 0x1f, int)
__WARPCHECK_SHUFFLE_LEGACY(__shfl_up, up, 0, unsigned int)
__WARPCHECK_SHUFFLE_LEGACY(__shfl_down, down, 0x1f, unsigned int)
__WARPCHECK_SHUFFLE_LEGACY(__shfl_xor, bfly, 0x1f, int)
#undef __WARPCHECK_SHUFFLE_LEGACY
__WARPCHECK_WARP int __all(int predicate) { return __nvvm_vote_all(predicate); }
__WARPCHECK_WARP int __any(int predicate) { return __nvvm_vote_any(predicate); }
__WARPCHECK_WARP unsigned int __ballot(int predicate) {
  return __nvvm_vote_ballot(predicate);
}
#endif /* below sm_70 */

#endif /* WARPCHECK_WARP_FUNCTIONS_H */
