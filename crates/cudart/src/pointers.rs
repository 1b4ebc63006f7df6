//! Classifying the pointers handed to the API, and the host-side memory checks made on
//! them (as compute-sanitizer's memcheck does on the host side): a device range that
//! leaves its allocation, a freed allocation, an address that is no device memory.

use warpcheck_report::{Code, Severity};

use crate::api::Fail;
use crate::host_line::CallSite;
use crate::state::{AllocKind, Runtime};
use crate::types::{INVALID_DEVICE_POINTER, INVALID_VALUE};

/// Where the bytes of a checked range live.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mem {
    /// Emulator memory at this address.
    Device(u64),
    /// Host memory (including managed memory, whose host mapping holds its bytes between
    /// launches).
    Host(usize),
}

/// What accesses a checked device range: the wording of its findings.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Access {
    /// A copy or memset of the runtime API, whose byte count is an argument.
    Copy,
    /// A library call (cuBLAS) whose ranges follow from its dimension arguments.
    Library,
}

/// Whether an address lies in the emulator's global window (a device pointer, live or not).
pub fn looks_like_device(address: u64) -> bool {
    address >= warpcheck_emu::memory::GLOBAL_BASE
        && warpcheck_emu::memory::resolve_generic(address)
            == warpcheck_emu::memory::GenericTarget::Global(address)
}

impl Runtime {
    /// Whether a pointer is device memory the program allocated or a module variable,
    /// live or freed.
    pub fn is_device(&self, address: u64) -> bool {
        self.alloc_at(address).is_some() || self.memory.allocation_at(address).is_some()
    }

    /// Checks that `len` bytes at `address` lie in one live device allocation (or module
    /// variable); reports the finding otherwise. `role` names the pointer in messages
    /// ("destination of cudaMemcpy").
    pub fn device_range(
        &mut self,
        call: &str,
        role: &str,
        address: u64,
        len: u64,
    ) -> Result<Mem, Fail> {
        self.checked_range(call, role, address, len, Access::Copy)
    }

    /// [`Runtime::device_range`] for an access of the given kind.
    pub fn checked_range(
        &mut self,
        call: &str,
        role: &str,
        address: u64,
        len: u64,
        access: Access,
    ) -> Result<Mem, Fail> {
        if let Some((base, a)) = self.alloc_at(address) {
            let a = a.clone();
            if let Some(freed) = &a.freed {
                let site = CallSite::capture();
                let mut f = self.host_finding(
                    Code::UseAfterFree,
                    Severity::Error,
                    format!(
                        "the {role} of {call} ({address:#x}) is in {} bytes of device memory that were freed",
                        a.size
                    ),
                    &site,
                    "used here",
                );
                if let Some(at) = self.line(freed) {
                    f = f.related(at, "freed here");
                }
                if let Some(at) = self.line(&a.site) {
                    f = f.related(at, format!("allocated here by {}", a.kind.api()));
                }
                self.findings.add(f);
                return Err(Fail::Reported(INVALID_VALUE));
            }
            let offset = address - base;
            if offset + len > a.size {
                self.report_overflow(
                    call, role, address, len, base, a.size, &a.site, a.kind, access,
                );
                return Err(Fail::Reported(INVALID_VALUE));
            }
            return Ok(match a.kind {
                AllocKind::Managed => Mem::Host(address as usize),
                _ => Mem::Device(address),
            });
        }
        if let Some(v) = self.memory.allocation_at(address) {
            let (base, size) = (v.base(), v.size());
            if address - base + len <= size {
                return Ok(Mem::Device(address));
            }
            self.report_overflow(
                call,
                role,
                address,
                len,
                base,
                size,
                &CallSite::default(),
                AllocKind::Device,
                access,
            );
            return Err(Fail::Reported(INVALID_VALUE));
        }
        let site = CallSite::capture();
        let what = if address == 0 {
            "a null pointer".to_string()
        } else if looks_like_device(address) {
            format!("{address:#x}, which is no device allocation")
        } else {
            format!("{address:#x}, a host pointer")
        };
        let help = match access {
            Access::Copy => "pass a pointer returned by cudaMalloc (or check the cudaMemcpyKind)",
            Access::Library => "pass a pointer returned by cudaMalloc",
        };
        let f = self
            .host_finding(
                Code::InvalidDevicePointer,
                Severity::Error,
                format!("the {role} of {call} is {what}"),
                &site,
                "passed here",
            )
            .help(help);
        self.findings.add(f);
        Err(Fail::Reported(if address == 0 {
            INVALID_VALUE
        } else {
            INVALID_DEVICE_POINTER
        }))
    }

