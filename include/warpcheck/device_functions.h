/*
 * warpcheck shim: CUDA device intrinsics that are not math library functions:
 * barriers and fences, clocks, integer intrinsics, type-casting and
 * rounding-mode intrinsics, fast approximate math (`__expf` ...), read-only and
 * cache-hinted loads, and the `min`/`max` overloads.
 *
 * Each function lowers to the PTX instruction that nvcc emits for it (through
 * a clang `__nvvm_*` builtin, a generic `__builtin_*` that the NVPTX back end
 * maps to one instruction, or inline `asm` where clang 14 has no builtin), so
 * the PTX that warpcheck analyses has no calls for these. The PTX ISA section
 * of each instruction is named next to it.
 */
#ifndef WARPCHECK_DEVICE_FUNCTIONS_H
#define WARPCHECK_DEVICE_FUNCTIONS_H
#define __DEVICE_FUNCTIONS_H__ /* CUDA's include guard */

#define __WARPCHECK_DEVICE static __device__ __inline__ __attribute__((always_inline, nodebug))
#define __WARPCHECK_HOST_DEVICE                                                \
  static __host__ __device__ __inline__ __attribute__((always_inline, nodebug))

/* ---- Barriers (PTX ISA 9.7.13.1 bar/barrier) -------------------------------
 * Every barrier is also a compiler barrier for memory: an empty `asm` with a
 * "memory" clobber on each side keeps loads and stores on their side of it.
 * clang 14 and 15 treat `llvm.nvvm.barrier0` as not touching memory at -O3 and
 * hoist a shared load above `__syncthreads()` (LLVM issue 58626): the value
 * thread 0 writes before the barrier is then read before it, a race that the
 * source does not have. The clobbers emit no PTX instruction. */
#define __WARPCHECK_MEMORY_BARRIER() __asm__ __volatile__("" ::: "memory")
__WARPCHECK_DEVICE void __warpcheck_syncthreads(void) {
  __WARPCHECK_MEMORY_BARRIER();
  __syncthreads();
  __WARPCHECK_MEMORY_BARRIER();
}
/* `__syncthreads` is a clang builtin; calls go through the fenced wrapper. */
#define __syncthreads() __warpcheck_syncthreads()
__WARPCHECK_DEVICE int __syncthreads_count(int predicate) {
  __WARPCHECK_MEMORY_BARRIER();
  int r = __nvvm_bar0_popc(predicate);
  __WARPCHECK_MEMORY_BARRIER();
  return r;
}
__WARPCHECK_DEVICE int __syncthreads_and(int predicate) {
  __WARPCHECK_MEMORY_BARRIER();
  int r = __nvvm_bar0_and(predicate);
  __WARPCHECK_MEMORY_BARRIER();
  return r;
}
__WARPCHECK_DEVICE int __syncthreads_or(int predicate) {
  __WARPCHECK_MEMORY_BARRIER();
  int r = __nvvm_bar0_or(predicate);
  __WARPCHECK_MEMORY_BARRIER();
  return r;
}
/* bar.warp.sync (9.7.13.3). */
__WARPCHECK_DEVICE void __syncwarp(unsigned int mask = 0xffffffffu) {
  __WARPCHECK_MEMORY_BARRIER();
  __nvvm_bar_warp_sync(mask);
  __WARPCHECK_MEMORY_BARRIER();
}
/* Named barriers: barrier.sync id[, count]. */
__WARPCHECK_DEVICE void __barrier_sync(unsigned int id) {
  __WARPCHECK_MEMORY_BARRIER();
  __nvvm_barrier_sync(id);
  __WARPCHECK_MEMORY_BARRIER();
}
__WARPCHECK_DEVICE void __barrier_sync_count(unsigned int id,
                                             unsigned int count) {
  __WARPCHECK_MEMORY_BARRIER();
  __nvvm_barrier_sync_cnt(id, count);
  __WARPCHECK_MEMORY_BARRIER();
}

