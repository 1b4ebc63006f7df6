// Out-of-place transpose of a rows x cols matrix, and a loop that writes to a FILE *
// The transpose writes out[j*rows + i]: for the outer loop i the stride is 4 bytes, and a
// row of out is rows elements long, longer than all of i's range, so two iterations of i
// never write the same element (a delinearised 2-D index). The nest is parallel. The
// second function prints with fprintf on a FILE *, whose struct points at itself
// (`_chain`); it is not parallel (a call outside the device white-list) and the
// advisor must say so and finish.
//
// warpcheck-advise: --function transpose --values rows=64,cols=48
// warpcheck-expect-advice: parallel: yes (`2-D nest i, j`; no loop-carried dependencies)
// warpcheck-expect-advice: outbound: `out [0, 4·cols·rows - 4] bytes`

#include <stdio.h>

void transpose(float *out, const float *in, int rows, int cols) {
  for (int i = 0; i < rows; i++)
    for (int j = 0; j < cols; j++)
      out[j * rows + i] = in[i * cols + j];
}

void dump(FILE *f, const float *a, int n) {
  for (int i = 0; i < n; i++) {
    fprintf(f, "%f\n", a[i]);
  }
}
