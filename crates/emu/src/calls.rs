//! Calls (PTX ISA §9.7.11.5) and returns.
//!
//! A call to a function with a body passes its arguments through the callee's frame: the
//! caller's call-sequence `.param` variables (or registers) are copied, per lane, to the
//! callee's parameter offsets in a new frame on the thread's local stack (right after the
//! caller's frame). The calling group then enters the callee inside a *call region*
//! whose reconvergence point is the op after the call; `ret` copies the return values into
//! the caller's frame and makes the returning lanes arrive there, so lanes that return
//! early (divergently) wait for the others. Calls into recursive functions also save the
//! callee's registers, restored for the returning lanes when the call region completes.
//!
//! Functions declared without a body are implemented natively: `vprintf` (device
//! `printf`), `__assertfail` (a failing `assert`), the libdevice math functions (see
//! [`crate::math`]), the grid-wide barrier `__warpcheck_grid_sync` (`crate::cooperative`),
//! and `malloc` and `free` on the device heap ([`crate::heap`]).

use std::fmt::Write as _;

use crate::block::{Block, first_lane};
use crate::exec::control::{CallState, Group, NO_REGION, Region, Wait};
use crate::exec::mem::MemCtx;
use crate::fault::{Fault, FaultKind};
use crate::heap::FreeError;
use crate::math::{self, MathFn};
use crate::observer::Observer;
use crate::ops::{ArgSrc, OpKind};

/// A natively implemented external function.
#[derive(Clone, Copy, Debug)]
pub(crate) enum Native {
    /// `int vprintf(const char *format, void *args)`.
    Vprintf,
    /// `void __assertfail(const char *message, const char *file, unsigned line,
    /// const char *function, size_t charSize)`.
    AssertFail,
    Math(&'static MathFn),
    /// `void sincosf(float x, float *s, float *c)` and the f64 `sincos`: results through
    /// pointers (usually to the caller's local memory).
    SinCos {
        double: bool,
    },
    /// `void __warpcheck_grid_sync(void)`: the grid-wide barrier of warpcheck's
    /// `cooperative_groups` header (see `cooperative.rs`); not a per-lane call.
    GridSync,
    /// `void *malloc(size_t size)` on the device heap (`crate::heap`).
    Malloc,
    /// `void free(void *pointer)` on the device heap.
    Free,
}

impl Native {
    pub fn from_name(name: &str) -> Option<Native> {
        match name {
            "vprintf" => Some(Native::Vprintf),
            "__assertfail" | "__assert_fail" => Some(Native::AssertFail),
            "__nv_sincosf" | "__nv_fast_sincosf" => Some(Native::SinCos { double: false }),
            "__nv_sincos" => Some(Native::SinCos { double: true }),
            "__warpcheck_grid_sync" => Some(Native::GridSync),
            "malloc" => Some(Native::Malloc),
            "free" => Some(Native::Free),
            _ => math::lookup(name).map(Native::Math),
        }
    }
}

impl<O: Observer> Block<'_, O> {
    pub(crate) fn ret(&mut self, w: usize, gi: usize, m: u32) -> Result<(), Fault> {
        let flat = self.cx.flat;
        let g = self.warps[w].groups[gi];
        // The innermost call region.
        let warp = &self.warps[w];
        let mut r = g.region;
        while r != NO_REGION && warp.regions.list[r as usize].call.is_none() {
            r = warp.regions.list[r as usize].parent;
        }
        if m != g.mask {
            let warp = &mut self.warps[w];
            warp.groups[gi].mask = g.mask & !m;
            warp.groups[gi].pc += 1;
        } else {
            self.warps[w].groups.swap_remove(gi);
        }
        if r == NO_REGION {
            // Returning from the kernel ends the threads.
            self.exit(w, m);
            return Ok(());
        }
        // Copy return values into the caller's frame.
        let (call_pc, caller_base) = {
            let region = &self.warps[w].regions.list[r as usize];
            (
                region.call.as_ref().map_or(0, |c| c.call_pc),
                region.frame_base,
            )
        };
        if let OpKind::Call(call) = &flat.ops[call_pc as usize].kind {
            let callee = &flat.funcs[g.func as usize];
            let warp = &mut self.warps[w];
            let mut mc = MemCtx::new(
                flat,
                self.cx.global,
                self.shared,
                &mut warp.local,
                &mut warp.cache,
            );
            for (i, dst) in call.rets.iter().enumerate() {
                let Some(&(off, size)) = callee.ret_offsets.get(i) else {
                    continue;
                };
                let mut lanes = m;
                while lanes != 0 {
                    let l = lanes.trailing_zeros();
                    lanes &= lanes - 1;
                    match *dst {
                        ArgSrc::Frame { offset, size: s } => {
                            mc.copy_local(l, g.frame_base + off, caller_base + offset, s.min(size));
                        }
                        ArgSrc::Reg { slot, .. } => {
                            let v = mc
                                .read_local(l, g.frame_base + off, size.min(8))
                                .unwrap_or(0);
                            warp.regs[slot as usize][l as usize] = v;
                        }
                    }
                }
            }
        }
        // Leave the regions inside the call, then arrive at the call region.
        let mut x = g.region;
        let mut inner = Vec::new();
        while x != r && x != NO_REGION {
            let region = &mut self.warps[w].regions.list[x as usize];
            region.expected &= !m;
            inner.push(x);
            x = region.parent;
        }
        for x in inner {
            self.try_complete(w, x);
        }
        self.arrive(w, r, m);
        Ok(())
    }

