// Everything the differential generator (crates/difftest) emits besides what
// tools/gpu/float_ops.cu covers, on 4096 deterministic inputs per op: integer arithmetic,
// division and remainder (by zero and INT_MIN / -1 too, through inline PTX), shifts by any
// count, bit operations, byte permutes and funnel shifts, compares and selects with NaN,
// every float <-> integer and f32 <-> f64 conversion intrinsic in every rounding mode,
// f64 arithmetic in every rounding mode, warp collectives (shuffles with every width and
// offsets past the warp, votes, reductions, match, partial masks) and the final values of
// order-independent atomics.
//
// Output, one line per op and input, sections in the order of the tables below:
//   NAME INDEX INPUT... RESULT
// in hex (8 digits for 32-bit values, 16 for 64-bit ones). Only NAME and RESULT (the last
// field) are hashed: tools/gpu/op_hashes.py gives one FNV-1a per NAME. tools/gpu/int_ops.sh
// runs it on the GPU; crates/cli/tests/it/int_ops.rs runs it under `warpcheck run` and
// compares.
//
// Inputs 0..1023 are all pairs of 32 edge values (a = E[i / 32], b = E[i % 32]); inputs
// 1024..2047 give every edge of a longer list to the first operand and small and negative
// counts to the others (shift counts 0..71 and -1..-40, bit-field positions and lengths);
// inputs 2048..4095 are random, drawn from classes (small, edge, power of two +-1, any
// bits; for floats also subnormals, half-integers and the ranges near 2^31, 2^32, 2^63).
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <cuda_runtime.h>

#define N 4096
#define FULL 0xffffffffu
typedef unsigned long long u64;
typedef long long s64;

// ---- Inline PTX for what C cannot say (undefined behaviour in C, or no intrinsic) ----
#define PTX_R_RR(NAME, INS)                                                                \
  __device__ __forceinline__ unsigned NAME(unsigned a, unsigned b) {                       \
    unsigned d;                                                                            \
    asm(INS " %0, %1, %2;" : "=r"(d) : "r"(a), "r"(b));                                    \
    return d;                                                                              \
  }
#define PTX_R_RRR(NAME, INS)                                                               \
  __device__ __forceinline__ unsigned NAME(unsigned a, unsigned b, unsigned c) {           \
    unsigned d;                                                                            \
    asm(INS " %0, %1, %2, %3;" : "=r"(d) : "r"(a), "r"(b), "r"(c));                        \
    return d;                                                                              \
  }
#define PTX_L_LR(NAME, INS)                                                                \
  __device__ __forceinline__ u64 NAME(u64 a, unsigned b) {                                 \
    u64 d;                                                                                 \
    asm(INS " %0, %1, %2;" : "=l"(d) : "l"(a), "r"(b));                                    \
    return d;                                                                              \
  }
#define PTX_R_R(NAME, INS)                                                                 \
  __device__ __forceinline__ unsigned NAME(unsigned a) {                                   \
    unsigned d;                                                                            \
    asm(INS " %0, %1;" : "=r"(d) : "r"(a));                                                \
    return d;                                                                              \
  }
PTX_R_RR(ptx_shl, "shl.b32")
PTX_R_RR(ptx_shr_u, "shr.u32")
PTX_R_RR(ptx_shr_s, "shr.s32")
PTX_L_LR(ptx_shl64, "shl.b64")
PTX_L_LR(ptx_shr_u64, "shr.u64")
PTX_L_LR(ptx_shr_s64, "shr.s64")
PTX_R_RR(ptx_div_u, "div.u32")
PTX_R_RR(ptx_rem_u, "rem.u32")
PTX_R_RR(ptx_div_s, "div.s32")
PTX_R_RR(ptx_rem_s, "rem.s32")
PTX_R_RR(ptx_mul24_hi_u, "mul24.hi.u32")
PTX_R_RR(ptx_mul24_hi_s, "mul24.hi.s32")
PTX_R_RRR(ptx_mad24_lo_u, "mad24.lo.u32")
PTX_R_RRR(ptx_mad_hi_u, "mad.hi.u32")
PTX_R_RRR(ptx_mad_hi_s, "mad.hi.s32")
PTX_R_RRR(ptx_bfe_u, "bfe.u32")
PTX_R_RRR(ptx_bfe_s, "bfe.s32")
PTX_R_RRR(ptx_prmt, "prmt.b32")
PTX_R_RRR(ptx_prmt_f4e, "prmt.b32.f4e")
PTX_R_RRR(ptx_prmt_b4e, "prmt.b32.b4e")
PTX_R_RRR(ptx_prmt_rc8, "prmt.b32.rc8")
PTX_R_RRR(ptx_prmt_ecl, "prmt.b32.ecl")
PTX_R_RRR(ptx_prmt_ecr, "prmt.b32.ecr")
PTX_R_RRR(ptx_prmt_rc16, "prmt.b32.rc16")
PTX_R_R(ptx_abs_s, "abs.s32")
PTX_R_R(ptx_bfind_u, "bfind.u32")
PTX_R_R(ptx_bfind_s, "bfind.s32")
PTX_R_R(ptx_bfind_shiftamt_u, "bfind.shiftamt.u32")
PTX_R_RRR(ptx_shf_l_clamp, "shf.l.clamp.b32")
PTX_R_RRR(ptx_shf_r_wrap, "shf.r.wrap.b32")
__device__ __forceinline__ unsigned ptx_bfi(unsigned f, unsigned b, unsigned pos, unsigned len) {
  unsigned d;
  asm("bfi.b32 %0, %1, %2, %3, %4;" : "=r"(d) : "r"(f), "r"(b), "r"(pos), "r"(len));
  return d;
}

