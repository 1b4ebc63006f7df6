#include "common.h"
struct __attribute__((aligned(16))) float4_ { float x, y, z, w; };
__global__ void asmKernel(const float4_ *in, float *out, int *flags, unsigned long long *times) {
  float4_ v = in[threadIdx.x];
  float r;
  asm volatile("{\n\t.reg .pred p;\n\tsetp.gt.f32 p, %1, 0f00000000;\n\tselp.f32 %0, %1, %2, p;\n\t}" : "=f"(r) : "f"(v.x), "f"(v.y));
  float a, b, c, d;
  asm volatile("ld.global.nc.v4.f32 {%0, %1, %2, %3}, [%4];" : "=f"(a), "=f"(b), "=f"(c), "=f"(d) : "l"(in + 1));
  int lane, pred;
  asm volatile("{\n\t.reg .pred p1;\n\tshfl.sync.down.b32 %0|p1, %2, 1, 31, -1;\n\tselp.b32 %1, 1, 0, p1;\n\t}" : "=r"(lane), "=r"(pred) : "r"(flags[threadIdx.x]));
  unsigned long long t0;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t0));
  times[threadIdx.x] = t0;
  unsigned lo, hi;
  asm("mov.b64 {%0, %1}, %2;" : "=r"(lo), "=r"(hi) : "l"(t0));
  asm volatile("atom.global.add.u32 %0, [%1], 1;" : "=r"(lane) : "l"(flags));
  asm volatile("red.global.add.u32 [%0+4], %1;" :: "l"(flags), "r"(lo));
  asm volatile("{\n\t.reg .pred q;\n\tsetp.ne.u32 q, %0, 0;\n\t@!q bra.uni DONE%=;\n\tDONE%=:\n\t}" :: "r"(lo));
  out[threadIdx.x] = r + a + b + c + d + lane + pred + hi;
}
