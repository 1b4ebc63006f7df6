//! How kernels run: the [`Executor`] trait, implemented by the emulator
//! ([`crate::EmuExecutor`]) and the CUDA driver ([`crate::CudaExecutor`]).
//!
//! Buffers live on the device between launches ([`DeviceBuffer`]): GPU mode uploads a
//! launch's buffers once, keeps the private copies on the device, compares them there with
//! its own kernels ([`crate::kernels`]) and downloads only small results. [`Metered`]
//! counts what crosses between host and device.

use std::collections::HashMap;

use crate::GpuError;

/// One kernel argument of [`KernelRun`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Arg {
    /// A by-value parameter: its bytes, as many as the parameter's size.
    Bytes(Vec<u8>),
    /// A pointer to device buffer `i` of [`KernelRun::buffers`].
    Buffer(usize),
}

/// A device buffer of an executor (a handle; the executor owns the memory).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct DeviceBuffer(pub u32);

/// One argument of a [`DeviceLaunch`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Param {
    /// A by-value parameter: its bytes, as many as the parameter's size.
    Bytes(Vec<u8>),
    /// The address of a byte of a device buffer.
    Pointer(DeviceBuffer, u64),
}

impl Param {
    pub fn u32(v: u32) -> Param {
        Param::Bytes(v.to_le_bytes().to_vec())
    }

    pub fn u64(v: u64) -> Param {
        Param::Bytes(v.to_le_bytes().to_vec())
    }

    /// The start of buffer `b`.
    pub fn ptr(b: DeviceBuffer) -> Param {
        Param::Pointer(b, 0)
    }
}

/// One launch of a kernel of a PTX module over device buffers.
pub struct DeviceLaunch<'a> {
    /// The module's PTX text.
    pub ptx: &'a str,
    /// The kernel's PTX name.
    pub kernel: &'a str,
    pub grid: [u32; 3],
    pub block: [u32; 3],
    /// Dynamic shared memory in bytes.
    pub shared: u32,
    /// One per kernel parameter, in order.
    pub params: &'a [Param],
}

/// One launch of a kernel over host buffers ([`Executor::run`]).
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

/// Runs kernels over device memory. A launch returns when the kernel has finished; a
/// kernel fault is an error. Implementations load each distinct PTX module once.
pub trait Executor {
    /// What runs the kernels, for messages ("emulator", "NVIDIA H100 …").
    fn describe(&self) -> String;
    /// Device memory free now, in bytes, when the executor has a device.
    fn free_memory(&self) -> Option<u64> {
        None
    }
    /// A fresh buffer of `bytes` bytes (at least one), zeroed.
    fn alloc(&mut self, bytes: u64) -> Result<DeviceBuffer, GpuError>;
    /// Frees a buffer of [`Executor::alloc`].
    fn free(&mut self, buffer: DeviceBuffer);
    /// Copies `bytes` from the host to `to` at `offset`.
    fn upload(&mut self, to: DeviceBuffer, offset: u64, bytes: &[u8]) -> Result<(), GpuError>;
    /// Copies `into.len()` bytes at `offset` of `from` to the host.
    fn download(
        &mut self,
        from: DeviceBuffer,
        offset: u64,
        into: &mut [u8],
    ) -> Result<(), GpuError>;
    /// Copies `len` bytes between device buffers (the ranges do not overlap).
    fn copy(
        &mut self,
        to: (DeviceBuffer, u64),
        from: (DeviceBuffer, u64),
        len: u64,
    ) -> Result<(), GpuError>;
    /// Sets `len` bytes at `offset` of `buffer` to `byte`.
    fn fill(
        &mut self,
        buffer: DeviceBuffer,
        offset: u64,
        len: u64,
        byte: u8,
    ) -> Result<(), GpuError>;
    /// Runs a kernel to completion.
    fn launch(&mut self, launch: &DeviceLaunch<'_>) -> Result<(), GpuError>;

    /// Copies every buffer in, launches once, and copies every buffer back.
    fn run(&mut self, run: KernelRun<'_>) -> Result<(), GpuError> {
        let mut device = Vec::with_capacity(run.buffers.len());
        let outcome = (|| {
            for b in run.buffers.iter() {
                let d = self.alloc(b.len() as u64)?;
                device.push(d);
                self.upload(d, 0, b)?;
            }
            let params: Vec<Param> = run
                .args
                .iter()
                .map(|a| match a {
                    Arg::Bytes(b) => Param::Bytes(b.clone()),
                    Arg::Buffer(i) => Param::ptr(device[*i]),
                })
                .collect();
            self.launch(&DeviceLaunch {
                ptx: run.ptx,
                kernel: run.kernel,
                grid: run.grid,
                block: run.block,
                shared: run.shared,
                params: &params,
            })?;
            for (b, &d) in run.buffers.iter_mut().zip(&device) {
                self.download(d, 0, b)?;
            }
            Ok(())
        })();
        for d in device {
            self.free(d);
        }
        outcome
    }
}

/// What crossed between host and device through a [`Metered`] executor.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Traffic {
    /// Bytes copied from the host to the device.
    pub uploaded: u64,
    /// Bytes copied from the device to the host.
    pub downloaded: u64,
    /// Kernel launches.
    pub launches: u64,
}