// The generator's helpers, as crates/difftest/src/expr.rs writes them.
__device__ __forceinline__ unsigned wc_umin(unsigned a, unsigned b) { return a < b ? a : b; }
__device__ __forceinline__ unsigned wc_umax(unsigned a, unsigned b) { return a > b ? a : b; }
__device__ __forceinline__ unsigned wc_smin(unsigned a, unsigned b) { return (int)a < (int)b ? a : b; }
__device__ __forceinline__ unsigned wc_smax(unsigned a, unsigned b) { return (int)a > (int)b ? a : b; }
__device__ __forceinline__ unsigned wc_sdiv(unsigned a, unsigned b) { return (unsigned)((int)a / (int)((b & 0xffffu) | 1u)); }
__device__ __forceinline__ unsigned wc_srem(unsigned a, unsigned b) { return (unsigned)((int)a % (int)((b & 0xffffu) | 1u)); }
__device__ __forceinline__ unsigned wc_sar(unsigned a, unsigned b) { return (unsigned)((int)a >> (b & 31u)); }
__device__ __forceinline__ unsigned wc_mulwide(unsigned a, unsigned b, unsigned s) { return (unsigned)(((unsigned long long)a * b) >> (s & 63u)); }
__device__ __forceinline__ unsigned wc_rotl(unsigned a, unsigned b) { return (a << (b & 31u)) | (a >> ((32u - (b & 31u)) & 31u)); }

// Compare results as bit masks: bit k is the k-th comparison.
__device__ __forceinline__ unsigned ucmp(unsigned a, unsigned b) {
  return (a < b) | (a <= b) << 1 | (a == b) << 2 | (a != b) << 3 | (a > b) << 4 | (a >= b) << 5;
}
__device__ __forceinline__ unsigned scmp(int a, int b) {
  return (a < b) | (a <= b) << 1 | (a == b) << 2 | (a != b) << 3 | (a > b) << 4 | (a >= b) << 5;
}
__device__ __forceinline__ unsigned fcmp(float x, float y) {
  return (x < y) | (x <= y) << 1 | (x == y) << 2 | (x != y) << 3 | (x > y) << 4 | (x >= y) << 5 |
         (!(x >= y)) << 6 | (!(x < y)) << 7 | (x != x) << 8;
}
__device__ __forceinline__ unsigned dcmp(double x, double y) {
  return (x < y) | (x <= y) << 1 | (x == y) << 2 | (x != y) << 3 | (x > y) << 4 | (x >= y) << 5 |
         (!(x >= y)) << 6 | (!(x < y)) << 7 | (x != x) << 8;
}

