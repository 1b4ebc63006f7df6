/*
 * warpcheck shim: CUDA textures.
 *
 * The texture object API (cudaResourceDesc, cudaTextureDesc, cudaCreateTextureObject and the
 * templated fetch functions tex1Dfetch<T>, tex1D<T>, tex2D<T>, tex3D<T>) and the legacy
 * texture references (`texture<T, dim, mode>`, cudaBindTexture, cudaBindTexture2D,
 * cudaUnbindTexture and the fetch functions that take a reference). Texture references were
 * removed from CUDA 12; older programs (Rodinia) still use them, and clang compiles them.
 *
 * Device side: `texture<>` carries clang's device_builtin_texture_type attribute (it
 * becomes a `.texref` in the PTX), and the fetch functions emit `tex.*` instructions, as
 * CUDA's own texture_fetch_functions.h does. warpcheck's emulator executes them against the
 * textures its runtime binds.
 *
 * Surfaces (surf2Dread, surf2Dwrite, ...) are declared `unavailable`: the emulator has no
 * `suld`/`sust` yet.
 */
#ifndef WARPCHECK_TEXTURE_TYPES_H
#define WARPCHECK_TEXTURE_TYPES_H
#define __TEXTURE_TYPES_H__ /* CUDA's include guard */

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

/* The layouts below are the CUDA runtime's: warpcheck's runtime reads them. */
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

enum cudaResourceType {
  cudaResourceTypeArray = 0x00,
  cudaResourceTypeMipmappedArray = 0x01,
  cudaResourceTypeLinear = 0x02,
  cudaResourceTypePitch2D = 0x03
};

struct cudaResourceDesc {
  enum cudaResourceType resType;
  union {
    struct {
      cudaArray_t array;
    } array;
    struct {
      cudaMipmappedArray_t mipmap;
    } mipmap;
    struct {
      void *devPtr;
      struct cudaChannelFormatDesc desc;
      size_t sizeInBytes;
    } linear;
    struct {
      void *devPtr;
      struct cudaChannelFormatDesc desc;
      size_t width;
      size_t height;
      size_t pitchInBytes;
    } pitch2D;
    struct {
      int reserved[32];
    } reserved;
  } res;
  unsigned int flags;
};

struct cudaTextureDesc {
  enum cudaTextureAddressMode addressMode[3];
  enum cudaTextureFilterMode filterMode;
  enum cudaTextureReadMode readMode;
  int sRGB;
  float borderColor[4];
  int normalizedCoords;
  unsigned int maxAnisotropy;
  enum cudaTextureFilterMode mipmapFilterMode;
  float mipmapLevelBias;
  float minMipmapLevelClamp;
  float maxMipmapLevelClamp;
  int disableTrilinearOptimization;
  int seamlessCubemap;
};

struct cudaResourceViewDesc {
  int format;
  size_t width;
  size_t height;
  size_t depth;
  unsigned int firstMipmapLevel;
  unsigned int lastMipmapLevel;
  unsigned int firstLayer;
  unsigned int lastLayer;
};

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
__host__ cudaError_t cudaGetTextureAlignmentOffset(size_t *offset,
                                                   const struct textureReference *texref);
__host__ cudaError_t cudaCreateTextureObject(cudaTextureObject_t *texObject,
                                             const struct cudaResourceDesc *resDesc,
                                             const struct cudaTextureDesc *texDesc,
                                             const struct cudaResourceViewDesc *resViewDesc);
__host__ cudaError_t cudaDestroyTextureObject(cudaTextureObject_t texObject);
__host__ cudaError_t cudaGetTextureObjectResourceDesc(struct cudaResourceDesc *resDesc,
                                                      cudaTextureObject_t texObject);
__host__ cudaError_t cudaGetTextureObjectTextureDesc(struct cudaTextureDesc *texDesc,
                                                     cudaTextureObject_t texObject);
#ifdef __cplusplus
}

#if defined(__CUDA__)
#define __WARPCHECK_TEXTURE_TYPE __attribute__((device_builtin_texture_type))
#else
#define __WARPCHECK_TEXTURE_TYPE
#endif

/* Texture references. The constructor is the CUDA runtime's: point filtering, clamped,
 * unnormalised coordinates, the channel format of T. */
template <class T, int TextureType = cudaTextureType1D,
          enum cudaTextureReadMode ReadMode = cudaReadModeElementType>
