//! Launching a kernel: validation, placing module variables, translation, and running
//! the blocks on host threads.

use rayon::prelude::*;
use warpcheck_ir::operand::Symbol;
use warpcheck_ir::{FuncId, Program, VarId};
use warpcheck_ptx::ast::StateSpace;

use crate::block::{BlockResult, LaunchCx, WarpState, run_block};
use crate::fault::EmuError;
use crate::memory::GlobalMemory;
use crate::observer::{Observer, ObserverFactory};
use crate::translate::{GlobalPlacement, translate};
use crate::{LaunchConfig, RunOutcome};

/// Shared memory per block, as on sm_80–sm_90 (227 KiB usable with opt-in).
pub const MAX_SHARED_BYTES: u64 = 227 * 1024;
/// Threads per block.
pub const MAX_BLOCK_THREADS: u32 = 1024;
/// At most this many faults are kept in [`RunOutcome::faults`] (in block order); the
/// total is in [`RunOutcome::fault_count`].
pub const MAX_REPORTED_FAULTS: usize = 64;

/// Checks a launch configuration against the kernel and the hardware limits.
pub fn validate(
    program: &Program,
    kernel: FuncId,
    params: &[u8],
    config: &LaunchConfig,
) -> Result<(), EmuError> {
    let bad = |m: String| Err(EmuError::InvalidLaunch(m));
    let Some(func) = program.functions.get(kernel) else {
        return bad(format!("{kernel} is not a function of the program"));
    };
    if !func.is_kernel() {
        return bad(format!(
            "`{}` is a device function (.func), not a kernel (.entry)",
            func.display_name()
        ));
    }
    if func.body.is_none() {
        return bad(format!("kernel `{}` has no body", func.display_name()));
    }
    let [gx, gy, gz] = config.grid;
    let [bx, by, bz] = config.block;
    if gx == 0 || gy == 0 || gz == 0 {
        return bad(format!(
            "grid dimensions must be at least 1, got {gx}x{gy}x{gz}"
        ));
    }
    if bx == 0 || by == 0 || bz == 0 {
        return bad(format!(
            "block dimensions must be at least 1, got {bx}x{by}x{bz}"
        ));
    }
    if gx > i32::MAX as u32 || gy > 65535 || gz > 65535 {
        return bad(format!(
            "grid {gx}x{gy}x{gz} exceeds the limits (2^31-1, 65535, 65535)"
        ));
    }
    if bx > 1024 || by > 1024 || bz > 64 {
        return bad(format!(
            "block {bx}x{by}x{bz} exceeds the per-dimension limits (1024, 1024, 64)"
        ));
    }
    let threads = bx as u64 * by as u64 * bz as u64;
    if threads > MAX_BLOCK_THREADS as u64 {
        return bad(format!(
            "a block of {bx}x{by}x{bz} = {threads} threads exceeds the limit of {MAX_BLOCK_THREADS}"
        ));
    }
    if let Some(req) = func.tuning.reqntid
        && req != config.block
    {
        return bad(format!(
            "the kernel requires a block of {}x{}x{} threads (.reqntid), got {bx}x{by}x{bz}",
            req[0], req[1], req[2]
        ));
    }
    if let Some(max) = func.tuning.maxntid
        && threads > max[0] as u64 * max[1] as u64 * max[2] as u64
    {
        return bad(format!(
            "the kernel allows at most {}x{}x{} threads per block (.maxntid), got {threads}",
            max[0], max[1], max[2]
        ));
    }
    if (params.len() as u64) < func.param_space_size {
        return bad(format!(
            "the kernel's parameters take {} bytes, but {} bytes were given",
            func.param_space_size,
            params.len()
        ));
    }
    let static_shared: u64 = program
        .variables
        .values()
        .filter(|v| v.space == StateSpace::Shared)
        .filter_map(|v| v.size)
        .fold(0u64, |a, b| a.saturating_add(b));
    let total = static_shared.saturating_add(config.dynamic_shared as u64);
    if total > MAX_SHARED_BYTES {
        return bad(format!(
            "the block needs {total} bytes of shared memory ({static_shared} static + {} dynamic), more than the {MAX_SHARED_BYTES} available",
            config.dynamic_shared
        ));
    }
    if config.budget == 0 || config.launch_budget == Some(0) {
        return bad("the instruction budget must be at least 1".into());
    }
    if config.timeout.is_some_and(|t| t.is_zero()) {
        return bad("the launch's time limit must be more than 0 s".into());
    }
    Ok(())
}

