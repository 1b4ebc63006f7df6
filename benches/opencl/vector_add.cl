// Benchmark (OpenCL C): vector addition over 1M floats (1,048,576), one work-item each
// The OpenCL counterpart of benches/kernels/vector_add.cu, at the size Oclgrind's
// reference figure was taken at (issue 3): 4,096 work-groups of 256 work-items. Run by
// tools/bench.sh oclgrind with warpcheck (the header below) and with oclgrind-kernel
// (vector_add.sim), on the same inputs (ones and twos, so every element of out is 3).
//
// warpcheck-launch: --kernel vectorAdd --grid 4096 --block 256 --arg x=f32[count]:fill(1) --arg y=f32[count]:fill(2) --arg out=f32[count] --arg count=1048576
// warpcheck-expect: clean

__kernel void vectorAdd(__global const float* x, __global const float* y, __global float* out,
                        const int count)
{
    const int i = get_global_id(0);
    if (i < count) {
        out[i] = x[i] + y[i];
    }
}