    #[allow(clippy::too_many_arguments)]
    fn report_overflow(
        &mut self,
        call: &str,
        role: &str,
        address: u64,
        len: u64,
        base: u64,
        size: u64,
        alloc_site: &CallSite,
        kind: AllocKind,
        access: Access,
    ) {
        let site = CallSite::capture();
        let offset = address - base;
        let (label, help) = match access {
            Access::Copy => (
                "copied here",
                "the count passed to the copy is larger than the allocation",
            ),
            Access::Library => (
                "accessed here",
                "the extent that the call's dimensions, leading dimension and batch stride give is larger than the allocation",
            ),
        };
        let mut f = self
            .host_finding(
                Code::CopyOutOfBounds,
                Severity::Error,
                format!(
                    "{call} accesses {len} bytes at offset {offset} of a {size}-byte device allocation ({} bytes past its end) through its {role}",
                    offset + len - size
                ),
                &site,
                label,
            )
            .help(help);
        if let Some(at) = self.line(alloc_site) {
            f = f.related(at, format!("allocated here by {}", kind.api()));
        }
        self.findings.add(f);
    }

    /// Reads bytes of device or host memory.
    pub fn read_mem(&self, from: Mem, len: usize) -> Vec<u8> {
        match from {
            Mem::Device(a) => self.memory.read(a, len as u64).unwrap_or_default(),
            // SAFETY: host ranges come from the program, which vouches for them as it
            // would with the real runtime (a bad host pointer crashes there too).
            Mem::Host(p) => unsafe { std::slice::from_raw_parts(p as *const u8, len) }.to_vec(),
        }
    }

    /// Writes bytes to device or host memory; device writes count as initialised.
    pub fn write_mem(&mut self, to: Mem, bytes: &[u8]) {
        match to {
            Mem::Device(a) => {
                let _ = self.memory.write(a, bytes);
                self.host_wrote(a, bytes.len() as u64);
            }
            // SAFETY: as in `read_mem`.
            Mem::Host(p) => unsafe {
                std::ptr::copy(bytes.as_ptr(), p as *mut u8, bytes.len());
            },
        }
    }

    /// Copies `len` bytes between device and host memory in one pass, straight from the
    /// source into the destination (a copy between two device ranges goes through a
    /// buffer); device writes count as initialised.
    pub fn copy_mem(&mut self, to: Mem, from: Mem, len: usize) {
        match (to, from) {
            (Mem::Host(p), Mem::Device(a)) => {
                // SAFETY: as in `read_mem`; the program vouches for `len` writable bytes.
                let out = unsafe { std::slice::from_raw_parts_mut(p as *mut u8, len) };
                let _ = self.memory.read_into(a, out);
            }
            (Mem::Device(_), Mem::Host(p)) => {
                // SAFETY: as in `read_mem`.
                let bytes = unsafe { std::slice::from_raw_parts(p as *const u8, len) };
                self.write_mem(to, bytes);
            }
            _ => {
                let bytes = self.read_mem(from, len);
                self.write_mem(to, &bytes);
            }
        }
    }

    /// Tells the `init` checkers that the host wrote device bytes.
    pub fn host_wrote(&mut self, address: u64, len: u64) {
        for m in &mut self.modules {
            if let Some(c) = &mut m.checker
                && c.options.tools.init
            {
                c.init.host_wrote(&self.memory, address, len);
            }
        }
    }
}