// ---- The scalar ops: X(NAME, INPUTS, RESULT KIND, EXPRESSION) ----
// Inputs: a b c (u32; sa sb sc as int), x y z (f32), p q r (f64), l m (u64; sl sm as s64).
// Result kinds: W a 32-bit word, F an f32, D an f64, L a 64-bit word.
#define INT_OPS(X)                                                                         \
  X(add, "ab", W, a + b)                                                                   \
  X(sub, "ab", W, a - b)                                                                   \
  X(mul_lo, "ab", W, a * b)                                                                \
  X(mad_lo, "abc", W, a * b + c)                                                           \
  X(neg, "a", W, 0u - a)                                                                   \
  X(not_, "a", W, ~a)                                                                      \
  X(and_, "ab", W, a & b)                                                                  \
  X(or_, "ab", W, a | b)                                                                   \
  X(xor_, "ab", W, a ^ b)                                                                  \
  X(umulhi, "ab", W, __umulhi(a, b))                                                       \
  X(mulhi, "ab", W, __mulhi(sa, sb))                                                       \
  X(umul24, "ab", W, __umul24(a, b))                                                       \
  X(mul24, "ab", W, __mul24(sa, sb))                                                       \
  X(mul24_hi_u, "ab", W, ptx_mul24_hi_u(a, b))                                             \
  X(mul24_hi_s, "ab", W, ptx_mul24_hi_s(a, b))                                             \
  X(mad24_lo_u, "abc", W, ptx_mad24_lo_u(a, b, c))                                         \
  X(mad_hi_u, "abc", W, ptx_mad_hi_u(a, b, c))                                             \
  X(mad_hi_s, "abc", W, ptx_mad_hi_s(a, b, c))                                             \
  X(mul_wide_u, "ab", L, (u64)a * b)                                                       \
  X(mul_wide_s, "ab", L, (s64)sa * sb)                                                     \
  X(wc_mulwide, "abc", W, wc_mulwide(a, b, c))                                             \
  X(umul64hi, "lm", L, __umul64hi(l, m))                                                   \
  X(mul64hi, "lm", L, __mul64hi(sl, sm))                                                   \
  X(mul_lo64, "lm", L, l * m)                                                              \
  X(add64, "lm", L, l + m)                                                                 \
  X(uhadd, "ab", W, __uhadd(a, b))                                                         \
  X(hadd, "ab", W, __hadd(sa, sb))                                                         \
  X(urhadd, "ab", W, __urhadd(a, b))                                                       \
  X(rhadd, "ab", W, __rhadd(sa, sb))                                                       \
  X(usad, "abc", W, __usad(a, b, c))                                                       \
  X(sad, "abc", W, __sad(sa, sb, c))                                                       \
  X(umin, "ab", W, wc_umin(a, b))                                                          \
  X(umax, "ab", W, wc_umax(a, b))                                                          \
  X(smin, "ab", W, wc_smin(a, b))                                                          \
  X(smax, "ab", W, wc_smax(a, b))                                                          \
  X(ptx_abs_s, "a", W, ptx_abs_s(a)) /* abs(INT_MIN) is undefined in C */                 \
  X(udiv, "ab", W, a / (b | 1u))                                                           \
  X(urem, "ab", W, a % (b | 1u))                                                           \
  X(wc_sdiv, "ab", W, wc_sdiv(a, b))                                                       \
  X(wc_srem, "ab", W, wc_srem(a, b))                                                       \
  X(udiv_by_7, "a", W, a / 7u)                                                             \
  X(urem_by_96, "a", W, a % 96u)                                                           \
  X(urem_by_160, "a", W, a % 160u)                                                         \
  X(urem_by_4095, "a", W, a % 4095u)                                                       \
  X(sdiv_by_7, "a", W, sa / 7)                                                             \
  X(srem_by_7, "a", W, sa % 7)                                                             \
  X(sdiv_by_m3, "a", W, sa / -3)                                                           \
  X(ptx_div_u, "ab", W, ptx_div_u(a, b))                                                   \
  X(ptx_rem_u, "ab", W, ptx_rem_u(a, b))                                                   \
  X(ptx_div_s, "ab", W, ptx_div_s(a, b))                                                   \
  X(ptx_rem_s, "ab", W, ptx_rem_s(a, b))                                                   \
  X(udiv64, "lm", L, l / (m | 1u))                                                         \
  X(urem64, "lm", L, l % (m | 1u))                                                         \
  X(shl_masked, "ab", W, a << (b & 31u))                                                   \
  X(shr_masked, "ab", W, a >> (b & 31u))                                                   \
  X(wc_sar, "ab", W, wc_sar(a, b))                                                         \
  X(wc_rotl, "ab", W, wc_rotl(a, b))                                                       \
  X(ptx_shl, "ab", W, ptx_shl(a, b))                                                       \
  X(ptx_shr_u, "ab", W, ptx_shr_u(a, b))                                                   \
  X(ptx_shr_s, "ab", W, ptx_shr_s(a, b))                                                   \
  X(ptx_shl64, "lb", L, ptx_shl64(l, b))                                                   \
  X(ptx_shr_u64, "lb", L, ptx_shr_u64(l, b))                                               \
  X(ptx_shr_s64, "lb", L, ptx_shr_s64(l, b))                                               \
  X(funnelshift_l, "abc", W, __funnelshift_l(a, b, c))                                     \
  X(funnelshift_r, "abc", W, __funnelshift_r(a, b, c))                                     \
  X(funnelshift_lc, "abc", W, __funnelshift_lc(a, b, c))                                   \
  X(funnelshift_rc, "abc", W, __funnelshift_rc(a, b, c))                                   \
  X(ptx_shf_l_clamp, "abc", W, ptx_shf_l_clamp(a, b, c))                                   \
  X(ptx_shf_r_wrap, "abc", W, ptx_shf_r_wrap(a, b, c))                                     \
  X(popc, "a", W, __popc(a))                                                               \
  X(clz, "a", W, __clz(sa))                                                                \
  X(ffs, "a", W, __ffs(sa))                                                                \
  X(brev, "a", W, __brev(a))                                                               \
  X(popcll, "l", W, __popcll(l))                                                           \
  X(clzll, "l", W, __clzll(sl))                                                            \
  X(ffsll, "l", W, __ffsll(sl))                                                            \
  X(brevll, "l", L, __brevll(l))                                                           \
  X(ptx_bfind_u, "a", W, ptx_bfind_u(a))                                                   \
  X(ptx_bfind_s, "a", W, ptx_bfind_s(a))                                                   \
  X(ptx_bfind_shiftamt_u, "a", W, ptx_bfind_shiftamt_u(a))                                 \
  X(ptx_bfe_u, "abc", W, ptx_bfe_u(a, b, c))                                               \
  X(ptx_bfe_s, "abc", W, ptx_bfe_s(a, b, c))                                               \
  X(ptx_bfi, "abc", W, ptx_bfi(a, ~a, b, c))                                               \
  X(shift_mask_field, "ab", W, (a >> (b & 31u)) & 0x3ffu)                                  \
  X(byte_perm, "abc", W, __byte_perm(a, b, c))                                             \
  X(byte_perm_3210, "ab", W, __byte_perm(a, b, 0x3210u))                                   \
  X(byte_perm_0123, "ab", W, __byte_perm(a, b, 0x0123u))                                   \
  X(byte_perm_7531, "ab", W, __byte_perm(a, b, 0x7531u))                                   \
  X(byte_perm_89ab, "ab", W, __byte_perm(a, b, 0x89abu))                                   \
  X(byte_perm_f0e1, "ab", W, __byte_perm(a, b, 0xf0e1u))                                   \
  X(byte_perm_1c5d, "ab", W, __byte_perm(a, b, 0x1c5du))                                   \
  X(byte_perm_hi_bits, "ab", W, __byte_perm(a, b, 0xabcd4321u))                            \
  X(ptx_prmt, "abc", W, ptx_prmt(a, b, c))                                                 \
  X(ptx_prmt_f4e, "abc", W, ptx_prmt_f4e(a, b, c))                                         \
  X(ptx_prmt_b4e, "abc", W, ptx_prmt_b4e(a, b, c))                                         \
  X(ptx_prmt_rc8, "abc", W, ptx_prmt_rc8(a, b, c))                                         \
  X(ptx_prmt_ecl, "abc", W, ptx_prmt_ecl(a, b, c))                                         \
  X(ptx_prmt_ecr, "abc", W, ptx_prmt_ecr(a, b, c))                                         \
  X(ptx_prmt_rc16, "abc", W, ptx_prmt_rc16(a, b, c))                                       \
  X(ucmp, "ab", W, ucmp(a, b))                                                             \
  X(scmp, "ab", W, scmp(sa, sb))                                                           \
  X(select_u, "abc", W, (c & 1u) ? a : b)                                                  \
  X(select_cmp, "abc", W, sa < sb ? c : a)

