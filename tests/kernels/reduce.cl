// OpenCL work-group sum reduction in __local memory
// Each work-item adds two inputs while loading, then a halving tree in a __local array
// with barrier(CLK_LOCAL_MEM_FENCE) after every level; work-item 0 writes the group's
// partial sum. Sequential addressing: no bank conflicts. Correct: no findings.
//
// warpcheck-launch: --kernel reduceSum --grid 8 --block 256 --arg in=f32[n]:rand --arg partial=f32[8] --arg n=4000
// warpcheck-expect: clean

#define GROUP_SIZE 256

__kernel void reduceSum(__global const float* in, __global float* partial, const int n)
{
    __local float scratch[GROUP_SIZE];

    int lid = get_local_id(0);
    int groupSize = get_local_size(0);
    int i = get_group_id(0) * groupSize * 2 + lid;

    float v = 0.0f;
    if (i < n) {
        v = in[i];
    }
    if (i + groupSize < n) {
        v += in[i + groupSize];
    }
    scratch[lid] = v;
    barrier(CLK_LOCAL_MEM_FENCE);

    for (int s = groupSize / 2; s > 0; s >>= 1) {
        if (lid < s) {
            scratch[lid] += scratch[lid + s];
        }
        barrier(CLK_LOCAL_MEM_FENCE);
    }

    if (lid == 0) {
        partial[get_group_id(0)] = scratch[0];
    }
}
