//! The emulator as an [`Executor`]: the instrumented PTX goes through the same parser,
//! lowering and emulator as any kernel, so the tests check GPU mode without a GPU.

use std::collections::HashMap;

use warpcheck_emu::{GlobalMemory, LaunchConfig};
use warpcheck_ir::{Program, VarRole};

use crate::GpuError;
use crate::exec::{Arg, Executor, KernelRun};

/// Runs instrumented kernels in the emulator, caching each module's lowering.
#[derive(Default)]
pub struct EmuExecutor {
    /// Host threads for the emulator's blocks (0: the emulator's default).
    pub threads: usize,
    /// Instruction budget per thread (0: the emulator's default).
    pub budget: u64,
    programs: HashMap<String, Program>,
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
}

impl Executor for EmuExecutor {
    fn describe(&self) -> String {
        "the emulator".to_string()
    }

    fn run(&mut self, run: KernelRun<'_>) -> Result<(), GpuError> {
        let (threads, budget) = (self.threads, self.budget);
        let program = self.program(run.ptx)?;
        let kernel = program
            .function_by_name(run.kernel)
            .ok_or_else(|| GpuError::Run(format!("no kernel `{}` in the PTX", run.kernel)))?;
        let f = program.function(kernel);
        if f.params.len() != run.args.len() {
            return Err(GpuError::Internal(format!(
                "{} arguments for {} parameters",
                run.args.len(),
                f.params.len()
            )));
        }
        let mut memory = GlobalMemory::new();
        let mut addresses = Vec::with_capacity(run.buffers.len());
        for b in run.buffers.iter() {
            let a = memory
                .alloc(b.len().max(1) as u64, true)
                .map_err(|e| GpuError::Run(format!("cannot allocate {} bytes: {e}", b.len())))?;
            memory
                .write(a, b)
                .map_err(|e| GpuError::Run(e.to_string()))?;
            addresses.push(a);
        }
        let mut params = vec![0u8; f.param_space_size as usize];
        for (&v, arg) in f.params.iter().zip(run.args) {
            let var = program.variable(v);
            let VarRole::Param { offset, .. } = var.role else {
                continue;
            };
            let bytes = match arg {
                Arg::Bytes(b) => b.clone(),
                Arg::Buffer(i) => addresses[*i].to_le_bytes().to_vec(),
            };
            let n = bytes.len().min(var.size.unwrap_or(0) as usize);
            params[offset as usize..offset as usize + n].copy_from_slice(&bytes[..n]);
        }
        let mut config = LaunchConfig::new(run.grid, run.block);
        config.dynamic_shared = run.shared;
        if threads > 0 {
            config.threads = threads;
        }
        if budget > 0 {
            config.budget = budget;
        }
        let outcome = warpcheck_emu::run(program, kernel, &params, &mut memory, &config)
            .map_err(|e| GpuError::Run(format!("cannot run `{}`: {e}", f.display_name())))?;
        if let Some(fault) = outcome.faults.first() {
            return Err(GpuError::Run(format!(
                "the instrumented kernel faulted in block {:?}: {}",
                fault.block, fault.kind
            )));
        }
        for (b, &a) in run.buffers.iter_mut().zip(&addresses) {
            let back = memory
                .read(a, b.len() as u64)
                .map_err(|e| GpuError::Run(e.to_string()))?;
            b.copy_from_slice(&back);
        }
        Ok(())
    }
}
