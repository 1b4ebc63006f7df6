//! Running a sequence of launches of one compiled file in the emulator, with buffers shared
//! by parameter name across launches (as the kernel files' `warpcheck-launch:` lines and
//! launch files describe), and turning faults into findings.

use crate::bind::{self as launch, ParamSlot};
use crate::kernel;
use crate::{LaunchError, LaunchSpec};
use std::collections::HashMap;
use warpcheck_check::Checker;
use warpcheck_emu::args::{ElemType, Limits, parse_arg};
use warpcheck_emu::{
    BlockProgress, DeviceAddr, Fault, GlobalMemory, LaunchConfig, RunOutcome, Scheduling,
};
use warpcheck_front::KernelSignature;
use warpcheck_ir::{EntityRef, Program, SourceLoc};
use warpcheck_report::{Finding, Location};

/// Options of the emulator that are not part of a launch.
#[derive(Clone, Copy, Debug)]
pub struct EmuOptions {
    pub threads: usize,
    pub budget: u64,
    /// The most lane-instructions one launch may execute, all blocks together
    /// (`LaunchConfig::launch_budget`); `None`: no limit.
    pub launch_budget: Option<u64>,
    /// The most wall-clock time one launch may take (`LaunchConfig::timeout`).
    pub timeout: Option<std::time::Duration>,
    pub independent_scheduling: bool,
    pub limits: Limits,
    /// Bytes of the device heap of in-kernel `malloc` (`warpcheck_emu::heap`); `None`:
    /// the GPU's default of 8 MiB.
    pub malloc_heap: Option<u64>,
}

/// A buffer living across launches.
pub struct NamedBuffer {
    pub name: String,
    pub elem: ElemType,
    pub len: usize,
    pub address: DeviceAddr,
    /// Whether the tool made it up (the user did not give it).
    pub made_up: bool,
}

impl NamedBuffer {
    fn bytes(&self) -> u64 {
        (self.len * self.elem.size()) as u64
    }
}

/// What one launch did.
pub struct LaunchReport {
    pub kernel: String,
    pub described: Vec<String>,
    /// The launch's buffers as the checkers see them.
    pub buffers: Vec<warpcheck_check::Buffer>,
    pub outcome: RunOutcome,
    pub seconds: f64,
    /// The CPU time the process spent meanwhile, all threads together (`None` where the
    /// platform has no per-process CPU clock): time the host gives to other processes is
    /// not in it.
    pub cpu_seconds: Option<f64>,
}

/// ", 0.250 s CPU" after a launch's time, where the CPU time is known.
pub fn cpu_note(cpu_seconds: Option<f64>) -> String {
    cpu_seconds.map_or_else(String::new, |c| format!(", {c:.3} s CPU"))
}

/// The process's CPU time so far, all threads together.
pub fn process_cpu_seconds() -> Option<f64> {
    #[cfg(unix)]
    {
        let mut t = libc::timespec {
            tv_sec: 0,
            tv_nsec: 0,
        };
        // SAFETY: `t` is a valid, writable timespec; the call only writes it.
        let ok = unsafe { libc::clock_gettime(libc::CLOCK_PROCESS_CPUTIME_ID, &mut t) } == 0;
        ok.then_some(t.tv_sec as f64 + t.tv_nsec as f64 * 1e-9)
    }
    #[cfg(not(unix))]
    {
        None
    }
}

/// The PTX a program was lowered from, for locations of instructions without a source
/// line.
#[derive(Clone, Copy, Debug)]
pub struct PtxText<'a> {
    /// The PTX text.
    pub text: &'a str,
    /// The name under which the PTX appears in findings (`k.cu.ptx` for PTX that exists
    /// only in memory).
    pub name: &'a str,
}

/// Launches of one program over global memory and buffers that persist from launch to
/// launch: a buffer argument whose name an earlier launch bound is that same buffer.
pub struct Session<'a> {
    pub program: &'a Program,
    pub signatures: &'a [KernelSignature],
    pub memory: GlobalMemory,
    pub buffers: Vec<NamedBuffer>,
    /// Counts the blocks each launch finishes (for a progress bar); `None` by default.
    pub progress: Option<BlockProgress>,
    by_name: HashMap<String, usize>,
}

