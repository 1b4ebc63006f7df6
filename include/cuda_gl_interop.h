/*
 * warpcheck shim for the CUDA toolkit header <cuda_gl_interop.h>: the OpenGL
 * interoperability API, declared so that programs using it compile. OpenGL's own types
 * are spelled as the unsigned integers they are (GLuint, GLenum), so this header needs no
 * OpenGL headers; NVIDIA's includes <GL/gl.h>, which a program using it includes anyway.
 * The runtime reports every call as not supported.
 */
#ifndef WARPCHECK_SHIM_CUDA_GL_INTEROP_H
#define WARPCHECK_SHIM_CUDA_GL_INTEROP_H
#include "warpcheck_prelude.h"

#ifdef __cplusplus
extern "C" {
#endif

enum cudaGLDeviceList {
  cudaGLDeviceListAll = 1,
  cudaGLDeviceListCurrentFrame = 2,
  cudaGLDeviceListNextFrame = 3
};
enum cudaGLMapFlags {
  cudaGLMapFlagsNone = 0,
  cudaGLMapFlagsReadOnly = 1,
  cudaGLMapFlagsWriteDiscard = 2
};

__host__ cudaError_t cudaGLGetDevices(unsigned int *pCudaDeviceCount, int *pCudaDevices,
                                      unsigned int cudaDeviceCount,
                                      enum cudaGLDeviceList deviceList);
__host__ cudaError_t cudaGraphicsGLRegisterImage(struct cudaGraphicsResource **resource,
                                                 unsigned int image, unsigned int target,
                                                 unsigned int flags);
__host__ cudaError_t cudaGraphicsGLRegisterBuffer(struct cudaGraphicsResource **resource,
                                                  unsigned int buffer, unsigned int flags);

/* Deprecated since CUDA 3.0, still used by older programs. */
__host__ cudaError_t cudaGLSetGLDevice(int device);
__host__ cudaError_t cudaGLRegisterBufferObject(unsigned int bufObj);
__host__ cudaError_t cudaGLMapBufferObject(void **devPtr, unsigned int bufObj);
__host__ cudaError_t cudaGLUnmapBufferObject(unsigned int bufObj);
__host__ cudaError_t cudaGLUnregisterBufferObject(unsigned int bufObj);
__host__ cudaError_t cudaGLSetBufferObjectMapFlags(unsigned int bufObj, unsigned int flags);
__host__ cudaError_t cudaGLMapBufferObjectAsync(void **devPtr, unsigned int bufObj,
                                                cudaStream_t stream);
__host__ cudaError_t cudaGLUnmapBufferObjectAsync(unsigned int bufObj, cudaStream_t stream);

#ifdef __cplusplus
}
#endif
#endif
