/* warpcheck fallback for the old CUDA SDK's <cutil_inline.h> (see README.h). */
#ifndef WARPCHECK_FALLBACK_CUTIL_INLINE_H
#define WARPCHECK_FALLBACK_CUTIL_INLINE_H
#include "cutil.h"
#endif