/* ---- Memory fences (9.7.13.4 membar/fence) -------------------------------- */
__WARPCHECK_DEVICE void __threadfence(void) { __nvvm_membar_gl(); }
__WARPCHECK_DEVICE void __threadfence_block(void) { __nvvm_membar_cta(); }
__WARPCHECK_DEVICE void __threadfence_system(void) { __nvvm_membar_sys(); }

/* ---- memcpy and memset ----------------------------------------------------- */
/* The C library's memcpy and memset in device code (CUDA declares them for the
 * device; clang's __clang_cuda_device_functions.h does the same): overloads of
 * the host functions of <string.h>, which clang lowers to loads and stores. */
__WARPCHECK_DEVICE void *memcpy(void *__dst, const void *__src, size_t __n) {
  return __builtin_memcpy(__dst, __src, __n);
}
__WARPCHECK_DEVICE void *memset(void *__dst, int __value, size_t __n) {
  return __builtin_memset(__dst, __value, __n);
}

/* ---- Traps, clocks, sleeping ---------------------------------------------- */
__WARPCHECK_DEVICE void __trap(void) { __builtin_trap(); }
__WARPCHECK_DEVICE void __brkpt(void) { __asm__ __volatile__("brkpt;"); }
__WARPCHECK_DEVICE long long clock64(void) {
  return __nvvm_read_ptx_sreg_clock64();
}
/* clang 14 has no builtin for %globaltimer. */
__WARPCHECK_DEVICE unsigned long long __globaltimer(void) {
  unsigned long long t;
  __asm__ __volatile__("mov.u64 %0, %%globaltimer;" : "=l"(t));
  return t;
}
#if !defined(__CUDA_ARCH__) || __CUDA_ARCH__ >= 700
__WARPCHECK_DEVICE void __nanosleep(unsigned int ns) {
  __asm__ __volatile__("nanosleep.u32 %0;" ::"r"(ns));
}
#endif
/* Special registers that CUDA code reads through small helpers. */
__WARPCHECK_DEVICE unsigned int __lanemask_eq(void) {
  return __nvvm_read_ptx_sreg_lanemask_eq();
}
__WARPCHECK_DEVICE unsigned int __lanemask_lt(void) {
  return __nvvm_read_ptx_sreg_lanemask_lt();
}
__WARPCHECK_DEVICE unsigned int __lanemask_le(void) {
  return __nvvm_read_ptx_sreg_lanemask_le();
}
__WARPCHECK_DEVICE unsigned int __lanemask_gt(void) {
  return __nvvm_read_ptx_sreg_lanemask_gt();
}
__WARPCHECK_DEVICE unsigned int __lanemask_ge(void) {
  return __nvvm_read_ptx_sreg_lanemask_ge();
}

/* ---- Integer intrinsics (9.7.1 integer arithmetic, 9.7.8 bit manipulation) */
__WARPCHECK_DEVICE int __popc(unsigned int x) { return __builtin_popcount(x); }
__WARPCHECK_DEVICE int __popcll(unsigned long long x) {
  return __builtin_popcountll(x);
}
/* clz.b32 returns 32 for zero; __builtin_clz is undefined there, and LLVM
 * folds the guarded form back into a single clz. */
