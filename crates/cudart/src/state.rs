//! The runtime's state: one per process, behind a mutex (the CUDA runtime is thread-safe;
//! calls are serialised here, which the in-order, synchronous emulation allows).
//!
//! Invariants:
//! * Device pointers are emulator addresses (`GlobalMemory`); the host never dereferences
//!   them. Managed memory is the exception: it is host memory mapped at the same address
//!   as its emulator allocation (see [`crate::managed`]), and the host copy is the truth
//!   between launches.
//! * Addresses are never reused (the emulator hands out increasing addresses), so a freed
//!   range stays recognisable for use-after-free and double-free reports.

use std::collections::{BTreeMap, HashMap};
use std::sync::{Mutex, MutexGuard};

use warpcheck_check::Checker;
use warpcheck_emu::GlobalMemory;
use warpcheck_ir::{FuncId, Program, VarId};

use crate::config::Config;
use crate::host_line::CallSite;
use crate::report::Findings;
use crate::types::{CudaError, SUCCESS};

/// One registered device image: the PTX of one translation unit.
pub struct Module {
    /// The name under which the PTX appears in findings (`<file>.cu.ptx`).
    pub ptx_name: String,
    pub ptx: String,
    pub program: Program,
    /// This module's checkers (`check` only): their sites are this program's ids.
    pub checker: Option<Checker>,
    /// Whether the module's `.global` variables have been placed in memory.
    pub placed: bool,
}

/// What allocated a device range.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AllocKind {
    Device,
    Pitched,
    Managed,
}

impl AllocKind {
    pub fn api(self) -> &'static str {
        match self {
            AllocKind::Device => "cudaMalloc",
            AllocKind::Pitched => "cudaMallocPitch",
            AllocKind::Managed => "cudaMallocManaged",
        }
    }
}

/// A device allocation the program made.
#[derive(Clone, Debug)]
pub struct DeviceAlloc {
    pub size: u64,
    pub kind: AllocKind,
    pub site: CallSite,
    /// Set when freed: where.
    pub freed: Option<CallSite>,
}

/// A pinned host allocation (`cudaMallocHost`, `cudaHostAlloc`).
#[derive(Clone, Debug)]
pub struct HostAlloc {
    pub size: usize,
    pub freed: bool,
}

/// A registered `__device__` / `__constant__` variable.
#[derive(Clone, Debug)]
pub struct DeviceVar {
    pub module: usize,
    pub var: VarId,
    pub name: String,
    pub size: u64,
    pub constant: bool,
    /// A `__managed__` variable's host copy ([`crate::managed_vars`]).
    pub managed_shadow: Option<usize>,
}

/// A launch configuration pushed by `<<<>>>` and not yet consumed.
#[derive(Clone, Debug)]
pub struct PendingLaunch {
    pub grid: [u32; 3],
    pub block: [u32; 3],
    pub shared: usize,
    pub stream: usize,
    pub site: CallSite,
}

/// One launch, for reports.
#[derive(Clone, Debug)]
pub struct LaunchRecord {
    pub kernel: String,
    pub grid: [u32; 3],
    pub block: [u32; 3],
    pub shared: u32,
    pub site: CallSite,
    /// Filled in when the launch has run.
    pub lane_instructions: u64,
    pub seconds: f64,
    /// CPU seconds of the launch, all threads (`--timings` only).
    pub cpu_seconds: Option<f64>,
    /// Whether an identical earlier launch was reused instead ([`crate::identical`]).
    pub reused: bool,
}

