/*
 * warpcheck shim: read-only data-cache loads (__ldg: ld.global.nc, PTX ISA
 * 9.7.9.9) and cache-hinted loads and stores (__ldcg, __ldca, __ldcs, __ldlu,
 * __ldcv, __stwb, __stcg, __stcs, __stwt: ld/st with a cache operator,
 * 9.7.9.8 and 9.7.9.10).
 *
 * __ldg uses clang's __nvvm_ldg_* builtins, so LLVM still sees a load and can
 * fold offsets into it; the cache-hinted forms exist for the scalar types and
 * use inline asm.
 *
 * Generated once by a script and then kept by hand.
 */
#ifndef WARPCHECK_LDG_H
#define WARPCHECK_LDG_H

#define __WARPCHECK_LDG static __device__ __inline__ __attribute__((always_inline, nodebug))

__WARPCHECK_LDG char __ldg(const char *p) { return __nvvm_ldg_c(p); }
__WARPCHECK_LDG signed char __ldg(const signed char *p) { return (signed char)__nvvm_ldg_c((const char *)p); }
__WARPCHECK_LDG short __ldg(const short *p) { return __nvvm_ldg_s(p); }
__WARPCHECK_LDG int __ldg(const int *p) { return __nvvm_ldg_i(p); }
__WARPCHECK_LDG long __ldg(const long *p) { return __nvvm_ldg_l(p); }
__WARPCHECK_LDG long long __ldg(const long long *p) { return __nvvm_ldg_ll(p); }
__WARPCHECK_LDG unsigned char __ldg(const unsigned char *p) { return __nvvm_ldg_uc(p); }
__WARPCHECK_LDG unsigned short __ldg(const unsigned short *p) { return __nvvm_ldg_us(p); }
__WARPCHECK_LDG unsigned int __ldg(const unsigned int *p) { return __nvvm_ldg_ui(p); }
__WARPCHECK_LDG unsigned long __ldg(const unsigned long *p) { return __nvvm_ldg_ul(p); }
__WARPCHECK_LDG unsigned long long __ldg(const unsigned long long *p) { return __nvvm_ldg_ull(p); }
__WARPCHECK_LDG float __ldg(const float *p) { return __nvvm_ldg_f(p); }
__WARPCHECK_LDG double __ldg(const double *p) { return __nvvm_ldg_d(p); }
__WARPCHECK_LDG char2 __ldg(const char2 *p) {
  typedef char __vec __attribute__((ext_vector_type(2)));
  __vec t = __nvvm_ldg_c2((const __vec *)p);
  char2 r;
  r.x = (signed char)t[0]; r.y = (signed char)t[1];
  return r;
}
__WARPCHECK_LDG char4 __ldg(const char4 *p) {
  typedef char __vec __attribute__((ext_vector_type(4)));
  __vec t = __nvvm_ldg_c4((const __vec *)p);
  char4 r;
  r.x = (signed char)t[0]; r.y = (signed char)t[1]; r.z = (signed char)t[2]; r.w = (signed char)t[3];
  return r;
}
__WARPCHECK_LDG short2 __ldg(const short2 *p) {
  typedef short __vec __attribute__((ext_vector_type(2)));
  __vec t = __nvvm_ldg_s2((const __vec *)p);
  short2 r;
  r.x = (short)t[0]; r.y = (short)t[1];
  return r;
}
__WARPCHECK_LDG short4 __ldg(const short4 *p) {
  typedef short __vec __attribute__((ext_vector_type(4)));
  __vec t = __nvvm_ldg_s4((const __vec *)p);
  short4 r;
  r.x = (short)t[0]; r.y = (short)t[1]; r.z = (short)t[2]; r.w = (short)t[3];
  return r;
}
__WARPCHECK_LDG int2 __ldg(const int2 *p) {
  typedef int __vec __attribute__((ext_vector_type(2)));
  __vec t = __nvvm_ldg_i2((const __vec *)p);
  int2 r;
  r.x = (int)t[0]; r.y = (int)t[1];
  return r;
}
__WARPCHECK_LDG int4 __ldg(const int4 *p) {
  typedef int __vec __attribute__((ext_vector_type(4)));
  __vec t = __nvvm_ldg_i4((const __vec *)p);
  int4 r;
  r.x = (int)t[0]; r.y = (int)t[1]; r.z = (int)t[2]; r.w = (int)t[3];
  return r;
}
__WARPCHECK_LDG longlong2 __ldg(const longlong2 *p) {
  typedef long long __vec __attribute__((ext_vector_type(2)));
  __vec t = __nvvm_ldg_ll2((const __vec *)p);
  longlong2 r;
  r.x = (long long)t[0]; r.y = (long long)t[1];
  return r;
}
__WARPCHECK_LDG uchar2 __ldg(const uchar2 *p) {
  typedef unsigned char __vec __attribute__((ext_vector_type(2)));
  __vec t = __nvvm_ldg_uc2((const __vec *)p);
  uchar2 r;
  r.x = (unsigned char)t[0]; r.y = (unsigned char)t[1];
  return r;
}
__WARPCHECK_LDG uchar4 __ldg(const uchar4 *p) {
  typedef unsigned char __vec __attribute__((ext_vector_type(4)));
  __vec t = __nvvm_ldg_uc4((const __vec *)p);
  uchar4 r;
  r.x = (unsigned char)t[0]; r.y = (unsigned char)t[1]; r.z = (unsigned char)t[2]; r.w = (unsigned char)t[3];
  return r;
}
__WARPCHECK_LDG ushort2 __ldg(const ushort2 *p) {
  typedef unsigned short __vec __attribute__((ext_vector_type(2)));
  __vec t = __nvvm_ldg_us2((const __vec *)p);
  ushort2 r;
  r.x = (unsigned short)t[0]; r.y = (unsigned short)t[1];
  return r;
}
__WARPCHECK_LDG ushort4 __ldg(const ushort4 *p) {
  typedef unsigned short __vec __attribute__((ext_vector_type(4)));
  __vec t = __nvvm_ldg_us4((const __vec *)p);
  ushort4 r;
  r.x = (unsigned short)t[0]; r.y = (unsigned short)t[1]; r.z = (unsigned short)t[2]; r.w = (unsigned short)t[3];
  return r;
}
__WARPCHECK_LDG uint2 __ldg(const uint2 *p) {
  typedef unsigned int __vec __attribute__((ext_vector_type(2)));
  __vec t = __nvvm_ldg_ui2((const __vec *)p);
  uint2 r;
  r.x = (unsigned int)t[0]; r.y = (unsigned int)t[1];
  return r;
}
__WARPCHECK_LDG uint4 __ldg(const uint4 *p) {
  typedef unsigned int __vec __attribute__((ext_vector_type(4)));
  __vec t = __nvvm_ldg_ui4((const __vec *)p);
  uint4 r;
  r.x = (unsigned int)t[0]; r.y = (unsigned int)t[1]; r.z = (unsigned int)t[2]; r.w = (unsigned int)t[3];
  return r;
}
__WARPCHECK_LDG ulonglong2 __ldg(const ulonglong2 *p) {
  typedef unsigned long long __vec __attribute__((ext_vector_type(2)));
  __vec t = __nvvm_ldg_ull2((const __vec *)p);
  ulonglong2 r;
  r.x = (unsigned long long)t[0]; r.y = (unsigned long long)t[1];
  return r;
}
__WARPCHECK_LDG float2 __ldg(const float2 *p) {
  typedef float __vec __attribute__((ext_vector_type(2)));
  __vec t = __nvvm_ldg_f2((const __vec *)p);
  float2 r;
  r.x = (float)t[0]; r.y = (float)t[1];
  return r;
}
__WARPCHECK_LDG float4 __ldg(const float4 *p) {
  typedef float __vec __attribute__((ext_vector_type(4)));
  __vec t = __nvvm_ldg_f4((const __vec *)p);
  float4 r;
  r.x = (float)t[0]; r.y = (float)t[1]; r.z = (float)t[2]; r.w = (float)t[3];
  return r;
}
__WARPCHECK_LDG double2 __ldg(const double2 *p) {
  typedef double __vec __attribute__((ext_vector_type(2)));
  __vec t = __nvvm_ldg_d2((const __vec *)p);
  double2 r;
  r.x = (double)t[0]; r.y = (double)t[1];
  return r;
}
__WARPCHECK_LDG int __ldcg(const int *p) {
  int r;
  __asm__ __volatile__("ld.global.cg.s32 %0, [%1];" : "=r"(r) : "l"(p) : "memory");
  return r;
}
__WARPCHECK_LDG unsigned int __ldcg(const unsigned int *p) {
  unsigned int r;
  __asm__ __volatile__("ld.global.cg.u32 %0, [%1];" : "=r"(r) : "l"(p) : "memory");
  return r;
}
__WARPCHECK_LDG long long __ldcg(const long long *p) {
  long long r;
  __asm__ __volatile__("ld.global.cg.s64 %0, [%1];" : "=l"(r) : "l"(p) : "memory");
  return r;
}
__WARPCHECK_LDG unsigned long long __ldcg(const unsigned long long *p) {
  unsigned long long r;
  __asm__ __volatile__("ld.global.cg.u64 %0, [%1];" : "=l"(r) : "l"(p) : "memory");
  return r;
}
__WARPCHECK_LDG long __ldcg(const long *p) {
  long r;
  __asm__ __volatile__("ld.global.cg.s64 %0, [%1];" : "=l"(r) : "l"(p) : "memory");
  return r;
}
__WARPCHECK_LDG unsigned long __ldcg(const unsigned long *p) {
  unsigned long r;
  __asm__ __volatile__("ld.global.cg.u64 %0, [%1];" : "=l"(r) : "l"(p) : "memory");
  return r;
}
__WARPCHECK_LDG float __ldcg(const float *p) {
  float r;
  __asm__ __volatile__("ld.global.cg.f32 %0, [%1];" : "=f"(r) : "l"(p) : "memory");
  return r;
}
__WARPCHECK_LDG double __ldcg(const double *p) {
  double r;
  __asm__ __volatile__("ld.global.cg.f64 %0, [%1];" : "=d"(r) : "l"(p) : "memory");
  return r;
}
__WARPCHECK_LDG int __ldca(const int *p) {
  int r;
  __asm__ __volatile__("ld.global.ca.s32 %0, [%1];" : "=r"(r) : "l"(p) : "memory");
  return r;
}
__WARPCHECK_LDG unsigned int __ldca(const unsigned int *p) {
  unsigned int r;
  __asm__ __volatile__("ld.global.ca.u32 %0, [%1];" : "=r"(r) : "l"(p) : "memory");
  return r;
}
__WARPCHECK_LDG long long __ldca(const long long *p) {
  long long r;
  __asm__ __volatile__("ld.global.ca.s64 %0, [%1];" : "=l"(r) : "l"(p) : "memory");
  return r;
}
__WARPCHECK_LDG unsigned long long __ldca(const unsigned long long *p) {
  unsigned long long r;
  __asm__ __volatile__("ld.global.ca.u64 %0, [%1];" : "=l"(r) : "l"(p) : "memory");
  return r;
}
__WARPCHECK_LDG long __ldca(const long *p) {
  long r;
  __asm__ __volatile__("ld.global.ca.s64 %0, [%1];" : "=l"(r) : "l"(p) : "memory");
  return r;
}
__WARPCHECK_LDG unsigned long __ldca(const unsigned long *p) {
  unsigned long r;
  __asm__ __volatile__("ld.global.ca.u64 %0, [%1];" : "=l"(r) : "l"(p) : "memory");
  return r;
}
__WARPCHECK_LDG float __ldca(const float *p) {
  float r;
  __asm__ __volatile__("ld.global.ca.f32 %0, [%1];" : "=f"(r) : "l"(p) : "memory");
  return r;
}
__WARPCHECK_LDG double __ldca(const double *p) {
  double r;
  __asm__ __volatile__("ld.global.ca.f64 %0, [%1];" : "=d"(r) : "l"(p) : "memory");
  return r;
}
__WARPCHECK_LDG int __ldcs(const int *p) {
  int r;
  __asm__ __volatile__("ld.global.cs.s32 %0, [%1];" : "=r"(r) : "l"(p) : "memory");
  return r;
}
__WARPCHECK_LDG unsigned int __ldcs(const unsigned int *p) {
  unsigned int r;
  __asm__ __volatile__("ld.global.cs.u32 %0, [%1];" : "=r"(r) : "l"(p) : "memory");
  return r;
}
__WARPCHECK_LDG long long __ldcs(const long long *p) {
  long long r;
  __asm__ __volatile__("ld.global.cs.s64 %0, [%1];" : "=l"(r) : "l"(p) : "memory");
  return r;
}
__WARPCHECK_LDG unsigned long long __ldcs(const unsigned long long *p) {
  unsigned long long r;
  __asm__ __volatile__("ld.global.cs.u64 %0, [%1];" : "=l"(r) : "l"(p) : "memory");
  return r;
}
__WARPCHECK_LDG long __ldcs(const long *p) {
  long r;
  __asm__ __volatile__("ld.global.cs.s64 %0, [%1];" : "=l"(r) : "l"(p) : "memory");
  return r;
}
__WARPCHECK_LDG unsigned long __ldcs(const unsigned long *p) {
  unsigned long r;
  __asm__ __volatile__("ld.global.cs.u64 %0, [%1];" : "=l"(r) : "l"(p) : "memory");
  return r;
}
__WARPCHECK_LDG float __ldcs(const float *p) {
  float r;
  __asm__ __volatile__("ld.global.cs.f32 %0, [%1];" : "=f"(r) : "l"(p) : "memory");
  return r;
}
__WARPCHECK_LDG double __ldcs(const double *p) {
  double r;
  __asm__ __volatile__("ld.global.cs.f64 %0, [%1];" : "=d"(r) : "l"(p) : "memory");
  return r;
}
__WARPCHECK_LDG int __ldlu(const int *p) {
  int r;
  __asm__ __volatile__("ld.global.lu.s32 %0, [%1];" : "=r"(r) : "l"(p) : "memory");
  return r;
}
__WARPCHECK_LDG unsigned int __ldlu(const unsigned int *p) {
  unsigned int r;
  __asm__ __volatile__("ld.global.lu.u32 %0, [%1];" : "=r"(r) : "l"(p) : "memory");
  return r;
}
__WARPCHECK_LDG long long __ldlu(const long long *p) {
  long long r;
  __asm__ __volatile__("ld.global.lu.s64 %0, [%1];" : "=l"(r) : "l"(p) : "memory");
  return r;
}
__WARPCHECK_LDG unsigned long long __ldlu(const unsigned long long *p) {
  unsigned long long r;
  __asm__ __volatile__("ld.global.lu.u64 %0, [%1];" : "=l"(r) : "l"(p) : "memory");
  return r;
}
__WARPCHECK_LDG long __ldlu(const long *p) {
  long r;
  __asm__ __volatile__("ld.global.lu.s64 %0, [%1];" : "=l"(r) : "l"(p) : "memory");
  return r;
}
__WARPCHECK_LDG unsigned long __ldlu(const unsigned long *p) {
  unsigned long r;
  __asm__ __volatile__("ld.global.lu.u64 %0, [%1];" : "=l"(r) : "l"(p) : "memory");
  return r;
}
__WARPCHECK_LDG float __ldlu(const float *p) {
  float r;
  __asm__ __volatile__("ld.global.lu.f32 %0, [%1];" : "=f"(r) : "l"(p) : "memory");
  return r;
}
__WARPCHECK_LDG double __ldlu(const double *p) {
  double r;
  __asm__ __volatile__("ld.global.lu.f64 %0, [%1];" : "=d"(r) : "l"(p) : "memory");
  return r;
}
__WARPCHECK_LDG int __ldcv(const int *p) {
  int r;
  __asm__ __volatile__("ld.global.cv.s32 %0, [%1];" : "=r"(r) : "l"(p) : "memory");
  return r;
}
__WARPCHECK_LDG unsigned int __ldcv(const unsigned int *p) {
  unsigned int r;
  __asm__ __volatile__("ld.global.cv.u32 %0, [%1];" : "=r"(r) : "l"(p) : "memory");
  return r;
}
__WARPCHECK_LDG long long __ldcv(const long long *p) {
  long long r;
  __asm__ __volatile__("ld.global.cv.s64 %0, [%1];" : "=l"(r) : "l"(p) : "memory");
  return r;
}
__WARPCHECK_LDG unsigned long long __ldcv(const unsigned long long *p) {
  unsigned long long r;
  __asm__ __volatile__("ld.global.cv.u64 %0, [%1];" : "=l"(r) : "l"(p) : "memory");
  return r;
}
__WARPCHECK_LDG long __ldcv(const long *p) {
  long r;
  __asm__ __volatile__("ld.global.cv.s64 %0, [%1];" : "=l"(r) : "l"(p) : "memory");
  return r;
}
__WARPCHECK_LDG unsigned long __ldcv(const unsigned long *p) {
  unsigned long r;
  __asm__ __volatile__("ld.global.cv.u64 %0, [%1];" : "=l"(r) : "l"(p) : "memory");
  return r;
}
__WARPCHECK_LDG float __ldcv(const float *p) {
  float r;
  __asm__ __volatile__("ld.global.cv.f32 %0, [%1];" : "=f"(r) : "l"(p) : "memory");
  return r;
}
__WARPCHECK_LDG double __ldcv(const double *p) {
  double r;
  __asm__ __volatile__("ld.global.cv.f64 %0, [%1];" : "=d"(r) : "l"(p) : "memory");
  return r;
}
__WARPCHECK_LDG void __stwb(int *p, int v) {
  __asm__ __volatile__("st.global.wb.s32 [%0], %1;" :: "l"(p), "r"(v) : "memory");
}
__WARPCHECK_LDG void __stwb(unsigned int *p, unsigned int v) {
  __asm__ __volatile__("st.global.wb.u32 [%0], %1;" :: "l"(p), "r"(v) : "memory");
}
__WARPCHECK_LDG void __stwb(long long *p, long long v) {
  __asm__ __volatile__("st.global.wb.s64 [%0], %1;" :: "l"(p), "l"(v) : "memory");
}
__WARPCHECK_LDG void __stwb(unsigned long long *p, unsigned long long v) {
  __asm__ __volatile__("st.global.wb.u64 [%0], %1;" :: "l"(p), "l"(v) : "memory");
}
__WARPCHECK_LDG void __stwb(long *p, long v) {
  __asm__ __volatile__("st.global.wb.s64 [%0], %1;" :: "l"(p), "l"(v) : "memory");
}
__WARPCHECK_LDG void __stwb(unsigned long *p, unsigned long v) {
  __asm__ __volatile__("st.global.wb.u64 [%0], %1;" :: "l"(p), "l"(v) : "memory");
}
__WARPCHECK_LDG void __stwb(float *p, float v) {
  __asm__ __volatile__("st.global.wb.f32 [%0], %1;" :: "l"(p), "f"(v) : "memory");
}
__WARPCHECK_LDG void __stwb(double *p, double v) {
  __asm__ __volatile__("st.global.wb.f64 [%0], %1;" :: "l"(p), "d"(v) : "memory");
}
__WARPCHECK_LDG void __stcg(int *p, int v) {
  __asm__ __volatile__("st.global.cg.s32 [%0], %1;" :: "l"(p), "r"(v) : "memory");
}
__WARPCHECK_LDG void __stcg(unsigned int *p, unsigned int v) {
  __asm__ __volatile__("st.global.cg.u32 [%0], %1;" :: "l"(p), "r"(v) : "memory");
}
__WARPCHECK_LDG void __stcg(long long *p, long long v) {
  __asm__ __volatile__("st.global.cg.s64 [%0], %1;" :: "l"(p), "l"(v) : "memory");
}
__WARPCHECK_LDG void __stcg(unsigned long long *p, unsigned long long v) {
  __asm__ __volatile__("st.global.cg.u64 [%0], %1;" :: "l"(p), "l"(v) : "memory");
}
__WARPCHECK_LDG void __stcg(long *p, long v) {
  __asm__ __volatile__("st.global.cg.s64 [%0], %1;" :: "l"(p), "l"(v) : "memory");
}
__WARPCHECK_LDG void __stcg(unsigned long *p, unsigned long v) {
  __asm__ __volatile__("st.global.cg.u64 [%0], %1;" :: "l"(p), "l"(v) : "memory");
}
__WARPCHECK_LDG void __stcg(float *p, float v) {
  __asm__ __volatile__("st.global.cg.f32 [%0], %1;" :: "l"(p), "f"(v) : "memory");
}
__WARPCHECK_LDG void __stcg(double *p, double v) {
  __asm__ __volatile__("st.global.cg.f64 [%0], %1;" :: "l"(p), "d"(v) : "memory");
}
__WARPCHECK_LDG void __stcs(int *p, int v) {
  __asm__ __volatile__("st.global.cs.s32 [%0], %1;" :: "l"(p), "r"(v) : "memory");
}
__WARPCHECK_LDG void __stcs(unsigned int *p, unsigned int v) {
  __asm__ __volatile__("st.global.cs.u32 [%0], %1;" :: "l"(p), "r"(v) : "memory");
}
__WARPCHECK_LDG void __stcs(long long *p, long long v) {
  __asm__ __volatile__("st.global.cs.s64 [%0], %1;" :: "l"(p), "l"(v) : "memory");
}
__WARPCHECK_LDG void __stcs(unsigned long long *p, unsigned long long v) {
  __asm__ __volatile__("st.global.cs.u64 [%0], %1;" :: "l"(p), "l"(v) : "memory");
}
__WARPCHECK_LDG void __stcs(long *p, long v) {
  __asm__ __volatile__("st.global.cs.s64 [%0], %1;" :: "l"(p), "l"(v) : "memory");
}
__WARPCHECK_LDG void __stcs(unsigned long *p, unsigned long v) {
  __asm__ __volatile__("st.global.cs.u64 [%0], %1;" :: "l"(p), "l"(v) : "memory");
}
__WARPCHECK_LDG void __stcs(float *p, float v) {
  __asm__ __volatile__("st.global.cs.f32 [%0], %1;" :: "l"(p), "f"(v) : "memory");
}
__WARPCHECK_LDG void __stcs(double *p, double v) {
  __asm__ __volatile__("st.global.cs.f64 [%0], %1;" :: "l"(p), "d"(v) : "memory");
}
__WARPCHECK_LDG void __stwt(int *p, int v) {
  __asm__ __volatile__("st.global.wt.s32 [%0], %1;" :: "l"(p), "r"(v) : "memory");
}
__WARPCHECK_LDG void __stwt(unsigned int *p, unsigned int v) {
  __asm__ __volatile__("st.global.wt.u32 [%0], %1;" :: "l"(p), "r"(v) : "memory");
}
__WARPCHECK_LDG void __stwt(long long *p, long long v) {
  __asm__ __volatile__("st.global.wt.s64 [%0], %1;" :: "l"(p), "l"(v) : "memory");
}
__WARPCHECK_LDG void __stwt(unsigned long long *p, unsigned long long v) {
  __asm__ __volatile__("st.global.wt.u64 [%0], %1;" :: "l"(p), "l"(v) : "memory");
}
__WARPCHECK_LDG void __stwt(long *p, long v) {
  __asm__ __volatile__("st.global.wt.s64 [%0], %1;" :: "l"(p), "l"(v) : "memory");
}
__WARPCHECK_LDG void __stwt(unsigned long *p, unsigned long v) {
  __asm__ __volatile__("st.global.wt.u64 [%0], %1;" :: "l"(p), "l"(v) : "memory");
}
__WARPCHECK_LDG void __stwt(float *p, float v) {
  __asm__ __volatile__("st.global.wt.f32 [%0], %1;" :: "l"(p), "f"(v) : "memory");
}
__WARPCHECK_LDG void __stwt(double *p, double v) {
  __asm__ __volatile__("st.global.wt.f64 [%0], %1;" :: "l"(p), "d"(v) : "memory");
}