__WARPCHECK_DEVICE int __clz(int x) {
  return x == 0 ? 32 : __builtin_clz((unsigned int)x);
}
__WARPCHECK_DEVICE int __clzll(long long x) {
  return x == 0 ? 64 : __builtin_clzll((unsigned long long)x);
}
__WARPCHECK_DEVICE int __ffs(int x) { return __builtin_ffs(x); }
__WARPCHECK_DEVICE int __ffsll(long long x) { return __builtin_ffsll(x); }
__WARPCHECK_DEVICE unsigned int __brev(unsigned int x) {
  return __builtin_bitreverse32(x);
}
__WARPCHECK_DEVICE unsigned long long __brevll(unsigned long long x) {
  return __builtin_bitreverse64(x);
}
__WARPCHECK_DEVICE int __mul24(int x, int y) { return __nvvm_mul24_i(x, y); }
__WARPCHECK_DEVICE unsigned int __umul24(unsigned int x, unsigned int y) {
  return __nvvm_mul24_ui(x, y);
}
__WARPCHECK_DEVICE int __mulhi(int x, int y) { return __nvvm_mulhi_i(x, y); }
__WARPCHECK_DEVICE unsigned int __umulhi(unsigned int x, unsigned int y) {
  return __nvvm_mulhi_ui(x, y);
}
__WARPCHECK_DEVICE long long __mul64hi(long long x, long long y) {
  return __nvvm_mulhi_ll(x, y);
}
__WARPCHECK_DEVICE unsigned long long __umul64hi(unsigned long long x,
                                                 unsigned long long y) {
  return __nvvm_mulhi_ull(x, y);
}
/* prmt.b32 (9.7.8.7). CUDA uses only the low 3 bits of each selector nibble; prmt's default
 * mode would read the 4th as "replicate the sign bit", so it is masked off (a difference
 * found by crates/front/gpu/check_shims.sh on an H200). */
__WARPCHECK_DEVICE unsigned int __byte_perm(unsigned int x, unsigned int y,
                                            unsigned int s) {
  return __nvvm_prmt(x, y, s & 0x7777u);
}
/* sad (9.7.1.12): |x - y| + z. */
__WARPCHECK_DEVICE unsigned int __sad(int x, int y, unsigned int z) {
  return __nvvm_sad_i(x, y, z);
}
__WARPCHECK_DEVICE unsigned int __usad(unsigned int x, unsigned int y,
                                       unsigned int z) {
  return __nvvm_sad_ui(x, y, z);
}
/* Averages without intermediate overflow. */
__WARPCHECK_DEVICE int __hadd(int x, int y) {
  return (int)(((long long)x + (long long)y) >> 1);
}
__WARPCHECK_DEVICE int __rhadd(int x, int y) {
  return (int)(((long long)x + (long long)y + 1) >> 1);
}
__WARPCHECK_DEVICE unsigned int __uhadd(unsigned int x, unsigned int y) {
  return (unsigned int)(((unsigned long long)x + y) >> 1);
}
__WARPCHECK_DEVICE unsigned int __urhadd(unsigned int x, unsigned int y) {
  return (unsigned int)(((unsigned long long)x + y + 1) >> 1);
}
/* shf (9.7.8.8). */
__WARPCHECK_DEVICE unsigned int __funnelshift_l(unsigned int lo, unsigned int hi,
                                                unsigned int shift) {
  unsigned int r;
  __asm__("shf.l.wrap.b32 %0, %1, %2, %3;" : "=r"(r) : "r"(lo), "r"(hi), "r"(shift));
  return r;
}
__WARPCHECK_DEVICE unsigned int __funnelshift_lc(unsigned int lo, unsigned int hi,
                                                 unsigned int shift) {
  unsigned int r;
  __asm__("shf.l.clamp.b32 %0, %1, %2, %3;" : "=r"(r) : "r"(lo), "r"(hi), "r"(shift));
  return r;
}
__WARPCHECK_DEVICE unsigned int __funnelshift_r(unsigned int lo, unsigned int hi,
                                                unsigned int shift) {
  unsigned int r;
  __asm__("shf.r.wrap.b32 %0, %1, %2, %3;" : "=r"(r) : "r"(lo), "r"(hi), "r"(shift));
  return r;
}
__WARPCHECK_DEVICE unsigned int __funnelshift_rc(unsigned int lo, unsigned int hi,
                                                 unsigned int shift) {
  unsigned int r;
  __asm__("shf.r.clamp.b32 %0, %1, %2, %3;" : "=r"(r) : "r"(lo), "r"(hi), "r"(shift));
  return r;
}
/* fns (9.7.8.9): the lane of the offset-th set bit of mask from base. */
__WARPCHECK_DEVICE unsigned int __fns(unsigned int mask, unsigned int base,
                                      int offset) {
  return __nvvm_fns(mask, base, offset);
}
#if !defined(__CUDA_ARCH__) || __CUDA_ARCH__ >= 610
/* dp4a / dp2a (9.7.1.23, 9.7.1.24). */
__WARPCHECK_DEVICE int __dp4a(int a, int b, int c) {
  int r;
  __asm__("dp4a.s32.s32 %0, %1, %2, %3;" : "=r"(r) : "r"(a), "r"(b), "r"(c));
  return r;
}
__WARPCHECK_DEVICE unsigned int __dp4a(unsigned int a, unsigned int b,
                                       unsigned int c) {
  unsigned int r;
  __asm__("dp4a.u32.u32 %0, %1, %2, %3;" : "=r"(r) : "r"(a), "r"(b), "r"(c));
  return r;
}
__WARPCHECK_DEVICE int __dp2a_lo(int a, int b, int c) {
  int r;
  __asm__("dp2a.lo.s32.s32 %0, %1, %2, %3;" : "=r"(r) : "r"(a), "r"(b), "r"(c));
  return r;
}
__WARPCHECK_DEVICE int __dp2a_hi(int a, int b, int c) {
  int r;
  __asm__("dp2a.hi.s32.s32 %0, %1, %2, %3;" : "=r"(r) : "r"(a), "r"(b), "r"(c));
  return r;
}
#endif

