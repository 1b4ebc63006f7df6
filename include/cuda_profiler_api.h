/*
 * warpcheck shim for the CUDA toolkit header <cuda_profiler_api.h>: cudaProfilerStart and
 * cudaProfilerStop are declared with the rest of the runtime API in warpcheck_prelude.h.
 */
#ifndef WARPCHECK_SHIM_CUDA_PROFILER_API_H
#define WARPCHECK_SHIM_CUDA_PROFILER_API_H
#include "warpcheck_prelude.h"
#endif