/// An executor that counts the bytes and launches passing through it.
pub struct Metered<'a> {
    pub inner: &'a mut dyn Executor,
    pub traffic: Traffic,
}

impl<'a> Metered<'a> {
    pub fn new(inner: &'a mut dyn Executor) -> Metered<'a> {
        Metered {
            inner,
            traffic: Traffic::default(),
        }
    }
}

impl Executor for Metered<'_> {
    fn describe(&self) -> String {
        self.inner.describe()
    }
    fn free_memory(&self) -> Option<u64> {
        self.inner.free_memory()
    }
    fn alloc(&mut self, bytes: u64) -> Result<DeviceBuffer, GpuError> {
        self.inner.alloc(bytes)
    }
    fn free(&mut self, buffer: DeviceBuffer) {
        self.inner.free(buffer)
    }
    fn upload(&mut self, to: DeviceBuffer, offset: u64, bytes: &[u8]) -> Result<(), GpuError> {
        self.traffic.uploaded += bytes.len() as u64;
        self.inner.upload(to, offset, bytes)
    }
    fn download(
        &mut self,
        from: DeviceBuffer,
        offset: u64,
        into: &mut [u8],
    ) -> Result<(), GpuError> {
        self.traffic.downloaded += into.len() as u64;
        self.inner.download(from, offset, into)
    }
    fn copy(
        &mut self,
        to: (DeviceBuffer, u64),
        from: (DeviceBuffer, u64),
        len: u64,
    ) -> Result<(), GpuError> {
        self.inner.copy(to, from, len)
    }
    fn fill(
        &mut self,
        buffer: DeviceBuffer,
        offset: u64,
        len: u64,
        byte: u8,
    ) -> Result<(), GpuError> {
        self.inner.fill(buffer, offset, len, byte)
    }
    fn launch(&mut self, launch: &DeviceLaunch<'_>) -> Result<(), GpuError> {
        self.traffic.launches += 1;
        self.inner.launch(launch)
    }
}

/// The address of byte `offset` of `b` in an executor's table of buffers (id to base
/// address and size), checked against the size for `len` bytes.
pub(crate) fn buffer_address(
    buffers: &HashMap<u32, (u64, u64)>,
    b: DeviceBuffer,
    offset: u64,
    len: u64,
) -> Result<u64, GpuError> {
    let &(base, size) = buffers
        .get(&b.0)
        .ok_or_else(|| GpuError::Internal(format!("no device buffer {}", b.0)))?;
    if offset.checked_add(len).is_none_or(|end| end > size) {
        return Err(GpuError::Internal(format!(
            "bytes {offset}..+{len} outside device buffer {} of {size} bytes",
            b.0
        )));
    }
    Ok(base + offset)
}