/* ---- min / max (host and device, as in CUDA's math_functions.hpp) --------- */
#define __WARPCHECK_MINMAX(T)                                                  \
  __WARPCHECK_HOST_DEVICE T min(T a, T b) { return a < b ? a : b; }           \
  __WARPCHECK_HOST_DEVICE T max(T a, T b) { return a > b ? a : b; }
#define __WARPCHECK_MINMAX_MIXED(R, A, B)                                      \
  __WARPCHECK_HOST_DEVICE R min(A a, B b) { return (R)a < (R)b ? (R)a : (R)b; }\
  __WARPCHECK_HOST_DEVICE R max(A a, B b) { return (R)a > (R)b ? (R)a : (R)b; }
__WARPCHECK_MINMAX(int)
__WARPCHECK_MINMAX(unsigned int)
__WARPCHECK_MINMAX(long)
__WARPCHECK_MINMAX(unsigned long)
__WARPCHECK_MINMAX(long long)
__WARPCHECK_MINMAX(unsigned long long)
__WARPCHECK_MINMAX_MIXED(unsigned int, int, unsigned int)
__WARPCHECK_MINMAX_MIXED(unsigned int, unsigned int, int)
__WARPCHECK_MINMAX_MIXED(unsigned long, long, unsigned long)
__WARPCHECK_MINMAX_MIXED(unsigned long, unsigned long, long)
__WARPCHECK_MINMAX_MIXED(unsigned long long, long long, unsigned long long)
__WARPCHECK_MINMAX_MIXED(unsigned long long, unsigned long long, long long)
#undef __WARPCHECK_MINMAX
#undef __WARPCHECK_MINMAX_MIXED
__WARPCHECK_HOST_DEVICE float min(float a, float b) { return __builtin_fminf(a, b); }
__WARPCHECK_HOST_DEVICE float max(float a, float b) { return __builtin_fmaxf(a, b); }
__WARPCHECK_HOST_DEVICE double min(double a, double b) { return __builtin_fmin(a, b); }
__WARPCHECK_HOST_DEVICE double max(double a, double b) { return __builtin_fmax(a, b); }
__WARPCHECK_HOST_DEVICE double min(float a, double b) { return __builtin_fmin(a, b); }
__WARPCHECK_HOST_DEVICE double max(float a, double b) { return __builtin_fmax(a, b); }
__WARPCHECK_HOST_DEVICE double min(double a, float b) { return __builtin_fmin(a, b); }
__WARPCHECK_HOST_DEVICE double max(double a, float b) { return __builtin_fmax(a, b); }
__WARPCHECK_HOST_DEVICE unsigned int umin(unsigned int a, unsigned int b) { return min(a, b); }
__WARPCHECK_HOST_DEVICE unsigned int umax(unsigned int a, unsigned int b) { return max(a, b); }
__WARPCHECK_HOST_DEVICE long long llmin(long long a, long long b) { return min(a, b); }
__WARPCHECK_HOST_DEVICE long long llmax(long long a, long long b) { return max(a, b); }
__WARPCHECK_HOST_DEVICE unsigned long long ullmin(unsigned long long a,
                                                  unsigned long long b) { return min(a, b); }
