/*
 * warpcheck shim: the CUDA math library for device code (float and double).
 *
 * Functions that one PTX instruction computes (fabs, floor, fma, sqrt, fmin,
 * ...) lower to it through clang builtins; everything else calls the
 * libdevice function of the same name with an `__nv_` prefix (declared by
 * clang's __clang_cuda_libdevice_declares.h). warpcheck never links libdevice,
 * so those calls stay in the PTX as calls of external `.func`s, which the
 * emulator implements by name.
 *
 * The functions live in the global namespace as `__device__` overloads of the
 * C library's host functions, the way CUDA and clang's own wrappers arrange
 * it; clang's __clang_cuda_cmath.h then adds the C++ overloads (sin(float),
 * std::sin, sin(int) ...) on top of them.
 *
 * Generated once by a script and then kept by hand; the order follows the CUDA
 * Math API reference.
 */
#ifndef WARPCHECK_MATH_FUNCTIONS_H
#define WARPCHECK_MATH_FUNCTIONS_H
#define __MATH_FUNCTIONS_H__ /* CUDA's include guard */

#define __WARPCHECK_MATH static __device__ __inline__ __attribute__((always_inline, nodebug))

#if defined(__CLANG_CUDA_APPROX_TRANSCENDENTALS__) ||                          \
    defined(__CLANG_GPU_APPROX_TRANSCENDENTALS__) || defined(__FAST_MATH__)
#define __WARPCHECK_FAST_MATH 1
#else
#define __WARPCHECK_FAST_MATH 0
#endif

/* Single PTX instructions (9.7.3 floating-point instructions). */
__WARPCHECK_MATH float fabsf(float a) { return __nvvm_fabs_f(a); }
__WARPCHECK_MATH double fabs(double a) { return __nvvm_fabs_d(a); }
__WARPCHECK_MATH float floorf(float a) { return __nvvm_floor_f(a); }
__WARPCHECK_MATH double floor(double a) { return __nvvm_floor_d(a); }
__WARPCHECK_MATH float ceilf(float a) { return __nvvm_ceil_f(a); }
__WARPCHECK_MATH double ceil(double a) { return __nvvm_ceil_d(a); }
__WARPCHECK_MATH float truncf(float a) { return __nvvm_trunc_f(a); }
__WARPCHECK_MATH double trunc(double a) { return __nvvm_trunc_d(a); }
/* cvt.rni: round to nearest even. */
__WARPCHECK_MATH float rintf(float a) { return __builtin_rintf(a); }
__WARPCHECK_MATH double rint(double a) { return __builtin_rint(a); }
__WARPCHECK_MATH float nearbyintf(float a) { return __builtin_nearbyintf(a); }
__WARPCHECK_MATH double nearbyint(double a) { return __builtin_nearbyint(a); }
/* Round half away from zero: a short instruction sequence, no call. */
__WARPCHECK_MATH float roundf(float a) { return __builtin_roundf(a); }
__WARPCHECK_MATH double round(double a) { return __builtin_round(a); }
__WARPCHECK_MATH float fminf(float a, float b) { return __nvvm_fmin_f(a, b); }
__WARPCHECK_MATH double fmin(double a, double b) { return __nvvm_fmin_d(a, b); }
__WARPCHECK_MATH float fmaxf(float a, float b) { return __nvvm_fmax_f(a, b); }
__WARPCHECK_MATH double fmax(double a, double b) { return __nvvm_fmax_d(a, b); }
__WARPCHECK_MATH float copysignf(float a, float b) { return __builtin_copysignf(a, b); }
__WARPCHECK_MATH double copysign(double a, double b) { return __builtin_copysign(a, b); }
__WARPCHECK_MATH float fmaf(float a, float b, float c) { return __nvvm_fma_rn_f(a, b, c); }
__WARPCHECK_MATH double fma(double a, double b, double c) { return __nvvm_fma_rn_d(a, b, c); }
/* sqrt.rn is IEEE-exact, as CUDA's sqrtf without -use_fast_math. */
__WARPCHECK_MATH float sqrtf(float a) { return __nvvm_sqrt_rn_f(a); }
__WARPCHECK_MATH double sqrt(double a) { return __nvvm_sqrt_rn_d(a); }
/* rsqrt.approx.f32 is what libdevice's rsqrtf is (2 ulp). */
__WARPCHECK_MATH float rsqrtf(float a) { return __nvvm_rsqrt_approx_f(a); }
__WARPCHECK_MATH double rsqrt(double a) { return __nv_rsqrt(a); }
__WARPCHECK_MATH float fdividef(float a, float b) { return a / b; }
__WARPCHECK_MATH double fdivide(double a, double b) { return a / b; }
__WARPCHECK_MATH int abs(int a) { return __builtin_abs(a); }
__WARPCHECK_MATH long labs(long a) { return __builtin_labs(a); }
__WARPCHECK_MATH long long llabs(long long a) { return __builtin_llabs(a); }
/* cvt.rni.s64 (lrint) and friends. */
__WARPCHECK_MATH long long llrintf(float a) { return __nvvm_f2ll_rn(a); }
__WARPCHECK_MATH long long llrint(double a) { return __nvvm_d2ll_rn(a); }
__WARPCHECK_MATH long lrintf(float a) { return (long)__nvvm_f2ll_rn(a); }
__WARPCHECK_MATH long lrint(double a) { return (long)__nvvm_d2ll_rn(a); }
__WARPCHECK_MATH long long llroundf(float a) { return __nv_llroundf(a); }
__WARPCHECK_MATH long long llround(double a) { return __nv_llround(a); }
__WARPCHECK_MATH long lroundf(float a) { return (long)__nv_llroundf(a); }
__WARPCHECK_MATH long lround(double a) { return (long)__nv_llround(a); }
/* Classification: bit tests, no calls. */
__WARPCHECK_MATH int __isinff(float a) { return __builtin_isinf(a); }
__WARPCHECK_MATH int __isinf(double a) { return __builtin_isinf(a); }
__WARPCHECK_MATH int __isnanf(float a) { return __builtin_isnan(a); }
__WARPCHECK_MATH int __isnan(double a) { return __builtin_isnan(a); }
__WARPCHECK_MATH int __finitef(float a) { return __builtin_isfinite(a); }
__WARPCHECK_MATH int __finite(double a) { return __builtin_isfinite(a); }
__WARPCHECK_MATH int __isfinited(double a) { return __builtin_isfinite(a); }
__WARPCHECK_MATH int __signbitf(float a) { return __builtin_signbit(a); }
__WARPCHECK_MATH int __signbitd(double a) { return __builtin_signbit(a); }

