// Tiled copy through shared memory with cp.async (double-buffered)
// Each block of 64 threads stages two 256-float tiles of `in` in shared memory with
// 16-byte `cp.async` copies (inline PTX, as CUTLASS-style code writes them), one commit
// group per tile, then waits for the first group only (`cp.async.wait_group 1`), syncs and
// writes that tile to `out` reversed and doubled, then waits for the second. The tail of
// the last tile is zero-filled with a short source size (n is not a multiple of the tile).
// Correct: no findings (every thread reads other threads' copies only after its own wait
// and a barrier).
//
// warpcheck-launch: --kernel tile_copy --grid 2 --block 64 --arg out=f32[1024] --arg in=f32[1024]:rand --arg n=1000
// warpcheck-expect: clean

#define TILE 256

// Copies 16 bytes from global to shared; only `src_bytes` (0..16) are read, the rest of
// the 16 destination bytes is zero-filled.
__device__ __forceinline__ void cp_async16(void* smem, const void* gmem, unsigned src_bytes)
{
    asm volatile("{\n"
                 "  .reg .u64 sa;\n"
                 "  .reg .u32 s32;\n"
                 "  cvta.to.shared.u64 sa, %0;\n"
                 "  cvt.u32.u64 s32, sa;\n"
                 "  cp.async.cg.shared.global [s32], [%1], 16, %2;\n"
                 "}\n" ::"l"(smem),
                 "l"(gmem), "r"(src_bytes)
                 : "memory");
}

__device__ __forceinline__ void cp_async_commit() { asm volatile("cp.async.commit_group;\n" ::: "memory"); }

template <int N>
__device__ __forceinline__ void cp_async_wait() { asm volatile("cp.async.wait_group %0;\n" ::"n"(N) : "memory"); }

__device__ void stage(float* buf, const float* in, int base, int n)
{
    int i = base + threadIdx.x * 4;
    int left = n - i;
    unsigned bytes = left >= 4 ? 16u : (left > 0 ? (unsigned)left * 4u : 0u);
    cp_async16(buf + threadIdx.x * 4, in + i, bytes);
    cp_async_commit();
}

__device__ void drain(float* out, const float* buf, int base)
{
    for (int k = threadIdx.x; k < TILE; k += blockDim.x)
        out[base + k] = 2.0f * buf[TILE - 1 - k];
}

__global__ void tile_copy(float* out, const float* in, int n)
{
    __shared__ __align__(16) float tiles[2][TILE];
    int base0 = blockIdx.x * 2 * TILE;
    int base1 = base0 + TILE;
    stage(tiles[0], in, base0, n);
    stage(tiles[1], in, base1, n);
    cp_async_wait<1>();
    __syncthreads();
    drain(out, tiles[0], base0);
    cp_async_wait<0>();
    __syncthreads();
    drain(out, tiles[1], base1);
}
