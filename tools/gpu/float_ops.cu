// f32 arithmetic in every rounding mode, .sat, rint, narrowing and conversions on 4096 input
// triples (normals, subnormals, zeros, infinities, NaNs, arbitrary bits): one line per
// op and input, `OP INDEX A B C RESULT` in hex. tools/gpu/float_ops.sh runs it on the GPU;
// crates/cli/tests/it/float_ops.rs runs it under `warpcheck run` and compares.
#include <cstdio>
#include <cuda_runtime.h>
#define N 4096
#define OPS 34
__global__ void ops(const float *a, const float *b, const float *c, unsigned *o) {
  unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= N) return;
  float x = a[i], y = b[i], z = c[i];
  double dx = (double)x * 1.0000001, dy = (double)y;
  unsigned r[OPS];
  r[0] = __float_as_uint(__fadd_rn(x, y)); r[1] = __float_as_uint(__fadd_rz(x, y));
  r[2] = __float_as_uint(__fadd_ru(x, y)); r[3] = __float_as_uint(__fadd_rd(x, y));
  r[4] = __float_as_uint(__fmul_rn(x, y)); r[5] = __float_as_uint(__fmul_rz(x, y));
  r[6] = __float_as_uint(__fmul_ru(x, y)); r[7] = __float_as_uint(__fmul_rd(x, y));
  r[8] = __float_as_uint(__fdiv_rn(x, y)); r[9] = __float_as_uint(__fdiv_rz(x, y));
  r[10] = __float_as_uint(__fdiv_ru(x, y)); r[11] = __float_as_uint(__fdiv_rd(x, y));
  r[12] = __float_as_uint(__fmaf_rn(x, y, z)); r[13] = __float_as_uint(__fmaf_rz(x, y, z));
  r[14] = __float_as_uint(__fmaf_ru(x, y, z)); r[15] = __float_as_uint(__fmaf_rd(x, y, z));
  r[16] = __float_as_uint(__fsqrt_rn(x)); r[17] = __float_as_uint(__fsqrt_rz(x));
  r[18] = __float_as_uint(__fsqrt_ru(x)); r[19] = __float_as_uint(__fsqrt_rd(x));
  r[20] = __float_as_uint(__frcp_rn(x)); r[21] = __float_as_uint(__frcp_rz(x));
  r[22] = __float_as_uint(__frcp_ru(x)); r[23] = __float_as_uint(__frcp_rd(x));
  r[24] = __float_as_uint(__saturatef(x)); r[25] = __float_as_uint(rintf(x));
  r[26] = __float_as_uint(__double2float_rn(dx * dy)); r[27] = __float_as_uint(__double2float_rz(dx * dy));
  r[28] = __float_as_uint(__double2float_ru(dx * dy)); r[29] = __float_as_uint(__double2float_rd(dx * dy));
  r[30] = __float_as_uint(fminf(x, y)); r[31] = __float_as_uint(fmaxf(x, y));
  r[32] = (unsigned)__float2int_rd(x); r[33] = (unsigned)__float2uint_rz(x);
  for (int k = 0; k < OPS; ++k) o[k * N + i] = r[k];
}
static unsigned h(unsigned x) { x ^= x >> 16; x *= 0x7feb352du; x ^= x >> 15; x *= 0x846ca68bu; x ^= x >> 16; return x; }
static unsigned inf(unsigned i, unsigned s) {
  static const unsigned e[10] = {0x00000000u, 0x80000000u, 0x7f800000u, 0xff800000u, 0x7fc00000u,
                                 0x00000001u, 0x807fffffu, 0x7f7fffffu, 0x3f800000u, 0xbf800000u};
  unsigned hh = h(h(i * 0x85ebca6bu ^ s)), r = h(hh);
  switch (hh & 15u) {
  case 0: return e[(hh >> 8) % 10u];
  case 1: return r;
  case 2: return r & 0x807fffffu;  // subnormals
  default: return (r & 0x80000000u) | ((112u + (hh >> 24) % 32u) << 23) | (r & 0x7fffffu);
  }
}
static unsigned ha[N], hb[N], hc[N], ho[OPS * N];
int main() {
  for (unsigned i = 0; i < N; ++i) { ha[i] = inf(i, 1); hb[i] = inf(i, 2); hc[i] = inf(i, 3); }
  float *a, *b, *c; unsigned *o;
  cudaMalloc(&a, sizeof ha); cudaMalloc(&b, sizeof hb); cudaMalloc(&c, sizeof hc); cudaMalloc(&o, sizeof ho);
  cudaMemcpy(a, ha, sizeof ha, cudaMemcpyHostToDevice); cudaMemcpy(b, hb, sizeof hb, cudaMemcpyHostToDevice);
  cudaMemcpy(c, hc, sizeof hc, cudaMemcpyHostToDevice);
  ops<<<N / 128, 128>>>(a, b, c, o);
  cudaMemcpy(ho, o, sizeof ho, cudaMemcpyDeviceToHost);
  for (unsigned k = 0; k < OPS; ++k) for (unsigned i = 0; i < N; ++i) printf("%u %u %08x %08x %08x %08x\n", k, i, ha[i], hb[i], hc[i], ho[k * N + i]);
  return 0;
}
