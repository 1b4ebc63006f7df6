//! warpcheck's CUDA runtime: `libwarpcheck_cudart.so` exports the C ABI of the CUDA
//! runtime API (with the signatures and enumerator values of warpcheck's shim headers,
//! `include/warpcheck/runtime_api.h` and `driver_types.h`, which NVIDIA's headers share
//! but for `cudaDeviceProp`, see [`types`]) and the registration and launch entry points
//! of clang's and nvcc's host code, and runs a program's kernels in warpcheck's emulator,
//! in the program's own process, under the checkers when `warpcheck check` asked for them.
//!
//! `warpcheck run|check PROGRAM.cu … -- ARGS` compiles the device side of each file to PTX,
//! the host side natively (clang's CUDA host compilation with the PTX embedded as the
//! "GPU binary", or nvcc's with the PTX in its fat binary, [`fatbin`]), links the program
//! with this library and runs it as a child process. At start-up each translation unit's
//! constructor registers its PTX (parsed and lowered here), its kernels and its variables
//! ([`register`]). Device pointers are emulator
//! addresses; launches run to completion in the emulator ([`launch`]), each written
//! first as a kernel-mode launch file with its buffers under `--capture` ([`capture`]).
//! At exit the findings (and, for `--report`, the launches' per-line heat) are written as
//! JSON to the path the CLI gave ([`report`], [`config`]).
//!
//! # Implemented functions
//!
//! | area | functions |
//! |---|---|
//! | memory | `cudaMalloc`, `cudaFree`, `cudaMallocAsync`, `cudaFreeAsync`, `cudaMemcpy`, `cudaMemcpyAsync` (every `cudaMemcpyKind`, `cudaMemcpyDefault` included), `cudaMemset`, `cudaMemsetAsync`, `cudaMemset2D`, `cudaMallocPitch`, `cudaMemcpy2D`, `cudaMemcpy2DAsync`, `cudaMallocHost`, `cudaHostAlloc`, `cudaFreeHost`, `cudaHostRegister`, `cudaHostUnregister` ([`host_register`]), `cudaMallocManaged`, `cudaMemPrefetchAsync`, `cudaMemAdvise`, `cudaStreamAttachMemAsync`, `cudaMemGetInfo`, `cudaPointerGetAttributes` |
//! | symbols | `cudaMemcpyToSymbol`, `cudaMemcpyFromSymbol` (and `Async`), `cudaGetSymbolAddress` (`__device__` only), `cudaGetSymbolSize` |
//! | launches | `<<<>>>` (`__cudaPushCallConfiguration`/`__cudaPopCallConfiguration`/`cudaLaunchKernel`, nvcc 13's `__cudaGetKernel`/`__cudaLaunchKernel`, and the legacy `cudaConfigureCall`/`cudaSetupArgument`/`cudaLaunch`), `cudaLaunchKernel`, `cudaLaunchCooperativeKernel` (grid-wide `cooperative_groups` sync; [`cooperative`]), `cudaLaunchKernelExC` (the attributes that change nothing when launches run one after the other, and the cooperative one; clusters and programmatic events refused by name) |
//! | errors | `cudaGetLastError`, `cudaPeekAtLastError`, `cudaGetErrorString`, `cudaGetErrorName` (kernel faults are sticky until `cudaDeviceReset`) |
//! | device | `cudaGetDeviceCount`, `cudaGetDevice`, `cudaSetDevice`, `cudaChooseDevice`, `cudaGetDeviceProperties`, `cudaDeviceGetAttribute`, `cudaDeviceSynchronize`, `cudaDeviceReset`, `cudaThreadSynchronize`, `cudaThreadExit`, `cudaDriverGetVersion`, `cudaRuntimeGetVersion`, `cudaDeviceSetLimit`/`GetLimit`, `cudaSetDeviceFlags`/`GetDeviceFlags`, cache and shared-memory configuration hints, `cudaDeviceCanAccessPeer` (no peers), `cudaDeviceGetStreamPriorityRange`, `cudaCtxResetPersistingL2Cache` (no L2 is modelled), `cudaProfilerStart`/`Stop` |
//! | streams, events | `cudaStreamCreate` (`WithFlags`, `WithPriority`), `cudaStreamDestroy`, `cudaStreamSynchronize`, `cudaStreamQuery`, `cudaStreamWaitEvent`, `cudaStreamAddCallback`, `cudaLaunchHostFunc`, `cudaStreamSetAttribute`/`GetAttribute` (recorded hints), `cudaEventCreate` (`WithFlags`), `cudaEventRecord`, `cudaEventSynchronize`, `cudaEventQuery`, `cudaEventElapsedTime` (emulator time, see [`streams`]), `cudaEventDestroy` |
//! | kernels | `cudaFuncGetAttributes`, `cudaFuncSetAttribute`, `cudaOccupancyMaxActiveBlocksPerMultiprocessor` (`WithFlags`), `cudaOccupancyMaxPotentialBlockSize` |
//! | textures | `cudaCreateTextureObject` (linear and pitched 2D memory), `cudaDestroyTextureObject`, texture references (`__cudaRegisterTexture`, `cudaBindTexture`, `cudaBindTexture2D`, `cudaUnbindTexture`, `cudaGetTextureAlignmentOffset`), `cudaCreateChannelDesc` ([`texture`]) |
//! | cuBLAS (`-lcublas`) | `cublasCreate`, `cublasDestroy`, `cublasGetVersion`, `cublasSetStream`/`GetStream`, `cublasSetWorkspace`, `cublasSetPointerMode`/`GetPointerMode` (host and device), `cublasSetMathMode`/`GetMathMode`, `cublasGetStatusName`/`String`, `cublasSgemm`, `cublasDgemm`, `cublasGemmEx`, `cublasSgemmStridedBatched`, `cublasDgemmStridedBatched`, `cublasGemmStridedBatchedEx`, `cublasSgemv`, `cublasDgemv` ([`blas`], on the host CPU) |
//! | cuBLASLt (`-lcublasLt`) | `cublasLtCreate`, `cublasLtDestroy`, `cublasLtGetVersion`, `cublasLtMatmulDescCreate`/`Destroy`/`SetAttribute`/`GetAttribute`, `cublasLtMatrixLayoutCreate`/`Destroy`/`SetAttribute`/`GetAttribute`, `cublasLtMatmulPreferenceCreate`/`Destroy`/`SetAttribute`/`GetAttribute`, `cublasLtMatmulAlgoGetHeuristic`, `cublasLtMatmul` (epilogues bias, ReLU, GELU, GELU with auxiliary output; [`blas::cublaslt`]) |
//! | other | device `printf` (written to the program's `stdout`) |
//!
//! # Not supported
//!
//! Exported, returning `cudaErrorNotSupported`, and reported once by name
//! (`api-not-supported`): see [`unsupported::NOT_SUPPORTED_FUNCTIONS`] (CUDA arrays, 3D
//! copies, peer copies, registered and mapped host memory, graphs and stream capture,
//! texture objects over CUDA arrays, surfaces, IPC, OpenGL and graphics interoperability),
//! surface references, and
//! `cudaGetSymbolAddress` of a `__constant__` variable. cuBLAS and cuBLASLt functions
//! outside the table that are exported (see
//! [`blas::unsupported::NOT_SUPPORTED_FUNCTIONS`]: level-1 BLAS, pointer-array batches,
//! half-precision and complex GEMMs, matrix transforms, …) return
//! `CUBLAS_STATUS_NOT_SUPPORTED` and are reported by name the same way, as are
//! unsupported variants of implemented calls (16-bit or integer compute types,
//! backward epilogues, FP8 scaling). A function neither implemented nor listed is missing
//! at link time: the CLI's build fails naming it. nvcc's relocatable device code (`-rdc`,
//! `__cudaRegisterLinkedBinary_*`) is not supported.
//!
//! # Safety
//!
//! The exported functions take raw pointers with the contracts of the CUDA runtime API's
//! documentation (output pointers valid for writes, host ranges valid for their length);
//! each function checks what the real runtime checks (null pointers, device ranges) and
//! relies on the program for the rest, as the real one does.

#![allow(clippy::missing_safety_doc)]
// The C API's names are the CUDA runtime's.
#![allow(non_snake_case)]

pub mod api;
pub mod blas;
pub mod capture;
pub mod config;
pub mod cooperative;
pub mod device;
pub mod fatbin;
pub mod funcs;
pub mod host_line;
pub mod host_register;
pub mod identical;
pub mod launch;
pub mod locate;
pub mod managed;
pub mod managed_vars;
pub mod memapi;
pub mod pointers;
pub mod printf;
pub mod register;
pub mod report;
pub mod state;
pub mod streams;
pub mod texture;
pub mod timing;
pub mod types;
pub mod unsupported;