struct __WARPCHECK_TEXTURE_TYPE texture : public textureReference {
  __host__ texture(int norm = 0, enum cudaTextureFilterMode fMode = cudaFilterModePoint,
                   enum cudaTextureAddressMode aMode = cudaAddressModeClamp) {
    normalized = norm;
    filterMode = fMode;
    addressMode[0] = aMode;
    addressMode[1] = aMode;
    addressMode[2] = aMode;
    channelDesc = cudaCreateChannelDesc<T>();
    sRGB = 0;
  }
  __host__ texture(int norm, enum cudaTextureFilterMode fMode,
                   enum cudaTextureAddressMode aMode, struct cudaChannelFormatDesc desc) {
    normalized = norm;
    filterMode = fMode;
    addressMode[0] = aMode;
    addressMode[1] = aMode;
    addressMode[2] = aMode;
    channelDesc = desc;
    sRGB = 0;
  }
};

/* The runtime's C++ overloads that take a reference (CUDA's cuda_runtime.h). */
template <class T, int dim, enum cudaTextureReadMode readMode>
static __inline__ __host__ cudaError_t cudaBindTexture(size_t *offset,
                                                       const struct texture<T, dim, readMode> &tex,
                                                       const void *devPtr,
                                                       const struct cudaChannelFormatDesc &desc,
                                                       size_t size = UINT_MAX) {
  return ::cudaBindTexture(offset, &tex, devPtr, &desc, size);
}
template <class T, int dim, enum cudaTextureReadMode readMode>
static __inline__ __host__ cudaError_t cudaBindTexture(size_t *offset,
                                                       const struct texture<T, dim, readMode> &tex,
                                                       const void *devPtr, size_t size = UINT_MAX) {
  return ::cudaBindTexture(offset, &tex, devPtr, &tex.channelDesc, size);
}
template <class T, int dim, enum cudaTextureReadMode readMode>
static __inline__ __host__ cudaError_t cudaBindTexture2D(size_t *offset,
                                                         const struct texture<T, dim, readMode> &tex,
                                                         const void *devPtr,
                                                         const struct cudaChannelFormatDesc &desc,
                                                         size_t width, size_t height, size_t pitch) {
  return ::cudaBindTexture2D(offset, &tex, devPtr, &desc, width, height, pitch);
}
template <class T, int dim, enum cudaTextureReadMode readMode>
static __inline__ __host__ cudaError_t cudaBindTexture2D(size_t *offset,
                                                         const struct texture<T, dim, readMode> &tex,
                                                         const void *devPtr, size_t width,
                                                         size_t height, size_t pitch) {
  return ::cudaBindTexture2D(offset, &tex, devPtr, &tex.channelDesc, width, height, pitch);
}
template <class T, int dim, enum cudaTextureReadMode readMode>
static __inline__ __host__ cudaError_t cudaBindTextureToArray(
    const struct texture<T, dim, readMode> &tex, cudaArray_const_t array,
    const struct cudaChannelFormatDesc &desc) {
  return ::cudaBindTextureToArray(&tex, array, &desc);
}
template <class T, int dim, enum cudaTextureReadMode readMode>
static __inline__ __host__ cudaError_t cudaBindTextureToArray(
    const struct texture<T, dim, readMode> &tex, cudaArray_const_t array) {
  return ::cudaBindTextureToArray(&tex, array, &tex.channelDesc);
}
template <class T, int dim, enum cudaTextureReadMode readMode>
static __inline__ __host__ cudaError_t cudaUnbindTexture(const struct texture<T, dim, readMode> &tex) {
  return ::cudaUnbindTexture(&tex);
}

/* What a fetch returns: the element type, or floats for cudaReadModeNormalizedFloat. */
template <class T> struct __wc_tex_nf;
#define __WARPCHECK_NF(T, F) \
  template <> struct __wc_tex_nf<T> { typedef F type; };
__WARPCHECK_NF(char, float)
__WARPCHECK_NF(signed char, float)
__WARPCHECK_NF(unsigned char, float)
__WARPCHECK_NF(short, float)
__WARPCHECK_NF(unsigned short, float)
__WARPCHECK_NF(char1, float1)
__WARPCHECK_NF(char2, float2)
__WARPCHECK_NF(char4, float4)
__WARPCHECK_NF(uchar1, float1)
__WARPCHECK_NF(uchar2, float2)
__WARPCHECK_NF(uchar4, float4)
__WARPCHECK_NF(short1, float1)
__WARPCHECK_NF(short2, float2)
__WARPCHECK_NF(short4, float4)
__WARPCHECK_NF(ushort1, float1)
__WARPCHECK_NF(ushort2, float2)
__WARPCHECK_NF(ushort4, float4)
#undef __WARPCHECK_NF
template <class T, enum cudaTextureReadMode M> struct __wc_tex_ret { typedef T type; };
template <class T> struct __wc_tex_ret<T, cudaReadModeNormalizedFloat> {
  typedef typename __wc_tex_nf<T>::type type;
};

