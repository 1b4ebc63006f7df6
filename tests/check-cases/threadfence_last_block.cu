// The last block sums every block's partial result: the pattern of the CUDA Programming
// Guide's `__threadfence()` example and of NVIDIA's threadFenceReduction sample. Each
// block writes its partial sum, fences, and takes a ticket with `atomicInc`; the block
// that draws the last ticket reads all partial sums after a barrier, writes the total
// over partial[0], and resets the counter with a plain store. The fence before the
// atomic publishes the partial sum (a release), and the atomic that draws the last ticket
// learns every earlier release (an acquire): no race. Without the fence, or with the
// partial sum written after the ticket, the same reads race (the variants).
//
// warpcheck-launch: --kernel lastBlockSum --grid 8 --block 64 --arg in=f32[512]:rand --arg partial=f32[8] --arg count=u32[1]
// warpcheck-variant: -DNO_FENCE=1 global-race@30,35,45,47,48
// warpcheck-variant: -DLATE_WRITE=1 global-race@37,45,47
// warpcheck-expect: clean

__global__ void lastBlockSum(const float* in, float* partial, unsigned int* count)
{
    __shared__ float sum[64];
    __shared__ bool amLast;
    unsigned int tid = threadIdx.x;
    sum[tid] = in[blockIdx.x * blockDim.x + tid];
    __syncthreads();
    for (unsigned int s = 32; s > 0; s >>= 1) {
        if (tid < s) {
            sum[tid] += sum[tid + s];
        }
        __syncthreads();
    }
    if (tid == 0) {
#if !LATE_WRITE
        partial[blockIdx.x] = sum[0];
#endif
#if !NO_FENCE
        __threadfence();
#endif
        unsigned int ticket = atomicInc(count, gridDim.x);
#if LATE_WRITE
        partial[blockIdx.x] = sum[0];
#endif
        amLast = ticket == gridDim.x - 1;
    }
    __syncthreads();
    if (amLast && tid == 0) {
        float total = 0.0f;
        for (unsigned int b = 0; b < gridDim.x; b++) {
            total += partial[b];
        }
        partial[0] = total;
        *count = 0;
    }
}
