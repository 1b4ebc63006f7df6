/*
 * warpcheck shim for the CUDA toolkit header <cuda_texture_types.h>: its declarations are in
 * warpcheck/texture_types.h, part of warpcheck_prelude.h. Device-side texture access is
 * not supported (see there).
 */
#ifndef WARPCHECK_SHIM_CUDA_TEXTURE_TYPES_H
#define WARPCHECK_SHIM_CUDA_TEXTURE_TYPES_H
#include "warpcheck_prelude.h"
#endif
