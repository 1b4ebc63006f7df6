/*
 * warpcheck shim for the CUDA toolkit header <texture_fetch_functions.h>: its declarations are in
 * warpcheck/texture_types.h, part of warpcheck_prelude.h. Device-side texture access is
 * not supported (see there).
 */
#ifndef WARPCHECK_SHIM_TEXTURE_FETCH_FUNCTIONS_H
#define WARPCHECK_SHIM_TEXTURE_FETCH_FUNCTIONS_H
#include "warpcheck_prelude.h"
#endif
