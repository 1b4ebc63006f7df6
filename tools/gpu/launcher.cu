// warpcheck's GPU launcher: runs one kernel launch described by a manifest on a real GPU and
// saves every buffer afterwards, so that the emulator's outputs can be compared with the
// hardware's. Built and run only on the GPU machine (tools/gpu/run_truth.sh); it uses the
// CUDA driver API and needs nothing else.
//
// Manifest (text, one directive per line, '#' starts a comment):
//   module PATH                 cubin or PTX to load
//   buffer INDEX BYTES FILE     device buffer initialised from FILE (raw bytes); FILE "-"
//                               leaves it uninitialised (for compute-sanitizer's initcheck)
//   launch MANGLED_NAME         starts a launch; the directives below apply to it
//   grid X Y Z
//   block X Y Z
//   shared BYTES                dynamic shared memory
//   param OFFSET buffer INDEX   the kernel parameter at OFFSET is buffer INDEX's address
//   param OFFSET bytes HEX      the kernel parameter at OFFSET has these bytes
//   psize BYTES                 total size of the parameter block
// Launches run in order on the same buffers. Output: OUTDIR/buffer<INDEX>.bin for every
// buffer after the last launch, and "ok" or "error: ..." on stdout (exit 3 on a CUDA error,
// e.g. a kernel fault).
#include <cuda.h>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <chrono>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

static void check(CUresult r, const char *what) {
  if (r != CUDA_SUCCESS) {
    const char *name = nullptr, *msg = nullptr;
    cuGetErrorName(r, &name);
    cuGetErrorString(r, &msg);
    printf("error: %s: %s (%s)\n", what, name ? name : "?", msg ? msg : "?");
    exit(3);
  }
}

struct Buffer { size_t bytes; std::string file; CUdeviceptr dev = 0; };

int main(int argc, char **argv) {
  if (argc != 3) { fprintf(stderr, "usage: launcher MANIFEST OUTDIR\n"); return 2; }
  std::ifstream in(argv[1]);
  if (!in) { printf("error: cannot read %s\n", argv[1]); return 2; }
  std::string module_path;
  std::vector<Buffer> buffers;
  struct Param { size_t offset; bool is_buffer; int buffer; std::vector<unsigned char> bytes; };
  struct Launch { std::string kernel; unsigned grid[3] = {1, 1, 1}, block[3] = {1, 1, 1}, shared = 0; size_t psize = 0; std::vector<Param> params; };
  std::vector<Launch> launches;
  std::string line;
  int lineno = 0;
  while (std::getline(in, line)) {
    lineno++;
    if (line.empty() || line[0] == '#') continue;
    std::istringstream ls(line);
    std::string d; ls >> d;
    if (d == "module") { ls >> module_path; continue; }
    if (d == "buffer") {
      size_t idx, bytes; std::string file; ls >> idx >> bytes >> file;
      if (buffers.size() <= idx) buffers.resize(idx + 1);
      buffers[idx].bytes = bytes; buffers[idx].file = file;
      continue;
    }
    if (d == "launch") { launches.emplace_back(); ls >> launches.back().kernel; continue; }
    if (launches.empty()) { printf("error: line %d: '%s' before any 'launch'\n", lineno, d.c_str()); return 2; }
    Launch &L = launches.back();
    if (d == "grid") ls >> L.grid[0] >> L.grid[1] >> L.grid[2];
    else if (d == "block") ls >> L.block[0] >> L.block[1] >> L.block[2];
    else if (d == "shared") ls >> L.shared;
    else if (d == "psize") ls >> L.psize;
    else if (d == "param") {
      Param p; std::string kind; ls >> p.offset >> kind;
      if (kind == "buffer") { p.is_buffer = true; ls >> p.buffer; }
      else {
        p.is_buffer = false; p.buffer = -1; std::string hex; ls >> hex;
        for (size_t i = 0; i + 1 < hex.size(); i += 2) p.bytes.push_back((unsigned char)strtoul(hex.substr(i, 2).c_str(), nullptr, 16));
      }
      L.params.push_back(p);
    } else { printf("error: line %d: unknown manifest directive '%s'\n", lineno, d.c_str()); return 2; }
  }
  check(cuInit(0), "cuInit");
  CUdevice dev; check(cuDeviceGet(&dev, 0), "cuDeviceGet");
  CUcontext ctx; check(cuDevicePrimaryCtxRetain(&ctx, dev), "cuDevicePrimaryCtxRetain");
  check(cuCtxSetCurrent(ctx), "cuCtxSetCurrent");
  CUmodule mod; check(cuModuleLoad(&mod, module_path.c_str()), "cuModuleLoad");
  for (auto &b : buffers) {
    check(cuMemAlloc(&b.dev, b.bytes ? b.bytes : 1), "cuMemAlloc");
    if (b.file == "-") continue;
    std::vector<char> host(b.bytes);
    std::ifstream f(b.file, std::ios::binary);
    if (!f.read(host.data(), b.bytes)) { printf("error: cannot read %zu bytes from %s\n", b.bytes, b.file.c_str()); return 2; }
    check(cuMemcpyHtoD(b.dev, host.data(), b.bytes), "cuMemcpyHtoD");
  }
  auto started = std::chrono::steady_clock::now();
  for (auto &L : launches) {
    CUfunction fn; check(cuModuleGetFunction(&fn, mod, L.kernel.c_str()), "cuModuleGetFunction");
    if (L.shared > 48 * 1024)
      check(cuFuncSetAttribute(fn, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, L.shared), "cuFuncSetAttribute");
    std::vector<unsigned char> pblock(L.psize ? L.psize : 1, 0);
    for (auto &p : L.params) {
      if (p.is_buffer) { CUdeviceptr a = buffers.at(p.buffer).dev; memcpy(&pblock.at(p.offset), &a, sizeof a); }
      else memcpy(&pblock.at(p.offset), p.bytes.data(), p.bytes.size());
    }
    size_t psize = L.psize;
    void *config[] = {CU_LAUNCH_PARAM_BUFFER_POINTER, pblock.data(), CU_LAUNCH_PARAM_BUFFER_SIZE, &psize, CU_LAUNCH_PARAM_END};
    check(cuLaunchKernel(fn, L.grid[0], L.grid[1], L.grid[2], L.block[0], L.block[1], L.block[2], L.shared, 0, nullptr, config), "cuLaunchKernel");
    check(cuCtxSynchronize(), ("kernel " + L.kernel).c_str());
  }
  // The launches' wall time (launch to synchronisation, no copies), on stderr.
  fprintf(stderr, "launch_ms %.3f\n",
          std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - started).count());
  for (size_t i = 0; i < buffers.size(); i++) {
    std::vector<char> host(buffers[i].bytes);
    check(cuMemcpyDtoH(host.data(), buffers[i].dev, buffers[i].bytes), "cuMemcpyDtoH");
    std::string out = std::string(argv[2]) + "/buffer" + std::to_string(i) + ".bin";
    std::ofstream f(out, std::ios::binary);
    f.write(host.data(), host.size());
  }
  printf("ok\n");
  return 0;
}
