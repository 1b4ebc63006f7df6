//! Kernel attributes, occupancy, and `__device__`/`__constant__` symbols.
//!
//! Occupancy follows the hardware's limits per multiprocessor (2048 threads, 32 blocks,
//! 228 KiB of shared memory); registers are not modelled (the emulator has no register
//! allocation), so they never limit occupancy here.

use std::ffi::{c_int, c_void};

use warpcheck_ptx::ast::StateSpace;

use crate::api::{self, Fail, put, require};
use crate::device::{
    BLOCKS_PER_SM, MULTIPROCESSORS, SHARED_PER_BLOCK_OPTIN, SHARED_PER_SM, THREADS_PER_SM,
};
use crate::pointers::Mem;
use crate::state::{DeviceVar, Runtime};
use crate::types::*;

impl Runtime {
    /// The module and static shared bytes of a registered kernel.
    pub(crate) fn kernel_facts(
        &self,
        func: *const c_void,
    ) -> Result<(usize, warpcheck_ir::FuncId, u64), Fail> {
        let &(m, k) = self.kernels.get(&(func as usize)).ok_or_else(|| {
            Fail::Api(
                INVALID_DEVICE_FUNCTION,
                "the function is not a registered kernel".into(),
            )
        })?;
        let program = &self.modules[m].program;
        let mut shared = 0;
        for v in program.variables.values() {
            if v.space == StateSpace::Shared {
                shared += v.size.unwrap_or(0);
            }
        }
        Ok((m, k, shared))
    }

    /// Blocks of `block` threads that fit on one multiprocessor.
    pub(crate) fn blocks_per_sm(&self, static_shared: u64, block: c_int, dynamic: usize) -> c_int {
        if block <= 0 {
            return 0;
        }
        let warps = (block + 31) / 32;
        let by_threads = THREADS_PER_SM / (warps * 32);
        let shared = static_shared as usize + dynamic;
        let by_shared = if shared == 0 {
            BLOCKS_PER_SM
        } else {
            (SHARED_PER_SM / (shared + 1024)) as c_int
        };
        by_threads.min(by_shared).min(BLOCKS_PER_SM)
    }

    /// The variable behind a host shadow address.
    fn symbol(&self, symbol: *const c_void) -> Result<DeviceVar, Fail> {
        self.vars.get(&(symbol as usize)).cloned().ok_or_else(|| {
            Fail::Api(
                INVALID_SYMBOL,
                format!(
                    "{:#x} is not a __device__ or __constant__ variable",
                    symbol as usize
                ),
            )
        })
    }

    /// Copies to or from a symbol. `__constant__` variables live in the module's constant
    /// bank, which is built from the variable's initialiser at each launch: writing one
    /// rewrites that initialiser.
    fn symbol_copy(
        &mut self,
        call: &str,
        var: &DeviceVar,
        offset: usize,
        host: Mem,
        count: usize,
        to_symbol: bool,
    ) -> api::Result {
        require(offset + count <= var.size as usize, || {
            format!(
                "{count} bytes at offset {offset} exceed `{}` ({} bytes)",
                var.name, var.size
            )
        })?;
        if var.constant {
            let from_host = to_symbol.then(|| self.read_mem(host, count));
            let v = &mut self.modules[var.module].program.variables[var.var];
            let init = v
                .init
                .get_or_insert_with(|| warpcheck_ir::symbols::InitialValue {
                    bytes: Vec::new(),
                    relocations: Vec::new(),
                });
            init.bytes
                .resize((var.size as usize).max(init.bytes.len()), 0);
            match from_host {
                Some(bytes) => init.bytes[offset..offset + count].copy_from_slice(&bytes),
                None => {
                    let bytes = init.bytes[offset..offset + count].to_vec();
                    self.write_mem(host, &bytes);
                }
            }
            return Ok(());
        }
        if let Some(shadow) = var.managed_shadow {
            // The host copy is the truth between launches.
            let (from, to) = match to_symbol {
                true => (host, Mem::Host(shadow + offset)),
                false => (Mem::Host(shadow + offset), host),
            };
            self.copy_mem(to, from, count);
            return Ok(());
        }
        self.place_module_globals(var.module);
        let name = &self.modules[var.module].program.variable(var.var).name;
        let base = self.memory.symbol(name).ok_or_else(|| {
            Fail::Api(
                INVALID_SYMBOL,
                format!("`{}` has no device address", var.name),
            )
        })?;
        let dev = Mem::Device(base + offset as u64);
        let _ = call;
        if to_symbol {
            self.copy_mem(dev, host, count);
        } else {
            self.copy_mem(host, dev, count);
        }
        Ok(())
    }

