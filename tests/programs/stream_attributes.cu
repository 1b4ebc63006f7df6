// Stream attributes, as the simpleAttributes sample sets them: an L2 access policy
// window set with cudaStreamSetAttribute is read back by cudaStreamGetAttribute, an
// attribute never set has a new stream's default (cudaSyncPolicyAuto), and an id that
// is not a stream attribute is an API error (cudaErrorInvalidValue).
//
// warpcheck-exit: 1
// warpcheck-stdout: set = 0, get = 0, bytes = 4096, hit = 2, miss = 1
// warpcheck-stdout: sync policy = 1
// warpcheck-stdout: bad attribute = 1

#include <cstdio>
#include <cuda_runtime.h>

int main() {
  cudaStream_t s;
  cudaStreamCreate(&s);
  int *d;
  cudaMalloc(&d, 4096);
  cudaStreamAttrValue v = {};
  v.accessPolicyWindow.base_ptr = d;
  v.accessPolicyWindow.num_bytes = 4096;
  v.accessPolicyWindow.hitRatio = 0.6f;
  v.accessPolicyWindow.hitProp = cudaAccessPropertyPersisting;
  v.accessPolicyWindow.missProp = cudaAccessPropertyStreaming;
  int set = cudaStreamSetAttribute(s, cudaStreamAttributeAccessPolicyWindow, &v);
  cudaStreamAttrValue back = {};
  int get = cudaStreamGetAttribute(s, cudaStreamAttributeAccessPolicyWindow, &back);
  printf("set = %d, get = %d, bytes = %zu, hit = %d, miss = %d\n", set, get,
         back.accessPolicyWindow.num_bytes, (int)back.accessPolicyWindow.hitProp,
         (int)back.accessPolicyWindow.missProp);
  cudaStreamGetAttribute(s, cudaStreamAttributeSynchronizationPolicy, &back);
  printf("sync policy = %d\n", (int)back.syncPolicy);
  int bad = cudaStreamSetAttribute(s, cudaLaunchAttributeCooperative, &v); //~ api-error
  printf("bad attribute = %d\n", bad);
  cudaFree(d);
  cudaStreamDestroy(s);
  return 0;
}
