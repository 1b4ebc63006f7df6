//! The C types of the CUDA runtime API, laid out as warpcheck's shim headers declare them
//! (`include/warpcheck/driver_types.h`, `vector_types.h`): error codes, memcpy kinds,
//! `dim3`, `cudaDeviceProp`, `cudaFuncAttributes`, `cudaPointerAttributes`; and
//! `cudaDeviceProp` as NVIDIA's CUDA 13 headers lay it out ([`DeviceProp13`]), for
//! programs whose host side nvcc compiled. The other structures have the same layout in
//! both (NVIDIA's `cudaFuncAttributes` has more fields after the shim's, which stay as
//! the program set them).

use std::ffi::c_int;

/// `cudaError_t`: the enumerator values of CUDA 12 (the shim's `enum cudaError`).
pub type CudaError = c_int;

pub const SUCCESS: CudaError = 0;
pub const INVALID_VALUE: CudaError = 1;
pub const MEMORY_ALLOCATION: CudaError = 2;
pub const INVALID_CONFIGURATION: CudaError = 9;
pub const INVALID_PITCH_VALUE: CudaError = 12;
pub const INVALID_SYMBOL: CudaError = 13;
pub const INVALID_DEVICE_POINTER: CudaError = 17;
pub const INVALID_TEXTURE: CudaError = 18;
pub const INVALID_CHANNEL_DESCRIPTOR: CudaError = 20;
pub const INVALID_MEMCPY_DIRECTION: CudaError = 21;
pub const INVALID_FILTER_SETTING: CudaError = 26;
pub const MISSING_CONFIGURATION: CudaError = 52;
pub const INVALID_DEVICE_FUNCTION: CudaError = 98;
pub const INVALID_DEVICE: CudaError = 101;
pub const INVALID_RESOURCE_HANDLE: CudaError = 400;
pub const ILLEGAL_ADDRESS: CudaError = 700;
pub const LAUNCH_OUT_OF_RESOURCES: CudaError = 701;
pub const LAUNCH_TIMEOUT: CudaError = 702;
pub const ASSERT: CudaError = 710;
pub const HOST_MEMORY_ALREADY_REGISTERED: CudaError = 712;
pub const HOST_MEMORY_NOT_REGISTERED: CudaError = 713;
pub const ILLEGAL_INSTRUCTION: CudaError = 715;
pub const MISALIGNED_ADDRESS: CudaError = 716;
pub const LAUNCH_FAILURE: CudaError = 719;
pub const COOPERATIVE_LAUNCH_TOO_LARGE: CudaError = 720;
pub const NOT_SUPPORTED: CudaError = 801;
pub const UNKNOWN: CudaError = 999;

