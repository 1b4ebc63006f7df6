// Prints, as TSV, what a real GPU computes for the tensor-core instructions the emulator
// executes: `mma.sync` (f16, bf16, tf32, f64 and 8-bit integer shapes), the register
// contents after `wmma.load`, the results of `wmma.mma`, and the registers and memory of
// `ldmatrix`/`stmatrix`. crates/emu/tests/it/tensor_truth.rs runs the same rows in the
// emulator and compares bit for bit.
//
// The inputs are not stored: they come from a small deterministic generator (xorshift32,
// four draws per element) that crates/emu/tests/it/tensor_truth.rs repeats exactly. A row
// names the instruction, the input class and the seed; its last field is the result.
//
// Rows:
//   mma   <TAB> instruction <TAB> class <TAB> seed <TAB> D
//         one warp; D is every lane's destination registers (lane 0 first, registers in
//         operand order), 8 hex digits per 32-bit register, 16 per 64-bit register.
//   wmma.load <TAB> instruction <TAB> - <TAB> - <TAB> E
//         the fragment after loading a matrix whose element at offset i holds i;
//         E is every lane's fragment registers.
//   wmma  <TAB> shape.types <TAB> class <TAB> seed <TAB> D
//         wmma.load (A row-major, B column-major, C row-major) + wmma.mma + wmma.store
//         (row-major); D is the stored matrix, element by element.
//   ldmatrix / stmatrix <TAB> instruction <TAB> - <TAB> - <TAB> R
//         the registers (ldmatrix) or the shared tile (stmatrix) after the instruction.
//
// Input classes (floating point): normal, spread (wide exponent range), cancel
// (pairs of products that cancel exactly, with some operands made tiny), bigc
// (accumulator much larger or much smaller than the products), ties (power-of-two
// products below the accumulator's last place), denorm (subnormal operands and
// accumulators), special (infinities, NaNs with payloads, signed zeros, the largest
// finite value), zeros (signed zeros). Integers: rand, extreme.
//
// Build and run (sm_90 for stmatrix):
//   nvcc -O2 -arch=sm_90 -o tensor_cores tools/gpu/tensor_cores.cu && ./tensor_cores
#include <cstdio>
#include <cstdint>
#include <cstring>
#include <vector>
#include <cuda_runtime.h>
#include <mma.h>
#include <cuda_fp16.h>
#include <cuda_bf16.h>

