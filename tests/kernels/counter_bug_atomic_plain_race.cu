// Counting kernel that resets its atomic counter with a plain store
// Threads count the elements above a threshold with atomicAdd(count, 1), but the kernel
// also "helpfully" resets the counter itself: global thread 0 stores *count = 0. Nothing
// orders that plain store against the other threads' atomics (other warps and other
// blocks run before or after it). Bug: global race between the plain write and the
// atomic read-modify-writes of count[0]; both lines are marked. (Atomics never race with
// each other; the plain store is what makes this a race.) The result depends on timing.
//
// warpcheck-launch: --kernel countAboveThreshold --grid 16 --block 256 --arg in=f32[n]:rand --arg count=i32[1]:fill(7) --arg threshold=0.5 --arg n=4096
// warpcheck-expect: findings

__global__ void countAboveThreshold(const float* in, int* count, float threshold, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i == 0) {
        *count = 0; //~ global-race
    }
    if (i < n && in[i] > threshold) {
        atomicAdd(count, 1); //~ global-race
    }
}
