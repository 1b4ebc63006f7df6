// Kernels for crates/emu/tests/it/heap.rs: device-side malloc and free.

// Each thread allocates `n` ints, fills and sums them, and records its pointer.
__global__ void scratch(unsigned long long *where, int *sums, int n) {
  int t = blockIdx.x * blockDim.x + threadIdx.x;
  int *s = (int *)malloc(n * sizeof(int));
  where[t] = (unsigned long long)s;
  if (s == NULL) {
    sums[t] = -1;
    return;
  }
  for (int i = 0; i < n; i++) s[i] = t + i;
  int sum = 0;
  for (int i = 0; i < n; i++) sum += s[i];
  sums[t] = sum;
  free(s);
}

// Keeps one block per thread for a later launch to free.
__global__ void keep(int **slots, int n) {
  int t = threadIdx.x;
  int *p = new int[n];
  for (int i = 0; i < n; i++) p[i] = t * 100 + i;
  slots[t] = p;
}

__global__ void release(int **slots, int *firsts) {
  int t = threadIdx.x;
  firsts[t] = slots[t][0];
  delete[] slots[t];
  free(NULL);
}

// Reads one element past a block's end.
__global__ void overrun(int *out, int n) {
  int *p = (int *)malloc(n * sizeof(int));
  p[n] = 1;
  out[0] = p[0];
}

__global__ void twice(char **keep, int n) {
  char *p = (char *)malloc(n);
  *keep = p;
  free(p);
  free(p);
}

__global__ void after(int *out) {
  int *p = (int *)malloc(16);
  p[0] = 3;
  free(p);
  out[0] = p[0];
}

__global__ void wrong(int **keep) {
  int *p = (int *)malloc(16);
  *keep = p;
  free(p + 1);
  free(NULL);
}