/* Transcendental and special functions: calls of libdevice's __nv_*
 * functions, which the PTX leaves unresolved for the emulator to implement.
 * With -ffast-math the functions that nvcc's -use_fast_math replaces map to
 * the approximate intrinsics instead. */
__WARPCHECK_MATH float acosf(float a) { return __nv_acosf(a); }
__WARPCHECK_MATH double acos(double a) { return __nv_acos(a); }
__WARPCHECK_MATH float acoshf(float a) { return __nv_acoshf(a); }
__WARPCHECK_MATH double acosh(double a) { return __nv_acosh(a); }
__WARPCHECK_MATH float asinf(float a) { return __nv_asinf(a); }
__WARPCHECK_MATH double asin(double a) { return __nv_asin(a); }
__WARPCHECK_MATH float asinhf(float a) { return __nv_asinhf(a); }
__WARPCHECK_MATH double asinh(double a) { return __nv_asinh(a); }
__WARPCHECK_MATH float atanf(float a) { return __nv_atanf(a); }
__WARPCHECK_MATH double atan(double a) { return __nv_atan(a); }
__WARPCHECK_MATH float atanhf(float a) { return __nv_atanhf(a); }
__WARPCHECK_MATH double atanh(double a) { return __nv_atanh(a); }
__WARPCHECK_MATH float cbrtf(float a) { return __nv_cbrtf(a); }
__WARPCHECK_MATH double cbrt(double a) { return __nv_cbrt(a); }
#if __WARPCHECK_FAST_MATH
__WARPCHECK_MATH float cosf(float a) { return __cosf(a); }
#else
__WARPCHECK_MATH float cosf(float a) { return __nv_cosf(a); }
#endif
__WARPCHECK_MATH double cos(double a) { return __nv_cos(a); }
__WARPCHECK_MATH float coshf(float a) { return __nv_coshf(a); }
__WARPCHECK_MATH double cosh(double a) { return __nv_cosh(a); }
__WARPCHECK_MATH float cospif(float a) { return __nv_cospif(a); }
__WARPCHECK_MATH double cospi(double a) { return __nv_cospi(a); }
__WARPCHECK_MATH float cyl_bessel_i0f(float a) { return __nv_cyl_bessel_i0f(a); }
__WARPCHECK_MATH double cyl_bessel_i0(double a) { return __nv_cyl_bessel_i0(a); }
__WARPCHECK_MATH float cyl_bessel_i1f(float a) { return __nv_cyl_bessel_i1f(a); }
__WARPCHECK_MATH double cyl_bessel_i1(double a) { return __nv_cyl_bessel_i1(a); }
__WARPCHECK_MATH float erff(float a) { return __nv_erff(a); }
__WARPCHECK_MATH double erf(double a) { return __nv_erf(a); }
__WARPCHECK_MATH float erfcf(float a) { return __nv_erfcf(a); }
__WARPCHECK_MATH double erfc(double a) { return __nv_erfc(a); }
__WARPCHECK_MATH float erfcinvf(float a) { return __nv_erfcinvf(a); }
__WARPCHECK_MATH double erfcinv(double a) { return __nv_erfcinv(a); }
__WARPCHECK_MATH float erfcxf(float a) { return __nv_erfcxf(a); }
__WARPCHECK_MATH double erfcx(double a) { return __nv_erfcx(a); }
__WARPCHECK_MATH float erfinvf(float a) { return __nv_erfinvf(a); }
__WARPCHECK_MATH double erfinv(double a) { return __nv_erfinv(a); }
#if __WARPCHECK_FAST_MATH
__WARPCHECK_MATH float expf(float a) { return __expf(a); }
#else
__WARPCHECK_MATH float expf(float a) { return __nv_expf(a); }
#endif
__WARPCHECK_MATH double exp(double a) { return __nv_exp(a); }
#if __WARPCHECK_FAST_MATH
__WARPCHECK_MATH float exp10f(float a) { return __exp10f(a); }
#else
__WARPCHECK_MATH float exp10f(float a) { return __nv_exp10f(a); }
#endif
__WARPCHECK_MATH double exp10(double a) { return __nv_exp10(a); }
__WARPCHECK_MATH float exp2f(float a) { return __nv_exp2f(a); }
__WARPCHECK_MATH double exp2(double a) { return __nv_exp2(a); }
__WARPCHECK_MATH float expm1f(float a) { return __nv_expm1f(a); }
__WARPCHECK_MATH double expm1(double a) { return __nv_expm1(a); }
__WARPCHECK_MATH float j0f(float a) { return __nv_j0f(a); }
__WARPCHECK_MATH double j0(double a) { return __nv_j0(a); }
__WARPCHECK_MATH float j1f(float a) { return __nv_j1f(a); }
__WARPCHECK_MATH double j1(double a) { return __nv_j1(a); }
__WARPCHECK_MATH float lgammaf(float a) { return __nv_lgammaf(a); }
__WARPCHECK_MATH double lgamma(double a) { return __nv_lgamma(a); }
#if __WARPCHECK_FAST_MATH
__WARPCHECK_MATH float logf(float a) { return __logf(a); }
#else
__WARPCHECK_MATH float logf(float a) { return __nv_logf(a); }
#endif
__WARPCHECK_MATH double log(double a) { return __nv_log(a); }
#if __WARPCHECK_FAST_MATH
__WARPCHECK_MATH float log10f(float a) { return __log10f(a); }
#else
__WARPCHECK_MATH float log10f(float a) { return __nv_log10f(a); }
#endif
__WARPCHECK_MATH double log10(double a) { return __nv_log10(a); }
__WARPCHECK_MATH float log1pf(float a) { return __nv_log1pf(a); }
__WARPCHECK_MATH double log1p(double a) { return __nv_log1p(a); }
#if __WARPCHECK_FAST_MATH
__WARPCHECK_MATH float log2f(float a) { return __log2f(a); }
#else
__WARPCHECK_MATH float log2f(float a) { return __nv_log2f(a); }
#endif
__WARPCHECK_MATH double log2(double a) { return __nv_log2(a); }
__WARPCHECK_MATH float logbf(float a) { return __nv_logbf(a); }
__WARPCHECK_MATH double logb(double a) { return __nv_logb(a); }
__WARPCHECK_MATH float normcdff(float a) { return __nv_normcdff(a); }
__WARPCHECK_MATH double normcdf(double a) { return __nv_normcdf(a); }
__WARPCHECK_MATH float normcdfinvf(float a) { return __nv_normcdfinvf(a); }
__WARPCHECK_MATH double normcdfinv(double a) { return __nv_normcdfinv(a); }
__WARPCHECK_MATH float rcbrtf(float a) { return __nv_rcbrtf(a); }
__WARPCHECK_MATH double rcbrt(double a) { return __nv_rcbrt(a); }
#if __WARPCHECK_FAST_MATH
__WARPCHECK_MATH float sinf(float a) { return __sinf(a); }
#else
__WARPCHECK_MATH float sinf(float a) { return __nv_sinf(a); }
#endif
__WARPCHECK_MATH double sin(double a) { return __nv_sin(a); }
__WARPCHECK_MATH float sinhf(float a) { return __nv_sinhf(a); }
__WARPCHECK_MATH double sinh(double a) { return __nv_sinh(a); }
__WARPCHECK_MATH float sinpif(float a) { return __nv_sinpif(a); }
__WARPCHECK_MATH double sinpi(double a) { return __nv_sinpi(a); }
#if __WARPCHECK_FAST_MATH
__WARPCHECK_MATH float tanf(float a) { return __tanf(a); }
#else
__WARPCHECK_MATH float tanf(float a) { return __nv_tanf(a); }
#endif
__WARPCHECK_MATH double tan(double a) { return __nv_tan(a); }
__WARPCHECK_MATH float tanhf(float a) { return __nv_tanhf(a); }
__WARPCHECK_MATH double tanh(double a) { return __nv_tanh(a); }
__WARPCHECK_MATH float tgammaf(float a) { return __nv_tgammaf(a); }
__WARPCHECK_MATH double tgamma(double a) { return __nv_tgamma(a); }
__WARPCHECK_MATH float y0f(float a) { return __nv_y0f(a); }
__WARPCHECK_MATH double y0(double a) { return __nv_y0(a); }
__WARPCHECK_MATH float y1f(float a) { return __nv_y1f(a); }
__WARPCHECK_MATH double y1(double a) { return __nv_y1(a); }
__WARPCHECK_MATH float atan2f(float a, float b) { return __nv_atan2f(a, b); }
__WARPCHECK_MATH double atan2(double a, double b) { return __nv_atan2(a, b); }
__WARPCHECK_MATH float fdimf(float a, float b) { return __nv_fdimf(a, b); }
__WARPCHECK_MATH double fdim(double a, double b) { return __nv_fdim(a, b); }
__WARPCHECK_MATH float fmodf(float a, float b) { return __nv_fmodf(a, b); }
__WARPCHECK_MATH double fmod(double a, double b) { return __nv_fmod(a, b); }
__WARPCHECK_MATH float hypotf(float a, float b) { return __nv_hypotf(a, b); }
__WARPCHECK_MATH double hypot(double a, double b) { return __nv_hypot(a, b); }
__WARPCHECK_MATH float nextafterf(float a, float b) { return __nv_nextafterf(a, b); }
__WARPCHECK_MATH double nextafter(double a, double b) { return __nv_nextafter(a, b); }
#if __WARPCHECK_FAST_MATH
__WARPCHECK_MATH float powf(float a, float b) { return __powf(a, b); }
#else
__WARPCHECK_MATH float powf(float a, float b) { return __nv_powf(a, b); }
#endif
__WARPCHECK_MATH double pow(double a, double b) { return __nv_pow(a, b); }
__WARPCHECK_MATH float remainderf(float a, float b) { return __nv_remainderf(a, b); }
__WARPCHECK_MATH double remainder(double a, double b) { return __nv_remainder(a, b); }
__WARPCHECK_MATH float rhypotf(float a, float b) { return __nv_rhypotf(a, b); }
__WARPCHECK_MATH double rhypot(double a, double b) { return __nv_rhypot(a, b); }
__WARPCHECK_MATH int ilogbf(float a) { return __nv_ilogbf(a); }
__WARPCHECK_MATH int ilogb(double a) { return __nv_ilogb(a); }
__WARPCHECK_MATH float frexpf(float a, int * e) { return __nv_frexpf(a, e); }
__WARPCHECK_MATH double frexp(double a, int * e) { return __nv_frexp(a, e); }
__WARPCHECK_MATH float ldexpf(float a, int e) { return __nv_ldexpf(a, e); }
__WARPCHECK_MATH double ldexp(double a, int e) { return __nv_ldexp(a, e); }
__WARPCHECK_MATH float scalbnf(float a, int e) { return __nv_scalbnf(a, e); }
__WARPCHECK_MATH double scalbn(double a, int e) { return __nv_scalbn(a, e); }
__WARPCHECK_MATH float scalblnf(float a, long e) { return __nv_scalbnf(a, e > 2147483647L ? 2147483647 : e < -2147483647L - 1 ? (-2147483647 - 1) : (int)e); }
__WARPCHECK_MATH double scalbln(double a, long e) { return __nv_scalbn(a, e > 2147483647L ? 2147483647 : e < -2147483647L - 1 ? (-2147483647 - 1) : (int)e); }
__WARPCHECK_MATH float modff(float a, float * i) { return __nv_modff(a, i); }
__WARPCHECK_MATH double modf(double a, double * i) { return __nv_modf(a, i); }
__WARPCHECK_MATH float remquof(float a, float b, int * q) { return __nv_remquof(a, b, q); }
__WARPCHECK_MATH double remquo(double a, double b, int * q) { return __nv_remquo(a, b, q); }
__WARPCHECK_MATH float powif(float a, int b) { return __nv_powif(a, b); }
__WARPCHECK_MATH double powi(double a, int b) { return __nv_powi(a, b); }
__WARPCHECK_MATH float jnf(int n, float a) { return __nv_jnf(n, a); }
__WARPCHECK_MATH double jn(int n, double a) { return __nv_jn(n, a); }
__WARPCHECK_MATH float ynf(int n, float a) { return __nv_ynf(n, a); }
__WARPCHECK_MATH double yn(int n, double a) { return __nv_yn(n, a); }
__WARPCHECK_MATH float norm3df(float a, float b, float c) { return __nv_norm3df(a, b, c); }
__WARPCHECK_MATH double norm3d(double a, double b, double c) { return __nv_norm3d(a, b, c); }
__WARPCHECK_MATH float rnorm3df(float a, float b, float c) { return __nv_rnorm3df(a, b, c); }
__WARPCHECK_MATH double rnorm3d(double a, double b, double c) { return __nv_rnorm3d(a, b, c); }
__WARPCHECK_MATH float norm4df(float a, float b, float c, float d) { return __nv_norm4df(a, b, c, d); }
__WARPCHECK_MATH double norm4d(double a, double b, double c, double d) { return __nv_norm4d(a, b, c, d); }
__WARPCHECK_MATH float rnorm4df(float a, float b, float c, float d) { return __nv_rnorm4df(a, b, c, d); }
__WARPCHECK_MATH double rnorm4d(double a, double b, double c, double d) { return __nv_rnorm4d(a, b, c, d); }
__WARPCHECK_MATH float normf(int n, const float * v) { return __nv_normf(n, v); }
__WARPCHECK_MATH double norm(int n, const double * v) { return __nv_norm(n, v); }
__WARPCHECK_MATH float rnormf(int n, const float * v) { return __nv_rnormf(n, v); }
__WARPCHECK_MATH double rnorm(int n, const double * v) { return __nv_rnorm(n, v); }
/* sincos: two calls, the values libdevice's __nv_sincos* would store. */
__WARPCHECK_MATH void sincosf(float a, float * s, float * c) { *s = sinf(a); *c = cosf(a); }
__WARPCHECK_MATH void sincos(double a, double * s, double * c) { *s = sin(a); *c = cos(a); }
__WARPCHECK_MATH void sincospif(float a, float * s, float * c) { *s = sinpif(a); *c = cospif(a); }
__WARPCHECK_MATH void sincospi(double a, double * s, double * c) { *s = sinpi(a); *c = cospi(a); }
__WARPCHECK_MATH float nanf(const char * t) { return __nv_nanf((const signed char *)t); }
__WARPCHECK_MATH double nan(const char * t) { return __nv_nan((const signed char *)t); }