/// (code, `cudaGetErrorName`, `cudaGetErrorString`) for the codes this runtime returns
/// and the common others.
pub const ERRORS: &[(CudaError, &str, &str)] = &[
    (0, "cudaSuccess\0", "no error\0"),
    (1, "cudaErrorInvalidValue\0", "invalid argument\0"),
    (2, "cudaErrorMemoryAllocation\0", "out of memory\0"),
    (
        3,
        "cudaErrorInitializationError\0",
        "initialization error\0",
    ),
    (
        9,
        "cudaErrorInvalidConfiguration\0",
        "invalid configuration argument\0",
    ),
    (
        12,
        "cudaErrorInvalidPitchValue\0",
        "invalid pitch argument\0",
    ),
    (13, "cudaErrorInvalidSymbol\0", "invalid device symbol\0"),
    (
        18,
        "cudaErrorInvalidTexture\0",
        "invalid texture reference\0",
    ),
    (
        20,
        "cudaErrorInvalidChannelDescriptor\0",
        "invalid channel descriptor\0",
    ),
    (
        26,
        "cudaErrorInvalidFilterSetting\0",
        "linear filtering not supported for non-float type\0",
    ),
    (
        16,
        "cudaErrorInvalidHostPointer\0",
        "invalid host pointer\0",
    ),
    (
        17,
        "cudaErrorInvalidDevicePointer\0",
        "invalid device pointer\0",
    ),
    (
        21,
        "cudaErrorInvalidMemcpyDirection\0",
        "invalid copy direction for memcpy\0",
    ),
    (
        52,
        "cudaErrorMissingConfiguration\0",
        "__global__ function call is not configured\0",
    ),
    (
        98,
        "cudaErrorInvalidDeviceFunction\0",
        "invalid device function\0",
    ),
    (
        100,
        "cudaErrorNoDevice\0",
        "no CUDA-capable device is detected\0",
    ),
    (101, "cudaErrorInvalidDevice\0", "invalid device ordinal\0"),
    (
        400,
        "cudaErrorInvalidResourceHandle\0",
        "invalid resource handle\0",
    ),
    (600, "cudaErrorNotReady\0", "device not ready\0"),
    (
        700,
        "cudaErrorIllegalAddress\0",
        "an illegal memory access was encountered\0",
    ),
    (
        701,
        "cudaErrorLaunchOutOfResources\0",
        "too many resources requested for launch\0",
    ),
    (
        702,
        "cudaErrorLaunchTimeout\0",
        "the launch timed out and was terminated\0",
    ),
    (710, "cudaErrorAssert\0", "device-side assert triggered\0"),
    (
        715,
        "cudaErrorIllegalInstruction\0",
        "an illegal instruction was encountered\0",
    ),
    (716, "cudaErrorMisalignedAddress\0", "misaligned address\0"),
    (
        719,
        "cudaErrorLaunchFailure\0",
        "unspecified launch failure\0",
    ),
    (
        720,
        "cudaErrorCooperativeLaunchTooLarge\0",
        "too many blocks in cooperative launch\0",
    ),
    (
        712,
        "cudaErrorHostMemoryAlreadyRegistered\0",
        "part or all of the requested memory range is already mapped\0",
    ),
    (
        713,
        "cudaErrorHostMemoryNotRegistered\0",
        "pointer does not correspond to a registered memory region\0",
    ),
    (801, "cudaErrorNotSupported\0", "operation not supported\0"),
    (999, "cudaErrorUnknown\0", "unknown error\0"),
];

/// The entry of [`ERRORS`] for a code.
pub fn error_entry(code: CudaError) -> Option<&'static (CudaError, &'static str, &'static str)> {
    ERRORS.iter().find(|e| e.0 == code)
}

/// `cudaGetErrorName` without the terminating NUL, for reports.
pub fn error_name(code: CudaError) -> String {
    error_entry(code).map_or_else(
        || format!("cudaError({code})"),
        |e| e.1.trim_end_matches('\0').to_string(),
    )
}

/// Whether an error is sticky: after it the context is unusable and every later call
/// returns it (a kernel fault, as on a GPU).
pub fn is_sticky(code: CudaError) -> bool {
    matches!(
        code,
        ILLEGAL_ADDRESS
            | ASSERT
            | ILLEGAL_INSTRUCTION
            | MISALIGNED_ADDRESS
            | LAUNCH_FAILURE
            | LAUNCH_TIMEOUT
    )
}

/// `enum cudaMemcpyKind`.
pub const MEMCPY_HOST_TO_HOST: c_int = 0;
pub const MEMCPY_HOST_TO_DEVICE: c_int = 1;
pub const MEMCPY_DEVICE_TO_HOST: c_int = 2;
pub const MEMCPY_DEVICE_TO_DEVICE: c_int = 3;
pub const MEMCPY_DEFAULT: c_int = 4;

/// `dim3` (passed by value: the C ABI of a 12-byte struct of three `unsigned int`s).
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Dim3 {
    pub x: u32,
    pub y: u32,
    pub z: u32,
}

impl Dim3 {
    pub fn array(self) -> [u32; 3] {
        [self.x, self.y, self.z]
    }
}

/// `cudaUUID_t`.
#[repr(C)]
#[derive(Clone, Copy)]
pub struct Uuid {
    pub bytes: [u8; 16],
}

