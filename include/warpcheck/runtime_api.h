/*
 * warpcheck shim: declarations of the CUDA runtime API (cuda_runtime_api.h and
 * the C++ templates of cuda_runtime.h).
 *
 * warpcheck compiles device code only, but clang parses the host code of a
 * `.cu` file too, so every runtime function that host code calls must be
 * declared. None of them is defined: nothing here is ever code-generated.
 */
#ifndef WARPCHECK_RUNTIME_API_H
#define WARPCHECK_RUNTIME_API_H
#define __CUDA_RUNTIME_API_H__ /* CUDA's include guard */

#include "driver_types.h"
#include "vector_types.h"

#ifdef __cplusplus
extern "C" {
#define __WARPCHECK_DEFAULT(v) = v
#else
#define __WARPCHECK_DEFAULT(v)
#endif

/* Kernel launch. clang lowers `kernel<<<grid, block, shmem, stream>>>(args)`
 * on the host side to a call of one of these two (which one depends on the
 * CUDA version clang assumes), so both must be declared. */
__host__ cudaError_t cudaConfigureCall(dim3 gridDim, dim3 blockDim,
                                       size_t sharedMem __WARPCHECK_DEFAULT(0),
                                       cudaStream_t stream __WARPCHECK_DEFAULT(0));
__host__ unsigned __cudaPushCallConfiguration(dim3 gridDim, dim3 blockDim,
                                              size_t sharedMem __WARPCHECK_DEFAULT(0),
                                              void *stream __WARPCHECK_DEFAULT(0));
__host__ cudaError_t __cudaPopCallConfiguration(dim3 *gridDim, dim3 *blockDim,
                                                size_t *sharedMem, void *stream);
__host__ cudaError_t cudaLaunchKernel(const void *func, dim3 gridDim,
                                      dim3 blockDim, void **args,
                                      size_t sharedMem, cudaStream_t stream);
__host__ cudaError_t cudaLaunchCooperativeKernel(const void *func, dim3 gridDim,
                                                 dim3 blockDim, void **args,
                                                 size_t sharedMem,
                                                 cudaStream_t stream);
/* Launches with attributes (NVIDIA's layout and values). */
typedef enum cudaLaunchAttributeID {
  cudaLaunchAttributeIgnore = 0,
  cudaLaunchAttributeAccessPolicyWindow = 1,
  cudaLaunchAttributeCooperative = 2,
  cudaLaunchAttributeSynchronizationPolicy = 3,
  cudaLaunchAttributeClusterDimension = 4,
  cudaLaunchAttributeClusterSchedulingPolicyPreference = 5,
  cudaLaunchAttributeProgrammaticStreamSerialization = 6,
  cudaLaunchAttributeProgrammaticEvent = 7,
  cudaLaunchAttributePriority = 8,
  cudaLaunchAttributeMemSyncDomainMap = 9,
  cudaLaunchAttributeMemSyncDomain = 10,
  cudaLaunchAttributePreferredSharedMemoryCarveout = 14
} cudaLaunchAttributeID;
enum cudaAccessProperty {
  cudaAccessPropertyNormal = 0,
  cudaAccessPropertyStreaming = 1,
  cudaAccessPropertyPersisting = 2
};
struct cudaAccessPolicyWindow {
  void *base_ptr;
  size_t num_bytes;
  float hitRatio;
  enum cudaAccessProperty hitProp;
  enum cudaAccessProperty missProp;
};
enum cudaSynchronizationPolicy {
  cudaSyncPolicyAuto = 1,
  cudaSyncPolicySpin = 2,
  cudaSyncPolicyYield = 3,
  cudaSyncPolicyBlockingSync = 4
};
typedef union cudaLaunchAttributeValue {
  char pad[64];
  struct cudaAccessPolicyWindow accessPolicyWindow;
  int cooperative;
  enum cudaSynchronizationPolicy syncPolicy;
  struct {
    unsigned int x;
    unsigned int y;
    unsigned int z;
  } clusterDim;
  unsigned int programmaticStreamSerializationAllowed;
  int priority;
} cudaLaunchAttributeValue;
typedef struct cudaLaunchAttribute_st {
  cudaLaunchAttributeID id;
  char pad[8 - sizeof(cudaLaunchAttributeID)];
  cudaLaunchAttributeValue val;
} cudaLaunchAttribute;
typedef struct cudaLaunchConfig_st {
  dim3 gridDim;
  dim3 blockDim;
  size_t dynamicSmemBytes;
  cudaStream_t stream;
  cudaLaunchAttribute *attrs;
  unsigned int numAttrs;
} cudaLaunchConfig_t;
__host__ cudaError_t cudaLaunchKernelExC(const cudaLaunchConfig_t *config,
                                         const void *func, void **args);
/* Stream attributes: the launch attributes valid for streams. */
#define cudaStreamAttrID cudaLaunchAttributeID
#define cudaStreamAttrValue cudaLaunchAttributeValue
#define cudaStreamAttributeAccessPolicyWindow cudaLaunchAttributeAccessPolicyWindow
#define cudaStreamAttributeSynchronizationPolicy cudaLaunchAttributeSynchronizationPolicy
#define cudaStreamAttributeMemSyncDomainMap cudaLaunchAttributeMemSyncDomainMap
#define cudaStreamAttributeMemSyncDomain cudaLaunchAttributeMemSyncDomain
#define cudaStreamAttributePriority cudaLaunchAttributePriority
__host__ cudaError_t cudaStreamSetAttribute(cudaStream_t stream, cudaStreamAttrID attr,
                                            const cudaStreamAttrValue *value);
__host__ cudaError_t cudaStreamGetAttribute(cudaStream_t stream, cudaStreamAttrID attr,
                                            cudaStreamAttrValue *value_out);
__host__ cudaError_t cudaSetupArgument(const void *arg, size_t size,
                                       size_t offset);
__host__ cudaError_t cudaLaunch(const void *func);

/* Errors. */
__host__ cudaError_t cudaGetLastError(void);
__host__ cudaError_t cudaPeekAtLastError(void);
__host__ const char *cudaGetErrorString(cudaError_t error);
__host__ const char *cudaGetErrorName(cudaError_t error);

/* Devices. */
__host__ cudaError_t cudaGetDeviceCount(int *count);
__host__ cudaError_t cudaGetDevice(int *device);
__host__ cudaError_t cudaSetDevice(int device);
__host__ cudaError_t cudaSetDeviceFlags(unsigned int flags);
__host__ cudaError_t cudaGetDeviceFlags(unsigned int *flags);
__host__ cudaError_t cudaChooseDevice(int *device,
                                      const struct cudaDeviceProp *prop);
__host__ cudaError_t cudaGetDeviceProperties(struct cudaDeviceProp *prop,
                                             int device);
__host__ cudaError_t cudaDeviceGetAttribute(int *value,
                                            enum cudaDeviceAttr attr,
                                            int device);
__host__ cudaError_t cudaDeviceSynchronize(void);
__host__ cudaError_t cudaDeviceReset(void);
__host__ cudaError_t cudaDeviceSetLimit(enum cudaLimit limit, size_t value);
__host__ cudaError_t cudaDeviceGetLimit(size_t *value, enum cudaLimit limit);
__host__ cudaError_t cudaDeviceSetCacheConfig(enum cudaFuncCache config);
__host__ cudaError_t cudaDeviceGetCacheConfig(enum cudaFuncCache *config);
__host__ cudaError_t cudaDeviceSetSharedMemConfig(enum cudaSharedMemConfig c);
__host__ cudaError_t cudaDeviceCanAccessPeer(int *canAccessPeer, int device,
                                             int peerDevice);
__host__ cudaError_t cudaDeviceEnablePeerAccess(int peerDevice,
                                                unsigned int flags);
__host__ cudaError_t cudaDeviceDisablePeerAccess(int peerDevice);
__host__ cudaError_t cudaDriverGetVersion(int *driverVersion);
__host__ cudaError_t cudaRuntimeGetVersion(int *runtimeVersion);
/* Pre-CUDA-4 names still found in older code. */
__host__ cudaError_t cudaThreadSynchronize(void);
__host__ cudaError_t cudaThreadExit(void);
__host__ cudaError_t cudaThreadSetCacheConfig(enum cudaFuncCache config);
__host__ cudaError_t cudaThreadSetLimit(enum cudaLimit limit, size_t value);

/* Memory. */
__host__ cudaError_t cudaMalloc(void **devPtr, size_t size);
__host__ cudaError_t cudaMallocHost(void **ptr, size_t size);
__host__ cudaError_t cudaMallocPitch(void **devPtr, size_t *pitch,
                                     size_t width, size_t height);
__host__ cudaError_t cudaMallocManaged(void **devPtr, size_t size,
                                       unsigned int flags __WARPCHECK_DEFAULT(cudaMemAttachGlobal));
__host__ cudaError_t cudaMalloc3D(struct cudaPitchedPtr *pitchedDevPtr,
                                  struct cudaExtent extent);
__host__ cudaError_t cudaMallocArray(cudaArray_t *array,
                                     const struct cudaChannelFormatDesc *desc,
                                     size_t width, size_t height __WARPCHECK_DEFAULT(0),
                                     unsigned int flags __WARPCHECK_DEFAULT(0));
__host__ cudaError_t cudaMallocAsync(void **devPtr, size_t size,
                                     cudaStream_t stream);
__host__ cudaError_t cudaHostAlloc(void **pHost, size_t size,
                                   unsigned int flags);
__host__ cudaError_t cudaHostGetDevicePointer(void **pDevice, void *pHost,
                                              unsigned int flags);
__host__ cudaError_t cudaHostRegister(void *ptr, size_t size,
                                      unsigned int flags);
__host__ cudaError_t cudaHostUnregister(void *ptr);
__host__ cudaError_t cudaFree(void *devPtr);
__host__ cudaError_t cudaFreeHost(void *ptr);
__host__ cudaError_t cudaFreeArray(cudaArray_t array);
__host__ cudaError_t cudaFreeAsync(void *devPtr, cudaStream_t stream);
__host__ cudaError_t cudaMemGetInfo(size_t *free, size_t *total);
/* Graphics interoperability: declared so that programs using it compile; the runtime
 * reports each call as not supported (there is no graphics API to share resources with). */
__host__ cudaError_t cudaGraphicsUnregisterResource(cudaGraphicsResource_t resource);
__host__ cudaError_t cudaGraphicsResourceSetMapFlags(cudaGraphicsResource_t resource,
                                                     unsigned int flags);
__host__ cudaError_t cudaGraphicsMapResources(int count, cudaGraphicsResource_t *resources,
                                              cudaStream_t stream __WARPCHECK_DEFAULT(0));
__host__ cudaError_t cudaGraphicsUnmapResources(int count, cudaGraphicsResource_t *resources,
                                                cudaStream_t stream __WARPCHECK_DEFAULT(0));
__host__ cudaError_t cudaGraphicsResourceGetMappedPointer(void **devPtr, size_t *size,
                                                          cudaGraphicsResource_t resource);
__host__ cudaError_t cudaGraphicsSubResourceGetMappedArray(cudaArray_t *array,
                                                           cudaGraphicsResource_t resource,
                                                           unsigned int arrayIndex,
                                                           unsigned int mipLevel);
__host__ cudaError_t cudaMemcpy(void *dst, const void *src, size_t count,
                                enum cudaMemcpyKind kind);
__host__ cudaError_t cudaMemcpyAsync(void *dst, const void *src, size_t count,
                                     enum cudaMemcpyKind kind,
                                     cudaStream_t stream __WARPCHECK_DEFAULT(0));
__host__ cudaError_t cudaMemcpy2D(void *dst, size_t dpitch, const void *src,
                                  size_t spitch, size_t width, size_t height,
                                  enum cudaMemcpyKind kind);
__host__ cudaError_t cudaMemcpy2DAsync(void *dst, size_t dpitch,
                                       const void *src, size_t spitch,
                                       size_t width, size_t height,
                                       enum cudaMemcpyKind kind,
                                       cudaStream_t stream __WARPCHECK_DEFAULT(0));
__host__ cudaError_t cudaMemcpy3D(const struct cudaMemcpy3DParms *p);
__host__ cudaError_t cudaMemcpy2DToArray(cudaArray_t dst, size_t wOffset,
                                         size_t hOffset, const void *src,
                                         size_t spitch, size_t width,
                                         size_t height,
                                         enum cudaMemcpyKind kind);
__host__ cudaError_t cudaMemcpyToArray(cudaArray_t dst, size_t wOffset,
                                       size_t hOffset, const void *src,
                                       size_t count, enum cudaMemcpyKind kind);
__host__ cudaError_t cudaMemcpyPeer(void *dst, int dstDevice, const void *src,
                                    int srcDevice, size_t count);
__host__ cudaError_t cudaMemcpyToSymbol(const void *symbol, const void *src,
                                        size_t count, size_t offset __WARPCHECK_DEFAULT(0),
                                        enum cudaMemcpyKind kind __WARPCHECK_DEFAULT(cudaMemcpyHostToDevice));
__host__ cudaError_t cudaMemcpyFromSymbol(void *dst, const void *symbol,
                                          size_t count, size_t offset __WARPCHECK_DEFAULT(0),
                                          enum cudaMemcpyKind kind __WARPCHECK_DEFAULT(cudaMemcpyDeviceToHost));
__host__ cudaError_t cudaMemcpyToSymbolAsync(const void *symbol, const void *src,
                                             size_t count, size_t offset,
                                             enum cudaMemcpyKind kind,
                                             cudaStream_t stream __WARPCHECK_DEFAULT(0));
__host__ cudaError_t cudaMemcpyFromSymbolAsync(void *dst, const void *symbol,
                                               size_t count, size_t offset,
                                               enum cudaMemcpyKind kind,
                                               cudaStream_t stream __WARPCHECK_DEFAULT(0));
__host__ cudaError_t cudaGetSymbolAddress(void **devPtr, const void *symbol);
__host__ cudaError_t cudaGetSymbolSize(size_t *size, const void *symbol);
__host__ cudaError_t cudaMemset(void *devPtr, int value, size_t count);
__host__ cudaError_t cudaMemsetAsync(void *devPtr, int value, size_t count,
                                     cudaStream_t stream __WARPCHECK_DEFAULT(0));
__host__ cudaError_t cudaMemset2D(void *devPtr, size_t pitch, int value,
                                  size_t width, size_t height);
__host__ cudaError_t cudaMemset3D(struct cudaPitchedPtr pitchedDevPtr,
                                  int value, struct cudaExtent extent);
__host__ cudaError_t cudaMemPrefetchAsync(const void *devPtr, size_t count,
                                          int dstDevice,
                                          cudaStream_t stream __WARPCHECK_DEFAULT(0));
__host__ cudaError_t cudaMemAdvise(const void *devPtr, size_t count,
                                   enum cudaMemoryAdvise advice, int device);
__host__ cudaError_t cudaPointerGetAttributes(
    struct cudaPointerAttributes *attributes, const void *ptr);

/* Streams. */
__host__ cudaError_t cudaStreamCreate(cudaStream_t *pStream);
__host__ cudaError_t cudaStreamCreateWithFlags(cudaStream_t *pStream,
                                               unsigned int flags);
__host__ cudaError_t cudaStreamCreateWithPriority(cudaStream_t *pStream,
                                                  unsigned int flags,
                                                  int priority);
__host__ cudaError_t cudaStreamDestroy(cudaStream_t stream);
__host__ cudaError_t cudaStreamSynchronize(cudaStream_t stream);
__host__ cudaError_t cudaStreamQuery(cudaStream_t stream);
__host__ cudaError_t cudaStreamWaitEvent(cudaStream_t stream, cudaEvent_t event,
                                         unsigned int flags __WARPCHECK_DEFAULT(0));
__host__ cudaError_t cudaStreamAddCallback(cudaStream_t stream,
                                           cudaStreamCallback_t callback,
                                           void *userData, unsigned int flags);
__host__ cudaError_t cudaLaunchHostFunc(cudaStream_t stream, cudaHostFn_t fn,
                                        void *userData);
__host__ cudaError_t cudaDeviceGetStreamPriorityRange(int *leastPriority,
                                                      int *greatestPriority);
__host__ cudaError_t cudaStreamAttachMemAsync(cudaStream_t stream, void *devPtr,
                                              size_t length __WARPCHECK_DEFAULT(0),
                                              unsigned int flags __WARPCHECK_DEFAULT(cudaMemAttachSingle));
__host__ cudaError_t cudaCtxResetPersistingL2Cache(void);

/* Events. */
__host__ cudaError_t cudaEventCreate(cudaEvent_t *event);
__host__ cudaError_t cudaEventCreateWithFlags(cudaEvent_t *event,
                                              unsigned int flags);
__host__ cudaError_t cudaEventRecord(cudaEvent_t event,
                                     cudaStream_t stream __WARPCHECK_DEFAULT(0));
__host__ cudaError_t cudaEventSynchronize(cudaEvent_t event);
__host__ cudaError_t cudaEventQuery(cudaEvent_t event);
__host__ cudaError_t cudaEventElapsedTime(float *ms, cudaEvent_t start,
                                          cudaEvent_t end);
__host__ cudaError_t cudaEventDestroy(cudaEvent_t event);

/* Kernels and occupancy. */
__host__ cudaError_t cudaFuncGetAttributes(struct cudaFuncAttributes *attr,
                                           const void *func);
__host__ cudaError_t cudaFuncSetCacheConfig(const void *func,
                                            enum cudaFuncCache cacheConfig);
__host__ cudaError_t cudaFuncSetSharedMemConfig(const void *func,
                                                enum cudaSharedMemConfig config);
__host__ cudaError_t cudaFuncSetAttribute(const void *func,
                                          enum cudaFuncAttribute attr,
                                          int value);
__host__ cudaError_t cudaOccupancyMaxActiveBlocksPerMultiprocessor(
    int *numBlocks, const void *func, int blockSize, size_t dynamicSMemSize);

/* Graphs (declarations only, for code that captures streams). */
__host__ cudaError_t cudaGraphCreate(cudaGraph_t *pGraph, unsigned int flags);
__host__ cudaError_t cudaGraphDestroy(cudaGraph_t graph);
__host__ cudaError_t cudaGraphExecDestroy(cudaGraphExec_t graphExec);
__host__ cudaError_t cudaGraphLaunch(cudaGraphExec_t graphExec,
                                     cudaStream_t stream);

/* Textures and channel descriptors. */
__host__ struct cudaChannelFormatDesc
cudaCreateChannelDesc(int x, int y, int z, int w, enum cudaChannelFormatKind f);

/* Profiler control (cuda_profiler_api.h). */
__host__ cudaError_t cudaProfilerStart(void);
__host__ cudaError_t cudaProfilerStop(void);

#ifdef __cplusplus
} /* extern "C" */
#endif
#undef __WARPCHECK_DEFAULT

