// Integer intrinsics: __popc, __clz, __ffs, __brev, __byte_perm and __umulhi
// Each thread scrambles its index with a multiplicative hash and records bit statistics
// of the result in separate (struct-of-arrays) outputs: population count, leading zeros,
// first set bit, bit reversal, byte swap via __byte_perm(v, 0, 0x0123) and the high
// word of a 32x32 multiply. Pure integer arithmetic: bit-exact. Correct: no findings.
//
// warpcheck-launch: --kernel bitStats --grid 2 --block 256 --arg seeds=u32[n]:iota --arg popc=i32[n] --arg clz=i32[n] --arg ffs=i32[n] --arg brev=u32[n] --arg bswap=u32[n] --arg mulhi=u32[n] --arg n=512
// warpcheck-expect: clean

__global__ void bitStats(const unsigned int* seeds, int* popc, int* clz, int* ffs,
                         unsigned int* brev, unsigned int* bswap, unsigned int* mulhi, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        unsigned int v = seeds[i] * 2654435761u;
        popc[i] = __popc(v);
        clz[i] = __clz(v);
        ffs[i] = __ffs(v);
        brev[i] = __brev(v);
        bswap[i] = __byte_perm(v, 0u, 0x0123u);
        mulhi[i] = __umulhi(v, 0x9E3779B9u);
    }
}