__WARPCHECK_HOST_DEVICE unsigned long long ullmax(unsigned long long a,
                                                  unsigned long long b) { return max(a, b); }

/* ---- Type casting intrinsics (9.7.9.21 cvt, 9.7.9.1 mov) ------------------
 * Suffixes: rn = to nearest even, rz = toward zero, ru = up (PTX .rp),
 * rd = down (PTX .rm). */
#define __WARPCHECK_CVT4(NAME, FROM, TO, BUILTIN)                              \
  __WARPCHECK_DEVICE TO NAME##_rn(FROM x) { return BUILTIN##_rn(x); }         \
  __WARPCHECK_DEVICE TO NAME##_rz(FROM x) { return BUILTIN##_rz(x); }         \
  __WARPCHECK_DEVICE TO NAME##_ru(FROM x) { return BUILTIN##_rp(x); }         \
  __WARPCHECK_DEVICE TO NAME##_rd(FROM x) { return BUILTIN##_rm(x); }
__WARPCHECK_CVT4(__double2float, double, float, __nvvm_d2f)
/* Floating point to integer: PTX saturates out-of-range values and gives 0 for NaN. The
 * round-toward-zero forms are inline PTX: LLVM folds their intrinsics into fptosi/fptoui,
 * whose out-of-range result is poison, and at -O1 and above deletes code that depends on
 * it (a branch on __float2uint_rz(3.0e38f) made the rest of a kernel unreachable). */
#define __WARPCHECK_CVT4_TO_INT(NAME, FROM, TO, BUILTIN, CVT, OUT, IN)        \
  __WARPCHECK_DEVICE TO NAME##_rn(FROM x) { return BUILTIN##_rn(x); }         \
  __WARPCHECK_DEVICE TO NAME##_rz(FROM x) {                                   \
    TO r;                                                                      \
    asm("cvt.rzi." CVT " %0, %1;" : "=" OUT(r) : IN(x));                       \
    return r;                                                                  \
  }                                                                            \
  __WARPCHECK_DEVICE TO NAME##_ru(FROM x) { return BUILTIN##_rp(x); }         \
  __WARPCHECK_DEVICE TO NAME##_rd(FROM x) { return BUILTIN##_rm(x); }
__WARPCHECK_CVT4_TO_INT(__float2int, float, int, __nvvm_f2i, "s32.f32", "r", "f")
__WARPCHECK_CVT4_TO_INT(__float2uint, float, unsigned int, __nvvm_f2ui, "u32.f32", "r", "f")
__WARPCHECK_CVT4_TO_INT(__float2ll, float, long long, __nvvm_f2ll, "s64.f32", "l", "f")
__WARPCHECK_CVT4_TO_INT(__float2ull, float, unsigned long long, __nvvm_f2ull, "u64.f32", "l", "f")
__WARPCHECK_CVT4_TO_INT(__double2int, double, int, __nvvm_d2i, "s32.f64", "r", "d")
__WARPCHECK_CVT4_TO_INT(__double2uint, double, unsigned int, __nvvm_d2ui, "u32.f64", "r", "d")
__WARPCHECK_CVT4_TO_INT(__double2ll, double, long long, __nvvm_d2ll, "s64.f64", "l", "d")
__WARPCHECK_CVT4_TO_INT(__double2ull, double, unsigned long long, __nvvm_d2ull, "u64.f64", "l", "d")
#undef __WARPCHECK_CVT4_TO_INT
#undef __WARPCHECK_CVT4
/* Integer to floating point. The round-toward-zero forms are inline PTX: LLVM up to
 * version 18 folds the rz intrinsics at -O1 and above into the generic integer-to-float
 * conversion, which rounds to nearest (the PTX it emits says cvt.rn). */
