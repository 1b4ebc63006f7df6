/*
 * warpcheck prelude: what nvcc makes visible in every .cu file without an
 * #include (nvcc force-includes cuda_runtime.h), for clang compiling device
 * code with no CUDA toolkit:
 *
 *   clang -x cuda --cuda-device-only -nocudainc -nocudalib \
 *         -I<warpcheck include> -include warpcheck_prelude.h ...
 *
 * It plays the part of clang's __clang_cuda_runtime_wrapper.h (which needs the
 * toolkit's headers) and follows its order: C++ math forward declarations,
 * system headers, the CUDA types and runtime API, built-in variables, device
 * functions, math, atomics, warp functions, then clang's C++ math overloads.
 *
 * Host code still compiles against the system's C and C++ headers; only the
 * device side is code-generated.
 */
#ifndef WARPCHECK_PRELUDE_H
#define WARPCHECK_PRELUDE_H

#if !defined(__CUDA__) && !defined(__CUDACC__)
/* A C or C++ file of a program, compiled for the host only, that includes
 * cuda_runtime.h (as the host files of NVIDIA's samples do): the types and the
 * runtime API only, with no device code. */
#include "warpcheck/host_prelude.h"
#else

#if !defined(__CUDA__) || !defined(__clang__)
#error "warpcheck_prelude.h is for clang in CUDA mode (-x cuda); nvcc has the real CUDA headers"
#endif

#define __WARPCHECK__ 1
/* CUDA's include guard of cuda_runtime.h, which nvcc force-includes; code tests it. */
#define __CUDA_RUNTIME_H__

/* libstdc++ hides __float128 (which NVPTX lacks) when __CUDACC__ is defined,
 * so it must be defined before the first system header, as clang's wrapper
 * does. nvcc defines it for every CUDA compilation. */
#ifndef __CUDACC__
#define __CUDACC__ 1
#endif

#include "warpcheck/cuda_defines.h"

/* __device__ overloads of the <cmath> functions must be declared before
 * <cmath>: otherwise constexpr library functions become implicitly
 * __host__ __device__ and could not be overloaded.
 * warpcheck's AST dump for kernel signatures first defines
 * __WARPCHECK_SIGNATURES_ONLY, which leaves out <cmath>, <cstdlib> and the C++
 * math overloads: they are most of the dump, and signatures do not need them. */
#if defined(__cplusplus) && __has_include(<cmath>) && !defined(__WARPCHECK_SIGNATURES_ONLY)
#define __WARPCHECK_HAVE_CMATH 1
#include <__clang_cuda_math_forward_declares.h>
#include <cmath>
#include <cstdlib>
/* The C++ <math.h> also puts isfinite, isnan, signbit… in the global namespace, as
 * NVIDIA's headers make them available to host code. */
#include <math.h>
#else
#define __WARPCHECK_HAVE_CMATH 0
#endif
#if __has_include(<stdlib.h>)
#include <stdlib.h>
#endif
#if __has_include(<string.h>)
#include <string.h>
#endif
#if __has_include(<time.h>)
#include <time.h>
#define __WARPCHECK_HAVE_TIME_H 1
#endif
#include <stddef.h>
#include <limits.h>

#include "warpcheck/vector_types.h"
#include "warpcheck/driver_types.h"
#include "warpcheck/runtime_api.h"
#include "warpcheck/texture_types.h"

/* threadIdx, blockIdx, blockDim, gridDim, warpSize: clang's own definitions,
 * which read the PTX special registers %tid, %ctaid, %ntid, %nctaid. */
