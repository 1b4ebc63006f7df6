//! The host source line of an API call: the first frame of the call stack that lies in the
//! program's own code, found from return addresses with the `backtrace` crate over the
//! program's debug info (the CLI compiles host code with `-g`).
//!
//! Frames are captured unresolved when a call happens (cheap) and resolved only when a
//! finding needs the line. Frames of this library (Rust sources), of libraries without
//! debug info, of the headers that implement the API (warpcheck's shim headers or
//! NVIDIA's: the inline C++ overloads of `cuda_runtime.h`, e.g. `cudaMalloc<T>`; the CLI
//! lists their directories) and of nvcc's generated launch stubs (`*.cudafe1.stub.c`)
//! are skipped; inlined frames count.

use warpcheck_report::Location;

/// The return addresses of a call stack, innermost first.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct CallSite {
    ips: Vec<usize>,
}

/// The most frames captured: API calls sit a few frames below the user's code.
const MAX_FRAMES: usize = 24;

impl CallSite {
    /// The current call stack.
    pub fn capture() -> CallSite {
        let mut ips = Vec::with_capacity(MAX_FRAMES);
        backtrace::trace(|frame| {
            ips.push(frame.ip() as usize);
            ips.len() < MAX_FRAMES
        });
        CallSite { ips }
    }

    /// The innermost frame in the user's code, with its line.
    pub fn resolve(&self, shim_dir: Option<&str>) -> Option<Location> {
        for &ip in &self.ips {
            if in_this_library(ip) {
                continue;
            }
            let mut found: Option<Location> = None;
            backtrace::resolve(ip as *mut std::ffi::c_void, |symbol| {
                if found.is_some() {
                    return;
                }
                let (Some(file), Some(line)) = (symbol.filename(), symbol.lineno()) else {
                    return;
                };
                let file = file.display().to_string();
                if is_runtime_frame(&file, shim_dir) || line == 0 {
                    return;
                }
                found = Some(Location {
                    file,
                    line,
                    column: symbol.colno().unwrap_or(0),
                });
            });
            if found.is_some() {
                return found;
            }
        }
        None
    }
}

/// The loaded object (executable or shared library) that holds `ip` (`dladdr`): its
/// base address and whether it is a shared library (`.so` in its file name).
fn object_of(ip: usize) -> Option<(usize, bool)> {
    // SAFETY: `dladdr` only reads the loader's tables and writes `info`, which is valid
    // for writes; any address may be asked about. `dli_fname`, when set, is a C string
    // owned by the loader.
    unsafe {
        let mut info: libc::Dl_info = std::mem::zeroed();
        if libc::dladdr(ip as *const libc::c_void, &mut info) == 0 {
            return None;
        }
        let shared = !info.dli_fname.is_null()
            && std::ffi::CStr::from_ptr(info.dli_fname)
                .to_bytes()
                .windows(3)
                .any(|w| w == b".so");
        Some((info.dli_fbase as usize, shared))
    }
}

/// Whether `ip` is code of this library, when it is loaded as `libwarpcheck_cudart.so`
/// (then no user code is in it): its frames are skipped before symbolisation, which
/// would otherwise read this library's large debug information the first time a call
/// site is resolved.
fn in_this_library(ip: usize) -> bool {
    static OWN: std::sync::OnceLock<Option<usize>> = std::sync::OnceLock::new();
    let own = *OWN.get_or_init(|| match object_of(object_of as *const () as usize) {
        Some((base, true)) => Some(base),
        _ => None,
    });
    own.is_some_and(|own| object_of(ip).is_some_and(|(base, _)| base == own))
}

/// Frames of this library or of the headers that implement the API.
fn is_runtime_frame(file: &str, shim_dir: Option<&str>) -> bool {
    file.ends_with(".rs")
        || file.contains("/rustc/")
        || file.contains("/.cargo/")
        || shim_dir.is_some_and(|dirs| {
            let file = lexically_normal(file);
            std::env::split_paths(dirs).any(|d| !d.as_os_str().is_empty() && file.starts_with(d))
        })
        || file.ends_with(".cudafe1.stub.c")
        || file.starts_with("/usr/include/")
        || file.starts_with("/usr/lib/")
}

/// `file` with its `..` components applied (nvcc names its headers
/// `…/bin/../include/…`).
fn lexically_normal(file: &str) -> std::path::PathBuf {
    use std::path::Component;
    let mut out = std::path::PathBuf::new();
    for c in std::path::Path::new(file).components() {
        match c {
            Component::ParentDir if out.file_name().is_some() => {
                out.pop();
            }
            Component::CurDir => {}
            c => out.push(c),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn header_frames_of_the_listed_directories_are_the_runtimes() {
        let dirs = "/tmp/shims:/opt/nv/cu13/include";
        assert!(is_runtime_frame(
            "/opt/nv/cu13/bin/../include/cuda_runtime.h",
            Some(dirs)
        ));
        assert!(is_runtime_frame("/tmp/shims/cuda_runtime.h", Some(dirs)));
        assert!(is_runtime_frame("/tmp/x/k.cudafe1.stub.c", Some(dirs)));
        assert!(!is_runtime_frame("/home/u/k.cu", Some(dirs)));
        assert!(!is_runtime_frame("/opt/nv/cu13/includes.cu", Some(dirs)));
    }
}