#define __WARPCHECK_CVT4_FROM_INT(NAME, FROM, TO, BUILTIN, CVT, OUT, IN)       \
  __WARPCHECK_DEVICE TO NAME##_rn(FROM x) { return BUILTIN##_rn(x); }         \
  __WARPCHECK_DEVICE TO NAME##_rz(FROM x) {                                   \
    TO r;                                                                      \
    asm("cvt.rz." CVT " %0, %1;" : "=" OUT(r) : IN(x));                        \
    return r;                                                                  \
  }                                                                            \
  __WARPCHECK_DEVICE TO NAME##_ru(FROM x) { return BUILTIN##_rp(x); }         \
  __WARPCHECK_DEVICE TO NAME##_rd(FROM x) { return BUILTIN##_rm(x); }
__WARPCHECK_CVT4_FROM_INT(__int2float, int, float, __nvvm_i2f, "f32.s32", "f", "r")
__WARPCHECK_CVT4_FROM_INT(__uint2float, unsigned int, float, __nvvm_ui2f, "f32.u32", "f", "r")
__WARPCHECK_CVT4_FROM_INT(__ll2float, long long, float, __nvvm_ll2f, "f32.s64", "f", "l")
__WARPCHECK_CVT4_FROM_INT(__ull2float, unsigned long long, float, __nvvm_ull2f, "f32.u64", "f", "l")
__WARPCHECK_CVT4_FROM_INT(__ll2double, long long, double, __nvvm_ll2d, "f64.s64", "d", "l")
__WARPCHECK_CVT4_FROM_INT(__ull2double, unsigned long long, double, __nvvm_ull2d, "f64.u64", "d", "l")
#undef __WARPCHECK_CVT4_FROM_INT
__WARPCHECK_DEVICE double __int2double_rn(int x) { return __nvvm_i2d_rn(x); }
__WARPCHECK_DEVICE double __uint2double_rn(unsigned int x) {
  return __nvvm_ui2d_rn(x);
}
__WARPCHECK_DEVICE int __float_as_int(float x) { return __builtin_bit_cast(int, x); }
__WARPCHECK_DEVICE float __int_as_float(int x) { return __builtin_bit_cast(float, x); }
__WARPCHECK_DEVICE unsigned int __float_as_uint(float x) {
  return __builtin_bit_cast(unsigned int, x);
}
__WARPCHECK_DEVICE float __uint_as_float(unsigned int x) {
  return __builtin_bit_cast(float, x);
}
__WARPCHECK_DEVICE long long __double_as_longlong(double x) {
  return __builtin_bit_cast(long long, x);
}
__WARPCHECK_DEVICE double __longlong_as_double(long long x) {
  return __builtin_bit_cast(double, x);
}
__WARPCHECK_DEVICE int __double2hiint(double x) { return __nvvm_d2i_hi(x); }
__WARPCHECK_DEVICE int __double2loint(double x) { return __nvvm_d2i_lo(x); }
__WARPCHECK_DEVICE double __hiloint2double(int hi, int lo) {
  return __nvvm_lohi_i2d(lo, hi);
}

