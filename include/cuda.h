/*
 * warpcheck shim for <cuda.h>: the CUDA driver API, declared so that host code
 * that uses it parses. warpcheck compiles device code only; none of these
 * functions is defined or called. Names and enumerator values follow CUDA 12.
 */
#ifndef WARPCHECK_CUDA_H
#define WARPCHECK_CUDA_H
#define __cuda_cuda_h__ /* CUDA's include guard */

#include "warpcheck_prelude.h"

typedef enum cudaError_enum {
  CUDA_SUCCESS = 0,
  CUDA_ERROR_INVALID_VALUE = 1,
  CUDA_ERROR_OUT_OF_MEMORY = 2,
  CUDA_ERROR_NOT_INITIALIZED = 3,
  CUDA_ERROR_DEINITIALIZED = 4,
  CUDA_ERROR_PROFILER_DISABLED = 5,
  CUDA_ERROR_NO_DEVICE = 100,
  CUDA_ERROR_INVALID_DEVICE = 101,
  CUDA_ERROR_INVALID_IMAGE = 200,
  CUDA_ERROR_INVALID_CONTEXT = 201,
  CUDA_ERROR_MAP_FAILED = 205,
  CUDA_ERROR_UNMAP_FAILED = 206,
  CUDA_ERROR_NO_BINARY_FOR_GPU = 209,
  CUDA_ERROR_INVALID_PTX = 218,
  CUDA_ERROR_INVALID_SOURCE = 300,
  CUDA_ERROR_FILE_NOT_FOUND = 301,
  CUDA_ERROR_INVALID_HANDLE = 400,
  CUDA_ERROR_NOT_FOUND = 500,
  CUDA_ERROR_NOT_READY = 600,
  CUDA_ERROR_ILLEGAL_ADDRESS = 700,
  CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES = 701,
  CUDA_ERROR_LAUNCH_TIMEOUT = 702,
  CUDA_ERROR_ASSERT = 710,
  CUDA_ERROR_LAUNCH_FAILED = 719,
  CUDA_ERROR_NOT_PERMITTED = 800,
  CUDA_ERROR_NOT_SUPPORTED = 801,
  CUDA_ERROR_UNKNOWN = 999
} CUresult;

typedef int CUdevice;
typedef unsigned long long CUdeviceptr;
typedef struct CUctx_st *CUcontext;
typedef struct CUmod_st *CUmodule;
typedef struct CUfunc_st *CUfunction;
typedef struct CUstream_st *CUstream;
typedef struct CUevent_st *CUevent;
typedef struct CUarray_st *CUarray;
typedef struct CUtexref_st *CUtexref;
typedef unsigned long long CUtexObject;
typedef unsigned int cuuint32_t;
typedef unsigned long long cuuint64_t;

typedef enum CUdevice_attribute_enum {
  CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK = 1,
  CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_X = 2,
  CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Y = 3,
  CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Z = 4,
  CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_X = 5,
  CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Y = 6,
  CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Z = 7,
  CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK = 8,
  CU_DEVICE_ATTRIBUTE_TOTAL_CONSTANT_MEMORY = 9,
  CU_DEVICE_ATTRIBUTE_WARP_SIZE = 10,
  CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT = 16,
  CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR = 75,
  CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR = 76
} CUdevice_attribute;

#ifdef __cplusplus
extern "C" {
#endif
CUresult cuInit(unsigned int flags);
CUresult cuDriverGetVersion(int *version);
CUresult cuDeviceGetCount(int *count);
CUresult cuDeviceGet(CUdevice *device, int ordinal);
CUresult cuDeviceGetName(char *name, int len, CUdevice device);
CUresult cuDeviceGetAttribute(int *value, CUdevice_attribute attrib,
                              CUdevice device);
CUresult cuDeviceComputeCapability(int *major, int *minor, CUdevice device);
CUresult cuDeviceTotalMem(size_t *bytes, CUdevice device);
CUresult cuCtxCreate(CUcontext *context, unsigned int flags, CUdevice device);
CUresult cuCtxDestroy(CUcontext context);
CUresult cuCtxSynchronize(void);
CUresult cuCtxGetCurrent(CUcontext *context);
CUresult cuCtxSetCurrent(CUcontext context);
CUresult cuCtxPushCurrent(CUcontext context);
CUresult cuCtxPopCurrent(CUcontext *context);
CUresult cuMemAlloc(CUdeviceptr *pointer, size_t bytes);
CUresult cuMemFree(CUdeviceptr pointer);
CUresult cuMemAllocHost(void **pointer, size_t bytes);
CUresult cuMemFreeHost(void *pointer);
CUresult cuMemGetInfo(size_t *free, size_t *total);
CUresult cuMemcpyHtoD(CUdeviceptr dst, const void *src, size_t bytes);
CUresult cuMemcpyDtoH(void *dst, CUdeviceptr src, size_t bytes);
CUresult cuMemcpyDtoD(CUdeviceptr dst, CUdeviceptr src, size_t bytes);
CUresult cuMemsetD8(CUdeviceptr dst, unsigned char value, size_t count);
CUresult cuMemsetD32(CUdeviceptr dst, unsigned int value, size_t count);
CUresult cuModuleLoad(CUmodule *module, const char *path);
CUresult cuModuleLoadData(CUmodule *module, const void *image);
CUresult cuModuleUnload(CUmodule module);
CUresult cuModuleGetFunction(CUfunction *function, CUmodule module,
                             const char *name);
CUresult cuModuleGetGlobal(CUdeviceptr *pointer, size_t *bytes, CUmodule module,
                           const char *name);
CUresult cuLaunchKernel(CUfunction function, unsigned int gridDimX,
                        unsigned int gridDimY, unsigned int gridDimZ,
                        unsigned int blockDimX, unsigned int blockDimY,
                        unsigned int blockDimZ, unsigned int sharedMemBytes,
                        CUstream stream, void **kernelParams, void **extra);
CUresult cuStreamCreate(CUstream *stream, unsigned int flags);
CUresult cuStreamDestroy(CUstream stream);
CUresult cuStreamSynchronize(CUstream stream);
CUresult cuEventCreate(CUevent *event, unsigned int flags);
CUresult cuEventRecord(CUevent event, CUstream stream);
CUresult cuEventSynchronize(CUevent event);
CUresult cuEventElapsedTime(float *ms, CUevent start, CUevent end);
CUresult cuEventDestroy(CUevent event);
CUresult cuGetErrorString(CUresult error, const char **string);
CUresult cuGetErrorName(CUresult error, const char **string);
#ifdef __cplusplus
}
#endif

#endif /* WARPCHECK_CUDA_H */