#define FLOAT_OPS(X)                                                                       \
  X(fsub_rn, "xy", F, __fsub_rn(x, y))                                                     \
  X(fsub_rz, "xy", F, __fsub_rz(x, y))                                                     \
  X(fsub_ru, "xy", F, __fsub_ru(x, y))                                                     \
  X(fsub_rd, "xy", F, __fsub_rd(x, y))                                                     \
  X(fabsf, "x", F, fabsf(x))                                                               \
  X(fneg, "x", F, -x)                                                                      \
  X(fneg_of_add, "xy", F, -__fadd_rn(x, y))                                                \
  X(truncf, "x", F, truncf(x))                                                             \
  X(floorf, "x", F, floorf(x))                                                             \
  X(ceilf, "x", F, ceilf(x))                                                               \
  X(roundf, "x", F, roundf(x))                                                             \
  X(copysignf, "xy", F, copysignf(x, y))                                                   \
  X(fcmp, "xy", W, fcmp(x, y))                                                             \
  X(select_f, "xyc", F, (c & 1u) ? x : y)                                                  \
  X(select_fcmp, "xyz", F, x < y ? z : x)                                                  \
  X(float2int_rn, "x", W, __float2int_rn(x))                                               \
  X(float2int_rz, "x", W, __float2int_rz(x))                                               \
  X(float2int_ru, "x", W, __float2int_ru(x))                                               \
  X(float2int_rd, "x", W, __float2int_rd(x))                                               \
  X(float2uint_rn, "x", W, __float2uint_rn(x))                                             \
  X(float2uint_rz, "x", W, __float2uint_rz(x))                                             \
  X(float2uint_ru, "x", W, __float2uint_ru(x))                                             \
  X(float2uint_rd, "x", W, __float2uint_rd(x))                                             \
  X(float2ll_rn, "x", L, __float2ll_rn(x))                                                 \
  X(float2ll_rz, "x", L, __float2ll_rz(x))                                                 \
  X(float2ll_ru, "x", L, __float2ll_ru(x))                                                 \
  X(float2ll_rd, "x", L, __float2ll_rd(x))                                                 \
  X(float2ull_rn, "x", L, __float2ull_rn(x))                                               \
  X(float2ull_rz, "x", L, __float2ull_rz(x))                                               \
  X(float2ull_ru, "x", L, __float2ull_ru(x))                                               \
  X(float2ull_rd, "x", L, __float2ull_rd(x))                                               \
  X(int2float_rn, "a", F, __int2float_rn(sa))                                              \
  X(int2float_rz, "a", F, __int2float_rz(sa))                                              \
  X(int2float_ru, "a", F, __int2float_ru(sa))                                              \
  X(int2float_rd, "a", F, __int2float_rd(sa))                                              \
  X(uint2float_rn, "a", F, __uint2float_rn(a))                                             \
  X(uint2float_rz, "a", F, __uint2float_rz(a))                                             \
  X(uint2float_ru, "a", F, __uint2float_ru(a))                                             \
  X(uint2float_rd, "a", F, __uint2float_rd(a))                                             \
  X(ll2float_rn, "l", F, __ll2float_rn(sl))                                                \
  X(ll2float_rz, "l", F, __ll2float_rz(sl))                                                \
  X(ll2float_ru, "l", F, __ll2float_ru(sl))                                                \
  X(ll2float_rd, "l", F, __ll2float_rd(sl))                                                \
  X(ull2float_rn, "l", F, __ull2float_rn(l))                                               \
  X(ull2float_rz, "l", F, __ull2float_rz(l))                                               \
  X(ull2float_ru, "l", F, __ull2float_ru(l))                                               \
  X(ull2float_rd, "l", F, __ull2float_rd(l))

#define DOUBLE_OPS(X)                                                                      \
  X(f32_to_f64, "x", D, (double)x)                                                         \
  X(double2float_rn, "p", F, __double2float_rn(p))                                         \
  X(double2float_rz, "p", F, __double2float_rz(p))                                         \
  X(double2float_ru, "p", F, __double2float_ru(p))                                         \
  X(double2float_rd, "p", F, __double2float_rd(p))                                         \
  X(gen_dadd_narrow_rn, "xy", F, __double2float_rn(__dadd_rn((double)x, (double)y)))       \
  X(gen_dsub_narrow_rz, "xy", F, __double2float_rz(__dsub_rn((double)x, (double)y)))       \
  X(gen_dmul_narrow_ru, "xy", F, __double2float_ru(__dmul_rn((double)x, (double)y)))       \
  X(gen_dmul_narrow_rd, "xy", F, __double2float_rd(__dmul_rn((double)x, (double)y)))       \
  X(double2int_rn, "p", W, __double2int_rn(p))                                             \
  X(double2int_rz, "p", W, __double2int_rz(p))                                             \
  X(double2int_ru, "p", W, __double2int_ru(p))                                             \
  X(double2int_rd, "p", W, __double2int_rd(p))                                             \
  X(double2uint_rn, "p", W, __double2uint_rn(p))                                           \
  X(double2uint_rz, "p", W, __double2uint_rz(p))                                           \
  X(double2uint_ru, "p", W, __double2uint_ru(p))                                           \
  X(double2uint_rd, "p", W, __double2uint_rd(p))                                           \
  X(double2ll_rn, "p", L, __double2ll_rn(p))                                               \
  X(double2ll_rz, "p", L, __double2ll_rz(p))                                               \
  X(double2ll_ru, "p", L, __double2ll_ru(p))                                               \
  X(double2ll_rd, "p", L, __double2ll_rd(p))                                               \
  X(double2ull_rn, "p", L, __double2ull_rn(p))                                             \
  X(double2ull_rz, "p", L, __double2ull_rz(p))                                             \
  X(double2ull_ru, "p", L, __double2ull_ru(p))                                             \
  X(double2ull_rd, "p", L, __double2ull_rd(p))                                             \
  X(int2double_rn, "a", D, __int2double_rn(sa))                                            \
  X(uint2double_rn, "a", D, __uint2double_rn(a))                                           \
  X(ll2double_rn, "l", D, __ll2double_rn(sl))                                              \
  X(ll2double_rz, "l", D, __ll2double_rz(sl))                                              \
  X(ll2double_ru, "l", D, __ll2double_ru(sl))                                              \
  X(ll2double_rd, "l", D, __ll2double_rd(sl))                                              \
  X(ull2double_rn, "l", D, __ull2double_rn(l))                                             \
  X(ull2double_rz, "l", D, __ull2double_rz(l))                                             \
  X(ull2double_ru, "l", D, __ull2double_ru(l))                                             \
  X(ull2double_rd, "l", D, __ull2double_rd(l))                                             \
  X(dadd_rn, "pq", D, __dadd_rn(p, q))                                                     \
  X(dadd_rz, "pq", D, __dadd_rz(p, q))                                                     \
  X(dadd_ru, "pq", D, __dadd_ru(p, q))                                                     \
  X(dadd_rd, "pq", D, __dadd_rd(p, q))                                                     \
  X(dsub_rn, "pq", D, __dsub_rn(p, q))                                                     \
  X(dsub_rz, "pq", D, __dsub_rz(p, q))                                                     \
  X(dsub_ru, "pq", D, __dsub_ru(p, q))                                                     \
  X(dsub_rd, "pq", D, __dsub_rd(p, q))                                                     \
  X(dmul_rn, "pq", D, __dmul_rn(p, q))                                                     \
  X(dmul_rz, "pq", D, __dmul_rz(p, q))                                                     \
  X(dmul_ru, "pq", D, __dmul_ru(p, q))                                                     \
  X(dmul_rd, "pq", D, __dmul_rd(p, q))                                                     \
  X(fma_rn, "pqr", D, __fma_rn(p, q, r))                                                   \
  X(fma_rz, "pqr", D, __fma_rz(p, q, r))                                                   \
  X(fma_ru, "pqr", D, __fma_ru(p, q, r))                                                   \
  X(fma_rd, "pqr", D, __fma_rd(p, q, r))                                                   \
  X(ddiv_rn, "pq", D, __ddiv_rn(p, q))                                                     \
  X(ddiv_rz, "pq", D, __ddiv_rz(p, q))                                                     \
  X(ddiv_ru, "pq", D, __ddiv_ru(p, q))                                                     \
  X(ddiv_rd, "pq", D, __ddiv_rd(p, q))                                                     \
  X(dsqrt_rn, "p", D, __dsqrt_rn(p))                                                       \
  X(dsqrt_rz, "p", D, __dsqrt_rz(p))                                                       \
  X(dsqrt_ru, "p", D, __dsqrt_ru(p))                                                       \
  X(dsqrt_rd, "p", D, __dsqrt_rd(p))                                                       \
  X(drcp_rn, "p", D, __drcp_rn(p))                                                         \
  X(drcp_rz, "p", D, __drcp_rz(p))                                                         \
  X(drcp_ru, "p", D, __drcp_ru(p))                                                         \
  X(drcp_rd, "p", D, __drcp_rd(p))                                                         \
  X(dabs, "p", D, fabs(p))                                                                 \
  X(dneg, "p", D, -p)                                                                      \
  X(dcmp, "pq", W, dcmp(p, q))