/* ---- Rounding-mode arithmetic (9.7.3 floating point instructions) --------- */
#define __WARPCHECK_ROUNDED2(NAME, T, OP, S)                                   \
  __WARPCHECK_DEVICE T NAME##_rn(T a, T b) { return __nvvm_##OP##_rn_##S(a, b); } \
  __WARPCHECK_DEVICE T NAME##_rz(T a, T b) { return __nvvm_##OP##_rz_##S(a, b); } \
  __WARPCHECK_DEVICE T NAME##_ru(T a, T b) { return __nvvm_##OP##_rp_##S(a, b); } \
  __WARPCHECK_DEVICE T NAME##_rd(T a, T b) { return __nvvm_##OP##_rm_##S(a, b); }
#define __WARPCHECK_ROUNDED1(NAME, T, OP, S)                                   \
  __WARPCHECK_DEVICE T NAME##_rn(T a) { return __nvvm_##OP##_rn_##S(a); }     \
  __WARPCHECK_DEVICE T NAME##_rz(T a) { return __nvvm_##OP##_rz_##S(a); }     \
  __WARPCHECK_DEVICE T NAME##_ru(T a) { return __nvvm_##OP##_rp_##S(a); }     \
  __WARPCHECK_DEVICE T NAME##_rd(T a) { return __nvvm_##OP##_rm_##S(a); }
#define __WARPCHECK_ROUNDED3(NAME, T, OP, S)                                   \
  __WARPCHECK_DEVICE T NAME##_rn(T a, T b, T c) {                              \
    return __nvvm_##OP##_rn_##S(a, b, c);                                      \
  }                                                                            \
  __WARPCHECK_DEVICE T NAME##_rz(T a, T b, T c) {                              \
    return __nvvm_##OP##_rz_##S(a, b, c);                                      \
  }                                                                            \
  __WARPCHECK_DEVICE T NAME##_ru(T a, T b, T c) {                              \
    return __nvvm_##OP##_rp_##S(a, b, c);                                      \
  }                                                                            \
  __WARPCHECK_DEVICE T NAME##_rd(T a, T b, T c) {                              \
    return __nvvm_##OP##_rm_##S(a, b, c);                                      \
  }
/* Additions, subtractions and multiplications. CUDA promises that the _rn forms are never
 * contracted into a fused multiply-add; LLVM turns their intrinsics into plain fadd/fmul,
 * which -ffp-contract=fast then fuses, so they are inline PTX, as nvcc emits them. */
#define __WARPCHECK_ROUNDED2_NO_CONTRACT(NAME, T, OP, S, PTX, C)              \
  __WARPCHECK_DEVICE T NAME##_rn(T a, T b) {                                  \
    T r;                                                                       \
    asm(#OP ".rn." PTX " %0, %1, %2;" : "=" C(r) : C(a), C(b));                \
    return r;                                                                  \
  }                                                                            \
  __WARPCHECK_DEVICE T NAME##_rz(T a, T b) { return __nvvm_##OP##_rz_##S(a, b); } \
  __WARPCHECK_DEVICE T NAME##_ru(T a, T b) { return __nvvm_##OP##_rp_##S(a, b); } \
  __WARPCHECK_DEVICE T NAME##_rd(T a, T b) { return __nvvm_##OP##_rm_##S(a, b); }