#define CHECK(x) do { cudaError_t e = (x); if (e != cudaSuccess) { \
  fprintf(stderr, "%s: %s\n", #x, cudaGetErrorString(e)); exit(1); } } while (0)

// ---------------------------------------------------------------------------------------
// The generator (mirrored in crates/emu/tests/tensor_truth/gen.rs).

enum Fmt { F16, BF16, TF32, F32, F64, S8, U8, S32 };
enum Class { NORMAL, SPREAD, CANCEL, BIGC, TIES, DENORM, SPECIAL, ZEROS, RAND, EXTREME };
static const char* CLASS_NAMES[] = {"normal", "spread", "cancel", "bigc", "ties", "denorm", "special", "zeros", "rand", "extreme"};

struct Rng {
  uint32_t s;
  explicit Rng(uint32_t seed) { s = seed * 0x9E3779B1u + 0x7F4A7C15u; if (s == 0) s = 1; }
  uint32_t next() { s ^= s << 13; s ^= s >> 17; s ^= s << 5; return s; }
};

struct FmtInfo { int ebits, mbits, shift; };  // shift: where the mantissa starts (tf32: 13)
static FmtInfo info(Fmt f) {
  switch (f) {
    case F16: return {5, 10, 0};
    case BF16: return {8, 7, 0};
    case TF32: return {8, 10, 13};
    case F32: return {8, 23, 0};
    default: return {11, 52, 0};
  }
}
static int bias(Fmt f) { return (1 << (info(f).ebits - 1)) - 1; }

// sign, unbiased exponent (clamped to the subnormal/largest binade), mantissa bits.
static uint64_t encode(Fmt f, uint32_t sign, int e, uint64_t mant) {
  FmtInfo i = info(f);
  int b = e + bias(f);
  int maxb = (1 << i.ebits) - 2;
  if (b < 0) b = 0;
  if (b > maxb) b = maxb;
  uint64_t m = mant & ((1ull << i.mbits) - 1);
  int width = 1 + i.ebits + i.mbits;
  return ((uint64_t)(sign & 1) << (width - 1) | (uint64_t)b << i.mbits | m) << i.shift;
}
static uint64_t mant_of(uint32_t r2, uint32_t r3) { return (uint64_t)r3 << 32 | r2; }

// The float value of the special class: +inf, -inf, quiet NaN, NaN with a payload and
// sign, +0, -0, largest finite.
static uint64_t special(Fmt f, uint32_t which) {
  FmtInfo i = info(f);
  int width = 1 + i.ebits + i.mbits;
  uint64_t emax = ((1ull << i.ebits) - 1) << i.mbits, sign = 1ull << (width - 1);
  uint64_t v;
  switch (which % 7) {
    case 0: v = emax; break;
    case 1: v = emax | sign; break;
    case 2: v = emax | 1ull << (i.mbits - 1); break;
    case 3: v = sign | emax | 1ull << (i.mbits - 1) | 5; break;
    case 4: v = 0; break;
    case 5: v = sign; break;
    default: v = emax - 1; break;
  }
  return v << i.shift;
}

// One element of role 0 (A), 1 (B) or 2 (C/accumulator); `dfmt` is the accumulator's.
static uint64_t element(Fmt f, Class c, int role, Fmt dfmt, Rng& rng) {
  uint32_t r0 = rng.next(), r1 = rng.next(), r2 = rng.next(), r3 = rng.next();
  if (f == S8 || f == U8) {
    static const uint32_t X[] = {0x80, 0x7f, 0xff, 0x00, 0x81};
    return c == EXTREME ? X[r0 % 5] : (r0 & 0xff);
  }
  if (f == S32) {
    if (c == EXTREME) {
      uint32_t k = r0 % 3;
      return k == 0 ? 0x7fffffffu - (r1 % 65536) : k == 1 ? 0x80000000u + (r1 % 65536) : 0;
    }
    return (uint32_t)((int32_t)r0 >> (r1 % 24));
  }
  uint64_t m = mant_of(r2, r3);
  uint32_t s = r0 & 1;
  uint64_t normal = encode(f, s, (int)(r1 % 8) - 4, m);
  if (f == TF32 && c == NORMAL && (r0 & 2)) normal |= r3 & 0x1fff;  // low bits tf32 ignores or not
  switch (c) {
    case NORMAL: case CANCEL: return normal;
    case SPREAD: {
      int range = f == F16 ? 31 : f == F64 ? 201 : 81;
      return encode(f, s, (int)(r1 % range) - range / 2, m);
    }
    case BIGC:
      if (role < 2) return normal;
      return encode(f, s, (r0 & 2) ? 14 + (int)(r1 % 8) : -24 - (int)(r1 % 8), m);
    case TIES: {
      if (role == 2) return encode(f, s, 4, m);
      int base = dfmt == F16 ? -3 : dfmt == F64 ? -27 : -10;
      return encode(f, s, base - (int)(r1 % 4), 0);
    }
    case DENORM: {
      int b = bias(f);
      if (role == 0) return encode(f, s, (int)(r1 % 3) - b, m);
      if (role == 1) return f == F16 ? encode(f, s, (int)(r1 % 3) - b, m) : encode(f, s, (int)(r1 % 5) - 2, m);
      return encode(f, s, (int)(r1 % 2) - b, m);
    }
    case SPECIAL: return r3 % 8 == 0 ? special(f, r3 / 8) : normal;
    case ZEROS: return (role < 2 && r3 % 4 == 0) ? normal : encode(f, s, -bias(f), 0);
    default: return 0;
  }
}

// Logical matrices A (m x k, row-major), B (k x n, k-major), C (m x n, row-major).
struct Mats { std::vector<uint64_t> a, b, c; };

static Mats generate(int m, int n, int k, Fmt af, Fmt bf, Fmt cf, Class cls, uint32_t seed) {
  Rng rng(seed);
  Class base = cls == CANCEL ? NORMAL : cls;
  Mats x;
  for (int i = 0; i < m * k; i++) x.a.push_back(element(af, base, 0, cf, rng));
  for (int i = 0; i < k * n; i++) x.b.push_back(element(bf, base, 1, cf, rng));
  for (int i = 0; i < m * n; i++) x.c.push_back(element(cf, base, 2, cf, rng));
  if (cls == CANCEL) {
    // a[i][2t+1] = a[i][2t], b[2t+1][j] = -b[2t][j]: each pair of products cancels ...
    uint64_t bsign = 1ull << (info(bf).ebits + info(bf).mbits + info(bf).shift);
    for (int i = 0; i < m; i++)
      for (int kk = 1; kk < k; kk += 2) x.a[i * k + kk] = x.a[i * k + kk - 1];
    for (int kk = 1; kk < k; kk += 2)
      for (int j = 0; j < n; j++) x.b[kk * n + j] = x.b[(kk - 1) * n + j] ^ bsign;
    // ... unless one of its operands is made tiny (exponent 8 to 11 below 1).
    for (int p = 0; p < 2; p++) {
      std::vector<uint64_t>& v = p == 0 ? x.a : x.b;
      Fmt f = p == 0 ? af : bf;
      FmtInfo fi = info(f);
      uint64_t emask = (((1ull << fi.ebits) - 1) << fi.mbits) << fi.shift;
      for (auto& e : v) {
        uint32_t r = rng.next();
        if (r % 4 == 0) {
          uint64_t be = (uint64_t)(bias(f) - 8 - (int)((r >> 2) % 4));
          e = (e & ~emask) | ((be << fi.mbits) << fi.shift);
        }
      }
    }
  }
  return x;
}

// ---------------------------------------------------------------------------------------
// Fragment layouts of mma (PTX ISA "Matrix fragments for mma.m16n8k*"): the (row, col)
// of element i of lane `lane`'s fragment.

enum Layout { A_F16_K16, A_F16_K8, B_F16_K16, B_F16_K8, A_TF32_K8, A_TF32_K4, B_TF32_K8, B_TF32_K4,
              A_S8_K32, A_S8_K16, A_S8_M8K16, B_S8_K32, B_S8_K16, A_F64, B_F64, C16X8, C8X8 };

static void pos(Layout l, int lane, int i, int& row, int& col) {
  int g = lane >> 2, t = lane & 3;
  switch (l) {
    case A_F16_K16: row = g + 8 * ((i >> 1) & 1); col = 2 * t + (i & 1) + 8 * (i >> 2); break;
    case A_F16_K8: row = g + 8 * (i >> 1); col = 2 * t + (i & 1); break;
    case B_F16_K16: row = 2 * t + (i & 1) + 8 * (i >> 1); col = g; break;
    case B_F16_K8: row = 2 * t + i; col = g; break;
    case A_TF32_K8: row = g + 8 * (i & 1); col = t + 4 * (i >> 1); break;
    case A_TF32_K4: row = g + 8 * i; col = t; break;
    case B_TF32_K8: row = t + 4 * i; col = g; break;
    case B_TF32_K4: row = t; col = g; break;
    case A_S8_K32: row = g + 8 * ((i >> 2) & 1); col = 4 * t + (i & 3) + 16 * (i >> 3); break;
    case A_S8_K16: row = g + 8 * (i >> 2); col = 4 * t + (i & 3); break;
    case A_S8_M8K16: row = g; col = 4 * t + i; break;
    case B_S8_K32: row = 4 * t + (i & 3) + 16 * (i >> 2); col = g; break;
    case B_S8_K16: row = 4 * t + i; col = g; break;
    case A_F64: row = g; col = t; break;
    case B_F64: row = t; col = g; break;
    case C16X8: row = g + 8 * (i >> 1); col = 2 * t + (i & 1); break;
    case C8X8: row = g; col = 2 * t + i; break;
  }
}

static int bits_of(Fmt f) { return f == F16 || f == BF16 ? 16 : f == S8 || f == U8 ? 8 : f == F64 ? 64 : 32; }

// Packs matrix `v` (rows x cols, row-major; B is k x n) into `nregs` registers per lane
// (64-bit registers take two words, low first).
static void pack(const std::vector<uint64_t>& v, int cols, Fmt f, Layout l, int nregs, uint32_t* out) {
  int bits = bits_of(f), per = bits >= 32 ? 1 : 32 / bits, words = bits == 64 ? 2 : 1;
  for (int lane = 0; lane < 32; lane++) {
    uint32_t* o = out + lane * nregs * words;
    memset(o, 0, sizeof(uint32_t) * nregs * words);
    for (int i = 0; i < nregs * per; i++) {
      int r, c;
      pos(l, lane, i, r, c);
      uint64_t e = v[r * cols + c];
      if (bits == 64) { o[2 * i] = (uint32_t)e; o[2 * i + 1] = (uint32_t)(e >> 32); }
      else o[i / per] |= (uint32_t)(e & (bits == 32 ? 0xffffffffu : (1u << bits) - 1)) << (bits * (i % per));
    }
  }
}

// ---------------------------------------------------------------------------------------
// mma kernels: one warp per test; registers read and written lane-major.

#define R(i) "=r"(d[i])
#define MMA_KERNEL(NAME, INS, NA, NB, NC, ASM_OPS)                                          \
  __global__ void NAME(const uint32_t* A, const uint32_t* B, const uint32_t* C, uint32_t* D) { \
    int t = blockIdx.x, l = threadIdx.x;                                                      \
    const uint32_t* a = A + (t * 32 + l) * NA; const uint32_t* b = B + (t * 32 + l) * NB;     \
    const uint32_t* c = C + (t * 32 + l) * NC; uint32_t d[NC];                                \
    ASM_OPS                                                                                   \
    for (int i = 0; i < NC; i++) D[(t * 32 + l) * NC + i] = d[i];                             \
  }

// A4 B2 C4 (m16n8k16 f16/bf16, m16n8k8 tf32, m16n8k32 8-bit)
#define OPS_4_2_4(INS) asm volatile(INS " {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%10,%11,%12,%13};" \
  : "=r"(d[0]), "=r"(d[1]), "=r"(d[2]), "=r"(d[3]) : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]), \
    "r"(c[0]), "r"(c[1]), "r"(c[2]), "r"(c[3]));