#ifdef __cplusplus
/* The typed C++ overloads that cuda_runtime.h adds on top of the C API. */
template <class T>
static __inline__ __host__ cudaError_t cudaMalloc(T **devPtr, size_t size) {
  return ::cudaMalloc((void **)(void *)devPtr, size);
}
template <class T>
static __inline__ __host__ cudaError_t cudaMallocHost(T **ptr, size_t size,
                                                      unsigned int flags = 0) {
  return flags == 0 ? ::cudaMallocHost((void **)(void *)ptr, size)
                    : ::cudaHostAlloc((void **)(void *)ptr, size, flags);
}
static __inline__ __host__ cudaError_t cudaMallocHost(void **ptr, size_t size,
                                                      unsigned int flags) {
  return ::cudaHostAlloc(ptr, size, flags);
}
template <class T>
static __inline__ __host__ cudaError_t cudaHostAlloc(T **ptr, size_t size,
                                                     unsigned int flags) {
  return ::cudaHostAlloc((void **)(void *)ptr, size, flags);
}
template <class T>
static __inline__ __host__ cudaError_t cudaMallocPitch(T **devPtr,
                                                       size_t *pitch,
                                                       size_t width,
                                                       size_t height) {
  return ::cudaMallocPitch((void **)(void *)devPtr, pitch, width, height);
}
template <class T>
static __inline__ __host__ cudaError_t
cudaMallocManaged(T **devPtr, size_t size,
                  unsigned int flags = cudaMemAttachGlobal) {
  return ::cudaMallocManaged((void **)(void *)devPtr, size, flags);
}
template <class T>
static __inline__ __host__ cudaError_t
cudaStreamAttachMemAsync(cudaStream_t stream, T *devPtr, size_t length = 0,
                         unsigned int flags = cudaMemAttachSingle) {
  return ::cudaStreamAttachMemAsync(stream, (void *)devPtr, length, flags);
}
template <class T>
static __inline__ __host__ cudaError_t
cudaMemcpyToSymbol(const T &symbol, const void *src, size_t count,
                   size_t offset = 0,
                   enum cudaMemcpyKind kind = cudaMemcpyHostToDevice) {
  return ::cudaMemcpyToSymbol((const void *)&symbol, src, count, offset, kind);
}
template <class T>
static __inline__ __host__ cudaError_t
cudaMemcpyToSymbolAsync(const T &symbol, const void *src, size_t count,
                        size_t offset = 0,
                        enum cudaMemcpyKind kind = cudaMemcpyHostToDevice,
                        cudaStream_t stream = 0) {
  return ::cudaMemcpyToSymbolAsync((const void *)&symbol, src, count, offset,
                                   kind, stream);
}
template <class T>
static __inline__ __host__ cudaError_t
cudaMemcpyFromSymbol(void *dst, const T &symbol, size_t count,
                     size_t offset = 0,
                     enum cudaMemcpyKind kind = cudaMemcpyDeviceToHost) {
  return ::cudaMemcpyFromSymbol(dst, (const void *)&symbol, count, offset,
                                kind);
}
template <class T>
static __inline__ __host__ cudaError_t
cudaMemcpyFromSymbolAsync(void *dst, const T &symbol, size_t count,
                          size_t offset = 0,
                          enum cudaMemcpyKind kind = cudaMemcpyDeviceToHost,
                          cudaStream_t stream = 0) {
  return ::cudaMemcpyFromSymbolAsync(dst, (const void *)&symbol, count, offset,
                                     kind, stream);
}
template <class T>
static __inline__ __host__ cudaError_t cudaGetSymbolAddress(void **devPtr,
                                                            const T &symbol) {
  return ::cudaGetSymbolAddress(devPtr, (const void *)&symbol);
}
template <class T>
static __inline__ __host__ cudaError_t cudaGetSymbolSize(size_t *size,
                                                         const T &symbol) {
  return ::cudaGetSymbolSize(size, (const void *)&symbol);
}
template <class T>
static __inline__ __host__ cudaError_t
cudaFuncGetAttributes(struct cudaFuncAttributes *attr, T *entry) {
  return ::cudaFuncGetAttributes(attr, (const void *)entry);
}
template <class T>
static __inline__ __host__ cudaError_t
cudaFuncSetCacheConfig(T *func, enum cudaFuncCache cacheConfig) {
  return ::cudaFuncSetCacheConfig((const void *)func, cacheConfig);
}
template <class T>
static __inline__ __host__ cudaError_t
cudaFuncSetSharedMemConfig(T *func, enum cudaSharedMemConfig config) {
  return ::cudaFuncSetSharedMemConfig((const void *)func, config);
}
template <class T>
static __inline__ __host__ cudaError_t
cudaFuncSetAttribute(T *func, enum cudaFuncAttribute attr, int value) {
  return ::cudaFuncSetAttribute((const void *)func, attr, value);
}
template <class T>
static __inline__ __host__ cudaError_t
cudaLaunchKernel(T *func, dim3 gridDim, dim3 blockDim, void **args,
                 size_t sharedMem = 0, cudaStream_t stream = 0) {
  return ::cudaLaunchKernel((const void *)func, gridDim, blockDim, args,
                            sharedMem, stream);
}
template <class T>
static __inline__ __host__ cudaError_t
cudaLaunchCooperativeKernel(T *func, dim3 gridDim, dim3 blockDim, void **args,
                            size_t sharedMem = 0, cudaStream_t stream = 0) {
  return ::cudaLaunchCooperativeKernel((const void *)func, gridDim, blockDim,
                                       args, sharedMem, stream);
}
template <class T>
static __inline__ __host__ cudaError_t
cudaOccupancyMaxActiveBlocksPerMultiprocessor(int *numBlocks, T func,
                                              int blockSize,
                                              size_t dynamicSMemSize) {
  return ::cudaOccupancyMaxActiveBlocksPerMultiprocessor(
      numBlocks, (const void *)func, blockSize, dynamicSMemSize);
}
extern "C" __host__ cudaError_t cudaOccupancyMaxPotentialBlockSizeImpl(
    int *minGridSize, int *blockSize, const void *func,
    size_t dynamicSMemSize, int blockSizeLimit);