#include <__clang_cuda_builtin_vars.h>
#define __DEVICE_LAUNCH_PARAMETERS_H__
__device__ inline __cuda_builtin_threadIdx_t::operator dim3() const {
  return dim3(x, y, z);
}
__device__ inline __cuda_builtin_threadIdx_t::operator uint3() const {
  return {x, y, z};
}
__device__ inline __cuda_builtin_blockIdx_t::operator dim3() const {
  return dim3(x, y, z);
}
__device__ inline __cuda_builtin_blockIdx_t::operator uint3() const {
  return {x, y, z};
}
__device__ inline __cuda_builtin_blockDim_t::operator dim3() const {
  return dim3(x, y, z);
}
__device__ inline __cuda_builtin_blockDim_t::operator uint3() const {
  return {x, y, z};
}
__device__ inline __cuda_builtin_gridDim_t::operator dim3() const {
  return dim3(x, y, z);
}
__device__ inline __cuda_builtin_gridDim_t::operator uint3() const {
  return {x, y, z};
}

/* Device-side system calls (PTX "system calls": vprintf, malloc, free,
 * __assertfail). clang rewrites a device-side printf(fmt, ...) into
 * vprintf(fmt, packed arguments), as nvcc does; glibc's assert() calls
 * __assert_fail, which forwards to CUDA's __assertfail. */
extern "C" {
__device__ int vprintf(const char *format, const char *arguments);
__device__ int printf(const char *format, ...);
__device__ void *malloc(size_t size) __attribute__((nothrow)) __attribute__((malloc));
__device__ void free(void *pointer) __attribute__((nothrow));
__device__ void __assertfail(const char *message, const char *file,
                             unsigned int line, const char *function,
                             size_t char_size);
__device__ static inline void __assert_fail(const char *message,
                                            const char *file, unsigned int line,
                                            const char *function) {
  __assertfail(message, file, line, function, sizeof(char));
}
} /* extern "C" */
namespace std {
__device__ static inline void free(void *pointer) { ::free(pointer); }
__device__ static inline void *malloc(size_t size) { return ::malloc(size); }
} /* namespace std */

/* Device-side new and delete allocate on the device heap through malloc and
 * free, as nvcc compiles them: clang's <new> wrapper (its cuda_wrappers
 * directory, on the include path even with -nocudainc) defines the device
 * overloads once __device__ is defined. Without it, clang calls the host
 * operators (_Znwm, _ZdlPv), which the emulator refuses by name. */
#if defined(__cplusplus) && __has_include(<new>)
#include <new>
#endif

/* libdevice's __nv_* functions, called by the math library below. */
#include <__clang_cuda_libdevice_declares.h>

#include "warpcheck/device_functions.h"
#include "warpcheck/math_functions.h"
#include "warpcheck/atomic_functions.h"
#include "warpcheck/warp_functions.h"
#include "warpcheck/ldg.h"

#if defined(__WARPCHECK_HAVE_TIME_H)
/* clock(): the 32-bit cycle counter %clock, a __device__ overload of the C
 * library's clock(). */
static __device__ __inline__ clock_t clock(void) {
  return (clock_t)__nvvm_read_ptx_sreg_clock();
}
#endif

#if __WARPCHECK_HAVE_CMATH
/* C++ overloads: sin(float), sin(int), std::sin ... on top of the functions
 * in warpcheck/math_functions.h. */
#include <__clang_cuda_cmath.h>
#endif

#if !defined(__CUDA_ARCH__)
/* Host side (program mode): before the modules register, tell warpcheck's
 * runtime where the host copies of __managed__ variables are (the section
 * bounds the linker defines; null when the program has none). */
extern "C" {
extern char __start_warpcheck_managed[] __attribute__((weak, visibility("hidden")));
extern char __stop_warpcheck_managed[] __attribute__((weak, visibility("hidden")));
void __warpcheckManagedSection(const void *start, const void *end) __attribute__((weak));
}
__attribute__((constructor(101))) static void __warpcheck_managed_section(void) {
  if (__warpcheckManagedSection)
    __warpcheckManagedSection(__start_warpcheck_managed, __stop_warpcheck_managed);
}
#endif

#endif /* __CUDA__ */

#endif /* WARPCHECK_PRELUDE_H */
