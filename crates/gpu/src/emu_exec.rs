//! The emulator as an [`Executor`]: PTX goes through the same parser, lowering and
//! emulator as any kernel, so the tests check GPU mode (the instrumented kernels and the
//! comparison kernels of [`crate::kernels`]) without a GPU. Device buffers are
//! allocations of one emulated global memory that lives as long as the executor.

use std::collections::HashMap;

use warpcheck_emu::{GlobalMemory, LaunchConfig};
use warpcheck_ir::{Program, VarRole};

use crate::GpuError;
use crate::exec::{DeviceBuffer, DeviceLaunch, Executor, Param};

/// Runs kernels in the emulator, caching each module's lowering.
pub struct EmuExecutor {
    /// Host threads for the emulator's blocks (0: the emulator's default).
    pub threads: usize,
    /// Instruction budget per thread (0: the emulator's default).
    pub budget: u64,
    programs: HashMap<String, Program>,
    memory: GlobalMemory,
    /// Buffer handle to (address, size).
    buffers: HashMap<u32, (u64, u64)>,
    next: u32,
}

impl Default for EmuExecutor {
    fn default() -> EmuExecutor {
        EmuExecutor {
            threads: 0,
            budget: 0,
            programs: HashMap::new(),
            memory: GlobalMemory::new(),
            buffers: HashMap::new(),
            next: 0,
        }
    }
}

fn run_error(e: impl std::fmt::Display) -> GpuError {
    GpuError::Run(e.to_string())
}

impl EmuExecutor {
    pub fn new() -> EmuExecutor {
        EmuExecutor::default()
    }

    fn program(&mut self, ptx: &str) -> Result<&Program, GpuError> {
        if !self.programs.contains_key(ptx) {
            let parsed = warpcheck_ptx::parse(ptx);
            if let Some(e) = parsed.errors.first() {
                return Err(GpuError::Run(format!("PTX does not parse: {e:?}")));
            }
            let p = warpcheck_ir::lower(&parsed.module)
                .map_err(|e| GpuError::Run(format!("PTX does not lower: {:?}", e.first())))?;
            self.programs.insert(ptx.to_string(), p);
        }
        Ok(&self.programs[ptx])
    }

    /// The address of byte `offset` of `b`, checked against its size for `len` bytes.
    fn address(&self, b: DeviceBuffer, offset: u64, len: u64) -> Result<u64, GpuError> {
        crate::exec::buffer_address(&self.buffers, b, offset, len)
    }
}

impl Executor for EmuExecutor {
    fn describe(&self) -> String {
        "the emulator".to_string()
    }

    fn alloc(&mut self, bytes: u64) -> Result<DeviceBuffer, GpuError> {
        let a = self
            .memory
            .alloc(bytes.max(1), true)
            .map_err(|e| GpuError::Run(format!("cannot allocate {bytes} bytes: {e}")))?;
        let id = self.next;
        self.next += 1;
        self.buffers.insert(id, (a, bytes));
        Ok(DeviceBuffer(id))
    }

    fn free(&mut self, buffer: DeviceBuffer) {
        if let Some((a, _)) = self.buffers.remove(&buffer.0) {
            self.memory.free(a);
        }
    }

    fn upload(&mut self, to: DeviceBuffer, offset: u64, bytes: &[u8]) -> Result<(), GpuError> {
        let a = self.address(to, offset, bytes.len() as u64)?;
        self.memory.write(a, bytes).map_err(run_error)
    }

    fn download(
        &mut self,
        from: DeviceBuffer,
        offset: u64,
        into: &mut [u8],
    ) -> Result<(), GpuError> {
        let a = self.address(from, offset, into.len() as u64)?;
        let bytes = self.memory.read(a, into.len() as u64).map_err(run_error)?;
        into.copy_from_slice(&bytes);
        Ok(())
    }

    fn copy(
        &mut self,
        to: (DeviceBuffer, u64),
        from: (DeviceBuffer, u64),
        len: u64,
    ) -> Result<(), GpuError> {
        let src = self.address(from.0, from.1, len)?;
        let dst = self.address(to.0, to.1, len)?;
        let bytes = self.memory.read(src, len).map_err(run_error)?;
        self.memory.write(dst, &bytes).map_err(run_error)
    }

    fn fill(
        &mut self,
        buffer: DeviceBuffer,
        offset: u64,
        len: u64,
        byte: u8,
    ) -> Result<(), GpuError> {
        let a = self.address(buffer, offset, len)?;
        self.memory
            .write(a, &vec![byte; len as usize])
            .map_err(run_error)
    }

    fn launch(&mut self, launch: &DeviceLaunch<'_>) -> Result<(), GpuError> {
        let mut addresses = Vec::with_capacity(launch.params.len());
        for p in launch.params {
            addresses.push(match p {
                Param::Bytes(b) => b.clone(),
                Param::Pointer(b, offset) => (self.address(*b, *offset, 0)?).to_le_bytes().to_vec(),
            });
        }
        let (threads, budget) = (self.threads, self.budget);
        // Lowered once per module; taken out while the memory is borrowed mutably.
        self.program(launch.ptx)?;
        let program = self.programs.remove(launch.ptx).expect("just lowered");
        let outcome = run_lowered(
            &program,
            launch,
            &addresses,
            &mut self.memory,
            threads,
            budget,
        );
        self.programs.insert(launch.ptx.to_string(), program);
        outcome
    }
}

/// Runs `launch`'s kernel of `program` with the parameter bytes `args`.
fn run_lowered(
    program: &Program,
    launch: &DeviceLaunch<'_>,
    args: &[Vec<u8>],
    memory: &mut GlobalMemory,
    threads: usize,
    budget: u64,
) -> Result<(), GpuError> {
    let kernel = program
        .function_by_name(launch.kernel)
        .ok_or_else(|| GpuError::Run(format!("no kernel `{}` in the PTX", launch.kernel)))?;
    let f = program.function(kernel);
    if f.params.len() != args.len() {
        return Err(GpuError::Internal(format!(
            "{} arguments for {} parameters of `{}`",
            args.len(),
            f.params.len(),
            launch.kernel
        )));
    }
    let mut params = vec![0u8; f.param_space_size as usize];
    for (&v, bytes) in f.params.iter().zip(args) {
        let var = program.variable(v);
        let VarRole::Param { offset, .. } = var.role else {
            continue;
        };
        let n = bytes.len().min(var.size.unwrap_or(0) as usize);
        params[offset as usize..offset as usize + n].copy_from_slice(&bytes[..n]);
    }
    let mut config = LaunchConfig::new(launch.grid, launch.block);
    config.dynamic_shared = launch.shared;
    if threads > 0 {
        config.threads = threads;
    }
    if budget > 0 {
        config.budget = budget;
    }
    let outcome = warpcheck_emu::run(program, kernel, &params, memory, &config)
        .map_err(|e| GpuError::Run(format!("cannot run `{}`: {e}", f.display_name())))?;
    if let Some(fault) = outcome.faults.first() {
        return Err(GpuError::Run(format!(
            "the kernel `{}` faulted in block {:?}: {}",
            f.display_name(),
            fault.block,
            fault.kind
        )));
    }
    Ok(())
}
