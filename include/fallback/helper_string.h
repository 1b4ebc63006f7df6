/* warpcheck fallback for the CUDA samples' <helper_string.h>: command-line and path helpers,
 * declared for host code to parse (see README.h). */
#ifndef WARPCHECK_FALLBACK_HELPER_STRING_H
#define WARPCHECK_FALLBACK_HELPER_STRING_H
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
int stringRemoveDelimiter(char delimiter, const char *string);
int getFileExtension(char *filename, char **extension);
bool checkCmdLineFlag(const int argc, const char **argv, const char *string_ref);
int getCmdLineArgumentInt(const int argc, const char **argv, const char *string_ref);
float getCmdLineArgumentFloat(const int argc, const char **argv, const char *string_ref);
bool getCmdLineArgumentString(const int argc, const char **argv, const char *string_ref, char **string_retval);
char *sdkFindFilePath(const char *filename, const char *executable_path);
#endif
