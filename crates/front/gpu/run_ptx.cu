// Loads a PTX file with the CUDA driver API, runs its `semantics` kernel (see
// shim_semantics.cu) on one block of 64 threads, and prints every result word, one thread
// per line, followed by the atomic counters.
//   run_ptx FILE.ptx
#include <cuda.h>
#include <cstdio>
#include <cstdlib>
#include <vector>
#include <fstream>
#include <sstream>

#define CHECK(call)                                                              \
  do {                                                                           \
    CUresult r = (call);                                                         \
    if (r != CUDA_SUCCESS) {                                                     \
      const char *s = nullptr;                                                   \
      cuGetErrorString(r, &s);                                                   \
      std::fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #call, s);     \
      std::exit(1);                                                              \
    }                                                                            \
  } while (0)

int main(int argc, char **argv) {
  if (argc != 2) { std::fprintf(stderr, "usage: run_ptx FILE.ptx\n"); return 2; }
  std::ifstream file(argv[1]);
  std::stringstream text;
  text << file.rdbuf();
  std::string ptx = text.str();
  const int threads = 64, results = 96;
  CHECK(cuInit(0));
  CUdevice device; CHECK(cuDeviceGet(&device, 0));
  CUcontext context; CHECK(cuDevicePrimaryCtxRetain(&context, device));
  CHECK(cuCtxSetCurrent(context));
  char log[8192] = {0};
  CUjit_option options[] = {CU_JIT_ERROR_LOG_BUFFER, CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES};
  void *values[] = {log, (void *)(size_t)sizeof(log)};
  CUmodule module;
  CUresult loaded = cuModuleLoadDataEx(&module, ptx.c_str(), 2, options, values);
  if (loaded != CUDA_SUCCESS) { std::fprintf(stderr, "cannot load %s: %d\n%s\n", argv[1], loaded, log); return 1; }
  CUfunction kernel; CHECK(cuModuleGetFunction(&kernel, module, "semantics"));
  std::vector<unsigned> in(threads), out(threads * results, 0xdeadbeefu), counters(8, 0);
  counters[1] = 0xffffffffu;
  for (int i = 0; i < threads; i++) in[i] = 1000003u * i + 17u;
  CUdeviceptr d_out, d_in, d_sum, d_counters;
  CHECK(cuMemAlloc(&d_out, out.size() * 4)); CHECK(cuMemAlloc(&d_in, in.size() * 4));
  CHECK(cuMemAlloc(&d_sum, 4)); CHECK(cuMemAlloc(&d_counters, counters.size() * 4));
  CHECK(cuMemcpyHtoD(d_out, out.data(), out.size() * 4)); CHECK(cuMemcpyHtoD(d_in, in.data(), in.size() * 4));
  CHECK(cuMemsetD32(d_sum, 0, 1)); CHECK(cuMemcpyHtoD(d_counters, counters.data(), counters.size() * 4));
  void *args[] = {&d_out, &d_in, &d_sum, &d_counters};
  CHECK(cuLaunchKernel(kernel, 1, 1, 1, threads, 1, 1, 0, nullptr, args, nullptr));
  CHECK(cuCtxSynchronize());
  float sum; CHECK(cuMemcpyDtoH(out.data(), d_out, out.size() * 4));
  CHECK(cuMemcpyDtoH(&sum, d_sum, 4)); CHECK(cuMemcpyDtoH(counters.data(), d_counters, counters.size() * 4));
  for (int t = 0; t < threads; t++) {
    std::printf("t%02d", t);
    for (int k = 0; k < results; k++) std::printf(" %08x", out[t * results + k]);
    std::printf("\n");
  }
  std::printf("fsum %08x counters", *(unsigned *)&sum);
  for (unsigned c : counters) std::printf(" %08x", c);
  std::printf("\n");
  return 0;
}