/* Vector forms of the cache-hinted loads and stores (`ld.global.OP.v2/.v4`), as NVIDIA's
 * sm_32_intrinsics.h declares them. */
__WARPCHECK_LDG float2 __ldcg(const float2 *p) {
  float2 r;
  __asm__ __volatile__("ld.global.cg.v2.f32 {%0, %1}, [%2];" : "=f"(r.x), "=f"(r.y) : "l"(p) : "memory");
  return r;
}
__WARPCHECK_LDG float4 __ldcg(const float4 *p) {
  float4 r;
  __asm__ __volatile__("ld.global.cg.v4.f32 {%0, %1, %2, %3}, [%4];" : "=f"(r.x), "=f"(r.y), "=f"(r.z), "=f"(r.w) : "l"(p) : "memory");
  return r;
}
__WARPCHECK_LDG int2 __ldcg(const int2 *p) {
  int2 r;
  __asm__ __volatile__("ld.global.cg.v2.s32 {%0, %1}, [%2];" : "=r"(r.x), "=r"(r.y) : "l"(p) : "memory");
  return r;
}
__WARPCHECK_LDG int4 __ldcg(const int4 *p) {
  int4 r;
  __asm__ __volatile__("ld.global.cg.v4.s32 {%0, %1, %2, %3}, [%4];" : "=r"(r.x), "=r"(r.y), "=r"(r.z), "=r"(r.w) : "l"(p) : "memory");
  return r;
}
__WARPCHECK_LDG uint2 __ldcg(const uint2 *p) {
  uint2 r;
  __asm__ __volatile__("ld.global.cg.v2.u32 {%0, %1}, [%2];" : "=r"(r.x), "=r"(r.y) : "l"(p) : "memory");
  return r;
}
__WARPCHECK_LDG uint4 __ldcg(const uint4 *p) {
  uint4 r;
  __asm__ __volatile__("ld.global.cg.v4.u32 {%0, %1, %2, %3}, [%4];" : "=r"(r.x), "=r"(r.y), "=r"(r.z), "=r"(r.w) : "l"(p) : "memory");
  return r;
}
__WARPCHECK_LDG double2 __ldcg(const double2 *p) {
  double2 r;
  __asm__ __volatile__("ld.global.cg.v2.f64 {%0, %1}, [%2];" : "=d"(r.x), "=d"(r.y) : "l"(p) : "memory");
  return r;
}
__WARPCHECK_LDG longlong2 __ldcg(const longlong2 *p) {
  longlong2 r;
  __asm__ __volatile__("ld.global.cg.v2.s64 {%0, %1}, [%2];" : "=l"(r.x), "=l"(r.y) : "l"(p) : "memory");
  return r;
}
__WARPCHECK_LDG ulonglong2 __ldcg(const ulonglong2 *p) {
  ulonglong2 r;
  __asm__ __volatile__("ld.global.cg.v2.u64 {%0, %1}, [%2];" : "=l"(r.x), "=l"(r.y) : "l"(p) : "memory");
  return r;
}
__WARPCHECK_LDG float2 __ldca(const float2 *p) {
  float2 r;
  __asm__ __volatile__("ld.global.ca.v2.f32 {%0, %1}, [%2];" : "=f"(r.x), "=f"(r.y) : "l"(p) : "memory");
  return r;
}
__WARPCHECK_LDG float4 __ldca(const float4 *p) {
  float4 r;
  __asm__ __volatile__("ld.global.ca.v4.f32 {%0, %1, %2, %3}, [%4];" : "=f"(r.x), "=f"(r.y), "=f"(r.z), "=f"(r.w) : "l"(p) : "memory");
  return r;
}
__WARPCHECK_LDG int2 __ldca(const int2 *p) {
  int2 r;
  __asm__ __volatile__("ld.global.ca.v2.s32 {%0, %1}, [%2];" : "=r"(r.x), "=r"(r.y) : "l"(p) : "memory");
  return r;
}
__WARPCHECK_LDG int4 __ldca(const int4 *p) {
  int4 r;
  __asm__ __volatile__("ld.global.ca.v4.s32 {%0, %1, %2, %3}, [%4];" : "=r"(r.x), "=r"(r.y), "=r"(r.z), "=r"(r.w) : "l"(p) : "memory");
  return r;
}
__WARPCHECK_LDG uint2 __ldca(const uint2 *p) {
  uint2 r;
  __asm__ __volatile__("ld.global.ca.v2.u32 {%0, %1}, [%2];" : "=r"(r.x), "=r"(r.y) : "l"(p) : "memory");
  return r;
}
__WARPCHECK_LDG uint4 __ldca(const uint4 *p) {
  uint4 r;
  __asm__ __volatile__("ld.global.ca.v4.u32 {%0, %1, %2, %3}, [%4];" : "=r"(r.x), "=r"(r.y), "=r"(r.z), "=r"(r.w) : "l"(p) : "memory");
  return r;
}
__WARPCHECK_LDG double2 __ldca(const double2 *p) {
  double2 r;
  __asm__ __volatile__("ld.global.ca.v2.f64 {%0, %1}, [%2];" : "=d"(r.x), "=d"(r.y) : "l"(p) : "memory");
  return r;
}
__WARPCHECK_LDG longlong2 __ldca(const longlong2 *p) {
  longlong2 r;
  __asm__ __volatile__("ld.global.ca.v2.s64 {%0, %1}, [%2];" : "=l"(r.x), "=l"(r.y) : "l"(p) : "memory");
  return r;
}
__WARPCHECK_LDG ulonglong2 __ldca(const ulonglong2 *p) {
  ulonglong2 r;
  __asm__ __volatile__("ld.global.ca.v2.u64 {%0, %1}, [%2];" : "=l"(r.x), "=l"(r.y) : "l"(p) : "memory");
  return r;
}
__WARPCHECK_LDG float2 __ldcs(const float2 *p) {
  float2 r;
  __asm__ __volatile__("ld.global.cs.v2.f32 {%0, %1}, [%2];" : "=f"(r.x), "=f"(r.y) : "l"(p) : "memory");
  return r;
}
__WARPCHECK_LDG float4 __ldcs(const float4 *p) {
  float4 r;
  __asm__ __volatile__("ld.global.cs.v4.f32 {%0, %1, %2, %3}, [%4];" : "=f"(r.x), "=f"(r.y), "=f"(r.z), "=f"(r.w) : "l"(p) : "memory");
  return r;
}
__WARPCHECK_LDG int2 __ldcs(const int2 *p) {
  int2 r;
  __asm__ __volatile__("ld.global.cs.v2.s32 {%0, %1}, [%2];" : "=r"(r.x), "=r"(r.y) : "l"(p) : "memory");
  return r;
}
__WARPCHECK_LDG int4 __ldcs(const int4 *p) {
  int4 r;
  __asm__ __volatile__("ld.global.cs.v4.s32 {%0, %1, %2, %3}, [%4];" : "=r"(r.x), "=r"(r.y), "=r"(r.z), "=r"(r.w) : "l"(p) : "memory");
  return r;
}
__WARPCHECK_LDG uint2 __ldcs(const uint2 *p) {
  uint2 r;
  __asm__ __volatile__("ld.global.cs.v2.u32 {%0, %1}, [%2];" : "=r"(r.x), "=r"(r.y) : "l"(p) : "memory");
  return r;
}
__WARPCHECK_LDG uint4 __ldcs(const uint4 *p) {
  uint4 r;
  __asm__ __volatile__("ld.global.cs.v4.u32 {%0, %1, %2, %3}, [%4];" : "=r"(r.x), "=r"(r.y), "=r"(r.z), "=r"(r.w) : "l"(p) : "memory");
  return r;
}
__WARPCHECK_LDG double2 __ldcs(const double2 *p) {
  double2 r;
  __asm__ __volatile__("ld.global.cs.v2.f64 {%0, %1}, [%2];" : "=d"(r.x), "=d"(r.y) : "l"(p) : "memory");
  return r;
}
__WARPCHECK_LDG longlong2 __ldcs(const longlong2 *p) {
  longlong2 r;
  __asm__ __volatile__("ld.global.cs.v2.s64 {%0, %1}, [%2];" : "=l"(r.x), "=l"(r.y) : "l"(p) : "memory");
  return r;
}
__WARPCHECK_LDG ulonglong2 __ldcs(const ulonglong2 *p) {
  ulonglong2 r;
  __asm__ __volatile__("ld.global.cs.v2.u64 {%0, %1}, [%2];" : "=l"(r.x), "=l"(r.y) : "l"(p) : "memory");
  return r;
}
__WARPCHECK_LDG float2 __ldlu(const float2 *p) {
  float2 r;
  __asm__ __volatile__("ld.global.lu.v2.f32 {%0, %1}, [%2];" : "=f"(r.x), "=f"(r.y) : "l"(p) : "memory");
  return r;
}
__WARPCHECK_LDG float4 __ldlu(const float4 *p) {
  float4 r;
  __asm__ __volatile__("ld.global.lu.v4.f32 {%0, %1, %2, %3}, [%4];" : "=f"(r.x), "=f"(r.y), "=f"(r.z), "=f"(r.w) : "l"(p) : "memory");
  return r;
}
__WARPCHECK_LDG int2 __ldlu(const int2 *p) {
  int2 r;
  __asm__ __volatile__("ld.global.lu.v2.s32 {%0, %1}, [%2];" : "=r"(r.x), "=r"(r.y) : "l"(p) : "memory");
  return r;
}
__WARPCHECK_LDG int4 __ldlu(const int4 *p) {
  int4 r;
  __asm__ __volatile__("ld.global.lu.v4.s32 {%0, %1, %2, %3}, [%4];" : "=r"(r.x), "=r"(r.y), "=r"(r.z), "=r"(r.w) : "l"(p) : "memory");
  return r;
}
__WARPCHECK_LDG uint2 __ldlu(const uint2 *p) {
  uint2 r;
  __asm__ __volatile__("ld.global.lu.v2.u32 {%0, %1}, [%2];" : "=r"(r.x), "=r"(r.y) : "l"(p) : "memory");
  return r;
}
__WARPCHECK_LDG uint4 __ldlu(const uint4 *p) {
  uint4 r;
  __asm__ __volatile__("ld.global.lu.v4.u32 {%0, %1, %2, %3}, [%4];" : "=r"(r.x), "=r"(r.y), "=r"(r.z), "=r"(r.w) : "l"(p) : "memory");
  return r;
}
__WARPCHECK_LDG double2 __ldlu(const double2 *p) {
  double2 r;
  __asm__ __volatile__("ld.global.lu.v2.f64 {%0, %1}, [%2];" : "=d"(r.x), "=d"(r.y) : "l"(p) : "memory");
  return r;
}
__WARPCHECK_LDG longlong2 __ldlu(const longlong2 *p) {
  longlong2 r;
  __asm__ __volatile__("ld.global.lu.v2.s64 {%0, %1}, [%2];" : "=l"(r.x), "=l"(r.y) : "l"(p) : "memory");
  return r;
}
__WARPCHECK_LDG ulonglong2 __ldlu(const ulonglong2 *p) {
  ulonglong2 r;
  __asm__ __volatile__("ld.global.lu.v2.u64 {%0, %1}, [%2];" : "=l"(r.x), "=l"(r.y) : "l"(p) : "memory");
  return r;
}
__WARPCHECK_LDG float2 __ldcv(const float2 *p) {
  float2 r;
  __asm__ __volatile__("ld.global.cv.v2.f32 {%0, %1}, [%2];" : "=f"(r.x), "=f"(r.y) : "l"(p) : "memory");
  return r;
}
__WARPCHECK_LDG float4 __ldcv(const float4 *p) {
  float4 r;
  __asm__ __volatile__("ld.global.cv.v4.f32 {%0, %1, %2, %3}, [%4];" : "=f"(r.x), "=f"(r.y), "=f"(r.z), "=f"(r.w) : "l"(p) : "memory");
  return r;
}
__WARPCHECK_LDG int2 __ldcv(const int2 *p) {
  int2 r;
  __asm__ __volatile__("ld.global.cv.v2.s32 {%0, %1}, [%2];" : "=r"(r.x), "=r"(r.y) : "l"(p) : "memory");
  return r;
}
__WARPCHECK_LDG int4 __ldcv(const int4 *p) {
  int4 r;
  __asm__ __volatile__("ld.global.cv.v4.s32 {%0, %1, %2, %3}, [%4];" : "=r"(r.x), "=r"(r.y), "=r"(r.z), "=r"(r.w) : "l"(p) : "memory");
  return r;
}
__WARPCHECK_LDG uint2 __ldcv(const uint2 *p) {
  uint2 r;
  __asm__ __volatile__("ld.global.cv.v2.u32 {%0, %1}, [%2];" : "=r"(r.x), "=r"(r.y) : "l"(p) : "memory");
  return r;
}
__WARPCHECK_LDG uint4 __ldcv(const uint4 *p) {
  uint4 r;
  __asm__ __volatile__("ld.global.cv.v4.u32 {%0, %1, %2, %3}, [%4];" : "=r"(r.x), "=r"(r.y), "=r"(r.z), "=r"(r.w) : "l"(p) : "memory");
  return r;
}
__WARPCHECK_LDG double2 __ldcv(const double2 *p) {
  double2 r;
  __asm__ __volatile__("ld.global.cv.v2.f64 {%0, %1}, [%2];" : "=d"(r.x), "=d"(r.y) : "l"(p) : "memory");
  return r;
}
__WARPCHECK_LDG longlong2 __ldcv(const longlong2 *p) {
  longlong2 r;
  __asm__ __volatile__("ld.global.cv.v2.s64 {%0, %1}, [%2];" : "=l"(r.x), "=l"(r.y) : "l"(p) : "memory");
  return r;
}
__WARPCHECK_LDG ulonglong2 __ldcv(const ulonglong2 *p) {
  ulonglong2 r;
  __asm__ __volatile__("ld.global.cv.v2.u64 {%0, %1}, [%2];" : "=l"(r.x), "=l"(r.y) : "l"(p) : "memory");
  return r;
}
__WARPCHECK_LDG void __stwb(float2 *p, float2 v) {
  __asm__ __volatile__("st.global.wb.v2.f32 [%0], {%1, %2};" :: "l"(p), "f"(v.x), "f"(v.y) : "memory");
}
__WARPCHECK_LDG void __stwb(float4 *p, float4 v) {
  __asm__ __volatile__("st.global.wb.v4.f32 [%0], {%1, %2, %3, %4};" :: "l"(p), "f"(v.x), "f"(v.y), "f"(v.z), "f"(v.w) : "memory");
}
__WARPCHECK_LDG void __stwb(int2 *p, int2 v) {
  __asm__ __volatile__("st.global.wb.v2.s32 [%0], {%1, %2};" :: "l"(p), "r"(v.x), "r"(v.y) : "memory");
}
__WARPCHECK_LDG void __stwb(int4 *p, int4 v) {
  __asm__ __volatile__("st.global.wb.v4.s32 [%0], {%1, %2, %3, %4};" :: "l"(p), "r"(v.x), "r"(v.y), "r"(v.z), "r"(v.w) : "memory");
}
__WARPCHECK_LDG void __stwb(uint2 *p, uint2 v) {
  __asm__ __volatile__("st.global.wb.v2.u32 [%0], {%1, %2};" :: "l"(p), "r"(v.x), "r"(v.y) : "memory");
}
__WARPCHECK_LDG void __stwb(uint4 *p, uint4 v) {
  __asm__ __volatile__("st.global.wb.v4.u32 [%0], {%1, %2, %3, %4};" :: "l"(p), "r"(v.x), "r"(v.y), "r"(v.z), "r"(v.w) : "memory");
}
__WARPCHECK_LDG void __stwb(double2 *p, double2 v) {
  __asm__ __volatile__("st.global.wb.v2.f64 [%0], {%1, %2};" :: "l"(p), "d"(v.x), "d"(v.y) : "memory");
}
__WARPCHECK_LDG void __stwb(longlong2 *p, longlong2 v) {
  __asm__ __volatile__("st.global.wb.v2.s64 [%0], {%1, %2};" :: "l"(p), "l"(v.x), "l"(v.y) : "memory");
}
__WARPCHECK_LDG void __stwb(ulonglong2 *p, ulonglong2 v) {
  __asm__ __volatile__("st.global.wb.v2.u64 [%0], {%1, %2};" :: "l"(p), "l"(v.x), "l"(v.y) : "memory");
}
__WARPCHECK_LDG void __stcg(float2 *p, float2 v) {
  __asm__ __volatile__("st.global.cg.v2.f32 [%0], {%1, %2};" :: "l"(p), "f"(v.x), "f"(v.y) : "memory");
}
__WARPCHECK_LDG void __stcg(float4 *p, float4 v) {
  __asm__ __volatile__("st.global.cg.v4.f32 [%0], {%1, %2, %3, %4};" :: "l"(p), "f"(v.x), "f"(v.y), "f"(v.z), "f"(v.w) : "memory");
}
__WARPCHECK_LDG void __stcg(int2 *p, int2 v) {
  __asm__ __volatile__("st.global.cg.v2.s32 [%0], {%1, %2};" :: "l"(p), "r"(v.x), "r"(v.y) : "memory");
}
__WARPCHECK_LDG void __stcg(int4 *p, int4 v) {
  __asm__ __volatile__("st.global.cg.v4.s32 [%0], {%1, %2, %3, %4};" :: "l"(p), "r"(v.x), "r"(v.y), "r"(v.z), "r"(v.w) : "memory");
}
__WARPCHECK_LDG void __stcg(uint2 *p, uint2 v) {
  __asm__ __volatile__("st.global.cg.v2.u32 [%0], {%1, %2};" :: "l"(p), "r"(v.x), "r"(v.y) : "memory");
}
__WARPCHECK_LDG void __stcg(uint4 *p, uint4 v) {
  __asm__ __volatile__("st.global.cg.v4.u32 [%0], {%1, %2, %3, %4};" :: "l"(p), "r"(v.x), "r"(v.y), "r"(v.z), "r"(v.w) : "memory");
}
__WARPCHECK_LDG void __stcg(double2 *p, double2 v) {
  __asm__ __volatile__("st.global.cg.v2.f64 [%0], {%1, %2};" :: "l"(p), "d"(v.x), "d"(v.y) : "memory");
}
__WARPCHECK_LDG void __stcg(longlong2 *p, longlong2 v) {
  __asm__ __volatile__("st.global.cg.v2.s64 [%0], {%1, %2};" :: "l"(p), "l"(v.x), "l"(v.y) : "memory");
}
__WARPCHECK_LDG void __stcg(ulonglong2 *p, ulonglong2 v) {
  __asm__ __volatile__("st.global.cg.v2.u64 [%0], {%1, %2};" :: "l"(p), "l"(v.x), "l"(v.y) : "memory");
}
__WARPCHECK_LDG void __stcs(float2 *p, float2 v) {
  __asm__ __volatile__("st.global.cs.v2.f32 [%0], {%1, %2};" :: "l"(p), "f"(v.x), "f"(v.y) : "memory");
}
__WARPCHECK_LDG void __stcs(float4 *p, float4 v) {
  __asm__ __volatile__("st.global.cs.v4.f32 [%0], {%1, %2, %3, %4};" :: "l"(p), "f"(v.x), "f"(v.y), "f"(v.z), "f"(v.w) : "memory");
}
__WARPCHECK_LDG void __stcs(int2 *p, int2 v) {
  __asm__ __volatile__("st.global.cs.v2.s32 [%0], {%1, %2};" :: "l"(p), "r"(v.x), "r"(v.y) : "memory");
}
__WARPCHECK_LDG void __stcs(int4 *p, int4 v) {
  __asm__ __volatile__("st.global.cs.v4.s32 [%0], {%1, %2, %3, %4};" :: "l"(p), "r"(v.x), "r"(v.y), "r"(v.z), "r"(v.w) : "memory");
}
__WARPCHECK_LDG void __stcs(uint2 *p, uint2 v) {
  __asm__ __volatile__("st.global.cs.v2.u32 [%0], {%1, %2};" :: "l"(p), "r"(v.x), "r"(v.y) : "memory");
}
__WARPCHECK_LDG void __stcs(uint4 *p, uint4 v) {
  __asm__ __volatile__("st.global.cs.v4.u32 [%0], {%1, %2, %3, %4};" :: "l"(p), "r"(v.x), "r"(v.y), "r"(v.z), "r"(v.w) : "memory");
}
__WARPCHECK_LDG void __stcs(double2 *p, double2 v) {
  __asm__ __volatile__("st.global.cs.v2.f64 [%0], {%1, %2};" :: "l"(p), "d"(v.x), "d"(v.y) : "memory");
}
__WARPCHECK_LDG void __stcs(longlong2 *p, longlong2 v) {
  __asm__ __volatile__("st.global.cs.v2.s64 [%0], {%1, %2};" :: "l"(p), "l"(v.x), "l"(v.y) : "memory");
}
__WARPCHECK_LDG void __stcs(ulonglong2 *p, ulonglong2 v) {
  __asm__ __volatile__("st.global.cs.v2.u64 [%0], {%1, %2};" :: "l"(p), "l"(v.x), "l"(v.y) : "memory");
}
__WARPCHECK_LDG void __stwt(float2 *p, float2 v) {
  __asm__ __volatile__("st.global.wt.v2.f32 [%0], {%1, %2};" :: "l"(p), "f"(v.x), "f"(v.y) : "memory");
}
__WARPCHECK_LDG void __stwt(float4 *p, float4 v) {
  __asm__ __volatile__("st.global.wt.v4.f32 [%0], {%1, %2, %3, %4};" :: "l"(p), "f"(v.x), "f"(v.y), "f"(v.z), "f"(v.w) : "memory");
}
__WARPCHECK_LDG void __stwt(int2 *p, int2 v) {
  __asm__ __volatile__("st.global.wt.v2.s32 [%0], {%1, %2};" :: "l"(p), "r"(v.x), "r"(v.y) : "memory");
}
__WARPCHECK_LDG void __stwt(int4 *p, int4 v) {
  __asm__ __volatile__("st.global.wt.v4.s32 [%0], {%1, %2, %3, %4};" :: "l"(p), "r"(v.x), "r"(v.y), "r"(v.z), "r"(v.w) : "memory");
}
__WARPCHECK_LDG void __stwt(uint2 *p, uint2 v) {
  __asm__ __volatile__("st.global.wt.v2.u32 [%0], {%1, %2};" :: "l"(p), "r"(v.x), "r"(v.y) : "memory");
}
__WARPCHECK_LDG void __stwt(uint4 *p, uint4 v) {
  __asm__ __volatile__("st.global.wt.v4.u32 [%0], {%1, %2, %3, %4};" :: "l"(p), "r"(v.x), "r"(v.y), "r"(v.z), "r"(v.w) : "memory");
}
__WARPCHECK_LDG void __stwt(double2 *p, double2 v) {
  __asm__ __volatile__("st.global.wt.v2.f64 [%0], {%1, %2};" :: "l"(p), "d"(v.x), "d"(v.y) : "memory");
}
__WARPCHECK_LDG void __stwt(longlong2 *p, longlong2 v) {
  __asm__ __volatile__("st.global.wt.v2.s64 [%0], {%1, %2};" :: "l"(p), "l"(v.x), "l"(v.y) : "memory");
}
__WARPCHECK_LDG void __stwt(ulonglong2 *p, ulonglong2 v) {
  __asm__ __volatile__("st.global.wt.v2.u64 [%0], {%1, %2};" :: "l"(p), "l"(v.x), "l"(v.y) : "memory");
}

#endif /* WARPCHECK_LDG_H */