// A4 B2 C2 (m16n8k16 f16 accumulate)
#define OPS_4_2_2(INS) asm volatile(INS " {%0,%1}, {%2,%3,%4,%5}, {%6,%7}, {%8,%9};" \
  : "=r"(d[0]), "=r"(d[1]) : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]), "r"(c[0]), "r"(c[1]));
// A2 B1 C4 (m16n8k8 f16/bf16, m16n8k4 tf32, m16n8k16 8-bit)
#define OPS_2_1_4(INS) asm volatile(INS " {%0,%1,%2,%3}, {%4,%5}, {%6}, {%7,%8,%9,%10};" \
  : "=r"(d[0]), "=r"(d[1]), "=r"(d[2]), "=r"(d[3]) : "r"(a[0]), "r"(a[1]), "r"(b[0]), \
    "r"(c[0]), "r"(c[1]), "r"(c[2]), "r"(c[3]));
// A2 B1 C2 (m16n8k8 f16 accumulate)
#define OPS_2_1_2(INS) asm volatile(INS " {%0,%1}, {%2,%3}, {%4}, {%5,%6};" \
  : "=r"(d[0]), "=r"(d[1]) : "r"(a[0]), "r"(a[1]), "r"(b[0]), "r"(c[0]), "r"(c[1]));
// A1 B1 C2 (m8n8k16 8-bit)
#define OPS_1_1_2(INS) asm volatile(INS " {%0,%1}, {%2}, {%3}, {%4,%5};" \
  : "=r"(d[0]), "=r"(d[1]) : "r"(a[0]), "r"(b[0]), "r"(c[0]), "r"(c[1]));

#define MMA(NAME, INS, NA, NB, NC) MMA_KERNEL(NAME, INS, NA, NB, NC, OPS_##NA##_##NB##_##NC(INS))

MMA(k_f16_k16_f32, "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32", 4, 2, 4)
MMA(k_f16_k16_f16, "mma.sync.aligned.m16n8k16.row.col.f16.f16.f16.f16", 4, 2, 2)
MMA(k_bf16_k16_f32, "mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32", 4, 2, 4)
MMA(k_f16_k8_f32, "mma.sync.aligned.m16n8k8.row.col.f32.f16.f16.f32", 2, 1, 4)
MMA(k_f16_k8_f16, "mma.sync.aligned.m16n8k8.row.col.f16.f16.f16.f16", 2, 1, 2)
MMA(k_bf16_k8_f32, "mma.sync.aligned.m16n8k8.row.col.f32.bf16.bf16.f32", 2, 1, 4)
MMA(k_tf32_k8, "mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32", 4, 2, 4)
MMA(k_tf32_k4, "mma.sync.aligned.m16n8k4.row.col.f32.tf32.tf32.f32", 2, 1, 4)
MMA(k_s8_k32, "mma.sync.aligned.m16n8k32.row.col.s32.s8.s8.s32", 4, 2, 4)
MMA(k_u8_k32, "mma.sync.aligned.m16n8k32.row.col.s32.u8.u8.s32", 4, 2, 4)
MMA(k_s8u8_k32, "mma.sync.aligned.m16n8k32.row.col.s32.s8.u8.s32", 4, 2, 4)
MMA(k_s8_k32_sat, "mma.sync.aligned.m16n8k32.row.col.satfinite.s32.s8.s8.s32", 4, 2, 4)
MMA(k_s8_k16, "mma.sync.aligned.m16n8k16.row.col.s32.s8.s8.s32", 2, 1, 4)
MMA(k_s8_m8k16, "mma.sync.aligned.m8n8k16.row.col.s32.s8.s8.s32", 1, 1, 2)

