/* warpcheck fallback for the old CUDA SDK's <cutil.h>: checking macros and timers, declared
 * for host code to parse (see README.h). */
#ifndef WARPCHECK_FALLBACK_CUTIL_H
#define WARPCHECK_FALLBACK_CUTIL_H
#include <stdio.h>
#include <stdlib.h>
#include <cuda_runtime.h>
typedef enum CUTBoolean { CUTFalse = 0, CUTTrue = 1 } CUTBoolean;
void __warpcheck_cutil_check(cudaError_t result, const char *expression, const char *file, int line);
void __warpcheck_cutil_check_message(const char *message, const char *file, int line);
#define CUDA_SAFE_CALL(call) __warpcheck_cutil_check((call), #call, __FILE__, __LINE__)
#define CUDA_SAFE_CALL_NO_SYNC(call) __warpcheck_cutil_check((call), #call, __FILE__, __LINE__)
#define CUT_SAFE_CALL(call) ((void)(call))
#define CUT_CHECK_ERROR(message) __warpcheck_cutil_check_message(message, __FILE__, __LINE__)
#define CUT_DEVICE_INIT(argc, argv) ((void)(argc), (void)(argv))
#define CUT_DEVICE_INIT_DRV(device, argc, argv) ((void)(device), (void)(argc), (void)(argv))
#define CUT_DEVICE_SYNCHRONIZE() cudaDeviceSynchronize()
#define CUT_DEVICE_RESET() cudaDeviceReset()
#define CUT_EXIT(argc, argv) exit(0)
#define CUT_BANK_CHECKER(array, index) array[index]
#define cutilSafeCall(call) __warpcheck_cutil_check((call), #call, __FILE__, __LINE__)
#define cutilSafeCallNoSync(call) __warpcheck_cutil_check((call), #call, __FILE__, __LINE__)
#define cutilCheckMsg(message) __warpcheck_cutil_check_message(message, __FILE__, __LINE__)
#define cutilSafeMalloc(call) (call)
#define cutilCheckError(call) ((void)(call))
CUTBoolean cutCreateTimer(unsigned int *name);
CUTBoolean cutDeleteTimer(unsigned int name);
CUTBoolean cutStartTimer(const unsigned int name);
CUTBoolean cutStopTimer(const unsigned int name);
CUTBoolean cutResetTimer(const unsigned int name);
float cutGetTimerValue(const unsigned int name);
float cutGetAverageTimerValue(const unsigned int name);
void cutFree(void *pointer);
CUTBoolean cutCheckCmdLineFlag(const int argc, const char **argv, const char *flag_name);
CUTBoolean cutGetCmdLineArgumenti(const int argc, const char **argv, const char *arg_name, int *val);
CUTBoolean cutGetCmdLineArgumentf(const int argc, const char **argv, const char *arg_name, float *val);
CUTBoolean cutGetCmdLineArgumentstr(const int argc, const char **argv, const char *arg_name, char **val);
char *cutFindFilePath(const char *filename, const char *executablePath);
CUTBoolean cutReadFilef(const char *filename, float **data, unsigned int *len, bool verbose = false);
CUTBoolean cutReadFilei(const char *filename, int **data, unsigned int *len, bool verbose = false);
CUTBoolean cutReadFileui(const char *filename, unsigned int **data, unsigned int *len, bool verbose = false);
CUTBoolean cutWriteFilef(const char *filename, const float *data, unsigned int len, const float epsilon, bool verbose = false);
CUTBoolean cutWriteFiled(const char *filename, const double *data, unsigned int len, const double epsilon, bool verbose = false);
CUTBoolean cutWriteFilei(const char *filename, const int *data, unsigned int len, bool verbose = false);
CUTBoolean cutWriteFileui(const char *filename, const unsigned int *data, unsigned int len, bool verbose = false);
CUTBoolean cutWriteFileub(const char *filename, const unsigned char *data, unsigned int len, bool verbose = false);
CUTBoolean cutComparef(const float *reference, const float *data, const unsigned int len);
CUTBoolean cutComparei(const int *reference, const int *data, const unsigned int len);
CUTBoolean cutCompareL2fe(const float *reference, const float *data, const unsigned int len, const float epsilon);
CUTBoolean cutCheckCondition(int value, const char *file, const int line);
#endif
