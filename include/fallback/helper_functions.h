/* warpcheck fallback for the CUDA samples' <helper_functions.h> (see README.h). */
#ifndef WARPCHECK_FALLBACK_HELPER_FUNCTIONS_H
#define WARPCHECK_FALLBACK_HELPER_FUNCTIONS_H
#include "helper_string.h"
#include "helper_timer.h"
#endif