#define ALL_SCALAR_OPS(X) INT_OPS(X) FLOAT_OPS(X) DOUBLE_OPS(X)

enum {
#define X(NAME, IN, KIND, E) OP_##NAME,
  ALL_SCALAR_OPS(X)
#undef X
  SCALAR_OPS
};

#define RES_W(e) (u64)(unsigned)(e)
#define RES_F(e) (u64)__float_as_uint(e)
#define RES_D(e) (u64)__double_as_longlong(e)
#define RES_L(e) (u64)(e)

// One op per blockIdx.y, one input per thread.
__global__ void scalar_ops(const unsigned *U, const unsigned *F, const u64 *D, const u64 *L, u64 *o) {
  const unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  const unsigned a = U[i], b = U[N + i], c = U[2 * N + i];
  const int sa = (int)a, sb = (int)b;
  const float x = __uint_as_float(F[i]), y = __uint_as_float(F[N + i]), z = __uint_as_float(F[2 * N + i]);
  const double p = __longlong_as_double(D[i]), q = __longlong_as_double(D[N + i]),
               r = __longlong_as_double(D[2 * N + i]);
  const u64 l = L[i], m = L[N + i];
  const s64 sl = (s64)l, sm = (s64)m;
  u64 res = 0;
  switch (blockIdx.y) {
#define X(NAME, IN, KIND, E)                                                                 \
  case OP_##NAME:                                                                          \
    res = RES_##KIND(E);                                                                   \
    break;
    ALL_SCALAR_OPS(X)
#undef X
  }
  o[blockIdx.y * N + i] = res;
}

// ---- Warp collectives: X(NAME, RESULT EXPRESSION) ----
// Per lane: a = U[N + i], b = U[2N + i], fb = F[N + i] (f32 bits), the input arrays whose
// edge values differ between the lanes of a warp. Per warp (w = i / 32): a width and an
// offset, or a threshold t (an edge value: 0, 1, ..., 0xffffffff) for the predicate a >= t,
// printed as p1 and p2 after the inputs. Partial-mask ops run only on the lanes of the mask
// (as the generator writes them); the other lanes give 0xeeeeeeee.
#define WARP_OPS(X)                                                                        \
  X(shfl_idx, (width = 32u >> (w % 6u), p1 = width, p2 = b,                                \
               __shfl_sync(FULL, a, (int)b, (int)width)))                                  \
  X(shfl_up, (width = 32u >> ((w / 20u) % 4u), off = OFFSETS[w % 20u], p1 = width, p2 = off, \
              __shfl_up_sync(FULL, a, off, (int)width)))                                   \
  X(shfl_down, (width = 32u >> ((w / 20u) % 4u), off = OFFSETS[w % 20u], p1 = width,       \
                p2 = off, __shfl_down_sync(FULL, a, off, (int)width)))                     \
  X(shfl_xor, (width = 32u >> ((w / 40u) % 3u), off = w % 40u, p1 = width, p2 = off,       \
               __shfl_xor_sync(FULL, a, (int)off, (int)width)))                            \
  X(shfl_xor_f32, (p1 = 32u, p2 = 1u + w % 31u,                                            \
                   __float_as_uint(__shfl_xor_sync(FULL, fb, (int)p2)))) /* NaN payloads */ \
  X(shfl_idx_lo16, (p1 = 0x0000ffffu, p2 = b & 15u,                                        \
                    lane < 16u ? __shfl_sync(0x0000ffffu, a, (int)p2) : 0xeeeeeeeeu))       \
  X(shfl_idx_even, (p1 = 0x55555555u, p2 = b & 30u,                                        \
                    (lane & 1u) == 0u ? __shfl_sync(0x55555555u, a, (int)p2) : 0xeeeeeeeeu)) \
  X(ballot, (p1 = t, p2 = 0, __ballot_sync(FULL, a >= t)))                                 \
  X(popc_ballot, (p1 = 0, p2 = 0, (unsigned)__popc(__ballot_sync(FULL, a < b))))           \
  X(any, (p1 = t, p2 = 0, (unsigned)__any_sync(FULL, a >= t)))                             \
  X(all, (p1 = t, p2 = 0, (unsigned)__all_sync(FULL, a >= t)))                             \
  X(ballot_lo16, (p1 = 0x0000ffffu, p2 = 0,                                                \
                  lane < 16u ? __ballot_sync(0x0000ffffu, a & 1u) : 0xeeeeeeeeu))          \
  X(ballot_even, (p1 = 0x55555555u, p2 = 0,                                                \
                  (lane & 1u) == 0u ? __ballot_sync(0x55555555u, a & 1u) : 0xeeeeeeeeu))   \
  X(any_lo16, (p1 = 0x0000ffffu, p2 = 0,                                                   \
               lane < 16u ? (unsigned)__any_sync(0x0000ffffu, a & 1u) : 0xeeeeeeeeu))      \
  X(any_even, (p1 = 0x55555555u, p2 = 0,                                                   \
               (lane & 1u) == 0u ? (unsigned)__any_sync(0x55555555u, a & 1u) : 0xeeeeeeeeu)) \
  X(reduce_add_u, (p1 = 0, p2 = 0, __reduce_add_sync(FULL, a)))                            \
  X(reduce_min_u, (p1 = 0, p2 = 0, __reduce_min_sync(FULL, a)))                            \
  X(reduce_max_u, (p1 = 0, p2 = 0, __reduce_max_sync(FULL, a)))                            \
  X(reduce_and, (p1 = 0, p2 = 0, __reduce_and_sync(FULL, a)))                              \
  X(reduce_or, (p1 = 0, p2 = 0, __reduce_or_sync(FULL, a)))                                \
  X(reduce_xor, (p1 = 0, p2 = 0, __reduce_xor_sync(FULL, a)))                              \
  X(reduce_add_s, (p1 = 0, p2 = 0, (unsigned)__reduce_add_sync(FULL, (int)a)))             \
  X(reduce_min_s, (p1 = 0, p2 = 0, (unsigned)__reduce_min_sync(FULL, (int)a)))             \
  X(reduce_max_s, (p1 = 0, p2 = 0, (unsigned)__reduce_max_sync(FULL, (int)a)))             \
  X(reduce_add_lo16, (p1 = 0x0000ffffu, p2 = 0,                                            \
                      lane < 16u ? __reduce_add_sync(0x0000ffffu, a) : 0xeeeeeeeeu))       \
  X(reduce_add_even, (p1 = 0x55555555u, p2 = 0,                                            \
                      (lane & 1u) == 0u ? __reduce_add_sync(0x55555555u, a) : 0xeeeeeeeeu)) \
  X(match_any_low2, (p1 = 0, p2 = 0, __match_any_sync(FULL, a & 3u)))                      \
  X(match_any_hi4, (p1 = 0, p2 = 0, __match_any_sync(FULL, a >> 28)))                      \
  X(match_all_mask, (p1 = t, p2 = 0, __match_all_sync(FULL, a >= t, &pred)))               \
  X(match_all_pred, (p1 = t, p2 = 0, (__match_all_sync(FULL, a >= t, &pred), (unsigned)pred))) \
  X(activemask, (p1 = 0, p2 = 0, __activemask()))                                          \
  X(activemask_lo16, (p1 = 0, p2 = 0, lane < 16u ? __activemask() : 0xeeeeeeeeu))