__global__ void k_f64(const uint32_t* A, const uint32_t* B, const uint32_t* C, uint32_t* D) {
  int t = blockIdx.x, l = threadIdx.x;
  const double* a = (const double*)A + (t * 32 + l);
  const double* b = (const double*)B + (t * 32 + l);
  const double* c = (const double*)C + (t * 32 + l) * 2;
  double d0, d1;
  asm volatile("mma.sync.aligned.m8n8k4.row.col.f64.f64.f64.f64 {%0,%1}, {%2}, {%3}, {%4,%5};"
               : "=d"(d0), "=d"(d1) : "d"(a[0]), "d"(b[0]), "d"(c[0]), "d"(c[1]));
  double* d = (double*)D + (t * 32 + l) * 2;
  d[0] = d0; d[1] = d1;
}

typedef void (*MmaKernel)(const uint32_t*, const uint32_t*, const uint32_t*, uint32_t*);

struct MmaVariant {
  const char* ins; MmaKernel k; int m, n, k_;
  Fmt af, bf, cf; Layout la, lb, lc; int na, nb, nc;
};

static const MmaVariant MMAS[] = {
  {"mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32", k_f16_k16_f32, 16, 8, 16, F16, F16, F32, A_F16_K16, B_F16_K16, C16X8, 4, 2, 4},
  {"mma.sync.aligned.m16n8k16.row.col.f16.f16.f16.f16", k_f16_k16_f16, 16, 8, 16, F16, F16, F16, A_F16_K16, B_F16_K16, C16X8, 4, 2, 2},
  {"mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32", k_bf16_k16_f32, 16, 8, 16, BF16, BF16, F32, A_F16_K16, B_F16_K16, C16X8, 4, 2, 4},
  {"mma.sync.aligned.m16n8k8.row.col.f32.f16.f16.f32", k_f16_k8_f32, 16, 8, 8, F16, F16, F32, A_F16_K8, B_F16_K8, C16X8, 2, 1, 4},
  {"mma.sync.aligned.m16n8k8.row.col.f16.f16.f16.f16", k_f16_k8_f16, 16, 8, 8, F16, F16, F16, A_F16_K8, B_F16_K8, C16X8, 2, 1, 2},
  {"mma.sync.aligned.m16n8k8.row.col.f32.bf16.bf16.f32", k_bf16_k8_f32, 16, 8, 8, BF16, BF16, F32, A_F16_K8, B_F16_K8, C16X8, 2, 1, 4},
  {"mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32", k_tf32_k8, 16, 8, 8, TF32, TF32, F32, A_TF32_K8, B_TF32_K8, C16X8, 4, 2, 4},
  {"mma.sync.aligned.m16n8k4.row.col.f32.tf32.tf32.f32", k_tf32_k4, 16, 8, 4, TF32, TF32, F32, A_TF32_K4, B_TF32_K4, C16X8, 2, 1, 4},
  {"mma.sync.aligned.m16n8k32.row.col.s32.s8.s8.s32", k_s8_k32, 16, 8, 32, S8, S8, S32, A_S8_K32, B_S8_K32, C16X8, 4, 2, 4},
  {"mma.sync.aligned.m16n8k32.row.col.s32.u8.u8.s32", k_u8_k32, 16, 8, 32, U8, U8, S32, A_S8_K32, B_S8_K32, C16X8, 4, 2, 4},
  {"mma.sync.aligned.m16n8k32.row.col.s32.s8.u8.s32", k_s8u8_k32, 16, 8, 32, S8, U8, S32, A_S8_K32, B_S8_K32, C16X8, 4, 2, 4},
  {"mma.sync.aligned.m16n8k32.row.col.satfinite.s32.s8.s8.s32", k_s8_k32_sat, 16, 8, 32, S8, S8, S32, A_S8_K32, B_S8_K32, C16X8, 4, 2, 4},
  {"mma.sync.aligned.m16n8k16.row.col.s32.s8.s8.s32", k_s8_k16, 16, 8, 16, S8, S8, S32, A_S8_K16, B_S8_K16, C16X8, 2, 1, 4},
  {"mma.sync.aligned.m8n8k16.row.col.s32.s8.s8.s32", k_s8_m8k16, 8, 8, 16, S8, S8, S32, A_S8_M8K16, B_S8_K16, C8X8, 1, 1, 2},
  {"mma.sync.aligned.m8n8k4.row.col.f64.f64.f64.f64", k_f64, 8, 8, 4, F64, F64, F64, A_F64, B_F64, C8X8, 1, 1, 2},
};

static void print_words(const uint32_t* w, int n, bool wide) {
  for (int i = 0; i < n; i += wide ? 2 : 1) {
    if (wide) printf("%08x%08x", w[i + 1], w[i]); else printf("%08x", w[i]);
  }
}