/// `struct cudaDeviceProp` in the shim's field order.
#[repr(C)]
#[derive(Clone, Copy)]
pub struct DeviceProp {
    pub name: [u8; 256],
    pub uuid: Uuid,
    pub luid: [u8; 8],
    pub luid_device_node_mask: u32,
    pub total_global_mem: usize,
    pub shared_mem_per_block: usize,
    pub regs_per_block: c_int,
    pub warp_size: c_int,
    pub mem_pitch: usize,
    pub max_threads_per_block: c_int,
    pub max_threads_dim: [c_int; 3],
    pub max_grid_size: [c_int; 3],
    pub clock_rate: c_int,
    pub total_const_mem: usize,
    pub major: c_int,
    pub minor: c_int,
    pub texture_alignment: usize,
    pub texture_pitch_alignment: usize,
    pub device_overlap: c_int,
    pub multi_processor_count: c_int,
    pub kernel_exec_timeout_enabled: c_int,
    pub integrated: c_int,
    pub can_map_host_memory: c_int,
    pub compute_mode: c_int,
    pub max_texture_1d: c_int,
    pub max_texture_1d_mipmap: c_int,
    pub max_texture_1d_linear: c_int,
    pub max_texture_2d: [c_int; 2],
    pub max_texture_3d: [c_int; 3],
    pub max_surface_1d: c_int,
    pub max_surface_2d: [c_int; 2],
    pub surface_alignment: usize,
    pub concurrent_kernels: c_int,
    pub ecc_enabled: c_int,
    pub pci_bus_id: c_int,
    pub pci_device_id: c_int,
    pub pci_domain_id: c_int,
    pub tcc_driver: c_int,
    pub async_engine_count: c_int,
    pub unified_addressing: c_int,
    pub memory_clock_rate: c_int,
    pub memory_bus_width: c_int,
    pub l2_cache_size: c_int,
    pub persisting_l2_cache_max_size: c_int,
    pub max_threads_per_multi_processor: c_int,
    pub stream_priorities_supported: c_int,
    pub global_l1_cache_supported: c_int,
    pub local_l1_cache_supported: c_int,
    pub shared_mem_per_multiprocessor: usize,
    pub regs_per_multiprocessor: c_int,
    pub managed_memory: c_int,
    pub is_multi_gpu_board: c_int,
    pub multi_gpu_board_group_id: c_int,
    pub host_native_atomic_supported: c_int,
    pub single_to_double_precision_perf_ratio: c_int,
    pub pageable_memory_access: c_int,
    pub concurrent_managed_access: c_int,
    pub compute_preemption_supported: c_int,
    pub can_use_host_pointer_for_registered_mem: c_int,
    pub cooperative_launch: c_int,
    pub cooperative_multi_device_launch: c_int,
    pub shared_mem_per_block_optin: usize,
    pub pageable_memory_access_uses_host_page_tables: c_int,
    pub direct_managed_mem_access_from_host: c_int,
    pub max_blocks_per_multi_processor: c_int,
    pub access_policy_max_window_size: c_int,
    pub reserved_shared_mem_per_block: usize,
}

/// `struct cudaFuncAttributes`.
#[repr(C)]
#[derive(Clone, Copy, Default)]
pub struct FuncAttributes {
    pub shared_size_bytes: usize,
    pub const_size_bytes: usize,
    pub local_size_bytes: usize,
    pub max_threads_per_block: c_int,
    pub num_regs: c_int,
    pub ptx_version: c_int,
    pub binary_version: c_int,
    pub cache_mode_ca: c_int,
    pub max_dynamic_shared_size_bytes: c_int,
    pub preferred_shmem_carveout: c_int,
}

/// `struct cudaPointerAttributes`.
#[repr(C)]
pub struct PointerAttributes {
    pub kind: c_int,
    pub device: c_int,
    pub device_pointer: *mut std::ffi::c_void,
    pub host_pointer: *mut std::ffi::c_void,
}

/// `struct cudaPitchedPtr`.
#[repr(C)]
#[derive(Clone, Copy)]
pub struct PitchedPtr {
    pub ptr: *mut std::ffi::c_void,
    pub pitch: usize,
    pub xsize: usize,
    pub ysize: usize,
}

