/*
 * warpcheck shim for <library_types.h>: the data types that the CUDA math
 * libraries (cuBLAS, cuBLASLt) take as arguments, with the enumerator values
 * of NVIDIA's documentation.
 */
#ifndef WARPCHECK_LIBRARY_TYPES_H
#define WARPCHECK_LIBRARY_TYPES_H
#define __LIBRARY_TYPES_H__ /* CUDA's include guard */

/* The element type of a matrix or vector: R_ real, C_ complex; 16F is IEEE
 * half precision, 16BF bfloat16. warpcheck's cuBLAS computes with CUDA_R_32F,
 * CUDA_R_64F, CUDA_R_16F and CUDA_R_16BF. */
typedef enum cudaDataType_t {
  CUDA_R_32F = 0,
  CUDA_R_64F = 1,
  CUDA_R_16F = 2,
  CUDA_R_8I = 3,
  CUDA_C_32F = 4,
  CUDA_C_64F = 5,
  CUDA_C_16F = 6,
  CUDA_C_8I = 7,
  CUDA_R_8U = 8,
  CUDA_C_8U = 9,
  CUDA_R_32I = 10,
  CUDA_C_32I = 11,
  CUDA_R_32U = 12,
  CUDA_C_32U = 13,
  CUDA_R_16BF = 14,
  CUDA_C_16BF = 15
} cudaDataType;
/* Both names are in use; C needs the typedef for the tag's name too. */
typedef enum cudaDataType_t cudaDataType_t;

typedef enum libraryPropertyType_t {
  MAJOR_VERSION = 0,
  MINOR_VERSION = 1,
  PATCH_LEVEL = 2
} libraryPropertyType;
typedef enum libraryPropertyType_t libraryPropertyType_t;

#endif