// Runs `reps[c]` tests of every class `c` of `v` and prints their rows.
static void run_mma(const MmaVariant& v, int scale) {
  bool ints = v.af == S8 || v.af == U8;
  std::vector<std::pair<Class, uint32_t>> tests;
  static const int FLOAT_REPS[] = {4, 4, 4, 3, 4, 3, 3, 2};
  if (ints) {
    for (uint32_t s = 0; s < 6u * scale; s++) tests.push_back({RAND, 100 + s});
    for (uint32_t s = 0; s < 6u * scale; s++) tests.push_back({EXTREME, 200 + s});
  } else {
    for (int c = NORMAL; c <= ZEROS; c++)
      for (uint32_t s = 0; s < (uint32_t)(FLOAT_REPS[c] * scale); s++) tests.push_back({(Class)c, (uint32_t)(c * 100 + s + 1)});
  }
  int wa = v.af == F64 ? 2 : 1, wc = v.cf == F64 ? 2 : 1;
  int na = v.na * wa, nb = v.nb * wa, nc = v.nc * wc, nt = (int)tests.size();
  std::vector<uint32_t> A(nt * 32 * na), B(nt * 32 * nb), C(nt * 32 * nc), D(nt * 32 * nc);
  for (int t = 0; t < nt; t++) {
    Mats x = generate(v.m, v.n, v.k_, v.af, v.bf, v.cf, tests[t].first, tests[t].second);
    pack(x.a, v.k_, v.af, v.la, v.na, &A[t * 32 * na]);
    pack(x.b, v.n, v.bf, v.lb, v.nb, &B[t * 32 * nb]);
    pack(x.c, v.n, v.cf, v.lc, v.nc, &C[t * 32 * nc]);
  }
  uint32_t *dA, *dB, *dC, *dD;
  CHECK(cudaMalloc(&dA, A.size() * 4)); CHECK(cudaMalloc(&dB, B.size() * 4));
  CHECK(cudaMalloc(&dC, C.size() * 4)); CHECK(cudaMalloc(&dD, D.size() * 4));
  CHECK(cudaMemcpy(dA, A.data(), A.size() * 4, cudaMemcpyHostToDevice));
  CHECK(cudaMemcpy(dB, B.data(), B.size() * 4, cudaMemcpyHostToDevice));
  CHECK(cudaMemcpy(dC, C.data(), C.size() * 4, cudaMemcpyHostToDevice));
  v.k<<<nt, 32>>>(dA, dB, dC, dD);
  CHECK(cudaGetLastError());
  CHECK(cudaMemcpy(D.data(), dD, D.size() * 4, cudaMemcpyDeviceToHost));
  for (int t = 0; t < nt; t++) {
    printf("mma\t%s\t%s\t%u\t", v.ins, CLASS_NAMES[tests[t].first], tests[t].second);
    print_words(&D[t * 32 * nc], 32 * nc, v.cf == F64);
    printf("\n");
  }
  cudaFree(dA); cudaFree(dB); cudaFree(dC); cudaFree(dD);
}

// ---------------------------------------------------------------------------------------
// wmma: fragment contents after a load, and whole load + mma + store sequences.

using namespace nvcuda;

template <typename Frag, typename T>
__device__ void dump_frag(const Frag& f, uint32_t* out) {
  // The fragment's registers, as the PTX operands hold them.
  const uint32_t* r = reinterpret_cast<const uint32_t*>(&f.x[0]);
  int words = (int)(sizeof(f.x) / 4);
  for (int i = 0; i < words; i++) out[threadIdx.x * words + i] = r[i];
}

template <typename Use, int M, int N, int K, typename T, typename L, typename E>
__global__ void k_wmma_load(const E* src, unsigned ld, uint32_t* out) {
  wmma::fragment<Use, M, N, K, T, L> f;
  wmma::load_matrix_sync(f, src, ld);
  dump_frag<decltype(f), T>(f, out);
}
template <int M, int N, int K, typename E>
__global__ void k_wmma_load_c(const E* src, unsigned ld, uint32_t* out, int col) {
  wmma::fragment<wmma::accumulator, M, N, K, E> f;
  wmma::load_matrix_sync(f, src, ld, col ? wmma::mem_col_major : wmma::mem_row_major);
  dump_frag<decltype(f), E>(f, out);
}

template <typename E> static E from_index(int i);
template <> __half from_index<__half>(int i) { return __float2half((float)i); }
template <> __nv_bfloat16 from_index<__nv_bfloat16>(int i) { return __float2bfloat16((float)i); }
template <> float from_index<float>(int i) { return (float)i; }
template <> double from_index<double>(int i) { return (double)i; }
template <> signed char from_index<signed char>(int i) { return (signed char)i; }
template <> unsigned char from_index<unsigned char>(int i) { return (unsigned char)i; }
template <> int from_index<int>(int i) { return i; }

// Loads a matrix whose element at offset i (in elements) holds i (u8/s8: i mod 256).
template <typename E, typename Launch>
static void wmma_load_row(const char* ins, int elems, unsigned ld, int words, Launch launch) {
  std::vector<E> h(elems);
  for (int i = 0; i < elems; i++) h[i] = from_index<E>(i);
  E* d; uint32_t* o;
  CHECK(cudaMalloc(&d, elems * sizeof(E))); CHECK(cudaMalloc(&o, 32 * words * 4));
  CHECK(cudaMemcpy(d, h.data(), elems * sizeof(E), cudaMemcpyHostToDevice));
  launch(d, ld, o);
  CHECK(cudaGetLastError());
  std::vector<uint32_t> out(32 * words);
  CHECK(cudaMemcpy(out.data(), o, out.size() * 4, cudaMemcpyDeviceToHost));
  printf("wmma.load\t%s\t-\t-\t", ins);
  print_words(out.data(), (int)out.size(), false);
  printf("\n");
  cudaFree(d); cudaFree(o);
}

