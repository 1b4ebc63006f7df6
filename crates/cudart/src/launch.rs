//! Kernel launches: `<<<>>>` as clang lowers it (`__cudaPushCallConfiguration` + the stub's
//! `__cudaPopCallConfiguration` + `cudaLaunchKernel`, or the legacy `cudaConfigureCall` +
//! `cudaSetupArgument` + `cudaLaunch`), and `cudaLaunchKernel` called directly.
//!
//! A launch runs to completion in the emulator before the call returns (streams are
//! in order and synchronous). As on a GPU the launch itself succeeds when its
//! configuration is valid; a fault in the kernel becomes a sticky error that the next
//! calls return (`cudaErrorIllegalAddress`, `cudaErrorAssert`, …). An invalid
//! configuration fails the launch with `cudaErrorInvalidConfiguration` (or
//! `cudaErrorInvalidValue` for too much shared memory), which `cudaGetLastError` returns.

use std::ffi::c_void;

use warpcheck_emu::{EmuError, Fault, FaultKind, LaunchConfig};
use warpcheck_ir::FuncId;
use warpcheck_report::{Code, Finding, Severity};

use crate::api::{self, Fail};
use crate::host_line::CallSite;
use crate::state::{LaunchRecord, PendingLaunch, Runtime};
use crate::types::*;

/// Where a launch's argument bytes come from.
pub enum Args {
    /// `void **args` of `cudaLaunchKernel`: one pointer per parameter.
    Pointers(*mut *mut c_void),
    /// The bytes of `cudaSetupArgument`, already at the parameters' offsets.
    Block(Vec<u8>),
}

/// The sticky error of a fault, as the GPU reports it.
fn fault_error(kind: &FaultKind) -> CudaError {
    match kind {
        FaultKind::Misaligned { .. } => MISALIGNED_ADDRESS,
        FaultKind::AssertionFailed { .. } => ASSERT,
        FaultKind::Trap => ILLEGAL_INSTRUCTION,
        FaultKind::BudgetExhausted { .. }
        | FaultKind::Spin { .. }
        | FaultKind::Deadlock { .. }
        | FaultKind::LaunchLimit { .. } => LAUNCH_TIMEOUT,
        FaultKind::BadCallTarget { .. } | FaultKind::StackOverflow { .. } => LAUNCH_FAILURE,
        _ => ILLEGAL_ADDRESS,
    }
}

impl Runtime {
    /// The parameter block of a kernel from the program's arguments.
    fn param_block(&self, module: usize, kernel: FuncId, args: &Args) -> Vec<u8> {
        let program = &self.modules[module].program;
        let f = program.function(kernel);
        match args {
            Args::Block(bytes) => {
                let mut b = bytes.clone();
                b.resize((f.param_space_size as usize).max(b.len()), 0);
                b
            }
            Args::Pointers(ptrs) => {
                let mut block = vec![0u8; f.param_space_size as usize];
                for (i, &p) in f.params.iter().enumerate() {
                    let var = program.variable(p);
                    let warpcheck_ir::VarRole::Param { offset, .. } = var.role else {
                        continue;
                    };
                    let size = var.size.unwrap_or(0) as usize;
                    // SAFETY: `args` holds one pointer per kernel parameter, each to a
                    // value of the parameter's type (the CUDA launch contract).
                    let src = unsafe { *ptrs.add(i) } as *const u8;
                    if src.is_null() || offset as usize + size > block.len() {
                        continue;
                    }
                    let dst = &mut block[offset as usize..offset as usize + size];
                    // SAFETY: as above; `size` bytes of the argument are readable.
                    dst.copy_from_slice(unsafe { std::slice::from_raw_parts(src, size) });
                }
                block
            }
        }
    }

    /// Runs a launch of the kernel whose host stub is `stub`.
    pub fn launch(&mut self, stub: usize, cfg: PendingLaunch, args: Args) -> api::Result {
        self.launch_kernel(stub, cfg, args, false)
    }