/// Places the module's `.global` variables in `memory` (once per memory: they keep
/// their values across launches, as on a GPU), with their initialisers. Every launch
/// does this first; a host runtime calls it earlier to learn the variables' addresses
/// (`cudaMemcpyToSymbol`) before any launch.
pub fn place_globals(
    program: &Program,
    memory: &mut GlobalMemory,
) -> Result<std::collections::HashMap<VarId, u64>, EmuError> {
    let mut placed = GlobalPlacement::new();
    let mut fresh: Vec<VarId> = Vec::new();
    for &v in &program.globals {
        let var = program.variable(v);
        if var.space != StateSpace::Global {
            continue;
        }
        if let Some(a) = memory.symbol(&var.name) {
            placed.insert(v, a);
            continue;
        }
        let size = var
            .size
            .or(var.init.as_ref().map(|i| i.bytes.len() as u64))
            .unwrap_or(0);
        let addr = memory
            .alloc_labeled(
                size.max(1),
                var.init.is_some(),
                Some(var.display_name().to_string()),
            )
            .map_err(|e| EmuError::InvalidLaunch(format!("cannot place `{}`: {e}", var.name)))?;
        memory.define_symbol(&var.name, addr);
        placed.insert(v, addr);
        fresh.push(v);
    }
    for v in fresh {
        let var = program.variable(v);
        let Some(init) = &var.init else { continue };
        let mut bytes = init.bytes.clone();
        for r in &init.relocations {
            let target = match r.symbol {
                Symbol::Var(t) => match placed.get(&t) {
                    Some(&a) => a,
                    None => continue,
                },
                Symbol::Func(f) => {
                    crate::exec::control::FUNC_ADDR_BASE + warpcheck_ir::EntityRef::index(f) as u64
                }
            };
            let (at, n) = (r.offset as usize, r.size as usize);
            if let Some(slot) = bytes.get_mut(at..at + n) {
                let mut buf = [0u8; 8];
                buf[..n].copy_from_slice(slot);
                let value = u64::from_le_bytes(buf).wrapping_add(target);
                slot.copy_from_slice(&value.to_le_bytes()[..n]);
            }
        }
        memory
            .write(placed[&v], &bytes)
            .map_err(|e| EmuError::Internal(format!("initialising `{}`: {e}", var.name)))?;
    }
    Ok(placed)
}

/// Places the device heap in `memory` (see [`crate::heap`]) when `kernel` calls `malloc`
/// or `free` and no earlier launch placed it. A checker that looks at the allocations
/// before the launch (the initialisation checker) calls this first, so that it sees the
/// heap; the launch itself calls it again, which then does nothing.
pub fn prepare_heap(
    program: &Program,
    kernel: FuncId,
    memory: &mut GlobalMemory,
) -> Result<(), EmuError> {
    if crate::heap::uses_heap(program, kernel) {
        place_heap(memory)?;
    }
    Ok(())
}

/// Places the device heap unless it is there already.
fn place_heap(memory: &mut GlobalMemory) -> Result<(), EmuError> {
    memory.ensure_heap().map(|_| ()).map_err(|e| {
        EmuError::InvalidLaunch(format!(
            "cannot place the device heap of {} bytes: {e}",
            memory.heap_limit()
        ))
    })
}