    pub(crate) fn call_body(&mut self, w: usize, gi: usize, m: u32, f: u32) -> Result<(), Fault> {
        let flat = self.cx.flat;
        let g = self.warps[w].groups[gi];
        let callee = &flat.funcs[f as usize];
        let new_base = g.frame_base + flat.funcs[g.func as usize].frame_size;
        if new_base + callee.frame_size > flat.stack_size {
            let kind = FaultKind::StackOverflow {
                bytes: new_base + callee.frame_size,
            };
            return Err(self.fault_at(w, first_lane(m) as u32, g.pc, kind));
        }
        let OpKind::Call(call) = &flat.ops[g.pc as usize].kind else {
            return Ok(());
        };
        let warp = &mut self.warps[w];
        let mut mc = MemCtx::new(
            flat,
            self.cx.global,
            self.shared,
            &mut warp.local,
            &mut warp.cache,
        );
        for (i, arg) in call.args.iter().enumerate() {
            let Some(&(off, size)) = callee.param_offsets.get(i) else {
                continue;
            };
            let mut lanes = m;
            while lanes != 0 {
                let l = lanes.trailing_zeros();
                lanes &= lanes - 1;
                match *arg {
                    ArgSrc::Frame { offset, size: s } => {
                        mc.copy_local(l, g.frame_base + offset, new_base + off, s.min(size));
                    }
                    ArgSrc::Reg { slot, size: s } => {
                        mc.write_local(
                            l,
                            new_base + off,
                            s.min(size).min(8),
                            warp.regs[slot as usize][l as usize],
                        );
                    }
                }
            }
        }
        let saved = callee.recursive.then(|| {
            let (s0, s1) = callee.slot_range;
            let (p0, p1) = callee.pred_range;
            (
                warp.regs[s0 as usize..s1 as usize].to_vec(),
                warp.preds[p0 as usize..p1 as usize].to_vec(),
            )
        });
        let region = warp.regions.alloc(Region {
            rpc: g.pc + 1,
            expected: g.mask,
            arrived: g.mask & !m,
            parent: g.region,
            frame_base: g.frame_base,
            func: g.func,
            call: Some(Box::new(CallState {
                call_pc: g.pc,
                saved,
            })),
            live: true,
        });
        warp.groups[gi] = Group {
            pc: callee.base,
            mask: m,
            region,
            frame_base: new_base,
            func: f,
            wait: Wait::Runnable,
        };
        Ok(())
    }