    /// Runs a launch, cooperative ([`crate::cooperative`]) or not.
    pub fn launch_kernel(
        &mut self,
        stub: usize,
        cfg: PendingLaunch,
        args: Args,
        cooperative: bool,
    ) -> api::Result {
        let Some(&(module, kernel)) = self.kernels.get(&stub) else {
            return Err(Fail::Api(
                INVALID_DEVICE_FUNCTION,
                "the function is not a registered kernel".into(),
            ));
        };
        let params = self.param_block(module, kernel, &args);
        let mut config = LaunchConfig::new(cfg.grid, cfg.block);
        config.dynamic_shared = cfg.shared.min(u32::MAX as usize) as u32;
        config.threads = self.config.threads;
        config.budget = self.config.budget;
        config.launch_budget = self.config.launch_budget;
        config.timeout = self.config.timeout;
        config.cooperative = cooperative;
        let m = &self.modules[module];
        let name = m.program.function(kernel).display_name().to_string();
        if let Err(e) = warpcheck_emu::validate(&m.program, kernel, &params, &config) {
            let code = if cfg.shared > 48 * 1024 {
                INVALID_VALUE
            } else {
                INVALID_CONFIGURATION
            };
            self.launch_error(&name, &cfg, code, &e);
            return Err(Fail::Reported(code));
        }
        self.place_module_globals(module);
        self.managed_to_device();
        let index = self.launches.len();
        self.launches.push(LaunchRecord {
            kernel: name.clone(),
            grid: cfg.grid,
            block: cfg.block,
            shared: config.dynamic_shared,
            site: cfg.site.clone(),
            lane_instructions: 0,
            seconds: 0.0,
            cpu_seconds: None,
            reused: false,
        });
        self.capture_launch(module, kernel, &params, index);
        let key = self.identical_key((module, kernel), &params, &config);
        let before = match self.reuse_identical(key.as_ref(), index) {
            Ok(()) => {
                self.managed_to_host();
                return Ok(());
            }
            Err(before) => before,
        };
        let cpu_start = self.timings.launch_clock();
        let start = std::time::Instant::now();
        let outcome = self.run_kernel(module, kernel, &params, &config, &name);
        let seconds = start.elapsed().as_secs_f64();
        self.record_identical(key.as_ref(), before, outcome.as_ref().ok(), seconds);
        self.launches[index].cpu_seconds = cpu_start
            .zip(self.timings.launch_clock())
            .map(|(a, b)| b - a);
        self.clock_ms += seconds * 1e3;
        self.launches[index].seconds = seconds;
        if let Ok(o) = &outcome {
            self.launches[index].lane_instructions = o.stats.lane_instructions;
        }
        self.managed_to_host();
        let outcome = match outcome {
            Ok(o) => o,
            Err(e) => {
                self.launch_error(&name, &cfg, LAUNCH_FAILURE, &e);
                self.sticky = LAUNCH_FAILURE;
                return Ok(());
            }
        };
        crate::printf::write_stdout(&outcome.printf);
        let total = (outcome.fault_count, outcome.faults.len());
        for group in warpcheck_check::fault::grouped(&outcome.faults) {
            let f = self.fault_finding(module, &name, group, total);
            let f = self.attach_launch(f, index, 1);
            self.findings.add(f);
        }
        if let Some(first) = outcome.faults.first() {
            self.sticky = fault_error(&first.kind);
        }
        Ok(())
    }

    fn run_kernel(
        &mut self,
        module: usize,
        kernel: FuncId,
        params: &[u8],
        config: &LaunchConfig,
        name: &str,
    ) -> Result<warpcheck_emu::RunOutcome, EmuError> {
        let m = &mut self.modules[module];
        match &mut m.checker {
            None => warpcheck_emu::run(&m.program, kernel, params, &mut self.memory, config),
            Some(checker) => {
                if self.config.profile && checker.profile.is_none() {
                    checker.profile = Some(Default::default());
                }
                let f = m.program.function(kernel);
                let info = warpcheck_check::LaunchInfo {
                    kernel,
                    kernel_name: name.to_string(),
                    kernel_mangled: f.name.clone(),
                    grid: config.grid,
                    block: config.block,
                    dynamic_shared: config.dynamic_shared,
                    buffers: Vec::new(),
                };
                checker.launch(&m.program, params, &mut self.memory, config, info)
            }
        }
    }

