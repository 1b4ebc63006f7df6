// Block-wise argmax with two arrays carved out of one dynamic shared buffer
// The dynamic allocation (--shared 2048) is split by hand into 256 floats of values and
// 256 ints of indices, the usual way to get several dynamically sized shared arrays.
// A tree reduction keeps the larger value (ties: the smaller index), then thread 0
// writes the block's maximum and its position. Correct: no findings.
//
// warpcheck-launch: --kernel blockArgMax --grid 8 --block 256 --shared 2048 --arg data=f32[n]:rand --arg maxVal=f32[8] --arg maxIdx=i32[8] --arg n=2000
// warpcheck-expect: clean

__global__ void blockArgMax(const float* data, float* maxVal, int* maxIdx, int n)
{
    extern __shared__ unsigned char smem[];
    float* sVal = reinterpret_cast<float*>(smem);
    int* sIdx = reinterpret_cast<int*>(sVal + blockDim.x);

    unsigned int tid = threadIdx.x;
    int i = blockIdx.x * blockDim.x + tid;
    sVal[tid] = (i < n) ? data[i] : -INFINITY;
    sIdx[tid] = (i < n) ? i : -1;
    __syncthreads();

    for (unsigned int s = blockDim.x / 2; s > 0; s >>= 1) {
        if (tid < s) {
            float other = sVal[tid + s];
            int otherIdx = sIdx[tid + s];
            if (other > sVal[tid] || (other == sVal[tid] && otherIdx >= 0 && otherIdx < sIdx[tid])) {
                sVal[tid] = other;
                sIdx[tid] = otherIdx;
            }
        }
        __syncthreads();
    }

    if (tid == 0) {
        maxVal[blockIdx.x] = sVal[0];
        maxIdx[blockIdx.x] = sIdx[0];
    }
}