enum {
#define X(NAME, E) WOP_##NAME,
  WARP_OPS(X)
#undef X
  WARP_OP_COUNT
};

// Offsets of shfl up and down: past the width and past the warp (only b[4:0] counts in PTX).
__constant__ unsigned OFFSETS[20] = {0, 1, 2, 3, 4, 5, 7, 8, 9, 15, 16, 17, 31, 32, 33, 34, 63, 64, 65, 0xffffffffu};

__global__ void warp_ops(const unsigned *U, const unsigned *F, unsigned *o, unsigned *P1, unsigned *P2) {
  const unsigned i = blockIdx.x * blockDim.x + threadIdx.x, lane = i & 31u, w = i / 32u;
  const unsigned a = U[N + i], b = U[2 * N + i], t = U[N + (w & 31u)];
  const float fb = __uint_as_float(F[N + i]);
  unsigned width = 0, off = 0, p1 = 0, p2 = 0, res = 0;
  int pred = 0;
  (void)width; (void)off; (void)pred; (void)fb; (void)t;
  switch (blockIdx.y) {
#define X(NAME, E)                                                                           \
  case WOP_##NAME:                                                                         \
    res = (E);                                                                             \
    break;
    WARP_OPS(X)
#undef X
  }
  o[blockIdx.y * N + i] = res;
  P1[blockIdx.y * N + i] = p1;
  P2[blockIdx.y * N + i] = p2;
}

// ---- Atomics whose final value does not depend on order (results unused, as generated) ----
#define ATOMIC_OPS(X) X(add, atomicAdd) X(min, atomicMin) X(max, atomicMax) X(and, atomicAnd) X(or, atomicOr) X(xor, atomicXor)
#define ATOMIC_BINS 32u
#define ATOMIC_BLOCKS 8u
enum {
#define X(NAME, F) AOP_##NAME,
  ATOMIC_OPS(X)
#undef X
  ATOMIC_COUNT
};
// Global: bins acc[op * 32 + bin], every thread of 8 blocks of 256 adds one value to one bin.
// Shared: 32 bins per block, set from U, updated the same way, copied to sh_out.
__global__ void atomic_ops(const unsigned *U, unsigned *acc, unsigned *sh_out) {
  __shared__ unsigned bins[ATOMIC_BINS];
  const unsigned op = blockIdx.y, tid = threadIdx.x, gid = blockIdx.x * blockDim.x + tid;
  const unsigned bin = U[2 * N + gid] % ATOMIC_BINS, v = U[N + gid];
  if (tid < ATOMIC_BINS) bins[tid] = U[(blockIdx.x * ATOMIC_BINS + tid) * 7u % N];
  __syncthreads();
  switch (op) {
#define X(NAME, F)                                                                           \
  case AOP_##NAME:                                                                        \
    F(&acc[op * ATOMIC_BINS + bin], v);                                                    \
    F(&bins[bin], v);                                                                      \
    break;
    ATOMIC_OPS(X)
#undef X
  }
  __syncthreads();
  if (tid < ATOMIC_BINS) sh_out[(op * ATOMIC_BLOCKS + blockIdx.x) * ATOMIC_BINS + tid] = bins[tid];
}

// ---- Host: inputs, launches, printing ----
static unsigned h(unsigned x) { x ^= x >> 16; x *= 0x7feb352du; x ^= x >> 15; x *= 0x846ca68bu; x ^= x >> 16; return x; }

static const unsigned UE[32] = {0u, 1u, 2u, 3u, 7u, 31u, 32u, 33u, 63u, 64u, 0xffu, 0x100u, 0x7fffu, 0x8000u, 0xffffu, 0x10000u,
                                0x7fffffu, 0x800000u, 0xffffffu, 0x1000000u, 0x7fffffffu, 0x80000000u, 0x80000001u, 0xfffffffeu,
                                0xffffffffu, 0xffffffe0u, 0xffffff80u, 0x55555555u, 0xaaaaaaaau, 0x01234567u, 0x89abcdefu, 0xf0f0f0f0u};
