// Prints, as TSV, what a real GPU computes for the bf16 and FP8 conversions and the bf16
// arithmetic the emulator executes, on a fixed set of inputs (edge cases: zeros, NaNs,
// infinities, subnormals, rounding ties, saturation; then deterministic pseudo-random bit
// patterns). crates/emu/tests/it/bf16_truth.rs runs the same rows in the emulator.
//
// Output: a header comment, then one row per (instruction, inputs):
//   op <TAB> signature <TAB> a <TAB> b <TAB> c <TAB> d
// `op` is the PTX instruction as written; `signature` is `D:S,S,...` with `h` for a 16-bit
// and `r` for a 32-bit operand; a, b, c are the source bit patterns and d the result, as
// 8-digit hex (16-bit values zero-extended); unused sources are `-`.
//
// Build and run (needs sm_90 for the FP8 and `.rn.bf16` forms):
//   nvcc -O2 -arch=sm_90 -o new_instructions tools/gpu/new_instructions.cu && ./new_instructions
#include <cstdio>
#include <cstdint>
#include <vector>
#include <cuda_runtime.h>

#define CHECK(x) do { cudaError_t e = (x); if (e != cudaSuccess) { \
  fprintf(stderr, "%s: %s\n", #x, cudaGetErrorString(e)); exit(1); } } while (0)

// One kernel per instruction; `a`, `b`, `c`, `d` are 32-bit slots per row.
#define H1(NAME, INS) __global__ void NAME(const uint32_t* a, const uint32_t* b, const uint32_t* c, uint32_t* d, int n) { \
  int i = blockIdx.x * blockDim.x + threadIdx.x; if (i >= n) return; (void)b; (void)c;
#define END }

// d:h a:r
#define K_H_R(NAME, INS) H1(NAME, INS) unsigned short r; asm(INS " %0, %1;" : "=h"(r) : "r"(a[i])); d[i] = r; END
#define K_H_RR(NAME, INS) H1(NAME, INS) unsigned short r; asm(INS " %0, %1, %2;" : "=h"(r) : "r"(a[i]), "r"(b[i])); d[i] = r; END
#define K_R_RR(NAME, INS) H1(NAME, INS) uint32_t r; asm(INS " %0, %1, %2;" : "=r"(r) : "r"(a[i]), "r"(b[i])); d[i] = r; END
#define K_R_RRR(NAME, INS) H1(NAME, INS) uint32_t r; asm(INS " %0, %1, %2, %3;" : "=r"(r) : "r"(a[i]), "r"(b[i]), "r"(c[i])); d[i] = r; END
#define K_R_H(NAME, INS) H1(NAME, INS) uint32_t r; asm(INS " %0, %1;" : "=r"(r) : "h"((unsigned short)a[i])); d[i] = r; END
#define K_H_HH(NAME, INS) H1(NAME, INS) unsigned short r; asm(INS " %0, %1, %2;" : "=h"(r) : "h"((unsigned short)a[i]), "h"((unsigned short)b[i])); d[i] = r; END
#define K_H_HHH(NAME, INS) H1(NAME, INS) unsigned short r; asm(INS " %0, %1, %2, %3;" : "=h"(r) : "h"((unsigned short)a[i]), "h"((unsigned short)b[i]), "h"((unsigned short)c[i])); d[i] = r; END

K_H_R(k_bf16_rn, "cvt.rn.bf16.f32")
K_H_R(k_bf16_rz, "cvt.rz.bf16.f32")
K_H_R(k_bf16_rn_relu, "cvt.rn.relu.bf16.f32")
K_R_RR(k_bf16x2, "cvt.rn.bf16x2.f32")
K_R_H(k_f32_bf16, "cvt.f32.bf16")
K_H_RR(k_e4m3_f32, "cvt.rn.satfinite.e4m3x2.f32")
K_H_RR(k_e5m2_f32, "cvt.rn.satfinite.e5m2x2.f32")
K_H_RR(k_e4m3_f32_relu, "cvt.rn.satfinite.relu.e4m3x2.f32")
K_H_R(k_e4m3_f16x2, "cvt.rn.satfinite.e4m3x2.f16x2")
K_H_R(k_e5m2_f16x2, "cvt.rn.satfinite.e5m2x2.f16x2")
K_R_H(k_f16x2_e4m3, "cvt.rn.f16x2.e4m3x2")
K_R_H(k_f16x2_e5m2, "cvt.rn.f16x2.e5m2x2")
K_H_HH(k_add_bf16, "add.rn.bf16")
K_H_HH(k_add_bf16_plain, "add.bf16")
K_H_HH(k_sub_bf16, "sub.rn.bf16")
K_H_HH(k_mul_bf16, "mul.rn.bf16")
K_H_HHH(k_fma_bf16, "fma.rn.bf16")
K_R_RR(k_add_bf16x2, "add.rn.bf16x2")
K_R_RR(k_mul_bf16x2, "mul.rn.bf16x2")
K_R_RRR(k_fma_bf16x2, "fma.rn.bf16x2")

typedef void (*Kernel)(const uint32_t*, const uint32_t*, const uint32_t*, uint32_t*, int);

static uint32_t rng_state = 0x2545F491u;
static uint32_t rnd() {  // xorshift32
  uint32_t x = rng_state;
  x ^= x << 13; x ^= x >> 17; x ^= x << 5;
  return rng_state = x;
}

// f32 bit patterns: zeros, ones, NaNs (quiet, signalling, negative), infinities, f32
// subnormals and the smallest normal, bf16 rounding ties and near-ties, the bf16 overflow
// threshold, FP8 MAX_NORMs, their rounding midpoints and values past them, FP8 subnormals.
static const uint32_t F32_EDGE[] = {
  0x00000000, 0x80000000, 0x3f800000, 0xbf800000, 0x7fc00000, 0x7f800001, 0xffc00001,
  0x7f800000, 0xff800000, 0x00000001, 0x80000001, 0x00400000, 0x007fffff, 0x00800000,
  0x3f808000, 0x3f818000, 0x3f808001, 0x3f807fff, 0xbf808000, 0x7f7f8000, 0x7f7f7fff,
  0x7f7fffff, 0xff7fffff, 0x43e00000, 0x43e80000, 0x43e80001, 0x43f00000, 0xc3e80000,
  0x47600000, 0x47700000, 0x476fffff, 0x47800000, 0x3b000000, 0x3ac00000, 0x3a800000,
  0x3a800001, 0x37800000, 0x37c00000, 0x37000000, 0x3c700000, 0x3f880000, 0x3f980000,
  0x40400000, 0xc0a00000, 0x3dcccccd, 0x42f60000, 0x00010000, 0x00018000,
};
// bf16 bit patterns: zeros, one, smallest subnormal, largest subnormal, smallest normal,
// max, infinities, NaNs, and ordinary values.
static const uint16_t BF16_EDGE[] = {
  0x0000, 0x8000, 0x3f80, 0xbf80, 0x0001, 0x8001, 0x007f, 0x0080, 0x7f7f, 0xff7f,
  0x7f80, 0xff80, 0x7fc0, 0x7f81, 0x3f81, 0x4040, 0xc0a0, 0x3dcd, 0x4b80, 0x3380,
};
// f16 bit patterns for f16 -> FP8: zeros, NaN, infinities, FP8 ties and saturation points.
static const uint16_t F16_EDGE[] = {
  0x0000, 0x8000, 0x3c00, 0xbc00, 0x7e00, 0x7c00, 0xfc00, 0x0001, 0x3c40, 0x3cc0,
  0x3c41, 0x5f00, 0x5f40, 0x5f41, 0x5f80, 0x7b00, 0x7b80, 0x7bff, 0x7a00, 0x1800,
  0x1c00, 0x1a00, 0x1600, 0x0400, 0x2000, 0x2400, 0xdf00, 0x4248,
};
#define LEN(x) (int)(sizeof(x) / sizeof((x)[0]))

struct Rows { std::vector<uint32_t> a, b, c; };

static void run(const char* op, const char* sig, Kernel k, const Rows& rows, int nsrc) {
  int n = (int)rows.a.size();
  uint32_t *da, *db, *dc, *dd;
  size_t bytes = n * sizeof(uint32_t);
  CHECK(cudaMalloc(&da, bytes)); CHECK(cudaMalloc(&db, bytes));
  CHECK(cudaMalloc(&dc, bytes)); CHECK(cudaMalloc(&dd, bytes));
  std::vector<uint32_t> zeros(n, 0), out(n);
  CHECK(cudaMemcpy(da, rows.a.data(), bytes, cudaMemcpyHostToDevice));
  CHECK(cudaMemcpy(db, nsrc > 1 ? rows.b.data() : zeros.data(), bytes, cudaMemcpyHostToDevice));
  CHECK(cudaMemcpy(dc, nsrc > 2 ? rows.c.data() : zeros.data(), bytes, cudaMemcpyHostToDevice));
  k<<<(n + 127) / 128, 128>>>(da, db, dc, dd, n);
  CHECK(cudaGetLastError());
  CHECK(cudaMemcpy(out.data(), dd, bytes, cudaMemcpyDeviceToHost));
  for (int i = 0; i < n; i++) {
    printf("%s\t%s\t%08x", op, sig, rows.a[i]);
    if (nsrc > 1) printf("\t%08x", rows.b[i]); else printf("\t-");
    if (nsrc > 2) printf("\t%08x", rows.c[i]); else printf("\t-");
    printf("\t%08x\n", out[i]);
  }
  cudaFree(da); cudaFree(db); cudaFree(dc); cudaFree(dd);
}

// f32 rows: every edge value (paired with the edge list reversed), then 64 random patterns.
static Rows f32_rows() {
  Rows r;
  for (int i = 0; i < LEN(F32_EDGE); i++) {
    r.a.push_back(F32_EDGE[i]);
    r.b.push_back(F32_EDGE[LEN(F32_EDGE) - 1 - i]);
  }
  for (int i = 0; i < 64; i++) { r.a.push_back(rnd()); r.b.push_back(rnd()); }
  // Random values in the FP8 range, where the rounding matters most.
  for (int i = 0; i < 64; i++) {
    r.a.push_back(0x3a000000u + rnd() % 0x0a000000u);
    r.b.push_back((rnd() & 0x80000000u) | (0x3a000000u + rnd() % 0x0a000000u));
  }
  return r;
}

// 16-bit rows for FP8 -> f16x2: every byte value in each half.
static Rows fp8_rows() {
  Rows r;
  for (uint32_t i = 0; i < 256; i++) r.a.push_back(i | (((i * 37 + 11) & 255) << 8));
  return r;
}

// f16x2 rows for f16x2 -> FP8: edge halves paired, then random halves.
static Rows f16x2_rows() {
  Rows r;
  for (int i = 0; i < LEN(F16_EDGE); i++)
    for (int j = 0; j < LEN(F16_EDGE); j += 5)
      r.a.push_back(F16_EDGE[i] | ((uint32_t)F16_EDGE[j] << 16));
  for (int i = 0; i < 128; i++) r.a.push_back(rnd());
  return r;
}

// bf16 rows for the arithmetic: all edge pairs (c cycling), then random patterns.
static Rows bf16_rows(bool packed) {
  Rows r;
  int n = LEN(BF16_EDGE);
  for (int i = 0; i < n; i++)
    for (int j = 0; j < n; j++) {
      uint32_t a = BF16_EDGE[i], b = BF16_EDGE[j], c = BF16_EDGE[(i * 3 + j * 7) % n];
      if (packed) { a |= (uint32_t)BF16_EDGE[j] << 16; b |= (uint32_t)BF16_EDGE[(i + j) % n] << 16; c |= (uint32_t)BF16_EDGE[i] << 16; }
      r.a.push_back(a); r.b.push_back(b); r.c.push_back(c);
    }
  uint32_t mask = packed ? 0xffffffffu : 0xffffu;
  for (int i = 0; i < 256; i++) { r.a.push_back(rnd() & mask); r.b.push_back(rnd() & mask); r.c.push_back(rnd() & mask); }
  // Random products with an addend of a much smaller magnitude (exercises the rounding
  // of the exact a*b+c).
  for (int i = 0; i < 128; i++) {
    uint32_t a = 0x3f80 | (rnd() & 0x7f), b = 0x3f80 | (rnd() & 0x807f), c = (rnd() & 0x80ff) | 0x3000;
    if (packed) { a |= a << 16; b |= b << 16; c |= c << 16; }
    r.a.push_back(a); r.b.push_back(b); r.c.push_back(c);
  }
  return r;
}

static Rows bf16_unary_rows() {
  Rows r;
  for (int i = 0; i < LEN(BF16_EDGE); i++) r.a.push_back(BF16_EDGE[i]);
  for (int i = 0; i < 64; i++) r.a.push_back(rnd() & 0xffff);
  return r;
}

int main() {
  printf("# new-instructions truth: op\tsignature\ta\tb\tc\td (hex bit patterns; - = unused)\n");
  Rows f32 = f32_rows(), fp8 = fp8_rows(), f16x2 = f16x2_rows();
  Rows bf = bf16_rows(false), bf2 = bf16_rows(true), bfu = bf16_unary_rows();
  run("cvt.rn.bf16.f32", "h:r", k_bf16_rn, f32, 1);
  run("cvt.rz.bf16.f32", "h:r", k_bf16_rz, f32, 1);
  run("cvt.rn.relu.bf16.f32", "h:r", k_bf16_rn_relu, f32, 1);
  run("cvt.rn.bf16x2.f32", "r:r,r", k_bf16x2, f32, 2);
  run("cvt.f32.bf16", "r:h", k_f32_bf16, bfu, 1);
  run("cvt.rn.satfinite.e4m3x2.f32", "h:r,r", k_e4m3_f32, f32, 2);
  run("cvt.rn.satfinite.e5m2x2.f32", "h:r,r", k_e5m2_f32, f32, 2);
  run("cvt.rn.satfinite.relu.e4m3x2.f32", "h:r,r", k_e4m3_f32_relu, f32, 2);
  run("cvt.rn.satfinite.e4m3x2.f16x2", "h:r", k_e4m3_f16x2, f16x2, 1);
  run("cvt.rn.satfinite.e5m2x2.f16x2", "h:r", k_e5m2_f16x2, f16x2, 1);
  run("cvt.rn.f16x2.e4m3x2", "r:h", k_f16x2_e4m3, fp8, 1);
  run("cvt.rn.f16x2.e5m2x2", "r:h", k_f16x2_e5m2, fp8, 1);
  run("add.rn.bf16", "h:h,h", k_add_bf16, bf, 2);
  run("add.bf16", "h:h,h", k_add_bf16_plain, bf, 2);
  run("sub.rn.bf16", "h:h,h", k_sub_bf16, bf, 2);
  run("mul.rn.bf16", "h:h,h", k_mul_bf16, bf, 2);
  run("fma.rn.bf16", "h:h,h,h", k_fma_bf16, bf, 3);
  run("add.rn.bf16x2", "r:r,r", k_add_bf16x2, bf2, 2);
  run("mul.rn.bf16x2", "r:r,r", k_mul_bf16x2, bf2, 2);
  run("fma.rn.bf16x2", "r:r,r,r", k_fma_bf16x2, bf2, 3);
  CHECK(cudaDeviceSynchronize());
  return 0;
}
