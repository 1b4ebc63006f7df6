#include "common.h"
struct Pair { int a; double b; };
__device__ __noinline__ double combine(Pair p, int scale) { return p.a * scale + p.b; }
__device__ __noinline__ void report(int x) {}
__device__ float twice(float x) { return 2 * x; }
__device__ float thrice(float x) { return 3 * x; }
typedef float (*unary_fn)(float);
__device__ unary_fn table_of_fns[2] = {twice, thrice};
__global__ void callKernel(double *out, float *fout, int sel, int n) {
  Pair p = {sel, 1.5};
  out[threadIdx.x] = combine(p, n);
  struct { int x; double y; } args = {sel, out[0]};
  vprintf("sel=%d y=%f\n", &args);
  fout[threadIdx.x] = table_of_fns[sel & 1](fout[threadIdx.x]);
  report(sel);
  switch (sel) {
  case 0: fout[1] = twice(fout[4]); break;
  case 1: report(11); break;
  case 2: fout[3] = thrice(fout[6]) * fout[8]; break;
  case 3: fout[5] = out[sel] + 1; report(2); break;
  case 4: fout[7] -= 14; break;
  case 5: report(fout[9] = 17); break;
  case 6: out[9] = out[3] / 5; break;
  default: break;
  }
}