#define LOAD(USE, M, N, K, T, L, E, INS, ELEMS, LD)                                         \
  {                                                                                         \
    wmma::fragment<USE, M, N, K, T, L> probe;                                               \
    int words = (int)(sizeof(probe.x) / 4);                                                 \
    wmma_load_row<E>(INS, ELEMS, LD, words, [](const E* s, unsigned ld, uint32_t* o) {      \
      k_wmma_load<USE, M, N, K, T, L, E><<<1, 32>>>(s, ld, o); });                          \
  }
#define LOADC(M, N, K, E, COL, INS, ELEMS, LD)                                              \
  {                                                                                         \
    wmma::fragment<wmma::accumulator, M, N, K, E> probe;                                    \
    int words = (int)(sizeof(probe.x) / 4);                                                 \
    wmma_load_row<E>(INS, ELEMS, LD, words, [](const E* s, unsigned ld, uint32_t* o) {      \
      k_wmma_load_c<M, N, K, E><<<1, 32>>>(s, ld, o, COL); });                              \
  }

static void run_wmma_loads() {
  using wmma::matrix_a; using wmma::matrix_b; using wmma::row_major; using wmma::col_major;
  using wmma::precision::tf32;
  // An ld larger than the tile catches a wrong stride.
  LOAD(matrix_a, 16, 16, 16, __half, row_major, __half, "wmma.load.a.sync.aligned.row.m16n16k16.f16", 16 * 24, 24)
  LOAD(matrix_a, 16, 16, 16, __half, col_major, __half, "wmma.load.a.sync.aligned.col.m16n16k16.f16", 16 * 24, 24)
  LOAD(matrix_b, 16, 16, 16, __half, row_major, __half, "wmma.load.b.sync.aligned.row.m16n16k16.f16", 16 * 24, 24)
  LOAD(matrix_b, 16, 16, 16, __half, col_major, __half, "wmma.load.b.sync.aligned.col.m16n16k16.f16", 16 * 24, 24)
  LOAD(matrix_a, 32, 8, 16, __half, row_major, __half, "wmma.load.a.sync.aligned.row.m32n8k16.f16", 32 * 24, 24)
  LOAD(matrix_b, 32, 8, 16, __half, col_major, __half, "wmma.load.b.sync.aligned.col.m32n8k16.f16", 8 * 24, 24)
  LOAD(matrix_a, 8, 32, 16, __half, row_major, __half, "wmma.load.a.sync.aligned.row.m8n32k16.f16", 8 * 24, 24)
  LOAD(matrix_b, 8, 32, 16, __half, col_major, __half, "wmma.load.b.sync.aligned.col.m8n32k16.f16", 32 * 24, 24)
  LOAD(matrix_a, 16, 16, 16, __nv_bfloat16, row_major, __nv_bfloat16, "wmma.load.a.sync.aligned.row.m16n16k16.bf16", 16 * 16, 16)
  LOAD(matrix_b, 16, 16, 16, __nv_bfloat16, col_major, __nv_bfloat16, "wmma.load.b.sync.aligned.col.m16n16k16.bf16", 16 * 16, 16)
  LOAD(matrix_a, 16, 16, 8, tf32, row_major, float, "wmma.load.a.sync.aligned.row.m16n16k8.tf32", 16 * 12, 12)
  LOAD(matrix_b, 16, 16, 8, tf32, col_major, float, "wmma.load.b.sync.aligned.col.m16n16k8.tf32", 16 * 12, 12)
  LOAD(matrix_a, 16, 16, 16, signed char, row_major, signed char, "wmma.load.a.sync.aligned.row.m16n16k16.s8", 16 * 16, 16)
  LOAD(matrix_b, 16, 16, 16, signed char, col_major, signed char, "wmma.load.b.sync.aligned.col.m16n16k16.s8", 16 * 16, 16)
  LOAD(matrix_a, 16, 16, 16, unsigned char, row_major, unsigned char, "wmma.load.a.sync.aligned.row.m16n16k16.u8", 16 * 16, 16)
  LOAD(matrix_a, 8, 8, 4, double, row_major, double, "wmma.load.a.sync.aligned.row.m8n8k4.f64", 8 * 4, 4)
  LOAD(matrix_b, 8, 8, 4, double, col_major, double, "wmma.load.b.sync.aligned.col.m8n8k4.f64", 8 * 4, 4)
  LOADC(16, 16, 16, float, 0, "wmma.load.c.sync.aligned.row.m16n16k16.f32", 16 * 20, 20)
  LOADC(16, 16, 16, float, 1, "wmma.load.c.sync.aligned.col.m16n16k16.f32", 16 * 20, 20)
  LOADC(16, 16, 16, __half, 0, "wmma.load.c.sync.aligned.row.m16n16k16.f16", 16 * 20, 20)
  LOADC(32, 8, 16, float, 0, "wmma.load.c.sync.aligned.row.m32n8k16.f32", 32 * 8, 8)
  LOADC(8, 32, 16, float, 0, "wmma.load.c.sync.aligned.row.m8n32k16.f32", 8 * 32, 32)
  LOADC(16, 16, 16, int, 0, "wmma.load.c.sync.aligned.row.m16n16k16.s32", 16 * 16, 16)
  LOADC(8, 8, 4, double, 0, "wmma.load.c.sync.aligned.row.m8n8k4.f64", 8 * 8, 8)
}

// Load A (row-major), B (column-major), C (row-major), mma, store D (row-major).
template <int M, int N, int K, typename T, typename EA, typename EC>
__global__ void k_wmma_mma(const EA* a, const EA* b, const EC* c, EC* d) {
  wmma::fragment<wmma::matrix_a, M, N, K, T, wmma::row_major> fa;
  wmma::fragment<wmma::matrix_b, M, N, K, T, wmma::col_major> fb;
  wmma::fragment<wmma::accumulator, M, N, K, EC> fc;
  wmma::load_matrix_sync(fa, a + blockIdx.x * M * K, K);
  wmma::load_matrix_sync(fb, b + blockIdx.x * K * N, K);
  wmma::load_matrix_sync(fc, c + blockIdx.x * M * N, N, wmma::mem_row_major);
  wmma::mma_sync(fc, fa, fb, fc);
  wmma::store_matrix_sync(d + blockIdx.x * M * N, fc, N, wmma::mem_row_major);
}