/// `struct cudaExtent`.
#[repr(C)]
#[derive(Clone, Copy)]
pub struct Extent {
    pub width: usize,
    pub height: usize,
    pub depth: usize,
}

/// `struct cudaDeviceProp` of NVIDIA's CUDA 13 headers (`driver_types.h`), which dropped
/// fields of the shim's layout (`clockRate`, `deviceOverlap`, `computeMode`,
/// `memoryClockRate` …) and added others: what a program whose host side nvcc 13
/// compiled passes to `cudaGetDeviceProperties`. A test compares its offsets with the
/// headers' when they are installed.
#[repr(C)]
#[derive(Clone, Copy)]
pub struct DeviceProp13 {
    pub name: [u8; 256],
    pub uuid: Uuid,
    pub luid: [u8; 8],
    pub luid_device_node_mask: u32,
    pub total_global_mem: usize,
    pub shared_mem_per_block: usize,
    pub regs_per_block: c_int,
    pub warp_size: c_int,
    pub mem_pitch: usize,
    pub max_threads_per_block: c_int,
    pub max_threads_dim: [c_int; 3],
    pub max_grid_size: [c_int; 3],
    pub total_const_mem: usize,
    pub major: c_int,
    pub minor: c_int,
    pub texture_alignment: usize,
    pub texture_pitch_alignment: usize,
    pub multi_processor_count: c_int,
    pub integrated: c_int,
    pub can_map_host_memory: c_int,
    pub max_texture_1d: c_int,
    pub max_texture_1d_mipmap: c_int,
    pub max_texture_2d: [c_int; 2],
    pub max_texture_2d_mipmap: [c_int; 2],
    pub max_texture_2d_linear: [c_int; 3],
    pub max_texture_2d_gather: [c_int; 2],
    pub max_texture_3d: [c_int; 3],
    pub max_texture_3d_alt: [c_int; 3],
    pub max_texture_cubemap: c_int,
    pub max_texture_1d_layered: [c_int; 2],
    pub max_texture_2d_layered: [c_int; 3],
    pub max_texture_cubemap_layered: [c_int; 2],
    pub max_surface_1d: c_int,
    pub max_surface_2d: [c_int; 2],
    pub max_surface_3d: [c_int; 3],
    pub max_surface_1d_layered: [c_int; 2],
    pub max_surface_2d_layered: [c_int; 3],
    pub max_surface_cubemap: c_int,
    pub max_surface_cubemap_layered: [c_int; 2],
    pub surface_alignment: usize,
    pub concurrent_kernels: c_int,
    pub ecc_enabled: c_int,
    pub pci_bus_id: c_int,
    pub pci_device_id: c_int,
    pub pci_domain_id: c_int,
    pub tcc_driver: c_int,
    pub async_engine_count: c_int,
    pub unified_addressing: c_int,
    pub memory_bus_width: c_int,
    pub l2_cache_size: c_int,
    pub persisting_l2_cache_max_size: c_int,
    pub max_threads_per_multi_processor: c_int,
    pub stream_priorities_supported: c_int,
    pub global_l1_cache_supported: c_int,
    pub local_l1_cache_supported: c_int,
    pub shared_mem_per_multiprocessor: usize,
    pub regs_per_multiprocessor: c_int,
    pub managed_memory: c_int,
    pub is_multi_gpu_board: c_int,
    pub multi_gpu_board_group_id: c_int,
    pub host_native_atomic_supported: c_int,
    pub pageable_memory_access: c_int,
    pub concurrent_managed_access: c_int,
    pub compute_preemption_supported: c_int,
    pub can_use_host_pointer_for_registered_mem: c_int,
    pub cooperative_launch: c_int,
    pub shared_mem_per_block_optin: usize,
    pub pageable_memory_access_uses_host_page_tables: c_int,
    pub direct_managed_mem_access_from_host: c_int,
    pub max_blocks_per_multi_processor: c_int,
    pub access_policy_max_window_size: c_int,
    pub reserved_shared_mem_per_block: usize,
    pub host_register_supported: c_int,
    pub sparse_cuda_array_supported: c_int,
    pub host_register_read_only_supported: c_int,
    pub timeline_semaphore_interop_supported: c_int,
    pub memory_pools_supported: c_int,
    pub gpu_direct_rdma_supported: c_int,
    pub gpu_direct_rdma_flush_writes_options: u32,
    pub gpu_direct_rdma_writes_ordering: c_int,
    pub memory_pool_supported_handle_types: u32,
    pub deferred_mapping_cuda_array_supported: c_int,
    pub ipc_event_supported: c_int,
    pub cluster_launch: c_int,
    pub unified_function_pointers: c_int,
    pub device_numa_config: c_int,
    pub device_numa_id: c_int,
    pub mps_enabled: c_int,
    pub host_numa_id: c_int,
    pub gpu_pci_device_id: u32,
    pub gpu_pci_subsystem_id: u32,
    pub host_numa_multinode_ipc_supported: c_int,
    pub reserved: [c_int; 56],
}

