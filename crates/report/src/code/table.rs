//! The finding codes, one row each. See `registry!` in `code.rs` for the row's fields.

use super::{Info, Tool};
use crate::Severity;

registry! {
    SyntaxError {
        name: "syntax-error",
        severity: Error,
        tools: [Parser],
        summary: "The PTX text could not be parsed.",
        what: "Reports PTX that does not follow the grammar of the PTX ISA: a misspelt opcode or type, a missing `;`, an operand of the wrong kind, an unknown directive. PTX comes from clang or nvcc, or from a `.ptx` file written by hand.",
        why: "Nothing can be analysed until the module parses. For compiler output the cause is usually a PTX feature newer than warpcheck's parser; for hand-written PTX, a typo that `ptxas` would reject too.",
        lang: "ptx",
        example: r#"
.visible .entry k(.param .u64 out)
{
    ld.param.u64 %rd1, [out]
    st.global.u32 [%rd1], 0;
    ret;
}"#,
        fixed: r#"
.visible .entry k(.param .u64 out)
{
    ld.param.u64 %rd1, [out];
    st.global.u32 [%rd1], 0;
    ret;
}"#,
    }
    LoweringError {
        name: "lowering-error",
        severity: Error,
        tools: [Lowering],
        summary: "The PTX uses an instruction or form warpcheck does not support.",
        what: "Reports PTX that parses but cannot be turned into warpcheck's typed IR: an instruction, type or addressing form the emulator and the analyses do not model (texture and surface instructions, some tensor-core forms), or operands whose types do not fit the instruction.",
        why: "warpcheck refuses to guess what an unsupported instruction does: analysing the kernel without it would give wrong results. The finding names the instruction so the kernel can be checked without it, e.g. by moving that part behind a macro.",
        lang: "cuda",
        example: r#"
__global__ void blur(cudaTextureObject_t tex, float *out) {
    int i = threadIdx.x;
    out[i] = tex1Dfetch<float>(tex, i);   // tex.1d: not modelled
}"#,
        fixed: r#"
__global__ void blur(const float *__restrict__ in, float *out) {
    int i = threadIdx.x;
    out[i] = __ldg(&in[i]);               // read-only global load instead
}"#,
    }
    SharedRace {
        name: "shared-race",
        severity: Error,
        tools: [Race, Lint],
        summary: "Data race on shared memory.",
        what: "Reports two accesses to the same byte of `__shared__` memory, at least one a write, by threads that nothing orders: no `__syncthreads()` (or named barrier, `__syncwarp()` for lanes of one warp) lies between them, and they are not both atomics. The finding gives the hazard (read-after-write, write-after-read or write-after-write), both lines, a witness pair of threads and whether they are lanes of one warp or different warps. `check` finds races that happen in the run; `lint --block` finds them for every thread of the given block shape without running anything.",
        why: "Threads of a block run in any order between barriers, and since Volta (independent thread scheduling) even the lanes of one warp do. A racing read sees the old or the new value depending on timing, so the kernel gives different answers from run to run, GPU to GPU, or only under load. The classic case is a tile loaded into shared memory and read by other threads before (read-after-write) or overwritten while they still read it (write-after-read, the missing second barrier of a tiled loop).",
        lang: "cuda",
        example: r#"
__global__ void reverse(int *d) {
    __shared__ int s[256];
    int t = threadIdx.x;
    s[t] = d[t];
    d[t] = s[255 - t];   // reads another thread's element before it is written
}"#,
        fixed: r#"
__global__ void reverse(int *d) {
    __shared__ int s[256];
    int t = threadIdx.x;
    s[t] = d[t];
    __syncthreads();     // every write of s happens before any read
    d[t] = s[255 - t];
}"#,
    }
    GlobalRace {
        name: "global-race",
        severity: Error,
        tools: [Race, Lint],
        summary: "Data race on global memory.",
        what: "Reports two accesses to the same byte of global memory, at least one a plain (non-atomic) write, by threads that nothing orders: threads of one block with no barrier between the accesses, or threads of different blocks, which no barrier can order within a launch. The finding gives the hazard, both lines, the buffer and byte offset, and a witness pair of threads and blocks.",
        why: "Blocks run in any order and concurrently on different SMs, and a `__syncthreads()` only orders the threads of one block. A read-modify-write such as `sum[0] += x` done by many threads loses updates; a block reading what another block writes sees old or new data at random. compute-sanitizer's racecheck only looks at shared memory, so these races go unnoticed until results differ.",
        lang: "cuda",
        example: r#"
__global__ void total(const float *x, float *sum, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        sum[0] += x[i];   // every thread reads and writes sum[0]
}"#,
        fixed: r#"
__global__ void total(const float *x, float *sum, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        atomicAdd(&sum[0], x[i]);
}"#,
    }
    BenignRace {
        name: "benign-race",
        severity: Warning,
        tools: [Race, Gpu],
        summary: "A write-write race where every write stores the value already at its location.",
        what: "Reports a write-after-write race in which every racing write stores the bytes already written at its location, with no racing read: e.g. every thread that finds a match setting a shared `found` flag to 1, or the sub-blocks of a block all copying the same weights into a shared array (each element gets one value from every writer, different elements different values). The result does not depend on which write lands last. `check` compares, at each byte or word where two racing writes meet, what each stored (within a block and between blocks; a write whose values it does not know, such as an atomic, is never benign); `check --gpu` compares the bytes blocks wrote. A race where some location receives two different values stays a `shared-race`/`global-race` error (for shared memory its message shows the two values). `--strict-races` reports the benign ones as errors too.",
        why: "The outcome is deterministic on current GPUs, but it is still a data race in the CUDA memory model: the compiler may assume it does not happen (and, say, keep the flag in a register), and the pattern breaks silently as soon as the stored values start to differ. Marking the writes as atomic or volatile states the intent and costs little.",
        lang: "cuda",
        example: r#"
__global__ void any_negative(const int *x, int *found) {
    if (x[threadIdx.x] < 0)
        *found = 1;       // many threads store the same 1
}"#,
        fixed: r#"
__global__ void any_negative(const int *x, int *found) {
    if (x[threadIdx.x] < 0)
        atomicExch(found, 1);
}"#,
    }
    GpuScopeUnchecked {
        name: "gpu-scope-unchecked",
        severity: Note,
        tools: [Gpu],
        summary: "GPU mode did not look for some kinds of races in this kernel.",
        what: "Notes what a `--gpu` check left out: races between lanes of one warp (GPU mode gives each warp, not each lane, a private copy), races on shared memory (not privatised), and, in kernels with block barriers, races between warps of a block on global buffers (copies are then per block, since warps legitimately exchange data across a barrier).",
        why: "A clean `--gpu` run says nothing about the races it did not look for. `warpcheck check` without `--gpu` checks all of them, on the CPU.",
        lang: "sh",
        example: r#"
warpcheck check reduce.cu --gpu --grid 64 --block 256   # shared-memory races not looked for"#,
        fixed: r#"
warpcheck check reduce.cu --grid 64 --block 256         # the CPU race checker covers every scope"#,
    }
    GpuStoresUnchecked {
        name: "gpu-stores-unchecked",
        severity: Note,
        tools: [Gpu],
        summary: "GPU mode did not check stores through pointers that are not kernel parameters.",
        what: "Notes that a kernel checked with `--gpu` stores through pointers that GPU mode cannot follow back to a kernel parameter: pointers loaded from memory, or module-scope `__device__` variables. Those stores are neither privatised nor compared between blocks.",
        why: "Races on such memory are missed in GPU mode. Passing the buffer as a kernel parameter, or checking on the CPU without `--gpu`, covers them.",
        lang: "cuda",
        example: r#"
__device__ float *table;
__global__ void fill(float v) { table[blockIdx.x] = v; }   // through a module variable"#,
        fixed: r#"
__global__ void fill(float *table, float v) { table[blockIdx.x] = v; }"#,
    }
    RaceCheckSampled {
        name: "race-check-sampled",
        severity: Note,
        tools: [Race, Gpu],
        summary: "The race checker, or GPU mode, watched a sample of the launch's blocks.",
        what: "Notes that only a sample of a launch's blocks was watched for races: the first and last blocks along each grid dimension and pairs of neighbouring blocks, where partial tiles and races between blocks usually show. The race checker samples launches with more blocks than `--race-blocks` (256 by default); every other checker still sees every block. GPU mode (`--gpu`) samples when checking every unit would take more memory-adaptive rounds than `--gpu-rounds` (4 by default): the watched blocks' units get private copies, every other block shares one copy.",
        why: "A race confined to blocks outside the sample is not reported, so a clean result is not a proof for the whole grid (in GPU mode, races between a watched block and an unwatched one are still found). Watching every block costs memory and time in proportion to the grid, or more rounds in GPU mode.",
        lang: "sh",
        example: r#"
warpcheck check big.cu --grid 4096,1,1 --block 256,1,1"#,
        fixed: r#"
warpcheck check big.cu --grid 4096,1,1 --block 256,1,1 --race-blocks all"#,
    }
    IdenticalLaunches {
        name: "identical-launches",
        severity: Note,
        tools: [Runtime],
        summary: "Launches that repeated an earlier launch exactly were reused, not run again.",
        what: "Notes that some launches of a kernel had the same configuration, parameter bytes, constant memory, texture bindings and device memory as an earlier launch of it (a benchmark loop, typically). The emulator is deterministic, so such a launch would execute the same instructions: warpcheck applies the earlier launch's changes to device memory and prints its `printf` output instead of running it again.",
        why: "The findings of a reused launch are those of the launch it repeats, which are reported; counts such as wavefronts, sectors and the HTML report's heat cover only the launches that ran. `--rerun-identical` runs every launch.",
        lang: "sh",
        example: r#"
warpcheck check bench.cu -- --iterations 100"#,
        fixed: r#"
warpcheck check bench.cu --rerun-identical -- --iterations 100"#,
    }
    RaceCheckIncomplete {
        name: "race-check-incomplete",
        severity: Note,
        tools: [Race],
        summary: "A block ran more memory instructions than the race checker records.",
        what: "Notes that a block executed more memory instructions than the race checker keeps (2^26 per block); accesses after that point were not checked for races.",
        why: "Races late in a very long-running block are missed. Checking a smaller problem (fewer loop iterations per block) usually exercises the same code paths within the limit.",
        lang: "sh",
        example: r#"
warpcheck check stencil.cu --grid 64,1,1 --block 256,1,1 --arg steps=100000"#,
        fixed: r#"
warpcheck check stencil.cu --grid 64,1,1 --block 256,1,1 --arg steps=100"#,
    }
    BlockStopped {
        name: "block-stopped",
        severity: Note,
        tools: [Emulator],
        summary: "A block stopped on a fault that the enabled checkers do not report.",
        what: "Notes that a block of the launch stopped on a fault (an out-of-bounds or misaligned access, a deadlock …) whose checker is off, e.g. an out-of-bounds access under `--tool race`. It names the block, the thread, the line and the fault. When a thread faults, its whole block stops: the block's other threads do not run on, so nothing the block would have done after that point was checked.",
        why: "Without this note a run with some checkers off would drop the rest of the faulting block without a word and exit 0, although races or uninitialised reads later in that block were never looked at. Turning on the checker that owns the fault (`mem` for memory faults, `sync` for deadlocks) reports it as an error; fixing it lets the block run to its end.",
        lang: "sh",
        example: r#"
warpcheck check scale.cu --tool race --grid 2,1,1 --block 256,1,1 --arg n=300"#,
        fixed: r#"
warpcheck check scale.cu --tool race,mem --grid 2,1,1 --block 256,1,1 --arg n=300"#,
    }
    RaceLintIncomplete {
        name: "race-lint-incomplete",
        severity: Note,
        tools: [Lint],
        summary: "The race lint could not decide every access of the launch.",
        what: "Notes that `lint --block` left some accesses undecided: their address or guard depends on a value read from memory, or threads branch on memory, so which bytes they touch is not known without running the kernel. The note names the lines.",
        why: "The race lint reports only races that are certain for the launch; accesses it could not decide may still race. Run `warpcheck check` on real inputs to decide them.",
        lang: "cuda",
        example: r#"
__global__ void scatter(const int *idx, float *out, const float *v) {
    out[idx[threadIdx.x]] = v[threadIdx.x];   // address read from memory
}"#,
        fixed: r#"
__global__ void scatter(const int *idx, float *out, const float *v) {
    out[threadIdx.x] = v[idx[threadIdx.x]];   // the store's address is known: a gather
}"#,
    }
    BarrierDivergence {
        name: "barrier-divergence",
        severity: Error,
        tools: [Sync, Lint],
        summary: "A barrier is reached by some but not all threads of a block.",
        what: "Reports a `__syncthreads()` (`bar.sync`) that some threads of a block reach and others skip, or threads of one block waiting at different barrier instructions. `check` sees it in the run; `lint` reports barriers under a condition that depends on the thread index.",
        why: "`__syncthreads()` must be reached by every thread of the block (or none) in the same instruction: otherwise the behaviour is undefined. Depending on the GPU generation the kernel hangs, the barrier releases too early (so the accesses it should order race), or it works by accident until the code or the compiler changes.",
        lang: "cuda",
        example: r#"
__global__ void k(float *d) {
    __shared__ float s[256];
    if (threadIdx.x < 128) {
        s[threadIdx.x] = d[threadIdx.x];
        __syncthreads();          // threads 128..255 never get here
    }
    d[threadIdx.x] = s[threadIdx.x % 128];
}"#,
        fixed: r#"
__global__ void k(float *d) {
    __shared__ float s[256];
    if (threadIdx.x < 128)
        s[threadIdx.x] = d[threadIdx.x];
    __syncthreads();              // every thread of the block
    d[threadIdx.x] = s[threadIdx.x % 128];
}"#,
    }
    BarrierCount {
        name: "barrier-count",
        severity: Error,
        tools: [Sync],
        summary: "A barrier's thread count is not a multiple of the warp size.",
        what: "Reports a named barrier (`bar.sync id, count` / `__barrier_sync_count`) whose thread count is not a multiple of 32.",
        why: "Barriers count whole warps: the PTX ISA requires the count to be a multiple of the warp size, and the behaviour of other counts is undefined (the barrier may release early or never).",
        lang: "cuda",
        example: r#"
asm volatile("bar.sync 1, 100;");   // 100 threads: not whole warps"#,
        fixed: r#"
asm volatile("bar.sync 1, 128;");   // four warps"#,
    }
    SyncwarpMask {
        name: "syncwarp-mask",
        severity: Error,
        tools: [Sync],
        summary: "A __syncwarp or warp-synchronous intrinsic is executed by a lane outside its member mask.",
        what: "Reports `__syncwarp(mask)` (`bar.warp.sync`) and the `*_sync` warp intrinsics (`__shfl_sync`, `__ballot_sync`, …) executed by a lane whose own bit is not set in `mask`.",
        why: "The CUDA programming guide requires every executing lane to be in the mask; otherwise the result is undefined. It usually comes from a hard-coded full mask in code that runs with a partial warp, or a mask computed before a branch that some lanes then leave.",
        lang: "cuda",
        example: r#"
if (threadIdx.x < 16)
    v += __shfl_down_sync(0x0000ffff << 16, v, 1);   // lanes 0..15 use the upper mask"#,
        fixed: r#"
if (threadIdx.x < 16)
    v += __shfl_down_sync(0x0000ffff, v, 1);         // the lanes that execute it"#,
    }
    Deadlock {
        name: "deadlock",
        severity: Error,
        tools: [Sync, Emulator],
        summary: "Threads wait at a barrier that other threads never reach.",
        what: "Reports a block whose threads cannot all make progress: some wait at a barrier (or `__syncwarp`) that the others have exited without reaching, or that the others never reach because they spin in a loop waiting for the waiting threads. The finding lists where each warp waits and how many threads arrived.",
        why: "On a GPU the kernel hangs until the watchdog kills it (or forever on a compute-only device). It typically comes from an early `return` before a barrier, or a spin lock or flag loop that waits for threads of the same block that are themselves stuck at a barrier.",
        lang: "cuda",
        example: r#"
__global__ void k(float *d, int n) {
    __shared__ float s[256];
    if (threadIdx.x >= n) return;   // these threads never reach the barrier
    s[threadIdx.x] = d[threadIdx.x];
    __syncthreads();
    d[threadIdx.x] = s[n - 1 - threadIdx.x];
}"#,
        fixed: r#"
__global__ void k(float *d, int n) {
    __shared__ float s[256];
    bool live = threadIdx.x < n;
    if (live) s[threadIdx.x] = d[threadIdx.x];
    __syncthreads();                // reached by every thread
    if (live) d[threadIdx.x] = s[n - 1 - threadIdx.x];
}"#,
    }
    OutOfBounds {
        name: "out-of-bounds",
        severity: Error,
        tools: [Mem],
        summary: "Access outside the bounds of a buffer or variable.",
        what: "Reports a load, store or atomic whose bytes are not all inside one allocation: past the end (or before the start) of a global buffer as the launch allocated it or of a block an in-kernel `malloc` returned, outside the block's shared memory, outside the thread's local frame or constant memory, or a generic address that falls in no memory window.",
        why: "On a GPU an out-of-bounds access may read garbage, silently corrupt a neighbouring buffer, or crash the context with an illegal-address error, depending on where the address lands. The usual cause is a missing `if (i < n)` guard for the last, partial block, or an off-by-one in a halo or stencil index.",
        lang: "cuda",
        example: r#"
__global__ void scale(float *x, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    x[i] *= 2.0f;          // the last block runs past n
}"#,
        fixed: r#"
__global__ void scale(float *x, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        x[i] *= 2.0f;
}"#,
    }
    Misaligned {
        name: "misaligned",
        severity: Error,
        tools: [Mem],
        summary: "Access at an address not aligned to its size.",
        what: "Reports an access whose address is not a multiple of its size: a 4-byte load at an odd address, a `float4` (16-byte) load at an address that is a multiple of 4 only. PTX requires natural alignment for every access.",
        why: "A GPU raises a misaligned-address error and the launch fails. It comes from casting a byte pointer to a wider type at an arbitrary offset, or from vector loads (`float4`, `int2`) on buffers whose offset is not a multiple of the vector size.",
        lang: "cuda",
        example: r#"
__global__ void k(const char *bytes, int *out) {
    out[threadIdx.x] = *(const int *)(bytes + 1 + 4 * threadIdx.x);
}"#,
        fixed: r#"
__global__ void k(const char *bytes, int *out) {
    int v;
    memcpy(&v, bytes + 1 + 4 * threadIdx.x, sizeof v);   // byte loads, any alignment
    out[threadIdx.x] = v;
}"#,
    }
    ReadOnlyWrite {
        name: "read-only-write",
        severity: Error,
        tools: [Mem],
        summary: "A store to read-only memory (constant or kernel-parameter space).",
        what: "Reports a store or atomic to `__constant__` memory or to the kernel's parameter space, which are read-only while the kernel runs.",
        why: "Constant memory is written by the host (`cudaMemcpyToSymbol`) before the launch; a kernel store to it fails or is lost. Stores through a pointer that was meant to point elsewhere (a wrong generic pointer) land here too.",
        lang: "cuda",
        example: r#"
__constant__ float coeff[16];
__global__ void k() { coeff[threadIdx.x] = 0.0f; }"#,
        fixed: r#"
__device__ float coeff[16];   // global memory, writable by kernels
__global__ void k() { coeff[threadIdx.x] = 0.0f; }"#,
    }
    StackOverflow {
        name: "stack-overflow",
        severity: Error,
        tools: [Mem],
        summary: "The per-thread stack overflowed.",
        what: "Reports a thread whose call frames (local memory for non-inlined device functions) grew past the per-thread stack, usually through deep or unbounded recursion.",
        why: "A GPU thread's stack is small (1 KiB by default, `cudaLimitStackSize`). On a GPU the overflow is an illegal-address error or corrupts other local data.",
        lang: "cuda",
        example: r#"
__device__ int depth(int n) { return n == 0 ? 0 : 1 + depth(n - 1); }
__global__ void k(int *out) { out[0] = depth(1 << 20); }"#,
        fixed: r#"
__device__ int depth(int n) { int d = 0; while (n-- > 0) d++; return d; }
__global__ void k(int *out) { out[0] = depth(1 << 20); }"#,
    }
    BadCallTarget {
        name: "bad-call-target",
        severity: Error,
        tools: [Mem],
        summary: "An indirect call through an address that names no function.",
        what: "Reports an indirect call (through a function pointer or virtual function) whose target address is not a device function: an uninitialised or host function pointer.",
        why: "Calling a host function pointer or a garbage pointer on the device is an illegal-instruction or illegal-address error. Device function pointers must be taken in device code (or copied from a `__device__` variable).",
        lang: "cuda",
        example: r#"
typedef float (*op_t)(float);
__global__ void apply(op_t op, float *x) { x[threadIdx.x] = op(x[threadIdx.x]); }
// host: apply<<<1, 32>>>(&host_square, x);"#,
        fixed: r#"
typedef float (*op_t)(float);
__device__ float square(float v) { return v * v; }
__global__ void apply(float *x) { op_t op = square; x[threadIdx.x] = op(x[threadIdx.x]); }"#,
    }
    UnboundTexture {
        name: "unbound-texture",
        severity: Error,
        tools: [Mem],
        summary: "A texture fetch through a texture that is not bound.",
        what: "Reports a `tex1Dfetch`/`tex2D`/... through a texture reference that no `cudaBindTexture*` bound (or that `cudaUnbindTexture` unbound), or through a texture object that was destroyed or never created.",
        why: "On a GPU the fetch reads whatever the texture unit's descriptor slot holds: stale data, zeros or an illegal-address error, depending on the driver.",
        lang: "cuda",
        example: r#"
texture<float, 1, cudaReadModeElementType> t;
__global__ void k(float *out) { out[threadIdx.x] = tex1Dfetch(t, threadIdx.x); }
// host: k<<<1, 32>>>(out);   // t never bound"#,
        fixed: r#"
texture<float, 1, cudaReadModeElementType> t;
__global__ void k(float *out) { out[threadIdx.x] = tex1Dfetch(t, threadIdx.x); }
// host: cudaBindTexture(0, t, in, 32 * sizeof(float)); k<<<1, 32>>>(out);"#,
    }
    Trap {
        name: "trap",
        severity: Error,
        tools: [Emulator],
        summary: "The kernel executed a trap instruction.",
        what: "Reports a thread that executed `trap` (`__trap()`, or code the compiler ends with a trap, such as falling off a function that must return a value).",
        why: "A trap aborts the kernel on a GPU with an unspecified launch failure, and the whole context is unusable afterwards.",
        lang: "cuda",
        example: r#"
__global__ void k(const int *x) {
    if (x[threadIdx.x] < 0) __trap();
}"#,
        fixed: r#"
__global__ void k(const int *x, int *bad) {
    if (x[threadIdx.x] < 0) atomicExch(bad, 1);   // report it to the host instead
}"#,
    }
    AssertionFailed {
        name: "assertion-failed",
        severity: Error,
        tools: [Emulator],
        summary: "A device-side assert failed.",
        what: "Reports a thread whose `assert(...)` condition was false (a call of `__assertfail`), with the assertion's text, file and line.",
        why: "A failed device assertion aborts the kernel on a GPU (`cudaErrorAssert`) and leaves the context unusable; the condition the programmer relied on does not hold for this launch.",
        lang: "cuda",
        example: r#"
__global__ void k(const int *len, int n) {
    assert(len[threadIdx.x] <= n);
}"#,
        fixed: r#"
__global__ void k(const int *len, int n) {
    // the launch passes an n that bounds every length
    assert(len[threadIdx.x] <= n);
}
// host: k<<<1, 32>>>(len, max_len);"#,
    }
    InstructionBudget {
        name: "instruction-budget",
        severity: Error,
        tools: [Emulator],
        summary: "A warp executed more instructions than the budget allows.",
        what: "Reports a warp that executed more instructions than the emulator's budget (`--budget`): a loop that does not terminate for this launch, or a kernel far longer than expected.",
        why: "On a GPU an endless loop hangs the kernel until the watchdog kills it. Loops whose exit depends on another thread's write (a flag or lock) spin forever when that thread cannot run, and loops with a wrong bound or step never end.",
        lang: "cuda",
        example: r#"
__global__ void k(float *x, int n) {
    for (unsigned i = n - 1; i >= 0; i--)   // unsigned: always >= 0
        x[i] = 0.0f;
}"#,
        fixed: r#"
__global__ void k(float *x, int n) {
    for (int i = n - 1; i >= 0; i--)
        x[i] = 0.0f;
}"#,
    }
    LaunchLimit {
        name: "launch-limit",
        severity: Error,
        tools: [Emulator],
        summary: "A launch was stopped at its launch-wide instruction or time limit.",
        what: "Reports a launch that executed more lane-instructions in all its blocks together than `--launch-budget` allows, or ran longer than `--timeout`: the blocks still running are stopped where their warps were, with how far the launch got (time, lane-instructions, blocks finished), and blocks not yet started do not run. Results after the stop are incomplete.",
        why: "The per-warp `--budget` stops one runaway warp, but a grid of blocks that each spin until their own budget runs out takes that budget times the number of blocks. Blocks that wait for each other (a flag another block sets, a grid-wide lock) spin forever on a GPU when the block they wait for is not resident.",
        lang: "cuda",
        example: r#"
__global__ void k(volatile int *flag) {
    while (*flag == 0) { }   // waits for a block that may never run
}"#,
        fixed: r#"
__global__ void k(volatile int *flag) {
    // synchronise through kernel boundaries (or a cooperative launch's grid sync)
}"#,
    }
    UninitRead {
        name: "uninit-read",
        severity: Error,
        tools: [Init],
        summary: "Read of memory that was never written.",
        what: "Reports a load or atomic that reads bytes never written: global memory allocated without initialisation (`:uninit` buffers, like `cudaMalloc` without a copy), shared memory not written in this block, or local memory not written by this thread.",
        why: "Uninitialised memory holds whatever was there before: results depend on earlier kernels or other processes and change from run to run. Shared memory starts undefined in every block, so a tile that is only partly loaded (the edge of the matrix) leaks garbage into the result.",
        lang: "cuda",
        example: r#"
__global__ void sum(const float *x, float *out, int n) {
    __shared__ float s[256];
    if (threadIdx.x < n) s[threadIdx.x] = x[threadIdx.x];
    __syncthreads();
    if (threadIdx.x == 0) {
        float t = 0;
        for (int i = 0; i < 256; i++) t += s[i];   // s[n..255] never written
        *out = t;
    }
}"#,
        fixed: r#"
__global__ void sum(const float *x, float *out, int n) {
    __shared__ float s[256];
    s[threadIdx.x] = threadIdx.x < n ? x[threadIdx.x] : 0.0f;
    __syncthreads();
    if (threadIdx.x == 0) {
        float t = 0;
        for (int i = 0; i < 256; i++) t += s[i];
        *out = t;
    }
}"#,
    }
    BankConflict {
        name: "bank-conflict",
        severity: Warning,
        tools: [Bank, Lint],
        summary: "Shared-memory accesses of a warp conflict on banks.",
        what: "Reports a shared-memory instruction whose warp-wide access needs more than one wavefront: shared memory is split into 32 banks of 4 bytes (byte address / 4 mod 32), each bank serves one 4-byte word per cycle, and lanes that touch different words in the same bank are served one after another. The degree is the number of wavefronts the worst access needs (Nsight Compute's `l1tex__data_bank_conflicts_pipe_lsu_mem_shared` counts the extra ones); lanes reading the same word are broadcast and do not conflict.",
        why: "An n-way conflict makes the instruction n times slower, and shared memory is used precisely where speed matters. The classic case is a column access to a 32-wide tile: the stride is 32 words, so all 32 lanes hit one bank (32-way). Padding each row by one word spreads a column over all banks.",
        lang: "cuda",
        example: r#"
__shared__ float tile[32][32];
tile[threadIdx.x][threadIdx.y] = in[y * n + x];   // column write: 32-way conflict"#,
        fixed: r#"
__shared__ float tile[32][33];                    // one word of padding per row
tile[threadIdx.x][threadIdx.y] = in[y * n + x];   // lanes hit 32 different banks"#,
    }
    UncoalescedAccess {
        name: "uncoalesced-access",
        severity: Warning,
        tools: [Coalesce, Lint],
        summary: "A warp's global-memory access touches more sectors than needed.",
        what: "Reports a global load or store whose warp-wide request touches more 32-byte sectors than the bytes it moves need: 32 lanes loading consecutive 4-byte words touch 4 sectors; loading words 128 bytes apart touches 32. `check` counts the sectors the run touched (as Nsight Compute's `l1tex__t_sectors_pipe_lsu_mem_global_op_ld`); `lint` derives the stride between adjacent threads symbolically and reports accesses at twice the ideal or more (or, with `--granularity lines`, 128-byte lines).",
        why: "DRAM and L2 move whole 32-byte sectors: a strided or scattered access fetches bytes it throws away, so the kernel uses a fraction of the memory bandwidth it could. Making adjacent threads (`threadIdx.x`) touch adjacent addresses, or transposing through shared memory, typically gives several times the throughput.",
        lang: "cuda",
        example: r#"
__global__ void rowsum(const float *a, float *out, int n) {
    int row = blockIdx.x * blockDim.x + threadIdx.x;
    float s = 0;
    for (int j = 0; j < n; j++)
        s += a[row * n + j];   // adjacent threads are n floats apart
    out[row] = s;
}"#,
        fixed: r#"
__global__ void colsum(const float *a, float *out, int n) {
    int col = blockIdx.x * blockDim.x + threadIdx.x;
    float s = 0;
    for (int j = 0; j < n; j++)
        s += a[j * n + col];   // adjacent threads read adjacent floats
    out[col] = s;              // (with a transposed a, the same sums)
}"#,
    }
    UncoalescedDataDependent {
        name: "uncoalesced-data-dependent",
        severity: Warning,
        tools: [Lint],
        summary: "A global access whose address depends on data loaded per thread may not coalesce.",
        what: "With `lint --data-dependent`, reports global accesses whose address depends on a value each thread loaded from memory (gathers, scatters, per-thread ranges such as CSR rows), naming the loaded values. Indices read once from a per-thread table are not reported, since neighbour lists usually coalesce.",
        why: "Whether such an access coalesces depends on the data: random indices touch up to one sector per lane. The lint cannot know, so measure it with `warpcheck check` on representative inputs, and consider sorting or reordering the indices so that neighbouring threads touch neighbouring addresses.",
        lang: "cuda",
        example: r#"
__global__ void spmv(const int *row, const int *col, const float *v,
                     const float *x, float *y) {
    int r = blockIdx.x * blockDim.x + threadIdx.x;
    float s = 0;
    for (int k = row[r]; k < row[r + 1]; k++)   // per-thread ranges
        s += v[k] * x[col[k]];
    y[r] = s;
}"#,
        fixed: r#"
// one warp per row: lanes read consecutive entries of the row
__global__ void spmv(const int *row, const int *col, const float *v,
                     const float *x, float *y) {
    int r = (blockIdx.x * blockDim.x + threadIdx.x) / 32, lane = threadIdx.x % 32;
    float s = 0;
    for (int k = row[r] + lane; k < row[r + 1]; k += 32)
        s += v[k] * x[col[k]];
    for (int o = 16; o > 0; o /= 2) s += __shfl_down_sync(0xffffffff, s, o);
    if (lane == 0) y[r] = s;
}"#,
    }
    DependsOn {
        name: "depends-on",
        severity: Note,
        tools: [Lint],
        summary: "Without a launch, an access is uncoalesced or conflicts on banks only for some values of its parameters.",
        what: "Notes a global access or shared-memory access whose cost `lint` can state only as a condition on values it does not know without `--block`/`--arg`: a kernel parameter, `blockDim`, or a product of them. The note names the values and the threshold in source terms: \"uncoalesced when `height` ≥ 2: adjacent threads are 4·height bytes apart\", \"2-way bank conflict or worse when `stride` is even\". What holds for every value is reported as a warning instead.",
        why: "A warning that holds only above a threshold would be false at other sizes. The note says which sizes matter, so that the user can tell whether the kernel's real launches reach them; `lint --block ... --arg name=V` decides it for one launch, and `warpcheck check` measures it.",
        lang: "cuda",
        example: r#"
__global__ void column(float *out, const float *in, int height) {
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    out[x] = in[x * height];   // uncoalesced when height >= 2
}"#,
        fixed: r#"
__global__ void column(float *out, const float *in, int height) {
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    out[x] = in[x];            // adjacent threads read adjacent elements
}"#,
    }
    LintUndecided {
        name: "lint-undecided",
        severity: Note,
        tools: [Lint],
        summary: "Without a launch, the lint could not decide whether an access coalesces or conflicts on banks.",
        what: "Notes a global or shared-memory access whose address is not linear in `threadIdx.x` across a warp, or whose stride depends on a loop variable or parameter in a way the lint cannot bound (a product with a loop counter, a remainder by a parameter), so that neither a warning nor a `depends-on` condition can be stated. The note names the line and the values the address depends on; the text summary counts these accesses as undecided instead of saying \"no findings\".",
        why: "Silence would read as \"no problem\". The access may well conflict or be uncoalesced for the values the kernel really runs with: give a launch (`lint --block ... --arg name=V`) to decide it, or measure it with `warpcheck check`.",
        lang: "cuda",
        example: r#"
__global__ void strided(float *out, int n) {
    __shared__ float s[1024];
    s[threadIdx.x] = 1.0f;
    __syncthreads();
    float acc = 0;
    for (int k = 1; k < n; k *= 2)
        acc += s[(threadIdx.x * k) % 1024];   // the conflict degree depends on k
    out[threadIdx.x] = acc;
}"#,
        fixed: r#"
__global__ void strided(float *out, int n) {
    __shared__ float s[1024];
    s[threadIdx.x] = 1.0f;
    __syncthreads();
    float acc = 0;
    for (int k = 1; k < n; k *= 2)
        acc += s[(threadIdx.x + k) % 1024];   // consecutive words: no conflict
    out[threadIdx.x] = acc;
}"#,
    }
    CallNotLinted {
        name: "call-not-linted",
        severity: Note,
        tools: [Lint],
        summary: "A call to a device function was not linted.",
        what: "Notes a call of a non-inlined device function that `lint` did not follow: the symbolic values of the arguments grew past a size bound, the call is recursive, or the chain of calls is very deep. The callee's accesses at this call site are not reported.",
        why: "Uncoalesced accesses and bank conflicts inside the callee may go unreported for this caller. Inlining the function (`__forceinline__`) or simplifying its arguments lets the lint follow it; `warpcheck check` measures it regardless.",
        lang: "cuda",
        example: r#"
__device__ __noinline__ float walk(const float *a, int i, int depth) {
    return depth == 0 ? a[i] : walk(a, 2 * i + 1, depth - 1);   // recursive
}"#,
        fixed: r#"
__device__ __forceinline__ float walk(const float *a, int i, int depth) {
    for (; depth > 0; depth--) i = 2 * i + 1;
    return a[i];
}"#,
    }
    CopyOutOfBounds {
        name: "copy-out-of-bounds",
        severity: Error,
        tools: [Runtime],
        summary: "A runtime API copy or memset reaches outside its device allocation.",
        what: "Reports a `cudaMemcpy`, `cudaMemset` or symbol copy of a whole program whose device range starts inside an allocation but runs past its end (or starts outside every allocation). The finding names the call's host line, the allocation and where it was made.",
        why: "On a GPU such a copy either fails with `cudaErrorInvalidValue` or silently overwrites a neighbouring allocation, corrupting data that a later kernel reads. The usual cause is a size in elements passed where bytes are expected, or the wrong one of two sizes.",
        lang: "cuda",
        example: r#"
float *d;
cudaMalloc(&d, n * sizeof(float));
cudaMemcpy(d, h, 2 * n * sizeof(float), cudaMemcpyHostToDevice);"#,
        fixed: r#"
float *d;
cudaMalloc(&d, n * sizeof(float));
cudaMemcpy(d, h, n * sizeof(float), cudaMemcpyHostToDevice);"#,
    }
    UseAfterFree {
        name: "use-after-free",
        severity: Error,
        tools: [Runtime, Mem],
        summary: "Device memory is used after `cudaFree`, or a kernel uses a device-heap block after `free`.",
        what: "Reports a runtime API call or a kernel launch argument that uses device memory after it was freed, with the host line of the use and of the `cudaFree`; and a kernel load or store into a block of the device heap (in-kernel `malloc`, `new`) after a device-side `free` or `delete` released it, at the line of the access.",
        why: "Freed device memory may be handed out again by the next `cudaMalloc` (or device `malloc`); a later copy or kernel then reads or overwrites another buffer's data.",
        lang: "cuda",
        example: r#"
cudaFree(d);
cudaMemcpy(h, d, bytes, cudaMemcpyDeviceToHost);"#,
        fixed: r#"
cudaMemcpy(h, d, bytes, cudaMemcpyDeviceToHost);
cudaFree(d);"#,
    }
    DoubleFree {
        name: "double-free",
        severity: Error,
        tools: [Runtime, Mem],
        summary: "Memory is freed twice.",
        what: "Reports a `cudaFree` or `cudaFreeHost` of memory that was already freed, with the host lines of both calls, and a device-side `free` (or `delete`) of a device-heap block that was already freed, at the line of the second call.",
        why: "The second free returns an error on a GPU, or, if the range was allocated again in between, frees another buffer that is still in use.",
        lang: "cuda",
        example: r#"
cudaFree(d);
cudaFree(d);"#,
        fixed: r#"
cudaFree(d);
d = nullptr;"#,
    }
    InvalidFree {
        name: "invalid-free",
        severity: Error,
        tools: [Runtime, Mem],
        summary: "`cudaFree` (or device-side `free`) of a pointer that no allocation returned.",
        what: "Reports a `cudaFree` or `cudaFreeHost` of a pointer that is not the start of a live allocation of that kind: a host pointer, an offset into an allocation, or a pointer never allocated; and a device-side `free` of a pointer that no device-side `malloc` returned.",
        why: "The runtime returns `cudaErrorInvalidValue` and the memory that was meant to be freed leaks; usually the wrong variable is freed.",
        lang: "cuda",
        example: r#"
float *d;
cudaMalloc(&d, bytes);
cudaFree(d + 1);"#,
        fixed: r#"
float *d;
cudaMalloc(&d, bytes);
cudaFree(d);"#,
    }
    InvalidDevicePointer {
        name: "invalid-device-pointer",
        severity: Error,
        tools: [Runtime],
        summary: "A runtime API call gets a device pointer that points at no allocation.",
        what: "Reports a copy, memset or other runtime API call whose device pointer lies in no device allocation (uninitialised, a host pointer passed as device memory, or memory of another program).",
        why: "The call fails with `cudaErrorInvalidValue`; when its error is not checked the data is silently not copied.",
        lang: "cuda",
        example: r#"
float *d;                       // never allocated
cudaMemset(d, 0, bytes);"#,
        fixed: r#"
float *d;
cudaMalloc(&d, bytes);
cudaMemset(d, 0, bytes);"#,
    }
    ApiError {
        name: "api-error",
        severity: Error,
        tools: [Runtime],
        summary: "A CUDA runtime API call returned an error.",
        what: "Reports a runtime API call that returned an error code, with the call's name, the error and the host line, as compute-sanitizer's memcheck does. Reported whether or not the program checks the code.",
        why: "An unchecked error means the work the call should have done did not happen: a copy that did not copy, an allocation that failed. Later calls then work on garbage or fail with a confusing sticky error.",
        lang: "cuda",
        example: r#"
cudaMemcpy(d, h, bytes, cudaMemcpyDeviceToHost);   // wrong direction"#,
        fixed: r#"
cudaError_t e = cudaMemcpy(d, h, bytes, cudaMemcpyHostToDevice);
if (e != cudaSuccess) { fprintf(stderr, "%s\n", cudaGetErrorString(e)); exit(1); }"#,
    }
    ApiNotSupported {
        name: "api-not-supported",
        severity: Error,
        tools: [Runtime],
        summary: "The program calls a runtime API function warpcheck does not implement.",
        what: "Reports, once per function, a CUDA runtime API function that program mode does not implement (graphs, textures, inter-process memory, ...). The call returned `cudaErrorNotSupported` to the program.",
        why: "The program did not get the behaviour it asked for, so what follows may differ from a run on a GPU. `README.md` lists the runtime API functions program mode implements.",
        lang: "cuda",
        example: r#"
cudaGraph_t g;
cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal);"#,
        fixed: r#"
// Launch the kernels directly on the stream; check them in program mode,
// then capture them in a graph in the production build."#,
    }
    LaunchError {
        name: "launch-error",
        severity: Error,
        tools: [Runtime],
        summary: "A kernel launch was refused: bad configuration or unknown kernel.",
        what: "Reports a `<<<>>>` launch or `cudaLaunchKernel` that did not run: more than 1024 threads per block, a zero dimension, more shared memory than the device has, or a kernel that was not registered. The finding names the error and the launch's host line.",
        why: "The kernel silently does nothing unless the program checks `cudaGetLastError()` after the launch; its outputs keep whatever they held before.",
        lang: "cuda",
        example: r#"
scale<<<n / 2048, 2048>>>(d, n);   // 2048 threads per block"#,
        fixed: r#"
scale<<<(n + 255) / 256, 256>>>(d, n);
cudaError_t e = cudaGetLastError();"#,
    }
    Leak {
        name: "leak",
        severity: Error,
        tools: [Runtime],
        summary: "Device or pinned memory is still allocated when the program exits.",
        what: "With `--leak-check full`, reports every `cudaMalloc`, `cudaMallocManaged` or `cudaMallocHost` allocation that was not freed before the program exited, with its size and the host line of the allocation.",
        why: "A leak inside a loop or a long-running service exhausts device memory; in a short program it hides missing clean-up that a library version of the code would need.",
        lang: "cuda",
        example: r#"
float *d;
cudaMalloc(&d, bytes);
return 0;"#,
        fixed: r#"
float *d;
cudaMalloc(&d, bytes);
cudaFree(d);
return 0;"#,
    }
    ProgramEndedEarly {
        name: "program-ended-early",
        severity: Error,
        tools: [Runtime],
        summary: "The program ended without writing its report: killed by a signal or crashed.",
        what: "Reports that the checked program ended (a signal such as SIGSEGV, or `abort`) before the runtime could write its findings; the findings of the run are lost. The program's own exit status is 128 plus the signal.",
        why: "A crash in host code usually means a host bug: a null pointer, a host pointer read where a device pointer was passed, or a device pointer dereferenced on the host.",
        lang: "cuda",
        example: r#"
float *d;
cudaMalloc(&d, bytes);
printf("%f\n", d[0]);     // device pointer read on the host"#,
        fixed: r#"
float h0;
cudaMemcpy(&h0, d, sizeof h0, cudaMemcpyDeviceToHost);
printf("%f\n", h0);"#,
    }
}