template <class T>
static __inline__ __host__ cudaError_t
cudaOccupancyMaxPotentialBlockSize(int *minGridSize, int *blockSize, T func,
                                   size_t dynamicSMemSize = 0,
                                   int blockSizeLimit = 0) {
  return ::cudaOccupancyMaxPotentialBlockSizeImpl(
      minGridSize, blockSize, (const void *)func, dynamicSMemSize,
      blockSizeLimit);
}
template <class T>
static __inline__ __host__ struct cudaChannelFormatDesc cudaCreateChannelDesc(void) {
  return ::cudaCreateChannelDesc(0, 0, 0, 0, cudaChannelFormatKindNone);
}
#define __WARPCHECK_CHANNEL_DESC(T, X, Y, Z, W, KIND)                          \
  template <>                                                                  \
  __inline__ __host__ struct cudaChannelFormatDesc cudaCreateChannelDesc<T>(   \
      void) {                                                                  \
    return ::cudaCreateChannelDesc(X, Y, Z, W, KIND);                          \
  }
__WARPCHECK_CHANNEL_DESC(char, 8, 0, 0, 0, cudaChannelFormatKindSigned)
__WARPCHECK_CHANNEL_DESC(signed char, 8, 0, 0, 0, cudaChannelFormatKindSigned)
__WARPCHECK_CHANNEL_DESC(unsigned char, 8, 0, 0, 0, cudaChannelFormatKindUnsigned)
__WARPCHECK_CHANNEL_DESC(short, 16, 0, 0, 0, cudaChannelFormatKindSigned)
__WARPCHECK_CHANNEL_DESC(unsigned short, 16, 0, 0, 0, cudaChannelFormatKindUnsigned)
__WARPCHECK_CHANNEL_DESC(int, 32, 0, 0, 0, cudaChannelFormatKindSigned)
__WARPCHECK_CHANNEL_DESC(unsigned int, 32, 0, 0, 0, cudaChannelFormatKindUnsigned)
__WARPCHECK_CHANNEL_DESC(float, 32, 0, 0, 0, cudaChannelFormatKindFloat)
__WARPCHECK_CHANNEL_DESC(int2, 32, 32, 0, 0, cudaChannelFormatKindSigned)
__WARPCHECK_CHANNEL_DESC(uint2, 32, 32, 0, 0, cudaChannelFormatKindUnsigned)
__WARPCHECK_CHANNEL_DESC(float2, 32, 32, 0, 0, cudaChannelFormatKindFloat)
__WARPCHECK_CHANNEL_DESC(int4, 32, 32, 32, 32, cudaChannelFormatKindSigned)
__WARPCHECK_CHANNEL_DESC(uint4, 32, 32, 32, 32, cudaChannelFormatKindUnsigned)
__WARPCHECK_CHANNEL_DESC(float4, 32, 32, 32, 32, cudaChannelFormatKindFloat)
#undef __WARPCHECK_CHANNEL_DESC
#endif /* __cplusplus */

#endif /* WARPCHECK_RUNTIME_API_H */
