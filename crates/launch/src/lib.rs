//! Launching kernels in the emulator, shared by the `warpcheck` CLI, its tests and the
//! porting advisor's verification.
//!
//! * [`spec`]: what one launch is ([`LaunchSpec`]: kernel, grid, block, shared memory,
//!   `NAME=SPEC` arguments, seed), parsed from a kernel file's `// warpcheck-launch:` lines
//!   or a TOML launch file;
//! * [`bind`]: binding named arguments to a kernel's parameters, with the synthesis policy
//!   for arguments left out;
//! * [`session`]: a sequence of launches of one program over buffers shared by name, and
//!   turning faults into findings;
//! * [`kernel`]: choosing the kernel a launch names.
//!
//! Nothing here prints or exits: every failure is a [`LaunchError`], which the caller
//! renders.

pub mod bind;
pub mod error;
pub mod kernel;
pub mod session;
pub mod spec;

pub use error::LaunchError;
pub use kernel::{kernel_list, only_kernel, select_function};
pub use session::{
    EmuOptions, LaunchReport, NamedBuffer, PtxText, Session, cpu_note, display_path, fault_finding,
    location, process_cpu_seconds, site_location,
};
pub use spec::{
    Dim3, LaunchSpec, header_launches, launch_file_text, launches_from_file, parse_dim3,
    toml_launches,
};
