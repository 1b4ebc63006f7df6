// Read-modify-write of four counters by every thread without atomics (lost updates)
// Every thread adds its input to out[i % 4] with a plain load and store: warps and blocks
// race on the four words (write-after-write and read-after-write between warps and between
// blocks), so the sums depend on the order the hardware (or the emulator's scheduler)
// interleaves them. `warpcheck run FILE --from-header --gpu --deterministic` gives the same
// sums on every run: each warp adds to its private copy, merged in warp and block order.
//
// warpcheck-launch: --kernel lostUpdates --grid 8 --block 128 --arg out=u32[4]:zeros --arg in=u32[n]:iota --arg n=1024

__global__ void lostUpdates(unsigned int* out, const unsigned int* in, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        out[i % 4] += in[i];
    }
}