static unsigned in_u(unsigned i, unsigned s) {
  if (i < 1024) return UE[s == 0 ? i >> 5 : s == 1 ? i & 31u : (i * 13u + 5u) & 31u];
  unsigned hh = h(h(i * 0x9e3779b9u ^ (s * 0x632be5abu))), r = h(hh);
  if (i < 2048) {
    unsigned j = i - 1024;
    if (s == 0) return j < 32 ? UE[j] : r;
    // Counts, positions and lengths: 0..71, then -1..-40, then 0..255.
    if (j < 576) return (j + s * 5u) % 72u;
    if (j < 896) return 0u - (1u + (j + s) % 40u);
    return (j * 7u + s) & 0xffu;
  }
  switch (hh & 7u) {
  case 0: return hh >> 27;
  case 1: return UE[(hh >> 8) & 31u];
  case 2: return 0u - (hh >> 28);
  case 3: return (1u << (hh >> 27)) + ((hh >> 8) % 3u) - 1u;
  default: return r;
  }
}

// f32 edges: zeros, infinities, NaNs (quiet, signalling, with payloads), subnormals, ties,
// and the limits of every integer conversion.
static const unsigned FE[32] = {0x00000000u, 0x80000000u, 0x7f800000u, 0xff800000u, 0x7fc00000u, 0xffc00001u, 0x7f800001u,
                                0x7fffffffu, 0x00000001u, 0x807fffffu, 0x00800000u, 0x3f800000u, 0xbf800000u, 0x3f000000u,
                                0xbf000000u, 0x3fc00000u, 0xc0200000u, 0x3effffffu, 0x7f7fffffu, 0xff7fffffu, 0x4effffffu,
                                0x4f000000u, 0xcf000000u, 0xcf000001u, 0x4f7fffffu, 0x4f800000u, 0x5effffffu, 0x5f000000u,
                                0xdf000000u, 0xdf000001u, 0x5f7fffffu, 0x5f800000u};
static unsigned in_f(unsigned i, unsigned s) {
  if (i < 1024) return FE[s == 0 ? i >> 5 : s == 1 ? i & 31u : (i * 13u + 5u) & 31u];
  unsigned hh = h(h(i * 0x85ebca6bu ^ (s * 0x27d4eb2fu))), r = h(hh);
  switch (hh & 7u) {
  case 0: return FE[(hh >> 8) & 31u];
  case 1: return r;
  case 2: return r & 0x807fffffu;                                                   // subnormals
  case 3: return (r & 0x80000000u) | ((127u + (hh >> 24) % 66u) << 23) | (r & 0x7fffffu);  // 1 .. 2^66
  case 4: {                                                                          // k + 0.5
    float f = (float)(int)((hh >> 8) % 64u) - 32.0f + 0.5f;
    unsigned bits;
    memcpy(&bits, &f, 4);
    return bits;
  }
  default: return (r & 0x80000000u) | ((112u + (hh >> 24) % 32u) << 23) | (r & 0x7fffffu);
  }
}

static const u64 DE[32] = {0x0000000000000000ull, 0x8000000000000000ull, 0x7ff0000000000000ull, 0xfff0000000000000ull,
                           0x7ff8000000000000ull, 0xfff8000000000123ull, 0x7ff0000000000001ull, 0x7ff00000deadbeefull,
                           0x0000000000000001ull, 0x800fffffffffffffull, 0x0010000000000000ull, 0x3ff0000000000000ull,
                           0xbff0000000000000ull, 0x3fe0000000000000ull, 0xc004000000000000ull, 0x7fefffffffffffffull,
                           0x41dfffffffe00000ull, 0x41e0000000000000ull, 0xc1e0000000000000ull, 0xc1e0000000200000ull,
                           0x41efffffffe00000ull, 0x41f0000000000000ull, 0x43dfffffffffffffull, 0x43e0000000000000ull,
                           0xc3e0000000000000ull, 0xc3e0000000000001ull, 0x43efffffffffffffull, 0x43f0000000000000ull,
                           0x47effffff0000000ull, 0x36a0000000000000ull, 0x3690000000000000ull, 0x380fffffffffffffull};
static u64 in_d(unsigned i, unsigned s) {
  if (i < 1024) return DE[s == 0 ? i >> 5 : s == 1 ? i & 31u : (i * 13u + 5u) & 31u];
  unsigned hh = h(h(i * 0xc2b2ae35u ^ (s * 0x165667b1u))), r = h(hh), r2 = h(r);
  u64 bits = (u64)r << 32 | r2;
  switch (hh & 7u) {
  case 0: return DE[(hh >> 8) & 31u];
  case 1: return bits;
  case 2: return bits & 0x800fffffffffffffull;                                                       // subnormals
  case 3: return (bits & 0x800fffffffffffffull) | (u64)(1023u + (hh >> 20) % 70u) << 52;             // 1 .. 2^70
  case 4: return (bits & 0x800fffffe0000000ull) | (u64)(1023u - 150u + (hh >> 20) % 280u) << 52;    // f32 range, f32 or tie bits
  default: return (bits & 0x800fffffffffffffull) | (u64)(1023u - 30u + (hh >> 20) % 60u) << 52;
  }
}

static const u64 LE[16] = {0ull, 1ull, 0xffffffffffffffffull, 0x8000000000000000ull, 0x7fffffffffffffffull, 0xffffffffull,
                           0x100000000ull, 0x7fffffffull, 0x80000000ull, 0x20000000000000ull, 0x20000000000001ull,
                           0x1000001ull, 0x8000000000000001ull, 0xffffffff00000000ull, 0x7fffffffffffffc0ull,
                           0x7fffff4000000000ull};
static u64 in_l(unsigned i, unsigned s) {
  if (i < 1024) {
    unsigned k = s == 0 ? i >> 5 : i & 31u;
    return k < 16 ? LE[k] : (u64)UE[k] << (k & 1u ? 32 : 0);
  }
  unsigned hh = h(h(i * 0x7feb352du ^ (s * 0x9e3779b9u))), r = h(hh), r2 = h(r);
  if (i < 2048 && s == 1) return (i * 7u) % 80u;  // shift counts of the 64-bit shifts use b
  u64 bits = (u64)r << 32 | r2;
  switch (hh & 7u) {
  case 0: return LE[(hh >> 8) & 15u];
  case 1: return bits >> (hh >> 26);
  case 2: return 0ull - (bits >> (hh >> 26));
  case 3: return (1ull << (hh >> 26)) + ((hh >> 8) % 3u) - 1u;
  case 4: return bits & 0x003fffffffffffffull;
  default: return bits;
  }
}

