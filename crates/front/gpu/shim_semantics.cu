// Device-function semantics, compared on a real GPU between the PTX that clang produces
// with warpcheck's shims and the PTX that nvcc produces with the real CUDA headers.
// Every kernel thread writes RESULTS 32-bit words; both builds must write the same words.
// Only functions that lower to PTX instructions are used (no libdevice calls, which a
// PTX loaded alone could not resolve). See check_shims.sh.
#include <cuda_fp16.h>
#include <cooperative_groups.h>
#include <cooperative_groups/reduce.h>
#include <cooperative_groups/scan.h>
namespace cg = cooperative_groups;

#define RESULTS 96

__device__ __forceinline__ unsigned mix(unsigned x) {
  x ^= x >> 16; x *= 0x7feb352dU; x ^= x >> 15; x *= 0x846ca68bU; x ^= x >> 16;
  return x;
}
__device__ __forceinline__ unsigned bits(float f) { return __float_as_uint(f); }

extern "C" __global__ void semantics(unsigned *out, const unsigned *in, float *fsum, unsigned *counters) {
  __shared__ unsigned shared_counter;
  __shared__ unsigned shared_inc;
  const unsigned t = threadIdx.x;
  if (t == 0) { shared_counter = 0; shared_inc = 0; }
  __syncthreads();
  unsigned *o = out + (blockIdx.x * blockDim.x + t) * RESULTS;
  const unsigned x = mix(t + 1), y = mix(t + 1000);
  const int xi = (int)x, yi = (int)y;
  // A float in [-8, 8) with a fractional part, and one in [1, 9).
  const float f = (float)(int)(x % 16384u) / 1024.0f - 8.0f + 0.3f;
  const float g = (float)(y % 8192u) / 1024.0f + 1.0f;
  const double d = (double)f * 1.000001;
  int k = 0;
  // Integer intrinsics.
  o[k++] = __popc(x);
  o[k++] = __clz(xi >> (t % 31));
  o[k++] = __brev(x);
  o[k++] = __ffs(xi & ~((1 << (t % 31)) - 1));
  o[k++] = __byte_perm(x, y, 0x5140u + t);
  o[k++] = __funnelshift_l(x, y, t);
  o[k++] = __funnelshift_rc(x, y, t + 20);
  o[k++] = __sad(xi, yi, 3u);
  o[k++] = __mul24(xi, yi);
  o[k++] = __mulhi(xi, yi);
  o[k++] = __umulhi(x, y);
  o[k++] = (unsigned)__mul64hi(((long long)xi << 20) ^ yi, (long long)yi * 977);
  o[k++] = __hadd(xi, yi);
  o[k++] = __rhadd(xi, yi);
  o[k++] = __usad(x, y, 7u);
  o[k++] = __brevll(((unsigned long long)x << 32) | y) >> 7;
  o[k++] = __popcll(((unsigned long long)x << 32) | y);
  o[k++] = __clzll((long long)(((unsigned long long)x << 32) | y) >> (t % 63));
  o[k++] = (unsigned)__dp4a(xi, yi, 5);
  o[k++] = max(-1, 2u) + min(3, (int)t) * 7 + umax(x, y) % 1000;
  // Fast and rounding-mode float intrinsics.
  o[k++] = bits(__expf(f));
  o[k++] = bits(__logf(g));
  o[k++] = bits(__sinf(f));
  o[k++] = bits(__cosf(f));
  o[k++] = bits(__fdividef(f, g));
  o[k++] = bits(__saturatef(f / 8.0f));
  o[k++] = bits(__powf(g, 1.5f));
  o[k++] = bits(__exp10f(f / 4.0f));
  o[k++] = bits(__log2f(g));
  o[k++] = bits(__fadd_rz(f, g * 1e-3f));
  o[k++] = bits(__fmul_ru(f, g));
  o[k++] = bits(__fdiv_rd(f, g));
  o[k++] = bits(__frcp_rn(g));
  o[k++] = bits(__fsqrt_ru(g));
  o[k++] = bits(__fmaf_rz(f, g, 0.1f));
  o[k++] = bits(__double2float_rn(d));
  o[k++] = bits(__int2float_rd(xi));
  o[k++] = bits(__uint2float_ru(x));
  o[k++] = (unsigned)__float2int_rn(f * 100.0f);
  o[k++] = (unsigned)__float2int_rz(f * 100.0f);
  o[k++] = __float2uint_ru(g * 100.0f);
  o[k++] = (unsigned)__float2ll_rd(f * 1e6f);
  o[k++] = (unsigned)__double2int_rn(d * 1e5);
  o[k++] = (unsigned)__double2hiint(d);
  o[k++] = (unsigned)__double2loint(d);
  // Math that is one instruction.
  o[k++] = bits(sqrtf(g));
  o[k++] = bits(rsqrtf(g));
  o[k++] = bits(fmaf(f, g, 0.25f));
  o[k++] = bits(fminf(f, 0.5f));
  o[k++] = bits(fmaxf(f, -0.5f));
  o[k++] = bits(floorf(f));
  o[k++] = bits(ceilf(f));
  o[k++] = bits(truncf(f));
  o[k++] = bits(roundf(f * 2.0f));
  o[k++] = bits(rintf(f * 2.0f));
  o[k++] = bits(fabsf(f));
  o[k++] = bits(copysignf(g, f));
  o[k++] = bits((float)sqrt(d));
  o[k++] = bits((float)fma(d, d, 1.0));
  // Half precision.
  const __half a = __float2half(f), b = __float2half(g);
  o[k++] = __half_as_ushort(a);
  o[k++] = bits(__half2float(__hadd(a, b)));
  o[k++] = __half_as_ushort(__hfma(a, b, a));
  o[k++] = __half_as_ushort(__hmul(a, b));
  o[k++] = __half_as_ushort(__hsub(a, b));
  const __half2 p = __floats2half2_rn(f, g), q = __halves2half2(b, a);
  const __half2 s = __hadd2(p, q);
  o[k++] = __half_as_ushort(s.x) | ((unsigned)__half_as_ushort(s.y) << 16);
  o[k++] = __half_as_ushort(__int2half_rn(xi % 100000));
  o[k++] = (unsigned)__half2int_rz(a);
  // Warp functions.
  o[k++] = __shfl_sync(0xffffffffu, x, (t * 7) % 32);
  o[k++] = __shfl_up_sync(0xffffffffu, x, 3);
  o[k++] = __shfl_down_sync(0xffffffffu, x, 5, 16);
  o[k++] = __shfl_xor_sync(0xffffffffu, x, 6);
  o[k++] = bits(__shfl_down_sync(0xffffffffu, f, 2));
  o[k++] = (unsigned)(__shfl_xor_sync(0xffffffffu, ((long long)x << 32) | y, 9) >> 16);
  o[k++] = __ballot_sync(0xffffffffu, x & 1);
  o[k++] = __any_sync(0xffffffffu, x % 97 == 0) * 2 + __all_sync(0xffffffffu, x != 0);
  o[k++] = __match_any_sync(0xffffffffu, x % 4);
  o[k++] = __reduce_add_sync(0xffffffffu, x % 1000);
  o[k++] = __reduce_min_sync(0xffffffffu, x);
  o[k++] = (unsigned)__reduce_max_sync(0xffffffffu, xi);
  o[k++] = __reduce_xor_sync(0xffffffffu, y);
  unsigned active = 0;
  if (t % 3 == 0) active = __activemask();
  o[k++] = active;
  o[k++] = __syncthreads_count(x & 1);
  o[k++] = __syncthreads_and(t < 1000) * 2 + __syncthreads_or(t == 5);
  // Cooperative groups.
  cg::thread_block block = cg::this_thread_block();
  cg::thread_block_tile<8> tile8 = cg::tiled_partition<8>(block);
  cg::thread_block_tile<16> tile16 = cg::tiled_partition<16>(block);
  o[k++] = tile8.shfl_down(x, 1);
  o[k++] = tile8.ballot(x & 2);
  o[k++] = cg::reduce(tile16, x % 5000, cg::plus<unsigned>());
  o[k++] = cg::inclusive_scan(tile8, x % 100);
  o[k++] = cg::exclusive_scan(tile8, x % 100);
  o[k++] = tile8.meta_group_rank() * 100 + tile8.thread_rank() * 10 + block.thread_rank() % 10;
  // Atomics with order-independent final values.
  atomicAdd(&shared_counter, x % 1000);
  atomicInc(&shared_inc, 9u);
  atomicAdd(fsum, (float)(t % 7));
  atomicMax(&counters[0], x);
  atomicMin(&counters[1], x);
  atomicOr(&counters[2], 1u << (t % 32));
  atomicAdd((unsigned long long *)&counters[4], (unsigned long long)x);
  __syncthreads();
  o[k++] = shared_counter;
  o[k++] = shared_inc;
  o[k++] = __ldg(&in[t]);
  o[k++] = k; // the number of results written, as a check of the layout
}
