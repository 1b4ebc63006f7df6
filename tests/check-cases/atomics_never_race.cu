// Atomics never race with each other; a plain read of the counter does
// Every thread of every block increments one global counter and a shared one atomically:
// no race. Thread 0 of each block then reads the shared counter after a barrier (ordered),
// and reads the global counter without any ordering against other blocks' atomics: race.
//
// warpcheck-launch: --kernel count --grid 4 --block 128 --arg counter=i32[1] --arg out=i32[8]
// warpcheck-expect: findings

__global__ void count(int* counter, int* out)
{
    __shared__ int local;
    if (threadIdx.x == 0) {
        local = 0;
    }
    __syncthreads();
    atomicAdd(&local, 1);
    atomicAdd(counter, 1); //~ global-race
    __syncthreads();
    if (threadIdx.x == 0) {
        out[blockIdx.x] = local;
        out[4 + blockIdx.x] = *counter; //~ global-race
    }
}
