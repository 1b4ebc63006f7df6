/* warpcheck fallback for the CUDA samples' <helper_cuda.h>: error checking and device
 * selection, declared for host code to parse (see README.h). */
#ifndef WARPCHECK_FALLBACK_HELPER_CUDA_H
#define WARPCHECK_FALLBACK_HELPER_CUDA_H
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cuda_runtime.h>
#include "helper_string.h"
const char *_cudaGetErrorEnum(cudaError_t error);
void __warpcheck_check_cuda(cudaError_t result, const char *expression, const char *file, int line);
void __getLastCudaError(const char *message, const char *file, const int line);
#define checkCudaErrors(val) __warpcheck_check_cuda((val), #val, __FILE__, __LINE__)
#define getLastCudaError(msg) __getLastCudaError(msg, __FILE__, __LINE__)
int _ConvertSMVer2Cores(int major, int minor);
const char *_ConvertSMVer2ArchName(int major, int minor);
int gpuDeviceInit(int devID);
int gpuGetMaxGflopsDeviceId(void);
int findCudaDevice(int argc, const char **argv);
bool checkCudaCapabilities(int major_version, int minor_version);
#endif