__WARPCHECK_ROUNDED2_NO_CONTRACT(__fadd, float, add, f, "f32", "f")
__WARPCHECK_ROUNDED2_NO_CONTRACT(__fmul, float, mul, f, "f32", "f")
__WARPCHECK_ROUNDED2_NO_CONTRACT(__dadd, double, add, d, "f64", "d")
__WARPCHECK_ROUNDED2_NO_CONTRACT(__dmul, double, mul, d, "f64", "d")
#undef __WARPCHECK_ROUNDED2_NO_CONTRACT
__WARPCHECK_ROUNDED2(__fdiv, float, div, f)
__WARPCHECK_ROUNDED2(__ddiv, double, div, d)
__WARPCHECK_ROUNDED1(__frcp, float, rcp, f)
__WARPCHECK_ROUNDED1(__fsqrt, float, sqrt, f)
__WARPCHECK_ROUNDED1(__drcp, double, rcp, d)
__WARPCHECK_ROUNDED1(__dsqrt, double, sqrt, d)
__WARPCHECK_ROUNDED3(__fmaf, float, fma, f)
__WARPCHECK_ROUNDED3(__fma, double, fma, d)
#undef __WARPCHECK_ROUNDED1
#undef __WARPCHECK_ROUNDED2
#undef __WARPCHECK_ROUNDED3
__WARPCHECK_DEVICE float __fsub_rn(float a, float b) {
  float r;
  asm("sub.rn.f32 %0, %1, %2;" : "=f"(r) : "f"(a), "f"(b));
  return r;
}
__WARPCHECK_DEVICE float __fsub_rz(float a, float b) { return __fadd_rz(a, -b); }
__WARPCHECK_DEVICE float __fsub_ru(float a, float b) { return __fadd_ru(a, -b); }
__WARPCHECK_DEVICE float __fsub_rd(float a, float b) { return __fadd_rd(a, -b); }
__WARPCHECK_DEVICE double __dsub_rn(double a, double b) {
  double r;
  asm("sub.rn.f64 %0, %1, %2;" : "=d"(r) : "d"(a), "d"(b));
  return r;
}
__WARPCHECK_DEVICE double __dsub_rz(double a, double b) { return __dadd_rz(a, -b); }
__WARPCHECK_DEVICE double __dsub_ru(double a, double b) { return __dadd_ru(a, -b); }
__WARPCHECK_DEVICE double __dsub_rd(double a, double b) { return __dadd_rd(a, -b); }

/* ---- Fast approximate single-precision intrinsics -------------------------
 * As in libdevice: ex2.approx / lg2.approx / sin.approx / cos.approx
 * (9.7.3.19-9.7.3.22) with the base change folded into a multiply. */
__WARPCHECK_DEVICE float __fdividef(float a, float b) {
  return __nvvm_div_approx_f(a, b);
}
__WARPCHECK_DEVICE float __saturatef(float x) { return __nvvm_saturate_f(x); }
__WARPCHECK_DEVICE float __expf(float x) {
  return __nvvm_ex2_approx_f(x * 1.4426950408889634f);
}
__WARPCHECK_DEVICE float __exp10f(float x) {
  return __nvvm_ex2_approx_f(x * 3.3219280948873623f);
}
__WARPCHECK_DEVICE float __log2f(float x) { return __nvvm_lg2_approx_f(x); }
__WARPCHECK_DEVICE float __logf(float x) {
  return __nvvm_lg2_approx_f(x) * 0.6931471805599453f;
}
__WARPCHECK_DEVICE float __log10f(float x) {
  return __nvvm_lg2_approx_f(x) * 0.3010299956639812f;
}
__WARPCHECK_DEVICE float __sinf(float x) { return __nvvm_sin_approx_f(x); }
__WARPCHECK_DEVICE float __cosf(float x) { return __nvvm_cos_approx_f(x); }
__WARPCHECK_DEVICE void __sincosf(float x, float *s, float *c) {
  *s = __nvvm_sin_approx_f(x);
  *c = __nvvm_cos_approx_f(x);
}
__WARPCHECK_DEVICE float __tanf(float x) {
  return __nvvm_div_approx_f(__nvvm_sin_approx_f(x), __nvvm_cos_approx_f(x));
}
__WARPCHECK_DEVICE float __powf(float x, float y) {
  return __nvvm_ex2_approx_f(y * __nvvm_lg2_approx_f(x));
}
/* No PTX instruction computes a correctly rounded reciprocal square root. */
__WARPCHECK_DEVICE float __frsqrt_rn(float x) { return __nv_frsqrt_rn(x); }

#endif /* WARPCHECK_DEVICE_FUNCTIONS_H */