template <int M, int N, int K, typename T, typename EA, typename EC>
static void run_wmma_mma(const char* name, Fmt af, Fmt cf) {
  std::vector<std::pair<Class, uint32_t>> tests;
  bool ints = af == S8 || af == U8;
  if (ints) { for (uint32_t s = 0; s < 2; s++) { tests.push_back({RAND, 300 + s}); tests.push_back({EXTREME, 400 + s}); } }
  else for (Class c : {NORMAL, CANCEL, TIES, SPECIAL}) for (uint32_t s = 0; s < 2; s++) tests.push_back({c, (uint32_t)(c * 100 + 50 + s)});
  int nt = (int)tests.size();
  std::vector<EA> A(nt * M * K), B(nt * K * N);
  std::vector<EC> C(nt * M * N), D(nt * M * N);
  for (int t = 0; t < nt; t++) {
    Mats x = generate(M, N, K, af, af, cf, tests[t].first, tests[t].second);
    for (int i = 0; i < M * K; i++) { uint64_t v = x.a[i]; memcpy(&A[t * M * K + i], &v, sizeof(EA)); }
    // B column-major: element (kk, j) at j * K + kk.
    for (int kk = 0; kk < K; kk++) for (int j = 0; j < N; j++) { uint64_t v = x.b[kk * N + j]; memcpy(&B[t * K * N + j * K + kk], &v, sizeof(EA)); }
    for (int i = 0; i < M * N; i++) { uint64_t v = x.c[i]; memcpy(&C[t * M * N + i], &v, sizeof(EC)); }
  }
  EA *dA, *dB; EC *dC, *dD;
  CHECK(cudaMalloc(&dA, A.size() * sizeof(EA))); CHECK(cudaMalloc(&dB, B.size() * sizeof(EA)));
  CHECK(cudaMalloc(&dC, C.size() * sizeof(EC))); CHECK(cudaMalloc(&dD, D.size() * sizeof(EC)));
  CHECK(cudaMemcpy(dA, A.data(), A.size() * sizeof(EA), cudaMemcpyHostToDevice));
  CHECK(cudaMemcpy(dB, B.data(), B.size() * sizeof(EA), cudaMemcpyHostToDevice));
  CHECK(cudaMemcpy(dC, C.data(), C.size() * sizeof(EC), cudaMemcpyHostToDevice));
  k_wmma_mma<M, N, K, T, EA, EC><<<nt, 32>>>(dA, dB, dC, dD);
  CHECK(cudaGetLastError());
  CHECK(cudaMemcpy(D.data(), dD, D.size() * sizeof(EC), cudaMemcpyDeviceToHost));
  for (int t = 0; t < nt; t++) {
    printf("wmma\t%s\t%s\t%u\t", name, CLASS_NAMES[tests[t].first], tests[t].second);
    for (int i = 0; i < M * N; i++) {
      uint64_t v = 0; memcpy(&v, &D[t * M * N + i], sizeof(EC));
      if (sizeof(EC) == 8) printf("%016llx", (unsigned long long)v);
      else printf(sizeof(EC) == 2 ? "%04llx" : "%08llx", (unsigned long long)v);
    }
    printf("\n");
  }
  cudaFree(dA); cudaFree(dB); cudaFree(dC); cudaFree(dD);
}

// ---------------------------------------------------------------------------------------
// ldmatrix / stmatrix: 32 rows of 8 halves in shared memory, row r holding 8r .. 8r+7;
// lane l gives the address of row (5l + 3) mod 32 (x1: lanes 0-7 used, x2: 0-15).

__device__ uint32_t row_address(uint16_t* tile) {
  return (uint32_t)__cvta_generic_to_shared(&tile[((threadIdx.x * 5 + 3) % 32) * 8]);
}
__device__ void fill_tile(uint16_t* tile) {
  for (int i = threadIdx.x; i < 256; i += 32) tile[i] = (uint16_t)i;
  __syncwarp();
}

// ldmatrix: out = every lane's 4 registers (unused ones 0).
#define LDM_KERNEL(NAME, BODY)                                                            \
  __global__ void NAME(uint32_t* out) {                                                   \
    __shared__ uint16_t tile[256];                                                        \
    fill_tile(tile);                                                                      \
    uint32_t a = row_address(tile), r[4] = {0, 0, 0, 0};                                  \
    BODY;                                                                                 \
    for (int i = 0; i < 4; i++) out[threadIdx.x * 4 + i] = r[i];                          \
  }
LDM_KERNEL(k_ldm_x1, asm volatile("ldmatrix.sync.aligned.m8n8.x1.shared.b16 {%0}, [%1];" : "=r"(r[0]) : "r"(a)))
LDM_KERNEL(k_ldm_x2, asm volatile("ldmatrix.sync.aligned.m8n8.x2.shared.b16 {%0,%1}, [%2];" : "=r"(r[0]), "=r"(r[1]) : "r"(a)))
LDM_KERNEL(k_ldm_x4, asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0,%1,%2,%3}, [%4];" : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3]) : "r"(a)))
LDM_KERNEL(k_ldm_x1_t, asm volatile("ldmatrix.sync.aligned.m8n8.x1.trans.shared.b16 {%0}, [%1];" : "=r"(r[0]) : "r"(a)))
LDM_KERNEL(k_ldm_x2_t, asm volatile("ldmatrix.sync.aligned.m8n8.x2.trans.shared.b16 {%0,%1}, [%2];" : "=r"(r[0]), "=r"(r[1]) : "r"(a)))
LDM_KERNEL(k_ldm_x4_t, asm volatile("ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 {%0,%1,%2,%3}, [%4];" : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3]) : "r"(a)))