pub struct Runtime {
    pub config: Config,
    pub memory: GlobalMemory,
    pub modules: Vec<Module>,
    /// Host stub address -> (module, kernel).
    pub kernels: HashMap<usize, (usize, FuncId)>,
    /// Host shadow variable address -> variable.
    pub vars: HashMap<usize, DeviceVar>,
    /// Device allocations by base address (freed ones stay, marked).
    pub allocs: BTreeMap<u64, DeviceAlloc>,
    /// The live managed allocations, base address -> size: copied around every launch,
    /// so they are kept apart from `allocs`, which grows with every allocation ever made.
    pub managed: BTreeMap<u64, u64>,
    /// Bytes of device memory allocated and not freed (`cudaMemGetInfo`).
    pub live_bytes: u64,
    pub host_allocs: HashMap<usize, HostAlloc>,
    /// Host ranges registered with `cudaHostRegister`, start -> length.
    pub registered: BTreeMap<usize, usize>,
    /// The error `cudaGetLastError` returns next (reset by it).
    pub last_error: CudaError,
    /// A kernel fault's error: every later call returns it until `cudaDeviceReset`.
    pub sticky: CudaError,
    /// `<<<>>>` configurations (a stack: a launch's arguments may launch kernels).
    pub pending: Vec<PendingLaunch>,
    /// Arguments of the legacy `cudaSetupArgument` protocol.
    pub setup_args: Vec<u8>,
    pub launches: Vec<LaunchRecord>,
    pub findings: Findings,
    /// Max dynamic shared memory set with `cudaFuncSetAttribute`, by host stub.
    pub func_shared: HashMap<usize, i32>,
    /// Events: handle -> emulated time in ms when recorded.
    pub events: HashMap<usize, Option<f64>>,
    pub streams: HashMap<usize, ()>,
    /// Attribute values set with `cudaStreamSetAttribute`, by stream and attribute id.
    pub stream_attributes: HashMap<(usize, u32), [u8; 64]>,
    pub next_handle: usize,
    /// Emulated device time in ms: the emulator's time spent in kernels so far.
    pub clock_ms: f64,
    pub device: i32,
    /// Whether the leak check has run (at `cudaDeviceReset` or exit).
    pub leaks_checked: bool,
    pub timings: crate::timing::Timings,
    /// cuBLAS and cuBLASLt handles and descriptors.
    pub blas: crate::blas::BlasState,
    /// Launches that can be reused ([`crate::identical`]).
    pub identical: crate::identical::Identical,
}

static RUNTIME: Mutex<Option<Runtime>> = Mutex::new(None);

/// Runs `f` on the runtime, creating it on first use.
pub fn with<T>(f: impl FnOnce(&mut Runtime) -> T) -> T {
    let mut guard: MutexGuard<'_, Option<Runtime>> =
        RUNTIME.lock().unwrap_or_else(|p| p.into_inner());
    let rt = guard.get_or_insert_with(Runtime::new);
    f(rt)
}

impl Runtime {
    fn new() -> Runtime {
        crate::report::install_exit_hook();
        let config = Config::from_env();
        Runtime {
            timings: crate::timing::Timings::new(config.timings),
            config,
            memory: GlobalMemory::new(),
            modules: Vec::new(),
            kernels: HashMap::new(),
            vars: HashMap::new(),
            allocs: BTreeMap::new(),
            managed: BTreeMap::new(),
            live_bytes: 0,
            host_allocs: HashMap::new(),
            registered: BTreeMap::new(),
            last_error: SUCCESS,
            sticky: SUCCESS,
            pending: Vec::new(),
            setup_args: Vec::new(),
            launches: Vec::new(),
            findings: Findings::default(),
            func_shared: HashMap::new(),
            events: HashMap::new(),
            streams: HashMap::new(),
            stream_attributes: HashMap::new(),
            next_handle: 0x1000,
            clock_ms: 0.0,
            device: 0,
            leaks_checked: false,
            blas: Default::default(),
            identical: Default::default(),
        }
    }

    /// Records an API call's result as `cudaGetLastError` sees it, and returns it.
    pub fn result(&mut self, code: CudaError) -> CudaError {
        if code != SUCCESS {
            self.last_error = code;
        }
        code
    }

    /// A fresh opaque handle (streams, events).
    pub fn handle(&mut self) -> usize {
        self.next_handle += 16;
        self.next_handle
    }

    /// The device allocation containing `address` (live or freed), with the offset.
    pub fn alloc_at(&self, address: u64) -> Option<(u64, &DeviceAlloc)> {
        let (&base, a) = self.allocs.range(..=address).next_back()?;
        (address - base < a.size.max(1)).then_some((base, a))
    }
}
