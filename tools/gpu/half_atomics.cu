// Atomic add on 16-bit float lanes, one atomic per location (so the result does not
// depend on the order of atomics): `atom.global.add.noftz.f16x2`, `.bf16x2` and `.bf16`
// on edge values (zeros, subnormals, the largest finite values, infinities, NaNs) and
// random bit patterns. Prints, per element, the old and the new word of each. Run natively
// (nvcc -arch=sm_90) for the truth in tests/gpu-truth/half-atomics.txt, and under
// `warpcheck run --arch sm_90` to compare.
#include <cstdio>
#include <cstdint>
#include <cuda_runtime.h>

__global__ void halfAtomics(unsigned* f16x2, unsigned* bf16x2, unsigned short* bf16,
                            const unsigned* b, unsigned* old, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    unsigned o1, o2;
    unsigned short o3;
    asm volatile("atom.global.add.noftz.f16x2 %0, [%1], %2;" : "=r"(o1) : "l"(f16x2 + i), "r"(b[i]) : "memory");
    asm volatile("atom.global.add.noftz.bf16x2 %0, [%1], %2;" : "=r"(o2) : "l"(bf16x2 + i), "r"(b[i]) : "memory");
    asm volatile("atom.global.add.noftz.bf16 %0, [%1], %2;" : "=h"(o3) : "l"(bf16 + i), "h"((unsigned short)b[i]) : "memory");
    old[3 * i] = o1;
    old[3 * i + 1] = o2;
    old[3 * i + 2] = o3;
}

static const unsigned short EDGES[] = {
    0x0000, 0x8000, 0x0001, 0x8001, 0x03ff, 0x0400, 0x3c00, 0xbc00, 0x7bff, 0xfbff,
    0x7c00, 0xfc00, 0x7e00, 0x7c01, 0x0080, 0x007f, 0x3f80, 0x7f7f, 0xff7f, 0x7f80,
    0xff80, 0x7fc0, 0x7f81, 0x3800, 0x0002,
};
static unsigned state = 12345u;
static unsigned short next16()
{
    state = state * 1664525u + 1013904223u;
    unsigned r = state >> 8;
    const unsigned n = sizeof(EDGES) / sizeof(EDGES[0]);
    return (r & 3) == 0 ? EDGES[(r >> 2) % n] : (unsigned short)(r >> 4);
}

int main()
{
    const int n = 2048;
    static unsigned a[n], b[n], old[3 * n], r1[n], r2[n];
    static unsigned short a16[n], r3[n];
    for (int i = 0; i < n; i++) {
        a[i] = next16() | (unsigned)next16() << 16;
        b[i] = next16() | (unsigned)next16() << 16;
        a16[i] = (unsigned short)a[i];
    }
    unsigned *d1, *d2, *db, *dold;
    unsigned short* d3;
    cudaMalloc(&d1, n * 4);
    cudaMalloc(&d2, n * 4);
    cudaMalloc(&d3, n * 2);
    cudaMalloc(&db, n * 4);
    cudaMalloc(&dold, 3 * n * 4);
    cudaMemcpy(d1, a, n * 4, cudaMemcpyHostToDevice);
    cudaMemcpy(d2, a, n * 4, cudaMemcpyHostToDevice);
    cudaMemcpy(d3, a16, n * 2, cudaMemcpyHostToDevice);
    cudaMemcpy(db, b, n * 4, cudaMemcpyHostToDevice);
    halfAtomics<<<n / 256, 256>>>(d1, d2, d3, db, dold, n);
    cudaMemcpy(r1, d1, n * 4, cudaMemcpyDeviceToHost);
    cudaMemcpy(r2, d2, n * 4, cudaMemcpyDeviceToHost);
    cudaMemcpy(r3, d3, n * 2, cudaMemcpyDeviceToHost);
    cudaMemcpy(old, dold, 3 * n * 4, cudaMemcpyDeviceToHost);
    if (cudaGetLastError() != cudaSuccess) {
        printf("CUDA error\n");
        return 1;
    }
    printf("# i a b | f16x2 old new | bf16x2 old new | bf16 old new\n");
    for (int i = 0; i < n; i++)
        printf("%d %08x %08x | %08x %08x | %08x %08x | %04x %04x\n", i, a[i], b[i], old[3 * i], r1[i],
               old[3 * i + 1], r2[i], old[3 * i + 2], r3[i]);
    return 0;
}
