// Boyer, Skadron, Weimer 2008, Figure 1 with the barrier the paper adds
// The same neighbour exchange as boyer_fig1_bug_raw.cu with __syncthreads() between the
// store and the load, which the paper shows removes the reported race. Every thread
// writes its id first, so out[id] == (id + 1) % 64 deterministically.
// Correct: no findings.
//
// warpcheck-launch: --kernel kernel --grid 1 --block 64 --shared 256 --arg out=i32[64]
// warpcheck-expect: clean

extern __shared__ int s[];

__global__ void kernel(int* out)
{
    int id = threadIdx.x;
    int nt = blockDim.x;

    s[id] = id;
    __syncthreads();
    out[id] = s[(id + 1) % nt];
}