/// Validates the launch, places the module's globals in `memory`, translates the
/// kernel and places the device heap if it calls `malloc` or `free`; fails when the block
/// needs more shared memory than there is.
fn prepare(
    program: &Program,
    kernel: FuncId,
    params: &[u8],
    memory: &mut GlobalMemory,
    config: &LaunchConfig,
) -> Result<crate::translate::Flat, EmuError> {
    validate(program, kernel, params, config)?;
    let placed = place_globals(program, memory)?;
    let flat = translate(program, kernel, params, &placed)?;
    if flat.uses_heap {
        place_heap(memory)?;
    }
    let total_shared = flat.dynamic_shared_offset + config.dynamic_shared as u64;
    if total_shared.max(flat.static_shared) > MAX_SHARED_BYTES {
        return Err(EmuError::InvalidLaunch(format!(
            "the block needs {} bytes of shared memory, more than the {MAX_SHARED_BYTES} available",
            total_shared
        )));
    }
    Ok(flat)
}

/// How many blocks run per chunk.
///
/// Blocks run in chunks: each chunk's blocks in parallel; their observers are merged in
/// block order, so memory stays bounded by the chunk (observers of checkers hold shadow
/// state) and merging is deterministic. With host threads, chunk n is merged on the
/// calling thread while the pool runs chunk n + 1: the merge is serial work (it folds
/// every block's findings into the launch's), and overlapping it keeps it off the
/// critical path. Chunk n + 2, prepared with the merged observers, is queued before
/// n + 1 ends, so pool threads that finish one chunk start on the next at once
/// instead of waiting for the calling thread. The observers of a chunk are created
/// before it runs, so the running chunks never touch the factory that the merge
/// mutates.
/// Without observers there is nothing to merge, but each block's result is kept until
/// its chunk ends: chunks of 65,536 blocks bound that memory on huge grids.
/// Observed chunks are small, so that the checkers' per-block state (shadow pages, site
/// tables) is reused while still in cache: on one host thread 32 blocks (instead of
/// 256: 7–14% less time checking the benchmark kernels), with host threads 64 per
/// thread (two threads: 128 instead of 256 checks the histogram 5–7% faster; 64 saved
/// it more but cost vector add and the stencil 5–10% more CPU time in chunk hand-offs).
fn chunk_size(observed: bool, threads: usize, nblocks: u64) -> u64 {
    if observed {
        if threads == 1 {
            32
        } else {
            threads as u64 * 64
        }
    } else {
        nblocks.clamp(1, 1 << 16)
    }
}

/// The host's cores, asked once: `available_parallelism` reads the process's cgroup
/// files on every call, which cost a program of many small launches more than its
/// kernels.
fn host_cores() -> usize {
    static CORES: std::sync::OnceLock<usize> = std::sync::OnceLock::new();
    *CORES.get_or_init(|| std::thread::available_parallelism().map_or(1, |n| n.get()))
}

/// The process's pool of `threads` host threads, started by the first launch that asks
/// for that many and kept for the next ones: starting and joining the threads of a pool
/// per launch costs more than a small launch runs. Nothing of a launch stays in its
/// threads but the checkers' thread-local memos, whose answers do not depend on which
/// memo gave them.
fn thread_pool(threads: usize) -> Result<std::sync::Arc<rayon::ThreadPool>, EmuError> {
    type Pools = Vec<(usize, std::sync::Arc<rayon::ThreadPool>)>;
    static POOLS: std::sync::Mutex<Pools> = std::sync::Mutex::new(Vec::new());
    let mut pools = POOLS
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    if let Some((_, pool)) = pools.iter().find(|(n, _)| *n == threads) {
        return Ok(pool.clone());
    }
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .map_err(|e| EmuError::Internal(format!("cannot start host threads: {e}")))?;
    let pool = std::sync::Arc::new(pool);
    pools.push((threads, pool.clone()));
    Ok(pool)
}

