//! Functions of the CUDA runtime API that this runtime does not implement. Each is
//! exported, so that a program calling it links and runs; it returns
//! `cudaErrorNotSupported` and is reported once by name (`api-not-supported`), never
//! silently ignored. Their arguments are not read (on the C ABIs this library is built
//! for, a callee may ignore arguments it does not declare).

use crate::state;
use crate::types::{CudaError, NOT_SUPPORTED};

/// Records the call and returns `cudaErrorNotSupported`.
pub fn not_supported(name: &str) -> CudaError {
    state::with(|rt| {
        rt.timings.api_calls += 1;
        rt.not_supported(name);
        rt.result(NOT_SUPPORTED)
    })
}

macro_rules! unsupported {
    ($($name:ident),* $(,)?) => {
        $(
            #[unsafe(no_mangle)]
            pub extern "C" fn $name() -> CudaError {
                not_supported(stringify!($name))
            }
        )*
        /// The names of the functions exported as not supported.
        pub const NOT_SUPPORTED_FUNCTIONS: &[&str] = &[$(stringify!($name)),*];
    };
}

unsupported!(
    cudaMalloc3D,
    cudaMalloc3DArray,
    cudaMallocArray,
    cudaFreeArray,
    cudaMemcpy3D,
    cudaMemcpy3DAsync,
    cudaMemset3D,
    cudaMemcpy2DToArray,
    cudaMemcpy2DFromArray,
    cudaMemcpyToArray,
    cudaMemcpyFromArray,
    cudaMemcpyPeer,
    cudaMemcpyPeerAsync,
    cudaHostGetDevicePointer,
    cudaDeviceEnablePeerAccess,
    cudaDeviceDisablePeerAccess,
    cudaGraphCreate,
    cudaGraphDestroy,
    cudaGraphInstantiate,
    cudaGraphExecDestroy,
    cudaGraphLaunch,
    cudaStreamBeginCapture,
    cudaStreamEndCapture,
    cudaCreateSurfaceObject,
    cudaDestroySurfaceObject,
    cudaBindTextureToArray,
    cudaGetTextureObjectResourceDesc,
    cudaGetTextureObjectTextureDesc,
    cudaIpcGetMemHandle,
    cudaIpcOpenMemHandle,
    cudaIpcCloseMemHandle,
    cudaImportExternalMemory,
    cudaGetFuncBySymbol,
    cudaGraphicsUnregisterResource,
    cudaGraphicsResourceSetMapFlags,
    cudaGraphicsMapResources,
    cudaGraphicsUnmapResources,
    cudaGraphicsResourceGetMappedPointer,
    cudaGraphicsSubResourceGetMappedArray,
    cudaGLGetDevices,
    cudaGraphicsGLRegisterImage,
    cudaGraphicsGLRegisterBuffer,
    cudaGLSetGLDevice,
    cudaGLRegisterBufferObject,
    cudaGLMapBufferObject,
    cudaGLUnmapBufferObject,
    cudaGLUnregisterBufferObject,
    cudaGLSetBufferObjectMapFlags,
    cudaGLMapBufferObjectAsync,
    cudaGLUnmapBufferObjectAsync,
);
