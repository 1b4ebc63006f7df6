// Launches through cudaLaunchKernelExC, as CUB's algorithms (thrust::sort in the
// radixSortThrust sample) and cudaLaunchKernelEx make them: a configuration with
// programmatic stream serialisation and a priority, which change nothing when launches
// run one after the other; a cooperative attribute, which makes it a cooperative launch
// (a grid larger than the device holds at once is refused with
// cudaErrorCooperativeLaunchTooLarge, as cudaLaunchCooperativeKernel does); and a cluster
// dimension, which warpcheck does not support and
// refuses by name (cudaErrorNotSupported, an api-error at its call).
//
// warpcheck-exit: 1
// warpcheck-stdout: serialised = 0, sum = 4032
// warpcheck-stdout: cooperative = 0, total = 2016, too large = 720
// warpcheck-stdout: cluster = 801

#include <cstdio>
#include <cuda_runtime.h>

__global__ void twice(int *a, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) a[i] = 2 * i;
}

__global__ void grid_total(const int *a, int *total, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) atomicAdd(total, a[i] / 2);
}

int main() {
  const int n = 64;
  int *a, *total;
  cudaMalloc(&a, n * sizeof(int));
  cudaMalloc(&total, sizeof(int));
  cudaMemset(total, 0, sizeof(int));
  int count = n;
  void *args[] = {&a, &count};
  cudaLaunchAttribute attrs[2];
  attrs[0].id = cudaLaunchAttributeProgrammaticStreamSerialization;
  attrs[0].val.programmaticStreamSerializationAllowed = 1;
  attrs[1].id = cudaLaunchAttributePriority;
  attrs[1].val.priority = 0;
  cudaLaunchConfig_t config = {};
  config.gridDim = dim3(2);
  config.blockDim = dim3(32);
  config.attrs = attrs;
  config.numAttrs = 2;
  int serialised = cudaLaunchKernelExC(&config, (const void *)twice, args);
  int h[n];
  cudaMemcpy(h, a, sizeof h, cudaMemcpyDeviceToHost);
  int sum = 0;
  for (int i = 0; i < n; ++i) sum += h[i];
  printf("serialised = %d, sum = %d\n", serialised, sum);

  void *grid_args[] = {&a, &total, &count};
  attrs[0].id = cudaLaunchAttributeCooperative;
  attrs[0].val.cooperative = 1;
  config.numAttrs = 1;
  int cooperative = cudaLaunchKernelExC(&config, (const void *)grid_total, grid_args);
  int t;
  cudaMemcpy(&t, total, sizeof t, cudaMemcpyDeviceToHost);
  config.gridDim = dim3(1 << 20);
  int too_large = cudaLaunchKernelExC(&config, (const void *)grid_total, grid_args); //~ api-error
  printf("cooperative = %d, total = %d, too large = %d\n", cooperative, t, too_large);
  config.gridDim = dim3(2);

  attrs[0].id = cudaLaunchAttributeClusterDimension;
  attrs[0].val.clusterDim.x = 2;
  attrs[0].val.clusterDim.y = 1;
  attrs[0].val.clusterDim.z = 1;
  int cluster = cudaLaunchKernelExC(&config, (const void *)twice, args); //~ api-error
  printf("cluster = %d\n", cluster);
  cudaFree(a);
  cudaFree(total);
  return 0;
}
