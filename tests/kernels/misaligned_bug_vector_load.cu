// float4 loads from a buffer whose payload starts one float after a header
// The data buffer holds one header float followed by 4*numQuads payload floats; the
// kernel vectorises the payload by casting data + 1 to const float4*. Bug: data + 1 is
// only 4-byte aligned, so every 16-byte load on the marked line is at an address that is
// 4 mod 16 (misaligned; a real GPU raises "misaligned address" and aborts the kernel).
//
// warpcheck-launch: --kernel sumQuads --grid 1 --block 128 --arg data=f32[513]:rand --arg out=f32[128] --arg numQuads=128
// warpcheck-expect: findings

__global__ void sumQuads(const float* data, float* out, int numQuads)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < numQuads) {
        const float4* quads = reinterpret_cast<const float4*>(data + 1);
        float4 q = quads[i]; //~ misaligned
        out[i] = q.x + q.y + q.z + q.w;
    }
}