    /// Places a module's `.global` variables once, so that symbols have addresses.
    pub fn place_module_globals(&mut self, module: usize) {
        let m = &mut self.modules[module];
        if !m.placed {
            m.placed = warpcheck_emu::place_globals(&m.program, &mut self.memory).is_ok();
        }
    }

    /// Reports a launch that failed before running.
    fn launch_error(&mut self, name: &str, cfg: &PendingLaunch, code: CudaError, e: &EmuError) {
        let [gx, gy, gz] = cfg.grid;
        let [bx, by, bz] = cfg.block;
        let f = self
            .host_finding(
                Code::LaunchError,
                Severity::Error,
                format!(
                    "the launch of `{name}` with grid ({gx},{gy},{gz}) and block ({bx},{by},{bz}) fails with {}: {e}",
                    error_name(code)
                ),
                &cfg.site,
                "launched here",
            )
            .kernel(name)
            .help("the kernel did not run; check cudaGetLastError() after every launch");
        self.findings.add(f);
        self.last_error = code;
    }

    /// A group of alike kernel faults as a finding, as kernel mode reports it
    /// ([`warpcheck_check::fault::group_finding`]).
    fn fault_finding(
        &self,
        module: usize,
        kernel: &str,
        group: (&Fault, u64),
        total: (usize, usize),
    ) -> Finding {
        let m = &self.modules[module];
        let locate = |func, inst| crate::locate::site_location(m, func, inst);
        let cx = warpcheck_check::ReportCx {
            program: &m.program,
            locate: &locate,
        };
        warpcheck_check::fault::group_finding(&cx, kernel, group, total)
    }
}

/// `unsigned __cudaPushCallConfiguration(dim3 grid, dim3 block, size_t shmem, void *stream)`.
#[unsafe(no_mangle)]
pub extern "C" fn __cudaPushCallConfiguration(
    grid: Dim3,
    block: Dim3,
    shared: usize,
    stream: *mut c_void,
) -> u32 {
    let site = CallSite::capture();
    crate::state::with(|rt| {
        rt.pending.push(PendingLaunch {
            grid: grid.array(),
            block: block.array(),
            shared,
            stream: stream as usize,
            site,
        })
    });
    0
}

/// `cudaError_t __cudaPopCallConfiguration(dim3 *grid, dim3 *block, size_t *shmem, void *stream)`.
///
/// # Safety
/// The pointers are valid for writes (clang's stub passes its locals).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn __cudaPopCallConfiguration(
    grid: *mut Dim3,
    block: *mut Dim3,
    shared: *mut usize,
    stream: *mut *mut c_void,
) -> CudaError {
    let Some(p) = crate::state::with(|rt| rt.pending.last().cloned()) else {
        return MISSING_CONFIGURATION;
    };
    // SAFETY: per the contract above.
    unsafe {
        let dim = |a: [u32; 3]| Dim3 {
            x: a[0],
            y: a[1],
            z: a[2],
        };
        if !grid.is_null() {
            *grid = dim(p.grid);
        }
        if !block.is_null() {
            *block = dim(p.block);
        }
        if !shared.is_null() {
            *shared = p.shared;
        }
        if !stream.is_null() {
            *stream = p.stream as *mut c_void;
        }
    }
    SUCCESS
}

/// `cudaError_t __cudaGetKernel(cudaKernel_t *kernel, const void *hostFun)`: nvcc 13's
/// launch stubs look their kernel's handle up once; the handle is the host stub itself,
/// which [`__cudaLaunchKernel`] launches as `cudaLaunchKernel` does.
///
/// # Safety
/// `kernel` is null or valid for a write.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn __cudaGetKernel(
    kernel: *mut *const c_void,
    host_fun: *const c_void,
) -> CudaError {
    if kernel.is_null() {
        return INVALID_VALUE;
    }
    // SAFETY: per the contract above.
    unsafe { *kernel = host_fun };
    SUCCESS
}