impl<'a> Session<'a> {
    pub fn new(program: &'a Program, signatures: &'a [KernelSignature]) -> Session<'a> {
        Session {
            program,
            signatures,
            memory: GlobalMemory::new(),
            buffers: Vec::new(),
            progress: None,
            by_name: HashMap::new(),
        }
    }

    /// Binds the launch's arguments (reusing buffers of earlier launches by name), runs it,
    /// under the checkers when `checker` is given.
    pub fn launch(
        &mut self,
        l: &LaunchSpec,
        opts: EmuOptions,
        checker: Option<&mut Checker>,
    ) -> Result<LaunchReport, LaunchError> {
        let kernel = match &l.kernel {
            Some(k) => kernel::select_function(self.program, k)?,
            None => kernel::only_kernel(self.program)?,
        };
        let f = self.program.function(kernel);
        if reads_textures(self.program, kernel) {
            return Err(LaunchError::TexturesNeedProgram {
                kernel: f.display_name().to_string(),
            });
        }
        let sig = self.signatures.iter().find(|s| s.mangled_name == f.name);
        let slots: Vec<ParamSlot> = launch::param_slots(self.program, kernel, sig);
        let args = l
            .args
            .iter()
            .map(|a| parse_arg(a).map_err(LaunchError::BadArg))
            .collect::<Result<Vec<_>, _>>()?;
        if let Some(bytes) = opts.malloc_heap {
            // The options are the session's, the same for every launch: once a launch
            // placed the heap, it has this size already.
            let _ = self.memory.set_heap_limit(bytes);
        }
        let total = l.grid.count() * l.block.count();
        let mut bound = launch::bind(&slots, &args, total, l.seed, opts.limits)?;
        let mut config = LaunchConfig::new(l.grid.0, l.block.0);
        config.dynamic_shared = l.shared;
        config.threads = opts.threads;
        config.budget = opts.budget;
        config.launch_budget = opts.launch_budget;
        config.timeout = opts.timeout;
        if opts.independent_scheduling {
            config.scheduling = Scheduling::Independent { seed: l.seed };
        }
        self.size_made_up(kernel, &mut bound, &slots, &config, (l.seed, opts.limits))?;
        let reused: Vec<String> = bound
            .buffers
            .iter()
            .filter(|b| self.by_name.contains_key(&b.name))
            .map(|b| b.name.clone())
            .collect();
        for b in &mut bound.buffers {
            if let Some(&i) = self.by_name.get(&b.name) {
                let earlier = &self.buffers[i];
                if b.made_up.is_none() && (earlier.len, earlier.elem) != (b.value.len, b.value.elem)
                {
                    return Err(LaunchError::BufferResized {
                        name: b.name.clone(),
                        was: format!("{}[{}]", earlier.elem, earlier.len),
                        now: format!("{}[{}]", b.value.elem, b.value.len),
                    });
                }
                b.address = earlier.address;
                continue;
            }
            let address = place(&mut self.memory, b)?;
            b.address = address;
            self.by_name.insert(b.name.clone(), self.buffers.len());
            self.buffers.push(NamedBuffer {
                name: b.name.clone(),
                elem: b.value.elem,
                len: b.value.len,
                address,
                made_up: b.made_up.is_some(),
            });
        }
        bound.patch_addresses(&slots);
        config.progress = self.progress.clone();
        let start = std::time::Instant::now();
        let cpu_start = process_cpu_seconds();
        let buffers: Vec<warpcheck_check::Buffer> = bound
            .buffers
            .iter()
            .map(|b| {
                let named = &self.buffers[self.by_name[&b.name]];
                check_buffer(b, named.bytes(), reused.contains(&b.name))
            })
            .collect();
        let outcome = match checker {
            None => warpcheck_emu::run(
                self.program,
                kernel,
                &bound.param_block,
                &mut self.memory,
                &config,
            ),
            Some(checker) => {
                let buffers = buffers.clone();
                let info = warpcheck_check::LaunchInfo {
                    kernel,
                    kernel_name: f.display_name().to_string(),
                    kernel_mangled: f.name.clone(),
                    grid: l.grid.0,
                    block: l.block.0,
                    dynamic_shared: l.shared,
                    buffers,
                };
                checker.launch(
                    self.program,
                    &bound.param_block,
                    &mut self.memory,
                    &config,
                    info,
                )
            }
        }
        .map_err(|e| LaunchError::Run {
            kernel: f.display_name().to_string(),
            message: e.to_string(),
        })?;
        Ok(LaunchReport {
            kernel: f.display_name().to_string(),
            described: bound.described,
            buffers,
            outcome,
            seconds: start.elapsed().as_secs_f64(),
            cpu_seconds: cpu_start.zip(process_cpu_seconds()).map(|(a, b)| b - a),
        })
    }

    /// Grows the made-up buffers of a launch that reaches past their ends (the synthesis
    /// policy in [`crate::bind`]): the launch runs unobserved on scratch memory, and each
    /// made-up buffer that an out-of-bounds access overran (the access lies after its
    /// start, before the next buffer) is doubled, or sized to the element reached if that
    /// is more, up to [`MADE_UP_BOUND`] bytes; again until no made-up buffer is overrun.
    /// Buffers of earlier launches take part with their current contents (copied into the
    /// scratch memory, at most [`SCRATCH_COPY_BOUND`] bytes in all); one that was made up
    /// cannot grow any more (its address is the earlier launch's), so an overrun of it is
    /// recorded as too small, like one at the bound.
    fn size_made_up(
        &self,
        kernel: warpcheck_ir::FuncId,
        bound: &mut launch::Bound,
        slots: &[ParamSlot],
        config: &LaunchConfig,
        seed_limits: (u64, Limits),
    ) -> Result<(), LaunchError> {
        let earlier: Vec<Option<&NamedBuffer>> = bound
            .buffers
            .iter()
            .map(|b| self.by_name.get(&b.name).map(|&i| &self.buffers[i]))
            .collect();
        let copied: u64 = earlier.iter().flatten().map(|e| e.bytes()).sum();
        let any_made_up = bound.buffers.iter().any(|b| b.made_up.is_some());
        if !any_made_up || copied > SCRATCH_COPY_BOUND {
            return Ok(());
        }
        let mut reached = vec![0u64; bound.buffers.len()];
        loop {
            let mut scratch = GlobalMemory::new();
            // A fresh memory: the limit cannot have been fixed yet.
            let _ = scratch.set_heap_limit(self.memory.heap_limit());
            let mut extents = Vec::new();
            for (b, e) in bound.buffers.iter_mut().zip(&earlier) {
                b.address = match e {
                    Some(e) => self.copy_into(&mut scratch, e)?,
                    None => place(&mut scratch, b)?,
                };
                extents.push((
                    b.address,
                    e.map_or(b.value.byte_len() as u64, |e| e.bytes()),
                ));
            }
            bound.patch_addresses(slots);
            let outcome = warpcheck_emu::run(
                self.program,
                kernel,
                &bound.param_block,
                &mut scratch,
                config,
            )
            .map_err(|e| LaunchError::Run {
                kernel: self.program.function(kernel).display_name().to_string(),
                message: e.to_string(),
            })?;
            let mut grown = false;
            for (i, end) in overruns(bound, &extents, &outcome.faults) {
                let b = &bound.buffers[i];
                let elem = b.value.elem.size() as u64;
                let need = end.div_ceil(elem);
                reached[i] = reached[i].max(need);
                if let Some(e) = earlier[i] {
                    bound.too_small_earlier(i, e.len, reached[i]);
                    continue;
                }
                let cap = (MADE_UP_BOUND / elem) as usize;
                let len = (b.value.len * 2).max(need as usize).min(cap);
                grown |= len > b.value.len;
                bound.grow(i, len, reached[i], len <= b.value.len, seed_limits)?;
            }
            if !grown {
                return Ok(());
            }
        }
    }

    /// Places a copy of an earlier launch's buffer, with its current contents, in
    /// `scratch`.
    fn copy_into(&self, scratch: &mut GlobalMemory, e: &NamedBuffer) -> Result<u64, LaunchError> {
        let alloc_error = |m: String| LaunchError::Alloc {
            name: e.name.clone(),
            message: m,
        };
        let address = scratch
            .alloc(e.bytes(), true)
            .map_err(|x| alloc_error(x.to_string()))?;
        let mut offset = 0u64;
        self.read_chunks(e, |chunk: &[u8]| {
            scratch
                .write(address + offset, chunk)
                .map_err(|x| alloc_error(x.to_string()))?;
            offset += chunk.len() as u64;
            Ok::<(), LaunchError>(())
        })?;
        Ok(address)
    }

    /// The current contents of a buffer.
    pub fn read(&self, b: &NamedBuffer) -> Result<Vec<u8>, LaunchError> {
        self.memory
            .read(b.address, (b.len * b.elem.size()) as u64)
            .map_err(|e| read_error(b, e))
    }

    /// The current contents of a buffer, a chunk of whole elements (at most 1 MiB) at a
    /// time, so that summarising or writing a buffer needs no copy of all of it. `f`'s
    /// error ends the reading and is returned.
    pub fn read_chunks<E: From<LaunchError>>(
        &self,
        b: &NamedBuffer,
        mut f: impl FnMut(&[u8]) -> Result<(), E>,
    ) -> Result<(), E> {
        const CHUNK: usize = 1 << 20;
        let total = b.len * b.elem.size();
        let mut offset = 0;
        while offset < total {
            let n = CHUNK.min(total - offset);
            let chunk = self
                .memory
                .read(b.address + offset as u64, n as u64)
                .map_err(|e| read_error(b, e))?;
            f(&chunk)?;
            offset += n;
        }
        Ok(())
    }
}

