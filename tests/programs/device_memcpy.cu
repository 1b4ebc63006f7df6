// memcpy and memset in device code (the C library functions CUDA declares for the device;
// NVIDIA's shfl_scan sample packs a result with memcpy): each thread clears a local
// record with memset, fills it, and copies it to its slot of global memory with memcpy.
// The one finding is real: the lanes of a warp write records 32 bytes apart, so every
// store of the copy touches 32 sectors (uncoalesced-access, a warning); the program checks
// the records itself and exits 0.
//
// warpcheck-exit: 0
// warpcheck-nvcc: fails (nvcc marks the byte loop of the inlined memcpy with `.loc 1 0`, no line: the finding is located in the PTX, not on the marked line)
// warpcheck-stdout: device memcpy and memset: PASS

#include <cstdio>
#include <cstring>
#include <cuda_runtime.h>

struct Record {
  int id;
  float values[7];
};

__global__ void pack(Record *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  Record r;
  memset(&r, 0, sizeof(r));
  r.id = i;
  r.values[i % 7] = 0.5f * i;
  memcpy(&out[i], &r, sizeof(r)); //~ uncoalesced-access
}

int main() {
  const int n = 1000;
  Record *d = nullptr;
  cudaMalloc(&d, n * sizeof(Record));
  cudaMemset(d, 0xff, n * sizeof(Record));
  pack<<<(n + 127) / 128, 128>>>(d, n); //~ launch
  static Record h[n];
  cudaMemcpy(h, d, sizeof(h), cudaMemcpyDeviceToHost);
  bool ok = true;
  for (int i = 0; i < n; i++) {
    ok = ok && h[i].id == i;
    for (int k = 0; k < 7; k++) ok = ok && h[i].values[k] == (k == i % 7 ? 0.5f * i : 0.0f);
  }
  printf("device memcpy and memset: %s\n", ok ? "PASS" : "FAIL");
  cudaFree(d);
  return ok ? 0 : 1;
}