/// `__cudaLaunchKernel(kernel, grid, block, args, shmem, stream)`: nvcc 13's launch stubs'
/// launch of a handle from [`__cudaGetKernel`].
///
/// # Safety
/// As [`cudaLaunchKernel`].
#[unsafe(no_mangle)]
pub unsafe extern "C" fn __cudaLaunchKernel(
    kernel: *const c_void,
    grid: Dim3,
    block: Dim3,
    args: *mut *mut c_void,
    shared: usize,
    stream: *mut c_void,
) -> CudaError {
    // SAFETY: per the contract above.
    unsafe { cudaLaunchKernel(kernel, grid, block, args, shared, stream) }
}

/// `__cudaLaunchKernel_ptsz`: [`__cudaLaunchKernel`] under `--default-stream per-thread`
/// (streams are synchronous here, so the default streams are one).
///
/// # Safety
/// As [`cudaLaunchKernel`].
#[unsafe(no_mangle)]
pub unsafe extern "C" fn __cudaLaunchKernel_ptsz(
    kernel: *const c_void,
    grid: Dim3,
    block: Dim3,
    args: *mut *mut c_void,
    shared: usize,
    stream: *mut c_void,
) -> CudaError {
    // SAFETY: per the contract above.
    unsafe { cudaLaunchKernel(kernel, grid, block, args, shared, stream) }
}

/// `cudaLaunchKernel(func, grid, block, args, shmem, stream)`. Uses the call site of the
/// `<<<>>>` pushed before it when there is one (the stub's own line is the kernel's).
///
/// # Safety
/// `args` holds one pointer per kernel parameter.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cudaLaunchKernel(
    func: *const c_void,
    grid: Dim3,
    block: Dim3,
    args: *mut *mut c_void,
    shared: usize,
    stream: *mut c_void,
) -> CudaError {
    api::call("cudaLaunchKernel", |rt| {
        // The stack is captured only when no `<<<>>>` pushed a site: a capture costs
        // about as much as the launch of a small kernel.
        let site = match rt.pending.pop() {
            Some(pushed) => pushed.site,
            None => CallSite::capture(),
        };
        let cfg = PendingLaunch {
            grid: grid.array(),
            block: block.array(),
            shared,
            stream: stream as usize,
            site,
        };
        rt.launch(func as usize, cfg, Args::Pointers(args))
    })
}

/// `cudaConfigureCall(grid, block, shmem, stream)`: the legacy launch protocol's first step.
#[unsafe(no_mangle)]
pub extern "C" fn cudaConfigureCall(
    grid: Dim3,
    block: Dim3,
    shared: usize,
    stream: *mut c_void,
) -> CudaError {
    __cudaPushCallConfiguration(grid, block, shared, stream);
    crate::state::with(|rt| rt.setup_args.clear());
    SUCCESS
}

/// `cudaSetupArgument(arg, size, offset)`: copies one argument to its offset.
///
/// # Safety
/// `arg` points at `size` readable bytes.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cudaSetupArgument(
    arg: *const c_void,
    size: usize,
    offset: usize,
) -> CudaError {
    if arg.is_null() {
        return INVALID_VALUE;
    }
    // SAFETY: per the contract above.
    let bytes = unsafe { std::slice::from_raw_parts(arg as *const u8, size) };
    crate::state::with(|rt| {
        if rt.setup_args.len() < offset + size {
            rt.setup_args.resize(offset + size, 0);
        }
        rt.setup_args[offset..offset + size].copy_from_slice(bytes);
    });
    SUCCESS
}