    #[allow(clippy::too_many_arguments)]
    pub(crate) fn call_native(
        &mut self,
        w: usize,
        pc: u32,
        m: u32,
        frame_base: u64,
        native: Native,
        args: &[ArgSrc],
        rets: &[ArgSrc],
    ) -> Result<(), Fault> {
        let flat = self.cx.flat;
        let warp = &mut self.warps[w];
        let mc_regs = &mut warp.regs;
        let mut mc = MemCtx::new(
            flat,
            self.cx.global,
            self.shared,
            &mut warp.local,
            &mut warp.cache,
        );
        let mut lanes = m;
        let mut fault = None;
        while lanes != 0 {
            let l = lanes.trailing_zeros();
            lanes &= lanes - 1;
            let get = |mc: &MemCtx<'_>, i: usize, size: u32| -> u64 {
                match args.get(i) {
                    Some(ArgSrc::Frame { offset, size: s }) => mc
                        .read_local(l, frame_base + offset, (*s).min(size).min(8))
                        .unwrap_or(0),
                    Some(ArgSrc::Reg { slot, .. }) => mc_regs[*slot as usize][l as usize],
                    None => 0,
                }
            };
            let result: Result<Option<u64>, FaultKind> = match native {
                Native::Math(f) => {
                    let mut vals = [0u64; 4];
                    for (i, t) in f.args.iter().enumerate().take(4) {
                        vals[i] = get(&mc, i, t.size());
                    }
                    Ok(Some((f.f)(&vals[..f.args.len().min(4)])))
                }
                Native::Vprintf => {
                    let fmt_addr = get(&mc, 0, 8);
                    let buf = get(&mc, 1, 8);
                    match printf_lane(&mut mc, l, fmt_addr, buf) {
                        Ok(s) => {
                            self.out.printf.push_str(&s);
                            Ok(Some(0))
                        }
                        Err(k) => Err(k),
                    }
                }
                Native::SinCos { double } => {
                    let size = if double { 8 } else { 4 };
                    let x = get(&mc, 0, size);
                    let (sp, cp) = (get(&mc, 1, 8), get(&mc, 2, 8));
                    let (s, c) = if double {
                        let (s, c) = f64::from_bits(x).sin_cos();
                        (s.to_bits(), c.to_bits())
                    } else {
                        let (s, c) = f32::from_bits(x as u32).sin_cos();
                        (s.to_bits() as u64, c.to_bits() as u64)
                    };
                    mc.store_generic(sp, size, l, s)
                        .and_then(|()| mc.store_generic(cp, size, l, c))
                        .map(|()| None)
                }
                // Handled by the block (`Block::grid_arrive`) before any lane runs.
                Native::GridSync => Ok(None),
                Native::Malloc => Ok(Some(heap_malloc(mc.global, get(&mc, 0, 8)))),
                Native::Free => heap_free(mc.global, get(&mc, 0, 8)).map(|()| None),
                Native::AssertFail => {
                    let msg = get(&mc, 0, 8);
                    let file = get(&mc, 1, 8);
                    let line = get(&mc, 2, 4) as u32;
                    let func = get(&mc, 3, 8);
                    let read = |mc: &mut MemCtx<'_>, a: u64| {
                        mc.read_cstr(a, l, 4096)
                            .map(|b| String::from_utf8_lossy(&b).into_owned())
                            .unwrap_or_default()
                    };
                    Err(FaultKind::AssertionFailed {
                        message: read(&mut mc, msg),
                        file: read(&mut mc, file),
                        line,
                        function: read(&mut mc, func),
                    })
                }
            };
            match result {
                Ok(Some(v)) => {
                    let ret_size = match native {
                        Native::Math(f) => f.ret.size(),
                        Native::Malloc => 8,
                        _ => 4,
                    };
                    if let Some(dst) = rets.first() {
                        match *dst {
                            ArgSrc::Frame { offset, size } => {
                                mc.write_local(l, frame_base + offset, size.min(ret_size), v);
                            }
                            ArgSrc::Reg { slot, .. } => mc_regs[slot as usize][l as usize] = v,
                        }
                    }
                }
                Ok(None) => {}
                Err(k) => {
                    fault = Some((l, k));
                    break;
                }
            }
        }
        match fault {
            Some((l, k)) => Err(self.fault_at(w, l, pc, k)),
            None => Ok(()),
        }
    }
}

/// One lane's `malloc(bytes)`: the block's address, or 0 when the heap is full. The
/// launch placed the heap before running a kernel that calls `malloc`.
fn heap_malloc(global: &crate::GlobalMemory, bytes: u64) -> u64 {
    global.heap().map_or(0, |h| h.malloc(bytes))
}

/// One lane's `free(address)`: nothing for NULL (as the Programming Guide says), a fault
/// for a block freed already or a pointer `malloc` did not return.
fn heap_free(global: &crate::GlobalMemory, address: u64) -> Result<(), FaultKind> {
    if address == 0 {
        return Ok(());
    }
    let Some(heap) = global.heap() else {
        return Err(FaultKind::HeapInvalidFree { address });
    };
    match heap.free(address) {
        Ok(_) => Ok(()),
        Err(FreeError::Double { size }) => Err(FaultKind::HeapDoubleFree { address, size }),
        Err(FreeError::NotAllocated) => Err(FaultKind::HeapInvalidFree { address }),
    }
}

/// Formats one lane's `vprintf` call.
fn printf_lane(
    mc: &mut MemCtx<'_>,
    lane: u32,
    fmt_addr: u64,
    buf: u64,
) -> Result<String, FaultKind> {
    struct Args<'m, 'a> {
        mc: &'m mut MemCtx<'a>,
        lane: u32,
        base: u64,
        offset: u64,
        fault: Option<FaultKind>,
    }
    impl crate::printf::ArgSource for Args<'_, '_> {
        fn next(&mut self, size: u32) -> Result<u64, String> {
            self.offset = self.offset.div_ceil(size as u64) * size as u64;
            let v = self
                .mc
                .load_generic(self.base.wrapping_add(self.offset), size, self.lane);
            self.offset += size as u64;
            v.map_err(|k| {
                let msg = k.to_string();
                self.fault = Some(k);
                msg
            })
        }
        fn string(&mut self, address: u64) -> Result<Vec<u8>, String> {
            self.mc.read_cstr(address, self.lane, 1 << 16).map_err(|k| {
                let msg = k.to_string();
                self.fault = Some(k);
                msg
            })
        }
    }
    let fmt = mc.read_cstr(fmt_addr, lane, 1 << 16)?;
    let mut args = Args {
        mc,
        lane,
        base: buf,
        offset: 0,
        fault: None,
    };
    match crate::printf::format(&fmt, &mut args) {
        Ok(s) => Ok(s),
        Err(msg) => match args.fault {
            Some(k) => Err(k),
            None => {
                // An unsupported conversion: print the format as is, with a note.
                let mut s = String::from_utf8_lossy(&fmt).into_owned();
                let _ = write!(s, " [warpcheck: {msg}]");
                Ok(s)
            }
        },
    }
}