#if defined(__CUDA__) && !defined(__WARPCHECK_SIGNATURES_ONLY)
/* The fetch functions, written as NVIDIA's texture_fetch_functions.h and clang's
 * __clang_cuda_texture_intrinsics.h write them: a `tex.GEOM.v4.DTYPE.CTYPE` instruction
 * whose four results convert to the return type. They carry no debug information and are
 * always inlined, so that the instruction takes the line of the user's call: a finding at
 * a fetch names that line, not one in this header. */
#define __WC_ND static __device__ __attribute__((nodebug, always_inline))

/* A texel type: its base (component) type, component count, and whether it is a vector. */
template <class T> struct __wc_texel;
#define __WC_SCALAR(T) \
  template <> struct __wc_texel<T> { typedef T base; enum { n = 1, vec = 0 }; };
#define __WC_VECTOR(V, B, N) \
  template <> struct __wc_texel<V> { typedef B base; enum { n = N, vec = 1 }; };
#define __WC_VECTORS(P, B) \
  __WC_VECTOR(P##1, B, 1) __WC_VECTOR(P##2, B, 2) __WC_VECTOR(P##3, B, 3) __WC_VECTOR(P##4, B, 4)
__WC_SCALAR(char)
__WC_SCALAR(signed char)
__WC_SCALAR(unsigned char)
__WC_SCALAR(short)
__WC_SCALAR(unsigned short)
__WC_SCALAR(int)
__WC_SCALAR(unsigned int)
__WC_SCALAR(float)
__WC_VECTORS(char, signed char)
__WC_VECTORS(uchar, unsigned char)
__WC_VECTORS(short, short)
__WC_VECTORS(ushort, unsigned short)
__WC_VECTORS(int, int)
__WC_VECTORS(uint, unsigned int)
__WC_VECTORS(float, float)
#undef __WC_SCALAR
#undef __WC_VECTOR
#undef __WC_VECTORS

/* The fetch's destination type by component type: 0 float (.f32), 1 signed (.s32),
 * 2 unsigned (.u32). */
template <class B> struct __wc_kind { enum { k = 1 }; };
template <> struct __wc_kind<float> { enum { k = 0 }; };
template <> struct __wc_kind<unsigned char> { enum { k = 2 }; };
template <> struct __wc_kind<unsigned short> { enum { k = 2 }; };
template <> struct __wc_kind<unsigned int> { enum { k = 2 }; };

struct __wc_r4f { float x, y, z, w; };
struct __wc_r4i { int x, y, z, w; };
template <int K> struct __wc_fetch;
#define __WC_TEX(NAME, GEOM, DT, R, OUT, CTY, COORDS, PARAMS, ...)              \
  __WC_ND OUT NAME(unsigned long long __h, __WC_L PARAMS) {                     \
    OUT __r;                                                                    \
    asm("tex." GEOM ".v4." DT "." CTY " {%0, %1, %2, %3}, [%4, " COORDS "];"    \
        : "=" R(__r.x), "=" R(__r.y), "=" R(__r.z), "=" R(__r.w)                \
        : "l"(__h), __VA_ARGS__);                                               \
    return __r;                                                                 \
  }
#define __WC_L(...) __VA_ARGS__
#define __WC_KIND(K, DT, R, OUT)                                                \
  template <> struct __wc_fetch<K> {                                            \
    __WC_TEX(d1i, "1d", DT, R, OUT, "s32", "{%5}", (int __x), "r"(__x))         \
    __WC_TEX(d1, "1d", DT, R, OUT, "f32", "{%5}", (float __x), "f"(__x))        \
    __WC_TEX(d2, "2d", DT, R, OUT, "f32", "{%5, %6}", (float __x, float __y),   \
             "f"(__x), "f"(__y))                                                \
    __WC_TEX(d3, "3d", DT, R, OUT, "f32", "{%5, %6, %7, %7}",                   \
             (float __x, float __y, float __z), "f"(__x), "f"(__y), "f"(__z))   \
  };
__WC_KIND(0, "f32", "f", __wc_r4f)
__WC_KIND(1, "s32", "r", __wc_r4i)
__WC_KIND(2, "u32", "r", __wc_r4i)
#undef __WC_KIND
#undef __WC_TEX

/* The four results as T. */
template <class T, int N = __wc_texel<T>::n, int V = __wc_texel<T>::vec> struct __wc_cv;
template <class T> struct __wc_cv<T, 1, 0> {
  template <class R> __WC_ND T go(const R &r) { return (T)r.x; }
};
template <class T> struct __wc_cv<T, 1, 1> {
  template <class R> __WC_ND T go(const R &r) {
    T v;
    v.x = r.x;
    return v;
  }
};
template <class T> struct __wc_cv<T, 2, 1> {
  template <class R> __WC_ND T go(const R &r) {
    T v;
    v.x = r.x;
    v.y = r.y;
    return v;
  }
};
template <class T> struct __wc_cv<T, 3, 1> {
  template <class R> __WC_ND T go(const R &r) {
    T v;
    v.x = r.x;
    v.y = r.y;
    v.z = r.z;
    return v;
  }
};
template <class T> struct __wc_cv<T, 4, 1> {
  template <class R> __WC_ND T go(const R &r) {
    T v;
    v.x = r.x;
    v.y = r.y;
    v.z = r.z;
    v.w = r.w;
    return v;
  }
};

/* A texture reference's handle: clang lowers a `texture<>` operand to its `.texref`. */
template <class H> __WC_ND unsigned long long __wc_handle(H __t) {
  unsigned long long __h;
  asm("mov.b64 %0, %1;" : "=l"(__h) : "l"(__t));
  return __h;
}

#define __WC_RMET(T) __wc_fetch<__wc_kind<typename __wc_texel<T>::base>::k>
#define __WC_REF_FETCH(NAME, DIM, F, PARAMS, ARGS)                              \
  template <class T>                                                            \
  __WC_ND T NAME(texture<T, DIM, cudaReadModeElementType> __t, __WC_L PARAMS) { \
    return __wc_cv<T>::go(__WC_RMET(T)::F(__wc_handle(__t), __WC_L ARGS));      \
  }                                                                             \
  template <class T>                                                            \
  __WC_ND typename __wc_tex_nf<T>::type NAME(                                   \
      texture<T, DIM, cudaReadModeNormalizedFloat> __t, __WC_L PARAMS) {        \
    return __wc_cv<typename __wc_tex_nf<T>::type>::go(                          \
        __wc_fetch<0>::F(__wc_handle(__t), __WC_L ARGS));                       \
  }
__WC_REF_FETCH(tex1Dfetch, cudaTextureType1D, d1i, (int x), (x))
__WC_REF_FETCH(tex1D, cudaTextureType1D, d1, (float x), (x))
__WC_REF_FETCH(tex2D, cudaTextureType2D, d2, (float x, float y), (x, y))
__WC_REF_FETCH(tex3D, cudaTextureType3D, d3, (float x, float y, float z), (x, y, z))

/* Fetches through a texture object: tex2D<float>(obj, x, y) and tex2D(&ret, obj, x, y). */
#define __WC_OBJ_FETCH(NAME, F, PARAMS, ARGS)                                   \
  template <class T> __WC_ND T NAME(cudaTextureObject_t __o, __WC_L PARAMS) {   \
    return __wc_cv<T>::go(__WC_RMET(T)::F(__o, __WC_L ARGS));                   \
  }                                                                             \
  template <class T>                                                            \
  __WC_ND void NAME(T *__ret, cudaTextureObject_t __o, __WC_L PARAMS) {         \
    *__ret = __wc_cv<T>::go(__WC_RMET(T)::F(__o, __WC_L ARGS));                 \
  }
__WC_OBJ_FETCH(tex1Dfetch, d1i, (int x), (x))
__WC_OBJ_FETCH(tex1D, d1, (float x), (x))
__WC_OBJ_FETCH(tex2D, d2, (float x, float y), (x, y))
__WC_OBJ_FETCH(tex3D, d3, (float x, float y, float z), (x, y, z))
#undef __WC_REF_FETCH
#undef __WC_OBJ_FETCH
#undef __WC_RMET
#undef __WC_L
#undef __WC_ND
#endif /* __CUDA__ */

/* Surfaces: the emulator does not execute `suld`/`sust` yet. */
#define __WARPCHECK_NO_SURFACES                                                \
  __attribute__((unavailable(                                                  \
      "warpcheck does not support CUDA surfaces (surf1Dread, surf2Dwrite ...) "\
      "yet: textures and plain pointers are supported")))
#define __WARPCHECK_UNAVAILABLE_FETCH(NAME)                                    \
  template <class T = float, class... Args>                                    \
  __device__ T NAME(Args...) __WARPCHECK_NO_SURFACES;
__WARPCHECK_UNAVAILABLE_FETCH(surf1Dread)
__WARPCHECK_UNAVAILABLE_FETCH(surf2Dread)
__WARPCHECK_UNAVAILABLE_FETCH(surf3Dread)
__WARPCHECK_UNAVAILABLE_FETCH(surf1Dwrite)
__WARPCHECK_UNAVAILABLE_FETCH(surf2Dwrite)
__WARPCHECK_UNAVAILABLE_FETCH(surf3Dwrite)
#undef __WARPCHECK_UNAVAILABLE_FETCH
#endif /* __cplusplus */

#endif /* WARPCHECK_TEXTURE_TYPES_H */
