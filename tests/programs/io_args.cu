// Reads a scale factor from argv[1] and numbers from stdin, scales them on the device,
// prints them and writes them to the file argv[2]; exits with the count of numbers
// read. Tests that arguments, stdin, stdout, files and the exit code are the program's.
// Clean: no finding; exit code 3 (the program's own).
//
// warpcheck-args: 10 {tmp}/scaled.txt
// warpcheck-stdin: 1.5 2 -4
// warpcheck-exit: 3
// warpcheck-stdout: read 3 numbers
// warpcheck-stdout: 15 20 -40

#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>

__global__ void scale(float *v, int n, float k) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) v[i] *= k;
}

int main(int argc, char **argv) {
  if (argc < 3) {
    fprintf(stderr, "usage: %s FACTOR OUT\n", argv[0]);
    return 2;
  }
  float k = atof(argv[1]), h[64];
  int n = 0;
  while (n < 64 && scanf("%f", &h[n]) == 1) ++n;
  printf("read %d numbers\n", n);
  float *d;
  cudaMalloc(&d, sizeof(h));
  cudaMemcpy(d, h, n * sizeof(float), cudaMemcpyHostToDevice);
  scale<<<1, 64>>>(d, n, k);
  cudaMemcpy(h, d, n * sizeof(float), cudaMemcpyDeviceToHost);
  cudaFree(d);
  FILE *out = fopen(argv[2], "w");
  for (int i = 0; i < n; ++i) {
    printf("%g%s", h[i], i + 1 < n ? " " : "\n");
    if (out) fprintf(out, "%g\n", h[i]);
  }
  if (out) fclose(out);
  return n;
}