/// A bound buffer as the checkers see it: a made-up one that stayed too small says which
/// `--arg` would give it the size the kernel reached.
fn check_buffer(b: &launch::BoundBuffer, size: u64, earlier: bool) -> warpcheck_check::Buffer {
    let too_small =
        b.made_up
            .as_ref()
            .and_then(|m| m.too_small)
            .map(|reached| warpcheck_check::TooSmall {
                arg: format!("--arg {}={}[{reached}]", b.name, b.value.elem),
                why: if earlier {
                    "made up by an earlier launch, whose size it keeps"
                } else {
                    "the most a made-up buffer grows to"
                },
            });
    warpcheck_check::Buffer {
        name: b.name.clone(),
        address: b.address,
        size,
        too_small,
    }
}

/// The most a made-up buffer grows to (64 MiB).
pub const MADE_UP_BOUND: u64 = 64 << 20;

/// The most bytes of earlier launches' buffers copied into scratch memory to size the
/// made-up buffers of a later launch (256 MiB); past it, that launch's made-up buffers
/// keep their first size.
const SCRATCH_COPY_BOUND: u64 = 256 << 20;

/// Allocates a bound buffer in `memory` and writes its contents: generated a chunk at a
/// time straight into the emulator's memory, so that no second copy of the buffer exists
/// (peak memory). Fresh memory is zeroed already.
fn place(memory: &mut GlobalMemory, b: &launch::BoundBuffer) -> Result<u64, LaunchError> {
    let address = memory
        .alloc(b.value.byte_len() as u64, b.value.initialized)
        .map_err(|e| LaunchError::Alloc {
            name: b.name.clone(),
            message: e.to_string(),
        })?;
    if !b.value.is_zeros() {
        b.value
            .generate(|offset, chunk| {
                memory
                    .write(address + offset as u64, chunk)
                    .map_err(|e| e.to_string())
            })
            .map_err(|message| LaunchError::Init {
                name: b.name.clone(),
                message,
            })?;
    }
    Ok(address)
}