    /// The other side of a symbol copy: host memory, or device memory for
    /// `cudaMemcpyDeviceToDevice` (and `cudaMemcpyDefault` with a device pointer).
    fn symbol_peer(
        &mut self,
        call: &str,
        p: u64,
        count: usize,
        kind: c_int,
        to_symbol: bool,
    ) -> Result<Mem, Fail> {
        let device = match kind {
            MEMCPY_DEVICE_TO_DEVICE => true,
            MEMCPY_DEFAULT => self.is_device(p),
            MEMCPY_HOST_TO_DEVICE if to_symbol => false,
            MEMCPY_DEVICE_TO_HOST if !to_symbol => false,
            k => {
                return Err(Fail::Api(
                    INVALID_MEMCPY_DIRECTION,
                    format!("cudaMemcpyKind {k} is not valid for {call}"),
                ));
            }
        };
        if device {
            self.device_range(
                call,
                if to_symbol { "source" } else { "destination" },
                p,
                count as u64,
            )
        } else {
            Ok(Mem::Host(p as usize))
        }
    }
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cudaMemcpyToSymbol(
    symbol: *const c_void,
    src: *const c_void,
    count: usize,
    offset: usize,
    kind: c_int,
) -> CudaError {
    api::call("cudaMemcpyToSymbol", |rt| {
        let var = rt.symbol(symbol)?;
        let peer = rt.symbol_peer("cudaMemcpyToSymbol", src as u64, count, kind, true)?;
        rt.symbol_copy("cudaMemcpyToSymbol", &var, offset, peer, count, true)
    })
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cudaMemcpyToSymbolAsync(
    symbol: *const c_void,
    src: *const c_void,
    count: usize,
    offset: usize,
    kind: c_int,
    _stream: *mut c_void,
) -> CudaError {
    unsafe { cudaMemcpyToSymbol(symbol, src, count, offset, kind) }
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cudaMemcpyFromSymbol(
    dst: *mut c_void,
    symbol: *const c_void,
    count: usize,
    offset: usize,
    kind: c_int,
) -> CudaError {
    api::call("cudaMemcpyFromSymbol", |rt| {
        let var = rt.symbol(symbol)?;
        let peer = rt.symbol_peer("cudaMemcpyFromSymbol", dst as u64, count, kind, false)?;
        rt.symbol_copy("cudaMemcpyFromSymbol", &var, offset, peer, count, false)
    })
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cudaMemcpyFromSymbolAsync(
    dst: *mut c_void,
    symbol: *const c_void,
    count: usize,
    offset: usize,
    kind: c_int,
    _stream: *mut c_void,
) -> CudaError {
    unsafe { cudaMemcpyFromSymbol(dst, symbol, count, offset, kind) }
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cudaGetSymbolAddress(
    dev_ptr: *mut *mut c_void,
    symbol: *const c_void,
) -> CudaError {
    api::call("cudaGetSymbolAddress", |rt| {
        let var = rt.symbol(symbol)?;
        if var.constant {
            rt.not_supported("cudaGetSymbolAddress of a __constant__ variable");
            return Err(Fail::Reported(NOT_SUPPORTED));
        }
        rt.place_module_globals(var.module);
        let name = rt.modules[var.module]
            .program
            .variable(var.var)
            .name
            .clone();
        let a = rt.memory.symbol(&name).ok_or_else(|| {
            Fail::Api(
                INVALID_SYMBOL,
                format!("`{}` has no device address", var.name),
            )
        })?;
        unsafe { put(dev_ptr, a as *mut c_void, "devPtr") }
    })
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cudaGetSymbolSize(size: *mut usize, symbol: *const c_void) -> CudaError {
    api::call("cudaGetSymbolSize", |rt| {
        let var = rt.symbol(symbol)?;
        unsafe { put(size, var.size as usize, "size") }
    })
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cudaFuncGetAttributes(
    attr: *mut FuncAttributes,
    func: *const c_void,
) -> CudaError {
    api::call("cudaFuncGetAttributes", |rt| {
        let (m, k, shared) = rt.kernel_facts(func)?;
        let f = rt.modules[m].program.function(k);
        let max_threads = f
            .tuning
            .maxntid
            .map_or(1024, |n| (n[0] * n[1] * n[2]).min(1024)) as c_int;
        let dynamic = rt
            .func_shared
            .get(&(func as usize))
            .copied()
            .unwrap_or((crate::device::SHARED_PER_BLOCK as u64 - shared) as c_int);
        let (major, minor) = rt.config.arch;
        unsafe {
            put(
                attr,
                FuncAttributes {
                    shared_size_bytes: shared as usize,
                    const_size_bytes: 0,
                    local_size_bytes: 0,
                    max_threads_per_block: max_threads,
                    num_regs: 32,
                    ptx_version: major * 10 + minor,
                    binary_version: major * 10 + minor,
                    cache_mode_ca: 0,
                    max_dynamic_shared_size_bytes: dynamic,
                    preferred_shmem_carveout: -1,
                },
                "attr",
            )
        }
    })
}

#[unsafe(no_mangle)]
pub extern "C" fn cudaFuncSetAttribute(
    func: *const c_void,
    attr: c_int,
    value: c_int,
) -> CudaError {
    api::call("cudaFuncSetAttribute", |rt| {
        let (_, _, shared) = rt.kernel_facts(func)?;
        match attr {
            8 => {
                require(
                    value >= 0 && value as u64 + shared <= SHARED_PER_BLOCK_OPTIN as u64,
                    || {
                        format!(
                            "{value} bytes of dynamic shared memory exceed the {SHARED_PER_BLOCK_OPTIN} available"
                        )
                    },
                )?;
                rt.func_shared.insert(func as usize, value);
                Ok(())
            }
            9 => require((-1..=100).contains(&value), || {
                format!("carveout {value} is not a percentage")
            }),
            _ => Err(Fail::Api(
                INVALID_VALUE,
                format!("{attr} is not a cudaFuncAttribute"),
            )),
        }
    })
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cudaOccupancyMaxActiveBlocksPerMultiprocessor(
    blocks: *mut c_int,
    func: *const c_void,
    block_size: c_int,
    dynamic: usize,
) -> CudaError {
    api::call("cudaOccupancyMaxActiveBlocksPerMultiprocessor", |rt| {
        let (_, _, shared) = rt.kernel_facts(func)?;
        let n = rt.blocks_per_sm(shared, block_size, dynamic);
        unsafe { put(blocks, n, "numBlocks") }
    })
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cudaOccupancyMaxActiveBlocksPerMultiprocessorWithFlags(
    blocks: *mut c_int,
    func: *const c_void,
    block_size: c_int,
    dynamic: usize,
    _flags: u32,
) -> CudaError {
    unsafe { cudaOccupancyMaxActiveBlocksPerMultiprocessor(blocks, func, block_size, dynamic) }
}

/// The block size with the most resident threads per multiprocessor (ties: the larger
/// block), and the grid that fills the device with it.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cudaOccupancyMaxPotentialBlockSizeImpl(
    min_grid: *mut c_int,
    block_size: *mut c_int,
    func: *const c_void,
    dynamic: usize,
    limit: c_int,
) -> CudaError {
    api::call("cudaOccupancyMaxPotentialBlockSize", |rt| {
        let (m, k, shared) = rt.kernel_facts(func)?;
        let f = rt.modules[m].program.function(k);
        let cap = f
            .tuning
            .maxntid
            .map_or(1024, |n| (n[0] * n[1] * n[2]).min(1024)) as c_int;
        let cap = if limit > 0 { cap.min(limit) } else { cap };
        let (mut best, mut best_threads) = (32.min(cap), 0);
        let mut b = 32;
        while b <= cap {
            let threads = rt.blocks_per_sm(shared, b, dynamic) * b;
            if threads >= best_threads {
                (best, best_threads) = (b, threads);
            }
            b += 32;
        }
        let grid = rt.blocks_per_sm(shared, best, dynamic) * MULTIPROCESSORS;
        unsafe { put(block_size, best, "blockSize")? };
        unsafe { put(min_grid, grid, "minGridSize") }
    })
}
