/*
 * warpcheck shim: CUDA's atomic functions (atomicAdd ... atomicCAS) with their
 * _block (CTA scope) and _system (system scope) variants, for int, unsigned
 * int, unsigned long long, long long (min/max), float and double, as CUDA 12
 * defines them.
 *
 * Each is one clang `__nvvm_atom_*` builtin, which becomes one PTX `atom`
 * instruction (PTX ISA 9.7.13.5) on a generic address, or on `.global` /
 * `.shared` when LLVM can prove the address space.
 *
 * Generated once by a script and then kept by hand.
 */
#ifndef WARPCHECK_ATOMIC_FUNCTIONS_H
#define WARPCHECK_ATOMIC_FUNCTIONS_H

#define __WARPCHECK_ATOMIC static __device__ __inline__ __attribute__((always_inline, nodebug))

/* Scoped atomics (atom.cta / atom.sys) need sm_60. */
#if !defined(__CUDA_ARCH__) || __CUDA_ARCH__ >= 600
#define __WARPCHECK_SCOPED_ATOMICS 1
#else
#define __WARPCHECK_SCOPED_ATOMICS 0
#endif

/* atom.add (9.7.13.5): int, unsigned, unsigned long long, float; double below. */
__WARPCHECK_ATOMIC int atomicAdd(int *address, int val) {
  return __nvvm_atom_add_gen_i(address, val);
}
__WARPCHECK_ATOMIC unsigned int atomicAdd(unsigned int *address, unsigned int val) {
  return (unsigned int)__nvvm_atom_add_gen_i((int *)address, (int)(val));
}
__WARPCHECK_ATOMIC unsigned long long atomicAdd(unsigned long long *address, unsigned long long val) {
  return (unsigned long long)__nvvm_atom_add_gen_ll((long long *)address, (long long)(val));
}
__WARPCHECK_ATOMIC float atomicAdd(float *address, float val) {
  return __nvvm_atom_add_gen_f(address, val);
}
#if __WARPCHECK_SCOPED_ATOMICS
__WARPCHECK_ATOMIC int atomicAdd_block(int *address, int val) {
  return __nvvm_atom_cta_add_gen_i(address, val);
}
__WARPCHECK_ATOMIC unsigned int atomicAdd_block(unsigned int *address, unsigned int val) {
  return (unsigned int)__nvvm_atom_cta_add_gen_i((int *)address, (int)(val));
}
__WARPCHECK_ATOMIC unsigned long long atomicAdd_block(unsigned long long *address, unsigned long long val) {
  return (unsigned long long)__nvvm_atom_cta_add_gen_ll((long long *)address, (long long)(val));
}
__WARPCHECK_ATOMIC float atomicAdd_block(float *address, float val) {
  return __nvvm_atom_cta_add_gen_f(address, val);
}
#endif
#if __WARPCHECK_SCOPED_ATOMICS
__WARPCHECK_ATOMIC int atomicAdd_system(int *address, int val) {
  return __nvvm_atom_sys_add_gen_i(address, val);
}
__WARPCHECK_ATOMIC unsigned int atomicAdd_system(unsigned int *address, unsigned int val) {
  return (unsigned int)__nvvm_atom_sys_add_gen_i((int *)address, (int)(val));
}
__WARPCHECK_ATOMIC unsigned long long atomicAdd_system(unsigned long long *address, unsigned long long val) {
  return (unsigned long long)__nvvm_atom_sys_add_gen_ll((long long *)address, (long long)(val));
}
__WARPCHECK_ATOMIC float atomicAdd_system(float *address, float val) {
  return __nvvm_atom_sys_add_gen_f(address, val);
}
#endif
#if !defined(__CUDA_ARCH__) || __CUDA_ARCH__ >= 600
__WARPCHECK_ATOMIC double atomicAdd(double *address, double val) {
  return __nvvm_atom_add_gen_d(address, val);
}
#if __WARPCHECK_SCOPED_ATOMICS
__WARPCHECK_ATOMIC double atomicAdd_block(double *address, double val) {
  return __nvvm_atom_cta_add_gen_d(address, val);
}
#endif
#if __WARPCHECK_SCOPED_ATOMICS
__WARPCHECK_ATOMIC double atomicAdd_system(double *address, double val) {
  return __nvvm_atom_sys_add_gen_d(address, val);
}
#endif
#endif
/* There is no atom.sub: CUDA's atomicSub is an atom.add of the negation. */
__WARPCHECK_ATOMIC int atomicSub(int *address, int val) {
  return __nvvm_atom_add_gen_i(address, -val);
}
__WARPCHECK_ATOMIC unsigned int atomicSub(unsigned int *address, unsigned int val) {
  return (unsigned int)__nvvm_atom_add_gen_i((int *)address, (int)(-val));
}
#if __WARPCHECK_SCOPED_ATOMICS
__WARPCHECK_ATOMIC int atomicSub_block(int *address, int val) {
  return __nvvm_atom_cta_add_gen_i(address, -val);
}
__WARPCHECK_ATOMIC unsigned int atomicSub_block(unsigned int *address, unsigned int val) {
  return (unsigned int)__nvvm_atom_cta_add_gen_i((int *)address, (int)(-val));
}
#endif
#if __WARPCHECK_SCOPED_ATOMICS
__WARPCHECK_ATOMIC int atomicSub_system(int *address, int val) {
  return __nvvm_atom_sys_add_gen_i(address, -val);
}
__WARPCHECK_ATOMIC unsigned int atomicSub_system(unsigned int *address, unsigned int val) {
  return (unsigned int)__nvvm_atom_sys_add_gen_i((int *)address, (int)(-val));
}
#endif
/* atom.exch */
__WARPCHECK_ATOMIC int atomicExch(int *address, int val) {
  return __nvvm_atom_xchg_gen_i(address, val);
}
__WARPCHECK_ATOMIC unsigned int atomicExch(unsigned int *address, unsigned int val) {
  return (unsigned int)__nvvm_atom_xchg_gen_i((int *)address, (int)(val));
}
__WARPCHECK_ATOMIC unsigned long long atomicExch(unsigned long long *address, unsigned long long val) {
  return (unsigned long long)__nvvm_atom_xchg_gen_ll((long long *)address, (long long)(val));
}
#if __WARPCHECK_SCOPED_ATOMICS
__WARPCHECK_ATOMIC int atomicExch_block(int *address, int val) {
  return __nvvm_atom_cta_xchg_gen_i(address, val);
}
__WARPCHECK_ATOMIC unsigned int atomicExch_block(unsigned int *address, unsigned int val) {
  return (unsigned int)__nvvm_atom_cta_xchg_gen_i((int *)address, (int)(val));
}
__WARPCHECK_ATOMIC unsigned long long atomicExch_block(unsigned long long *address, unsigned long long val) {
  return (unsigned long long)__nvvm_atom_cta_xchg_gen_ll((long long *)address, (long long)(val));
}
#endif
#if __WARPCHECK_SCOPED_ATOMICS
__WARPCHECK_ATOMIC int atomicExch_system(int *address, int val) {
  return __nvvm_atom_sys_xchg_gen_i(address, val);
}
__WARPCHECK_ATOMIC unsigned int atomicExch_system(unsigned int *address, unsigned int val) {
  return (unsigned int)__nvvm_atom_sys_xchg_gen_i((int *)address, (int)(val));
}
__WARPCHECK_ATOMIC unsigned long long atomicExch_system(unsigned long long *address, unsigned long long val) {
  return (unsigned long long)__nvvm_atom_sys_xchg_gen_ll((long long *)address, (long long)(val));
}
#endif
/* atom.min / atom.max */
__WARPCHECK_ATOMIC int atomicMin(int *address, int val) {
  return __nvvm_atom_min_gen_i(address, val);
}
__WARPCHECK_ATOMIC unsigned int atomicMin(unsigned int *address, unsigned int val) {
  return __nvvm_atom_min_gen_ui(address, val);
}
__WARPCHECK_ATOMIC unsigned long long atomicMin(unsigned long long *address, unsigned long long val) {
  return __nvvm_atom_min_gen_ull(address, val);
}
__WARPCHECK_ATOMIC long long atomicMin(long long *address, long long val) {
  return __nvvm_atom_min_gen_ll(address, val);
}
#if __WARPCHECK_SCOPED_ATOMICS
__WARPCHECK_ATOMIC int atomicMin_block(int *address, int val) {
  return __nvvm_atom_cta_min_gen_i(address, val);
}
__WARPCHECK_ATOMIC unsigned int atomicMin_block(unsigned int *address, unsigned int val) {
  return __nvvm_atom_cta_min_gen_ui(address, val);
}
__WARPCHECK_ATOMIC unsigned long long atomicMin_block(unsigned long long *address, unsigned long long val) {
  return __nvvm_atom_cta_min_gen_ull(address, val);
}
__WARPCHECK_ATOMIC long long atomicMin_block(long long *address, long long val) {
  return __nvvm_atom_cta_min_gen_ll(address, val);
}
#endif
#if __WARPCHECK_SCOPED_ATOMICS
__WARPCHECK_ATOMIC int atomicMin_system(int *address, int val) {
  return __nvvm_atom_sys_min_gen_i(address, val);
}
__WARPCHECK_ATOMIC unsigned int atomicMin_system(unsigned int *address, unsigned int val) {
  return __nvvm_atom_sys_min_gen_ui(address, val);
}
__WARPCHECK_ATOMIC unsigned long long atomicMin_system(unsigned long long *address, unsigned long long val) {
  return __nvvm_atom_sys_min_gen_ull(address, val);
}
__WARPCHECK_ATOMIC long long atomicMin_system(long long *address, long long val) {
  return __nvvm_atom_sys_min_gen_ll(address, val);
}
#endif
__WARPCHECK_ATOMIC int atomicMax(int *address, int val) {
  return __nvvm_atom_max_gen_i(address, val);
}
__WARPCHECK_ATOMIC unsigned int atomicMax(unsigned int *address, unsigned int val) {
  return __nvvm_atom_max_gen_ui(address, val);
}
__WARPCHECK_ATOMIC unsigned long long atomicMax(unsigned long long *address, unsigned long long val) {
  return __nvvm_atom_max_gen_ull(address, val);
}
__WARPCHECK_ATOMIC long long atomicMax(long long *address, long long val) {
  return __nvvm_atom_max_gen_ll(address, val);
}
#if __WARPCHECK_SCOPED_ATOMICS
__WARPCHECK_ATOMIC int atomicMax_block(int *address, int val) {
  return __nvvm_atom_cta_max_gen_i(address, val);
}
__WARPCHECK_ATOMIC unsigned int atomicMax_block(unsigned int *address, unsigned int val) {
  return __nvvm_atom_cta_max_gen_ui(address, val);
}
__WARPCHECK_ATOMIC unsigned long long atomicMax_block(unsigned long long *address, unsigned long long val) {
  return __nvvm_atom_cta_max_gen_ull(address, val);
}
__WARPCHECK_ATOMIC long long atomicMax_block(long long *address, long long val) {
  return __nvvm_atom_cta_max_gen_ll(address, val);
}
#endif
#if __WARPCHECK_SCOPED_ATOMICS
__WARPCHECK_ATOMIC int atomicMax_system(int *address, int val) {
  return __nvvm_atom_sys_max_gen_i(address, val);
}
__WARPCHECK_ATOMIC unsigned int atomicMax_system(unsigned int *address, unsigned int val) {
  return __nvvm_atom_sys_max_gen_ui(address, val);
}
__WARPCHECK_ATOMIC unsigned long long atomicMax_system(unsigned long long *address, unsigned long long val) {
  return __nvvm_atom_sys_max_gen_ull(address, val);
}
__WARPCHECK_ATOMIC long long atomicMax_system(long long *address, long long val) {
  return __nvvm_atom_sys_max_gen_ll(address, val);
}
#endif
/* atom.inc / atom.dec: wrap to 0 past val / to val below 1. */
__WARPCHECK_ATOMIC unsigned int atomicInc(unsigned int *address, unsigned int val) {
  return __nvvm_atom_inc_gen_ui(address, val);
}
#if __WARPCHECK_SCOPED_ATOMICS
__WARPCHECK_ATOMIC unsigned int atomicInc_block(unsigned int *address, unsigned int val) {
  return __nvvm_atom_cta_inc_gen_ui(address, val);
}
#endif
#if __WARPCHECK_SCOPED_ATOMICS
__WARPCHECK_ATOMIC unsigned int atomicInc_system(unsigned int *address, unsigned int val) {
  return __nvvm_atom_sys_inc_gen_ui(address, val);
}
#endif
__WARPCHECK_ATOMIC unsigned int atomicDec(unsigned int *address, unsigned int val) {
  return __nvvm_atom_dec_gen_ui(address, val);
}
#if __WARPCHECK_SCOPED_ATOMICS
__WARPCHECK_ATOMIC unsigned int atomicDec_block(unsigned int *address, unsigned int val) {
  return __nvvm_atom_cta_dec_gen_ui(address, val);
}
#endif
#if __WARPCHECK_SCOPED_ATOMICS
__WARPCHECK_ATOMIC unsigned int atomicDec_system(unsigned int *address, unsigned int val) {
  return __nvvm_atom_sys_dec_gen_ui(address, val);
}
#endif
/* atom.and / atom.or / atom.xor */
__WARPCHECK_ATOMIC int atomicAnd(int *address, int val) {
  return __nvvm_atom_and_gen_i(address, val);
}
__WARPCHECK_ATOMIC unsigned int atomicAnd(unsigned int *address, unsigned int val) {
  return (unsigned int)__nvvm_atom_and_gen_i((int *)address, (int)(val));
}
__WARPCHECK_ATOMIC unsigned long long atomicAnd(unsigned long long *address, unsigned long long val) {
  return (unsigned long long)__nvvm_atom_and_gen_ll((long long *)address, (long long)(val));
}
#if __WARPCHECK_SCOPED_ATOMICS
__WARPCHECK_ATOMIC int atomicAnd_block(int *address, int val) {
  return __nvvm_atom_cta_and_gen_i(address, val);
}
__WARPCHECK_ATOMIC unsigned int atomicAnd_block(unsigned int *address, unsigned int val) {
  return (unsigned int)__nvvm_atom_cta_and_gen_i((int *)address, (int)(val));
}
__WARPCHECK_ATOMIC unsigned long long atomicAnd_block(unsigned long long *address, unsigned long long val) {
  return (unsigned long long)__nvvm_atom_cta_and_gen_ll((long long *)address, (long long)(val));
}
#endif
#if __WARPCHECK_SCOPED_ATOMICS
__WARPCHECK_ATOMIC int atomicAnd_system(int *address, int val) {
  return __nvvm_atom_sys_and_gen_i(address, val);
}
__WARPCHECK_ATOMIC unsigned int atomicAnd_system(unsigned int *address, unsigned int val) {
  return (unsigned int)__nvvm_atom_sys_and_gen_i((int *)address, (int)(val));
}
__WARPCHECK_ATOMIC unsigned long long atomicAnd_system(unsigned long long *address, unsigned long long val) {
  return (unsigned long long)__nvvm_atom_sys_and_gen_ll((long long *)address, (long long)(val));
}
#endif
__WARPCHECK_ATOMIC int atomicOr(int *address, int val) {
  return __nvvm_atom_or_gen_i(address, val);
}
__WARPCHECK_ATOMIC unsigned int atomicOr(unsigned int *address, unsigned int val) {
  return (unsigned int)__nvvm_atom_or_gen_i((int *)address, (int)(val));
}
__WARPCHECK_ATOMIC unsigned long long atomicOr(unsigned long long *address, unsigned long long val) {
  return (unsigned long long)__nvvm_atom_or_gen_ll((long long *)address, (long long)(val));
}
#if __WARPCHECK_SCOPED_ATOMICS
__WARPCHECK_ATOMIC int atomicOr_block(int *address, int val) {
  return __nvvm_atom_cta_or_gen_i(address, val);
}
__WARPCHECK_ATOMIC unsigned int atomicOr_block(unsigned int *address, unsigned int val) {
  return (unsigned int)__nvvm_atom_cta_or_gen_i((int *)address, (int)(val));
}
__WARPCHECK_ATOMIC unsigned long long atomicOr_block(unsigned long long *address, unsigned long long val) {
  return (unsigned long long)__nvvm_atom_cta_or_gen_ll((long long *)address, (long long)(val));
}
#endif
#if __WARPCHECK_SCOPED_ATOMICS
__WARPCHECK_ATOMIC int atomicOr_system(int *address, int val) {
  return __nvvm_atom_sys_or_gen_i(address, val);
}
__WARPCHECK_ATOMIC unsigned int atomicOr_system(unsigned int *address, unsigned int val) {
  return (unsigned int)__nvvm_atom_sys_or_gen_i((int *)address, (int)(val));
}
__WARPCHECK_ATOMIC unsigned long long atomicOr_system(unsigned long long *address, unsigned long long val) {
  return (unsigned long long)__nvvm_atom_sys_or_gen_ll((long long *)address, (long long)(val));
}
#endif
__WARPCHECK_ATOMIC int atomicXor(int *address, int val) {
  return __nvvm_atom_xor_gen_i(address, val);
}
__WARPCHECK_ATOMIC unsigned int atomicXor(unsigned int *address, unsigned int val) {
  return (unsigned int)__nvvm_atom_xor_gen_i((int *)address, (int)(val));
}
__WARPCHECK_ATOMIC unsigned long long atomicXor(unsigned long long *address, unsigned long long val) {
  return (unsigned long long)__nvvm_atom_xor_gen_ll((long long *)address, (long long)(val));
}
#if __WARPCHECK_SCOPED_ATOMICS
__WARPCHECK_ATOMIC int atomicXor_block(int *address, int val) {
  return __nvvm_atom_cta_xor_gen_i(address, val);
}
__WARPCHECK_ATOMIC unsigned int atomicXor_block(unsigned int *address, unsigned int val) {
  return (unsigned int)__nvvm_atom_cta_xor_gen_i((int *)address, (int)(val));
}
__WARPCHECK_ATOMIC unsigned long long atomicXor_block(unsigned long long *address, unsigned long long val) {
  return (unsigned long long)__nvvm_atom_cta_xor_gen_ll((long long *)address, (long long)(val));
}
#endif
#if __WARPCHECK_SCOPED_ATOMICS
__WARPCHECK_ATOMIC int atomicXor_system(int *address, int val) {
  return __nvvm_atom_sys_xor_gen_i(address, val);
}
__WARPCHECK_ATOMIC unsigned int atomicXor_system(unsigned int *address, unsigned int val) {
  return (unsigned int)__nvvm_atom_sys_xor_gen_i((int *)address, (int)(val));
}
__WARPCHECK_ATOMIC unsigned long long atomicXor_system(unsigned long long *address, unsigned long long val) {
  return (unsigned long long)__nvvm_atom_sys_xor_gen_ll((long long *)address, (long long)(val));
}
#endif
/* atomicExch(float): exchange of the bits. */
__WARPCHECK_ATOMIC float atomicExch(float *address, float val) {
  return __builtin_bit_cast(float, __nvvm_atom_xchg_gen_i((int *)address, __builtin_bit_cast(int, val)));
}
#if __WARPCHECK_SCOPED_ATOMICS
__WARPCHECK_ATOMIC float atomicExch_block(float *address, float val) {
  return __builtin_bit_cast(float, __nvvm_atom_cta_xchg_gen_i((int *)address, __builtin_bit_cast(int, val)));
}
#endif
#if __WARPCHECK_SCOPED_ATOMICS
__WARPCHECK_ATOMIC float atomicExch_system(float *address, float val) {
  return __builtin_bit_cast(float, __nvvm_atom_sys_xchg_gen_i((int *)address, __builtin_bit_cast(int, val)));
}
#endif
/* atom.cas (9.7.13.5): returns the old value; stores val if it equalled compare. */
__WARPCHECK_ATOMIC int atomicCAS(int *address, int compare, int val) {
  return __nvvm_atom_cas_gen_i(address, compare, val);
}
__WARPCHECK_ATOMIC unsigned int atomicCAS(unsigned int *address, unsigned int compare, unsigned int val) {
  return (unsigned int)__nvvm_atom_cas_gen_i((int *)address, (int)compare, (int)val);
}
__WARPCHECK_ATOMIC unsigned long long atomicCAS(unsigned long long *address, unsigned long long compare, unsigned long long val) {
  return (unsigned long long)__nvvm_atom_cas_gen_ll((long long *)address, (long long)compare, (long long)val);
}
#if __WARPCHECK_SCOPED_ATOMICS
__WARPCHECK_ATOMIC int atomicCAS_block(int *address, int compare, int val) {
  return __nvvm_atom_cta_cas_gen_i(address, compare, val);
}
__WARPCHECK_ATOMIC unsigned int atomicCAS_block(unsigned int *address, unsigned int compare, unsigned int val) {
  return (unsigned int)__nvvm_atom_cta_cas_gen_i((int *)address, (int)compare, (int)val);
}
__WARPCHECK_ATOMIC unsigned long long atomicCAS_block(unsigned long long *address, unsigned long long compare, unsigned long long val) {
  return (unsigned long long)__nvvm_atom_cta_cas_gen_ll((long long *)address, (long long)compare, (long long)val);
}
#endif
#if __WARPCHECK_SCOPED_ATOMICS
__WARPCHECK_ATOMIC int atomicCAS_system(int *address, int compare, int val) {
  return __nvvm_atom_sys_cas_gen_i(address, compare, val);
}
__WARPCHECK_ATOMIC unsigned int atomicCAS_system(unsigned int *address, unsigned int compare, unsigned int val) {
  return (unsigned int)__nvvm_atom_sys_cas_gen_i((int *)address, (int)compare, (int)val);
}
__WARPCHECK_ATOMIC unsigned long long atomicCAS_system(unsigned long long *address, unsigned long long compare, unsigned long long val) {
  return (unsigned long long)__nvvm_atom_sys_cas_gen_ll((long long *)address, (long long)compare, (long long)val);
}
#endif
#if !defined(__CUDA_ARCH__) || __CUDA_ARCH__ >= 700
/* 16-bit compare-and-swap (sm_70): clang has no builtin for atom.cas.b16. */
__WARPCHECK_ATOMIC unsigned short int atomicCAS(unsigned short int *address,
                                                unsigned short int compare,
                                                unsigned short int val) {
  unsigned short int old;
  __asm__ __volatile__("atom.cas.b16 %0, [%1], %2, %3;"
                       : "=h"(old)
                       : "l"(address), "h"(compare), "h"(val)
                       : "memory");
  return old;
}
#endif

#endif /* WARPCHECK_ATOMIC_FUNCTIONS_H */
