// Intra-block producer/consumer hand-off that deadlocks (never run this on a GPU)
// Warp 0 spins on a volatile shared flag that warp 1 raises only after a __syncthreads()
// inside warp 1's branch. That barrier waits for warp 0, which is spinning and never
// arrives (it has not exited, so the barrier is not released); warp 0 waits for a flag
// that is never set. Bug: deadlock (the waiting barrier and the spin loop are both
// marked), and the barrier sits under a block-divergent condition (barrier-divergence).
// On real hardware the kernel hangs until the process is killed, so GPU harnesses skip it.
//
// warpcheck-launch: --kernel producerConsumer --grid 1 --block 64 --arg in=f32[32]:rand --arg out=f32[32]
// warpcheck-expect: findings
// warpcheck-gpu: skip (hangs)

__global__ void producerConsumer(const float* in, float* out)
{
    __shared__ volatile int ready;
    __shared__ float buffer[32];

    int t = threadIdx.x;
    if (t == 0) {
        ready = 0;
    }
    __syncthreads();

    if (t < 32) {
        while (ready == 0) { //~ deadlock
        }
        out[t] = buffer[t];
    } else {
        buffer[t - 32] = 2.0f * in[t - 32];
        __syncthreads(); //~ barrier-divergence deadlock
        if (t == 32) {
            ready = 1;
        }
    }
}