/* float overloads of C++ <cmath> names that clang's __clang_cuda_cmath.h
 * leaves to CUDA's math_functions.hpp (declared in
 * __clang_cuda_math_forward_declares.h). */
__WARPCHECK_MATH float acosh(float a) { return acoshf(a); }
__WARPCHECK_MATH float asinh(float a) { return asinhf(a); }
__WARPCHECK_MATH float atanh(float a) { return atanhf(a); }
__WARPCHECK_MATH float cbrt(float a) { return cbrtf(a); }
__WARPCHECK_MATH float erf(float a) { return erff(a); }
__WARPCHECK_MATH float erfc(float a) { return erfcf(a); }
__WARPCHECK_MATH float exp2(float a) { return exp2f(a); }
__WARPCHECK_MATH float expm1(float a) { return expm1f(a); }
__WARPCHECK_MATH float lgamma(float a) { return lgammaf(a); }
__WARPCHECK_MATH float log1p(float a) { return log1pf(a); }
__WARPCHECK_MATH float log2(float a) { return log2f(a); }
__WARPCHECK_MATH float logb(float a) { return logbf(a); }
__WARPCHECK_MATH float nearbyint(float a) { return nearbyintf(a); }
__WARPCHECK_MATH float rint(float a) { return rintf(a); }
__WARPCHECK_MATH float round(float a) { return roundf(a); }
__WARPCHECK_MATH float tgamma(float a) { return tgammaf(a); }
__WARPCHECK_MATH float trunc(float a) { return truncf(a); }
__WARPCHECK_MATH float copysign(float a, float b) { return copysignf(a, b); }
__WARPCHECK_MATH float fdim(float a, float b) { return fdimf(a, b); }
__WARPCHECK_MATH float fmax(float a, float b) { return fmaxf(a, b); }
__WARPCHECK_MATH float fmin(float a, float b) { return fminf(a, b); }
__WARPCHECK_MATH float hypot(float a, float b) { return hypotf(a, b); }
__WARPCHECK_MATH float nextafter(float a, float b) { return nextafterf(a, b); }
__WARPCHECK_MATH float remainder(float a, float b) { return remainderf(a, b); }
__WARPCHECK_MATH float fma(float a, float b, float c) { return fmaf(a, b, c); }
__WARPCHECK_MATH int ilogb(float a) { return ilogbf(a); }
__WARPCHECK_MATH long long llrint(float a) { return llrintf(a); }
__WARPCHECK_MATH long long llround(float a) { return llroundf(a); }
__WARPCHECK_MATH long lrint(float a) { return lrintf(a); }
__WARPCHECK_MATH long lround(float a) { return lroundf(a); }
__WARPCHECK_MATH float scalbln(float a, long e) { return scalblnf(a, e); }
__WARPCHECK_MATH float scalbn(float a, int e) { return scalbnf(a, e); }
__WARPCHECK_MATH float remquo(float a, float b, int *q) { return remquof(a, b, q); }
/* Further CUDA overloads of float functions under their double names. */
__WARPCHECK_MATH float rsqrt(float a) { return rsqrtf(a); }
__WARPCHECK_MATH float rcbrt(float a) { return rcbrtf(a); }
__WARPCHECK_MATH float sinpi(float a) { return sinpif(a); }
__WARPCHECK_MATH float cospi(float a) { return cospif(a); }
__WARPCHECK_MATH void sincospi(float a, float *s, float *c) { sincospif(a, s, c); }
__WARPCHECK_MATH void sincos(float a, float *s, float *c) { sincosf(a, s, c); }
__WARPCHECK_MATH float erfcinv(float a) { return erfcinvf(a); }
__WARPCHECK_MATH float erfinv(float a) { return erfinvf(a); }
__WARPCHECK_MATH float normcdfinv(float a) { return normcdfinvf(a); }
__WARPCHECK_MATH float normcdf(float a) { return normcdff(a); }
__WARPCHECK_MATH float erfcx(float a) { return erfcxf(a); }
__WARPCHECK_MATH float exp10(float a) { return exp10f(a); }

#endif /* WARPCHECK_MATH_FUNCTIONS_H */