/// `cudaLaunch(func)`: runs the configured launch with the arguments set up.
#[unsafe(no_mangle)]
pub extern "C" fn cudaLaunch(func: *const c_void) -> CudaError {
    api::call("cudaLaunch", |rt| {
        let Some(cfg) = rt.pending.pop() else {
            return Err(Fail::Api(
                MISSING_CONFIGURATION,
                "no cudaConfigureCall before cudaLaunch".into(),
            ));
        };
        let block = std::mem::take(&mut rt.setup_args);
        rt.launch(func as usize, cfg, Args::Block(block))
    })
}

/// `cudaLaunchAttribute`: an attribute's id, then its 64-byte value (NVIDIA's
/// `driver_types.h`).
#[repr(C)]
pub struct LaunchAttribute {
    pub id: u32,
    pub pad: [u8; 4],
    pub value: [u8; 64],
}

/// `cudaLaunchConfig_t`.
#[repr(C)]
pub struct LaunchConfigEx {
    pub grid: Dim3,
    pub block: Dim3,
    pub shared: usize,
    pub stream: *mut c_void,
    pub attrs: *const LaunchAttribute,
    pub num_attrs: u32,
}

/// What a launch attribute asks for: `Ok(cooperative)` when the launch can honour it
/// (launches run one after the other to completion, so serialisation, priorities,
/// access-policy, synchronisation and memory-domain hints change nothing), else the
/// reason it cannot.
fn launch_attribute(a: &LaunchAttribute) -> Result<bool, String> {
    let word = |i: usize| u32::from_le_bytes(a.value[i..i + 4].try_into().unwrap_or([0; 4]));
    match a.id {
        // Ignore, access policy window, synchronisation policy, cluster scheduling
        // preference, programmatic stream serialisation, priority, memory sync domain
        // (map), preferred shared-memory carveout.
        0 | 1 | 3 | 5 | 6 | 8 | 9 | 10 | 14 => Ok(false),
        2 => Ok(word(0) != 0),
        4 if (word(0), word(4), word(8)) == (1, 1, 1) => Ok(false),
        4 => Err(format!(
            "thread block clusters ({}x{}x{}) are not supported",
            word(0),
            word(4),
            word(8)
        )),
        id => Err(format!("launch attribute {id} is not supported")),
    }
}

/// `cudaLaunchKernelExC(config, func, args)`: a launch whose configuration and
/// attributes come in a `cudaLaunchConfig_t` (what `cudaLaunchKernelEx` and CUB call).
/// A cooperative attribute makes it [`crate::cooperative::cudaLaunchCooperativeKernel`];
/// attributes that need what the emulator lacks (clusters, programmatic events) fail
/// with `cudaErrorNotSupported`, naming the attribute.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cudaLaunchKernelExC(
    config: *const LaunchConfigEx,
    func: *const c_void,
    args: *mut *mut c_void,
) -> CudaError {
    let mut cooperative = false;
    let checked = api::call("cudaLaunchKernelExC", |_| {
        if config.is_null() {
            return Err(Fail::Api(INVALID_VALUE, "config is a null pointer".into()));
        }
        // SAFETY: the caller's configuration, valid for reads as the API requires.
        let c = unsafe { &*config };
        if c.num_attrs > 0 && c.attrs.is_null() {
            return Err(Fail::Api(
                INVALID_VALUE,
                format!("config has {} attributes and a null attrs", c.num_attrs),
            ));
        }
        for i in 0..c.num_attrs as usize {
            // SAFETY: `attrs` holds `num_attrs` attributes.
            let a = unsafe { &*c.attrs.add(i) };
            cooperative |= launch_attribute(a).map_err(|e| Fail::Api(NOT_SUPPORTED, e))?;
        }
        Ok(())
    });
    if checked != SUCCESS {
        return checked;
    }
    // SAFETY: checked above.
    let c = unsafe { &*config };
    if cooperative {
        return unsafe {
            crate::cooperative::cudaLaunchCooperativeKernel(
                func, c.grid, c.block, args, c.shared, c.stream,
            )
        };
    }
    unsafe { cudaLaunchKernel(func, c.grid, c.block, args, c.shared, c.stream) }
}