/// Runs a kernel. See the crate documentation.
pub fn run_observed<F: ObserverFactory>(
    program: &Program,
    kernel: FuncId,
    params: &[u8],
    memory: &mut GlobalMemory,
    config: &LaunchConfig,
    observers: &mut F,
) -> Result<RunOutcome, EmuError> {
    let outcome = run_blocks(program, kernel, params, memory, config, observers);
    // The kernel wrote through shared references: the allocations it wrote are logged.
    memory.note_kernel_ran();
    outcome
}

fn run_blocks<F: ObserverFactory>(
    program: &Program,
    kernel: FuncId,
    params: &[u8],
    memory: &mut GlobalMemory,
    config: &LaunchConfig,
    observers: &mut F,
) -> Result<RunOutcome, EmuError> {
    let flat = prepare(program, kernel, params, memory, config)?;
    let memory: &GlobalMemory = memory;
    let limit = crate::limit::LaunchLimit::new(config);
    let cx = LaunchCx {
        flat: &flat,
        program,
        global: memory,
        grid: config.grid,
        block: config.block,
        dynamic_shared: config.dynamic_shared,
        budget: config.budget,
        scheduling: config.scheduling,
        cooperative: config.cooperative,
        limit: limit.as_ref(),
    };
    let [gx, gy, gz] = config.grid;
    let nblocks = gx as u64 * gy as u64 * gz as u64;
    let index = |i: u64| -> [u32; 3] {
        [
            (i % gx as u64) as u32,
            ((i / gx as u64) % gy as u64) as u32,
            (i / (gx as u64 * gy as u64)) as u32,
        ]
    };
    let mut outcome = RunOutcome {
        shared_vars: flat.shared_vars.clone(),
        ..RunOutcome::default()
    };
    if config.cooperative {
        crate::cooperative::run(
            &cx,
            (0..nblocks).map(index),
            config,
            observers,
            &mut outcome,
        );
        return Ok(outcome);
    }
    // Blocks whose outcome depends on their order run in block order unless the caller
    // asked for host threads: the same input then gives the same outputs and findings.
    // Blocks that allocate on the device heap always do, so that `malloc` returns the same
    // addresses in every run (see `crate::heap`).
    let threads = match config.threads {
        _ if flat.uses_heap => 1,
        0 if flat.order_sensitive => 1,
        0 => host_cores(),
        n => n,
    };
    let chunk = chunk_size(F::Observer::ENABLED, threads, nblocks);
    // Each host thread's warp states and shared memory, reused by every block it runs in
    // every chunk (allocating them per chunk costs more than small blocks run).
    type State = (Vec<WarpState>, Vec<u8>);
    let states: Vec<std::sync::Mutex<State>> = (0..threads.max(1))
        .map(|_| std::sync::Mutex::new((Vec::new(), Vec::new())))
        .collect();
    let pool = if threads > 1 && nblocks > 1 {
        Some(thread_pool(threads)?)
    } else {
        None
    };
    type Ran<O> = Vec<([u32; 3], BlockResult, O)>;
    let run_one = |state: &mut State, b: [u32; 3], mut obs: F::Observer| {
        let result = run_block(&cx, b, &mut state.0, &mut state.1, &mut obs);
        if let Some(progress) = &config.progress {
            progress.block_finished();
        }
        (b, result, obs)
    };
    let run_chunk = |created: Vec<([u32; 3], F::Observer)>| -> Ran<F::Observer> {
        match &pool {
            None => {
                let mut state = states[0]
                    .lock()
                    .unwrap_or_else(std::sync::PoisonError::into_inner);
                created
                    .into_iter()
                    .map(|(b, obs)| run_one(&mut state, b, obs))
                    .collect()
            }
            Some(pool) => pool.install(|| {
                created
                    .into_par_iter()
                    .map(|(b, obs)| {
                        // Only this pool thread uses its slot: the lock is never contended.
                        let slot = rayon::current_thread_index().unwrap_or(0) % states.len();
                        let mut state = states[slot]
                            .lock()
                            .unwrap_or_else(std::sync::PoisonError::into_inner);
                        run_one(&mut state, b, obs)
                    })
                    .collect()
            }),
        }
    };
    let merge = |ran: Ran<F::Observer>, outcome: &mut RunOutcome, observers: &mut F| {
        let mut observed = Vec::with_capacity(ran.len());
        for (b, r, obs) in ran {
            outcome.stats.add(&r.stats);
            outcome.printf.push_str(&r.printf);
            if let Some(f) = r.fault {
                outcome.fault_count += 1;
                if outcome.faults.len() < MAX_REPORTED_FAULTS {
                    outcome.faults.push(f);
                }
            }
            observed.push((b, obs));
        }
        observers.merge(&mut observed);
        observed.into_iter().map(|(_, obs)| obs)
    };
    // The observers of the next chunk's blocks, recycled from merged blocks' where there
    // are any.
    let create_chunk = |start: &mut u64, spare: &mut Vec<F::Observer>, factory: &F| {
        let end = (*start + chunk).min(nblocks);
        let created: Vec<([u32; 3], F::Observer)> = (*start..end)
            .map(|i| {
                let b = index(i);
                match spare.pop() {
                    Some(mut obs) => {
                        factory.recycle(&mut obs, b);
                        (b, obs)
                    }
                    None => (b, factory.create(b)),
                }
            })
            .collect();
        *start = end;
        created
    };
    let mut start = 0u64;
    let mut spare: Vec<F::Observer> = Vec::new();
    if let Some(pool) = &pool {
        // Up to two chunks in flight: while the pool runs chunk n, the calling thread
        // merges chunk n - 1 and queues n + 1, prepared with the merged observers, so
        // the pool's threads go on to it as they come free. Chunks are merged in order,
        // whatever order they finish in.
        type Done<O> = std::thread::Result<Ran<O>>;
        let (tx, rx) = std::sync::mpsc::channel::<(u64, Done<F::Observer>)>();
        let run_chunk = &run_chunk;
        pool.in_place_scope(|s| {
            let submitted = std::cell::Cell::new(0u64);
            let submit = |created: Vec<([u32; 3], F::Observer)>| {
                let tx = tx.clone();
                let k = submitted.get();
                submitted.set(k + 1);
                s.spawn(move |_| {
                    // A panic is sent back to be resumed on the calling thread, which
                    // would otherwise wait for this chunk for ever.
                    let ran = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                        run_chunk(created)
                    }));
                    let _ = tx.send((k, ran));
                });
            };
            for _ in 0..2 {
                if start < nblocks {
                    submit(create_chunk(&mut start, &mut spare, observers));
                }
            }
            // Chunks that finished before the ones ahead of them were merged.
            let mut finished: Vec<(u64, Done<F::Observer>)> = Vec::new();
            let mut k = 0;
            while k < submitted.get() {
                let ran = loop {
                    if let Some(i) = finished.iter().position(|(j, _)| *j == k) {
                        break finished.swap_remove(i).1;
                    }
                    match rx.recv() {
                        Ok(done) => finished.push(done),
                        Err(_) => unreachable!("the sender lives as long as the loop"),
                    }
                };
                let ran = ran.unwrap_or_else(|panic| std::panic::resume_unwind(panic));
                spare.extend(merge(ran, &mut outcome, observers));
                if start < nblocks {
                    submit(create_chunk(&mut start, &mut spare, observers));
                }
                k += 1;
            }
        });
        return Ok(outcome);
    }
    while start < nblocks {
        let created = create_chunk(&mut start, &mut spare, observers);
        let ran = run_chunk(created);
        spare.extend(merge(ran, &mut outcome, observers));
    }
    Ok(outcome)
}
