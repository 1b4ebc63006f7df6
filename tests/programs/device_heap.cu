// Clean: the device heap across launches. The program sets the heap to 64 KiB, checks
// cudaDeviceGetLimit reads it back, lets one launch build a node per thread with malloc
// (kept in a table), and a second launch sum and free them. The nodes, one per thread,
// are apart in the heap: their accesses are uncoalesced.
//
// warpcheck-exit: 0
// warpcheck-stdout: heap limit 65536
// warpcheck-stdout: sum 2016 ok

#include <cstdio>
#include <cuda_runtime.h>

struct Node {
  int value;
  int square;
};

__global__ void build(Node **table) {
  int t = threadIdx.x;
  Node *n = (Node *)malloc(sizeof(Node));
  if (n != NULL) {
    n->value = t; //~ uncoalesced-access
    n->square = t * t; //~ uncoalesced-access
  }
  table[t] = n;
}

__global__ void consume(Node **table, int *sum) {
  int t = threadIdx.x;
  Node *n = table[t];
  atomicAdd(sum, n == NULL ? -1000 : n->value); //~ uncoalesced-access
  free(n);
  table[t] = NULL;
}

int main() {
  cudaDeviceSetLimit(cudaLimitMallocHeapSize, 64 << 10);
  size_t limit = 0;
  cudaDeviceGetLimit(&limit, cudaLimitMallocHeapSize);
  printf("heap limit %zu\n", limit);
  Node **table;
  int *sum;
  cudaMalloc(&table, 64 * sizeof(Node *));
  cudaMalloc(&sum, sizeof(int));
  cudaMemset(sum, 0, sizeof(int));
  build<<<1, 64>>>(table); //~ launch
  consume<<<1, 64>>>(table, sum); //~ launch
  int h = 0;
  cudaMemcpy(&h, sum, sizeof(int), cudaMemcpyDeviceToHost);
  printf("sum %d %s\n", h, h == 63 * 64 / 2 ? "ok" : "WRONG");
  cudaFree(table);
  cudaFree(sum);
  return 0;
}
