/*
 * warpcheck shim: CUDA textures and surfaces.
 *
 * The types and host functions are declared so that host code parses. Device-side texture
 * and surface access is not supported: texture references (`texture<T, dim, mode>`) and
 * the tex / surf fetch functions are declared `unavailable`, so code that uses them stops
 * with a message that says so, instead of an obscure undeclared-identifier error.
 * warpcheck's emulator has no texture units; load through a plain (or `__ldg`) pointer
 * instead.
 */
#ifndef WARPCHECK_TEXTURE_TYPES_H
#define WARPCHECK_TEXTURE_TYPES_H
#define __TEXTURE_TYPES_H__ /* CUDA's include guard */

#define __WARPCHECK_NO_TEXTURES                                                \
  __attribute__((unavailable(                                                  \
      "warpcheck does not support CUDA textures or surfaces (texture<>, "      \
      "tex1Dfetch, tex2D, surf2Dread ...): read the data through a pointer, "  \
      "e.g. with __ldg")))

enum cudaTextureReadMode { cudaReadModeElementType = 0, cudaReadModeNormalizedFloat = 1 };
enum cudaTextureFilterMode { cudaFilterModePoint = 0, cudaFilterModeLinear = 1 };
enum cudaTextureAddressMode {
  cudaAddressModeWrap = 0,
  cudaAddressModeClamp = 1,
  cudaAddressModeMirror = 2,
  cudaAddressModeBorder = 3
};
#define cudaTextureType1D 0x01
#define cudaTextureType2D 0x02
#define cudaTextureType3D 0x03
#define cudaTextureTypeCubemap 0x0C
#define cudaTextureType1DLayered 0xF1
#define cudaTextureType2DLayered 0xF2
#define cudaTextureTypeCubemapLayered 0xFC

struct textureReference {
  int normalized;
  enum cudaTextureFilterMode filterMode;
  enum cudaTextureAddressMode addressMode[3];
  struct cudaChannelFormatDesc channelDesc;
  int sRGB;
  unsigned int maxAnisotropy;
  enum cudaTextureFilterMode mipmapFilterMode;
  float mipmapLevelBias;
  float minMipmapLevelClamp;
  float maxMipmapLevelClamp;
  int disableTrilinearOptimization;
  int __cudaReserved[14];
};

struct cudaResourceDesc;
struct cudaTextureDesc;
struct cudaResourceViewDesc;

#ifdef __cplusplus
extern "C" {
#endif
__host__ cudaError_t cudaBindTexture(size_t *offset, const struct textureReference *texref,
                                     const void *devPtr, const struct cudaChannelFormatDesc *desc,
                                     size_t size);
__host__ cudaError_t cudaBindTexture2D(size_t *offset, const struct textureReference *texref,
                                       const void *devPtr, const struct cudaChannelFormatDesc *desc,
                                       size_t width, size_t height, size_t pitch);
__host__ cudaError_t cudaBindTextureToArray(const struct textureReference *texref, cudaArray_const_t array,
                                            const struct cudaChannelFormatDesc *desc);
__host__ cudaError_t cudaUnbindTexture(const struct textureReference *texref);
__host__ cudaError_t cudaCreateTextureObject(cudaTextureObject_t *texObject,
                                             const struct cudaResourceDesc *resDesc,
                                             const struct cudaTextureDesc *texDesc,
                                             const struct cudaResourceViewDesc *resViewDesc);
__host__ cudaError_t cudaDestroyTextureObject(cudaTextureObject_t texObject);
#ifdef __cplusplus
}

/* Texture references: any use is an error with the message above. */
template <class T, int TextureType = cudaTextureType1D,
          enum cudaTextureReadMode ReadMode = cudaReadModeElementType>
struct __WARPCHECK_NO_TEXTURES texture : public textureReference {};

/* Fetch functions for references and texture objects alike. */
#define __WARPCHECK_UNAVAILABLE_FETCH(NAME)                                    \
  template <class T = float, class... Args>                                    \
  __device__ T NAME(Args...) __WARPCHECK_NO_TEXTURES;
__WARPCHECK_UNAVAILABLE_FETCH(tex1Dfetch)
__WARPCHECK_UNAVAILABLE_FETCH(tex1D)
__WARPCHECK_UNAVAILABLE_FETCH(tex2D)
__WARPCHECK_UNAVAILABLE_FETCH(tex3D)
__WARPCHECK_UNAVAILABLE_FETCH(tex1DLayered)
__WARPCHECK_UNAVAILABLE_FETCH(tex2DLayered)
__WARPCHECK_UNAVAILABLE_FETCH(texCubemap)
__WARPCHECK_UNAVAILABLE_FETCH(tex1DLod)
__WARPCHECK_UNAVAILABLE_FETCH(tex2DLod)
__WARPCHECK_UNAVAILABLE_FETCH(tex2Dgather)
__WARPCHECK_UNAVAILABLE_FETCH(surf1Dread)
__WARPCHECK_UNAVAILABLE_FETCH(surf2Dread)
__WARPCHECK_UNAVAILABLE_FETCH(surf3Dread)
__WARPCHECK_UNAVAILABLE_FETCH(surf1Dwrite)
__WARPCHECK_UNAVAILABLE_FETCH(surf2Dwrite)
__WARPCHECK_UNAVAILABLE_FETCH(surf3Dwrite)
#undef __WARPCHECK_UNAVAILABLE_FETCH
#endif /* __cplusplus */

#endif /* WARPCHECK_TEXTURE_TYPES_H */
