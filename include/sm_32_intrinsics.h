/*
 * warpcheck shim for the CUDA toolkit header <sm_32_intrinsics.h>: everything it provides is
 * already in warpcheck_prelude.h, which warpcheck force-includes in every CUDA
 * compilation (as nvcc force-includes cuda_runtime.h). Including it again is
 * harmless.
 */
#ifndef WARPCHECK_SHIM_SM_32_INTRINSICS_H
#define WARPCHECK_SHIM_SM_32_INTRINSICS_H
#include "warpcheck_prelude.h"
#endif