impl DeviceProp13 {
    /// The CUDA 13 layout of the same properties; fields the shim's layout lacks are
    /// zero (not supported), `reserved` too.
    pub fn from_shim(p: &DeviceProp) -> DeviceProp13 {
        // SAFETY: DeviceProp13 is plain old data (integers and byte arrays): all zeros is
        // valid.
        let mut q: DeviceProp13 = unsafe { std::mem::zeroed() };
        q.name = p.name;
        q.uuid = p.uuid;
        q.luid = p.luid;
        q.luid_device_node_mask = p.luid_device_node_mask;
        q.total_global_mem = p.total_global_mem;
        q.shared_mem_per_block = p.shared_mem_per_block;
        q.regs_per_block = p.regs_per_block;
        q.warp_size = p.warp_size;
        q.mem_pitch = p.mem_pitch;
        q.max_threads_per_block = p.max_threads_per_block;
        q.max_threads_dim = p.max_threads_dim;
        q.max_grid_size = p.max_grid_size;
        q.total_const_mem = p.total_const_mem;
        q.major = p.major;
        q.minor = p.minor;
        q.texture_alignment = p.texture_alignment;
        q.texture_pitch_alignment = p.texture_pitch_alignment;
        q.multi_processor_count = p.multi_processor_count;
        q.integrated = p.integrated;
        q.can_map_host_memory = p.can_map_host_memory;
        q.max_texture_1d = p.max_texture_1d;
        q.max_texture_1d_mipmap = p.max_texture_1d_mipmap;
        q.max_texture_2d = p.max_texture_2d;
        q.max_texture_3d = p.max_texture_3d;
        q.max_surface_1d = p.max_surface_1d;
        q.max_surface_2d = p.max_surface_2d;
        q.surface_alignment = p.surface_alignment;
        q.concurrent_kernels = p.concurrent_kernels;
        q.ecc_enabled = p.ecc_enabled;
        q.pci_bus_id = p.pci_bus_id;
        q.pci_device_id = p.pci_device_id;
        q.pci_domain_id = p.pci_domain_id;
        q.tcc_driver = p.tcc_driver;
        q.async_engine_count = p.async_engine_count;
        q.unified_addressing = p.unified_addressing;
        q.memory_bus_width = p.memory_bus_width;
        q.l2_cache_size = p.l2_cache_size;
        q.persisting_l2_cache_max_size = p.persisting_l2_cache_max_size;
        q.max_threads_per_multi_processor = p.max_threads_per_multi_processor;
        q.stream_priorities_supported = p.stream_priorities_supported;
        q.global_l1_cache_supported = p.global_l1_cache_supported;
        q.local_l1_cache_supported = p.local_l1_cache_supported;
        q.shared_mem_per_multiprocessor = p.shared_mem_per_multiprocessor;
        q.regs_per_multiprocessor = p.regs_per_multiprocessor;
        q.managed_memory = p.managed_memory;
        q.is_multi_gpu_board = p.is_multi_gpu_board;
        q.multi_gpu_board_group_id = p.multi_gpu_board_group_id;
        q.host_native_atomic_supported = p.host_native_atomic_supported;
        q.pageable_memory_access = p.pageable_memory_access;
        q.concurrent_managed_access = p.concurrent_managed_access;
        q.compute_preemption_supported = p.compute_preemption_supported;
        q.can_use_host_pointer_for_registered_mem = p.can_use_host_pointer_for_registered_mem;
        q.cooperative_launch = p.cooperative_launch;
        q.shared_mem_per_block_optin = p.shared_mem_per_block_optin;
        q.pageable_memory_access_uses_host_page_tables =
            p.pageable_memory_access_uses_host_page_tables;
        q.direct_managed_mem_access_from_host = p.direct_managed_mem_access_from_host;
        q.max_blocks_per_multi_processor = p.max_blocks_per_multi_processor;
        q.access_policy_max_window_size = p.access_policy_max_window_size;
        q.reserved_shared_mem_per_block = p.reserved_shared_mem_per_block;
        // What this runtime implements (`cudaHostRegister`, `cudaMallocAsync`).
        q.host_register_supported = 1;
        q.memory_pools_supported = 1;
        q
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::mem::{offset_of, size_of};

    /// The offsets of [`DeviceProp13`] are those of NVIDIA's headers: a C program compiled
    /// against them prints its own (skipped when the headers or a C compiler are absent).
    #[test]
    fn the_cuda_13_device_properties_match_nvidias_headers() {
        let Some(tree) = warpcheck_front::NvidiaTree::from_env() else {
            println!("skipped: no NVIDIA headers installed");
            return;
        };
        let Some(include) = tree
            .header_dirs
            .iter()
            .find(|d| d.join("driver_types.h").is_file())
        else {
            println!("skipped: no driver_types.h in {:?}", tree.header_dirs);
            return;
        };
        let dir = tempfile::tempdir().unwrap();
        let probe = dir.path().join("probe.c");
        std::fs::write(
            &probe,
            "#include <stdio.h>\n#include <stddef.h>\n#include <driver_types.h>\n\
             #define O(f) printf(\"%zu \", offsetof(struct cudaDeviceProp, f));\n\
             int main(void) { printf(\"%zu \", sizeof(struct cudaDeviceProp));\n\
             O(totalGlobalMem) O(major) O(multiProcessorCount) O(surfaceAlignment)\n\
             O(sharedMemPerMultiprocessor) O(cooperativeLaunch) O(sharedMemPerBlockOptin)\n\
             O(reservedSharedMemPerBlock) O(hostNumaMultinodeIpcSupported) return 0; }\n",
        )
        .unwrap();
        let exe = dir.path().join("probe");
        let built = std::process::Command::new("cc")
            .arg("-I")
            .arg(include)
            .arg(&probe)
            .arg("-o")
            .arg(&exe)
            .output();
        match built {
            Ok(out) if out.status.success() => {}
            other => {
                println!("skipped: cannot compile the probe: {other:?}");
                return;
            }
        }
        let out = std::process::Command::new(&exe).output().unwrap();
        let theirs = String::from_utf8(out.stdout).unwrap();
        let ours = [
            size_of::<DeviceProp13>(),
            offset_of!(DeviceProp13, total_global_mem),
            offset_of!(DeviceProp13, major),
            offset_of!(DeviceProp13, multi_processor_count),
            offset_of!(DeviceProp13, surface_alignment),
            offset_of!(DeviceProp13, shared_mem_per_multiprocessor),
            offset_of!(DeviceProp13, cooperative_launch),
            offset_of!(DeviceProp13, shared_mem_per_block_optin),
            offset_of!(DeviceProp13, reserved_shared_mem_per_block),
            offset_of!(DeviceProp13, host_numa_multinode_ipc_supported),
        ]
        .map(|n| n.to_string())
        .join(" ");
        assert_eq!(theirs.trim(), ours);
    }
}
