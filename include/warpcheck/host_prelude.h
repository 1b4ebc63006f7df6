/*
 * warpcheck shim: what cuda_runtime.h gives a C or C++ file compiled for the
 * host only (a program's .cpp or .c file): the execution-space qualifiers
 * (empty, as CUDA's host_defines.h makes them for a host compiler), the vector
 * types, the driver types and the runtime API, which the program links from
 * warpcheck's runtime library.
 */
#ifndef WARPCHECK_HOST_PRELUDE_H
#define WARPCHECK_HOST_PRELUDE_H

#define __WARPCHECK__ 1
/* CUDA's include guard of cuda_runtime.h; code tests it. */
#define __CUDA_RUNTIME_H__

#include "cuda_defines.h"

#include <stddef.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "vector_types.h"
#include "driver_types.h"
#include "runtime_api.h"
#include "texture_types.h"

#endif /* WARPCHECK_HOST_PRELUDE_H */
