//! How an instrumented kernel is run: the [`Executor`] trait, implemented by the emulator
//! ([`crate::EmuExecutor`]) and the CUDA driver ([`crate::CudaExecutor`]).

use crate::GpuError;

/// One kernel argument.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Arg {
    /// A by-value parameter: its bytes, as many as the parameter's size.
    Bytes(Vec<u8>),
    /// A pointer to device buffer `i` of [`KernelRun::buffers`].
    Buffer(usize),
}

/// One launch of a kernel of a PTX module over host buffers.
pub struct KernelRun<'a> {
    /// The module's PTX text.
    pub ptx: &'a str,
    /// The kernel's PTX name.
    pub kernel: &'a str,
    pub grid: [u32; 3],
    pub block: [u32; 3],
    /// Dynamic shared memory in bytes.
    pub shared: u32,
    /// One per kernel parameter, in order.
    pub args: &'a [Arg],
    /// The buffers: copied to the device before the launch and back after it.
    pub buffers: &'a mut [Vec<u8>],
}

/// Runs kernels. Implementations copy every buffer in, launch once, and copy every buffer
/// back; a kernel fault is an error.
pub trait Executor {
    /// What runs the kernels, for messages ("emulator", "NVIDIA H100 …").
    fn describe(&self) -> String;
    fn run(&mut self, run: KernelRun<'_>) -> Result<(), GpuError>;
    /// Device memory free now, in bytes, when the executor has a device.
    fn free_memory(&self) -> Option<u64> {
        None
    }
}