/// The made-up buffers that out-of-bounds global accesses overran, with the byte offset
/// (from the buffer's start) each was reached to: an access at or past a buffer's end and
/// before the next buffer's start. `extents`: each buffer's address and bytes.
fn overruns(bound: &launch::Bound, extents: &[(u64, u64)], faults: &[Fault]) -> Vec<(usize, u64)> {
    let mut out: Vec<(usize, u64)> = Vec::new();
    for f in faults {
        let warpcheck_emu::FaultKind::OutOfBounds {
            space: warpcheck_ir::modifiers::MemSpace::Global,
            address,
            size,
            ..
        } = f.kind
        else {
            continue;
        };
        let below = extents
            .iter()
            .enumerate()
            .filter(|(_, (start, _))| *start <= address)
            .max_by_key(|(_, (start, _))| *start);
        let Some((i, &(start, bytes))) = below else {
            continue;
        };
        if bound.buffers[i].made_up.is_none() || address < start + bytes {
            continue;
        }
        let end = address + size as u64 - start;
        match out.iter_mut().find(|o| o.0 == i) {
            Some(o) => o.1 = o.1.max(end),
            None => out.push((i, end)),
        }
    }
    out
}

fn read_error(b: &NamedBuffer, e: impl std::fmt::Display) -> LaunchError {
    LaunchError::ReadBuffer {
        name: b.name.clone(),
        message: e.to_string(),
    }
}

/// A path as diagnostics show it: relative to the working directory when inside it, as
/// compilers do.
pub fn display_path(path: &str) -> String {
    std::env::current_dir()
        .ok()
        .and_then(|cwd| {
            std::path::Path::new(path)
                .strip_prefix(&cwd)
                .ok()
                .map(|p| p.display().to_string())
        })
        .unwrap_or_else(|| path.to_string())
}

/// A source location as findings show it: relative to the working directory when inside it.
pub fn location(program: &Program, loc: &SourceLoc) -> Location {
    Location {
        file: display_path(&program.files.path(loc.file)),
        line: loc.line,
        column: loc.column,
    }
}

