/*
 * warpcheck shim: CUDA's built-in vector types (char1 ... double4), uint3 and
 * dim3, and the make_<type> constructors, with the sizes and alignments that
 * CUDA's vector_types.h gives them (so that a float4 load is one 16-byte
 * access, as it is with nvcc).
 */
#ifndef WARPCHECK_VECTOR_TYPES_H
#define WARPCHECK_VECTOR_TYPES_H
#define __VECTOR_TYPES_H__ /* CUDA's include guard */

/* One base type gives four vector types. `align2` and `align4` are the
 * alignments CUDA gives to the 2- and 4-element forms; 1- and 3-element forms
 * have the natural alignment of their element. */
#define __WARPCHECK_VECTOR_TYPES(T, NAME, align1, align2, align4)              \
  struct __attribute__((aligned(align1))) NAME##1 { T x; };                    \
  struct __attribute__((aligned(align2))) NAME##2 { T x, y; };                 \
  struct NAME##3 { T x, y, z; };                                               \
  struct __attribute__((aligned(align4))) NAME##4 { T x, y, z, w; };           \
  typedef struct NAME##1 NAME##1;                                              \
  typedef struct NAME##2 NAME##2;                                              \
  typedef struct NAME##3 NAME##3;                                              \
  typedef struct NAME##4 NAME##4;                                              \
  static __inline__ __host__ __device__ NAME##1 make_##NAME##1(T x) {          \
    NAME##1 t; t.x = x; return t;                                              \
  }                                                                            \
  static __inline__ __host__ __device__ NAME##2 make_##NAME##2(T x, T y) {     \
    NAME##2 t; t.x = x; t.y = y; return t;                                     \
  }                                                                            \
  static __inline__ __host__ __device__ NAME##3 make_##NAME##3(T x, T y,       \
                                                               T z) {          \
    NAME##3 t; t.x = x; t.y = y; t.z = z; return t;                            \
  }                                                                            \
  static __inline__ __host__ __device__ NAME##4 make_##NAME##4(T x, T y, T z,  \
                                                               T w) {          \
    NAME##4 t; t.x = x; t.y = y; t.z = z; t.w = w; return t;                   \
  }

__WARPCHECK_VECTOR_TYPES(signed char, char, 1, 2, 4)
__WARPCHECK_VECTOR_TYPES(unsigned char, uchar, 1, 2, 4)
__WARPCHECK_VECTOR_TYPES(short, short, 2, 4, 8)
__WARPCHECK_VECTOR_TYPES(unsigned short, ushort, 2, 4, 8)
__WARPCHECK_VECTOR_TYPES(int, int, 4, 8, 16)
__WARPCHECK_VECTOR_TYPES(unsigned int, uint, 4, 8, 16)
__WARPCHECK_VECTOR_TYPES(long, long, 8, 16, 16)
__WARPCHECK_VECTOR_TYPES(unsigned long, ulong, 8, 16, 16)
__WARPCHECK_VECTOR_TYPES(long long, longlong, 8, 16, 16)
__WARPCHECK_VECTOR_TYPES(unsigned long long, ulonglong, 8, 16, 16)
__WARPCHECK_VECTOR_TYPES(float, float, 4, 8, 16)
__WARPCHECK_VECTOR_TYPES(double, double, 8, 16, 16)

#undef __WARPCHECK_VECTOR_TYPES

/* dim3: a uint3 whose components default to 1, used for launch geometry. */
struct dim3 {
  unsigned int x, y, z;
#if defined(__cplusplus)
  __host__ __device__ constexpr dim3(unsigned int vx = 1, unsigned int vy = 1,
                                     unsigned int vz = 1)
      : x(vx), y(vy), z(vz) {}
  __host__ __device__ constexpr dim3(uint3 v) : x(v.x), y(v.y), z(v.z) {}
  __host__ __device__ constexpr operator uint3() const { return uint3{x, y, z}; }
#endif
};
typedef struct dim3 dim3;

#endif /* WARPCHECK_VECTOR_TYPES_H */
