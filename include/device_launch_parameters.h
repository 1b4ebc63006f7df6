/*
 * warpcheck shim for the CUDA toolkit header <device_launch_parameters.h>: everything it provides is
 * already in warpcheck_prelude.h, which warpcheck force-includes in every CUDA
 * compilation (as nvcc force-includes cuda_runtime.h). Including it again is
 * harmless.
 */
#ifndef WARPCHECK_SHIM_DEVICE_LAUNCH_PARAMETERS_H
#define WARPCHECK_SHIM_DEVICE_LAUNCH_PARAMETERS_H
#include "warpcheck_prelude.h"
#endif