// stmatrix: registers hold lane * 8 + register * 2 + half (16-bit values); out = the
// tile (256 halves, as 128 words) after the store into a tile of 0xffff.
#define STM_KERNEL(NAME, BODY)                                                            \
  __global__ void NAME(uint32_t* out) {                                                   \
    __shared__ uint16_t tile[256];                                                        \
    for (int i = threadIdx.x; i < 256; i += 32) tile[i] = 0xffff;                         \
    __syncwarp();                                                                         \
    uint32_t a = row_address(tile), r[4];                                                 \
    for (int i = 0; i < 4; i++) {                                                         \
      uint32_t v = threadIdx.x * 8 + i * 2;                                               \
      r[i] = v | (v + 1) << 16;                                                           \
    }                                                                                     \
    BODY;                                                                                 \
    __syncwarp();                                                                         \
    for (int i = threadIdx.x; i < 128; i += 32) out[i] = ((uint32_t*)tile)[i];            \
  }
STM_KERNEL(k_stm_x1, asm volatile("stmatrix.sync.aligned.m8n8.x1.shared.b16 [%0], {%1};" :: "r"(a), "r"(r[0]) : "memory"))
STM_KERNEL(k_stm_x2, asm volatile("stmatrix.sync.aligned.m8n8.x2.shared.b16 [%0], {%1,%2};" :: "r"(a), "r"(r[0]), "r"(r[1]) : "memory"))
STM_KERNEL(k_stm_x4, asm volatile("stmatrix.sync.aligned.m8n8.x4.shared.b16 [%0], {%1,%2,%3,%4};" :: "r"(a), "r"(r[0]), "r"(r[1]), "r"(r[2]), "r"(r[3]) : "memory"))
STM_KERNEL(k_stm_x4_t, asm volatile("stmatrix.sync.aligned.m8n8.x4.trans.shared.b16 [%0], {%1,%2,%3,%4};" :: "r"(a), "r"(r[0]), "r"(r[1]), "r"(r[2]), "r"(r[3]) : "memory"))

static void run_matrix(const char* kind, const char* ins, void (*k)(uint32_t*), int words) {
  uint32_t* o;
  CHECK(cudaMalloc(&o, words * 4));
  k<<<1, 32>>>(o);
  CHECK(cudaGetLastError());
  std::vector<uint32_t> out(words);
  CHECK(cudaMemcpy(out.data(), o, words * 4, cudaMemcpyDeviceToHost));
  printf("%s\t%s\t-\t-\t", kind, ins);
  print_words(out.data(), words, false);
  printf("\n");
  cudaFree(o);
}

int main(int argc, char** argv) {
  // `tensor_cores N` runs N times as many mma tests (for measurements beyond the test data).
  int scale = argc > 1 ? atoi(argv[1]) : 1;
  printf("# tensor-core truth: kind\tinstruction\tclass\tseed\tresult (hex; see tools/gpu/tensor_cores.cu)\n");
  for (const MmaVariant& v : MMAS) run_mma(v, scale);
  if (scale > 1) { CHECK(cudaDeviceSynchronize()); return 0; }
  run_wmma_loads();
  run_wmma_mma<16, 16, 16, __half, __half, float>("m16n16k16.f32.f16", F16, F32);
  run_wmma_mma<16, 16, 16, __half, __half, __half>("m16n16k16.f16.f16", F16, F16);
  run_wmma_mma<32, 8, 16, __half, __half, float>("m32n8k16.f32.f16", F16, F32);
  run_wmma_mma<8, 32, 16, __half, __half, float>("m8n32k16.f32.f16", F16, F32);
  run_wmma_mma<16, 16, 16, __nv_bfloat16, __nv_bfloat16, float>("m16n16k16.f32.bf16", BF16, F32);
  run_wmma_mma<16, 16, 8, wmma::precision::tf32, float, float>("m16n16k8.f32.tf32", TF32, F32);
  run_wmma_mma<16, 16, 16, signed char, signed char, int>("m16n16k16.s32.s8", S8, S32);
  run_wmma_mma<16, 16, 16, unsigned char, unsigned char, int>("m16n16k16.s32.u8", U8, S32);
  run_wmma_mma<8, 8, 4, double, double, double>("m8n8k4.f64.f64", F64, F64);
  run_matrix("ldmatrix", "ldmatrix.sync.aligned.m8n8.x1.shared.b16", k_ldm_x1, 128);
  run_matrix("ldmatrix", "ldmatrix.sync.aligned.m8n8.x2.shared.b16", k_ldm_x2, 128);
  run_matrix("ldmatrix", "ldmatrix.sync.aligned.m8n8.x4.shared.b16", k_ldm_x4, 128);
  run_matrix("ldmatrix", "ldmatrix.sync.aligned.m8n8.x1.trans.shared.b16", k_ldm_x1_t, 128);
  run_matrix("ldmatrix", "ldmatrix.sync.aligned.m8n8.x2.trans.shared.b16", k_ldm_x2_t, 128);
  run_matrix("ldmatrix", "ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16", k_ldm_x4_t, 128);
  run_matrix("stmatrix", "stmatrix.sync.aligned.m8n8.x1.shared.b16", k_stm_x1, 128);
  run_matrix("stmatrix", "stmatrix.sync.aligned.m8n8.x2.shared.b16", k_stm_x2, 128);
  run_matrix("stmatrix", "stmatrix.sync.aligned.m8n8.x4.shared.b16", k_stm_x4, 128);
  run_matrix("stmatrix", "stmatrix.sync.aligned.m8n8.x4.trans.shared.b16", k_stm_x4_t, 128);
  CHECK(cudaDeviceSynchronize());
  return 0;
}
