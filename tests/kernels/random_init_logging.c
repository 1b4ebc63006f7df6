// Initialisation loop that calls rand() and writes a log file
// Each iteration draws a random number with rand() (hidden global generator state, so
// iterations depend on each other through it) and may fprintf() to a FILE opened with
// fopen() before the loop. Neither function exists on the GPU, and the loop order
// matters for both. A correct advisor rejects the loop and names the calls.
//
// warpcheck-advise: --function init_and_log --values n=65536
// warpcheck-expect-advice: parallel: no (`calls fprintf() and rand(), which are not on the device white-list`; `rand() carries hidden generator state from one iteration to the next`; the file is opened with fopen() outside the loop)
// warpcheck-expect-advice: calls: `fprintf, rand (in the loop)`
// warpcheck-expect-advice: calls outside the loops: `fopen, fclose`
// warpcheck-expect-advice: outbound: `v [0, 4·n - 4] bytes`
// warpcheck-expect-advice: mapping: `none as written`; replace `rand: a counter-based generator per element (e.g. cuRAND Philox with subsequence i)`; `fprintf: collect what to log in a device array that the host writes after the kernel`

#include <stdio.h>
#include <stdlib.h>

int init_and_log(float* v, int n, const char* path)
{
    FILE* log = fopen(path, "w");
    if (!log) {
        return -1;
    }
    for (int i = 0; i < n; i++) {
        v[i] = (float)rand() / (float)RAND_MAX;
        if (v[i] > 0.999f) {
            fprintf(log, "outlier at %d: %f\n", i, v[i]);
        }
    }
    fclose(log);
    return 0;
}