/// A kernel fault as a finding ([`warpcheck_check::fault::finding`]), located as `check`
/// locates findings, with file names as the reports show them ([`display_path`]).
pub fn fault_finding(
    program: &Program,
    kernel: &str,
    fault: &Fault,
    ptx: PtxText,
    buffers: &[warpcheck_check::Buffer],
) -> Finding {
    let locate = |func, inst| site_location(program, ptx, func, inst);
    let cx = warpcheck_check::ReportCx {
        program,
        locate: &locate,
    };
    let mut f = warpcheck_check::fault::made_up_overrun(&cx, kernel, fault, buffers)
        .unwrap_or_else(|| warpcheck_check::fault::finding(&cx, kernel, fault));
    for label in f.primary.iter_mut().chain(f.related.iter_mut()) {
        label.location.file = display_path(&label.location.file);
    }
    f
}

/// Where an instruction is: its `.loc` source line, or else its line in the PTX.
pub fn site_location(
    program: &Program,
    ptx: PtxText,
    func: warpcheck_ir::FuncId,
    inst: warpcheck_ir::InstId,
) -> Option<Location> {
    let body = program.function(func).body.as_ref()?;
    if let Some(mut loc) = body
        .inst_locs
        .get(inst.index())
        .copied()
        .flatten()
        .filter(|l| l.line > 0 && !l.is_artificial())
    {
        // Code inlined from warpcheck's shim headers or the CUDA headers (atomicAdd,
        // __shfl_sync …) is reported at the user's call.
        if let Some(at) = loc.inlined_at
            && is_library_header(&program.files.path(loc.file))
        {
            loc = SourceLoc {
                file: at.file,
                line: at.line,
                column: at.column,
                inlined_at: None,
            };
        }
        return Some(location(program, &loc));
    }
    let span = body.inst_spans.get(inst.index()).copied()?;
    let lc = warpcheck_ptx::LineIndex::new(ptx.text).line_col(ptx.text, span.start);
    Some(Location {
        file: ptx.name.to_string(),
        line: lc.line,
        column: lc.col,
    })
}

/// Whether a path is one of the headers that implement the device API: warpcheck's shims,
/// clang's CUDA wrappers, and NVIDIA's headers as the toolkit (`/usr/local/cuda/include`,
/// `/usr/local/cuda-13.0/include`, nvcc's own `/usr/local/cuda/bin/../targets/x86_64-linux/include`,
/// a distribution's `/usr/include`) and the pip wheels (`…/nvidia/cu13/include`) install them.
fn is_library_header(p: &str) -> bool {
    p.starts_with("/warpcheck-shims/")
        || p.contains("/crt/")
        || p.contains("__clang_cuda")
        || (p.contains("/include/")
            && (p.contains("/nvidia/")
                || p.contains("/cuda/")
                || p.contains("/cuda-")
                || p.starts_with("/usr/include/")))
}

/// Whether `kernel` or a device function of the program executes `tex`: its textures would
/// be bound by a host runtime, which kernel mode does not have (a made-up handle would only
/// give made-up faults).
fn reads_textures(program: &warpcheck_ir::Program, kernel: warpcheck_ir::FuncId) -> bool {
    program.functions.iter().any(|(id, f)| {
        (id == kernel || !f.is_kernel())
            && f.body.as_ref().is_some_and(|b| {
                b.insts
                    .values()
                    .any(|i| matches!(i.op, warpcheck_ir::Op::Tex { .. }))
            })
    })
}

#[cfg(test)]
mod tests {
    use super::is_library_header;

    #[test]
    fn nvidia_headers_are_library_headers_wherever_nvcc_finds_them() {
        for p in [
            "/usr/local/cuda/include/sm_30_intrinsics.hpp",
            "/usr/local/cuda/bin/../targets/x86_64-linux/include/sm_30_intrinsics.hpp",
            "/usr/local/cuda-13.0/targets/x86_64-linux/include/cuda_fp16.hpp",
            "/opt/venv/lib/python3.12/site-packages/nvidia/cu13/include/crt/math_functions.hpp",
            "/usr/include/cuda_fp16.hpp",
            "/warpcheck-shims/sm_30_intrinsics.h",
        ] {
            assert!(is_library_header(p), "{p}");
        }
        for p in [
            "/home/me/cuda/kernel.cu",
            "/home/me/project/include/util.cuh",
        ] {
            assert!(!is_library_header(p), "{p}");
        }
    }
}