static unsigned hu[3 * N], hf[3 * N];
static u64 hd[3 * N], hl[2 * N], ho[SCALAR_OPS * N];
static unsigned hw[WARP_OP_COUNT * N], hp1[WARP_OP_COUNT * N], hp2[WARP_OP_COUNT * N];
static unsigned hacc[ATOMIC_COUNT * ATOMIC_BINS], hacc0[ATOMIC_COUNT * ATOMIC_BINS], hsh[ATOMIC_COUNT * ATOMIC_BLOCKS * ATOMIC_BINS];

static const struct { const char *name, *in; char kind; } scalar_table[] = {
#define X(NAME, IN, KIND, E) {#NAME, IN, #KIND[0]},
    ALL_SCALAR_OPS(X)
#undef X
};
static const char *warp_names[] = {
#define X(NAME, E) #NAME,
    WARP_OPS(X)
#undef X
};
static const char *atomic_names[] = {
#define X(NAME, F) #NAME,
    ATOMIC_OPS(X)
#undef X
};

static void check(cudaError_t e, const char *what) {
  if (e != cudaSuccess) {
    fprintf(stderr, "%s: %s\n", what, cudaGetErrorString(e));
    exit(1);
  }
}

int main() {
  for (unsigned s = 0; s < 3; ++s)
    for (unsigned i = 0; i < N; ++i) {
      hu[s * N + i] = in_u(i, s);
      hf[s * N + i] = in_f(i, s);
      hd[s * N + i] = in_d(i, s);
      if (s < 2) hl[s * N + i] = in_l(i, s);
    }
  for (unsigned k = 0; k < ATOMIC_COUNT * ATOMIC_BINS; ++k) hacc0[k] = hacc[k] = h(k * 977u + 1u);
  unsigned *u, *f, *wo, *p1, *p2, *acc, *sh;
  u64 *d, *l, *o;
  check(cudaMalloc(&u, sizeof hu), "malloc");
  check(cudaMalloc(&f, sizeof hf), "malloc");
  check(cudaMalloc(&d, sizeof hd), "malloc");
  check(cudaMalloc(&l, sizeof hl), "malloc");
  check(cudaMalloc(&o, sizeof ho), "malloc");
  check(cudaMalloc(&wo, sizeof hw), "malloc");
  check(cudaMalloc(&p1, sizeof hp1), "malloc");
  check(cudaMalloc(&p2, sizeof hp2), "malloc");
  check(cudaMalloc(&acc, sizeof hacc), "malloc");
  check(cudaMalloc(&sh, sizeof hsh), "malloc");
  cudaMemcpy(u, hu, sizeof hu, cudaMemcpyHostToDevice);
  cudaMemcpy(f, hf, sizeof hf, cudaMemcpyHostToDevice);
  cudaMemcpy(d, hd, sizeof hd, cudaMemcpyHostToDevice);
  cudaMemcpy(l, hl, sizeof hl, cudaMemcpyHostToDevice);
  cudaMemcpy(acc, hacc, sizeof hacc, cudaMemcpyHostToDevice);
  scalar_ops<<<dim3(N / 128, SCALAR_OPS), 128>>>(u, f, d, l, o);
  warp_ops<<<dim3(N / 128, WARP_OP_COUNT), 128>>>(u, f, wo, p1, p2);
  atomic_ops<<<dim3(ATOMIC_BLOCKS, ATOMIC_COUNT), 256>>>(u, acc, sh);
  check(cudaDeviceSynchronize(), "kernels");
  cudaMemcpy(ho, o, sizeof ho, cudaMemcpyDeviceToHost);
  cudaMemcpy(hw, wo, sizeof hw, cudaMemcpyDeviceToHost);
  cudaMemcpy(hp1, p1, sizeof hp1, cudaMemcpyDeviceToHost);
  cudaMemcpy(hp2, p2, sizeof hp2, cudaMemcpyDeviceToHost);
  cudaMemcpy(hacc, acc, sizeof hacc, cudaMemcpyDeviceToHost);
  cudaMemcpy(hsh, sh, sizeof hsh, cudaMemcpyDeviceToHost);
  for (unsigned k = 0; k < SCALAR_OPS; ++k)
    for (unsigned i = 0; i < N; ++i) {
      printf("%s %u", scalar_table[k].name, i);
      for (const char *c = scalar_table[k].in; *c; ++c) {
        switch (*c) {
        case 'a': case 'b': case 'c': printf(" %08x", hu[(*c - 'a') * N + i]); break;
        case 'x': case 'y': case 'z': printf(" %08x", hf[(*c - 'x') * N + i]); break;
        case 'p': case 'q': case 'r': printf(" %016llx", hd[(*c - 'p') * N + i]); break;
        default: printf(" %016llx", hl[(*c - 'l') * N + i]); break;
        }
      }
      u64 r = ho[k * N + i];
      if (scalar_table[k].kind == 'W' || scalar_table[k].kind == 'F') printf(" %08x\n", (unsigned)r);
      else printf(" %016llx\n", r);
    }
  for (unsigned k = 0; k < WARP_OP_COUNT; ++k)
    for (unsigned i = 0; i < N; ++i)
      printf("%s %u %08x %08x %08x %08x %08x\n", warp_names[k], i, k == WOP_shfl_xor_f32 ? hf[N + i] : hu[N + i], hu[2 * N + i],
             hp1[k * N + i], hp2[k * N + i], hw[k * N + i]);
  for (unsigned k = 0; k < ATOMIC_COUNT; ++k) {
    for (unsigned j = 0; j < ATOMIC_BINS; ++j)
      printf("atomic_%s_global %u %08x %08x\n", atomic_names[k], j, hacc0[k * ATOMIC_BINS + j], hacc[k * ATOMIC_BINS + j]);
    for (unsigned j = 0; j < ATOMIC_BLOCKS * ATOMIC_BINS; ++j)
      printf("atomic_%s_shared %u %08x\n", atomic_names[k], j, hsh[k * ATOMIC_BLOCKS * ATOMIC_BINS + j]);
  }
  return 0;
}
