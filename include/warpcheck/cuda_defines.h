/*
 * warpcheck shim: CUDA execution-space and storage qualifiers, and the version
 * macros that CUDA's own headers define.
 *
 * In nvcc these come from host_defines.h / crt/host_defines.h; clang knows the
 * underlying attributes (`__attribute__((global))` and so on) but not the
 * double-underscore spellings, which the CUDA headers normally provide.
 */
#ifndef WARPCHECK_CUDA_DEFINES_H
#define WARPCHECK_CUDA_DEFINES_H

/* The CUDA release whose API these shims follow. Code that tests the version
 * (e.g. `#if CUDA_VERSION >= 9000` to pick the *_sync warp functions) takes the
 * modern path. */
#ifndef CUDA_VERSION
#define CUDA_VERSION 12000
#endif
#ifndef CUDART_VERSION
#define CUDART_VERSION 12000
#endif
#ifndef __CUDART_API_VERSION
#define __CUDART_API_VERSION 12000
#endif
#ifndef __CUDACC_VER_MAJOR__
#define __CUDACC_VER_MAJOR__ 12
#define __CUDACC_VER_MINOR__ 0
#define __CUDACC_VER_BUILD__ 0
#endif

#if defined(__WARPCHECK_HOST_ONLY)
/* Plain C or C++: the qualifiers mean nothing there. */
#define __host__
#define __device__
#define __global__
#define __shared__
#define __constant__
#define __managed__
#define __grid_constant__
#define __launch_bounds__(...)
#else
#define __host__ __attribute__((host))
#define __device__ __attribute__((device))
#define __global__ __attribute__((global))
#define __shared__ __attribute__((shared))
#define __constant__ __attribute__((constant))
/* clang has no `managed` attribute for CUDA (only for HIP): a managed variable
 * is a device variable that the host may also touch, which is how it appears
 * in device code. The PTX therefore has a plain `.global` variable. */
#define __managed__ __attribute__((device))
/* `__grid_constant__` (CUDA 11.7) marks a const kernel parameter whose address
 * may be taken. clang 16 and later implement it; older clang ignores it, which
 * only loses an optimisation. */
#if defined(__has_attribute)
#if __has_attribute(grid_constant)
#define __grid_constant__ __attribute__((grid_constant))
#else
#define __grid_constant__
#endif
#else
#define __grid_constant__
#endif
#define __launch_bounds__(...) __attribute__((launch_bounds(__VA_ARGS__)))
#endif /* __WARPCHECK_HOST_ONLY */
#define __forceinline__ __inline__ __attribute__((always_inline))
/* clang 15 and later treat `__noinline__` as a keyword in CUDA mode (so that
 * `__attribute__((__noinline__))` in system headers keeps working); clang 14
 * needs the macro that CUDA's headers define. */
#if __clang_major__ < 15
#define __noinline__ __attribute__((noinline))
#endif
#define __align__(n) __attribute__((aligned(n)))
#define __annotate__(a) __attribute__((a))
#define __location__(a) __annotate__(a)
#define CUDARTAPI
#define CUDAAPI
#define __builtin_align__(a) __align__(a)
#define __device_builtin__
#define __device_builtin_texture_type__
#define __device_builtin_surface_type__
#define __cudart_builtin__
#define __CUDA_ALIGN__(n) __align__(n)

#endif /* WARPCHECK_CUDA_DEFINES_H */
