// The cost of CUDA runtime calls under `warpcheck run`: N cudaMemcpy of 4 bytes each way,
// N cudaMalloc/cudaFree pairs, L launches of a one-thread kernel that does nothing, and
// L launches of a one-thread kernel that writes one word, and 8 copies of 64 MiB each way
// (the copy's own cost, in GB/s). Each phase prints its wall time and the process's CPU
// time (all threads) per call.
//
//   warpcheck run benches/programs/api_calls.cu -- [N [L]]   (N = 100000, L = N / 10)
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <cuda_runtime.h>

__global__ void empty_kernel() {}

__global__ void store_one(int *out, int value) { *out = value; }

static double now(clockid_t clock) {
  timespec t;
  clock_gettime(clock, &t);
  return t.tv_sec + t.tv_nsec * 1e-9;
}

struct Phase {
  const char *name;
  long calls;
  double bytes;
  double wall, cpu;
  Phase(const char *n, long c, double b = 0)
      : name(n), calls(c), bytes(b), wall(now(CLOCK_MONOTONIC)),
        cpu(now(CLOCK_PROCESS_CPUTIME_ID)) {}
  ~Phase() {
    double w = now(CLOCK_MONOTONIC) - wall, c = now(CLOCK_PROCESS_CPUTIME_ID) - cpu;
    printf("%-34s %8ld calls  wall %8.3f s  %9.2f us/call  cpu %8.3f s  %9.2f us/call", name,
           calls, w, w / calls * 1e6, c, c / calls * 1e6);
    if (bytes > 0) printf("  %6.2f GB/s (cpu)", bytes * calls / c * 1e-9);
    printf("\n");
  }
};

static void check(cudaError_t e, const char *what) {
  if (e != cudaSuccess) {
    fprintf(stderr, "%s: %s\n", what, cudaGetErrorString(e));
    exit(1);
  }
}

int main(int argc, char **argv) {
  long n = argc > 1 ? atol(argv[1]) : 100000;
  int *d = nullptr;
  check(cudaMalloc(&d, sizeof(int)), "cudaMalloc");
  int h = 7, back = 0;
  {
    Phase p("cudaMemcpy 4 B host to device", n);
    for (long i = 0; i < n; i++) check(cudaMemcpy(d, &h, 4, cudaMemcpyHostToDevice), "H2D");
  }
  {
    Phase p("cudaMemcpy 4 B device to host", n);
    for (long i = 0; i < n; i++) check(cudaMemcpy(&back, d, 4, cudaMemcpyDeviceToHost), "D2H");
  }
  {
    Phase p("cudaMalloc + cudaFree of 256 B", n);
    for (long i = 0; i < n; i++) {
      int *q = nullptr;
      check(cudaMalloc(&q, 256), "cudaMalloc");
      check(cudaFree(q), "cudaFree");
    }
  }
  long launches = argc > 2 ? atol(argv[2]) : n / 10;
  {
    Phase p("empty_kernel<<<1, 1>>>", launches);
    for (long i = 0; i < launches; i++) empty_kernel<<<1, 1>>>();
    check(cudaDeviceSynchronize(), "empty_kernel");
  }
  {
    Phase p("store_one<<<1, 1>>>", launches);
    for (long i = 0; i < launches; i++) store_one<<<1, 1>>>(d, (int)i);
    check(cudaDeviceSynchronize(), "store_one");
  }
  check(cudaMemcpy(&back, d, 4, cudaMemcpyDeviceToHost), "D2H");
  check(cudaFree(d), "cudaFree");
  bool ok = back == (int)(launches - 1);
  const size_t big = 64 << 20;
  const int copies = 8;
  char *host = (char *)malloc(big), *dbig = nullptr;
  for (size_t i = 0; i < big; i++) host[i] = (char)i;
  check(cudaMalloc(&dbig, big), "cudaMalloc");
  {
    Phase p("cudaMemcpy 64 MiB host to device", copies, big);
    for (int i = 0; i < copies; i++) check(cudaMemcpy(dbig, host, big, cudaMemcpyHostToDevice), "H2D");
  }
  {
    Phase p("cudaMemcpy 64 MiB device to host", copies, big);
    for (int i = 0; i < copies; i++) check(cudaMemcpy(host, dbig, big, cudaMemcpyDeviceToHost), "D2H");
  }
  for (size_t i = 0; i < big; i += 4099) ok = ok && host[i] == (char)i;
  check(cudaFree(dbig), "cudaFree");
  free(host);
  printf("%s\n", ok ? "PASS" : "FAIL");
  return ok ? 0 : 1;
}
